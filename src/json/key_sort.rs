//! Sorting a linked list of string nodes (object keys, or tool names) into
//! UTF-16 code-unit order, in place, with O(1) extra memory and O(n log n)
//! comparisons: a bottom-up merge sort over the nodes' `link` fields.

use core::cmp::Ordering;

use super::tape::Node;
use super::unescape::cmp_utf16;

/// End-of-list marker for `link` (index 0 is the root, never in a list).
pub(crate) const END: u32 = 0;

/// Compares the string nodes `a` and `b` by decoded UTF-16 code units.
#[inline]
pub(crate) fn cmp_nodes(input: &[u8], nodes: &[Node], a: u32, b: u32) -> Ordering {
    let (x, y) = (&nodes[a as usize], &nodes[b as usize]);
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
