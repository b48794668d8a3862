//! Real MCP servers' `tools/list` results (captured raw in tests/mcp/fixtures)
//! digest to exactly what an independent oracle (PyPI `rfc8785` + hashlib,
//! tests/mcp/expected_digests.py) computed: server digest, tool count, every
//! tool digest and every field digest.

use std::collections::BTreeMap;

use contractpin::json::{self, Node, Value};
use contractpin::{digest_tools_list, Limits};

fn text(v: Value<'_>) -> String {
    let raw = v.raw_str().expect("string");
    let mut out = vec![0u8; raw.len()];
    v.decode_str(&mut out).expect("decodable").to_string()
}

#[test]
fn real_server_fixtures_match_the_oracle() {
    let expected = std::fs::read("tests/mcp/expected-digests.json").expect("expected-digests.json");
    let mut scratch = vec![Node::EMPTY; json::scratch_needed(&expected)];
    let tape = json::parse(&expected, &mut scratch, &Limits::DEFAULT).expect("valid JSON");
    let fixtures = tape.root().get("fixtures").expect("fixtures member");
    let mut checked = 0;
    for (name, want) in fixtures.members() {
        let name = text(name);
        let path = format!("tests/mcp/fixtures/{name}-tools-list.json");
        let input = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let got = digest_tools_list(&input).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(
            got.digest.to_string(),
            text(want.get("digest").unwrap()),
            "{name}: server digest"
        );
        let count: usize =
            std::str::from_utf8(want.get("tool_count").unwrap().raw_number().unwrap())
                .unwrap()
                .parse()
                .unwrap();
        assert_eq!(got.tools.len(), count, "{name}: tool count");
        let want_tools = want.get("tools").unwrap();
        for tool in &got.tools {
            let w = want_tools
                .get(&tool.name)
                .unwrap_or_else(|| panic!("{name}: unexpected tool {}", tool.name));
            assert_eq!(
                tool.digest.to_string(),
                text(w.get("digest").unwrap()),
                "{name}/{}",
                tool.name
            );
            let want_fields: BTreeMap<String, String> = w
                .get("fields")
                .unwrap()
                .members()
                .map(|(k, v)| (text(k), text(v)))
                .collect();
            let got_fields: BTreeMap<String, String> = tool
                .fields
                .iter()
                .map(|(f, d)| (f.name().to_string(), d.to_string()))
                .collect();
            assert_eq!(
                got_fields, want_fields,
                "{name}/{}: field digests",
                tool.name
            );
        }
        checked += 1;
    }
    assert!(checked >= 7, "only {checked} fixtures checked");
}
