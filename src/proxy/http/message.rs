//! What the HTTP upstreams read in the messages they carry, and nothing
//! more: the requests in a client message (to know which answers to wait
//! for, and which headers to send), the messages in a server body or event
//! (a batch is split, line breaks between tokens become spaces so that each
//! message stays one line), and the JSON-RPC error that stands in for an
//! answer that cannot come.
//!
//! The bytes delivered are the server's own (no re-serialization: a large
//! integer id survives); only CR and LF change, and in valid JSON those can
//! only be whitespace between tokens.

use std::string::String;
use std::vec::Vec;

use crate::jcs;
use crate::json::{Node, Tag, Value};
use crate::mcp::jsonrpc;

/// The `_meta` key that carries a 2026-07-28 message's protocol version.
const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// The JSON-RPC error code of an answer the proxy makes up because the
/// server's cannot arrive (the POST failed, the stream ended before it).
pub(crate) const UPSTREAM_ERROR_CODE: i64 = -32603;

/// One client message, with what the upstream needs to know about it.
#[derive(Debug)]
pub(in crate::proxy) struct Outgoing {
    /// The message as the client sent it.
    pub bytes: Vec<u8>,
    /// The id of each request in it (see [`id_key`]) (several in a batch;
    /// none for a notification or a response).
    pub ids: Vec<Vec<u8>>,
    /// The id of an `initialize` request in it.
    pub initialize: Option<Vec<u8>>,
    /// The method of a single request or notification.
    pub method: Option<String>,
    /// The protocol version a single message names in `params._meta`
    /// (the 2026-07-28 generation does, on every message).
    pub version: Option<String>,
    /// For `notifications/cancelled`: the id of the request it cancels.
    pub cancels: Option<Vec<u8>>,
}

impl Outgoing {
    /// Reads `bytes`; a message that does not parse is carried anyway (the
    /// server will say what is wrong with it) but waits for no answer.
    pub fn parse(bytes: Vec<u8>) -> Outgoing {
        let mut out = Outgoing {
            bytes: Vec::new(),
            ids: Vec::new(),
            initialize: None,
            method: None,
            version: None,
            cancels: None,
        };
        let mut nodes = Vec::new();
        if let Ok(tape) = jsonrpc::parse(&bytes, &mut nodes) {
            let root = tape.root();
            match root.tag() {
                Tag::Object => {
                    out.note(root);
                    out.method = root.get("method").and_then(jsonrpc::decode);
                    let params = root.get("params");
                    out.version = params
                        .and_then(|p| p.get("_meta"))
                        .and_then(|m| m.get(VERSION_KEY))
                        .and_then(jsonrpc::decode);
                    if out.method.as_deref() == Some("notifications/cancelled") {
                        out.cancels = params.and_then(|p| p.get("requestId")).and_then(id_key);
                    }
                }
                Tag::Array => root.elements().for_each(|el| out.note(el)),
                _ => {}
            }
        }
        out.bytes = bytes;
        out
    }

    fn note(&mut self, m: Value<'_>) {
        let (Some(method), Some(id)) = (m.get("method"), m.get("id")) else {
            return;
        };
        let Some(id) = id_key(id) else {
            return;
        };
        if method.str_eq("initialize") {
            self.initialize = Some(id.clone());
        }
        self.ids.push(id);
    }

    /// Whether it holds a request (then an answer comes back).
    pub fn is_request(&self) -> bool {
        !self.ids.is_empty()
    }

    /// How messages name it: `tools/call`, or "the message".
    pub fn what(&self) -> String {
        match &self.method {
            Some(m) => crate::mcp::error::one_line(m),
            None => String::from("the message"),
        }
    }
}

/// One server message as it is delivered, and what the upstream reads in it.
#[derive(Debug, PartialEq, Eq)]
pub(in crate::proxy) struct Incoming {
    /// The message, on one line.
    pub bytes: Vec<u8>,
    /// For a response: its id (see [`id_key`]).
    pub response_to: Option<Vec<u8>>,
    /// For a successful response: `result.protocolVersion`, when a string.
    pub protocol_version: Option<String>,
}

/// Parse scratch kept between messages is dropped past this many nodes
/// (1 MiB), so a large message's tape is not held for the session.
const KEEP_NODES: usize = 1 << 16;

/// [`incoming`] with the upstream's one scratch tape: parses are done one
/// at a time, so however many streams are read at once, one tape (16 bytes
/// per JSON token of the message) exists at a time. The lock is not held
/// while the messages are delivered.
pub(in crate::proxy) fn incoming_shared(
    data: &[u8],
    scratch: &std::sync::Mutex<Vec<Node>>,
) -> Vec<Incoming> {
    let mut nodes = super::lock(scratch);
    let out = incoming(data, &mut nodes);
    if nodes.capacity() > KEEP_NODES {
        *nodes = Vec::new();
    }
    out
}

/// The messages in a body or an event's data: one object, or each element
/// of a batch. Text that does not parse is passed on as one message when it
/// looks like one (starts with `{`: the pump decides), else skipped.
pub(in crate::proxy) fn incoming(data: &[u8], nodes: &mut Vec<Node>) -> Vec<Incoming> {
    let data = data.trim_ascii();
    let Ok(tape) = jsonrpc::parse(data, nodes) else {
        return match data.first() {
            Some(b'{') => std::vec![opaque(data)],
            _ => Vec::new(),
        };
    };
    let root = tape.root();
    match root.tag() {
        Tag::Object => std::vec![read(root, data)],
        Tag::Array => {
            let elements: Vec<Value<'_>> = root.elements().collect();
            let mut out = Vec::with_capacity(elements.len());
            for (i, el) in elements.iter().enumerate() {
                let end = match elements.get(i + 1) {
                    Some(next) => next.offset(),
                    None => data.len().saturating_sub(1), // the closing `]`
                };
                let span = trim_separator(&data[el.offset()..end]);
                out.push(read(*el, span));
            }
            out
        }
        _ => Vec::new(),
    }
}

fn opaque(data: &[u8]) -> Incoming {
    Incoming {
        bytes: one_line(data),
        response_to: None,
        protocol_version: None,
    }
}

fn read(m: Value<'_>, span: &[u8]) -> Incoming {
    let is_response =
        m.get("method").is_none() && (m.get("result").is_some() || m.get("error").is_some());
    let response_to = m.get("id").filter(|_| is_response).and_then(id_key);
    let protocol_version = m
        .get("result")
        .and_then(|r| r.get("protocolVersion"))
        .and_then(jsonrpc::decode)
        .filter(|_| is_response);
    Incoming {
        bytes: one_line(span),
        response_to,
        protocol_version,
    }
}

/// How an id is compared, and written back in a made-up answer: a number
/// as written (canonical JSON would round a large integer to a double and
/// make two ids one), anything else as canonical JSON (a string's escapes
/// resolved).
fn id_key(id: Value<'_>) -> Option<Vec<u8>> {
    match id.raw_number() {
        Some(raw) => Some(raw.to_vec()),
        None => jsonrpc::canonical(id).ok(),
    }
}

/// A batch element's bytes up to the next one: without the comma and blanks.
fn trim_separator(span: &[u8]) -> &[u8] {
    let span = span.trim_ascii_end();
    span.strip_suffix(b",").unwrap_or(span).trim_ascii_end()
}

fn one_line(bytes: &[u8]) -> Vec<u8> {
    bytes
        .iter()
        .map(|&b| if b == b'\r' || b == b'\n' { b' ' } else { b })
        .collect()
}

/// `{"jsonrpc":"2.0","id":<id>,"error":{"code":-32603,"message":...}}`:
/// the answer to request `id` when the server's cannot come. `why` must
/// already be redacted.
pub(in crate::proxy) fn error_response(id: &[u8], why: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(96 + id.len() + why.len());
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(id);
    out.extend_from_slice(b",\"error\":{\"code\":");
    out.extend_from_slice(std::format!("{UPSTREAM_ERROR_CODE}").as_bytes());
    out.extend_from_slice(b",\"message\":");
    jcs::write_str(&mut out, &std::format!("contractpin proxy: {why}"));
    out.extend_from_slice(b"}}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_client_messages() {
        let o = Outgoing::parse(
            br#"{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#.to_vec(),
        );
        assert_eq!(o.ids, [b"7".to_vec()]);
        assert_eq!(o.initialize.as_deref(), Some(&b"7"[..]));
        assert_eq!(o.method.as_deref(), Some("initialize"));
        assert_eq!(o.version.as_deref(), Some("2026-07-28"));
        let o =
            Outgoing::parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec());
        assert!(!o.is_request());
        assert_eq!(o.what(), "notifications/initialized");
        let o = Outgoing::parse(
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r\u0031"}}"#.to_vec(),
        );
        assert_eq!(o.cancels.as_deref(), Some(&b"\"r1\""[..]));
        let o = Outgoing::parse(br#"{"jsonrpc":"2.0","id":"s1","result":{}}"#.to_vec());
        assert!(!o.is_request() && o.method.is_none());
        let o = Outgoing::parse(
            br#"[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":2.0,"method":"x"}]"#.to_vec(),
        );
        assert_eq!(o.ids, [b"\"a\"".to_vec(), b"2.0".to_vec()]);
        assert_eq!(o.what(), "the message");
        let o = Outgoing::parse(b"not json".to_vec());
        assert!(!o.is_request() && o.bytes == b"not json");
    }

    #[test]
    fn splits_server_bodies() {
        let mut nodes = Vec::new();
        let got = incoming(
            b" [ {\"jsonrpc\":\"2.0\",\"method\":\"n\"} ,\n {\"jsonrpc\":\"2.0\",\"id\":12345678901234567890,\n\"result\":{\"protocolVersion\":\"2025-11-25\"}}\r\n] ",
            &mut nodes,
        );
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].bytes, br#"{"jsonrpc":"2.0","method":"n"}"#);
        assert_eq!(got[0].response_to, None);
        assert_eq!(
            got[1].bytes,
            br#"{"jsonrpc":"2.0","id":12345678901234567890, "result":{"protocolVersion":"2025-11-25"}}"#
        );
        assert_eq!(
            got[1].response_to.as_deref(),
            Some(&b"12345678901234567890"[..])
        );
        assert_eq!(got[1].protocol_version.as_deref(), Some("2025-11-25"));
        // A server request is no response, whatever its params hold.
        let got = incoming(
            br#"{"jsonrpc":"2.0","id":1,"method":"roots/list","result":{}}"#,
            &mut nodes,
        );
        assert_eq!(got[0].response_to, None);
        assert!(incoming(b"", &mut nodes).is_empty());
        assert!(incoming(b"ping", &mut nodes).is_empty());
        assert_eq!(incoming(b"{\"a\":1,\"a\":2}", &mut nodes).len(), 1);
    }

    #[test]
    fn writes_error_responses() {
        assert_eq!(
            error_response(b"\"x\"", "no \"answer\""),
            br#"{"jsonrpc":"2.0","id":"x","error":{"code":-32603,"message":"contractpin proxy: no \"answer\""}}"#
        );
    }
}
