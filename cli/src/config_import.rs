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
//!
//! An entry that runs `contractpin proxy` (one `contractpin wrap` wrote) is
//! refused: pinning it would pin the proxy in place of the server it wraps.
//! An argument that looks like a credential is named (never shown) in a
//! warning: the lock stores the command line as written. Servers in a map
//! this module does not read (a second map, Claude Code's
//! `projects.*.mcpServers`) are named in a warning too.

use std::collections::BTreeMap;
use std::path::Path;

use contractpin::json::{self, Node, Tag, Tape, Value};
use contractpin::lock::{self as cplock, HeaderValue, Source};
use contractpin::Limits;

use crate::commands::wrap::config::runs_proxy;
use crate::fail::Failure;
use crate::input::read_file;

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
    let mut nodes = Vec::new();
    let tape = parse_config(&bytes, &mut nodes, &shown)?;
    let (label, map) = servers_map(tape.root(), &shown)?;
    let mut result = ImportResult::default();
    if let Some(w) = other_maps_warning(tape.root(), map, &shown, label) {
        result.warnings.push(w);
    }
    for (key, entry) in map.members() {
        let name = text(key);
        if only.is_some_and(|o| o != name) {
            continue;
        }
        let ctx = |msg: String| Failure::usage(format!("{shown}: server {name:?}: {msg}"));
        if entry.tag() != Tag::Object {
            return Err(ctx("entry is not an object".into()));
        }
        if runs_proxy(entry).is_some() {
            return Err(ctx(wrapped_entry_message(path)));
        }
        if is_disabled(entry) {
            result
                .warnings
                .push(format!("{shown}: skipping disabled server {name:?}"));
            continue;
        }
        let source = entry_source(entry).map_err(ctx)?;
        if let Source::Stdio { command, .. } = &source {
            for i in credential_args(&command[1..]) {
                result.warnings.push(format!(
                    "{shown}: server {name:?}: args[{i}] looks like a credential; the lock \
                     stores the command line as written (and it is committed): pass the \
                     secret through the env block instead"
                ));
            }
        }
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

/// Why an entry that runs `contractpin proxy` is not pinned.
fn wrapped_entry_message(config: &Path) -> String {
    let shown = config.display();
    let backup = crate::commands::wrap::backup_path(config);
    format!(
        "it runs `contractpin proxy` (`contractpin wrap` wrote it, or it looks like it): pinning \
         it would pin the proxy in place of the server it wraps; nothing was pinned. Run \
         `contractpin unwrap --config {shown}` first, or pin the server it wraps (from {}), \
         or pin the other servers one by one with --name",
        backup.display()
    )
}

/// Parses a configuration (comments already blanked) into a tape that
/// grows as the parse goes (`json::parse_growing`), so a hostile file that
/// fails early (the depth limit, a syntax error) costs only the nodes
/// before its error, never nodes sized from the whole input.
pub fn parse_config<'a>(
    bytes: &'a [u8],
    nodes: &'a mut Vec<Node>,
    shown: &str,
) -> Result<Tape<'a>, Failure> {
    json::parse_growing(bytes, nodes, &Limits::DEFAULT)
        .map_err(|e| Failure::usage(format!("{shown} is not valid JSON: {e}")))
}

/// The servers map of a parsed configuration and its name: `mcpServers`
/// (Claude Desktop, Cursor, Claude Code), `servers` (VS Code `mcp.json`) or
/// `mcp.servers` (VS Code `settings.json`), the first present, which must be
/// an object.
pub fn servers_map<'a>(root: Value<'a>, shown: &str) -> Result<(&'static str, Value<'a>), Failure> {
    let (label, map) = candidate_maps(root)
        .into_iter()
        .find_map(|(l, v)| v.map(|v| (l, v)))
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
    Ok((label, map))
}

/// The servers maps this module knows, in the order it looks for them.
fn candidate_maps(root: Value<'_>) -> [(&'static str, Option<Value<'_>>); 3] {
    [
        ("mcpServers", root.get("mcpServers")),
        ("servers", root.get("servers")),
        (
            "mcp.servers",
            root.get("mcp").and_then(|m| m.get("servers")),
        ),
    ]
}

/// The non-empty servers maps other than `used` (the one read): the other
/// known maps and Claude Code's per-project `projects[DIR].mcpServers`.
pub fn other_maps(root: Value<'_>, used: Value<'_>) -> Vec<String> {
    let has_servers = |v: &Value<'_>| v.tag() == Tag::Object && v.members().next().is_some();
    let mut out: Vec<String> = candidate_maps(root)
        .into_iter()
        .filter_map(|(l, v)| {
            v.filter(|v| v.index() != used.index() && has_servers(v))
                .map(|_| l)
        })
        .map(|l| format!("{l:?}"))
        .collect();
    if let Some(projects) = root.get("projects").filter(|p| p.tag() == Tag::Object) {
        for (dir, p) in projects.members() {
            if p.get("mcpServers").is_some_and(|m| has_servers(&m)) {
                out.push(format!("projects[{:?}].mcpServers", text(dir)));
            }
        }
    }
    out
}

/// The warning about servers in maps that are not read, if there are any.
pub fn other_maps_warning(
    root: Value<'_>,
    used: Value<'_>,
    shown: &str,
    label: &str,
) -> Option<String> {
    let others = other_maps(root, used);
    (!others.is_empty()).then(|| {
        format!(
            "{shown}: only the {label:?} map is read; the servers under {} are NOT read \
             (not pinned, not wrapped: they start as they are)",
            others.join(", ")
        )
    })
}

/// The indexes of the arguments that look like a credential, by the
/// lock's own detectors (the secrets policy of `contractpin::lock`): a URL
/// with a credential in its query or path or with user information, a
/// `Name: value` header argument with a literal credential value, a word in
/// a well-known secret format (`ghp_...`, `sk-...`), a `key=value` argument
/// with a credential-like key (`--api-key=...`), or the value after a
/// credential-like option (`--token VALUE`).
pub fn credential_args(args: &[String]) -> Vec<usize> {
    (0..args.len())
        .filter(|&i| {
            let prev = i.checked_sub(1).map(|p| args[p].as_str());
            looks_like_credential(prev, &args[i])
        })
        .collect()
}

fn looks_like_credential(prev: Option<&str>, arg: &str) -> bool {
    if cplock::is_env_reference(arg) {
        return false;
    }
    if arg.contains("://") {
        return cplock::url_credential(arg).is_some()
            || (cplock::url_has_userinfo(arg) && cplock::url_for_lock(arg) != arg);
    }
    header_credential(arg) || cplock::arg_credential(prev, arg)
}

/// `Name: value` where the name is an authorization header or a
/// credential-like key and the value is a literal (no `${VAR}`).
fn header_credential(arg: &str) -> bool {
    let Some((name, value)) = arg.split_once(':') else {
        return false;
    };
    let (name, value) = (name.trim(), value.trim());
    if !cplock::is_header_name(name) || value.is_empty() {
        return false;
    }
    if cplock::classify_header(value) != HeaderValue::Literal {
        return false;
    }
    let auth = ["authorization", "proxy-authorization"]
        .iter()
        .any(|a| name.eq_ignore_ascii_case(a));
    auth || cplock::arg_credential(Some(name), value)
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
    use super::*;

    /// The scratch grows with the parse: a deeply nested file fails at the
    /// depth limit having stored a few nodes, not one per byte of input.
    #[test]
    fn parse_config_does_not_size_scratch_from_the_whole_input() {
        let bomb = vec![b'['; 4 << 20];
        let mut nodes = Vec::new();
        let e = parse_config(&bomb, &mut nodes, "c").err().unwrap();
        assert!(e.message.contains("depth"), "{}", e.message);
        assert!(nodes.capacity() < 100_000, "{}", nodes.capacity());
        let wide = format!(
            "{{\"mcpServers\": {{\"a\": {{\"args\": [{}1]}}}}}}",
            "1,".repeat(5000)
        );
        let mut nodes = Vec::new();
        let tape = parse_config(wide.as_bytes(), &mut nodes, "c").unwrap();
        let (label, map) = servers_map(tape.root(), "c").unwrap();
        assert_eq!(label, "mcpServers");
        assert_eq!(
            map.get("a")
                .unwrap()
                .get("args")
                .unwrap()
                .elements()
                .count(),
            5001
        );
    }

    #[test]
    fn credential_arguments() {
        let args: Vec<String> = [
            "-c",
            "exec python3 server.py",
            "postgresql://admin:hunter2pass@db.internal/prod",
            "--header",
            "Authorization: Bearer abcdefSECRET0123456789",
            "--token",
            "plainvalue123",
            "--api-key=abc123",
            "ghp_abcdefSECRET0123456789",
            "https://h/mcp?api_key=sk-1",
            "--verbose",
            "https://${U}:${P}@h/",
            "Content-Type: application/json",
            "--token",
            "${TOKEN}",
            "localhost:8080",
            "https://example.com/mcp",
            "--port",
            "8080",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(credential_args(&args), [2, 4, 6, 7, 8, 9]);
    }

    #[test]
    fn other_maps_are_named() {
        let t = br#"{"mcpServers": {}, "servers": {"a": {}}, "projects": {"/p": {"mcpServers": {"b": {}}}, "/q": {"mcpServers": {}}}}"#;
        let mut nodes = Vec::new();
        let tape = parse_config(t, &mut nodes, "c").unwrap();
        let (label, map) = servers_map(tape.root(), "c").unwrap();
        assert_eq!(label, "mcpServers");
        assert_eq!(
            other_maps(tape.root(), map),
            ["\"servers\"", "projects[\"/p\"].mcpServers"]
        );
    }

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
