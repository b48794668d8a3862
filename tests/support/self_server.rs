//! A stdio MCP server that a test program can be itself (started again
//! with a role in its environment), for the suites that must run where no
//! Python or Node server does (Windows under Wine): `tests/stdio_portable.rs`
//! and `cli/tests/console_ctrl.rs`. Without a libtest harness, so nothing
//! but the protocol reaches its stdout.
#![allow(dead_code)]

use std::io::{BufRead, Write};

use contractpin::json::{self, Node};

/// The captured `tools/list` result of the reference memory server; its
/// digest is the oracle's `memory` (tests/mcp/expected-digests.json).
const MEMORY: &[u8] = include_bytes!("../mcp/fixtures/memory-tools-list.json");

/// [`MEMORY`] as text.
pub fn memory_tools() -> String {
    String::from_utf8_lossy(MEMORY).trim().to_owned()
}

/// Answers requests line by line until stdin ends: `initialize` (in the
/// version asked for), `tools/list` with the result `tools` gives, anything
/// else with "method not found"; notifications get no answer.
pub fn serve(tools: impl Fn() -> String) {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        let mut nodes = vec![Node::EMPTY; json::scratch_needed(line.as_bytes())];
        let Ok(tape) = json::parse(line.as_bytes(), &mut nodes, &contractpin::Limits::DEFAULT)
        else {
            return;
        };
        let msg = tape.root();
        let Some(id) = msg.get("id") else { continue };
        let id = match (id.raw_number(), id.raw_str()) {
            (Some(n), _) => String::from_utf8_lossy(n).into_owned(),
            (_, Some(s)) => format!("\"{}\"", String::from_utf8_lossy(s)),
            _ => "null".into(),
        };
        let method = msg
            .get("method")
            .and_then(|m| m.as_plain_str())
            .unwrap_or("");
        let body = match method {
            "initialize" => {
                let version = msg
                    .get("params")
                    .and_then(|p| p.get("protocolVersion"))
                    .and_then(|v| v.as_plain_str())
                    .unwrap_or("2025-06-18");
                format!(
                    r#""result":{{"protocolVersion":"{version}","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"stdio-portable","version":"1.0.0"}}}}"#
                )
            }
            "tools/list" => format!(r#""result":{}"#, tools()),
            _ => r#""error":{"code":-32601,"message":"Method not found"}"#.into(),
        };
        let _ = writeln!(out, r#"{{"jsonrpc":"2.0","id":{id},{body}}}"#);
        let _ = out.flush();
    }
}
