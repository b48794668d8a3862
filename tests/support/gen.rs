//! Seeded generators of hostile-but-plausible inputs, shared by the property
//! tests (`tests/properties.rs`) and the structured modes of the fuzz targets.
//! Requires `checks.rs` (for [`Rng`]) to be included as `mod checks` at the
//! crate root.
#![allow(dead_code)]

use crate::checks::Rng;

/// Whitespace that JSON allows between tokens (sometimes none).
fn ws(r: &mut Rng, out: &mut Vec<u8>) {
    if r.one_in(3) {
        for _ in 0..r.below(3) {
            out.push(*r.pick(b" \t\n\r"));
        }
    }
}

/// Interesting doubles: boundaries of the ES layout, subnormals, extremes.
pub const SPECIAL_F64: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.1,
    0.5,
    1.5,
    9007199254740992.0,
    9007199254740993.0,
    1e21,
    1e20,
    123456789012345680000.0,
    1e-6,
    1e-7,
    0.000001234,
    5e-324,
    2.2250738585072014e-308,
    2.225073858507201e-308,
    1.7976931348623157e308,
    4.35,
    0.3,
    1e23,
    8.41e21,
    5e-7,
    333333333.3333333,
];

/// A random double: special values, random bit patterns, or round decimals.
pub fn f64_bits(r: &mut Rng) -> u64 {
    match r.below(6) {
        0 => r.pick(SPECIAL_F64).to_bits(),
        1 => r.next(),
        2 => {
            // Same exponent range as "normal" JSON: integers and short decimals.
            let m = r.next() % 1_000_000_000_000;
            let e = r.below(40) as i32 - 20;
            (m as f64 * 10f64.powi(e)).to_bits()
        }
        3 => (r.next() >> 12) | (r.below(2047) as u64) << 52, // any finite exponent
        4 => r.next() & 0x000F_FFFF_FFFF_FFFF,                // subnormals
        _ => (r.next() % (1 << 53)) as f64 as u64,            // bits of a small int, reinterpreted
    }
}

/// A number token in one of many valid spellings.
pub fn number(r: &mut Rng, out: &mut Vec<u8>) {
    let x = f64::from_bits(f64_bits(r));
    let x = if x.is_finite() { x } else { 1.0 };
    let text = match r.below(10) {
        0 => format!("{x:e}"),
        1 => format!("{x:E}"),
        2 => format!("{x:.20e}"),
        3 => format!("{x}"),
        4 => format!("{}", r.next() as i64 >> r.below(64)),
        5 => format!("{}", r.below(1000)),
        6 => {
            // Long digit strings, leading-zero exponents, explicit plus.
            let digits: String = (0..1 + r.below(40))
                .map(|i| {
                    let d = r.below(10) as u8;
                    (b'0' + if i == 0 && d == 0 { 1 } else { d }) as char
                })
                .collect();
            let frac = if r.one_in(2) {
                format!(".{}", r.below(100000))
            } else {
                String::new()
            };
            let exp = match r.below(4) {
                0 => String::new(),
                1 => format!("e+{:03}", r.below(400)),
                2 => format!("E-{}", r.below(400)),
                _ => format!("e{}", r.below(30)),
            };
            let sign = if r.one_in(3) { "-" } else { "" };
            format!("{sign}{digits}{frac}{exp}")
        }
        7 => r
            .pick(&[
                "-0", "0", "0.0", "-0.0", "0e0", "1E400", "-1e-400", "1e308", "2e308",
            ])
            .to_string(),
        8 => format!("{}", r.next() % (1 << 53)),
        _ => format!("{:.1$}", x, r.below(6)),
    };
    out.extend_from_slice(text.as_bytes());
}

const CHARS: &[&str] = &[
    "a",
    "b",
    "Z",
    "0",
    " ",
    "/",
    "é",
    "€",
    "\u{7f}",
    "\u{80}",
    "\u{ff}",
    "\u{2028}",
    "\u{e000}",
    "\u{fffd}",
    "\u{ffff}",
    "\u{10000}",
    "😀",
    "\u{10ffff}",
    "\u{1d11e}",
    "name",
    "tools",
];

const ESCAPES: &[&str] = &[
    "\\n",
    "\\\"",
    "\\\\",
    "\\/",
    "\\b",
    "\\f",
    "\\r",
    "\\t",
    "\\u0000",
    "\\u001f",
    "\\u0041",
    "\\u00e9",
    "\\u20ac",
    "\\ufffd",
    "\\uFFFF",
    "\\ue000",
    "\\ud83d\\ude00",
    "\\uD834\\uDD1E",
    "\\udbff\\udfff",
    "\\u006e\\u0061\\u006d\\u0065",
    "\\u2028",
];

/// A string token (quotes included).
pub fn string(r: &mut Rng, out: &mut Vec<u8>) {
    out.push(b'"');
    for _ in 0..r.below(6) {
        if r.one_in(3) {
            out.extend_from_slice(r.pick(ESCAPES).as_bytes());
        } else {
            out.extend_from_slice(r.pick(CHARS).as_bytes());
        }
    }
    out.push(b'"');
}

/// Keys chosen from a small set, so equal keys and UTF-16 ordering corners
/// (U+E000..U+FFFF against supplementary characters) come up often.
const KEYS: &[&str] = &[
    "a",
    "b",
    "aa",
    "A",
    "",
    "name",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "\u{e000}",
    "\u{ffff}",
    "😀",
    "\u{10000}",
    "é",
    "tools",
    "result",
    "error",
    "title",
    "_meta",
];

fn key(r: &mut Rng, out: &mut Vec<u8>) {
    if r.one_in(8) {
        string(r, out);
        return;
    }
    let k = *r.pick(KEYS);
    out.push(b'"');
    if r.one_in(6) && !k.is_empty() {
        // Escape the first character: equal after unescaping.
        let c = k.chars().next().unwrap();
        let mut units = [0u16; 2];
        for u in c.encode_utf16(&mut units) {
            out.extend_from_slice(format!("\\u{u:04x}").as_bytes());
        }
        out.extend_from_slice(&k.as_bytes()[c.len_utf8()..]);
    } else {
        out.extend_from_slice(k.as_bytes());
    }
    out.push(b'"');
}

/// A JSON value (valid unless a generated key repeats in one object).
pub fn value(r: &mut Rng, depth: usize, out: &mut Vec<u8>) {
    let scalar_only = depth == 0;
    match r.below(if scalar_only { 6 } else { 9 }) {
        0 => out.extend_from_slice(b"null"),
        1 => out.extend_from_slice(if r.one_in(2) { b"true" } else { b"false" }),
        2 | 3 => number(r, out),
        4 | 5 => string(r, out),
        6 | 7 => {
            out.push(b'{');
            let n = r.below(5);
            let mut used: Vec<Vec<u8>> = Vec::new();
            for i in 0..n {
                if i > 0 {
                    out.push(b',');
                }
                ws(r, out);
                let mut k = Vec::new();
                key(r, &mut k);
                // Mostly distinct keys (a repeat makes the document invalid).
                if used.contains(&k) && !r.one_in(10) {
                    k = format!("\"k{i}\"").into_bytes();
                }
                used.push(k.clone());
                out.extend_from_slice(&k);
                ws(r, out);
                out.push(b':');
                ws(r, out);
                value(r, depth - 1, out);
                ws(r, out);
            }
            out.push(b'}');
        }
        _ => {
            out.push(b'[');
            for i in 0..r.below(5) {
                if i > 0 {
                    out.push(b',');
                }
                ws(r, out);
                value(r, depth - 1, out);
                ws(r, out);
            }
            out.push(b']');
        }
    }
}

/// A whole document, with leading and trailing whitespace.
pub fn document(r: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    ws(r, &mut out);
    let depth = r.below(6);
    value(r, depth, &mut out);
    ws(r, &mut out);
    out
}

/// Bytes that make parsers stumble.
const NASTY: &[u8] = &[
    b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b'-', b'+', b'.', b'e', b'0', b'1', b'u',
    b'n', b't', b' ', 0x00, 0x1f, 0x7f, 0x80, 0xbf, 0xc0, 0xc2, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5,
    0xff,
];

/// A few random edits: flips, insertions, deletions, truncation, splices.
pub fn mutate(r: &mut Rng, doc: &mut Vec<u8>) {
    for _ in 0..1 + r.below(3) {
        let len = doc.len();
        match r.below(7) {
            0 if len > 0 => {
                let i = r.below(len);
                doc[i] ^= 1 << r.below(8);
            }
            1 => {
                let i = r.below(len + 1);
                doc.insert(i, *r.pick(NASTY));
            }
            2 if len > 0 => {
                doc.remove(r.below(len));
            }
            3 if len > 0 => doc.truncate(r.below(len)),
            4 if len > 0 => {
                let i = r.below(len);
                let j = i + r.below(len - i + 1);
                let piece = doc[i..j].to_vec();
                let at = r.below(len + 1);
                doc.splice(at..at, piece);
            }
            5 if len > 0 => {
                let i = r.below(len);
                doc[i] = *r.pick(NASTY);
            }
            _ => {
                let i = r.below(len + 1);
                doc.splice(i..i, r.pick(ESCAPES).bytes());
            }
        }
    }
}

const TOOL_NAMES: &[&str] = &[
    "search",
    "read_file",
    "a",
    "b",
    "\u{e000}",
    "😀",
    "\u{ffff}",
    "\u{10000}",
    "",
    "x y",
    "\\u0061",
    "tool\\n",
    "dup",
];

/// One tool object, sometimes malformed.
pub fn tool(r: &mut Rng, out: &mut Vec<u8>) {
    if r.one_in(25) {
        value(r, 1, out); // probably not a tool
        return;
    }
    let mut members: Vec<Vec<u8>> = Vec::new();
    match r.below(12) {
        0 => {} // no name
        1 => members.push(b"\"name\":42".to_vec()),
        2 => members.push(b"\"name\":null".to_vec()),
        3 => members.push(b"\"\\u006eame\":\"escaped-key\"".to_vec()),
        _ => members.push(format!("\"name\":\"{}\"", r.pick(TOOL_NAMES)).into_bytes()),
    }
    for field in [
        "description",
        "inputSchema",
        "outputSchema",
        "annotations",
        "title",
        "_meta",
    ] {
        match r.below(4) {
            0 => {}
            1 => members.push(format!("\"{field}\":null").into_bytes()),
            _ => {
                let mut m = format!("\"{field}\":").into_bytes();
                value(r, 3, &mut m);
                members.push(m);
            }
        }
    }
    // A member that the list reader keeps as nodes inside a tool: its
    // elements look like tools but are not the list's (`contract::stream`
    // must not take them for tools).
    if r.one_in(8) {
        let key = if r.one_in(2) { "tools" } else { "result" };
        let mut m = format!(
            "\"{key}\":[{{\"name\":\"{}\",\"inputSchema\":",
            r.pick(TOOL_NAMES)
        )
        .into_bytes();
        value(r, 2, &mut m);
        m.extend_from_slice(b"}]");
        members.push(m);
    }
    // Shuffle the member order.
    for i in (1..members.len()).rev() {
        members.swap(i, r.below(i + 1));
    }
    out.push(b'{');
    for (i, m) in members.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        ws(r, out);
        out.extend_from_slice(m);
    }
    out.push(b'}');
}

fn tools_array(r: &mut Rng, out: &mut Vec<u8>) {
    out.push(b'[');
    for i in 0..r.below(5) {
        if i > 0 {
            out.push(b',');
        }
        tool(r, out);
    }
    out.push(b']');
}

fn page(r: &mut Rng, out: &mut Vec<u8>) {
    match r.below(8) {
        0 => out.extend_from_slice(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32603,\"message\":\"x\"}}",
        ),
        1 | 2 => {
            out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":");
            tools_array(r, out);
            out.extend_from_slice(b",\"nextCursor\":\"c\"}}");
        }
        3 => out.extend_from_slice(b"{\"result\":[]}"),
        _ => {
            out.extend_from_slice(b"{\"tools\":");
            tools_array(r, out);
            if r.one_in(2) {
                out.extend_from_slice(b",\"nextCursor\":null");
            }
            // A second list beside the first: `not-tools-list`.
            if r.one_in(16) {
                out.extend_from_slice(b",\"result\":{\"tools\":");
                tools_array(r, out);
                out.push(b'}');
            }
            out.push(b'}');
        }
    }
}

/// A tools/list in one of the SPEC.md section 6 shapes (or almost).
pub fn tools_list(r: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    match r.below(5) {
        0 => tools_array(r, &mut out),
        1 | 2 => page(r, &mut out),
        3 => {
            out.push(b'[');
            for i in 0..1 + r.below(3) {
                if i > 0 {
                    out.push(b',');
                }
                page(r, &mut out);
            }
            out.push(b']');
        }
        _ => value(r, 3, &mut out),
    }
    out
}
