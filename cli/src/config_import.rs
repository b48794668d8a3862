//! `init --from CONFIG`: servers from an MCP client configuration.
//!
//! Accepted shapes (comments and trailing commas, as VS Code allows, are
//! tolerated):
//!
//! - `{"mcpServers": {NAME: ENTRY}}`: Claude Desktop, Cursor, Claude Code
//!   (`.mcp.json`), Windsurf;
//! - `{"servers": {NAME: ENTRY}}`: VS Code `mcp.json`;
//! - `{"mcp": {"servers": {NAME: ENTRY}}}`: VS Code `settings.json`.
//!
//! An ENTRY is stdio (`command`, `args`, `env`, `cwd`) or HTTP (`url` or
//! `serverUrl`, `headers`), optionally with `type` (`stdio`, `http`,
//! `streamable-http`, `sse`). Entries with `"disabled": true` are skipped.

use std::collections::BTreeMap;
use std::path::Path;

use contractpin::json::{self, Node, Tag, Value};
use contractpin::Limits;

use crate::fail::Failure;
use crate::input::read_file;
use contractpin::lock::Source;

/// One imported server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// The server's name in the configuration.
    pub name: String,
    /// How to reach it; paths as written in the configuration (relative to the working directory).
    pub source: Source,
}

/// The result of reading a configuration.
#[derive(Debug, Default)]
pub struct ImportResult {
    /// Servers to pin, in configuration order.
    pub servers: Vec<Imported>,
    /// Warnings (skipped entries, ignored keys).
    pub warnings: Vec<String>,
}

/// Reads `path` and returns its servers (all of them, or only `only`).
pub fn import(path: &Path, only: Option<&str>) -> Result<ImportResult, Failure> {
    let shown = path.display().to_string();
    let mut bytes = read_file(path, &shown)?;
    strip_jsonc(&mut bytes);
    let mut nodes = vec![Node::EMPTY; json::scratch_needed(&bytes)];
    let tape = json::parse(&bytes, &mut nodes, &Limits::DEFAULT)
        .map_err(|e| Failure::usage(format!("{shown} is not valid JSON: {e}")))?;
    let map = servers_map(tape.root(), &shown)?;
    let mut result = ImportResult::default();
    for (key, entry) in map.members() {
        let name = text(key);
        if only.is_some_and(|o| o != name) {
            continue;
        }
        let ctx = |msg: String| Failure::usage(format!("{shown}: server {name:?}: {msg}"));
        if entry.tag() != Tag::Object {
            return Err(ctx("entry is not an object".into()));
        }
        if is_disabled(entry) {
            result
                .warnings
                .push(format!("{shown}: skipping disabled server {name:?}"));
            continue;
        }
        let source = entry_source(entry).map_err(ctx)?;
        result.servers.push(Imported { name, source });
    }
    if let Some(o) = only {
        if result.servers.is_empty() {
            return Err(Failure::usage(format!("{shown}: no server named {o:?}")));
        }
    } else if result.servers.is_empty() {
        return Err(Failure::usage(format!("{shown}: no servers to import")));
    }
    Ok(result)
}

/// The servers map of a parsed configuration: `mcpServers` (Claude
/// Desktop, Cursor, Claude Code), `servers` (VS Code `mcp.json`) or
/// `mcp.servers` (VS Code `settings.json`), which must be an object.
pub fn servers_map<'a>(root: Value<'a>, shown: &str) -> Result<Value<'a>, Failure> {
    let map = root
        .get("mcpServers")
        .or_else(|| root.get("servers"))
        .or_else(|| root.get("mcp").and_then(|m| m.get("servers")))
        .ok_or_else(|| {
            Failure::usage(format!(
                "{shown}: no \"mcpServers\" (Claude Desktop, Cursor, Claude Code) or \"servers\" (VS Code) map"
            ))
        })?;
    if map.tag() != Tag::Object {
        return Err(Failure::usage(format!(
            "{shown}: the servers map is not an object"
        )));
    }
    Ok(map)
}

/// Whether an entry says `"disabled": true` (such entries are skipped).
pub fn is_disabled(entry: Value<'_>) -> bool {
    entry.get("disabled").and_then(|v| v.as_bool()) == Some(true)
}

/// How one configuration entry reaches its server.
pub fn entry_source(entry: Value<'_>) -> Result<Source, String> {
    let kind = match entry.get("type") {
        None => None,
        Some(v) => Some(string(v).ok_or("\"type\" is not a string")?),
    };
    let url = match entry.get("url").or_else(|| entry.get("serverUrl")) {
        None => None,
        Some(v) => Some(string(v).ok_or("\"url\" is not a string")?),
    };
    let command = match entry.get("command") {
        None => None,
        Some(v) => Some(string(v).ok_or("\"command\" is not a string")?),
    };
    let is_http = match kind.as_deref() {
        Some("stdio") => false,
        Some("http" | "streamable-http" | "streamableHttp" | "streamable_http" | "sse") => true,
        Some(other) => return Err(format!("unsupported \"type\" {other:?}")),
        None => command.is_none() && url.is_some(),
    };
    if is_http {
        let url = url.ok_or("an HTTP server needs \"url\"")?;
        let headers = string_map(entry.get("headers"), "headers")?;
        return Ok(Source::Http { url, headers });
    }
    let program = command.ok_or("needs \"command\" (stdio) or \"url\" (HTTP)")?;
    let mut argv = vec![program];
    if let Some(args) = entry.get("args") {
        if args.tag() != Tag::Array {
            return Err("\"args\" is not an array".into());
        }
        for a in args.elements() {
            argv.push(string(a).ok_or("an element of \"args\" is not a string")?);
        }
    }
    let env = string_map(entry.get("env"), "env")?;
    let cwd = match entry.get("cwd") {
        None => None,
        Some(v) if v.is_null() => None,
        Some(v) => Some(string(v).ok_or("\"cwd\" is not a string")?),
    };
    Ok(Source::Stdio {
        command: argv,
        env,
        cwd,
    })
}

fn string_map(v: Option<Value<'_>>, what: &str) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    let Some(v) = v else { return Ok(out) };
    if v.is_null() {
        return Ok(out);
    }
    if v.tag() != Tag::Object {
        return Err(format!("\"{what}\" is not an object"));
    }
    for (k, x) in v.members() {
        let key = text(k);
        let value = string(x).ok_or_else(|| format!("{what} {key:?} is not a string"))?;
        out.insert(key, value);
    }
    Ok(out)
}

/// The decoded text of a string value (`None` for other values).
pub fn string(v: Value<'_>) -> Option<String> {
    (v.tag() == Tag::String).then(|| text(v))
}

/// The decoded text of a string value or key (empty for other values).
pub fn text(v: Value<'_>) -> String {
    let raw = v.raw_str().unwrap_or(b"");
    let mut buf = vec![0u8; raw.len()];
    v.decode_str(&mut buf).unwrap_or("").to_string()
}

/// Blanks `//` and `/* */` comments and trailing commas outside strings
/// (replacing them with spaces, so byte offsets stay true).
pub fn strip_jsonc(buf: &mut [u8]) {
    let mut i = 0;
    let mut in_string = false;
    while i < buf.len() {
        let c = buf[i];
        if in_string {
            if c == b'\\' {
                i += 2;
                continue;
            }
            if c == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        match c {
            b'"' => in_string = true,
            b'/' if buf.get(i + 1) == Some(&b'/') => {
                while i < buf.len() && buf[i] != b'\n' {
                    buf[i] = b' ';
                    i += 1;
                }
                continue;
            }
            b'/' if buf.get(i + 1) == Some(&b'*') => {
                let start = i;
                i += 2;
                while i < buf.len() && !(buf[i] == b'*' && buf.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                let end = (i + 2).min(buf.len());
                for b in &mut buf[start..end] {
                    if *b != b'\n' {
                        *b = b' ';
                    }
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    // Trailing commas: a ',' followed (after whitespace) by '}' or ']'.
    let mut in_string = false;
    let mut i = 0;
    while i < buf.len() {
        let c = buf[i];
        if in_string {
            if c == b'\\' {
                i += 2;
                continue;
            }
            in_string = c != b'"';
        } else if c == b'"' {
            in_string = true;
        } else if c == b',' {
            let mut j = i + 1;
            while j < buf.len() && matches!(buf[j], b' ' | b'\t' | b'\r' | b'\n') {
                j += 1;
            }
            if j < buf.len() && matches!(buf[j], b'}' | b']') {
                buf[i] = b' ';
            }
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::strip_jsonc;

    #[test]
    fn jsonc() {
        let mut b = br#"{ // c
  "a": "x // not a comment", /* block
  */ "b": [1, 2,],
}"#
        .to_vec();
        strip_jsonc(&mut b);
        let v: Vec<u8> = b
            .iter()
            .copied()
            .filter(|c| !c.is_ascii_whitespace())
            .collect();
        assert_eq!(
            std::str::from_utf8(&v).unwrap(),
            r#"{"a":"x//notacomment","b":[1,2]}"#
        );
    }
}
