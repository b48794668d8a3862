//! Sorting a linked list of string nodes (object keys, or tool names) into
//! UTF-16 code-unit order, in place, with O(1) extra memory and O(n log n)
//! comparisons: a bottom-up merge sort over the nodes' `link` fields.

use core::cmp::Ordering;

use super::tape::Node;
use super::unescape::cmp_utf16;

/// End-of-list marker for `link` (index 0 is the root, never in a list).
pub(crate) const END: u32 = 0;

/// The first (up to) eight bytes of an escape-free string node as a
/// big-endian word, bytes past its end zeroed; `None` near the end of input.
#[inline(always)]
fn prefix_word(input: &[u8], node: &Node) -> Option<u64> {
    let start = node.start();
    let bytes: [u8; 8] = input.get(start..start + 8)?.try_into().ok()?;
    let keep = 8 * node.value().min(8) as u32;
    Some(u64::from_be_bytes(bytes) & (!0u64).checked_shl(64 - keep).unwrap_or(0))
}

/// Orders two different prefix words the way `unescape::cmp_utf8_as_utf16` orders
/// the strings: by their first differing byte, except that a lead byte of
/// U+E000..U+FFFF (0xEE, 0xEF) sorts after a supplementary one (0xF0..0xF4).
/// A zeroed byte (past the end of the shorter string) sorts first: raw string
/// content never holds a NUL byte.
#[inline(always)]
fn cmp_words(a: u64, b: u64) -> Ordering {
    let shift = 56 - ((a ^ b).leading_zeros() & !7);
    let (x, y) = ((a >> shift) as u8, (b >> shift) as u8);
    if x >= 0xee && y >= 0xee && ((x >= 0xf0) != (y >= 0xf0)) {
        return y.cmp(&x);
    }
    x.cmp(&y)
}

/// Compares the string nodes `a` and `b` by decoded UTF-16 code units.
#[inline(always)]
pub(crate) fn cmp_nodes(input: &[u8], nodes: &[Node], a: u32, b: u32) -> Ordering {
    let (x, y) = (&nodes[a as usize], &nodes[b as usize]);
    // Fast path for escape-free strings: most keys differ in their first eight bytes.
    if !x.flag() && !y.flag() {
        if let (Some(wx), Some(wy)) = (prefix_word(input, x), prefix_word(input, y)) {
            if wx != wy {
                return cmp_words(wx, wy);
            }
            if x.value() <= 8 && y.value() <= 8 {
                // Equal words, both strings inside them: the same bytes.
                return Ordering::Equal;
            }
        }
    }
    cmp_full(input, x, y)
}

/// The general comparison (escapes, long common prefixes), kept out of line
/// so the fast path stays small.
#[inline(never)]
fn cmp_full(input: &[u8], x: &Node, y: &Node) -> Ordering {
    cmp_utf16(
        &input[x.start()..x.start() + x.value()],
        x.flag(),
        &input[y.start()..y.start() + y.value()],
        y.flag(),
    )
}

/// Lists up to this long are sorted by insertion (few keys: the common case).
const SMALL: usize = 12;

/// Sorts the list starting at `head` (stable) and returns the new head, and
/// whether two elements may compare equal. When the flag is `false` the list
/// certainly holds no two equal strings, so callers can skip
/// [`find_adjacent_equal`].
pub(crate) fn sort_list(input: &[u8], nodes: &mut [Node], head: u32) -> (u32, bool) {
    if head == END || nodes[head as usize].link == END {
        return (head, false);
    }
    if let Some(sorted) = sort_small(input, nodes, head) {
        return sorted;
    }
    // A long list. Already in order? Common for generated JSON, and then
    // O(n); these comparisons cover every adjacent pair, so they also detect
    // equal strings.
    let mut p = head;
    let mut equal = false;
    loop {
        let q = nodes[p as usize].link;
        if q == END {
            return (head, equal);
        }
        match cmp_nodes(input, nodes, p, q) {
            Ordering::Greater => break,
            Ordering::Equal => equal = true,
            Ordering::Less => {}
        }
        p = q;
    }
    (merge_sort(input, nodes, head), true)
}

/// Maps a prefix word (see [`prefix_word`]) to a key whose plain integer order
/// is the UTF-16 order [`cmp_words`] computes: the lead bytes of U+E000..U+FFFF
/// (0xEE, 0xEF) become 0xFE, 0xFF, above every supplementary lead byte
/// (0xF0..0xF4). No other byte changes; 0xFE and 0xFF never occur in UTF-8, so
/// distinct words keep distinct keys.
#[inline(always)]
pub(crate) fn utf16_key(word: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Bytes equal to 0xEE or 0xEF become zero; everything else stays non-zero.
    let t = (word ^ 0xeeee_eeee_eeee_eeee) & 0xfefe_fefe_fefe_fefe;
    // Exact per-byte zero test (no borrows between bytes).
    let zero = !((((t & LOW7) + LOW7) | t) & HIGH) & HIGH;
    word | (zero >> 3)
}

/// A list element during an array sort: its node and, when the string has
/// no escapes and is not at the very end of the input, its [`utf16_key`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Item {
    key: u64,
    node: u32,
    /// 0: no key (compare in full); 1: key of a longer string; 2: the key
    /// holds the whole string (at most eight bytes).
    kind: u8,
}

impl Item {
    /// The item of string node `e`.
    #[inline(always)]
    fn of(input: &[u8], nodes: &[Node], e: u32) -> Item {
        let node = &nodes[e as usize];
        let word = if node.flag() {
            None
        } else {
            prefix_word(input, node)
        };
        Item {
            key: word.map_or(0, utf16_key),
            node: e,
            kind: match word {
                None => 0,
                Some(_) if node.value() <= 8 => 2,
                Some(_) => 1,
            },
        }
    }

    /// The UTF-16 order of the two items' strings: by their keys where both
    /// have one that differ (or that hold both strings whole), else in full.
    #[inline(always)]
    fn cmp(&self, other: &Item, input: &[u8], nodes: &[Node]) -> Ordering {
        if self.kind != 0 && other.kind != 0 {
            if self.key != other.key {
                return self.key.cmp(&other.key);
            }
            if self.kind == 2 && other.kind == 2 {
                return Ordering::Equal;
            }
        }
        cmp_full(
            input,
            &nodes[self.node as usize],
            &nodes[other.node as usize],
        )
    }
}

/// [`sort_list`] for a caller with a reused buffer (a reused `Context`'s
/// list of tool names): the elements' keys are gathered into `items` (one
/// load per element, not one per comparison), sorted there, and the list
/// relinked in that order. Not stable; the flag is `true` exactly when two
/// elements compare equal, and their order is then unspecified, so a
/// caller that reports which two are equal must sort with [`sort_list`].
#[cfg(feature = "alloc")]
pub(crate) fn sort_list_keyed(
    input: &[u8],
    nodes: &mut [Node],
    head: u32,
    items: &mut alloc::vec::Vec<Item>,
) -> (u32, bool) {
    items.clear();
    let mut ascending = true;
    let mut e = head;
    while e != END {
        let item = Item::of(input, nodes, e);
        ascending &= item.kind != 0 && items.last().is_none_or(|p| p.key < item.key);
        items.push(item);
        e = nodes[e as usize].link;
    }
    if items.len() < 2 || ascending {
        // Strictly increasing keys: in order, and no two strings equal.
        return (head, false);
    }
    let nodes_ro: &[Node] = nodes;
    items.sort_unstable_by(|a, b| a.cmp(b, input, nodes_ro));
    let equal = (items.windows(2)).any(|w| w[0].cmp(&w[1], input, nodes_ro) == Ordering::Equal);
    for pair in items.windows(2) {
        nodes[pair[0].node as usize].link = pair[1].node;
    }
    nodes[items[items.len() - 1].node as usize].link = END;
    (items[0].node, equal)
}

/// Stable sort of a list of at most [`SMALL`] elements (two or more), in a
/// small array of prefix keys (one load per element, not one per
/// comparison); `None`, having changed nothing, for a longer list.
///
/// When every element has a key and the keys strictly increase, the list is
/// already in order and holds no two equal strings (distinct keys are
/// distinct strings): nothing is relinked. When every element has a key and
/// no two keys are equal, the keys alone order the list, and each element's
/// rank is counted without branches (equal keys share a rank, which leaves
/// a rank unused: that is how a tie is seen). Otherwise a stable insertion
/// sort runs, in which each element meets the largest element not greater
/// than it, so two equal strings always meet: the flag comes back `true`
/// exactly when the list holds two equal strings.
fn sort_small(input: &[u8], nodes: &mut [Node], head: u32) -> Option<(u32, bool)> {
    let mut items = [Item {
        key: 0,
        node: END,
        kind: 0,
    }; SMALL];
    let mut n = 0usize;
    let mut all_keys = true;
    let mut ascending = true;
    let mut previous = 0u64;
    let mut e = head;
    while e != END {
        if n == SMALL {
            return None;
        }
        let item = Item::of(input, nodes, e);
        all_keys &= item.kind != 0;
        ascending &= n == 0 || item.key > previous;
        previous = item.key;
        items[n] = item;
        n += 1;
        e = nodes[e as usize].link;
    }
    if all_keys && ascending {
        return Some((head, false));
    }

    let mut order = [END; SMALL];
    if all_keys {
        let mut ranks = 0u32;
        for item in &items[..n] {
            let mut rank = 0usize;
            for other in &items[..n] {
                rank += (other.key < item.key) as usize;
            }
            ranks |= 1 << rank;
            order[rank] = item.node;
        }
        // Every rank 0..n taken: the keys are distinct.
        if ranks == (1u32 << n) - 1 {
            return Some((link(nodes, &order[..n]), false));
        }
    }

    // General path: stable insertion sort of the array.
    let cmp = |a: &Item, b: &Item| a.cmp(b, input, nodes);
    let mut equal = false;
    for k in 1..n {
        let item = items[k];
        // Shift greater elements right; insert after the last one not greater.
        let mut j = k;
        while j > 0 {
            match cmp(&items[j - 1], &item) {
                Ordering::Greater => {
                    items[j] = items[j - 1];
                    j -= 1;
                }
                Ordering::Equal => {
                    equal = true;
                    break;
                }
                Ordering::Less => break,
            }
        }
        items[j] = item;
    }
    for (slot, item) in order.iter_mut().zip(&items[..n]) {
        *slot = item.node;
    }
    Some((link(nodes, &order[..n]), equal))
}

/// Links `order` (at least one node) into a list; returns its head.
fn link(nodes: &mut [Node], order: &[u32]) -> u32 {
    for pair in order.windows(2) {
        nodes[pair[0] as usize].link = pair[1];
    }
    nodes[order[order.len() - 1] as usize].link = END;
    order[0]
}

/// Stable bottom-up merge sort of a list of any length; returns the new head.
fn merge_sort(input: &[u8], nodes: &mut [Node], head: u32) -> u32 {
    let mut head = head;
    let mut width = 1usize;
    loop {
        let mut p = head;
        head = END;
        let mut tail = END;
        let mut merges = 0;
        while p != END {
            merges += 1;
            // Split off run `p` of up to `width` nodes; `q` starts the next run.
            let mut q = p;
            let mut p_len = 0;
            while p_len < width && q != END {
                p_len += 1;
                q = nodes[q as usize].link;
            }
            let mut q_len = width;
            while p_len > 0 || (q_len > 0 && q != END) {
                let take_p = if p_len == 0 {
                    false
                } else if q_len == 0 || q == END {
                    true
                } else {
                    cmp_nodes(input, nodes, p, q) != Ordering::Greater
                };
                let e = if take_p {
                    let e = p;
                    p = nodes[p as usize].link;
                    p_len -= 1;
                    e
                } else {
                    let e = q;
                    q = nodes[q as usize].link;
                    q_len -= 1;
                    e
                };
                if tail == END {
                    head = e;
                } else {
                    nodes[tail as usize].link = e;
                }
                tail = e;
            }
            p = q;
        }
        nodes[tail as usize].link = END;
        if merges <= 1 {
            return head;
        }
        width *= 2;
    }
}

/// Returns the first adjacent pair `(a, b)` in the sorted list that compares equal.
pub(crate) fn find_adjacent_equal(input: &[u8], nodes: &[Node], head: u32) -> Option<(u32, u32)> {
    let mut p = head;
    while p != END {
        let q = nodes[p as usize].link;
        if q == END {
            return None;
        }
        if cmp_nodes(input, nodes, p, q) == Ordering::Equal {
            return Some((p, q));
        }
        p = q;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Tag;
    use std::vec::Vec;

    /// The list from `head`, as positions of the test strings (node 1 is
    /// string 0).
    fn order(nodes: &[Node], head: u32) -> Vec<usize> {
        let mut got = Vec::new();
        let mut p = head;
        while p != END {
            got.push(p as usize - 1);
            p = nodes[p as usize].link;
        }
        got
    }

    #[test]
    fn sorting_matches_a_stable_utf16_sort() {
        let pool = [
            "type",
            "title",
            "a",
            "b",
            "ab",
            "\u{e000}",
            "\u{1f600}",
            "abcdefghij",
            "abcdefghi",
            "9",
            "10",
            "",
            "\u{e9}",
            "z",
        ];
        let mut state = 7u64;
        for round in 0..crate::test_rng::rounds(400) {
            let len = 2 + (round * 7) % 100;
            let mut input = Vec::new();
            let mut nodes = std::vec![Node::EMPTY];
            let mut picked = Vec::new();
            for _ in 0..len {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let s = pool[(state >> 33) as usize % pool.len()];
                input.push(b'"');
                nodes.push(Node::new(Tag::String, false, input.len(), s.len(), 0));
                input.extend_from_slice(s.as_bytes());
                input.extend_from_slice(b"\",");
                picked.push(s);
            }
            for (i, node) in nodes.iter_mut().enumerate().take(len).skip(1) {
                node.link = (i + 1) as u32;
            }
            let (head, maybe_equal) = sort_list(&input, &mut nodes, 1);
            let got = order(&nodes, head);
            let mut want: Vec<usize> = (0..len).collect();
            want.sort_by(|&a, &b| picked[a].encode_utf16().cmp(picked[b].encode_utf16()));
            assert_eq!(got, want, "round {round}");
            let has_dup = (1..len).any(|i| picked[want[i - 1]] == picked[want[i]]);
            assert!(maybe_equal || !has_dup, "round {round}: duplicate missed");
            if len <= SMALL {
                assert_eq!(maybe_equal, has_dup, "round {round}");
            }
        }
    }

    /// Escaped spellings of the same key, already-sorted lists (the fast
    /// path), long keys sharing their first eight bytes, and lengths around
    /// [`SMALL`] and up to 81 (several merge levels): the order is the
    /// decoded UTF-16 order and, up to `SMALL` elements, the equal flag says
    /// exactly whether two decoded keys are equal.
    #[test]
    fn escaped_sorted_and_long_keys() {
        // (raw JSON string content, decoded text)
        let pool: [(&str, &str); 14] = [
            ("a", "a"),
            ("\\u0061", "a"),
            ("b", "b"),
            ("abcdefghij", "abcdefghij"),
            ("abcdefgh\\u0069j", "abcdefghij"),
            ("abcdefghik", "abcdefghik"),
            ("abcdefgh", "abcdefgh"),
            ("\\ue000", "\u{e000}"),
            ("\u{e000}", "\u{e000}"),
            ("\\ud83d\\ude00", "\u{1f600}"),
            ("\u{1f600}", "\u{1f600}"),
            ("x\\n", "x\n"),
            ("10", "10"),
            ("9", "9"),
        ];
        let mut state = 11u64;
        for round in 0..crate::test_rng::rounds(3000) {
            let len = 2 + (round * 7) % 80;
            let mut picked: Vec<usize> = (0..len)
                .map(|_| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (state >> 33) as usize % pool.len()
                })
                .collect();
            let units = |i: usize| pool[i].1.encode_utf16().collect::<Vec<u16>>();
            if round % 3 == 0 {
                // Already in order (ties kept in place): the fast path.
                picked.sort_by_key(|&i| units(i));
            }
            let mut input = Vec::new();
            let mut nodes = std::vec![Node::EMPTY];
            for &i in &picked {
                let raw = pool[i].0;
                input.push(b'"');
                let flag = raw.contains('\\');
                nodes.push(Node::new(Tag::String, flag, input.len(), raw.len(), 0));
                input.extend_from_slice(raw.as_bytes());
                input.extend_from_slice(b"\":0,");
            }
            for (i, node) in nodes.iter_mut().enumerate().take(len).skip(1) {
                node.link = (i + 1) as u32;
            }
            let mut keyed_nodes = nodes.clone();
            let (head, maybe_equal) = sort_list(&input, &mut nodes, 1);
            let got = order(&nodes, head);
            let mut want: Vec<usize> = (0..len).collect();
            want.sort_by_key(|&a| units(picked[a]));
            assert_eq!(got, want, "round {round}");
            let has_dup = (1..len).any(|i| units(picked[want[i - 1]]) == units(picked[want[i]]));
            assert!(maybe_equal || !has_dup, "round {round}: duplicate missed");
            if len <= SMALL {
                assert_eq!(maybe_equal, has_dup, "round {round}");
            }
            // The keyed sort: the same decoded order (equal keys in any
            // order) and an exact flag, at every length.
            let mut items = Vec::new();
            let (head, equal) = sort_list_keyed(&input, &mut keyed_nodes, 1, &mut items);
            let decoded =
                |o: Vec<usize>| o.into_iter().map(|i| units(picked[i])).collect::<Vec<_>>();
            assert_eq!(
                decoded(order(&keyed_nodes, head)),
                decoded(want),
                "round {round}"
            );
            assert_eq!(equal, has_dup, "round {round}: keyed");
        }
    }

    #[test]
    fn utf16_key_orders_like_cmp_words() {
        let bytes = [
            0x00u8, 0x01, 0x41, 0x7f, 0x80, 0xbf, 0xc2, 0xdf, 0xe0, 0xed, 0xee, 0xef, 0xf0, 0xf4,
        ];
        let mut words = Vec::new();
        for &a in &bytes {
            for &b in &bytes {
                words.push(u64::from_be_bytes([a, b, 0x80, 0xee, 0x61, b, a, 0xef]));
                words.push(u64::from_be_bytes([0x61, 0x62, a, b, 0xee, 0xf0, 0, 0]));
            }
        }
        for &x in &words {
            for &y in &words {
                if x != y {
                    assert_eq!(
                        utf16_key(x).cmp(&utf16_key(y)),
                        cmp_words(x, y),
                        "{x:016x} {y:016x}"
                    );
                }
            }
        }
    }

    #[test]
    fn fast_compare_matches_utf16_order() {
        let samples = [
            "",
            "a",
            "b",
            "ab",
            "abc",
            "abcdefg",
            "abcdefgh",
            "abcdefghi",
            "abcdefgi",
            "abcdefgh\u{e000}",
            "abcdefgh\u{10000}",
            "\u{7f}",
            "\u{80}",
            "\u{7ff}",
            "\u{800}",
            "\u{d7ff}",
            "\u{e000}",
            "\u{ffff}",
            "\u{10000}",
            "\u{1f600}",
            "\u{10ffff}",
            "a\u{ffff}",
            "a\u{1f600}",
            "10",
            "9",
            "1",
            "type",
            "title",
            "properties",
            "description",
            "x\u{e000}y",
            "x\u{1f600}y",
            "1234567\u{e000}",
            "1234567\u{1f600}",
            "\u{e9}t\u{e9}",
            "\u{e9}t\u{e8}",
        ];
        // Each string quoted, followed by padding, so the word loads see the
        // bytes after the closing quote; the last strings sit at the very end.
        let mut input = Vec::new();
        let mut nodes = Vec::new();
        for s in samples {
            input.push(b'"');
            nodes.push(Node::new(Tag::String, false, input.len(), s.len(), 0));
            input.extend_from_slice(s.as_bytes());
            input.extend_from_slice(b"\":1,");
        }
        for s in samples {
            input.push(b'"');
            nodes.push(Node::new(Tag::String, false, input.len(), s.len(), 0));
            input.extend_from_slice(s.as_bytes());
        }
        let n = samples.len();
        let units = |i: usize| samples[i % n].encode_utf16().collect::<Vec<u16>>();
        for a in 0..nodes.len() {
            for b in 0..nodes.len() {
                let want = units(a).cmp(&units(b));
                let got = cmp_nodes(&input, &nodes, a as u32, b as u32);
                assert_eq!(got, want, "{:?} {:?}", samples[a % n], samples[b % n]);
            }
        }
    }
}
