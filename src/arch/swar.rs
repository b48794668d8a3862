//! The portable twin: eight bytes at a time in a `u64` (SWAR). Used on
//! targets other than `x86_64`, under Miri and with
//! `--cfg contractpin_portable_simd`; compiled everywhere so the tests
//! compare it with the SIMD back ends and a naive byte loop.

use super::{Class, Masks};

/// This back end's name in the tests' lists.
#[cfg(test)]
pub(super) const NAME: &str = "swar";

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;
const LOWS: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// High bit set in each byte of the result where `w` has a class byte.
/// Only the lowest flagged byte is exact (borrows can flag bytes above it).
#[inline(always)]
fn flags(w: u64, class: Class) -> u64 {
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v;
    let backslash = has_zero(w ^ (ONES * b'\\' as u64));
    let quote = || has_zero(w ^ (ONES * b'"' as u64));
    let bits = match class {
        Class::Backslash => backslash,
        Class::QuoteOrBackslash => backslash | quote(),
        Class::StringSpecial => backslash | quote() | w.wrapping_sub(ONES * 0x20) | w,
    };
    bits & HIGHS
}

/// [`super::skip_blocks`] with 8-byte words.
#[inline(always)]
pub(super) fn skip(input: &[u8], mut pos: usize, class: Class) -> usize {
    while pos + 8 <= input.len() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&input[pos..pos + 8]);
        let mask = flags(u64::from_le_bytes(word), class);
        if mask != 0 {
            return pos + (mask.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    pos
}

/// [`super::digits_end`] with 8-byte words: a byte is a digit when its high
/// nibble is 3 and its low nibble plus 6 stays below 16 (neither sum
/// carries out of its byte, so every flagged byte is exact).
#[inline(always)]
pub(super) fn digits_end(input: &[u8], mut pos: usize) -> usize {
    const HIGH_NIBBLES: u64 = 0xf0f0_f0f0_f0f0_f0f0;
    while pos + 8 <= input.len() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&input[pos..pos + 8]);
        let w = u64::from_le_bytes(word);
        let low = w & !HIGH_NIBBLES;
        let other = ((w & HIGH_NIBBLES) ^ (ONES * 0x30)) | ((low + ONES * 6) & HIGH_NIBBLES);
        if other != 0 {
            let flagged = !zero_bytes(other) & HIGHS;
            return pos + (flagged.trailing_zeros() / 8) as usize;
        }
        pos += 8;
    }
    pos + input[pos..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count()
}

/// High bit of each byte set exactly where that byte of `w` is zero (no
/// borrows: the low seven bits are added without reaching the high bit).
#[inline(always)]
fn zero_bytes(w: u64) -> u64 {
    !(((w & LOWS).wrapping_add(LOWS)) | w) & HIGHS
}

/// High bit of each byte set exactly where that byte of `w` equals `c`.
#[inline(always)]
fn eq(w: u64, c: u8) -> u64 {
    zero_bytes(w ^ (ONES * c as u64))
}

/// The eight high bits of `h` (only bits 7, 15, ..., 63 set) as bits 0..8.
#[inline(always)]
fn gather(h: u64) -> u64 {
    // The product places byte k's bit at 56 + k, with no two terms on one bit.
    ((h >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// The [`Masks`] of one block (for [`super::Classifier`]), with eight 8-byte words.
pub(super) fn classify(block: &[u8; 64]) -> Masks {
    let mut out = [0u64; 5];
    for (i, chunk) in block.chunks_exact(8).enumerate() {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        let folded = w | (ONES * 0x20);
        let op = eq(folded, b'{') | eq(folded, b'}') | eq(w, b',') | eq(w, b':');
        let ws = eq(w, b' ') | eq(w, b'\t') | eq(w, b'\n') | eq(w, b'\r');
        // A byte without its high bit is below 0x20 iff adding 0x60 leaves bit 7 clear.
        let ctrl = !(((w & LOWS).wrapping_add(ONES * 0x60)) | w) & HIGHS;
        let lanes = [eq(w, b'"'), eq(w, b'\\'), op, ws, ctrl];
        for (o, h) in out.iter_mut().zip(lanes) {
            *o |= gather(h) << (8 * i);
        }
    }
    Masks::from_array(out)
}
