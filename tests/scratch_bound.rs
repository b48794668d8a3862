//! `json::scratch_needed` is a sufficient scratch size for every input, and
//! parsing into exactly that much caller scratch gives the same verdict and
//! the same canonical bytes as the growable (alloc) path.

#[path = "support/rng.rs"]
mod rng;
use rng::Rng;

use contractpin::json::{self, Node};
use contractpin::{canonicalize, canonicalize_into, ErrorKind, Limits};

const PIECES: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"\"",
    b"\"a\"",
    b"\"\\u0041\"",
    b"\"\\\"\"",
    b"\\",
    b"1",
    b"-0",
    b"1e5",
    b"1.5",
    b"true",
    b"fals",
    b"null",
    b" ",
    b"\n",
    b"\xc3\xa9",
    b"\xff",
    b"e",
    b"x",
    b"\"k\":",
    b"0",
    b"\"\\ud83d\\ude00\"",
];

fn random_doc(rng: &mut Rng) -> Vec<u8> {
    let mut doc = Vec::new();
    for _ in 0..rng.below(24) {
        doc.extend_from_slice(PIECES[rng.below(PIECES.len())]);
    }
    doc
}

#[test]
fn scratch_needed_always_suffices_and_agrees_with_alloc_path() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut accepted = 0;
    for _ in 0..200_000 {
        let doc = random_doc(&mut rng);
        let needed = json::scratch_needed(&doc);
        let mut scratch = vec![Node::EMPTY; needed];
        let mut out = vec![0u8; doc.len() * 8 + 64];
        let fixed = canonicalize_into(&doc, &mut scratch, &Limits::DEFAULT, &mut out);
        if let Err(e) = fixed {
            assert_ne!(
                e.kind(),
                ErrorKind::ScratchTooSmall,
                "{:?}",
                String::from_utf8_lossy(&doc)
            );
        }
        let grown = canonicalize(&doc);
        match (fixed, grown) {
            (Ok(n), Ok(v)) => {
                accepted += 1;
                assert_eq!(&out[..n], &v[..]);
            }
            (Err(a), Err(b)) => assert_eq!(a, b),
            (a, b) => panic!(
                "paths disagree on {:?}: {a:?} vs {b:?}",
                String::from_utf8_lossy(&doc)
            ),
        }
    }
    // The generator must produce a fair number of valid documents, or this test proves little.
    assert!(accepted > 3_000, "only {accepted} accepted");
}

#[test]
fn one_node_short_reports_the_needed_count() {
    let doc = br#"{"a":[1,2,{"b":null}],"c":"\u00e9"}"#;
    let needed = json::scratch_needed(doc);
    assert_eq!(needed, 10);
    let mut scratch = vec![Node::EMPTY; needed - 1];
    let err = json::parse(doc, &mut scratch, &Limits::DEFAULT).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ScratchTooSmall);
    assert_eq!(err.needed(), 10);
}
