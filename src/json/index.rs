//! The structural index (simdjson's stage 1, streamed a block at a time so
//! it needs no memory): for each 64-byte block, which bytes start a token
//! the tape builder must look at.
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
//!   one for invalid UTF-8 when the classifier checks it (AVX2).
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

/// The index of one input, read block by block as the tape builder asks.
pub(crate) struct Index<'a> {
    input: &'a [u8],
    classifier: Classifier,
    carry: Carry,
    /// Offset of the current block.
    base: usize,
    /// Offset of the next block to classify.
    next_block: usize,
    /// Structural bits of the current block not handed out yet.
    bits: u64,
    /// A control character inside a string has been seen.
    control_in_string: bool,
    /// The classifier found invalid UTF-8.
    utf8_error: bool,
}

impl<'a> Index<'a> {
    /// An index of `input`, classified with `classifier` (see [`crate::arch::classifier`]).
    pub(crate) fn new(input: &'a [u8], classifier: Classifier) -> Index<'a> {
        Index {
            input,
            classifier,
            carry: Carry::default(),
            base: 0,
            next_block: 0,
            bits: 0,
            control_in_string: false,
            utf8_error: false,
        }
    }

    /// Classifies the next block; `false` at the end of the input. The
    /// last, partial block is padded with spaces.
    #[inline]
    fn advance(&mut self) -> bool {
        let start = self.next_block;
        if start >= self.input.len() {
            return false;
        }
        let prev = match start.checked_sub(64) {
            Some(p) => self.input[p..start].first_chunk::<64>(),
            None => None,
        };
        let prev = prev.unwrap_or(&[0; 64]);
        let rest = &self.input[start..];
        let classify = self.classifier.classify;
        let masks = match rest.first_chunk::<64>() {
            Some(block) => classify(block, prev),
            None => {
                let mut block = [b' '; 64];
                block[..rest.len()].copy_from_slice(rest);
                classify(&block, prev)
            }
        };
        let (bits, control) = structurals(masks, &mut self.carry);
        self.base = start;
        self.next_block = start + 64;
        self.bits = bits;
        self.control_in_string |= control;
        self.utf8_error |= masks.utf8_error;
        true
    }

    /// The offset of the next structural byte, or `None` at the end.
    #[inline(always)]
    pub(crate) fn next(&mut self) -> Option<usize> {
        while self.bits == 0 {
            if !self.advance() {
                return None;
            }
        }
        let at = self.bits.trailing_zeros() as usize;
        self.bits &= self.bits - 1;
        Some(self.base + at)
    }

    /// Whether a control character (below 0x20) was seen inside a string
    /// in the blocks classified so far.
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

    /// The index's answer.
    fn indexed(input: &[u8], classifier: Classifier) -> (Vec<usize>, bool) {
        let mut index = Index::new(input, classifier);
        let mut bits = Vec::new();
        while let Some(at) = index.next() {
            bits.push(at);
        }
        (bits, index.control_in_string())
    }

    fn check(input: &[u8]) {
        let want = naive(input);
        for (name, classifier) in crate::arch::all_classifiers() {
            assert_eq!(indexed(input, classifier), want, "{name} on {input:?}");
        }
    }

    use crate::arch::xorshift;

    #[test]
    fn escapes_match_a_byte_loop() {
        let mut next = xorshift(0x1234_5678_9abc_def1);
        for _ in 0..20_000 {
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
        for run in 0..70 {
            for end in [60usize, 62, 63, 64, 65, 126, 127, 128, 129] {
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
        for at in 56..136 {
            let mut s = std::vec![b' '; at];
            s.extend_from_slice(b"\"ab\"");
            check(&s);
            let mut s = std::vec![b'x'; at];
            s[0] = b'"';
            s.extend_from_slice(b"\":true}");
            check(&s);
        }
        // Multi-byte UTF-8 and control characters across the edges.
        for at in 58..70 {
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
        for round in 0..6_000 {
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
        for round in 0..20_000 {
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
