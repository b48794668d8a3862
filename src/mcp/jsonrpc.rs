//! JSON-RPC 2.0 messages: writing our requests, classifying what arrives.
//!
//! Incoming messages are parsed with the crate's own strict parser; results
//! leave this module as canonical JSON written from that parser's tape.

use std::string::String;
use std::vec::Vec;

use crate::contract::variant::{variant_member, MESSAGE};
use crate::jcs;
use crate::json::{self, Node, Tag, Tape, Value};
use crate::{Limits, MAX_INPUT};

use super::error::{one_line, McpError, McpErrorKind};

/// Writes a request `{"jsonrpc":"2.0","id":id,"method":method[,"params":params]}`.
/// `params` must be a JSON object (already serialized).
pub(crate) fn request(id: u64, method: &str, params: Option<&[u8]>) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + params.map_or(0, |p| p.len()));
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(std::format!("{id}").as_bytes());
    out.extend_from_slice(b",\"method\":");
    jcs::write_str(&mut out, method);
    if let Some(p) = params {
        out.extend_from_slice(b",\"params\":");
        out.extend_from_slice(p);
    }
    out.push(b'}');
    out
}

/// Writes a notification `{"jsonrpc":"2.0","method":method}`.
pub(crate) fn notification(method: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(48);
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":");
    jcs::write_str(&mut out, method);
    out.push(b'}');
    out
}

/// Parses `input` with the crate's parser into `nodes` (resized as needed).
pub(crate) fn parse<'a>(
    input: &'a [u8],
    nodes: &'a mut Vec<Node>,
) -> Result<Tape<'a>, crate::Error> {
    let limits = Limits {
        max_input: MAX_INPUT,
        ..Limits::DEFAULT
    };
    json::parse_growing(input, nodes, &limits)
}

/// Canonical JSON of one parsed value.
pub(crate) fn canonical(v: Value<'_>) -> Result<Vec<u8>, McpError> {
    let mut out = Vec::new();
    jcs::write(&mut out, v).map_err(|e| {
        McpError::new(
            McpErrorKind::Protocol,
            std::format!("cannot write JSON: {e}"),
        )
    })?;
    Ok(out)
}

/// Decodes a string value (escapes resolved).
pub(crate) fn decode(v: Value<'_>) -> Option<String> {
    if let Some(s) = v.as_plain_str() {
        return Some(String::from(s));
    }
    let raw = v.raw_str()?;
    let mut buf = std::vec![0u8; raw.len()];
    v.decode_str(&mut buf).map(String::from)
}

/// What one incoming message (or batch) meant for the request we wait for.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    /// The answer to our request: canonical `result`, or the error.
    pub ours: Option<Result<Vec<u8>, McpError>>,
    /// Replies to send for requests the server made.
    pub replies: Vec<Vec<u8>>,
    /// The message was not JSON, or not a JSON-RPC message: a description.
    pub junk: Option<String>,
}

/// Classifies one complete message (a stdout line, an HTTP body, an SSE
/// event's data) while waiting for the response to request `want`.
///
/// Text that is not JSON at all is junk. Text that looks like a JSON-RPC
/// message (starts with `{` and mentions `"jsonrpc"`) but does not parse is
/// a protocol error: it may well be the answer we wait for.
pub(crate) fn classify(msg: &[u8], want: u64) -> Result<Scan, McpError> {
    let mut nodes = Vec::new();
    let mut scan = Scan::default();
    let tape = match parse(msg, &mut nodes) {
        Ok(t) => t,
        Err(e) => {
            if looks_like_message(msg) {
                return Err(McpError::new(
                    McpErrorKind::Protocol,
                    std::format!("the server sent a JSON-RPC message that is not valid JSON: {e}"),
                ));
            }
            scan.junk = Some(std::format!("not JSON ({e})"));
            return Ok(scan);
        }
    };
    let root = tape.root();
    match root.tag() {
        Tag::Object => one(root, want, &mut scan)?,
        Tag::Array if root.elements().next().is_some() => {
            for el in root.elements() {
                one(el, want, &mut scan)?;
            }
        }
        _ => scan.junk = Some(String::from("JSON that is not a JSON-RPC message")),
    }
    Ok(scan)
}

pub(crate) use crate::guard::session::message::{is_request_and_response, looks_like_message};

fn one(m: Value<'_>, want: u64, scan: &mut Scan) -> Result<(), McpError> {
    if m.tag() != Tag::Object {
        scan.junk = Some(String::from("JSON that is not a JSON-RPC message"));
        return Ok(());
    }
    if let Some(key) = variant_member(m, &MESSAGE) {
        return Err(case_variant("a JSON-RPC message", key));
    }
    let id = m.get("id");
    if let Some(method) = m.get("method") {
        if method.tag() == Tag::String && is_request_and_response(m, method) {
            return Err(McpError::new(
                McpErrorKind::Protocol,
                "the server sent a message that is both a request and a response (an empty \
                 method, or a method beside a result or error)",
            ));
        }
        let Some(method) = decode(method) else {
            scan.junk = Some(String::from("a message whose method is not a string"));
            return Ok(());
        };
        if let Some(id) = id {
            scan.replies.push(reply_to_server_request(&method, id)?);
        }
        // A notification: nothing to do.
        return Ok(());
    }
    let result = m.get("result");
    let error = m.get("error");
    if result.is_none() && error.is_none() {
        scan.junk = Some(String::from("JSON that is not a JSON-RPC message"));
        return Ok(());
    }
    let Some(id) = id else {
        scan.junk = Some(String::from("a response without an id"));
        return Ok(());
    };
    // An error about a request the server could not even read has a null id;
    // we only ever have one request outstanding, so it is about ours.
    let is_ours = id_matches(id, want) || (id.is_null() && error.is_some());
    if !is_ours || scan.ours.is_some() {
        return Ok(());
    }
    scan.ours = Some(match (result, error) {
        (_, Some(err)) => Err(rpc_error(err)),
        (Some(res), None) => canonical(res),
        (None, None) => unreachable!("checked above"),
    });
    Ok(())
}

/// The protocol error for a key of `what` that is a case variant of a
/// member read there (spec section 6): a case-insensitive client would read
/// that member where this client reads another, so nothing is checked.
pub(crate) fn case_variant(what: &str, key: Value<'_>) -> McpError {
    let shown = decode(key).unwrap_or_default();
    McpError::new(
        McpErrorKind::Protocol,
        std::format!(
            "{what} has a member {:?}, which clients that match names case-insensitively \
             read in place of the one checked (case-variant-key)",
            one_line(&shown)
        ),
    )
}

fn id_matches(id: Value<'_>, want: u64) -> bool {
    match id.raw_number() {
        Some(raw) => {
            let text = std::format!("{want}");
            raw == text.as_bytes()
                || core::str::from_utf8(raw)
                    .ok()
                    .and_then(|s| s.parse::<f64>().ok())
                    == Some(want as f64)
        }
        None => false,
    }
}

/// Turns a JSON-RPC `error` object into an [`McpErrorKind::JsonRpc`] error.
pub(crate) fn rpc_error(err: Value<'_>) -> McpError {
    let code = err
        .get("code")
        .and_then(|c| c.raw_number())
        .and_then(|r| core::str::from_utf8(r).ok())
        .and_then(|s| s.parse::<f64>().ok())
        .map(|f| f as i64);
    let message = err
        .get("message")
        .and_then(decode)
        .map(|m| one_line(&m))
        .unwrap_or_default();
    match code {
        Some(code) => McpError::new(
            McpErrorKind::JsonRpc {
                code,
                message: message.clone(),
            },
            std::format!("the server answered with JSON-RPC error {code}: {message}"),
        ),
        None => McpError::new(
            McpErrorKind::Protocol,
            "the server answered with a malformed JSON-RPC error (no numeric code)",
        ),
    }
}

/// The reply to a request the server sent us: `ping` gets `{}`, `roots/list`
/// an empty list, anything else "method not found".
fn reply_to_server_request(method: &str, id: Value<'_>) -> Result<Vec<u8>, McpError> {
    let mut out = Vec::with_capacity(96);
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(&canonical(id)?);
    match method {
        "ping" => out.extend_from_slice(b",\"result\":{}}"),
        "roots/list" => out.extend_from_slice(b",\"result\":{\"roots\":[]}}"),
        _ => {
            out.extend_from_slice(b",\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}")
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ours(s: &Scan) -> &Result<Vec<u8>, McpError> {
        s.ours.as_ref().expect("a response")
    }

    #[test]
    fn writes_requests() {
        assert_eq!(
            request(7, "tools/list", Some(b"{\"cursor\":\"a\"}")),
            b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\",\"params\":{\"cursor\":\"a\"}}"
        );
        assert_eq!(
            notification("notifications/initialized"),
            b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
        );
    }

    /// A message with a key a case-insensitive client would read in place
    /// of a member checked here (`Result` beside `result`) is an error, not
    /// a response (spec section 6).
    #[test]
    fn a_case_variant_key_fails_the_exchange() {
        for msg in [
            br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]},"Result":{"tools":[]}}"#.as_slice(),
            br#"{"jsonrpc":"2.0","ID":2,"id":1,"result":{}}"#,
            br#"{"jsonrpc":"2.0","id":1,"result":{},"re\u017fult":{}}"#,
        ] {
            let e = classify(msg, 1).unwrap_err();
            assert!(e.message().contains("case-variant-key"), "{}", e.message());
        }
        assert!(classify(br#"{"jsonrpc":"2.0","id":1,"result":{},"results":1}"#, 1).is_ok());
    }

    /// A message an exact reader takes for a request and mcp-go for a
    /// response (an empty method, or a method beside a result) is an error.
    #[test]
    fn a_request_that_is_also_a_response_fails_the_exchange() {
        for msg in [
            br#"{"jsonrpc":"2.0","id":1,"method":"","result":{"tools":[]}}"#.as_slice(),
            br#"{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"ping","error":{"code":1,"message":"x"}}"#,
            br#"{"jsonrpc":"2.0","method":""}"#,
        ] {
            let e = classify(msg, 1).unwrap_err();
            assert!(
                e.message().contains("both a request and a response"),
                "{}",
                e.message()
            );
        }
        assert!(classify(br#"{"jsonrpc":"2.0","method":"notifications/x"}"#, 1).is_ok());
    }

    #[test]
    fn finds_our_response_canonically() {
        let s = classify(
            br#"{"result":{"b":1.0,"a":"\u0041"},"jsonrpc":"2.0","id":3}"#,
            3,
        )
        .unwrap();
        assert_eq!(ours(&s).as_ref().unwrap(), br#"{"a":"A","b":1}"#);
        let s = classify(br#"{"jsonrpc":"2.0","id":4,"result":{}}"#, 3).unwrap();
        assert!(s.ours.is_none() && s.junk.is_none());
    }

    #[test]
    fn errors_and_null_ids() {
        let s = classify(
            br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method\nnot found"}}"#,
            3,
        )
        .unwrap();
        let e = ours(&s).as_ref().unwrap_err();
        assert_eq!(
            e.kind(),
            &McpErrorKind::JsonRpc {
                code: -32601,
                message: "Method\\u{a}not found".into()
            }
        );
        let s = classify(
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
            9,
        )
        .unwrap();
        assert!(ours(&s).is_err());
    }

    #[test]
    fn answers_server_requests() {
        let s = classify(br#"{"jsonrpc":"2.0","id":"p1","method":"ping"}"#, 1).unwrap();
        assert_eq!(
            s.replies,
            [br#"{"jsonrpc":"2.0","id":"p1","result":{}}"#.to_vec()]
        );
        let s = classify(
            br#"{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{}}"#,
            1,
        )
        .unwrap();
        assert_eq!(
            s.replies,
            [
                br#"{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found"}}"#
                    .to_vec()
            ]
        );
        let s = classify(
            br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
            1,
        )
        .unwrap();
        assert!(s.replies.is_empty() && s.ours.is_none() && s.junk.is_none());
    }

    #[test]
    fn junk_and_broken_messages() {
        assert!(classify(b"Starting server...", 1).unwrap().junk.is_some());
        assert!(classify(b"[INFO] ready", 1).unwrap().junk.is_some());
        assert!(classify(b"{\"hello\":1}", 1).unwrap().junk.is_some());
        assert!(classify(b"42", 1).unwrap().junk.is_some());
        let e = classify(br#"{"jsonrpc":"2.0","id":1,"result":{"a":1,"a":2}}"#, 1).unwrap_err();
        assert_eq!(e.kind(), &McpErrorKind::Protocol);
        assert!(e.message().contains("duplicate-key"), "{e}");
    }

    #[test]
    fn batches() {
        let s = classify(
            br#"[{"jsonrpc":"2.0","method":"x"},{"jsonrpc":"2.0","id":2,"result":{"ok":true}}]"#,
            2,
        )
        .unwrap();
        assert_eq!(ours(&s).as_ref().unwrap(), br#"{"ok":true}"#);
    }
}
