//! A bounded longest common subsequence: the edit script between two
//! sequences, or `None` when computing it would cost more than the bound.
//!
//! The common prefix and suffix are matched first (linear); only the
//! middle goes through the quadratic table, and only when it has at most
//! [`MAX_ITEMS`] elements in all and at most [`MAX_CELLS`] table cells.
//! The table holds `u16` lengths (the LCS of a middle within the bound is
//! at most `sqrt(MAX_CELLS)` = 1024 long), so it needs at most 2 MiB.

use alloc::vec;
use alloc::vec::Vec;

/// The most elements (both sides together, after the common prefix and
/// suffix) that are diffed element by element.
pub const MAX_ITEMS: usize = 20_000;

/// The most table cells (`before × after` middle lengths) an LCS may use.
pub const MAX_CELLS: usize = 1 << 20;

/// One step of an edit script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edit {
    /// The next element of both sides is the same.
    Keep,
    /// The next element of the first side is not in the second.
    Delete,
    /// The next element of the second side is not in the first.
    Insert,
}

/// Whether a middle of `n` and `m` elements is within the bound.
pub(crate) fn within_bound(n: usize, m: usize) -> bool {
    n + m <= MAX_ITEMS && n.saturating_mul(m) <= MAX_CELLS
}

/// The edit script turning `a` into `b` (deletions before insertions in
/// each changed run), or `None` when the middle is beyond the bound.
pub fn edits<T: PartialEq>(a: &[T], b: &[T]) -> Option<Vec<Edit>> {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (ra, rb) = (&a[pre..], &b[pre..]);
    let suf = ra
        .iter()
        .rev()
        .zip(rb.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ma, mb) = (&ra[..ra.len() - suf], &rb[..rb.len() - suf]);
    if !within_bound(ma.len(), mb.len()) {
        return None;
    }
    let mut out = vec![Edit::Keep; pre];
    middle(ma, mb, &mut out);
    out.extend(core::iter::repeat_n(Edit::Keep, suf));
    Some(out)
}

/// The LCS table of suffixes, then one forward walk.
fn middle<T: PartialEq>(a: &[T], b: &[T], out: &mut Vec<Edit>) {
    let (n, m) = (a.len(), b.len());
    let w = m + 1;
    // len[i * w + j]: LCS length of a[i..] and b[j..].
    let mut len = vec![0u16; (n + 1) * w];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            len[i * w + j] = if a[i] == b[j] {
                len[(i + 1) * w + j + 1] + 1
            } else {
                len[(i + 1) * w + j].max(len[i * w + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut inserts = 0usize;
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            flush(out, &mut inserts);
            out.push(Edit::Keep);
            i += 1;
            j += 1;
        } else if i < n && (j == m || len[(i + 1) * w + j] >= len[i * w + j + 1]) {
            out.push(Edit::Delete);
            i += 1;
        } else {
            // Held back so that a run's deletions come first.
            inserts += 1;
            j += 1;
        }
    }
    flush(out, &mut inserts);
}

fn flush(out: &mut Vec<Edit>, inserts: &mut usize) {
    out.extend(core::iter::repeat_n(Edit::Insert, *inserts));
    *inserts = 0;
}

#[cfg(test)]
mod tests {
    use super::Edit::{Delete as D, Insert as I, Keep as K};
    use super::*;

    #[test]
    fn scripts_written_by_hand() {
        assert_eq!(edits(b"abc", b"abc"), Some(vec![K, K, K]));
        assert_eq!(edits(b"abc", b"axc"), Some(vec![K, D, I, K]));
        assert_eq!(edits(b"", b"ab"), Some(vec![I, I]));
        assert_eq!(edits(b"ab", b""), Some(vec![D, D]));
        // A run with interleaved changes keeps deletions first.
        assert_eq!(edits(b"xaybz", b"apbqz"), Some(vec![D, K, D, I, K, I, K]));
    }

    #[test]
    fn beyond_the_bound_is_none() {
        let a = vec![0u8; 1100];
        let b = vec![1u8; 1100];
        assert_eq!(edits(&a, &b), None);
        // The same sizes with a long common prefix are cheap.
        let mut c = a.clone();
        c[1099] = 2;
        assert!(edits(&a, &c).is_some());
    }
}
