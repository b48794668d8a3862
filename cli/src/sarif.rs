//! `verify --format sarif`: the report as SARIF 2.1.0, for GitHub code
//! scanning (`github/codeql-action/upload-sarif`).
//!
//! One run, tool `contractpin`, with four rules of stable ids ([`RULES`]).
//! Each drifted, added or removed tool is one result, and so is each
//! unreachable server, located at its line in the lock ([`lock_lines`], the
//! same lines as the GitHub annotations). The message is the annotation's
//! text followed by the tool's change lines ([`tool_changes_text`]), so
//! every server-controlled value in it is escaped and folded as in the
//! text report. An added tool accepted by `--allow-new` is a `warning`;
//! everything else an `error`.
//!
//! The document is one line of JSON, every string written by the
//! canonical writer's `write_str` and every object's keys written in
//! canonical (RFC 8785) order, so it is its own canonical form.

use std::fmt::Write;
use std::path::Path;

use contractpin::verify::{ServerReport, ServerStatus, ToolStatus};

use crate::output::{
    lock_lines, printable, tool_annotation, tool_changes_text, Detail, Style, View,
};

/// `(id, name, short description, full description)` of each rule, in
/// rule-index order. The ids are an interface: code scanning keys alerts
/// on them.
pub const RULES: [(&str, &str, &str, &str); 4] = [
    (
        "contractpin/tool-drifted",
        "ToolDrifted",
        "A pinned MCP tool's contract changed",
        "The live contract (name, description, schemas or annotations) of a tool pinned in contractpin.lock no longer matches its digest. Review the change; re-pin it with `contractpin approve --server S --tool T` if it is wanted.",
    ),
    (
        "contractpin/tool-added",
        "ToolAdded",
        "An MCP server has a tool that is not pinned",
        "A server pinned in contractpin.lock lists a tool that the lock does not pin. A new tool on a trusted server is the cheapest place to put a poisoned description.",
    ),
    (
        "contractpin/tool-removed",
        "ToolRemoved",
        "A pinned MCP tool is gone",
        "A tool pinned in contractpin.lock is no longer listed by its server.",
    ),
    (
        "contractpin/server-unreachable",
        "ServerUnreachable",
        "A pinned MCP server could not be checked",
        "contractpin could not fetch a valid tools list from a server pinned in contractpin.lock (or did not run it: see the message), so nothing about it was verified.",
    ),
];

const DRIFTED: usize = 0;
const ADDED: usize = 1;
const REMOVED: usize = 2;
const UNREACHABLE: usize = 3;

/// The SARIF log of `reports` (one line, with a final newline); `lock` is
/// the lock's path as given, `lock_text` its contents.
pub fn report(reports: &[ServerReport], lock: &Path, lock_text: &str) -> Vec<u8> {
    let uri = artifact_uri(lock);
    let mut results = Vec::new();
    for r in reports {
        server_results(r, &uri, lock_text, &mut results);
    }
    let mut rules = Vec::new();
    for (id, name, short, full) in RULES {
        rules.push(format!(
            r#"{{"defaultConfiguration":{{"level":"error"}},"fullDescription":{{"text":{}}},"id":{},"name":{},"shortDescription":{{"text":{}}}}}"#,
            js(full),
            js(id),
            js(name),
            js(short)
        ));
    }
    let doc = format!(
        r#"{{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","runs":[{{"results":[{}],"tool":{{"driver":{{"informationUri":"https://crates.io/crates/contractpin-cli","name":"contractpin","rules":[{}],"semanticVersion":{v},"version":{v}}}}}}}],"version":"2.1.0"}}"#,
        results.join(","),
        rules.join(","),
        v = js(contractpin::VERSION),
    );
    let mut out = doc.into_bytes();
    out.push(b'\n');
    out
}

/// The results of one server.
fn server_results(r: &ServerReport, uri: &str, lock_text: &str, out: &mut Vec<String>) {
    let lines = lock_lines(r, lock_text);
    let server = printable(&r.name);
    if r.status() == ServerStatus::Unreachable {
        let message = format!(
            "Server {server} could not be checked: {}",
            crate::output::safe_lines(r.error.as_deref().unwrap_or("unknown error"))
        );
        out.push(result(UNREACHABLE, "error", &message, uri, lines.server));
        return;
    }
    for (t, line) in r.tools.iter().zip(lines.tools) {
        let Some((level, _, message)) = tool_annotation(&server, r.allow_new, t) else {
            continue;
        };
        let rule = match t.status {
            ToolStatus::Drifted { .. } => DRIFTED,
            ToolStatus::Added { .. } => ADDED,
            _ => REMOVED,
        };
        let mut text = message;
        let changes = tool_changes_text(t, "  ", &View::new(Style::plain(), Detail::Abridged));
        if !changes.is_empty() {
            text.push('\n');
            text.push_str(changes.trim_end());
        }
        out.push(result(rule, level, &text, uri, line));
    }
}

/// One result object.
fn result(rule: usize, level: &str, text: &str, uri: &str, line: Option<usize>) -> String {
    format!(
        r#"{{"level":{},"locations":[{{"physicalLocation":{{"artifactLocation":{{"uri":{}}},"region":{{"startLine":{}}}}}}}],"message":{{"text":{}}},"ruleId":{},"ruleIndex":{rule}}}"#,
        js(level),
        js(uri),
        line.unwrap_or(1),
        js(text),
        js(RULES[rule].0)
    )
}

/// A JSON string literal.
fn js(text: &str) -> String {
    let mut out = Vec::new();
    contractpin::jcs::write_str(&mut out, text);
    String::from_utf8(out).unwrap_or_default()
}

/// The lock as a URI reference: a relative path stays relative (code
/// scanning resolves it against the repository root), without leading
/// `./`; an absolute one becomes a `file://` URI. Bytes outside RFC 3986's
/// unreserved set and `/` are percent-encoded.
fn artifact_uri(lock: &Path) -> String {
    let text = lock.to_string_lossy();
    let mut path: &str = &text;
    while let Some(rest) = path.strip_prefix("./") {
        path = rest;
    }
    let mut out = String::new();
    if path.starts_with('/') {
        out.push_str("file://");
    }
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::artifact_uri;
    use std::path::Path;

    #[test]
    fn uris_by_hand() {
        assert_eq!(
            artifact_uri(Path::new("contractpin.lock")),
            "contractpin.lock"
        );
        assert_eq!(artifact_uri(Path::new("./a/b c.lock")), "a/b%20c.lock");
        assert_eq!(
            artifact_uri(Path::new("/tmp/x%y.lock")),
            "file:///tmp/x%25y.lock"
        );
        assert_eq!(artifact_uri(Path::new("é.lock")), "%C3%A9.lock");
    }
}
