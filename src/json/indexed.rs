//! The fast parser: the tape built from the structural index
//! ([`super::index`]), for input that is valid JSON.
//!
//! It follows the same grammar as the exact parser (`parser::parse_exact`),
//! but steps from structural byte to structural byte instead of over every
//! byte: whitespace and string bodies are never looked at one by one, and
//! what must come next (a colon after a key, a key after `{` or an object's
//! comma) is read on the spot instead of through a state variable. What
//! remains per token:
//!
//! - strings: the closing quote comes from the index; only a body that holds
//!   a backslash is walked, escape by escape; control characters inside
//!   strings are flagged by the index, and UTF-8 is validated with the
//!   index by the AVX2 classifier, or for the whole input at once before it
//!   (outside strings any byte of 0x80 and above starts or continues a run
//!   the grammar rejects, and an accepted document ends in an ASCII byte, as
//!   the AVX2 check requires);
//! - numbers and literals: scanned as before, and the byte after each must
//!   end the run (whitespace, `{}[],:`, `"`, or the end).
//!
//! It produces exactly the exact parser's tape or gives up: `false` for any
//! error, at which point the exact parser runs from the start and reports it.
//! The tests below hold the two to the same verdicts and tapes.

use crate::arch::Classifier;

use super::index::Index;
use super::number_token::scan_number;
use super::parser::{close_container, push_key, run_ends, Store};
use super::string_scan::scan_escape;
use super::tape::{Node, Tag, NO_PARENT};

/// Parses valid `input` into `store` over the structural index; `false`
/// (with the store in any state) for invalid input or when `store` is full
/// or nesting goes past `max_depth`. `containers` decides which arrays and
/// objects become nodes ([`Nodes`]: all of them).
pub(crate) fn parse_valid<S: Store, C: Containers>(
    input: &[u8],
    store: &mut S,
    max_depth: u32,
    classifier: Classifier,
    containers: &mut C,
) -> bool {
    store.clear();
    (classifier.checks_utf8 || core::str::from_utf8(input).is_ok())
        && build(input, store, max_depth, classifier, containers).is_some()
}

/// Where a container value sits, for [`Containers::collapse`].
#[cfg_attr(not(feature = "alloc"), allow(dead_code))]
#[derive(Clone, Copy, Debug)]
pub(crate) enum Place<'n> {
    /// The document's top-level value.
    Root,
    /// An element of an array.
    Element,
    /// The value of the member whose key node is this. Its text is valid
    /// (escapes, UTF-8, no control characters): the builder checks the
    /// index is clean before it hands one out.
    Member(&'n Node),
}

/// What the tape builder does with each array or object value: parse it
/// into nodes, or hand it whole to the one-pass canonicalizer
/// (`json::onepass`) and keep one collapsed node (see `json::tape`).
pub(crate) trait Containers {
    /// For the container whose bracket is at `pos` (just handed out by
    /// `index`), at `place`, with `max_depth` levels left counting itself:
    /// `Ok(None)` to parse it into nodes; `Ok(Some((at, len)))` when it has
    /// been canonicalized (the index read up to its closing bracket) into
    /// bytes `at..at + len` of the canonicalizer's buffer; `Err(())` to give
    /// up, as for invalid input.
    fn collapse(
        &mut self,
        input: &[u8],
        index: &mut Index,
        pos: usize,
        place: Place<'_>,
        max_depth: u32,
    ) -> Result<Option<(usize, usize)>, ()>;

    /// The array or object at tape index `at` (one that became nodes) has
    /// just closed: its nodes, and those below it, are final.
    #[inline(always)]
    fn closed(&mut self, _input: &[u8], _nodes: &[Node], _at: usize) {}
}

/// The plain tape: every container becomes nodes.
pub(crate) struct Nodes;

impl Containers for Nodes {
    #[inline(always)]
    fn collapse(
        &mut self,
        _: &[u8],
        _: &mut Index,
        _: usize,
        _: Place<'_>,
        _: u32,
    ) -> Result<Option<(usize, usize)>, ()> {
        Ok(None)
    }
}

/// The node of the literal `word` at `pos`, if it is one.
#[inline(always)]
fn literal(input: &[u8], pos: usize, word: &[u8], tag: Tag, parent: u32) -> Option<Node> {
    let end = pos + word.len();
    (input.get(pos..end) == Some(word) && run_ends(input, end))
        .then(|| Node::new(tag, false, pos, word.len(), parent))
}

/// The node of the string whose opening quote is at `open`: the index
/// hands out each escape's backslash, then the closing quote.
#[inline(always)]
fn string(input: &[u8], index: &mut Index, open: usize, parent: u32) -> Option<Node> {
    let mut at = index.next()?;
    let escaped = input[at] == b'\\';
    while input[at] == b'\\' {
        let (next, _) = scan_escape(input, at).ok()?;
        // A surrogate pair's second backslash is inside the escape just read.
        while at < next {
            at = index.next()?;
        }
    }
    Some(Node::new(
        Tag::String,
        escaped,
        open + 1,
        at - open - 1,
        parent,
    ))
}

/// The key whose opening quote is at `open`, in the open object `cur` at
/// tape index `count`, and the colon after it.
#[inline(always)]
fn key<S: Store>(
    input: &[u8],
    index: &mut Index,
    store: &mut S,
    open: usize,
    cur: u32,
    count: usize,
) -> Option<()> {
    if input[open] != b'"' {
        return None;
    }
    let key = string(input, index, open, cur)?;
    if !push_key(store, key, cur, count) {
        return None;
    }
    (input[index.next()?] == b':').then_some(())
}

/// The tape builder; `None` gives up.
fn build<S: Store, C: Containers>(
    input: &[u8],
    store: &mut S,
    max_depth: u32,
    classifier: Classifier,
    containers: &mut C,
) -> Option<()> {
    let mut index = Index::new(input, classifier);
    let mut cur = NO_PARENT;
    let mut depth = 0u32;
    let mut count = 0usize;
    // Whether `cur` is an object (not an array).
    let mut in_object = false;
    // `pos` is always the first byte of a value here.
    let mut pos = index.next()?;
    'value: loop {
        let b = input[pos];
        let node = match b {
            b'{' | b'[' => {
                if depth >= max_depth {
                    return None;
                }
                let tag = if b == b'{' { Tag::Object } else { Tag::Array };
                let place = match (cur, in_object) {
                    (NO_PARENT, _) => Place::Root,
                    // The callback may read the key's text: every byte of it
                    // has been classified by now, and must have passed.
                    (_, true) if !index.clean() => return None,
                    (_, true) => Place::Member(&store.nodes()[count - 1]),
                    (_, false) => Place::Element,
                };
                let collapsed =
                    containers.collapse(input, &mut index, pos, place, max_depth - depth);
                if let Some((at, len)) = collapsed.ok()? {
                    Some(Node::collapsed(tag, pos, at, len, cur))
                } else {
                    depth += 1;
                    if !store.push(Node::new(tag, false, pos, 0, cur)) {
                        return None;
                    }
                    cur = count as u32;
                    count += 1;
                    in_object = b == b'{';
                    let next = index.next()?;
                    match (b, input[next]) {
                        (b'{', b'}') | (b'[', b']') => None,
                        (b'{', _) => {
                            key(input, &mut index, store, next, cur, count)?;
                            count += 1;
                            pos = index.next()?;
                            continue 'value;
                        }
                        _ => {
                            pos = next;
                            continue 'value;
                        }
                    }
                }
            }
            b'"' => Some(string(input, &mut index, pos, cur)?),
            b'-' | b'0'..=b'9' => {
                let n = scan_number(input, pos).ok()?;
                if !run_ends(input, n.end) {
                    return None;
                }
                Some(Node::new(Tag::Number, n.canonical(), pos, n.end - pos, cur))
            }
            b't' => Some(literal(input, pos, b"true", Tag::True, cur)?),
            b'f' => Some(literal(input, pos, b"false", Tag::False, cur)?),
            b'n' => Some(literal(input, pos, b"null", Tag::Null, cur)?),
            _ => return None,
        };
        // `None`: an empty container was just opened, and closes now.
        let mut closing = node.is_none();
        if let Some(node) = node {
            if !store.push(node) {
                return None;
            }
            count += 1;
        }
        // After a value: close containers until one goes on.
        loop {
            if closing {
                // The key sort needs valid text: every byte before the
                // closing bracket has been classified (and checked) by now.
                if !index.clean() {
                    return None;
                }
                let closed = cur as usize;
                cur = close_container(input, store.nodes(), cur, count).ok()?;
                containers.closed(input, store.nodes(), closed);
                depth -= 1;
                if cur == NO_PARENT {
                    break 'value;
                }
                in_object = store.nodes()[cur as usize].tag() == Tag::Object;
            }
            if cur == NO_PARENT {
                break 'value;
            }
            let next = index.next()?;
            match (input[next], in_object) {
                (b',', true) => {
                    let open = index.next()?;
                    key(input, &mut index, store, open, cur, count)?;
                    count += 1;
                    pos = index.next()?;
                    continue 'value;
                }
                (b',', false) => {
                    pos = index.next()?;
                    continue 'value;
                }
                (b'}', true) | (b']', false) => closing = true,
                _ => return None,
            }
        }
    }
    // Nothing but whitespace may follow, and no string held a control
    // character or invalid UTF-8.
    (index.next().is_none() && index.clean()).then_some(())
}

#[cfg(test)]
mod tests {
    use super::super::parser::parse_exact;
    use super::*;
    use crate::limits::Limits;
    use std::vec::Vec;

    /// Holds the fast path to the exact parser on `input`, with every
    /// classifier: it accepts exactly what the exact parser accepts (within
    /// the default limits), with the same tape.
    fn check(input: &[u8]) {
        let mut exact = Vec::new();
        let verdict = parse_exact(input, &mut exact, &Limits::DEFAULT);
        for (name, classifier) in crate::arch::parser_test_classifiers() {
            let mut fast = Vec::new();
            let ok = parse_valid(
                input,
                &mut fast,
                Limits::DEFAULT.max_depth,
                classifier,
                &mut Nodes,
            );
            let shown = || std::string::String::from_utf8_lossy(input).into_owned();
            assert_eq!(ok, verdict.is_ok(), "{name}: {verdict:?} on {:?}", shown());
            if ok {
                assert_eq!(fast, exact, "{name}: tapes differ on {:?}", shown());
            }
        }
    }

    use super::super::test_docs::generated_and_mutated;

    #[test]
    fn generated_and_mutated_documents() {
        generated_and_mutated(0x0bad_cafe_1234_5678, crate::test_rng::rounds(6_000), check);
    }

    #[test]
    fn tokens_on_block_edges() {
        for pad in (50..140).step_by(crate::test_rng::STEP) {
            let fill = "x".repeat(pad);
            for doc in [
                std::format!("[\"{fill}\",\"\\\\\\\"\",\"é€😀\"]"),
                std::format!("{{\"{fill}\":[1,-2.5e3,true,false,null,\"\\ud83d\\ude00\"]}}"),
                std::format!("{:pad$}[1 ,2] ", ""),
                std::format!("{:pad$}[tru]", ""),
                std::format!("{:pad$}[1x]", ""),
                std::format!("{:pad$}[\"a\u{1}\"]", ""),
                std::format!("{:pad$}[\"\\x\"]", ""),
                std::format!("{:pad$}[\"\\u12\"]", ""),
                std::format!("{:pad$}[\"\\ud800\"]", ""),
                std::format!("[\"{fill}\\\"]"),
                std::format!("{:pad$}{{\"a\":1,\"a\":2}}", ""),
                std::format!("{:pad$}\"open", ""),
            ] {
                check(doc.as_bytes());
            }
        }
    }

    /// Every input of the JSONTestSuite, the RFC 8785 test data and the
    /// conformance vectors (`vectors/vectors.tsv`): with the same tape, the
    /// index gives the same canonical bytes and digests as the exact parser,
    /// so on a target where only this test runs the index (the big-endian
    /// s390x run of `scripts/test-cross.sh`), the vectors hold for it too.
    #[test]
    #[cfg_attr(
        miri,
        ignore = "the same files go through the index in json::onepass's test, which Miri runs"
    )]
    fn jsontestsuite_and_conformance_files() {
        super::super::test_docs::suite_files(check);
    }

    /// Reads each member's key text in `collapse`, as the tools-list shape
    /// does (`contract::tools_list`), and insists it is valid.
    struct ReadsKeys;

    impl Containers for ReadsKeys {
        fn collapse(
            &mut self,
            input: &[u8],
            _: &mut Index,
            _: usize,
            place: Place<'_>,
            _: u32,
        ) -> Result<Option<(usize, usize)>, ()> {
            if let Place::Member(key) = place {
                let raw = &input[key.start()..key.start() + key.value()];
                let text = core::str::from_utf8(raw).expect("a key handed out is valid UTF-8");
                if key.flag() {
                    let _ = super::super::unescape::decoded_eq(raw, text.as_bytes());
                }
            }
            Ok(None)
        }
    }

    /// A key with invalid UTF-8 before an object or array value: the
    /// builder gives up before it hands the key out (found by the `writer`
    /// fuzz target: `next_code_point` read past a truncated sequence).
    #[test]
    fn keys_are_checked_before_a_container_reads_them() {
        for doc in [
            &b"{\"\\u0074o\xf4\":{}}"[..],
            b"{\"a\xf4s\":[1]}",
            b"{\"\xc3\":{\"b\":2}}",
            b"[{\"k\xe2\x82\":{}}]",
        ] {
            for (name, classifier) in crate::arch::parser_test_classifiers() {
                let mut nodes = Vec::new();
                let ok = parse_valid(doc, &mut nodes, 64, classifier, &mut ReadsKeys);
                assert!(!ok, "{name} accepted {doc:?}");
            }
            check(doc);
        }
    }

    #[test]
    fn limits_make_the_fast_path_give_up() {
        let mut nodes = Vec::new();
        let classify = crate::arch::classifier();
        assert!(parse_valid(b"[[1]]", &mut nodes, 2, classify, &mut Nodes));
        assert!(!parse_valid(
            b"[[[1]]]", &mut nodes, 2, classify, &mut Nodes
        ));
        let mut scratch = [Node::EMPTY; 2];
        let mut store = super::super::parser::SliceStore {
            buf: &mut scratch,
            len: 0,
        };
        assert!(!parse_valid(b"[1,2]", &mut store, 8, classify, &mut Nodes));
        assert!(parse_valid(b"[1]", &mut store, 8, classify, &mut Nodes));
    }
}
