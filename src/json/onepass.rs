//! One-pass canonicalization: the canonical bytes (spec section 3) of a
//! whole array or object, written straight from the structural index
//! ([`super::index`]) into one buffer, with no tape nodes.
//!
//! The tape builder (`json::indexed`) hands each container below a tool's
//! members to [`Canon::container`] and keeps one collapsed node for it (see
//! `json::tape`); the contract writer then copies those bytes whole. Inside
//! a container:
//!
//! - scalars are written in canonical form as they are read: strings with
//!   their escapes decoded or re-escaped (`jcs::string`'s rule), numbers by
//!   `jcs::writer::write_number`, literals as they are;
//! - each object's members are written in document order, each noted with
//!   its key (an eight-byte UTF-16 sort key where the key allows one, as in
//!   `json::key_sort`) and where its bytes start; when the object closes, the
//!   members are sorted and, unless already in order, their bytes moved into
//!   canonical order through a second buffer. Nested objects are in order by
//!   then, so every byte is moved once per enclosing object that is out of
//!   order; the total moved is bounded (see [`Canon::reset`]).
//!
//! The loop is compiled twice ([`Build`]): for any CPU of the target, and on
//! `x86_64` for CPUs with AVX2 and BMI2, chosen at run time.
//!
//! It accepts exactly what the exact parser accepts, within the limits, or
//! gives up (`None`): the caller then parses the input again the exact way,
//! which reports the error, so verdicts, kinds and offsets have one source.
//! The tests hold the bytes to the tape writer's on every input of the
//! test suites and on generated and damaged documents.

use alloc::vec::Vec;
use core::cmp::Ordering;

use super::index::Index;
use super::key_sort::utf16_key;
use super::number_token::scan_number;
use super::parser::run_ends;
use super::string_scan::scan_escape;
use super::unescape::cmp_utf16;
use crate::jcs::{escape_is_canonical, Sink};

/// An open container.
#[derive(Clone, Copy, Debug)]
struct Frame {
    /// Index in [`Canon::members`] of this object's first member.
    members: u32,
    is_object: bool,
}

/// A member of an open object.
#[derive(Clone, Copy, Debug)]
struct Member {
    /// The UTF-16 sort key of the key's first eight bytes ([`utf16_key`]);
    /// meaningful only without [`NO_PREFIX`].
    key: u64,
    /// Offset in the output where `"key":value` starts.
    out: u32,
    /// Input offset of the key's content (after the opening quote).
    start: u32,
    /// Content length in bytes, with the [`ESCAPED`] and [`NO_PREFIX`] bits.
    len: u32,
}

/// [`Member::len`]: the key holds escapes.
const ESCAPED: u32 = 1 << 31;
/// [`Member::len`]: no sort key (escapes, or too near the input's end);
/// compare in full.
const NO_PREFIX: u32 = 1 << 30;
const LEN_MASK: u32 = NO_PREFIX - 1;

/// Which build of the canonicalizer's loop ([`Canon::walk`]) runs. The
/// loop is compiled twice: for any CPU of the target, and on `x86_64` for
/// CPUs with AVX2, BMI1, BMI2 and POPCNT ([`crate::arch::wide_scalar`]),
/// the same code with the compiler free to use them. Miri checks the one
/// source (the MIR is the same; target features change only the machine
/// code), and the tests hold the two builds' bytes to each other.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Build {
    /// The wide build where the CPU runs it, else the plain one.
    #[default]
    Fastest,
    /// The plain build, whatever the CPU (for the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    Plain,
}

/// Objects with at most this many members are ordered by counting ranks.
const SMALL: usize = 16;

/// The longest canonical text of one collapsed container: its length must
/// fit the node's 28-bit value.
const MAX_LEN: usize = (1 << 28) - 1;

/// Reused state of the one-pass canonicalizer: the output and the work
/// buffers. A reused one stops allocating once its buffers have grown.
#[derive(Debug, Default)]
pub(crate) struct Canon {
    out: Out,
    frames: Vec<Frame>,
    members: Vec<Member>,
    /// Where an object's members are copied before they are moved back in order.
    tmp: Vec<u8>,
    /// The order of a large object's members.
    order: Vec<u32>,
    /// Bytes moved into order since the last reset, and the bound on them.
    moved: usize,
    budget: usize,
    /// The build of the loop to run ([`Build::Fastest`] but in tests).
    build: Build,
}

impl Canon {
    /// Forgets the previous output, for a document of `input_len` bytes: the
    /// bytes moved into order may total at most eight times the input
    /// (plus 1 MiB), so that nesting many objects that are out of order
    /// cannot make the work grow with depth times size; past that the
    /// caller parses the classic way.
    pub(crate) fn reset(&mut self, input_len: usize) {
        self.out.len = self.out.origin;
        self.frames.clear();
        self.members.clear();
        self.moved = 0;
        self.budget = input_len.saturating_mul(8).saturating_add(1 << 20);
    }

    /// Forgets the canonical bytes written since the last reset, between two
    /// containers: the offsets handed out so far no longer hold. (The
    /// streaming digest, `contract::stream`, once the contracts that read
    /// them have been copied out.)
    pub(crate) fn rewind(&mut self) {
        self.out.len = self.out.origin;
    }

    /// Makes the output buffer hold at least `n` bytes (and the slack)
    /// before anything is written (just after [`Canon::reset`]). When it has
    /// to grow, the new buffer is a fresh one with `align - 1` bytes more,
    /// and the output starts at its first `align`-aligned byte (its
    /// *origin*, kept for every later document; the bytes before it are
    /// never written, so their pages are never touched); returns that
    /// buffer and the origin while none of its pages has been touched, so
    /// that a caller may advise the kernel on it (`mem` in a one-shot
    /// process: 2 MiB alignment puts the whole output on huge pages).
    pub(crate) fn presize(&mut self, n: usize, align: usize) -> Option<(&mut Vec<u8>, usize)> {
        let out = &mut self.out;
        debug_assert_eq!(out.len, out.origin, "presize before writing");
        if out.len + n + SLACK <= out.buf.len() {
            return None;
        }
        let align = align.max(1);
        // Sized as `Out::grow` sizes one, and room to align its start.
        let room = out.room_for(n.checked_add(SLACK)?).checked_add(align - 1)?;
        // Nothing written yet: a fresh, zero-filled buffer, nothing to copy.
        out.buf = alloc::vec![0u8; room];
        let at = out.buf.as_ptr() as usize;
        out.origin = at.next_multiple_of(align) - at;
        out.len = out.origin;
        Some((&mut out.buf, out.origin))
    }

    /// The output buffer up to the end of the canonical bytes written since
    /// the last reset (they start at the origin, see [`Canon::presize`]):
    /// the offsets [`Canon::container`] returns are into it.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.out.buf[..self.out.len]
    }

    /// Canonicalizes the array or object whose `[` or `{` is at `pos` (just
    /// handed out by `index`), reading the index up to its closing bracket:
    /// the offset and length of its canonical bytes in [`Canon::bytes`].
    /// `max_depth` counts this container. `None` when the input is not valid
    /// there, or a limit is reached.
    pub(crate) fn container(
        &mut self,
        input: &[u8],
        index: &mut Index,
        pos: usize,
        max_depth: u32,
    ) -> Option<(usize, usize)> {
        let at = self.out.len;
        self.frames.clear();
        self.members.clear();
        // Room for every byte still to come: canonical text is never longer
        // than its input, but for numbers, which make room for themselves
        // (`number`); so `Out::byte` and `Out::copy` need not check.
        self.out.reserve(input.len() - pos);
        self.value(input, index, pos, max_depth as usize)?;
        let len = self.out.len - at;
        (len <= MAX_LEN && at <= u32::MAX as usize).then_some((at, len))
    }

    /// [`Canon::walk`] on [`Canon::build`], or on the plain build where
    /// the CPU does not run the wide one.
    fn value(
        &mut self,
        input: &[u8],
        index: &mut Index,
        pos: usize,
        max_depth: usize,
    ) -> Option<()> {
        if self.build == Build::Fastest && crate::arch::wide_scalar() {
            // SAFETY: `arch::wide_scalar()` (just above) found AVX2, BMI1,
            // BMI2 and POPCNT on this CPU, with the OS saving the YMM state.
            #[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
            return unsafe { self.walk_wide(input, index, pos, max_depth) };
        }
        self.walk_plain(input, index, pos, max_depth)
    }

    /// [`Canon::walk`] for any CPU of the target.
    #[inline(never)]
    fn walk_plain(
        &mut self,
        input: &[u8],
        index: &mut Index,
        pos: usize,
        max_depth: usize,
    ) -> Option<()> {
        self.walk(input, index, pos, max_depth)
    }

    /// [`Canon::walk`] compiled for AVX2, BMI1, BMI2 and POPCNT
    /// ([`crate::arch::wide_scalar`]).
    #[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    fn walk_wide(
        &mut self,
        input: &[u8],
        index: &mut Index,
        pos: usize,
        max_depth: usize,
    ) -> Option<()> {
        self.walk(input, index, pos, max_depth)
    }

    /// Writes the value at `pos` and everything in it, up to the close of
    /// the outermost container. Always inlined, into each build of it.
    #[inline(always)]
    fn walk(
        &mut self,
        input: &[u8],
        index: &mut Index,
        mut pos: usize,
        max_depth: usize,
    ) -> Option<()> {
        'value: loop {
            let b = input[pos];
            match b {
                b'{' | b'[' => {
                    if self.frames.len() >= max_depth {
                        return None;
                    }
                    self.out.byte(b);
                    let next = index.next()?;
                    let is_object = b == b'{';
                    if input[next] == b + 2 {
                        // `{}` or `[]` (`}` and `]` are two above their openers).
                        self.out.byte(b + 2);
                    } else {
                        self.frames.push(Frame {
                            members: self.members.len() as u32,
                            is_object,
                        });
                        pos = next;
                        if is_object {
                            self.key(input, index, next)?;
                            pos = index.next()?;
                        }
                        continue 'value;
                    }
                }
                b'"' => {
                    string(input, index, pos, &mut self.out)?;
                }
                b'-' | b'0'..=b'9' => number(input, pos, &mut self.out)?,
                b't' => literal(input, pos, b"true", &mut self.out)?,
                b'f' => literal(input, pos, b"false", &mut self.out)?,
                b'n' => literal(input, pos, b"null", &mut self.out)?,
                _ => return None,
            }
            // After a value: close containers until one goes on.
            loop {
                let Some(&frame) = self.frames.last() else {
                    return Some(());
                };
                let next = index.next()?;
                match (input[next], frame.is_object) {
                    (b',', true) => {
                        self.out.byte(b',');
                        let open = index.next()?;
                        self.key(input, index, open)?;
                        pos = index.next()?;
                        continue 'value;
                    }
                    (b',', false) => {
                        self.out.byte(b',');
                        pos = index.next()?;
                        continue 'value;
                    }
                    (b'}', true) => {
                        // The key order needs valid text: every byte up to
                        // here has been classified (and checked) by now.
                        if !index.clean() {
                            return None;
                        }
                        self.close_object(input, frame.members as usize)?;
                        self.out.byte(b'}');
                    }
                    (b']', false) => self.out.byte(b']'),
                    _ => return None,
                }
                self.frames.pop();
            }
        }
    }

    /// The key whose opening quote is at `open`, and the colon after it.
    #[inline(always)]
    fn key(&mut self, input: &[u8], index: &mut Index, open: usize) -> Option<()> {
        if input[open] != b'"' {
            return None;
        }
        let out = self.out.len as u32;
        let (close, escaped) = string(input, index, open, &mut self.out)?;
        let (start, len) = (open + 1, close - open - 1);
        let prefix = if escaped {
            None
        } else {
            prefix_key(input, start, len)
        };
        let flags =
            if escaped { ESCAPED } else { 0 } | if prefix.is_none() { NO_PREFIX } else { 0 };
        self.members.push(Member {
            key: prefix.unwrap_or(0),
            out,
            start: start as u32,
            len: len as u32 | flags,
        });
        if input[index.next()?] != b':' {
            return None;
        }
        self.out.byte(b':');
        Some(())
    }

    /// Orders the members of the object closing now (from `first` on),
    /// moving their bytes, and forgets them; `None` for two equal keys or
    /// past the bound on bytes moved.
    #[inline(always)]
    fn close_object(&mut self, input: &[u8], first: usize) -> Option<()> {
        let members = &self.members[first..];
        let mut small = [0u32; SMALL];
        let order: &[u32] = match rank_order(members, &mut small) {
            Ranked::InOrder => &[],
            Ranked::Order(n) => &small[..n],
            Ranked::Compare => {
                full_order(input, members, &mut self.order)?;
                &self.order
            }
        };
        // Members already in place at the front stay where they are.
        let skip = order
            .iter()
            .enumerate()
            .take_while(|&(j, &i)| i as usize == j)
            .count();
        if skip < order.len() {
            let base = members[skip].out as usize;
            let end = self.out.len;
            self.moved += end - base;
            if self.moved > self.budget {
                return None;
            }
            self.tmp.clear();
            self.tmp.extend_from_slice(&self.out.buf[base..end]);
            // Room for the last chunk of a copy out of `tmp`.
            self.tmp.extend_from_slice(&[0; CHUNK]);
            // The chunked copies below write at most `CHUNK - 1` bytes past
            // `end`, into the slack every write keeps.
            assert!(end + SLACK <= self.out.buf.len());
            let dst = self.out.buf.as_mut_ptr();
            let src = self.tmp.as_ptr();
            // Each piece goes after a separator: the byte before the first
            // one (the `{` or a comma) is written back as it is.
            let mut sep = self.out.buf[base - 1];
            let mut at = base;
            for &i in &order[skip..] {
                let i = i as usize;
                let from = members[i].out as usize - base;
                // The member ends before the next one's comma, or at `end`.
                let to = members.get(i + 1).map_or(end + 1, |next| next.out as usize) - base - 1;
                // SAFETY: `base - 1 <= at - 1 < end`: the pieces and commas
                // written back total `end - base` bytes; inside the buffer.
                unsafe { *dst.add(at - 1) = sep };
                sep = b',';
                // SAFETY: the piece is inside `tmp`'s first `end - base`
                // bytes, and `tmp` holds `CHUNK` more, so whole chunks read
                // from `from` stay inside it; they land at `at..`, which
                // ends before `end`, plus at most `CHUNK - 1` bytes past
                // it, inside the slack asserted above.
                unsafe { copy_chunks(dst.add(at), src.add(from), to - from) };
                at += to - from + 1;
            }
            debug_assert_eq!(at, end + 1);
            self.out.len = end;
        }
        self.members.truncate(first);
        Some(())
    }
}

/// How the members of an object are ordered.
enum Ranked {
    /// Already in canonical order, no two keys equal.
    InOrder,
    /// The first `n` entries of the array: member indices in canonical order.
    Order(usize),
    /// Sort keys cannot decide: compare the keys in full.
    Compare,
}

/// Orders up to [`SMALL`] members by their sort keys alone, when every
/// member has one and no two are equal (distinct sort keys are distinct
/// strings, ordered as the strings are): each member's rank is the number
/// of smaller keys, counted without branches.
#[inline]
fn rank_order(members: &[Member], order: &mut [u32; SMALL]) -> Ranked {
    let n = members.len();
    if n < 2 {
        return Ranked::InOrder;
    }
    let mut all_keys = members[0].len & NO_PREFIX == 0;
    let mut ascending = true;
    for pair in members.windows(2) {
        all_keys &= pair[1].len & NO_PREFIX == 0;
        ascending &= pair[0].key < pair[1].key;
    }
    if !all_keys || n > SMALL {
        return Ranked::Compare;
    }
    if ascending {
        return Ranked::InOrder;
    }
    let mut taken = 0u32;
    for (i, m) in members.iter().enumerate() {
        let rank = members
            .iter()
            .map(|o| (o.key < m.key) as usize)
            .sum::<usize>();
        taken |= 1 << rank;
        order[rank] = i as u32;
    }
    // Every rank taken: the keys are distinct.
    if taken == ((1u64 << n) - 1) as u32 {
        Ranked::Order(n)
    } else {
        Ranked::Compare
    }
}

/// Orders `members` by full UTF-16 comparison into `order`; `None` when two
/// keys are equal (a duplicate key, which the exact parser reports).
fn full_order(input: &[u8], members: &[Member], order: &mut Vec<u32>) -> Option<()> {
    order.clear();
    order.extend(0..members.len() as u32);
    let cmp = |a: &u32, b: &u32| cmp_members(input, &members[*a as usize], &members[*b as usize]);
    order.sort_unstable_by(cmp);
    order
        .windows(2)
        .all(|w| cmp(&w[0], &w[1]) == Ordering::Less)
        .then_some(())
}

/// The UTF-16 order of two members' keys.
fn cmp_members(input: &[u8], a: &Member, b: &Member) -> Ordering {
    if (a.len | b.len) & NO_PREFIX == 0 && a.key != b.key {
        return a.key.cmp(&b.key);
    }
    let text = |m: &Member| {
        let start = m.start as usize;
        &input[start..start + (m.len & LEN_MASK) as usize]
    };
    cmp_utf16(text(a), a.len & ESCAPED != 0, text(b), b.len & ESCAPED != 0)
}

/// The sort key of an escape-free key of `len` bytes at `start`: its first
/// eight bytes as `json::key_sort` reads them; `None` near the input's end.
#[inline(always)]
fn prefix_key(input: &[u8], start: usize, len: usize) -> Option<u64> {
    let bytes: [u8; 8] = *input.get(start..start + 8)?.first_chunk()?;
    let keep = 8 * len.min(8) as u32;
    let word = u64::from_be_bytes(bytes) & (!0u64).checked_shl(64 - keep).unwrap_or(0);
    Some(utf16_key(word))
}

/// The literal `word` at `pos`.
#[inline(always)]
fn literal(input: &[u8], pos: usize, word: &[u8], out: &mut Out) -> Option<()> {
    let end = pos + word.len();
    (input.get(pos..end) == Some(word) && run_ends(input, end)).then(|| out.put(word))
}

/// The number token at `pos`, in canonical form.
#[inline(always)]
fn number(input: &[u8], pos: usize, out: &mut Out) -> Option<()> {
    let n = scan_number(input, pos).ok()?;
    if !run_ends(input, n.end) {
        return None;
    }
    crate::jcs::write_number(out, &input[pos..n.end], n.form, pos).ok()?;
    // Its canonical form may be longer than the token: room for the rest again.
    out.reserve(input.len() - n.end);
    Some(())
}

/// The string whose opening quote is at `open`, in canonical form: the
/// closing quote's offset, and whether the string holds escapes. The index
/// hands out the backslash of each escape, then the closing quote.
#[inline(always)]
fn string(input: &[u8], index: &mut Index, open: usize, out: &mut Out) -> Option<(usize, bool)> {
    let mut at = index.next()?;
    if input[at] == b'"' {
        out.copy(input, open, at + 1 - open);
        return Some((at, false));
    }
    out.byte(b'"');
    let mut run = open + 1;
    while input[at] == b'\\' {
        // An escape already canonical stays in the run, copied with it.
        if input.get(at + 1).is_some_and(|&c| escape_is_canonical(c)) {
            at = index.next()?;
            continue;
        }
        out.copy(input, run, at - run);
        let cp;
        (run, cp) = scan_escape(input, at).ok()?;
        crate::jcs::write_code_point(out, cp);
        // A surrogate pair's second backslash is inside the escape just read.
        while at < run {
            at = index.next()?;
        }
    }
    out.copy(input, run, at - run);
    out.byte(b'"');
    Some((at, true))
}

/// The unit of [`copy_chunks`].
const CHUNK: usize = 64;

/// Copies `n` bytes from `src` to `dst` as whole [`CHUNK`]-byte chunks (at
/// least one), so up to `CHUNK - 1` bytes past each end are read and written.
///
/// # Safety
///
/// `src` must be valid for reads, and `dst` for writes, of `n` rounded up
/// to a whole chunk (at least one), and the two ranges must not overlap.
#[inline(always)]
unsafe fn copy_chunks(dst: *mut u8, src: *const u8, n: usize) {
    let mut i = 0;
    loop {
        // SAFETY: `i < n` rounded up to a chunk, within the caller's ranges.
        unsafe {
            let chunk = src.add(i).cast::<[u8; CHUNK]>().read_unaligned();
            dst.add(i).cast::<[u8; CHUNK]>().write_unaligned(chunk);
        }
        i += CHUNK;
        if i >= n {
            break;
        }
    }
}

/// Room kept past the end of what is written: copies move whole
/// [`CHUNK`]-byte chunks, the last one running up to `CHUNK - 1` bytes past
/// the bytes it copies.
const SLACK: usize = 128;

/// The output buffer: its length is its capacity (zero-filled once), the
/// bytes from `origin` to `len` are those written (offsets are into the
/// whole buffer), and a write keeps [`SLACK`] bytes of room after it.
#[derive(Debug, Default)]
struct Out {
    buf: Vec<u8>,
    len: usize,
    /// Where each document's output starts ([`Canon::presize`]; else 0).
    origin: usize,
}

impl Out {
    /// A larger buffer, zero-filled by the allocator (fresh pages are not
    /// written until used: a short-lived process pays only for what it
    /// writes), with the bytes written so far.
    #[cold]
    fn grow(&mut self, end: usize) {
        let room = self.room_for(end);
        let mut buf = alloc::vec![0u8; room];
        // The same offsets in the new buffer; the bytes before the origin
        // were never written and are zero in both.
        buf[self.origin..self.len].copy_from_slice(&self.buf[self.origin..self.len]);
        self.buf = buf;
    }

    /// The size of a new buffer that holds `end` bytes: at least double the
    /// old one, at least 4 KiB.
    fn room_for(&self, end: usize) -> usize {
        end.max(2 * self.buf.len()).max(4096)
    }

    /// Makes room for `n` more bytes and the slack after them.
    #[inline(always)]
    fn reserve(&mut self, n: usize) {
        if self.len + n + SLACK > self.buf.len() {
            self.grow(self.len + n + SLACK);
        }
    }

    /// Appends `src[from..from + n]`, in whole chunks ([`copy_chunks`])
    /// when `src` and the buffer hold the whole last chunk. The room is the
    /// caller's (see [`Canon::container`]).
    #[inline(always)]
    fn copy(&mut self, src: &[u8], from: usize, n: usize) {
        debug_assert!(self.len + n + SLACK <= self.buf.len());
        if from + n + CHUNK <= src.len() && self.len + n + CHUNK <= self.buf.len() {
            // SAFETY: both ranges hold `n + CHUNK` bytes (checked just
            // above), more than `n` rounded up to a chunk; one is in `src`,
            // the other in the buffer, so they do not overlap.
            unsafe {
                copy_chunks(
                    self.buf.as_mut_ptr().add(self.len),
                    src.as_ptr().add(from),
                    n,
                )
            };
        } else {
            self.buf[self.len..self.len + n].copy_from_slice(&src[from..from + n]);
        }
        self.len += n;
    }

    /// Appends a short piece.
    #[inline(always)]
    fn put(&mut self, bytes: &[u8]) {
        self.reserve(bytes.len());
        crate::sha256::copy_short(&mut self.buf[self.len..self.len + bytes.len()], bytes);
        self.len += bytes.len();
    }

    /// Appends one byte. The room is the caller's (see [`Canon::container`]).
    #[inline(always)]
    fn byte(&mut self, b: u8) {
        debug_assert!(self.len + 1 + SLACK <= self.buf.len());
        self.buf[self.len] = b;
        self.len += 1;
    }
}

impl Sink for Out {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.put(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::super::indexed::{parse_valid, Containers, Place};
    use super::super::parser::parse_exact;
    use super::super::test_docs::generated_and_mutated;
    use super::*;
    use crate::contract::tools_list::ListShape;
    use crate::jcs::write_value;
    use crate::limits::Limits;
    use std::string::String;

    /// Every container collapsed, the root too: the canonicalizer alone.
    struct All<'c>(&'c mut Canon);

    impl Containers for All<'_> {
        fn collapse(
            &mut self,
            input: &[u8],
            index: &mut Index,
            pos: usize,
            _: Place<'_>,
            max_depth: u32,
        ) -> Result<Option<(usize, usize)>, ()> {
            self.0
                .container(input, index, pos, max_depth)
                .map(Some)
                .ok_or(())
        }
    }

    /// The classic route: the exact parser's tape and the tape writer.
    fn classic(input: &[u8], limits: &Limits) -> Option<Vec<u8>> {
        let mut nodes = Vec::new();
        parse_exact(input, &mut nodes, limits).ok()?;
        let mut out = Vec::new();
        write_value(&mut out, input, &nodes, &[], 0).ok()?;
        Some(out)
    }

    /// The one-pass route with `containers`, every classifier: the same
    /// verdict and the same bytes as the classic route.
    fn check_with(input: &[u8], limits: &Limits, all: bool) {
        let want = classic(input, limits);
        let mut canon = Canon::default();
        let shown = || String::from_utf8_lossy(input).into_owned();
        let runs = crate::arch::parser_test_classifiers()
            .into_iter()
            .flat_map(|c| builds().into_iter().map(move |b| (c, b)));
        for ((name, classifier), build) in runs {
            let mut nodes = Vec::new();
            canon.reset(input.len());
            canon.build = build;
            let ok = if all {
                parse_valid(
                    input,
                    &mut nodes,
                    limits.max_depth,
                    classifier,
                    &mut All(&mut canon),
                )
            } else {
                parse_valid(
                    input,
                    &mut nodes,
                    limits.max_depth,
                    classifier,
                    &mut ListShape(&mut canon),
                )
            };
            let got = ok
                .then(|| {
                    let mut out = Vec::new();
                    write_value(&mut out, input, &nodes, canon.bytes(), 0).ok()?;
                    Some(out)
                })
                .flatten();
            // A scalar root is not a container: `All` then keeps it as a node.
            assert_eq!(
                got.as_ref()
                    .map(|b| String::from_utf8_lossy(b).into_owned()),
                want.as_ref()
                    .map(|b| String::from_utf8_lossy(b).into_owned()),
                "{name}, {build:?} build (all collapsed: {all}) on {:?}",
                shown()
            );
        }
    }

    /// The builds of the loop to check: the one this CPU runs, and the
    /// plain one where that is the wide one (natively; Miri checks the
    /// one source once).
    fn builds() -> Vec<Build> {
        let mut builds = std::vec![Build::Fastest];
        if crate::arch::wide_scalar() && !cfg!(miri) {
            builds.push(Build::Plain);
        }
        builds
    }

    /// Where the CPU runs the wide build, every check below compares both
    /// builds with the classic route; elsewhere only one build exists.
    #[test]
    fn both_builds_are_checked_where_both_run() {
        if !crate::arch::wide_scalar() {
            std::eprintln!(
                "NOTICE: both_builds_are_checked_where_both_run: SKIPPED, one build only (not x86_64, no AVX2/BMI2, or --cfg contractpin_portable_simd)"
            );
            return;
        }
        let want = if cfg!(miri) { 1 } else { 2 };
        assert_eq!(builds().len(), want);
    }

    fn check(input: &[u8]) {
        check_with(input, &Limits::DEFAULT, false);
        check_with(input, &Limits::DEFAULT, true);
    }

    #[test]
    fn generated_and_mutated_documents() {
        generated_and_mutated(0x0e0e_5eed_1234_0001, crate::test_rng::rounds(6_000), check);
    }

    #[test]
    fn tools_lists_in_every_shape() {
        let tool = r#"{"name":"b\u00e9","inputSchema":{"type":"object","properties":{"z":{"type":"string","enum":["x","\u0079"]},"a":{"type":"number","minimum":1E3}}},"description":"d\n","annotations":{"readOnlyHint":true,"title":"T"},"_meta":{"k":[1,2.50]}}"#;
        let other = r#"{"inputSchema":{},"name":"a","outputSchema":null,"tools":{"x":[]},"result":[{"b":1,"a":2}]}"#;
        for doc in [
            std::format!(
                r#"{{"jsonrpc":"2.0","id":1,"result":{{"tools":[{tool},{other}],"nextCursor":null}}}}"#
            ),
            std::format!(r#"{{"tools":[{tool},{other}]}}"#),
            std::format!(r#"[{tool},{other}]"#),
            std::format!(r#"[{{"result":{{"tools":[{tool}]}}}},{{"tools":[{other}]}}]"#),
            std::format!(r#"{{"error":{{"code":-1,"b":1,"a":2}},"result":{{"tools":[{tool}]}}}}"#),
            std::format!(r#"[[{tool}],{{"tools":[[{other}]]}}]"#),
        ] {
            check(doc.as_bytes());
        }
    }

    #[test]
    fn depth_limits_count_collapsed_levels() {
        for depth in 1..8u32 {
            let limits = Limits {
                max_depth: depth,
                ..Limits::DEFAULT
            };
            for doc in [
                r#"{"tools":[{"name":"a","inputSchema":{"a":{"b":[{"c":[]}]}}}]}"#,
                r#"[{"name":"a","x":[[[[]]]]}]"#,
                r#"{"a":{"b":{"c":{}}},"b":[[1]]}"#,
            ] {
                check_with(doc.as_bytes(), &limits, false);
                check_with(doc.as_bytes(), &limits, true);
            }
        }
    }

    #[test]
    fn test_suite_and_conformance_files() {
        super::super::test_docs::suite_files(check);
    }

    /// Objects nested deep, each out of order around everything inside it:
    /// moving every level into order would cost depth times size, so the
    /// canonicalizer gives up past its bound and the classic route runs.
    #[test]
    #[cfg_attr(
        miri,
        ignore = "800 KB moved 200 times is too slow under Miri; the other tests take its paths"
    )]
    fn moving_into_order_is_bounded() {
        let pad = "x".repeat(2_000);
        let mut doc = String::new();
        for _ in 0..200 {
            doc.push_str(r#"{"b":"#);
        }
        doc.push('1');
        for _ in 0..200 {
            doc.push_str(&std::format!(r#","a":"{pad}"}}"#));
        }
        let input = doc.as_bytes();
        let mut canon = Canon::default();
        canon.reset(input.len());
        let mut index = Index::new(input, crate::arch::classifier());
        let first = index.next().unwrap();
        assert!(canon.container(input, &mut index, first, 256).is_none());
        assert!(canon.moved > canon.budget);
        // The whole route still gives the canonical bytes.
        let want = classic(input, &Limits::DEFAULT).unwrap();
        assert_eq!(
            crate::Context::new().canonicalize(input).unwrap(),
            &want[..]
        );
        // A shallower copy stays within the bound.
        let shallow = r#"{"b":{"b":{"b":1,"a":2},"a":3},"a":4}"#.as_bytes();
        canon.reset(shallow.len());
        let mut index = Index::new(shallow, crate::arch::classifier());
        let first = index.next().unwrap();
        let (at, len) = canon.container(shallow, &mut index, first, 256).unwrap();
        assert_eq!(
            &canon.bytes()[at..at + len],
            br#"{"a":4,"b":{"a":3,"b":{"a":2,"b":1}}}"#
        );
    }
}
