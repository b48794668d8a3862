//! The strict, iterative parser: bytes in, tape out. No recursion; nesting
//! state lives in the tape itself (each open container's `parent` field), so
//! any depth is safe and the only memory is the node store.

use crate::error::{Error, ErrorKind};
use crate::limits::Limits;

use super::key_sort::{find_adjacent_equal, sort_list, END};
use super::number_token::scan_number;
use super::string_scan::scan_string;
use super::tape::{Node, Tag, NO_PARENT};

/// Where parsed nodes go: caller scratch (fixed) or, with `alloc`, a `Vec`.
pub(crate) trait Store {
    /// The nodes pushed so far.
    fn nodes(&mut self) -> &mut [Node];
    /// Appends a node; `false` when there is no room.
    fn push(&mut self, node: Node) -> bool;
    /// Forgets all nodes.
    fn clear(&mut self);
}

/// A fixed slice of caller-provided scratch nodes.
pub(crate) struct SliceStore<'a> {
    pub buf: &'a mut [Node],
    pub len: usize,
}

impl Store for SliceStore<'_> {
    #[inline]
    fn nodes(&mut self) -> &mut [Node] {
        &mut self.buf[..self.len]
    }
    #[inline]
    fn push(&mut self, node: Node) -> bool {
        match self.buf.get_mut(self.len) {
            Some(slot) => {
                *slot = node;
                self.len += 1;
                true
            }
            None => false,
        }
    }
    fn clear(&mut self) {
        self.len = 0;
    }
}

#[cfg(feature = "alloc")]
impl Store for alloc::vec::Vec<Node> {
    #[inline]
    fn nodes(&mut self) -> &mut [Node] {
        self
    }
    #[inline]
    fn push(&mut self, node: Node) -> bool {
        alloc::vec::Vec::push(self, node);
        true
    }
    fn clear(&mut self) {
        alloc::vec::Vec::clear(self)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
    /// A value is required.
    Value,
    /// Just after `[`: a value or `]`.
    ValueOrClose,
    /// Just after `{`: a key or `}`.
    KeyOrClose,
    /// After a `,` in an object: a key.
    Key,
    /// After a key: `:`.
    Colon,
    /// After a value inside a container: `,` or the closing bracket.
    CommaOrClose,
}

#[inline]
pub(crate) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The bytes that may follow a number or literal token: whitespace, the
/// structurals and the quote, one bit each.
const RUN_END: u128 = {
    let mut mask = 0u128;
    let ends = b" \t\n\r,:[]{}\"";
    let mut i = 0;
    while i < ends.len() {
        mask |= 1 << ends[i];
        i += 1;
    }
    mask
};

/// Whether the number or literal that ended at `end` is a whole run: the
/// next byte is whitespace, structural, a quote, or there is none (the
/// index-driven parsers check this; the exact one reads the next token).
/// One bit test: a `match` on the eleven bytes compiled to a jump table.
#[inline(always)]
pub(super) fn run_ends(input: &[u8], end: usize) -> bool {
    input
        .get(end)
        .is_none_or(|&c| c < 128 && (RUN_END >> c) & 1 != 0)
}

fn literal(input: &[u8], pos: usize, word: &[u8]) -> Result<usize, Error> {
    for (k, &w) in word.iter().enumerate() {
        match input.get(pos + k) {
            None => return Err(Error::new(ErrorKind::UnexpectedEnd, input.len())),
            Some(&c) if c != w => return Err(Error::new(ErrorKind::UnexpectedByte, pos + k)),
            Some(_) => {}
        }
    }
    Ok(pos + word.len())
}

/// Appends the key node `key` of the open object `cur` at tape index
/// `count`, and links it to the end of the object's key list (the object's
/// `link` holds the tail while it is open). `false` when the store is full.
#[inline(always)]
pub(super) fn push_key<S: Store>(store: &mut S, key: Node, cur: u32, count: usize) -> bool {
    if !store.push(key) {
        return false;
    }
    let index = count as u32;
    let nodes = store.nodes();
    let tail = nodes[cur as usize].link;
    if tail != END {
        nodes[tail as usize].link = index;
    }
    nodes[cur as usize].link = index;
    true
}

/// Closes the container `cur`, whose subtree ends before tape index `count`:
/// records the end and, for an object, sorts its keys into canonical order
/// and rejects a duplicate. Returns the parent's index.
#[inline(always)]
pub(super) fn close_container(
    input: &[u8],
    nodes: &mut [Node],
    cur: u32,
    count: usize,
) -> Result<u32, Error> {
    let node = &mut nodes[cur as usize];
    node.set_value(count);
    if node.tag() == Tag::Object {
        let head = if node.link != END { cur + 1 } else { END };
        let (sorted, maybe_equal) = sort_list(input, nodes, head);
        nodes[cur as usize].link = sorted;
        if maybe_equal {
            if let Some((a, b)) = find_adjacent_equal(input, nodes, sorted) {
                let later = nodes[a as usize].start().max(nodes[b as usize].start());
                return Err(Error::new(ErrorKind::DuplicateKey, later - 1));
            }
        }
    }
    Ok(nodes[cur as usize].parent)
}

/// Parses `input` into `store`. On success the store holds the tape, root at 0.
///
/// Valid input is parsed over the structural index (`json::indexed`); when
/// that path gives up (on any error, or input it cannot vouch for) the exact
/// byte-by-byte parser below runs from the start, so every error, kind and
/// offset comes from one place.
///
/// The index is used only where the block classifier validates UTF-8 too
/// (AVX2): with SSE2 or SWAR, the separate UTF-8 pass costs more than the
/// index saves (docs/PERFORMANCE.md), so the exact parser runs alone, except
/// in builds with `--cfg contractpin_portable_simd`, which run the index on
/// SWAR so that the tests cover it, and under Miri, which runs it on SSE2 so
/// that Miri checks the whole fast path (`scripts/miri-core.sh`).
pub(crate) fn parse_into<S: Store>(
    input: &[u8],
    store: &mut S,
    limits: &Limits,
) -> Result<(), Error> {
    if parse_fast(input, store, limits, &mut super::indexed::Nodes) {
        return Ok(());
    }
    parse_exact(input, store, limits)
}

/// The fast path of [`parse_into`] alone, with `containers` deciding which
/// arrays and objects become nodes: `true` when it parsed `input` (valid,
/// within the limits); `false` when the exact parser must run.
pub(crate) fn parse_fast<S: Store, C: super::indexed::Containers>(
    input: &[u8],
    store: &mut S,
    limits: &Limits,
    containers: &mut C,
) -> bool {
    let classifier = crate::arch::classifier();
    (classifier.checks_utf8 || cfg!(any(contractpin_portable_simd, miri)))
        && limits.accepts_len(input.len())
        && super::indexed::parse_valid(input, store, limits.max_depth, classifier, containers)
}

/// The exact parser: one byte at a time, the reference for every verdict
/// and every error of [`parse_into`].
pub(super) fn parse_exact<S: Store>(
    input: &[u8],
    store: &mut S,
    limits: &Limits,
) -> Result<(), Error> {
    store.clear();
    if !limits.accepts_len(input.len()) {
        return Err(Error::new(ErrorKind::SizeLimit, limits.input_cap()));
    }
    if input.starts_with(&[0xef, 0xbb, 0xbf]) {
        return Err(Error::new(ErrorKind::ByteOrderMark, 0));
    }
    let len = input.len();
    let full =
        |input: &[u8]| Error::with_needed(ErrorKind::ScratchTooSmall, 0, scratch_needed(input));
    let mut pos = 0usize;
    let mut cur = NO_PARENT;
    let mut depth = 0u32;
    let mut count = 0usize;
    let mut state = State::Value;
    'outer: loop {
        while pos < len && is_ws(input[pos]) {
            pos += 1;
        }
        if pos == len {
            return Err(Error::new(ErrorKind::UnexpectedEnd, len));
        }
        let b = input[pos];
        let mut close = false;
        match state {
            State::Colon => {
                if b != b':' {
                    return Err(Error::new(ErrorKind::UnexpectedByte, pos));
                }
                pos += 1;
                state = State::Value;
                continue;
            }
            State::CommaOrClose => {
                let is_object = store.nodes()[cur as usize].tag() == Tag::Object;
                match b {
                    b',' => {
                        pos += 1;
                        state = if is_object { State::Key } else { State::Value };
                        continue;
                    }
                    b']' if !is_object => close = true,
                    b'}' if is_object => close = true,
                    _ => return Err(Error::new(ErrorKind::UnexpectedByte, pos)),
                }
            }
            State::KeyOrClose | State::Key => {
                if b == b'}' && state == State::KeyOrClose {
                    close = true;
                } else if b != b'"' {
                    return Err(Error::new(ErrorKind::UnexpectedByte, pos));
                } else {
                    let s = scan_string(input, pos + 1)?;
                    let key = Node::new(Tag::String, s.escaped, pos + 1, s.end - pos - 1, cur);
                    if !push_key(store, key, cur, count) {
                        return Err(full(input));
                    }
                    count += 1;
                    pos = s.end + 1;
                    state = State::Colon;
                    continue;
                }
            }
            State::ValueOrClose => close = b == b']',
            State::Value => {}
        }
        if close {
            // Close the innermost container, then keep closing as long as the
            // parent is done too (handled by the loop: state becomes CommaOrClose).
            cur = close_container(input, store.nodes(), cur, count)?;
            depth -= 1;
            pos += 1;
            if cur == NO_PARENT {
                break 'outer;
            }
            state = State::CommaOrClose;
            continue;
        }
        // A value starts at `pos`.
        let node = match b {
            b'{' | b'[' => {
                if depth >= limits.max_depth {
                    return Err(Error::new(ErrorKind::DepthLimit, pos));
                }
                depth += 1;
                let tag = if b == b'{' { Tag::Object } else { Tag::Array };
                if !store.push(Node::new(tag, false, pos, 0, cur)) {
                    return Err(full(input));
                }
                cur = count as u32;
                count += 1;
                pos += 1;
                state = if b == b'{' {
                    State::KeyOrClose
                } else {
                    State::ValueOrClose
                };
                continue;
            }
            b'"' => {
                let s = scan_string(input, pos + 1)?;
                let node = Node::new(Tag::String, s.escaped, pos + 1, s.end - pos - 1, cur);
                pos = s.end + 1;
                node
            }
            b'-' | b'0'..=b'9' => {
                let n = scan_number(input, pos)?;
                let node = Node::new(Tag::Number, n.canonical(), pos, n.end - pos, cur);
                pos = n.end;
                node
            }
            b't' => {
                let start = pos;
                pos = literal(input, pos, b"true")?;
                Node::new(Tag::True, false, start, 4, cur)
            }
            b'f' => {
                let start = pos;
                pos = literal(input, pos, b"false")?;
                Node::new(Tag::False, false, start, 5, cur)
            }
            b'n' => {
                let start = pos;
                pos = literal(input, pos, b"null")?;
                Node::new(Tag::Null, false, start, 4, cur)
            }
            _ => return Err(Error::new(ErrorKind::UnexpectedByte, pos)),
        };
        if !store.push(node) {
            return Err(full(input));
        }
        count += 1;
        if cur == NO_PARENT {
            break;
        }
        state = State::CommaOrClose;
    }
    while pos < len && is_ws(input[pos]) {
        pos += 1;
    }
    if pos < len {
        return Err(Error::new(ErrorKind::TrailingData, pos));
    }
    Ok(())
}

/// The first index at or after `i` holding `"` or `\\`, or `input.len()`.
#[inline]
fn skip_to_quote_or_backslash(input: &[u8], i: usize) -> usize {
    crate::arch::find(input, i, crate::arch::Class::QuoteOrBackslash)
}

/// How many scratch nodes a parse of `input` needs: exact for valid JSON, and
/// enough for any input (parsing fails before using more).
///
/// One cheap lexical pass: it counts value and key tokens without checking syntax.
pub fn scratch_needed(input: &[u8]) -> usize {
    let mut count = 0usize;
    let mut i = 0usize;
    let len = input.len();
    while i < len {
        match input[i] {
            b'"' => {
                count += 1;
                i += 1;
                loop {
                    i = skip_to_quote_or_backslash(input, i);
                    if i < len && input[i] == b'\\' {
                        i += 2;
                    } else {
                        break;
                    }
                }
                i += 1;
            }
            b'{' | b'[' => {
                count += 1;
                i += 1;
            }
            b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => {
                count += 1;
                i += 1;
                while i < len
                    && matches!(input[i], b'0'..=b'9' | b'+' | b'-' | b'.' | b'e' | b'E' | b'a'..=b'z')
                {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    count.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bit mask against RFC 8259's whitespace and structural
    /// characters and the quote, for every byte.
    #[test]
    fn run_ends_on_every_byte() {
        for c in 0..=255u8 {
            let want = matches!(c, b' ' | b'\t' | b'\n' | b'\r') || b",:[]{}\"".contains(&c);
            assert_eq!(run_ends(&[b'1', c], 1), want, "byte {c:#04x}");
        }
        assert!(run_ends(b"1", 1), "the input's end");
    }

    /// The byte-at-a-time count `scratch_needed` must agree with.
    fn reference_count(input: &[u8]) -> usize {
        let mut count = 0usize;
        let mut i = 0usize;
        let len = input.len();
        while i < len {
            match input[i] {
                b'"' => {
                    count += 1;
                    i += 1;
                    while i < len && input[i] != b'"' {
                        i += if input[i] == b'\\' { 2 } else { 1 };
                    }
                    i += 1;
                }
                b'{' | b'[' => {
                    count += 1;
                    i += 1;
                }
                b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => {
                    count += 1;
                    i += 1;
                    while i < len
                        && matches!(input[i], b'0'..=b'9' | b'+' | b'-' | b'.' | b'e' | b'E' | b'a'..=b'z')
                    {
                        i += 1;
                    }
                }
                _ => i += 1,
            }
        }
        count.max(1)
    }

    #[test]
    fn scratch_needed_matches_the_byte_loop() {
        let alphabet = b"\"\\{[1a x,:xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";
        let mut state = 99u64;
        for round in 0..crate::test_rng::rounds(3000) {
            let len = round % 140;
            let input: std::vec::Vec<u8> = (0..len)
                .map(|_| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    alphabet[(state >> 33) as usize % alphabet.len()]
                })
                .collect();
            assert_eq!(scratch_needed(&input), reference_count(&input), "{input:?}");
        }
        let long = br#"{"a":"0123456789abcdef0123456789\"abcdef\\","b":[1,2,"x"]}"#;
        assert_eq!(scratch_needed(long), reference_count(long));
    }
}
