//! Deterministic synthetic `tools/list` payloads for the benchmarks, the
//! allocation test and the peer comparison (`bench-peers`).
//!
//! One seeded generator (SplitMix64, no dependencies) builds a document tree
//! and prints it compact or pretty. The payloads are string-heavy, with
//! non-ASCII text, every kind of escape, nested schemas, keys out of order
//! and mixed number spellings. Every number is one that all correct RFC 8785
//! implementations agree on (integers stay within 2^53), so a peer whose
//! digest differs is wrong, not merely stricter.
//!
//! Sizes: S = 1 tool, M = 250 tools (about 1 MB), L = 1000 tools (about 4 MB).
//! Beside them, A ([`ascii_tools_list`]): what typical MCP servers send, 250
//! tools of plain ASCII words with keys in a stable order (about 0.6 MB).
#![allow(dead_code)]

/// The seed every benchmark uses.
pub const SEED: u64 = 0x5eed_c0de_2026_0001;

/// Tool counts of the three sizes.
pub const S_TOOLS: usize = 1;
/// Tool count of M.
pub const M_TOOLS: usize = 250;
/// Tool count of L.
pub const L_TOOLS: usize = 1000;

/// How the payload is printed and what it stresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Compact JSON, string-heavy (the main payload).
    Compact,
    /// The same documents pretty-printed with two-space indentation.
    Pretty,
    /// Compact, with schemas full of non-integer numbers (examples, bounds).
    NumberHeavy,
}

impl Style {
    /// Short label for tables.
    pub fn label(self) -> &'static str {
        match self {
            Style::Compact => "compact",
            Style::Pretty => "pretty",
            Style::NumberHeavy => "numbers",
        }
    }
}

/// A named payload.
pub struct Payload {
    /// e.g. `M` or `M-pretty`.
    pub name: String,
    /// Number of tools in it.
    pub tools: usize,
    /// The JSON text.
    pub bytes: Vec<u8>,
}

/// Builds the tools/list payload with `tools` tools in `style`.
pub fn tools_list(tools: usize, style: Style, seed: u64) -> Vec<u8> {
    let mut g = Gen::new(seed ^ tools as u64);
    let mut list = Vec::with_capacity(tools);
    for i in 0..tools {
        list.push(g.tool(i, style));
    }
    let doc = J::Obj(vec![
        ("jsonrpc".into(), J::Str("2.0".into())),
        ("id".into(), J::Num("1".into())),
        (
            "result".into(),
            J::Obj(vec![
                ("tools".into(), J::Arr(list)),
                ("nextCursor".into(), J::Null),
            ]),
        ),
    ]);
    let mut out = Vec::with_capacity(tools * 4600 + 64);
    match style {
        Style::Pretty => doc.pretty(&mut out, 0),
        _ => doc.compact(&mut out),
    }
    out
}

/// The standard set: S, M, L (compact), M pretty, M number-heavy, and A.
pub fn standard() -> Vec<Payload> {
    let mk = |name: &str, tools: usize, style: Style| Payload {
        name: name.into(),
        tools,
        bytes: tools_list(tools, style, SEED),
    };
    vec![
        mk("S", S_TOOLS, Style::Compact),
        mk("M", M_TOOLS, Style::Compact),
        mk("L", L_TOOLS, Style::Compact),
        mk("M-pretty", M_TOOLS, Style::Pretty),
        mk("M-numbers", M_TOOLS, Style::NumberHeavy),
        Payload {
            name: "A".into(),
            tools: M_TOOLS,
            bytes: ascii_tools_list(),
        },
    ]
}

/// `n` random finite doubles, uniform over bit patterns, always the same
/// ones (the number-formatting benches: `benches/number.rs` and the bench
/// table's ryu-js row).
pub fn random_doubles(n: usize) -> Vec<f64> {
    let mut rng = rng::Rng(0x1234_5678_9abc_def0);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let x = f64::from_bits(rng.next());
        if x.is_finite() {
            out.push(x);
        }
    }
    out
}

/// The ASCII-plain `tools/list` (payload A): 250 tools with long
/// descriptions of plain words, no escapes, no non-ASCII text, members in
/// the same order in every tool, so the canonical writer emits each
/// description as one slice. About 0.6 MB.
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
    let mut rng = rng::Rng(SEED);
    let mut text = |n: usize| -> String {
        let mut s = String::new();
        while s.len() < n {
            let word: &&str = rng.pick(&WORDS);
            s.push_str(word);
            s.push(' ');
        }
        s
    };
    let tools: Vec<String> = (0..M_TOOLS)
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

/// A document tree whose strings and numbers hold raw JSON text.
enum J {
    Null,
    Bool(bool),
    /// A number token as written.
    Num(String),
    /// String content as written between the quotes (escapes included).
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

impl J {
    fn compact(&self, out: &mut Vec<u8>) {
        match self {
            J::Null => out.extend_from_slice(b"null"),
            J::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
            J::Num(n) => out.extend_from_slice(n.as_bytes()),
            J::Str(s) => quote(out, s),
            J::Arr(items) => {
                out.push(b'[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    v.compact(out);
                }
                out.push(b']');
            }
            J::Obj(members) => {
                out.push(b'{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    quote(out, k);
                    out.push(b':');
                    v.compact(out);
                }
                out.push(b'}');
            }
        }
    }

    fn pretty(&self, out: &mut Vec<u8>, indent: usize) {
        let pad = |out: &mut Vec<u8>, n: usize| {
            out.push(b'\n');
            out.extend(core::iter::repeat_n(b' ', n * 2));
        };
        match self {
            J::Arr(items) if !items.is_empty() => {
                out.push(b'[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    pad(out, indent + 1);
                    v.pretty(out, indent + 1);
                }
                pad(out, indent);
                out.push(b']');
            }
            J::Obj(members) if !members.is_empty() => {
                out.push(b'{');
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    pad(out, indent + 1);
                    quote(out, k);
                    out.extend_from_slice(b": ");
                    v.pretty(out, indent + 1);
                }
                pad(out, indent);
                out.push(b'}');
            }
            _ => self.compact(out),
        }
    }
}

fn quote(out: &mut Vec<u8>, raw: &str) {
    out.push(b'"');
    out.extend_from_slice(raw.as_bytes());
    out.push(b'"');
}

#[rustfmt::skip]
const WORDS: &[&str] = &[
    "the", "tool", "returns", "a", "list", "of", "files", "in", "directory", "path", "with",
    "optional", "filter", "and", "recursive", "search", "results", "are", "sorted", "by", "name",
    "size", "modified", "time", "use", "this", "to", "read", "write", "query", "database",
    "records", "matching", "given", "criteria", "only", "when", "user", "explicitly", "asks",
    "never", "call", "for", "secrets", "config", "server", "request", "timeout", "seconds",
    "maximum", "number", "items", "page", "cursor", "token", "JSON", "schema", "value", "field",
    "must", "be", "valid", "UTF-8", "string", "array", "object", "boolean", "integer",
    "café", "naïve", "Straße", "façade", "Ærøskøbing", "日本語", "データ", "данные", "поиск",
    "中文", "검색", "ελληνικά", "עברית", "العربية", "→", "✓", "😀", "🚀", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "½",
];

#[rustfmt::skip]
const ESCAPES: &[&str] = &[
    "\\n", "\\\"", "\\\\", "\\t", "\\/", "\\u00e9", "\\u2028", "\\ud83d\\ude00", "\\u001f",
    "\\r\\n", "\\u0041", "\\b", "\\f", "\\uffff", "\\u20ac",
];

#[rustfmt::skip]
const PROP_NAMES: &[&str] = &[
    "path", "query", "limit", "offset", "recursive", "pattern", "encoding", "mode", "timeout",
    "url", "method", "headers", "body", "owner", "repo", "branch", "message", "content", "id",
    "tags", "filters", "sort", "order", "format", "locale", "maxResults", "includeHidden",
    "dryRun", "force", "verbose", "región", "名前", "ключ", "€uro", "\u{e000}private",
    "\u{ff21}wide", "😀emoji", "10", "9", "", "a\\u0062c", "_id", "$ref2", "Zeta", "alpha",
];

const FORMATS: &[&str] = &["uri", "date-time", "email", "uuid", "hostname", "ipv4"];

#[path = "../../tests/support/rng.rs"]
mod rng;

/// The generator: SplitMix64 (`tests/support/rng.rs`) plus the document vocabulary.
struct Gen {
    rng: rng::Rng,
}

impl Gen {
    fn new(seed: u64) -> Gen {
        Gen {
            rng: rng::Rng(seed),
        }
    }

    fn next(&mut self) -> u64 {
        self.rng.next()
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }

    /// Prose of about `len` bytes with non-ASCII words and escapes.
    fn text(&mut self, len: usize) -> String {
        let mut s = String::with_capacity(len + 16);
        while s.len() < len {
            if !s.is_empty() {
                s.push(' ');
            }
            if self.chance(4) {
                s.push_str(self.pick(ESCAPES));
            } else {
                s.push_str(self.pick(WORDS));
            }
            if self.chance(6) {
                s.push('.');
            }
        }
        s
    }

    /// A number token: integers (within 2^53), decimals, exponents, `-0`.
    fn number(&mut self, heavy: bool) -> String {
        let pick = if heavy {
            4 + self.below(6)
        } else {
            self.below(10)
        };
        match pick {
            0 | 1 => format!("{}", self.below(1000)),
            2 => format!("-{}", self.below(100_000)),
            3 => [
                "9007199254740991",
                "-9007199254740991",
                "4294967296",
                "-0",
                "0",
            ][self.below(5)]
            .to_string(),
            4 => format!("{}.{}", self.below(1000), self.below(1000)),
            5 => [
                "1.0", "100.00", "-0.0", "1e21", "1e-7", "2.5E+10", "0.1", "1E3", "5e-324",
            ][self.below(9)]
            .to_string(),
            6 | 7 => {
                // A random finite double in shortest round-trip form.
                let x = loop {
                    let x = f64::from_bits(self.next());
                    if x.is_finite() {
                        break x;
                    }
                };
                format!("{x:e}")
            }
            _ => {
                let x = (self.next() >> 11) as f64 / (1u64 << 53) as f64 * 1e6 - 5e5;
                format!("{x}")
            }
        }
    }

    fn schema(&mut self, depth: usize, heavy: bool) -> J {
        let mut props = Vec::new();
        let mut used: Vec<&str> = Vec::new();
        let n = if depth == 0 {
            4 + self.below(5)
        } else {
            2 + self.below(2)
        };
        while props.len() < n {
            let name = self.pick(PROP_NAMES);
            if used.contains(&name) {
                continue;
            }
            used.push(name);
            props.push((name.to_string(), self.property(depth, heavy)));
        }
        let required: Vec<J> = used
            .iter()
            .filter(|_| self.chance(40))
            .map(|s| J::Str(s.to_string()))
            .collect();
        let mut members = vec![
            ("type".to_string(), J::Str("object".into())),
            ("properties".to_string(), J::Obj(props)),
            ("required".to_string(), J::Arr(required)),
        ];
        if self.chance(50) {
            members.push(("additionalProperties".into(), J::Bool(false)));
        }
        if depth == 0 && self.chance(50) {
            members.push((
                "$schema".into(),
                J::Str("https://json-schema.org/draft/2020-12/schema".into()),
            ));
        }
        self.shuffle(&mut members);
        J::Obj(members)
    }

    fn property(&mut self, depth: usize, heavy: bool) -> J {
        let kind = if depth >= 2 {
            self.below(4)
        } else {
            self.below(6)
        };
        let desc = self.below(120) + 15;
        let mut m = vec![("description".to_string(), J::Str(self.text(desc)))];
        match kind {
            0 => {
                m.push(("type".into(), J::Str("string".into())));
                if self.chance(30) {
                    let opts = (0..2 + self.below(4))
                        .map(|_| J::Str(self.pick(WORDS).into()))
                        .collect();
                    m.push(("enum".into(), J::Arr(opts)));
                }
                if self.chance(30) {
                    m.push(("format".into(), J::Str(self.pick(FORMATS).into())));
                }
                if self.chance(30) {
                    m.push((
                        "pattern".into(),
                        J::Str("^[a-z0-9_\\\\-]+\\\\.(json|ya?ml)$".into()),
                    ));
                }
                if self.chance(40) {
                    m.push((
                        "maxLength".into(),
                        J::Num(format!("{}", 1 + self.below(4096))),
                    ));
                }
            }
            1 | 2 => {
                m.push((
                    "type".into(),
                    J::Str(if kind == 1 { "number" } else { "integer" }.into()),
                ));
                m.push(("minimum".into(), J::Num(self.number(heavy))));
                m.push(("maximum".into(), J::Num(self.number(heavy))));
                if self.chance(50) {
                    m.push(("default".into(), J::Num(self.number(heavy))));
                }
                let examples = if heavy {
                    8 + self.below(24)
                } else {
                    self.below(3)
                };
                if examples > 0 {
                    let xs = (0..examples).map(|_| J::Num(self.number(heavy))).collect();
                    m.push(("examples".into(), J::Arr(xs)));
                }
            }
            3 => {
                m.push(("type".into(), J::Str("boolean".into())));
                m.push(("default".into(), J::Bool(self.chance(50))));
            }
            4 => {
                m.push(("type".into(), J::Str("array".into())));
                m.push(("items".into(), self.schema(depth + 1, heavy)));
                m.push(("minItems".into(), J::Num(format!("{}", self.below(3)))));
            }
            _ => {
                let nested = self.schema(depth + 1, heavy);
                if let J::Obj(inner) = nested {
                    m.extend(inner);
                }
            }
        }
        self.shuffle(&mut m);
        J::Obj(m)
    }

    fn tool(&mut self, i: usize, style: Style) -> J {
        let heavy = style == Style::NumberHeavy;
        let mut name = format!("{}_{}_{i:04}", self.pick(PROP_NAMES), self.pick(WORDS));
        if i % 7 == 3 {
            name.push_str("_\\u00e9t\\u00e9");
        }
        let mut m = vec![
            ("name".to_string(), J::Str(name)),
            ("title".to_string(), J::Str(self.text(30))),
        ];
        let desc = 300 + self.below(700);
        m.push(("description".into(), J::Str(self.text(desc))));
        m.push(("inputSchema".into(), self.schema(0, heavy)));
        match self.below(10) {
            0..=2 => m.push(("outputSchema".into(), self.schema(1, heavy))),
            3 => m.push(("outputSchema".into(), J::Null)),
            _ => {}
        }
        if self.chance(60) {
            let mut a = vec![("title".to_string(), J::Str(self.text(20)))];
            for hint in [
                "readOnlyHint",
                "destructiveHint",
                "idempotentHint",
                "openWorldHint",
            ] {
                if self.chance(60) {
                    a.push((hint.into(), J::Bool(self.chance(50))));
                }
            }
            self.shuffle(&mut a);
            m.push(("annotations".into(), J::Obj(a)));
        }
        if self.chance(30) {
            m.push((
                "_meta".into(),
                J::Obj(vec![
                    ("io.example/version".into(), J::Str("1.2.3".into())),
                    (
                        "ids".into(),
                        J::Arr(vec![J::Num("1".into()), J::Num("2.5".into())]),
                    ),
                ]),
            ));
        }
        self.shuffle(&mut m);
        J::Obj(m)
    }

    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
}
