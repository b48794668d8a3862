//! The one reader of `vectors/vectors.tsv` for Rust tests: its lines (after
//! the `#` header) as six tab-separated columns, and the hex of its columns
//! (`-` is empty). The columns are described in the file's header line.
//!
//! Included by `#[path]` by `tests/conformance.rs` and by the library's own
//! unit tests (`json::indexed`).
#![allow(dead_code)]

use std::string::String;
use std::vec::Vec;

/// One line of the vector file.
pub struct Vector {
    pub name: String,
    pub mode: String,
    pub input: Vec<u8>,
    pub expected: String,
    pub digest: String,
    pub extra: String,
}

/// The bytes of a hex column; `-` is empty.
pub fn unhex(s: &str) -> Vec<u8> {
    if s == "-" {
        return Vec::new();
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// Every vector of `vectors/vectors.tsv`, in file order.
pub fn vectors() -> Vec<Vector> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors/vectors.tsv");
    let text = std::fs::read_to_string(&path).expect("vectors/vectors.tsv");
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|line| {
            let c: Vec<&str> = line.split('\t').collect();
            assert_eq!(c.len(), 6, "malformed line: {line}");
            Vector {
                name: c[0].into(),
                mode: c[1].into(),
                input: unhex(c[2]),
                expected: c[3].into(),
                digest: c[4].into(),
                extra: c[5].into(),
            }
        })
        .collect()
}
