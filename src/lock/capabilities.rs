//! What the client declares: the optional lock key `client_capabilities`.
//!
//! Some servers list different tools depending on what the client says it
//! can do in its handshake (server-everything adds `get-roots-list` for a
//! client with `roots`, `trigger-sampling-request` for `sampling`, ...).
//! A pin is only meaningful for the capabilities it was fetched with, so the
//! lock may record them, and `verify` declares them again.
//!
//! A capability is named by its dotted path in the MCP `ClientCapabilities`
//! object; each name declares an empty object at that path:
//!
//! | name | declared as |
//! |---|---|
//! | `roots` | `{"roots":{}}` |
//! | `sampling`, `sampling.context`, `sampling.tools` | `{"sampling":{}}`, `{"sampling":{"context":{}}}`, ... |
//! | `elicitation`, `elicitation.form`, `elicitation.url` | `{"elicitation":{}}` (form mode), `{"elicitation":{"url":{}}}`, ... |
//! | `tasks`, `tasks.list`, `tasks.cancel` | `{"tasks":{}}`, `{"tasks":{"list":{}}}`, ... |
//! | `tasks.requests.sampling.createMessage`, `tasks.requests.elicitation.create` | the nested objects |
//! | `experimental.NAME` | `{"experimental":{"NAME":{}}}` (NAME: 1 to 64 of `A-Z a-z 0-9 _ - . / :`) |
//!
//! The **normal form** (what the lock stores and [`normalize_capabilities`]
//! returns) is sorted (byte order), without duplicates, and without a name
//! that a longer one implies (`elicitation` is dropped beside
//! `elicitation.url`: both declare `{"elicitation":{"url":{}}}`). Two lists
//! in normal form are equal exactly when they declare the same object.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use crate::json::{self, Tag, Value};
use crate::limits::Limits;

/// The capability names this crate declares (besides `experimental.NAME`).
pub const CLIENT_CAPABILITIES: &[&str] = &[
    "elicitation",
    "elicitation.form",
    "elicitation.url",
    "roots",
    "sampling",
    "sampling.context",
    "sampling.tools",
    "tasks",
    "tasks.cancel",
    "tasks.list",
    "tasks.requests.elicitation.create",
    "tasks.requests.sampling.createMessage",
];

const EXPERIMENTAL: &str = "experimental.";

/// Whether `name` is a documented client capability name.
pub fn is_client_capability(name: &str) -> bool {
    match name.strip_prefix(EXPERIMENTAL) {
        Some(key) => is_experimental_key(key),
        None => CLIENT_CAPABILITIES.contains(&name),
    }
}

fn is_experimental_key(key: &str) -> bool {
    (1..=64).contains(&key.len())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_-./:".contains(&b))
}

/// The path of a name in the capabilities object.
fn segments(name: &str) -> Vec<&str> {
    match name.strip_prefix(EXPERIMENTAL) {
        Some(key) => vec!["experimental", key],
        None => name.split('.').collect(),
    }
}

/// The normal form of a list of names (see the module docs), or the first
/// unknown name.
pub fn normalize_capabilities<I, S>(names: I) -> Result<Vec<String>, String>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut out: Vec<String> = Vec::new();
    for name in names {
        let name = name.as_ref();
        if !is_client_capability(name) {
            return Err(format!(
                "unknown client capability {name:?} (known: {}, experimental.NAME)",
                CLIENT_CAPABILITIES.join(", ")
            ));
        }
        out.push(name.to_string());
    }
    out.sort();
    out.dedup();
    let implied = |n: &String, all: &[String]| {
        !n.starts_with(EXPERIMENTAL)
            && all.iter().any(|m| {
                m.len() > n.len() && m.starts_with(n.as_str()) && m[n.len()..].starts_with('.')
            })
    };
    let keep: Vec<bool> = out.iter().map(|n| !implied(n, &out)).collect();
    let mut keep = keep.into_iter();
    out.retain(|_| keep.next().unwrap_or(true));
    Ok(out)
}

/// Parses a command-line list: names separated by commas (spaces around
/// them ignored); `none` (or nothing) is the empty list. Normal form.
pub fn parse_client_capabilities(list: &str) -> Result<Vec<String>, String> {
    let trimmed = list.trim();
    if trimmed.is_empty() || trimmed == "none" {
        return Ok(Vec::new());
    }
    let names: Vec<&str> = trimmed.split(',').map(str::trim).collect();
    if names.iter().any(|n| n.is_empty()) {
        return Err(String::from(
            "an empty name in the client capability list (write names separated by commas, or none)",
        ));
    }
    normalize_capabilities(names)
}

/// A tree of nested empty objects.
#[derive(Default)]
struct Tree(BTreeMap<String, Tree>);

impl Tree {
    fn write(&self, out: &mut Vec<u8>) {
        out.push(b'{');
        for (i, (k, v)) in self.0.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            crate::jcs::write_str(out, k);
            out.push(b':');
            v.write(out);
        }
        out.push(b'}');
    }
}

/// The `ClientCapabilities` JSON object that `names` declare (compact,
/// keys sorted; `{}` for no names). Names are taken as given: pass names
/// checked by [`normalize_capabilities`].
pub fn capabilities_json<S: AsRef<str>>(names: &[S]) -> Vec<u8> {
    let mut tree = Tree::default();
    for name in names {
        let mut node = &mut tree;
        for seg in segments(name.as_ref()) {
            node = node.0.entry(seg.to_string()).or_default();
        }
    }
    let mut out = Vec::new();
    tree.write(&mut out);
    out
}

/// The known capabilities a client declared, in normal form, from the
/// params of its `initialize` request (`capabilities`) or of a request of
/// the 2026-07-28 generation (`_meta` key
/// `io.modelcontextprotocol/clientCapabilities`). Names this crate does not
/// know are left out. `None` when `params_json` is not a JSON object.
pub fn capabilities_of_initialize(params_json: &[u8]) -> Option<Vec<String>> {
    let mut nodes = Vec::new();
    let tape = json::parse_growing(params_json, &mut nodes, &Limits::DEFAULT).ok()?;
    let root = tape.root();
    if root.tag() != Tag::Object {
        return None;
    }
    let caps = root.get("capabilities").or_else(|| {
        root.get("_meta")
            .and_then(|m| m.get("io.modelcontextprotocol/clientCapabilities"))
    });
    let Some(caps) = caps.filter(|c| c.tag() == Tag::Object) else {
        return Some(Vec::new());
    };
    let mut found: Vec<String> = CLIENT_CAPABILITIES
        .iter()
        .filter(|n| at_path(caps, &segments(n)))
        .map(|n| n.to_string())
        .collect();
    if let Some(exp) = caps.get("experimental") {
        for (k, _) in exp.members() {
            let raw = k.raw_str().unwrap_or(b"");
            let mut buf = vec![0u8; raw.len()];
            if let Some(key) = k.decode_str(&mut buf).filter(|s| is_experimental_key(s)) {
                found.push(format!("{EXPERIMENTAL}{key}"));
            }
        }
    }
    normalize_capabilities(found).ok()
}

/// Whether an object is present (not null) at `path` under `v`.
fn at_path(v: Value<'_>, path: &[&str]) -> bool {
    let mut cur = v;
    for seg in path {
        match cur.get(seg) {
            Some(next) if next.tag() == Tag::Object => cur = next,
            _ => return false,
        }
    }
    true
}

/// The names in `pinned` but not `declared`, and those in `declared` but
/// not `pinned` (both lists in normal form): empty twice when the client
/// declares exactly what the pin was fetched with.
pub fn capability_difference(pinned: &[String], declared: &[String]) -> (Vec<String>, Vec<String>) {
    let only = |a: &[String], b: &[String]| a.iter().filter(|n| !b.contains(n)).cloned().collect();
    (only(pinned, declared), only(declared, pinned))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strs(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn names_and_normal_form() {
        assert!(is_client_capability("roots"));
        assert!(is_client_capability("experimental.io.example/x"));
        assert!(!is_client_capability("experimental."));
        assert!(!is_client_capability("experimental.a b"));
        assert!(!is_client_capability("Roots"));
        assert!(!is_client_capability("roots.listChanged"));
        assert_eq!(
            normalize_capabilities([
                "sampling",
                "roots",
                "elicitation",
                "elicitation.url",
                "roots"
            ])
            .unwrap(),
            strs(&["elicitation.url", "roots", "sampling"])
        );
        // "tasks" is implied by a deeper name, "experimental.a" by nothing.
        assert_eq!(
            normalize_capabilities([
                "tasks",
                "tasks.requests.sampling.createMessage",
                "experimental.a",
                "experimental.a.b"
            ])
            .unwrap(),
            strs(&[
                "experimental.a",
                "experimental.a.b",
                "tasks.requests.sampling.createMessage"
            ])
        );
        let e = normalize_capabilities(["bogus"]).unwrap_err();
        assert!(e.contains("\"bogus\"") && e.contains("roots"), "{e}");
    }

    #[test]
    fn command_line_lists() {
        assert_eq!(
            parse_client_capabilities("none").unwrap(),
            Vec::<String>::new()
        );
        assert_eq!(parse_client_capabilities("").unwrap(), Vec::<String>::new());
        assert_eq!(
            parse_client_capabilities(" sampling , roots").unwrap(),
            strs(&["roots", "sampling"])
        );
        assert!(parse_client_capabilities("roots,,sampling").is_err());
        assert!(parse_client_capabilities("roots,none").is_err());
    }

    #[test]
    fn json_object() {
        assert_eq!(capabilities_json::<&str>(&[]), b"{}");
        assert_eq!(
            capabilities_json(&[
                "roots",
                "elicitation.url",
                "elicitation.form",
                "experimental.x"
            ]),
            br#"{"elicitation":{"form":{},"url":{}},"experimental":{"x":{}},"roots":{}}"#
        );
        assert_eq!(
            capabilities_json(&["tasks.requests.sampling.createMessage"]),
            br#"{"tasks":{"requests":{"sampling":{"createMessage":{}}}}}"#
        );
    }

    #[test]
    fn what_a_client_declared() {
        let p = br#"{"protocolVersion":"2025-11-25","clientInfo":{"name":"c","version":"1"},
            "capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{},"url":{}},
            "experimental":{"io.x/y":{}},"other":{}}}"#;
        assert_eq!(
            capabilities_of_initialize(p).unwrap(),
            strs(&[
                "elicitation.form",
                "elicitation.url",
                "experimental.io.x/y",
                "roots",
                "sampling"
            ])
        );
        let modern = br#"{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{}}}}"#;
        assert_eq!(
            capabilities_of_initialize(modern).unwrap(),
            strs(&["roots"])
        );
        assert_eq!(
            capabilities_of_initialize(b"{}").unwrap(),
            Vec::<String>::new()
        );
        assert_eq!(
            capabilities_of_initialize(br#"{"capabilities":{"roots":null,"sampling":true}}"#)
                .unwrap(),
            Vec::<String>::new()
        );
        assert!(capabilities_of_initialize(b"[1]").is_none());
        assert!(capabilities_of_initialize(b"{").is_none());
        // The round trip: what we declare reads back as the same names.
        let names = strs(&["elicitation.url", "experimental.z", "roots", "tasks.list"]);
        let mut params = b"{\"capabilities\":".to_vec();
        params.extend_from_slice(&capabilities_json(&names));
        params.push(b'}');
        assert_eq!(capabilities_of_initialize(&params).unwrap(), names);
    }

    #[test]
    fn differences() {
        let (a, b) =
            capability_difference(&strs(&["roots", "sampling"]), &strs(&["roots", "tasks"]));
        assert_eq!((a, b), (strs(&["sampling"]), strs(&["tasks"])));
        let (a, b) = capability_difference(&strs(&["roots"]), &strs(&["roots"]));
        assert!(a.is_empty() && b.is_empty());
    }

    fn lock_with(caps: Option<Vec<String>>, source: crate::lock::Source) -> crate::lock::Lock {
        let digests = crate::digest_tools_list(br#"{"tools":[]}"#).unwrap();
        let mut server = crate::lock::LockServer::from_server_digest(source, &digests);
        server.client_capabilities = caps;
        let mut lock = crate::lock::Lock::new("2026-01-01T00:00:00Z");
        lock.servers.insert(String::from("s"), server);
        lock
    }

    fn stdio() -> crate::lock::Source {
        crate::lock::Source::Stdio {
            command: strs(&["srv"]),
            env: BTreeMap::new(),
            cwd: None,
        }
    }

    #[test]
    fn in_the_lock() {
        use crate::lock::Lock;
        let lock = lock_with(Some(strs(&["roots", "sampling"])), stdio());
        let text = String::from_utf8(lock.to_pretty()).unwrap();
        assert!(
            text.contains("\"client_capabilities\": [\n        \"roots\",\n        \"sampling\"\n      ],\n      \"command\""),
            "{text}"
        );
        assert_eq!(Lock::parse(text.as_bytes()).unwrap(), lock);
        // Absent: no key at all.
        let none = lock_with(None, stdio());
        assert!(!String::from_utf8(none.to_pretty())
            .unwrap()
            .contains("client_capabilities"));
        // Read into normal form.
        let edited = text.replace(
            "\"roots\",\n        \"sampling\"",
            "\"sampling\", \"roots\", \"sampling\"",
        );
        assert_eq!(Lock::parse(edited.as_bytes()).unwrap(), lock);
        // Refused: unknown names, non-strings, not an array, on a file server.
        for (bad, needle) in [
            ("\"sampling\", \"telepathy\"", "telepathy"),
            ("\"sampling\", 3", "expected a string"),
        ] {
            let t = text.replace("\"roots\",\n        \"sampling\"", bad);
            let e = Lock::parse(t.as_bytes()).unwrap_err();
            assert!(e.to_string().contains(needle), "{e}");
            assert!(e.to_string().contains("client_capabilities"), "{e}");
        }
        let t = text.replace(
            "[\n        \"roots\",\n        \"sampling\"\n      ]",
            "\"roots\"",
        );
        assert!(Lock::parse(t.as_bytes())
            .unwrap_err()
            .to_string()
            .contains("array"));
        let file = lock_with(
            Some(strs(&["roots"])),
            crate::lock::Source::File {
                path: String::from("t.json"),
            },
        );
        let e = Lock::parse(&file.to_pretty()).unwrap_err();
        assert!(e.to_string().contains("only to transports"), "{e}");
    }
}
