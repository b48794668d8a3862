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
    // Already in order? Common for generated JSON, and then O(n); these
    // comparisons cover every adjacent pair, so they also detect equal strings.
    let mut p = head;
    let mut len = 1usize;
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
        len += 1;
    }
    while len <= SMALL {
        p = nodes[p as usize].link;
        if p == END {
            break;
        }
        len += 1;
    }
    if len <= SMALL {
        return insertion_sort(input, nodes, head, equal);
    }
    (merge_sort(input, nodes, head), true)
}

/// Stable insertion sort of a short list. Each element is compared with every
/// element not greater than it, so two equal strings always meet: `equal`
/// comes back `true` if the list holds any.
fn insertion_sort(input: &[u8], nodes: &mut [Node], head: u32, mut equal: bool) -> (u32, bool) {
    let mut sorted = END;
    let mut e = head;
    while e != END {
        let next = nodes[e as usize].link;
        // Insert `e` after every element that is not greater (stability).
        let mut prev = END;
        let mut cur = sorted;
        while cur != END {
            match cmp_nodes(input, nodes, cur, e) {
                Ordering::Greater => break,
                Ordering::Equal => equal = true,
                Ordering::Less => {}
            }
            prev = cur;
            cur = nodes[cur as usize].link;
        }
        nodes[e as usize].link = cur;
        if prev == END {
            sorted = e;
        } else {
            nodes[prev as usize].link = e;
        }
        e = next;
    }
    (sorted, equal)
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
