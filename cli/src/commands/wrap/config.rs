//! The server entries of an MCP client configuration with their byte
//! spans, so that `wrap` and `unwrap` rewrite only the entries they change
//! and every other byte (comments, formatting, other settings) stays.

use contractpin::json::{self, Node, Tag, Value};
use contractpin::Limits;

use crate::config_import::{entry_source, is_disabled, servers_map, string, strip_jsonc, text};
use crate::fail::Failure;
use contractpin::lock::Source;

/// A parsed configuration.
pub struct Config {
    /// The file's bytes, as read.
    pub bytes: Vec<u8>,
    /// The entries of the servers map, in file order.
    pub entries: Vec<Entry>,
    /// The file's line ending (`"\r\n"` when it uses CRLF).
    pub newline: &'static str,
}

/// One entry of the servers map.
pub struct Entry {
    /// The server's name (the key).
    pub name: String,
    /// The byte range of the entry's value (`{...}`).
    pub span: (usize, usize),
    /// The indentation of the line holding the key.
    pub key_indent: String,
    /// The indentation of the entry's first member, when it starts a line.
    pub member_indent: Option<String>,
    /// The indentation of the closing `}`, when it starts a line.
    pub close_indent: Option<String>,
    /// The members, in file order.
    pub members: Vec<Member>,
    /// `"disabled": true`.
    pub disabled: bool,
    /// Set when the entry already starts `contractpin proxy`.
    pub wrapped: Option<Wrapped>,
    /// How the entry reaches its server (the reason when it cannot be read).
    pub source: Result<Source, String>,
    /// The keys of its `env` block.
    pub env_keys: Vec<String>,
    /// Whether it has an `envFile` (VS Code).
    pub env_file: bool,
    /// Whether comments are inside its span (trailing commas do not count).
    pub commented: bool,
}

/// One member of an entry.
pub struct Member {
    /// The key, decoded.
    pub key: String,
    /// The byte range from the key's opening quote to the end of the value.
    pub span: (usize, usize),
}

/// What a wrapped entry says (`contractpin proxy --lock L --name N`).
pub struct Wrapped {
    /// The contractpin binary it runs.
    pub command: String,
    /// Its `--lock`.
    pub lock: Option<String>,
    /// Its `--name`.
    pub name: Option<String>,
}

impl Config {
    /// Parses `bytes` (JSON, or JSONC with comments and trailing commas).
    pub fn parse(bytes: Vec<u8>, shown: &str) -> Result<Config, Failure> {
        let mut clean = bytes.clone();
        strip_jsonc(&mut clean);
        let mut nodes = vec![Node::EMPTY; json::scratch_needed(&clean)];
        let tape = json::parse(&clean, &mut nodes, &Limits::DEFAULT)
            .map_err(|e| Failure::usage(format!("{shown} is not valid JSON: {e}")))?;
        let map = servers_map(tape.root(), shown)?;
        let entries = map
            .members()
            .map(|(k, v)| entry(&clean, &bytes, k, v))
            .collect();
        let newline = if bytes.windows(2).any(|w| w == b"\r\n") {
            "\r\n"
        } else {
            "\n"
        };
        Ok(Config {
            bytes,
            entries,
            newline,
        })
    }

    /// The entry named `name`.
    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// The bytes of a span.
    pub fn slice(&self, span: (usize, usize)) -> &[u8] {
        &self.bytes[span.0..span.1]
    }
}

fn entry(clean: &[u8], raw: &[u8], key: Value<'_>, v: Value<'_>) -> Entry {
    let start = v.offset();
    let end = value_end(clean, start);
    let members: Vec<Member> = v
        .members()
        .map(|(k, x)| Member {
            key: text(k),
            span: (k.offset(), value_end(clean, x.offset())),
        })
        .collect();
    let member_indent = members.first().and_then(|m| line_indent(clean, m.span.0));
    let close_indent = line_indent(clean, end.saturating_sub(1));
    let is_object = v.tag() == Tag::Object;
    Entry {
        name: text(key),
        span: (start, end),
        key_indent: leading_space(clean, key.offset()),
        member_indent,
        close_indent,
        members,
        disabled: is_object && is_disabled(v),
        wrapped: wrapped(v),
        source: if is_object {
            entry_source(v)
        } else {
            Err("entry is not an object".into())
        },
        env_keys: v
            .get("env")
            .map(|e| e.members().map(|(k, _)| text(k)).collect())
            .unwrap_or_default(),
        env_file: v.get("envFile").is_some(),
        commented: clean[start..end]
            .iter()
            .zip(&raw[start..end])
            .any(|(c, r)| c != r && *r != b','),
    }
}

/// The `contractpin proxy` shape: a `command` whose file name starts with
/// `contractpin` and `args` starting with `proxy`.
fn wrapped(v: Value<'_>) -> Option<Wrapped> {
    let command = string(v.get("command")?)?;
    let file = std::path::Path::new(&command)
        .file_name()?
        .to_string_lossy();
    if !file.starts_with("contractpin") {
        return None;
    }
    let args: Vec<String> = v.get("args")?.elements().filter_map(string).collect();
    if args.first().map(String::as_str) != Some("proxy") {
        return None;
    }
    let after = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    Some(Wrapped {
        lock: after("--lock"),
        name: after("--name"),
        command,
    })
}

/// The whitespace before `at` on its line when nothing else precedes it.
fn line_indent(b: &[u8], at: usize) -> Option<String> {
    let line_start = b[..at]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
    let before = &b[line_start..at];
    before
        .iter()
        .all(|c| matches!(c, b' ' | b'\t'))
        .then(|| String::from_utf8_lossy(before).into_owned())
}

/// The whitespace that starts the line holding `at`.
fn leading_space(b: &[u8], at: usize) -> String {
    let line_start = b[..at]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
    let n = b[line_start..at]
        .iter()
        .take_while(|c| matches!(c, b' ' | b'\t'))
        .count();
    String::from_utf8_lossy(&b[line_start..line_start + n]).into_owned()
}

/// One past the end of the JSON value starting at `start` (the input is
/// valid JSON with comments blanked).
fn value_end(b: &[u8], start: usize) -> usize {
    match b.get(start) {
        Some(b'"') => string_end(b, start),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut i = start;
            while i < b.len() {
                match b[i] {
                    b'"' => {
                        i = string_end(b, i);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return i + 1;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            b.len()
        }
        _ => {
            let n = b[start..]
                .iter()
                .take_while(|c| !matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n'))
                .count();
            start + n
        }
    }
}

/// One past the closing quote of the string whose opening quote is at `start`.
fn string_end(b: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_and_shapes() {
        let text = "{\n  // c\n  \"servers\": {\n    \"a\": {\n      \"command\": \"x\", /* k */\n      \"env\": {\"K\": \"}\"},\n    },\n    \"b\": {\"command\": \"/opt/contractpin\", \"args\": [\"proxy\", \"--lock\", \"/l\", \"--name\", \"b\"]}\n  }\n}\n";
        let c = Config::parse(text.as_bytes().to_vec(), "t").unwrap();
        assert!(c.get("a").unwrap().commented && !c.get("b").unwrap().commented);
        assert_eq!(c.newline, "\n");
        let a = c.get("a").unwrap();
        assert_eq!(a.key_indent, "    ");
        assert_eq!(a.member_indent.as_deref(), Some("      "));
        assert_eq!(a.close_indent.as_deref(), Some("    "));
        assert!(c.slice(a.span).starts_with(b"{\n") && c.slice(a.span).ends_with(b"}"));
        assert_eq!(c.slice(a.members[1].span), br#""env": {"K": "}"}"#);
        assert_eq!(a.env_keys, ["K"]);
        assert!(a.wrapped.is_none());
        let b = c.get("b").unwrap();
        let w = b.wrapped.as_ref().unwrap();
        assert_eq!(
            (w.lock.as_deref(), w.name.as_deref()),
            (Some("/l"), Some("b"))
        );
        assert_eq!(b.member_indent, None);
    }
}
