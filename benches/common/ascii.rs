//! An ASCII-plain `tools/list` (what typical MCP servers send): 250 tools with
//! long descriptions of plain words, no escapes and no non-ASCII text, so the
//! canonical writer emits each description as one slice. Deterministic (an
//! LCG); shared by `benches/sha256.rs` and `examples/digest_timing.rs`.

/// The payload: 250 tools, about 0.6 MB.
pub fn ascii_tools_list() -> Vec<u8> {
    const WORDS: [&str; 14] = [
        "search",
        "the",
        "index",
        "for",
        "documents",
        "matching",
        "a",
        "query",
        "and",
        "return",
        "ranked",
        "results",
        "with",
        "snippets",
    ];
    let mut x = 7u64;
    let mut text = |n: usize| -> String {
        let mut s = String::new();
        while s.len() < n {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            s.push_str(WORDS[(x >> 33) as usize % WORDS.len()]);
            s.push(' ');
        }
        s
    };
    let tools: Vec<String> = (0..250)
        .map(|i| {
            let (d, p1, p2) = (text(1500), text(300), text(200));
            format!(
                r#"{{"name":"tool_{i}","description":"{d}","inputSchema":{{"type":"object","properties":{{"query":{{"type":"string","description":"{p1}"}},"limit":{{"type":"integer","description":"{p2}"}}}},"required":["query"]}},"annotations":{{"readOnlyHint":true}}}}"#
            )
        })
        .collect();
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"tools":[{}]}}}}"#,
        tools.join(",")
    )
    .into_bytes()
}
