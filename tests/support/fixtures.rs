//! The independent oracle's digests of the captured `tools/list` fixtures
//! (`tests/mcp/fixtures/`): `tests/mcp/expected-digests.json`, written by
//! `tests/mcp/expected_digests.py` with rfc8785 + hashlib.
#![allow(dead_code)]

use contractpin::json::{self, Node};

/// The oracle's server digest of fixture `name` (`sha256:...`).
pub fn oracle(name: &str) -> String {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/expected-digests.json");
    let text = std::fs::read(path).unwrap();
    let mut nodes = vec![Node::EMPTY; json::scratch_needed(&text)];
    let tape = json::parse(&text, &mut nodes, &contractpin::Limits::DEFAULT).unwrap();
    let digest = tape
        .root()
        .get("fixtures")
        .and_then(|f| f.get(name))
        .and_then(|e| e.get("digest"))
        .unwrap_or_else(|| panic!("no oracle digest for {name}"));
    digest.as_plain_str().unwrap().to_string()
}
