//! What changed between two tool contracts (feature `alloc`): the detail
//! behind a drift verdict, for the verify report, SARIF and approvals.
//!
//! [`changes`] compares two contracts (JSON objects, normally the
//! canonical contract bytes of spec section 2: a lock snapshot and a live
//! tool) and lists every difference as a [`Change`]: the contract member
//! it is in (`field`), an RFC 6901 JSON pointer inside that member
//! (`pointer`, `""` for the member itself; `~` is written `~0` and `/`
//! `~1`), and the values on each side as canonical JSON.
//!
//! - Objects are compared member by member (in canonical key order): a
//!   member on one side only is [`ChangeKind::Added`] or
//!   [`ChangeKind::Removed`], a member on both is compared further.
//! - Arrays whose elements are all scalars (`required`, `enum`) are
//!   compared as sequences by a bounded LCS, so inserting one name reports
//!   one addition, not a shifted tail: removals carry their index in the
//!   pinned array, additions their index in the live one, and a removal
//!   and an addition at the same index become one [`ChangeKind::Changed`].
//!   Other arrays, and scalar arrays beyond the LCS bound
//!   ([`MAX_ITEMS`], [`MAX_CELLS`]), are compared index by index.
//! - Scalars are compared by canonical value; a value whose type changed
//!   (object to array, string to number) is one `Changed`.
//! - A whole side missing (`None`) is an added or removed tool: one change
//!   per member, with the member's whole value.
//!
//! The walk is iterative (nesting is bounded only by the parser's
//! [`Limits::max_depth`]). Memory is bounded: when the changes would take
//! more than [`budget`] bytes (4 × the two inputs + 64 KiB; thousands of
//! tiny changes under a long pointer prefix would otherwise copy that
//! prefix each time), the result falls back to one change per differing
//! contract member, with the member's whole values.
//!
//! [`word_diff`] compares two strings word by word (bounded in the same
//! way, see its module), and [`fold`] / [`fold_json`] shorten long values
//! for display: the one place each of these rules lives.

mod fold;
mod lcs;
mod words;

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Ordering;

pub use fold::{fold, fold_diff, fold_json};
pub use lcs::{edits, Edit, MAX_CELLS, MAX_ITEMS};
pub use words::{word_diff, WordOp};

use crate::error::Error;
use crate::jcs::{self, cmp_utf16};
use crate::json::{self, Node, Tag, Value};
use crate::limits::Limits;

/// What happened at one pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    /// Only live: `after` is set, `before` is not.
    Added,
    /// Only pinned: `before` is set, `after` is not.
    Removed,
    /// On both sides with different values: both are set.
    Changed,
    /// The pinned value is not known (the lock has no snapshot, only field
    /// digests): `before` is not set; `after` is the live value, or not set
    /// when the live tool lacks the field.
    Unknown,
}

impl ChangeKind {
    /// `"added"`, `"removed"`, `"changed"` or `"unknown"`.
    pub fn name(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::Changed => "changed",
            ChangeKind::Unknown => "unknown",
        }
    }
}

/// One difference between a pinned and a live contract.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The contract member (`description`, `inputSchema`, ...), decoded;
    /// empty only when the documents themselves are not both objects.
    pub field: String,
    /// RFC 6901 pointer inside `field`; `""` for the whole member.
    pub pointer: String,
    /// What happened.
    pub kind: ChangeKind,
    /// The pinned value as canonical JSON, when known and present.
    pub before: Option<Vec<u8>>,
    /// The live value as canonical JSON, when present.
    pub after: Option<Vec<u8>>,
}

/// The most bytes the changes of two inputs may hold before [`changes`]
/// falls back to whole members: `4 × (before + after) + 64 KiB`.
pub fn budget(before_len: usize, after_len: usize) -> usize {
    before_len
        .saturating_add(after_len)
        .saturating_mul(4)
        .saturating_add(64 << 10)
}

/// Every difference between the contract `before` (pinned) and `after`
/// (live), in canonical order of fields and pointers (see the module docs).
/// Either may be `None`: an added or removed tool. Fails only when an
/// input is not JSON within `limits`.
pub fn changes(
    before: Option<&[u8]>,
    after: Option<&[u8]>,
    limits: &Limits,
) -> Result<Vec<Change>, Error> {
    let mut nb = Vec::new();
    let mut na = Vec::new();
    let tb = before.map(|b| parse(b, &mut nb, limits)).transpose()?;
    let ta = after.map(|a| parse(a, &mut na, limits)).transpose()?;
    let (rb, ra) = (tb.map(|t| t.root()), ta.map(|t| t.root()));
    let budget = budget(before.map_or(0, <[u8]>::len), after.map_or(0, <[u8]>::len));
    if let Some(found) = Walk::new(budget, false).run(rb, ra) {
        return Ok(found);
    }
    // Over budget: whole members only (bounded by the inputs' size).
    Ok(Walk::new(usize::MAX, true).run(rb, ra).unwrap_or_default())
}

/// The live values of the named contract members, for a drifted tool whose
/// pinned values are unknown (no snapshot): one [`ChangeKind::Unknown`]
/// change per name, in the order given.
pub fn live_fields(after: &[u8], fields: &[String], limits: &Limits) -> Result<Vec<Change>, Error> {
    let mut nodes = Vec::new();
    let tape = parse(after, &mut nodes, limits)?;
    let root = tape.root();
    Ok(fields
        .iter()
        .map(|f| Change {
            field: f.clone(),
            pointer: String::new(),
            kind: ChangeKind::Unknown,
            before: None,
            after: root.get(f).map(canonical),
        })
        .collect())
}

/// The decoded text of `value` when it is a JSON string (as a change's
/// `before` and `after` may be), for [`word_diff`]; `None` otherwise.
pub fn json_string(value: &[u8]) -> Option<String> {
    let mut nodes = Vec::new();
    let tape = parse(value, &mut nodes, &Limits::DEFAULT).ok()?;
    let root = tape.root();
    (root.tag() == Tag::String).then(|| text(root))
}

fn parse<'a>(
    input: &'a [u8],
    nodes: &'a mut Vec<Node>,
    limits: &Limits,
) -> Result<json::Tape<'a>, Error> {
    json::parse_growing(input, nodes, limits)
}

/// Canonical bytes of a value that the parser accepted.
fn canonical(v: Value<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    // The value was accepted by the parser, so writing it cannot fail; an
    // error would leave `out` partial, which only a bug could cause.
    let _ = jcs::write(&mut out, v);
    out
}

/// The decoded text of a string value (or of an object key).
fn text(v: Value<'_>) -> String {
    if let Some(s) = v.as_plain_str() {
        return String::from(s);
    }
    let raw = v.raw_str().unwrap_or_default();
    // Decoding never lengthens a string.
    let mut buf = vec![0u8; raw.len()];
    String::from(v.decode_str(&mut buf).unwrap_or_default())
}

fn is_container(v: Value<'_>) -> bool {
    matches!(v.tag(), Tag::Array | Tag::Object)
}

/// One step of a pointer.
#[derive(Clone, Debug)]
enum Seg {
    Key(String),
    Index(usize),
}

/// Work on the stack: compare two values, or emit one change, after
/// cutting the path to `depth` and appending `seg`.
enum Task<'a> {
    Compare(Value<'a>, Value<'a>),
    Emit(ChangeKind, Option<Value<'a>>, Option<Value<'a>>),
}

struct Frame<'a> {
    depth: usize,
    seg: Option<Seg>,
    task: Task<'a>,
}

/// One walk over two documents.
struct Walk<'a> {
    stack: Vec<Frame<'a>>,
    path: Vec<Seg>,
    out: Vec<Change>,
    left: usize,
    /// Compare contract members as whole values (the over-budget fallback).
    shallow: bool,
}

impl<'a> Walk<'a> {
    fn new(budget: usize, shallow: bool) -> Walk<'a> {
        Walk {
            stack: Vec::new(),
            path: Vec::new(),
            out: Vec::new(),
            left: budget,
            shallow,
        }
    }

    /// The changes, or `None` when they exceed the budget.
    fn run(mut self, b: Option<Value<'a>>, a: Option<Value<'a>>) -> Option<Vec<Change>> {
        let root = match (b, a) {
            (None, None) => return Some(Vec::new()),
            (Some(b), Some(a)) => Task::Compare(b, a),
            // A whole tool added or removed: every member, whole.
            (b, a) => {
                let v = b.or(a)?;
                if v.tag() != Tag::Object {
                    let kind = if b.is_some() {
                        ChangeKind::Removed
                    } else {
                        ChangeKind::Added
                    };
                    Task::Emit(kind, b, a)
                } else {
                    self.one_sided(v, b.is_some());
                    return self.drain();
                }
            }
        };
        self.stack.push(Frame {
            depth: 0,
            seg: None,
            task: root,
        });
        self.drain()
    }

    /// Queues every member of `v` as added or removed.
    fn one_sided(&mut self, v: Value<'a>, removed: bool) {
        let mut frames: Vec<Frame<'a>> = v
            .members_sorted()
            .map(|(k, val)| {
                let (kind, b, a) = if removed {
                    (ChangeKind::Removed, Some(val), None)
                } else {
                    (ChangeKind::Added, None, Some(val))
                };
                Frame {
                    depth: 0,
                    seg: Some(Seg::Key(text(k))),
                    task: Task::Emit(kind, b, a),
                }
            })
            .collect();
        frames.reverse();
        self.stack.extend(frames);
    }

    fn drain(mut self) -> Option<Vec<Change>> {
        while let Some(f) = self.stack.pop() {
            self.path.truncate(f.depth);
            if let Some(seg) = f.seg {
                self.path.push(seg);
            }
            match f.task {
                Task::Compare(b, a) => self.compare(b, a),
                Task::Emit(kind, b, a) => self.emit(kind, b, a)?,
            }
        }
        Some(self.out)
    }

    fn compare(&mut self, b: Value<'a>, a: Value<'a>) {
        let depth = self.path.len();
        let whole = self.shallow && depth >= 1;
        let mut children: Vec<Frame<'a>> = Vec::new();
        match (b.tag(), a.tag()) {
            (Tag::Object, Tag::Object) if !whole => objects(b, a, depth, &mut children),
            (Tag::Array, Tag::Array) if !whole => arrays(b, a, depth, &mut children),
            // Scalars, a changed type, or (shallow) whole members.
            _ => {
                if b.tag() != a.tag() || canonical(b) != canonical(a) {
                    children.push(Frame {
                        depth,
                        seg: None,
                        task: Task::Emit(ChangeKind::Changed, Some(b), Some(a)),
                    });
                }
            }
        }
        children.reverse();
        self.stack.extend(children);
    }

    /// Records one change at the current path; `None` when over budget.
    fn emit(&mut self, kind: ChangeKind, b: Option<Value<'a>>, a: Option<Value<'a>>) -> Option<()> {
        let (field, rest) = match self.path.split_first() {
            Some((Seg::Key(k), rest)) => (k.as_str(), rest),
            Some((Seg::Index(_), _)) | None => ("", &self.path[..]),
        };
        let pointer_len: usize = rest.iter().map(seg_len).sum();
        self.left = self.left.checked_sub(64 + field.len() + pointer_len)?;
        let before = b.map(canonical);
        let after = a.map(canonical);
        let cost = before.as_ref().map_or(0, Vec::len) + after.as_ref().map_or(0, Vec::len);
        self.left = self.left.checked_sub(cost)?;
        let mut pointer = String::with_capacity(pointer_len);
        for s in rest {
            push_seg(&mut pointer, s);
        }
        self.out.push(Change {
            field: String::from(field),
            pointer,
            kind,
            before,
            after,
        });
        Some(())
    }
}

/// Frames for two objects: their members merged in canonical key order.
fn objects<'a>(b: Value<'a>, a: Value<'a>, depth: usize, out: &mut Vec<Frame<'a>>) {
    let mut mb = b.members_sorted().map(|(k, v)| (text(k), v)).peekable();
    let mut ma = a.members_sorted().map(|(k, v)| (text(k), v)).peekable();
    loop {
        let order = match (mb.peek(), ma.peek()) {
            (None, None) => break,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some((kb, _)), Some((ka, _))) => cmp_utf16(kb, ka),
        };
        let frame = |seg: String, task| Frame {
            depth,
            seg: Some(Seg::Key(seg)),
            task,
        };
        let next = match order {
            Ordering::Less => mb
                .next()
                .map(|(k, v)| frame(k, Task::Emit(ChangeKind::Removed, Some(v), None))),
            Ordering::Greater => ma
                .next()
                .map(|(k, v)| frame(k, Task::Emit(ChangeKind::Added, None, Some(v)))),
            Ordering::Equal => match (mb.next(), ma.next()) {
                (Some((k, vb)), Some((_, va))) => Some(frame(k, Task::Compare(vb, va))),
                _ => None,
            },
        };
        out.extend(next);
    }
}

/// Frames for two arrays: by LCS when both hold only scalars and fit the
/// bound, else index by index.
fn arrays<'a>(b: Value<'a>, a: Value<'a>, depth: usize, out: &mut Vec<Frame<'a>>) {
    let eb: Vec<Value<'a>> = b.elements().collect();
    let ea: Vec<Value<'a>> = a.elements().collect();
    let at = |i: usize, task| Frame {
        depth,
        seg: Some(Seg::Index(i)),
        task,
    };
    let scalars = eb.iter().chain(&ea).all(|v| !is_container(*v));
    if scalars && lcs::within_bound(eb.len(), ea.len()) {
        let cb: Vec<Vec<u8>> = eb.iter().map(|v| canonical(*v)).collect();
        let ca: Vec<Vec<u8>> = ea.iter().map(|v| canonical(*v)).collect();
        if let Some(script) = lcs::edits(&cb, &ca) {
            sequence(&script, &eb, &ea, out, at);
            return;
        }
    }
    for i in 0..eb.len().max(ea.len()) {
        let task = match (eb.get(i), ea.get(i)) {
            (Some(&vb), Some(&va)) => Task::Compare(vb, va),
            (Some(&vb), None) => Task::Emit(ChangeKind::Removed, Some(vb), None),
            (None, Some(&va)) => Task::Emit(ChangeKind::Added, None, Some(va)),
            (None, None) => break,
        };
        out.push(at(i, task));
    }
}

/// Frames for an LCS edit script: each changed run's removals (pinned
/// indexes) then additions (live indexes); a removal and an addition at
/// the same index are one change.
fn sequence<'a>(
    script: &[lcs::Edit],
    eb: &[Value<'a>],
    ea: &[Value<'a>],
    out: &mut Vec<Frame<'a>>,
    at: impl Fn(usize, Task<'a>) -> Frame<'a>,
) {
    let (mut i, mut j) = (0, 0);
    let mut k = 0;
    while k < script.len() {
        if script[k] == lcs::Edit::Keep {
            i += 1;
            j += 1;
            k += 1;
            continue;
        }
        let dels = script[k..]
            .iter()
            .take_while(|e| **e == lcs::Edit::Delete)
            .count();
        let ins = script[k + dels..]
            .iter()
            .take_while(|e| **e == lcs::Edit::Insert)
            .count();
        let (mut d, mut n) = (0, 0);
        while d < dels || n < ins {
            if d < dels && n < ins && i + d == j + n {
                out.push(at(
                    j + n,
                    Task::Emit(ChangeKind::Changed, Some(eb[i + d]), Some(ea[j + n])),
                ));
                d += 1;
                n += 1;
            } else if d < dels && (n == ins || i + d < j + n) {
                out.push(at(
                    i + d,
                    Task::Emit(ChangeKind::Removed, Some(eb[i + d]), None),
                ));
                d += 1;
            } else {
                out.push(at(
                    j + n,
                    Task::Emit(ChangeKind::Added, None, Some(ea[j + n])),
                ));
                n += 1;
            }
        }
        i += dels;
        j += ins;
        k += dels + ins;
    }
}

/// Length of one pointer step as written (`/` + the escaped key).
fn seg_len(s: &Seg) -> usize {
    match s {
        Seg::Key(k) => 1 + k.len() + k.bytes().filter(|b| *b == b'~' || *b == b'/').count(),
        Seg::Index(_) => 21,
    }
}

/// Appends `/` and the step, `~` as `~0` and `/` as `~1` (RFC 6901).
fn push_seg(out: &mut String, s: &Seg) {
    out.push('/');
    match s {
        Seg::Key(k) => {
            for c in k.chars() {
                match c {
                    '~' => out.push_str("~0"),
                    '/' => out.push_str("~1"),
                    c => out.push(c),
                }
            }
        }
        Seg::Index(i) => {
            use core::fmt::Write;
            let _ = write!(out, "{i}");
        }
    }
}
