//! JSON-RPC messages as a guarded session sees them: parsed with the
//! crate's strict parser (duplicate keys, invalid UTF-8, lone surrogates and
//! the like are refused, so nothing is let through that was read differently
//! from the peer), classified, and cut into byte spans so that everything
//! passed on is the peer's own bytes except the part replaced. The one home
//! of the JSON-RPC shape rules the MCP client (`src/mcp/jsonrpc.rs`) shares.

use alloc::string::String;
use alloc::vec::Vec;

use crate::jcs;
use crate::json::{self, Node, Tag, Tape, Value};
use crate::{Error, Limits, MAX_INPUT};

/// Scratch nodes above this many are freed after the message that needed
/// them (a 16 MiB line may need millions; the usual message needs dozens).
const KEEP_NODES: usize = 1 << 16;

/// Reusable parser scratch.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    nodes: Vec<Node>,
}

impl Scratch {
    /// Parses `line` (at most `max_input` bytes, never more than
    /// [`MAX_INPUT`]) and hands the tape to `f`; frees oversized scratch
    /// after.
    pub fn with<R>(
        &mut self,
        line: &[u8],
        max_input: usize,
        f: impl FnOnce(Result<Tape<'_>, Error>) -> R,
    ) -> R {
        let limits = Limits {
            max_input: max_input.min(MAX_INPUT),
            ..Limits::DEFAULT
        };
        let r = f(json::parse_growing(line, &mut self.nodes, &limits));
        if self.nodes.len() > KEEP_NODES {
            self.nodes = Vec::new();
        }
        r
    }
}

/// What one JSON-RPC message object is.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind<'a> {
    /// A request: `method` and `id`.
    Request {
        /// The method (a string value).
        method: Value<'a>,
        /// The id.
        id: Value<'a>,
    },
    /// A notification: `method`, no `id`.
    Notification {
        /// The method (a string value).
        method: Value<'a>,
    },
    /// A response: `result` or `error`, with an `id` (null allowed).
    Response {
        /// The id.
        id: Value<'a>,
        /// The result, when it is a success.
        result: Option<Value<'a>>,
    },
    /// Not a JSON-RPC message; why.
    Invalid(&'static str),
}

/// Why a message that is both a request and a response is dropped.
const BOTH: &str =
    "a message that is both a request and a response (an empty method, or a method beside a result or error)";

/// Why JSON that is no JSON-RPC message at all is dropped (junk, for the
/// log's limits).
pub(crate) const NOT_A_MESSAGE: &str = "JSON that is not a JSON-RPC message";

/// Whether message `m`, which has the string `method`, could be read as a
/// response too: an empty method (mcp-go takes a message whose method is
/// `""` for a response) or a `result` or `error` beside it. The MCP client
/// and the guarded session refuse such a message: which of the two a client
/// takes decides whether its `result` is checked.
pub(crate) fn is_request_and_response(m: Value<'_>, method: Value<'_>) -> bool {
    method.str_eq("") || m.get("result").is_some() || m.get("error").is_some()
}

/// Whether text that does not parse looks like a JSON-RPC message (starts
/// with `{` or `[` and mentions `"jsonrpc"`): dropping it is a refusal, not
/// the removal of stray output.
pub(crate) fn looks_like_message(msg: &[u8]) -> bool {
    let start = msg.iter().position(|b| !b" \t\r\n".contains(b));
    matches!(start.map(|i| msg[i]), Some(b'{') | Some(b'['))
        && msg.windows(9).any(|w| w == b"\"jsonrpc\"")
}

/// Classifies one element (a message object, or anything else).
pub(crate) fn kind(m: Value<'_>) -> Kind<'_> {
    if m.tag() != Tag::Object {
        return Kind::Invalid(NOT_A_MESSAGE);
    }
    if crate::contract::variant::variant_member(m, &crate::contract::variant::MESSAGE).is_some() {
        // `Result` beside `result`: a case-insensitive client reads the one
        // not checked (spec section 6).
        return Kind::Invalid("a JSON-RPC message with a case-variant key (such as `Result`)");
    }
    let id = m.get("id");
    if let Some(method) = m.get("method") {
        if method.tag() != Tag::String {
            return Kind::Invalid("a message whose method is not a string");
        }
        if is_request_and_response(m, method) {
            return Kind::Invalid(BOTH);
        }
        return match id {
            Some(id) => Kind::Request { method, id },
            None => Kind::Notification { method },
        };
    }
    let result = m.get("result");
    if result.is_none() && m.get("error").is_none() {
        return Kind::Invalid(NOT_A_MESSAGE);
    }
    match id {
        Some(id) => Kind::Response { id, result },
        None => Kind::Invalid("a response without an id"),
    }
}

/// How request ids are matched to responses: numerically when they are
/// numbers or decimal digit strings (as both SDKs match them), else as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum IdKey {
    /// A number (the bits of its double value, -0 as 0).
    Num(u64),
    /// Any other string.
    Str(String),
}

/// The key of an id value (`None` for null and other types).
pub(crate) fn id_key(v: Value<'_>) -> Option<IdKey> {
    let num = |text: &str| {
        text.parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(|f| IdKey::Num(if f == 0.0 { 0 } else { f.to_bits() }))
    };
    match v.tag() {
        Tag::Number => num(core::str::from_utf8(v.raw_number()?).ok()?),
        Tag::String => {
            let s = decode(v)?;
            let digits = s.strip_prefix('-').unwrap_or(&s);
            if !digits.is_empty()
                && digits.len() <= 15
                && digits.bytes().all(|b| b.is_ascii_digit())
            {
                num(&s)
            } else {
                Some(IdKey::Str(s))
            }
        }
        _ => None,
    }
}

/// Decodes a string value (escapes resolved).
pub(crate) use crate::json::decode;
/// The byte range of value `v` in `input` (a document the parser accepted).
pub(crate) use crate::json::value_span as span;

/// `input` with `range` replaced by `with`.
pub(crate) use crate::json::splice;

/// A JSON array of the given elements (a rebuilt batch).
pub(crate) fn array_of(parts: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(parts.iter().map(|p| p.len() + 1).sum::<usize>() + 2);
    out.push(b'[');
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(p);
    }
    out.push(b']');
    out
}

/// `{"jsonrpc":"2.0","id":ID,"error":{"code":CODE,"message":MESSAGE[,"data":DATA]}}`,
/// `id` being the raw bytes of the request's id (`null` when unknown) and
/// `data` a JSON value.
pub(crate) fn error_response(id: &[u8], code: i64, message: &str, data: Option<&[u8]>) -> Vec<u8> {
    let mut out = Vec::with_capacity(80 + id.len() + message.len());
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(id);
    out.extend_from_slice(b",\"error\":{\"code\":");
    out.extend_from_slice(alloc::format!("{code}").as_bytes());
    out.extend_from_slice(b",\"message\":");
    jcs::write_str(&mut out, message);
    if let Some(d) = data {
        out.extend_from_slice(b",\"data\":");
        out.extend_from_slice(d);
    }
    out.extend_from_slice(b"}}");
    out
}

/// A JSON object of string members, in the order given (callers give
/// canonical order).
pub(crate) fn string_object(members: &[(&str, &str)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    out.push(b'{');
    for (i, (k, v)) in members.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        jcs::write_str(&mut out, k);
        out.push(b':');
        jcs::write_str(&mut out, v);
    }
    out.push(b'}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed<R>(line: &[u8], f: impl FnOnce(Value<'_>) -> R) -> R {
        Scratch::default().with(line, MAX_INPUT, |t| f(t.expect("valid JSON").root()))
    }

    #[test]
    fn spans_cover_each_value_exactly() {
        let line = br#"{"a":"x\"]}","b":[1,{"c":"}"}],"d":-1.5e3,"e":null,"f":false,"g":{}}"#;
        parsed(line, |root| {
            let got: Vec<&[u8]> = root.members().map(|(_, v)| &line[span(line, v)]).collect();
            let want: [&[u8]; 6] = [
                br#""x\"]}""#,
                br#"[1,{"c":"}"}]"#,
                b"-1.5e3",
                b"null",
                b"false",
                b"{}",
            ];
            assert_eq!(got, want);
        });
    }

    #[test]
    fn ids_match_as_the_sdks_match_them() {
        let keys: Vec<Option<IdKey>> = parsed(
            br#"[1, 1.0, "1", 10e-1, "01", "a", "\u0061", null, -0, 0]"#,
            |r| r.elements().map(id_key).collect(),
        );
        assert_eq!(keys[0], keys[1]);
        assert_eq!(keys[0], keys[2]);
        assert_eq!(keys[0], keys[3]);
        assert_eq!(keys[0], keys[4]);
        assert_eq!(keys[5], Some(IdKey::Str("a".into())));
        assert_eq!(keys[5], keys[6]);
        assert_eq!(keys[7], None);
        assert_eq!(keys[8], keys[9]);
    }

    #[test]
    fn classification() {
        let cases: [(&[u8], &str); 7] = [
            (br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, "request"),
            (
                br#"{"jsonrpc":"2.0","method":"notifications/x"}"#,
                "notification",
            ),
            (br#"{"jsonrpc":"2.0","id":1,"result":{}}"#, "response"),
            (
                br#"{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":""}}"#,
                "response",
            ),
            (br#"{"jsonrpc":"2.0","result":{}}"#, "invalid"),
            (br#"{"jsonrpc":"2.0","id":1,"method":7}"#, "invalid"),
            (b"[]", "invalid"),
        ];
        for (line, want) in cases {
            let got = parsed(line, |v| match kind(v) {
                Kind::Request { .. } => "request",
                Kind::Notification { .. } => "notification",
                Kind::Response { .. } => "response",
                Kind::Invalid(_) => "invalid",
            });
            assert_eq!(got, want, "{}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn escaped_and_duplicate_keys() {
        // JSON.parse reads "r\u0065sult" as "result": so does `get`.
        parsed(br#"{"id":1,"r\u0065sult":{"t\u006fols":[]}}"#, |v| {
            assert!(
                matches!(kind(v), Kind::Response { result: Some(r), .. } if r.get("tools").is_some())
            );
        });
        // A duplicate key is refused: the proxy never guesses which one the peer uses.
        assert!(Scratch::default().with(
            br#"{"id":1,"result":{"tools":[]},"result":{"tools":[]}}"#,
            MAX_INPUT,
            |t| t.is_err()
        ));
    }

    #[test]
    fn builders() {
        assert_eq!(
            error_response(b"\"a\"", -32602, "Unknown tool: x\"y", Some(b"{}")),
            br#"{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"Unknown tool: x\"y","data":{}}}"#.to_vec()
        );
        assert_eq!(
            array_of(&[b"1".to_vec(), b"{}".to_vec()]),
            b"[1,{}]".to_vec()
        );
        assert_eq!(splice(b"abcdef", 2..4, b"XYZ"), b"abXYZef".to_vec());
        assert_eq!(
            string_object(&[("a", "1"), ("b", "\n")]),
            br#"{"a":"1","b":"\n"}"#.to_vec()
        );
    }
}
