//! The structural index (simdjson's stage 1, streamed a run of blocks at a
//! time so it needs no memory beyond a fixed buffer): for each 64-byte
//! block, which bytes start a token the tape builder must look at.
//!
//! [`crate::arch`] classifies the block's bytes into bitmasks (quotes,
//! backslashes, `{}[],:`, whitespace, control characters); this module
//! carries the state from block to block and turns the masks into:
//!
//! - **escaped bytes**: those after an odd run of backslashes (the run may
//!   start in an earlier block);
//! - **strings**: the bytes from an unescaped opening quote up to, not
//!   including, its closing quote (a prefix XOR of the unescaped quotes);
//! - **structural bits**: every unescaped quote (opening and closing),
//!   every backslash inside a string that starts an escape (is not itself
//!   escaped), every `{}[],:` outside strings, and the first byte of every
//!   run of other bytes outside strings (a number or literal, or garbage);
//! - a flag for control characters inside strings (always an error), and
//!   one for invalid UTF-8 when the classifier checks it (AVX-512, AVX2).
//!
//! Every byte outside strings that is neither whitespace nor structural
//! continues a run whose first byte is structural, so a tape builder that
//! consumes each run whole sees the whole input. The index knows nothing of
//! the grammar and never fails; bad JSON gives bits the builder rejects.

use crate::arch::{Classifier, Masks};

/// Bits at even positions.
const EVEN: u64 = 0x5555_5555_5555_5555;

/// The bytes of a block escaped by a backslash. `carry` is 1 when the first
/// byte is escaped by the previous block's last backslash, and is set for
/// the next block. (simdjson's odd-run detection: a run of backslashes
/// escapes the byte after it exactly when the run is odd.)
#[inline(always)]
fn escaped_bytes(backslash: u64, carry: &mut u64) -> u64 {
    let escaped_first = *carry;
    // (No early exit for blocks without backslashes: the formula gives
    // `escaped_first` for them, and a branch here is hard to predict.)
    // A backslash escaped by the previous block does not start a run.
    let backslash = backslash & !escaped_first;
    let follows_escape = (backslash << 1) | escaped_first;
    let odd_starts = backslash & !EVEN & !follows_escape;
    let (even_runs, overflow) = odd_starts.overflowing_add(backslash);
    *carry = overflow as u64;
    let invert = even_runs << 1;
    (EVEN ^ invert) & follows_escape
}

/// Bit `i` of the result is the XOR of bits `0..=i` of `x`.
#[inline(always)]
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// What one block hands on to the next.
#[derive(Clone, Copy, Default)]
struct Carry {
    /// 1 when the next block's first byte is escaped.
    escaped: u64,
    /// All ones when the block ended inside a string.
    in_string: u64,
    /// 1 when the block ended in a run of other bytes outside strings.
    other: u64,
}

/// The structural bits of one block, and whether a string holds a control character.
#[inline(always)]
fn structurals(m: Masks, carry: &mut Carry) -> (u64, bool) {
    let escaped = escaped_bytes(m.backslash, &mut carry.escaped);
    let quote = m.quote & !escaped;
    // Set from an opening quote up to (not including) its closing quote.
    let in_string = prefix_xor(quote) ^ carry.in_string;
    carry.in_string = ((in_string as i64) >> 63) as u64;
    let outside = !(in_string | quote);
    let other = outside & !(m.op | m.ws);
    let run_starts = other & !((other << 1) | carry.other);
    carry.other = other >> 63;
    // (An opening quote is in `in_string` but is never a backslash.)
    let escapes = m.backslash & !escaped & in_string;
    let bits = (m.op & outside) | quote | run_starts | escapes;
    (bits, m.ctrl & in_string != 0)
}

/// Blocks classified per refill (chosen by measurement: docs/PERFORMANCE.md).
const BLOCKS: usize = 8;

/// Room for the structural positions of one refill: one per byte (a power
/// of two, so that [`Index::next`] masks its index instead of checking it).
const SLOTS: usize = 64 * BLOCKS;
const _: () = assert!(SLOTS.is_power_of_two());

/// Appends the positions of the bits of `bits` (`offset` plus the bit's
/// index) to `slots` at `tail`, and returns the new tail. Each block writes
/// to the 64 slots from `tail`, which exist since `tail <= offset <= SLOTS -
/// 64`; the slots past the new tail get values that the next block
/// overwrites or that are never read. With `COMPRESS`, one AVX-512 VBMI2
/// compress ([`crate::arch::flatten_avx512`]); otherwise simdjson's flatten:
/// eight stores whatever the count, eight more when there are more than
/// eight, then one at a time, so that few blocks branch on their count.
#[inline(always)]
fn flatten<const COMPRESS: bool>(
    slots: &mut [u32; SLOTS],
    tail: usize,
    offset: usize,
    mut bits: u64,
) -> usize {
    let count = bits.count_ones() as usize;
    let window = slots[tail..]
        .first_chunk_mut::<64>()
        .expect("tail <= SLOTS - 64");
    #[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
    if COMPRESS {
        // SAFETY: only `refill_compress` instantiates `COMPRESS`, and
        // `Index::new` picks it only after `flatten_avx512_available()`.
        unsafe { crate::arch::flatten_avx512(window, offset as u32, bits) };
        return tail + count;
    }
    let mut take = || {
        let at = offset as u32 + bits.trailing_zeros();
        bits &= bits.wrapping_sub(1);
        at
    };
    window[..8].fill_with(&mut take);
    if count > 8 {
        window[8..16].fill_with(&mut take);
        if count > 16 {
            window[16..count].fill_with(&mut take);
        }
    }
    tail + count
}

/// The index of one input, classified a run of blocks at a time as the
/// tape builder asks, the structural positions of each run flattened into
/// a buffer that [`Index::next`] pops. About 2.4 KiB: `SLOTS` `u32`s and
/// the `BLOCKS` masks of a run.
pub(crate) struct Index<'a> {
    input: &'a [u8],
    classifier: Classifier,
    /// Classifies the next run of blocks and flattens its structural
    /// positions into `slots`, skipping runs without any; `false` at the
    /// end of the input ([`Index::refill_run`], compiled for this CPU).
    refill: fn(&mut Index<'a>) -> bool,
    carry: Carry,
    /// Offset of the first block of the last run: `slots` holds positions
    /// relative to it.
    base: usize,
    /// Offset of the next block to classify.
    next_block: usize,
    /// The structural positions of the last run; those at `head..tail`
    /// are not handed out yet.
    slots: [u32; SLOTS],
    head: usize,
    tail: usize,
    /// The masks of the last run (kept here so no refill clears them).
    masks: [Masks; BLOCKS],
    /// A control character inside a string has been seen.
    control_in_string: bool,
    /// The classifier found invalid UTF-8.
    utf8_error: bool,
}

/// [`Index::refill_run`] compiled with POPCNT and BMI1 (`popcnt` for the
/// count of a block's positions, `tzcnt` and `blsr` for each of them).
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
#[target_feature(enable = "popcnt,bmi1")]
fn refill_bit_ops(index: &mut Index) -> bool {
    index.refill_run::<false>()
}

/// [`Index::refill_run`] with the AVX-512 VBMI2 flatten (and POPCNT).
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
#[target_feature(enable = "popcnt,bmi1,avx512f,avx512bw,avx512vbmi2")]
fn refill_compress(index: &mut Index) -> bool {
    index.refill_run::<true>()
}

/// [`refill_bit_ops`] behind a safe signature, handed out by
/// [`Index::new`] only after [`crate::arch::bit_ops`].
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
fn refill_bit_ops_checked(index: &mut Index) -> bool {
    // SAFETY: `Index::new` picks this refill only when `arch::bit_ops()`
    // found POPCNT and BMI1 on this CPU.
    unsafe { refill_bit_ops(index) }
}

/// [`refill_compress`] behind a safe signature, handed out by
/// [`Index::new`] only after [`crate::arch::flatten_avx512_available`].
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
fn refill_compress_checked(index: &mut Index) -> bool {
    // SAFETY: `Index::new` picks this refill only when
    // `arch::flatten_avx512_available()` found AVX-512 F, BW and VBMI2
    // (with OS support), POPCNT and BMI1 on this CPU.
    unsafe { refill_compress(index) }
}

impl<'a> Index<'a> {
    /// An index of `input`, classified with `classifier` (see [`crate::arch::classifier`]).
    pub(crate) fn new(input: &'a [u8], classifier: Classifier) -> Index<'a> {
        Index {
            input,
            classifier,
            refill: Self::refill_for_this_cpu(),
            carry: Carry::default(),
            base: 0,
            next_block: 0,
            slots: [0; SLOTS],
            head: 0,
            tail: 0,
            masks: [Masks::default(); BLOCKS],
            control_in_string: false,
            utf8_error: false,
        }
    }

    /// The copy of [`Index::refill_run`] this CPU runs best.
    fn refill_for_this_cpu() -> fn(&mut Index<'a>) -> bool {
        #[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
        {
            if crate::arch::flatten_avx512_available() {
                return |index| refill_compress_checked(index);
            }
            if crate::arch::bit_ops() {
                return |index| refill_bit_ops_checked(index);
            }
        }
        Self::refill_plain
    }

    /// Every copy of [`Index::refill_run`] this CPU can run (for the tests).
    #[cfg(test)]
    fn all_refills() -> std::vec::Vec<fn(&mut Index<'a>) -> bool> {
        #[allow(unused_mut)]
        let mut all: std::vec::Vec<fn(&mut Index<'a>) -> bool> = std::vec![Self::refill_plain];
        #[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
        {
            if crate::arch::bit_ops() {
                all.push(|index| refill_bit_ops_checked(index));
            }
            if crate::arch::flatten_avx512_available() {
                all.push(|index| refill_compress_checked(index));
            }
        }
        all
    }

    /// [`Index::refill_run`] for any CPU.
    #[inline(never)]
    fn refill_plain(&mut self) -> bool {
        self.refill_run::<false>()
    }

    /// What `refill` does (the one copy of the per-block carries).
    #[inline(always)]
    fn refill_run<const COMPRESS: bool>(&mut self) -> bool {
        loop {
            let start = self.next_block;
            if start >= self.input.len() {
                return false;
            }
            let blocks = self.classify(start);
            let (mut carry, mut control, mut tail) = (self.carry, false, 0);
            for (k, m) in self.masks[..blocks].iter().enumerate() {
                let (bits, in_string) = structurals(*m, &mut carry);
                control |= in_string;
                tail = flatten::<COMPRESS>(&mut self.slots, tail, 64 * k, bits);
            }
            self.carry = carry;
            self.control_in_string |= control;
            self.base = start;
            self.next_block = start + 64 * blocks;
            (self.head, self.tail) = (0, tail);
            if tail > 0 {
                return true;
            }
        }
    }

    /// Classifies the blocks from `start` (inside the input) into `masks`:
    /// up to `BLOCKS` whole ones, or else the last, partial block, padded
    /// with spaces. Returns how many.
    #[inline(always)]
    fn classify(&mut self, start: usize) -> usize {
        let prev = match start.checked_sub(64) {
            Some(p) => self.input[p..start].first_chunk::<64>(),
            None => None,
        };
        let prev = prev.unwrap_or(&[0; 64]);
        let (whole, rest) = self.input[start..].as_chunks::<64>();
        let mut padded = [b' '; 64];
        let blocks = if whole.is_empty() {
            padded[..rest.len()].copy_from_slice(rest);
            core::slice::from_ref(&padded)
        } else {
            &whole[..whole.len().min(BLOCKS)]
        };
        self.utf8_error |= (self.classifier.classify)(blocks, prev, &mut self.masks);
        blocks.len()
    }

    /// The offset of the next structural byte, or `None` at the end.
    #[inline(always)]
    pub(crate) fn next(&mut self) -> Option<usize> {
        if self.head == self.tail && !(self.refill)(self) {
            return None;
        }
        // (`head < tail <= SLOTS` here; the mask only spares a bounds check.)
        let at = self.slots[self.head % SLOTS];
        self.head += 1;
        Some(self.base + at as usize)
    }

    /// Whether a control character (below 0x20) was seen inside a string
    /// in the blocks classified so far (a run ahead of [`Index::next`]).
    #[cfg(test)]
    pub(crate) fn control_in_string(&self) -> bool {
        self.control_in_string
    }

    /// Whether the classifier found invalid UTF-8 in the blocks classified
    /// so far (never, when it does not check: [`Classifier::checks_utf8`]).
    #[cfg(test)]
    pub(crate) fn utf8_error(&self) -> bool {
        self.utf8_error
    }

    /// Neither of the two above: the strings classified so far hold no
    /// control character and (as far as checked) valid UTF-8.
    #[inline(always)]
    pub(crate) fn clean(&self) -> bool {
        !(self.control_in_string | self.utf8_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    /// The naive reference, one byte at a time: the structural offsets and
    /// whether a string held a control character.
    fn naive(input: &[u8]) -> (Vec<usize>, bool) {
        let (mut bits, mut control) = (Vec::new(), false);
        let (mut in_string, mut escape_next, mut prev_other) = (false, false, false);
        for (i, &b) in input.iter().enumerate() {
            let escaped = escape_next;
            escape_next = b == b'\\' && !escaped;
            let other = if b == b'"' && !escaped {
                bits.push(i);
                in_string = !in_string;
                false
            } else if in_string {
                control |= b < 0x20;
                if b == b'\\' && !escaped {
                    bits.push(i);
                }
                false
            } else if matches!(b, b'{' | b'}' | b'[' | b']' | b',' | b':') {
                bits.push(i);
                false
            } else if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                false
            } else {
                if !prev_other {
                    bits.push(i);
                }
                true
            };
            prev_other = other;
        }
        (bits, control)
    }

    /// The index's answer, the same from every copy of the refill.
    fn indexed(input: &[u8], classifier: Classifier) -> (Vec<usize>, bool) {
        let answers: Vec<_> = Index::all_refills()
            .into_iter()
            .map(|refill| {
                let mut index = Index::new(input, classifier);
                index.refill = refill;
                let mut bits = Vec::new();
                while let Some(at) = index.next() {
                    bits.push(at);
                }
                (bits, index.control_in_string())
            })
            .collect();
        for other in &answers[1..] {
            assert_eq!(*other, answers[0], "the refills on {input:?}");
        }
        answers.into_iter().next().expect("the plain refill")
    }

    fn check(input: &[u8]) {
        let want = naive(input);
        for (name, classifier) in crate::arch::parser_test_classifiers() {
            assert_eq!(indexed(input, classifier), want, "{name} on {input:?}");
        }
    }

    use crate::arch::xorshift;
    use crate::test_rng::{rounds, STEP};

    #[test]
    fn escapes_match_a_byte_loop() {
        let mut next = xorshift(0x1234_5678_9abc_def1);
        for _ in 0..rounds(20_000) {
            let backslash = next() & next();
            let mut carry = next() & 1;
            let start = carry;
            let got = escaped_bytes(backslash, &mut carry);
            let (mut want, mut escape_next) = (0u64, start == 1);
            for i in 0..64 {
                if escape_next {
                    want |= 1 << i;
                }
                escape_next = backslash >> i & 1 == 1 && !escape_next;
            }
            assert_eq!(got, want, "{backslash:#x} carry {start}");
            assert_eq!(carry, escape_next as u64, "{backslash:#x} carry {start}");
        }
    }

    #[test]
    fn adversarial_block_edges() {
        // Backslash runs of every length ending on and around block edges,
        // before a quote.
        for run in (0..70).step_by(STEP) {
            for end in [
                60usize,
                62,
                63,
                64,
                65,
                126,
                127,
                128,
                129,
                SLOTS,
                SLOTS + 1,
            ] {
                if run >= end {
                    continue;
                }
                let mut s = std::vec![b'a'; end - run];
                s[0] = b'"';
                s.extend(std::iter::repeat_n(b'\\', run));
                s.extend_from_slice(b"\"x\",1]");
                check(&s);
                check(&s[1..]);
            }
        }
        // A quote at every offset around the edges, opening and closing.
        for at in (56..136).chain(SLOTS - 8..SLOTS + 8).step_by(STEP) {
            let mut s = std::vec![b' '; at];
            s.extend_from_slice(b"\"ab\"");
            check(&s);
            let mut s = std::vec![b'x'; at];
            s[0] = b'"';
            s.extend_from_slice(b"\":true}");
            check(&s);
        }
        // Multi-byte UTF-8 and control characters across the edges.
        for at in (58..70).chain(SLOTS - 6..SLOTS + 2).step_by(STEP) {
            for tail in [
                "é\"",
                "€\"",
                "😀\"",
                "\u{1}\"",
                "\t\"",
                "\u{1f}a\"",
                "\\\"\"",
            ] {
                let mut s = std::vec![b'"'];
                s.extend(std::iter::repeat_n(b'a', at));
                s.extend_from_slice(tail.as_bytes());
                s.extend_from_slice(b", null ,tru");
                check(&s);
            }
        }
        // Runs of other bytes across the edges, and an unterminated string.
        let mut s = std::vec![b'1'; 130];
        s.extend_from_slice(b" \"open");
        check(&s);
        check(b"");
        check(b"\"");
        check(b"\\");
    }

    #[test]
    fn random_inputs_match_a_byte_loop() {
        let mut next = xorshift(0xdead_beef_cafe_f00d);
        let alphabet: &[u8] = b"\"\"\\\\\\{}[],: \t\n\r\x01\x1faaaa01tnf-.e\x80\xc3\xa9\xff";
        for round in 0..rounds(6_000) {
            let len = (next() % 300) as usize;
            let input: Vec<u8> = (0..len)
                .map(|_| {
                    let r = next();
                    if round % 5 == 0 {
                        r as u8
                    } else {
                        alphabet[(r % alphabet.len() as u64) as usize]
                    }
                })
                .collect();
            check(&input);
        }
    }

    #[test]
    fn long_inputs_match_a_byte_loop() {
        // Several runs of blocks, dense (every byte structural, the
        // one-at-a-time tail of `flatten`) and sparse (runs without any
        // position), in random mixes.
        check(&std::vec![b'['; 3 * SLOTS + 5]);
        check(
            &[
                b",".repeat(SLOTS + 64),
                b"\"".to_vec(),
                std::vec![b'a'; 2 * SLOTS],
                b"\"1".to_vec(),
            ]
            .concat(),
        );
        let mut next = xorshift(0x5851_f42d_4c95_7f2d);
        let alphabets: [&[u8]; 3] = [
            b"[],:{}\"1 ",
            b"aaaaaaaaaaaaaaaaaaaa\"\\ ",
            b"\"\\{}[],: \t1a\xc3\xa9\x01",
        ];
        for round in 0..rounds(300) {
            let alphabet = alphabets[round % 3];
            let len = (next() % (4 * SLOTS as u64)) as usize;
            let input: Vec<u8> = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            check(&input);
        }
    }

    /// Whether the index reports invalid UTF-8 for `input`, read to the end.
    fn index_utf8_error(input: &[u8], classifier: Classifier) -> bool {
        let mut index = Index::new(input, classifier);
        while index.next().is_some() {}
        index.utf8_error()
    }

    #[test]
    fn utf8_checks_agree_with_core() {
        let checking: Vec<_> = crate::arch::all_classifiers()
            .into_iter()
            .filter(|(_, c)| c.checks_utf8)
            .collect();
        if checking.is_empty() {
            std::eprintln!(
                "*** SKIPPED: no classifier here checks UTF-8 (no AVX2, or a portable build)"
            );
        }
        let mut next = xorshift(0x0123_4567_89ab_cdef);
        let pieces: &[&[u8]] = &[
            b"a",
            b" ",
            b"\"",
            b"\xc3\xa9",
            b"\xe2\x82\xac",
            b"\xf0\x9f\x98\x80",
            b"\xef\xbf\xbf",
            b"\xee\x80\x80",
            b"\xf4\x8f\xbf\xbf",
            b"\xc2\x80",
            b"\xdf\xbf",
            b"\xe0\xa0\x80",
            b"\xed\x9f\xbf",
            b"\xf0\x90\x80\x80",
            // Wrong: overlong, surrogate, too large, lone or missing continuations.
            b"\xc0\xaf",
            b"\xc1\xbf",
            b"\xe0\x80\xaf",
            b"\xed\xa0\x80",
            b"\xf4\x90\x80\x80",
            b"\xf5\x80\x80\x80",
            b"\xff",
            b"\xfe",
            b"\x80",
            b"\xbf",
            b"\xc3",
            b"\xe2\x82",
            b"\xf0\x9f\x98",
            b"\xf0\x80\x80\x80",
        ];
        for round in 0..rounds(20_000) {
            let mut input = std::vec![b'a'; round % 64];
            let valid_only = round % 3 == 0;
            while input.len() < 20 + round % 200 {
                let piece = pieces[(next() % pieces.len() as u64) as usize];
                if valid_only && core::str::from_utf8(piece).is_err() {
                    continue;
                }
                input.extend_from_slice(piece);
            }
            if round % 2 == 0 {
                // Random bytes too.
                let at = (next() as usize) % input.len();
                input[at] = next() as u8;
            }
            // (The contract: over an input that ends in ASCII.)
            input.push(b'}');
            let want = core::str::from_utf8(&input).is_err();
            for (name, c) in &checking {
                assert_eq!(index_utf8_error(&input, *c), want, "{name} on {input:?}");
            }
        }
    }
}
