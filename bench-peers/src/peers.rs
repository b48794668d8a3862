//! The Rust peers: the same pipeline (projection, tool digests, field digests,
//! server digest) built the obvious way from serde_json plus a JCS crate and
//! the `sha2` crate, as a user without contractpin would write it.

use std::collections::BTreeMap;

use serde_json::Value;
use sha2::{Digest as _, Sha256};

/// What a pipeline produced: the server digest and each tool's digest.
pub struct Output {
    /// `sha256:<hex>` of the server object.
    pub server: String,
    /// (decoded tool name, `sha256:<hex>`), in the implementation's own order.
    pub tools: Vec<(String, String)>,
}

/// Which JCS serializer a Rust peer uses.
#[derive(Clone, Copy)]
pub enum Jcs {
    /// `serde_json_canonicalizer::to_vec`.
    Canonicalizer,
    /// `serde_jcs::to_vec` (0.2).
    SerdeJcs,
}

impl Jcs {
    fn to_vec<T: serde::Serialize>(self, value: &T) -> Vec<u8> {
        match self {
            Jcs::Canonicalizer => serde_json_canonicalizer::to_vec(value).expect("serialize"),
            Jcs::SerdeJcs => serde_jcs::to_vec(value).expect("serialize"),
        }
    }
}

/// `sha256:` + lowercase hex.
pub fn prefixed_hex(digest: &[u8]) -> String {
    let mut s = String::with_capacity(71);
    s.push_str("sha256:");
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

static NULL: Value = Value::Null;

fn page(p: &Value) -> Vec<&Value> {
    let obj = p.get("result").unwrap_or(p);
    obj.get("tools")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default()
}

/// The tools of any accepted tools/list shape (the payloads use the
/// JSON-RPC response; the other shapes are accepted for completeness).
fn tools(doc: &Value) -> Vec<&Value> {
    match doc {
        Value::Array(items) => {
            let paged = items.first().is_some_and(|f| {
                f.get("name").is_none() && (f.get("tools").is_some() || f.get("result").is_some())
            });
            if paged {
                items.iter().flat_map(page).collect()
            } else {
                items.iter().collect()
            }
        }
        _ => page(doc),
    }
}

/// The full pipeline: tool, field and server digests. `fields = false` gives
/// the verify path (tool digests and server digest only).
pub fn pipeline(jcs: Jcs, input: &[u8], fields: bool) -> Output {
    let doc: Value = serde_json::from_slice(input).expect("peer parse");
    let mut server = BTreeMap::new();
    let mut out = Vec::new();
    for tool in tools(&doc) {
        let name = tool.get("name").and_then(Value::as_str).expect("name");
        let mut contract: BTreeMap<&str, &Value> = BTreeMap::new();
        contract.insert("name", &tool["name"]);
        contract.insert("description", tool.get("description").unwrap_or(&NULL));
        contract.insert("inputSchema", tool.get("inputSchema").unwrap_or(&NULL));
        for key in ["outputSchema", "annotations"] {
            if let Some(v) = tool.get(key).filter(|v| !v.is_null()) {
                contract.insert(key, v);
            }
        }
        let digest = prefixed_hex(&Sha256::digest(jcs.to_vec(&contract)));
        if fields {
            for value in contract.values() {
                std::hint::black_box(Sha256::digest(jcs.to_vec(value)));
            }
        }
        server.insert(name.to_string(), digest.clone());
        out.push((name.to_string(), digest));
    }
    let server = prefixed_hex(&Sha256::digest(jcs.to_vec(&server)));
    Output { server, tools: out }
}
