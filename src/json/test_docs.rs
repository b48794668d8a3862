//! Seeded JSON documents for the parser's tests (the tape builder over the
//! index, the one-pass canonicalizer): random nesting, whitespace, escapes,
//! number spellings and keys (out of order, sharing long prefixes, equal
//! under different spellings), and damaging edits; and the committed test
//! files.

use crate::test_rng::{Rng, STEP};
use std::vec::Vec;

const WS: &[&str] = &["", "", "", " ", "\n", "\t", "\r\n  ", "    "];
const TEXT: &[&str] = &[
    "a",
    "plain text ",
    "é",
    "€",
    "😀",
    "中文",
    "\\n",
    "\\\"",
    "\\\\",
    "\\/",
    "\\u00e9",
    "\\ud83d\\ude00",
    "\\u2028",
    "\\\\\\\"",
    "Ж",
    "\u{e000}",
    "0123456789abcdef",
    "\\t",
];
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-12",
    "1.5",
    "-0.0",
    "1e21",
    "5e-324",
    "2.5E+10",
    "123456789012345678",
    "0.000001",
    "1.7976931348623157e308",
];

/// Keys that sort in UTF-16 order unlike code-point order, share their
/// first eight bytes, or are equal under different spellings.
const KEYS: &[&str] = &[
    "a",
    "\\u0061",
    "b",
    "ab",
    "abcdefgh",
    "abcdefghi",
    "abcdefghij",
    "abcdefgh\\u0069",
    "\u{e000}",
    "\u{ff21}",
    "😀",
    "\\ud83d\\ude00",
    "10",
    "9",
    "",
    "name",
    "tools",
    "result",
    "description",
    "inputSchema",
];

/// An object key: a random string, or one of [`KEYS`].
fn key(r: &mut Rng, out: &mut Vec<u8>) {
    if r.below(2) == 0 {
        out.push(b'"');
        out.extend_from_slice(r.pick(KEYS).as_bytes());
        out.push(b'"');
    } else {
        string(r, out);
    }
}

fn string(r: &mut Rng, out: &mut Vec<u8>) {
    out.push(b'"');
    for _ in 0..r.below(12) {
        out.extend_from_slice(r.pick(TEXT).as_bytes());
    }
    out.push(b'"');
}

pub(crate) fn value(r: &mut Rng, depth: usize, out: &mut Vec<u8>) {
    out.extend_from_slice(r.pick(WS).as_bytes());
    match if depth > 5 { r.below(4) } else { r.below(7) } {
        0 => string(r, out),
        1 => out.extend_from_slice(r.pick(NUMBERS).as_bytes()),
        2 => out.extend_from_slice(r.pick(&["true", "false", "null"]).as_bytes()),
        3 => string(r, out),
        4 | 5 => {
            out.push(b'{');
            // Now and then more members than the small sorts take.
            let members = if r.below(8) == 0 {
                r.below(21)
            } else {
                r.below(6)
            };
            for i in 0..members {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(r.pick(WS).as_bytes());
                key(r, out);
                out.extend_from_slice(r.pick(WS).as_bytes());
                out.push(b':');
                value(r, depth + 1, out);
            }
            out.extend_from_slice(r.pick(WS).as_bytes());
            out.push(b'}');
        }
        _ => {
            out.push(b'[');
            for i in 0..r.below(6) {
                if i > 0 {
                    out.push(b',');
                }
                value(r, depth + 1, out);
            }
            out.extend_from_slice(r.pick(WS).as_bytes());
            out.push(b']');
        }
    }
    out.extend_from_slice(r.pick(WS).as_bytes());
}

/// One damaging edit: a byte replaced, inserted or removed, or a cut.
pub(crate) fn mutate(r: &mut Rng, doc: &mut Vec<u8>) {
    const BYTES: &[u8] = b"\"\\{}[],: \t\n\x00\x01\x1f\x7f\x80\xc3\xa9\xed\xf4\xff0-.eEtnfu";
    if doc.is_empty() {
        return;
    }
    let at = r.below(doc.len());
    match r.below(4) {
        0 => doc[at] = *r.pick(BYTES),
        1 => doc.insert(at, *r.pick(BYTES)),
        2 => {
            doc.remove(at);
        }
        _ => doc.truncate(at),
    }
}

/// Calls `check` on `rounds` generated documents, each also damaged by one to
/// three edits: leading padding of 0 to 66 spaces moves the tokens across the
/// 64-byte block edges.
pub(crate) fn generated_and_mutated(seed: u64, rounds: usize, mut check: impl FnMut(&[u8])) {
    let mut r = Rng(seed);
    for round in 0..rounds {
        let mut doc = Vec::new();
        doc.extend(std::iter::repeat_n(b' ', round % 67));
        value(&mut r, 0, &mut doc);
        check(&doc);
        for _ in 0..1 + r.below(3) {
            mutate(&mut r, &mut doc);
        }
        check(&doc);
    }
}

/// Calls `check` on every JSONTestSuite parsing file and RFC 8785 input
/// under `vectors/`, then on every conformance vector's input (under Miri,
/// one in [`STEP`]); fails when fewer are found than are committed.
pub(crate) fn suite_files(mut check: impl FnMut(&[u8])) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors");
    let files: Vec<std::path::PathBuf> = ["JSONTestSuite/test_parsing", "rfc8785-testdata/input"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(root.join(dir)).unwrap())
        .map(|entry| entry.unwrap().path())
        .collect();
    assert!(
        files.len() >= 318,
        "only {} files under vectors/",
        files.len()
    );
    for path in files.iter().step_by(STEP) {
        check(&std::fs::read(path).unwrap());
    }
    let vectors = crate::test_vectors::vectors();
    assert!(
        vectors.len() >= 290,
        "only {} lines in vectors/vectors.tsv",
        vectors.len()
    );
    for vector in vectors.iter().step_by(STEP) {
        check(&vector.input);
    }
}
