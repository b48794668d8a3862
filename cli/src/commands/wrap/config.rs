//! The server entries of an MCP client configuration with their byte
//! spans, so that `wrap` and `unwrap` rewrite only the entries they change
//! and every other byte (comments, formatting, other settings) stays.
//! It also holds the one test of "this entry runs `contractpin proxy`"
//! ([`runs_proxy`]), which `wrap`, `unwrap` and `init --from` share.

use std::collections::HashMap;

use contractpin::json::{Tag, Value};
use contractpin::lock::{self, Source};

use crate::config_import::{
    credential_args, entry_source, is_disabled, other_maps_warning, parse_config, servers_map,
    string, strip_jsonc, text,
};
use crate::fail::Failure;

/// A parsed configuration.
pub struct Config {
    /// The file's bytes, as read.
    pub bytes: Vec<u8>,
    /// The entries of the servers map, in file order.
    pub entries: Vec<Entry>,
    /// The file's line ending (`"\r\n"` when it uses CRLF).
    pub newline: &'static str,
    /// Each entry's index in `entries`, by name.
    index: HashMap<String, usize>,
    /// The warning about servers in maps that are not read, if any.
    pub other_maps: Option<String>,
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
    /// The spans of the values never to print: env and header values, a
    /// URL with credentials, arguments that look like one.
    pub secret_spans: Vec<(usize, usize)>,
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
    /// All its arguments (`proxy` first).
    pub args: Vec<String>,
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
        let mut nodes = Vec::new();
        let tape = parse_config(&clean, &mut nodes, shown)?;
        let (label, map) = servers_map(tape.root(), shown)?;
        let lines = Lines::new(&clean);
        let entries: Vec<Entry> = map
            .members()
            .map(|(k, v)| entry(&clean, &bytes, &lines, k, v))
            .collect();
        let index = entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.name.clone(), i))
            .collect();
        let newline = if bytes.windows(2).any(|w| w == b"\r\n") {
            "\r\n"
        } else {
            "\n"
        };
        Ok(Config {
            other_maps: other_maps_warning(tape.root(), map, shown, label),
            bytes,
            entries,
            newline,
            index,
        })
    }

    /// The entry named `name`.
    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.index.get(name).map(|&i| &self.entries[i])
    }

    /// Every span of every entry whose value must never be printed.
    pub fn secret_spans(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.entries
            .iter()
            .flat_map(|e| e.secret_spans.iter().copied())
    }

    /// The bytes of a span.
    pub fn slice(&self, span: (usize, usize)) -> &[u8] {
        &self.bytes[span.0..span.1]
    }
}

/// The start of every line, found once (a one-line file of many entries
/// would otherwise be scanned back to its start for each entry).
struct Lines(Vec<usize>);

impl Lines {
    fn new(b: &[u8]) -> Lines {
        let starts = std::iter::once(0)
            .chain(
                b.iter()
                    .enumerate()
                    .filter(|(_, &c)| c == b'\n')
                    .map(|(i, _)| i + 1),
            )
            .collect();
        Lines(starts)
    }

    /// The start of the line holding `at`.
    fn start(&self, at: usize) -> usize {
        self.0[self.0.partition_point(|&s| s <= at) - 1]
    }
}

fn entry(clean: &[u8], raw: &[u8], lines: &Lines, key: Value<'_>, v: Value<'_>) -> Entry {
    let start = v.offset();
    let end = value_end(clean, start);
    let members: Vec<Member> = v
        .members()
        .map(|(k, x)| Member {
            key: text(k),
            span: (k.offset(), value_end(clean, x.offset())),
        })
        .collect();
    let member_indent = members
        .first()
        .and_then(|m| line_indent(clean, lines, m.span.0));
    let close_indent = line_indent(clean, lines, end.saturating_sub(1));
    let is_object = v.tag() == Tag::Object;
    Entry {
        name: text(key),
        span: (start, end),
        key_indent: leading_space(clean, lines, key.offset()),
        member_indent,
        close_indent,
        members,
        disabled: is_object && is_disabled(v),
        wrapped: runs_proxy(v),
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
        secret_spans: if is_object {
            secret_spans(clean, v)
        } else {
            Vec::new()
        },
    }
}

/// The spans of an entry's values never to print ([`Entry::secret_spans`]).
fn secret_spans(clean: &[u8], v: Value<'_>) -> Vec<(usize, usize)> {
    let span = |x: Value<'_>| (x.offset(), value_end(clean, x.offset()));
    let mut out = Vec::new();
    for block in ["env", "headers"] {
        if let Some(b) = v.get(block).filter(|b| b.tag() == Tag::Object) {
            out.extend(b.members().map(|(_, x)| span(x)));
        }
    }
    for key in ["url", "serverUrl"] {
        if let Some(u) = v.get(key).filter(|u| u.tag() == Tag::String) {
            let url = text(u);
            if lock::url_credential(&url).is_some() || lock::url_has_userinfo(&url) {
                out.push(span(u));
            }
        }
    }
    if let Some(a) = v.get("args").filter(|a| a.tag() == Tag::Array) {
        let elements: Vec<Value<'_>> = a.elements().collect();
        let texts: Vec<String> = elements.iter().map(|&x| text(x)).collect();
        out.extend(
            credential_args(&texts)
                .into_iter()
                .map(|i| span(elements[i])),
        );
    }
    out
}

/// Whether an entry runs `contractpin proxy`: a `command` whose file name
/// starts with `contractpin` (this program, an older copy, or a look-alike)
/// and `args` starting with `proxy` (the subcommand: contractpin has no
/// options before it). The one test of it: `wrap` checks such an entry
/// against what it would write, `unwrap` restores it, `init --from` refuses
/// to pin it.
pub fn runs_proxy(v: Value<'_>) -> Option<Wrapped> {
    let command = string(v.get("command")?)?;
    let file = std::path::Path::new(&command)
        .file_name()?
        .to_string_lossy()
        .to_ascii_lowercase();
    if !file.starts_with("contractpin") {
        return None;
    }
    let args: Vec<String> = v.get("args")?.elements().filter_map(string).collect();
    if args.first().map(String::as_str) != Some("proxy") {
        return None;
    }
    Some(Wrapped {
        lock: option_value(&args, "--lock"),
        name: option_value(&args, "--name"),
        command,
        args,
    })
}

/// The value of `--flag V` or `--flag=V` in `args` (the first one).
fn option_value(args: &[String], flag: &str) -> Option<String> {
    args.iter().enumerate().find_map(|(i, a)| {
        if a == flag {
            return args.get(i + 1).cloned();
        }
        a.strip_prefix(flag)
            .and_then(|rest| rest.strip_prefix('='))
            .map(str::to_string)
    })
}

impl Wrapped {
    /// How this entry differs from what `wrap` writes (`proxy --lock LOCK
    /// --name NAME` run by `exe`), in words that never show an argument's
    /// value beyond paths and names; empty when it is exactly that.
    pub fn differences(&self, exe: &str, lock: &str, name: &str) -> Vec<String> {
        let mut out = Vec::new();
        if self.command != exe {
            let real = |p: &str| std::fs::canonicalize(p).ok();
            let how = match real(&self.command) {
                Some(r) if real(exe).as_ref() == Some(&r) => "is this contractpin by another path",
                _ => "is not this contractpin",
            };
            out.push(format!("its program {:?} {how} ({exe:?})", self.command));
        }
        match &self.lock {
            None => out.push(
                "it has no --lock (the proxy would read contractpin.lock wherever the client starts it)"
                    .to_string(),
            ),
            Some(l) if l != lock => out.push(format!("its --lock is {l:?}, not {lock:?}")),
            _ => {}
        }
        match &self.name {
            None => out.push("it has no --name".to_string()),
            Some(n) if n != name => out.push(format!("its --name is {n:?}, not {name:?}")),
            _ => {}
        }
        let expected = ["proxy", "--lock", lock, "--name", name];
        if out.is_empty() && self.args != expected {
            out.push(self.other_arguments());
        }
        out
    }

    /// The options besides `--lock` and `--name`, by name only.
    fn other_arguments(&self) -> String {
        let mut flags: Vec<&str> = self.args[1..]
            .iter()
            .filter(|a| a.starts_with('-'))
            .map(|a| a.split('=').next().unwrap_or(a))
            .filter(|f| !matches!(*f, "--lock" | "--name"))
            .collect();
        flags.dedup();
        if flags.is_empty() {
            return "its arguments are not exactly `proxy --lock LOCK --name NAME`".to_string();
        }
        format!("it has other options: {}", flags.join(", "))
    }
}

/// The whitespace before `at` on its line when nothing else precedes it.
fn line_indent(b: &[u8], lines: &Lines, at: usize) -> Option<String> {
    let line_start = lines.start(at);
    let before = &b[line_start..at];
    before
        .iter()
        .all(|c| matches!(c, b' ' | b'\t'))
        .then(|| String::from_utf8_lossy(before).into_owned())
}

/// The whitespace that starts the line holding `at`.
fn leading_space(b: &[u8], lines: &Lines, at: usize) -> String {
    let line_start = lines.start(at);
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
