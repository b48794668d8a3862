//! A word-level diff of two strings, for changed descriptions.
//!
//! The text is cut into tokens: maximal runs of whitespace and maximal runs
//! of anything else, so joining the tokens gives the text back exactly.
//! The common prefix and suffix are found by a byte comparison (moved back
//! to a token boundary), so a long description with a small edit costs one
//! linear pass. The tokens of the rest are diffed with the bounded LCS of
//! [`super::lcs`]: at most [`MAX_ITEMS`](super::MAX_ITEMS) tokens and
//! [`MAX_CELLS`](super::MAX_CELLS) table cells. Beyond that bound the whole
//! middle is reported as replaced (one removed and one added run), so a
//! hostile 1 MB description costs linear time and at most a few MiB.

use alloc::vec::Vec;

use super::lcs::{edits, within_bound, Edit};

/// One run of a word diff; the runs of one side, in order, give that
/// side's text back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WordOp<'a> {
    /// Text in both strings.
    Same(&'a str),
    /// Text only in the first (pinned) string.
    Removed(&'a str),
    /// Text only in the second (live) string.
    Added(&'a str),
}

/// The word diff of `before` and `after`: runs in order, adjacent runs of
/// one kind merged, each changed stretch's removed run before its added run.
///
/// ```
/// use contractpin::drift::{word_diff, WordOp::*};
/// assert_eq!(
///     word_diff("find pages on the web", "find files on the disk"),
///     [Same("find "), Removed("pages"), Added("files"), Same(" on the "), Removed("web"), Added("disk")]
/// );
/// ```
pub fn word_diff<'a>(before: &'a str, after: &'a str) -> Vec<WordOp<'a>> {
    let p = common_prefix(before, after);
    let s = common_suffix(&before[p..], &after[p..]);
    let (eb, ea) = (before.len() - s, after.len() - s);
    let mut runs = Runs::default();
    runs.push(Kind::Same, 0, p);
    let (nb, na) = (tokens(before, p, eb).count(), tokens(after, p, ea).count());
    let script = if within_bound(nb, na) {
        let tb: Vec<(usize, usize)> = tokens(before, p, eb).collect();
        let ta: Vec<(usize, usize)> = tokens(after, p, ea).collect();
        let text = |s: &'a str, t: &[(usize, usize)]| -> Vec<&'a str> {
            t.iter().map(|&(a, b)| &s[a..b]).collect()
        };
        edits(&text(before, &tb), &text(after, &ta)).map(|e| (tb, ta, e))
    } else {
        None
    };
    match script {
        Some((tb, ta, script)) => {
            let (mut i, mut j) = (0, 0);
            for e in script {
                match e {
                    Edit::Keep => {
                        runs.push(Kind::Same, tb[i].0, tb[i].1);
                        i += 1;
                        j += 1;
                    }
                    Edit::Delete => {
                        runs.push(Kind::Removed, tb[i].0, tb[i].1);
                        i += 1;
                    }
                    Edit::Insert => {
                        runs.push(Kind::Added, ta[j].0, ta[j].1);
                        j += 1;
                    }
                }
            }
        }
        None => {
            runs.push(Kind::Removed, p, eb);
            runs.push(Kind::Added, p, ea);
        }
    }
    runs.push(Kind::Same, eb, before.len());
    runs.0
        .into_iter()
        .map(|(k, a, b)| match k {
            Kind::Same => WordOp::Same(&before[a..b]),
            Kind::Removed => WordOp::Removed(&before[a..b]),
            Kind::Added => WordOp::Added(&after[a..b]),
        })
        .collect()
}

/// The kind of a run; `Same` and `Removed` are byte ranges of `before`,
/// `Added` of `after`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Same,
    Removed,
    Added,
}

/// Runs as byte ranges, merged as they are pushed.
#[derive(Default)]
struct Runs(Vec<(Kind, usize, usize)>);

impl Runs {
    /// Appends a run, extending the last one when it is of the same kind
    /// and ends where this one starts; empty runs are dropped.
    fn push(&mut self, kind: Kind, start: usize, end: usize) {
        if start == end {
            return;
        }
        match self.0.last_mut() {
            Some(last) if last.0 == kind && last.2 == start => last.2 = end,
            _ => self.0.push((kind, start, end)),
        }
    }
}

/// Whether `c` separates words.
fn is_space(c: char) -> bool {
    c.is_whitespace()
}

/// The tokens of `text[from..to]` as byte ranges of `text`: alternating
/// runs of whitespace and non-whitespace.
fn tokens(text: &str, from: usize, to: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut at = from;
    core::iter::from_fn(move || {
        let rest = &text[at..to];
        let first = rest.chars().next()?;
        let class = is_space(first);
        let len = rest
            .char_indices()
            .find(|&(_, c)| is_space(c) != class)
            .map_or(rest.len(), |(i, _)| i);
        let token = (at, at + len);
        at += len;
        Some(token)
    })
}

/// Whether byte `i` of `s` starts a token (or is an end of `s`).
fn boundary(s: &str, i: usize) -> bool {
    if i == 0 || i == s.len() {
        return true;
    }
    match (s[..i].chars().next_back(), s[i..].chars().next()) {
        (Some(a), Some(b)) => is_space(a) != is_space(b),
        _ => true,
    }
}

/// Bytes of the longest common prefix of `a` and `b` that ends on a token
/// boundary of both.
fn common_prefix(a: &str, b: &str) -> usize {
    let mut p = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !(a.is_char_boundary(p) && b.is_char_boundary(p)) {
        p -= 1;
    }
    if boundary(a, p) && boundary(b, p) {
        return p;
    }
    // Back to the start of the token that the common part ends inside.
    let class = a[..p].chars().next_back().map(is_space);
    while let Some(c) = a[..p].chars().next_back() {
        if Some(is_space(c)) != class {
            break;
        }
        p -= c.len_utf8();
    }
    p
}

/// Bytes of the longest common suffix of `a` and `b` that starts on a
/// token boundary of both.
fn common_suffix(a: &str, b: &str) -> usize {
    let mut s = a
        .bytes()
        .rev()
        .zip(b.bytes().rev())
        .take_while(|(x, y)| x == y)
        .count();
    while !(a.is_char_boundary(a.len() - s) && b.is_char_boundary(b.len() - s)) {
        s -= 1;
    }
    if boundary(a, a.len() - s) && boundary(b, b.len() - s) {
        return s;
    }
    // Forward to the end of the token that the common part starts inside.
    let tail = &a[a.len() - s..];
    let class = tail.chars().next().map(is_space);
    let inside = tail
        .char_indices()
        .find(|&(_, c)| Some(is_space(c)) != class)
        .map_or(tail.len(), |(i, _)| i);
    s - inside
}
