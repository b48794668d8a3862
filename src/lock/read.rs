//! The strict lock reader (see the module docs of [`crate::lock`]).

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::capabilities::{is_client_capability, normalize_capabilities};
use super::error::{LockError, LockErrorKind};
use super::model::{Lock, LockServer, LockTool, ServerInfo, Transport};
use super::path::child;
use super::secrets::{classify_header, is_header_name, HeaderValue};
use super::timestamp::is_valid_timestamp;
use super::unknown::{read_unknown, LOCK_KEYS, SERVER_KEYS, TOOL_KEYS};
use super::{ALGORITHM, LOCK_VERSION};
use crate::digest::Digest;
use crate::json::{self, Tag, Value};
use crate::limits::Limits;
use crate::CANONICALIZATION;

type Res<T> = Result<T, LockError>;

fn type_name(tag: Tag) -> &'static str {
    match tag {
        Tag::Null => "null",
        Tag::False | Tag::True => "a boolean",
        Tag::Number => "a number",
        Tag::String => "a string",
        Tag::Array => "an array",
        Tag::Object => "an object",
    }
}

fn wrong_type(path: &str, expected: &str, v: Value<'_>) -> LockError {
    LockError::new(
        LockErrorKind::WrongType,
        String::from(path),
        format!("expected {expected}, found {}", type_name(v.tag())),
    )
}

fn missing(path: String, detail: &str) -> LockError {
    LockError::new(LockErrorKind::MissingField, path, String::from(detail))
}

/// The decoded text of a string value.
fn text(v: Value<'_>, path: &str) -> Res<String> {
    if let Some(s) = v.as_plain_str() {
        return Ok(String::from(s));
    }
    let raw = v.raw_str().ok_or_else(|| wrong_type(path, "a string", v))?;
    // Decoding never lengthens a string: every escape is at least as long
    // as the UTF-8 it stands for.
    let mut buf = vec![0u8; raw.len()];
    let s = v
        .decode_str(&mut buf)
        .ok_or_else(|| wrong_type(path, "a string", v))?;
    Ok(String::from(s))
}

fn object<'a>(v: Value<'a>, path: &str) -> Res<Value<'a>> {
    if v.tag() == Tag::Object {
        Ok(v)
    } else {
        Err(wrong_type(path, "an object", v))
    }
}

fn required<'a>(obj: Value<'a>, path: &str, key: &str) -> Res<(Value<'a>, String)> {
    let p = child(path, key);
    match obj.get(key) {
        Some(v) => Ok((v, p)),
        None => Err(missing(p, "required key is missing")),
    }
}

fn read_digest(v: Value<'_>, path: &str) -> Res<Digest> {
    let raw = v
        .raw_str()
        .ok_or_else(|| wrong_type(path, "a digest string", v))?;
    // A digest is plain ASCII; an escaped form is refused like any other
    // non-canonical spelling.
    Digest::parse(raw)
        .filter(|_| !v.has_escapes())
        .ok_or_else(|| {
            LockError::new(
                LockErrorKind::InvalidDigest,
                String::from(path),
                String::from("expected \"sha256:\" followed by 64 lowercase hex digits"),
            )
        })
}

/// A string member compared against the one value this crate implements.
fn constant(obj: Value<'_>, key: &str, want: &str, kind: LockErrorKind, what: &str) -> Res<()> {
    let (v, p) = required(obj, "", key)?;
    let found = text(v, &p)?;
    if found == want {
        return Ok(());
    }
    let mut shown = Vec::new();
    crate::jcs::write_str(&mut shown, &found);
    Err(LockError::new(
        kind,
        p,
        format!(
            "unsupported {what} {}; this contractpin implements \"{want}\"",
            String::from_utf8_lossy(&shown)
        ),
    ))
}

fn count(v: Value<'_>, path: &str) -> Res<usize> {
    let bad = || wrong_type(path, "a non-negative integer", v);
    let token = v.raw_number().ok_or_else(bad)?;
    let value: f64 = core::str::from_utf8(token)
        .ok()
        .and_then(|t| t.parse().ok())
        .ok_or_else(bad)?;
    if !(0.0..=9_007_199_254_740_992.0).contains(&value) || (value as u64) as f64 != value {
        return Err(bad());
    }
    Ok(value as usize)
}

fn string_array(v: Value<'_>, path: &str) -> Res<Vec<String>> {
    if v.tag() != Tag::Array {
        return Err(wrong_type(path, "an array of strings", v));
    }
    v.elements()
        .enumerate()
        .map(|(i, e)| text(e, &format!("{path}[{i}]")))
        .collect()
}

fn string_map(v: Value<'_>, path: &str) -> Res<BTreeMap<String, String>> {
    let v = object(v, path)?;
    let mut out = BTreeMap::new();
    for (k, val) in v.members() {
        let key = text(k, path)?;
        let p = child(path, &key);
        out.insert(key, text(val, &p)?);
    }
    Ok(out)
}

/// A `headers` object: token names, unique ignoring case, template values.
/// The first problem in name order is reported.
fn header_map(v: Value<'_>, path: &str) -> Res<BTreeMap<String, String>> {
    let map = string_map(v, path)?;
    let repeat = first_repeat(map.keys().map(|name| name.to_ascii_lowercase()));
    for (i, (name, value)) in map.iter().enumerate() {
        let problem = if !is_header_name(name) {
            Some("not a valid HTTP header name")
        } else if repeat == Some(i) {
            Some("a header of this name (ignoring case) is already given")
        } else if classify_header(value) != HeaderValue::Template(value.clone()) {
            Some("a header value in a lock must be ${VAR} references (optionally after a scheme word such as \"Bearer\"), never a literal")
        } else {
            None
        };
        if let Some(detail) = problem {
            return Err(LockError::new(
                LockErrorKind::InvalidValue,
                child(path, name),
                String::from(detail),
            ));
        }
    }
    Ok(map)
}

/// The position of the first key equal to an earlier one, in O(n log n)
/// comparisons (a set of the keys seen; a list searched for each key took
/// 33 s for a lock of 200 000 headers).
fn first_repeat<K: Ord>(keys: impl Iterator<Item = K>) -> Option<usize> {
    let mut seen = BTreeSet::new();
    keys.enumerate()
        .find_map(|(i, key)| (!seen.insert(key)).then_some(i))
}

/// A `client_capabilities` array: known names ([`is_client_capability`]),
/// read into normal form.
fn capability_list(v: Value<'_>, path: &str) -> Res<Vec<String>> {
    let names = string_array(v, path)?;
    for (i, name) in names.iter().enumerate() {
        if !is_client_capability(name) {
            return Err(LockError::new(
                LockErrorKind::InvalidValue,
                format!("{path}[{i}]"),
                format!(
                    "unknown client capability {name:?} (this contractpin knows {}, experimental.NAME)",
                    super::CLIENT_CAPABILITIES.join(", ")
                ),
            ));
        }
    }
    normalize_capabilities(names)
        .map_err(|e| LockError::new(LockErrorKind::InvalidValue, String::from(path), e))
}

fn optional<T>(
    obj: Value<'_>,
    path: &str,
    key: &str,
    read: impl FnOnce(Value<'_>, &str) -> Res<T>,
) -> Res<Option<T>> {
    match obj.get(key) {
        Some(v) => read(v, &child(path, key)).map(Some),
        None => Ok(None),
    }
}

fn read_tool(v: Value<'_>, path: &str) -> Res<LockTool> {
    let obj = object(v, path)?;
    let (d, p) = required(obj, path, "digest")?;
    let digest = read_digest(d, &p)?;
    let mut fields = BTreeMap::new();
    if let Some(f) = obj.get("fields") {
        let fp = child(path, "fields");
        for (k, val) in object(f, &fp)?.members() {
            let name = text(k, &fp)?;
            let p = child(&fp, &name);
            fields.insert(name, read_digest(val, &p)?);
        }
    }
    let contract = optional(obj, path, "contract", |v, p| snapshot(v, p, &digest))?;
    Ok(LockTool {
        digest,
        fields,
        contract,
        unknown: read_unknown(obj, &TOOL_KEYS, |k| text(k, path))?,
    })
}

/// A `contract` snapshot: any JSON object, read as its canonical bytes,
/// which must hash to the tool's pinned `digest`.
fn snapshot(v: Value<'_>, path: &str, digest: &Digest) -> Res<Vec<u8>> {
    let v = object(v, path)?;
    let mut canonical = Vec::new();
    crate::jcs::write(&mut canonical, v).map_err(LockError::syntax)?;
    let found = Digest(crate::sha256::digest(&canonical));
    if found != *digest {
        return Err(LockError::new(
            LockErrorKind::SnapshotMismatch,
            String::from(path),
            format!(
                "the snapshot is not the pinned contract (it hashes to {found}, the digest is \
                 {digest}); the lock was edited by hand: re-pin the server"
            ),
        ));
    }
    Ok(canonical)
}

/// A `server_info` object: string `name` and `version`, optional string
/// `title` (other members are ignored).
fn server_info(v: Value<'_>, path: &str) -> Res<ServerInfo> {
    let obj = object(v, path)?;
    let (n, np) = required(obj, path, "name")?;
    let (ver, vp) = required(obj, path, "version")?;
    Ok(ServerInfo {
        name: text(n, &np)?,
        version: text(ver, &vp)?,
        title: optional(obj, path, "title", text)?,
    })
}

fn read_server(v: Value<'_>, path: &str) -> Res<LockServer> {
    let obj = object(v, path)?;
    let (t, tp) = required(obj, path, "transport")?;
    let transport: Transport = text(t, &tp)?.parse().map_err(|_| {
        LockError::new(
            LockErrorKind::UnknownTransport,
            tp.clone(),
            String::from("expected \"stdio\", \"http\" or \"file\""),
        )
    })?;
    let command = optional(obj, path, "command", string_array)?;
    let env = optional(obj, path, "env", string_map)?;
    let cwd = optional(obj, path, "cwd", text)?;
    let url = optional(obj, path, "url", text)?;
    let headers = optional(obj, path, "headers", header_map)?;
    let file_path = optional(obj, path, "path", text)?;
    let need = |present: bool, key: &str| {
        if present {
            Ok(())
        } else {
            Err(missing(
                child(path, key),
                &format!("required for transport \"{}\"", transport.as_str()),
            ))
        }
    };
    match transport {
        Transport::Stdio => {
            need(command.is_some(), "command")?;
            if command.as_ref().is_some_and(Vec::is_empty) {
                return Err(LockError::new(
                    LockErrorKind::InvalidValue,
                    child(path, "command"),
                    String::from("the command (argv) must not be empty"),
                ));
            }
        }
        Transport::Http => need(url.is_some(), "url")?,
        Transport::File => need(file_path.is_some(), "path")?,
    }
    if headers.is_some() && transport != Transport::Http {
        return Err(LockError::new(
            LockErrorKind::InvalidValue,
            child(path, "headers"),
            String::from("headers apply only to transport \"http\""),
        ));
    }
    let (d, dp) = required(obj, path, "digest")?;
    let server_digest = read_digest(d, &dp)?;
    let (tools_v, tools_p) = required(obj, path, "tools")?;
    let mut tools = BTreeMap::new();
    for (k, val) in object(tools_v, &tools_p)?.members() {
        let name = text(k, &tools_p)?;
        let p = child(&tools_p, &name);
        tools.insert(name, read_tool(val, &p)?);
    }
    let (c, cp) = required(obj, path, "tool_count")?;
    let tool_count = count(c, &cp)?;
    if tool_count != tools.len() {
        return Err(LockError::new(
            LockErrorKind::ToolCountMismatch,
            cp,
            format!(
                "tool_count is {tool_count} but \"tools\" has {} entries",
                tools.len()
            ),
        ));
    }
    let client_capabilities = optional(obj, path, "client_capabilities", capability_list)?;
    let server_info = optional(obj, path, "server_info", server_info)?;
    let protocol_version = optional(obj, path, "protocol_version", text)?;
    let instructions_digest = optional(obj, path, "instructions_digest", read_digest)?;
    let live_only = [
        ("client_capabilities", client_capabilities.is_some()),
        ("instructions_digest", instructions_digest.is_some()),
        ("protocol_version", protocol_version.is_some()),
        ("server_info", server_info.is_some()),
    ];
    if let Some((key, _)) = live_only.iter().find(|(_, present)| *present) {
        if transport == Transport::File {
            return Err(LockError::new(
                LockErrorKind::InvalidValue,
                child(path, key),
                format!("{key} applies only to transports \"stdio\" and \"http\""),
            ));
        }
    }
    let server = LockServer {
        transport,
        command,
        env,
        cwd,
        url,
        headers,
        path: file_path,
        client_capabilities,
        server_info,
        protocol_version,
        instructions_digest,
        tool_count,
        digest: server_digest,
        tools,
        unknown: read_unknown(obj, &SERVER_KEYS, |k| text(k, path))?,
    };
    let computed = server.computed_digest();
    if computed != server_digest {
        return Err(LockError::new(
            LockErrorKind::ServerDigestMismatch,
            dp,
            format!(
                "the server digest does not match its tools (they give {computed}); \
                 the lock was edited or merged by hand: re-pin the server"
            ),
        ));
    }
    Ok(server)
}

impl Lock {
    /// Reads a lock file strictly (see [`crate::lock`] for every rule).
    pub fn parse(input: &[u8]) -> Result<Lock, LockError> {
        let mut nodes = Vec::new();
        let limits = Limits {
            max_depth: super::MAX_LOCK_DEPTH as u32,
            ..Limits::DEFAULT
        };
        let tape = json::parse_growing(input, &mut nodes, &limits).map_err(LockError::syntax)?;
        let root = tape.root();
        if root.tag() != Tag::Object {
            return Err(wrong_type("", "the lock to be a JSON object", root));
        }
        // The version first: a future lock may differ in every other way.
        constant(
            root,
            "contractpin",
            LOCK_VERSION,
            LockErrorKind::UnsupportedVersion,
            "lock format version",
        )?;
        constant(
            root,
            "algorithm",
            ALGORITHM,
            LockErrorKind::UnsupportedAlgorithm,
            "digest algorithm",
        )?;
        constant(
            root,
            "canonicalization",
            CANONICALIZATION,
            LockErrorKind::UnsupportedCanonicalization,
            "canonicalization",
        )?;
        let (g, gp) = required(root, "", "generated_at")?;
        let generated_at = text(g, &gp)?;
        if !is_valid_timestamp(&generated_at) {
            return Err(LockError::new(
                LockErrorKind::InvalidTimestamp,
                gp,
                String::from("expected a UTC time \"YYYY-MM-DDTHH:MM:SSZ\""),
            ));
        }
        let (s, sp) = required(root, "", "servers")?;
        let mut servers = BTreeMap::new();
        for (k, v) in object(s, &sp)?.members() {
            let name = text(k, &sp)?;
            let p = child(&sp, &name);
            servers.insert(name, read_server(v, &p)?);
        }
        Ok(Lock {
            generated_at,
            servers,
            unknown: read_unknown(root, &LOCK_KEYS, |k| text(k, ""))?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::first_repeat;

    /// The old rule: each key searched for among the earlier ones.
    fn naive(keys: &[u32]) -> Option<usize> {
        (0..keys.len()).find(|&i| keys[..i].contains(&keys[i]))
    }

    #[test]
    fn first_repeat_finds_the_first_key_seen_before() {
        assert_eq!(first_repeat(core::iter::empty::<u32>()), None);
        assert_eq!(first_repeat(["a", "b", "c"].into_iter()), None);
        assert_eq!(first_repeat(["a", "b", "a", "b"].into_iter()), Some(2));
        assert_eq!(first_repeat(["x", "y", "y", "x"].into_iter()), Some(2));
        let lower = |n: &[&str]| first_repeat(n.iter().map(|s| s.to_ascii_lowercase()));
        assert_eq!(lower(&["Accept", "X-Key", "x-key"]), Some(2));
        assert_eq!(lower(&["A", "B"]), None);
        // Every list of up to 6 keys from 3 values: the same as the old rule.
        for n in 0..=6u32 {
            for code in 0..3u32.pow(n) {
                let keys: std::vec::Vec<u32> = (0..n).map(|i| code / 3u32.pow(i) % 3).collect();
                assert_eq!(first_repeat(keys.iter()), naive(&keys), "{keys:?}");
            }
        }
    }

    use crate::test_counted::{made, reset, Counted};

    /// 20 000 distinct keys take O(n log n) comparisons, not the n²/2
    /// (200 million) of searching a list for each key.
    #[test]
    fn first_repeat_takes_n_log_n_comparisons() {
        let n = 20_000u32;
        reset();
        assert_eq!(first_repeat((0..n).map(Counted)), None);
        let made = made();
        assert!(made < 40 * n as usize, "{made} comparisons");
    }
}
