//! TEMPORARY minimal lock reading/writing until `contractpin::lock` lands.

use std::path::Path;

use contractpin::json::{self, Node, Tag, Value};
use contractpin::Limits;

use crate::fail::Failure;
use crate::pretty::Json;

fn to_json(v: Value<'_>) -> Json {
    match v.tag() {
        Tag::Null => Json::Null,
        Tag::False => Json::Bool(false),
        Tag::True => Json::Bool(true),
        Tag::Number => {
            let raw = v.raw_number().unwrap_or(b"0");
            Json::UInt(
                std::str::from_utf8(raw)
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0),
            )
        }
        Tag::String => Json::Str(decode(v)),
        Tag::Array => Json::Arr(v.elements().map(to_json).collect()),
        Tag::Object => Json::Obj(v.members().map(|(k, x)| (decode(k), to_json(x))).collect()),
    }
}

fn decode(v: Value<'_>) -> String {
    let raw = v.raw_str().unwrap_or(b"");
    let mut buf = vec![0u8; raw.len()];
    v.decode_str(&mut buf).unwrap_or("").to_string()
}

/// Reads the servers of an existing lock (empty when the file does not exist).
pub fn read_servers(path: &Path) -> Result<Vec<(String, Json)>, Failure> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(Failure::usage(format!(
                "cannot read {}: {e}",
                path.display()
            )))
        }
    };
    let mut nodes = vec![Node::EMPTY; json::scratch_needed(&bytes)];
    let tape = json::parse(&bytes, &mut nodes, &Limits::DEFAULT)
        .map_err(|e| Failure::usage(format!("lock file is not valid JSON: {e}")))?;
    let root = tape.root();
    if !root.get("contractpin").is_some_and(|v| v.str_eq("1")) {
        return Err(Failure::usage("unsupported lock version"));
    }
    match root.get("servers").map(to_json) {
        Some(Json::Obj(servers)) => Ok(servers),
        _ => Err(Failure::usage(
            "invalid lock file: servers is not an object",
        )),
    }
}

/// Writes the lock (not atomically: temporary code).
pub fn write(path: &Path, servers: Vec<(String, Json)>) -> Result<(), Failure> {
    let lock = Json::Obj(vec![
        ("contractpin".into(), Json::Str("1".into())),
        ("algorithm".into(), Json::Str("sha256".into())),
        (
            "canonicalization".into(),
            Json::Str(contractpin::CANONICALIZATION.into()),
        ),
        (
            "generated_at".into(),
            Json::Str("1970-01-01T00:00:00Z".into()),
        ),
        ("servers".into(), Json::Obj(servers)),
    ]);
    std::fs::write(path, lock.to_pretty())
        .map_err(|e| Failure::usage(format!("cannot write {}: {e}", path.display())))
}
