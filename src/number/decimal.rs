//! The canonical form of a number token read straight from its digits,
//! without a double, where the digits are provably the shortest ones.
//!
//! Spec section 3.6 prints a number as the shortest digits `s` that read
//! back as its double (`k` digits, the point after `n` of them), in
//! ECMAScript's layout. When the token's own significant digits (leading and
//! trailing zeros dropped) are at most 15, and its value lies in
//! `[1e-307, 1e308)`, those digits are `s`: two different decimals of at most
//! 15 significant digits never round to the same normal double (DBL_DIG = 15,
//! since `10^15 < 2^52`), so no other decimal of at most `k` digits reads back
//! as this one's double. An integer token of up to `2^53` (after the zeros
//! are dropped, no exponent left) is its own double exactly, and every other
//! integer reads back as a different one, so its digits are `s` too.
//!
//! That covers the usual non-canonical spellings (`1.0`, `100.00`, `-0`,
//! `-0.0`, `1E3`, `2.5E+10`, `1e21`, `1e-7`, `9007199254740991`) at the cost
//! of one pass over the token. Everything else (more digits, subnormals,
//! values near the top of the range) gets `None` and goes through a double
//! ([`super::format_f64`]). The tests hold every answer to that route.

use super::shortest::strip_zeros;
use super::{layout, MAX_LEN};

/// Most digits [`format_token`] gathers, trailing zeros included (a longer
/// token goes through a double): `layout` takes `d < 10^17`.
const MAX_GATHERED: u32 = 17;

/// The digits `d`, the power `e` (value `d * 10^e`) and the sign of a number
/// token that the JSON grammar has accepted, with the trailing zeros of `d`
/// still in it. `None` when the token has more than `max` (at most 19)
/// digits from its first nonzero one, or an exponent of more than four
/// digits, and for bytes no number token holds (the grammar is the caller's
/// check; this one only keeps a stray byte from being read as a digit).
#[inline(always)]
pub(super) fn gather(token: &[u8], max: u32) -> Option<(bool, u64, i32)> {
    let negative = token.first() == Some(&b'-');
    let mut i = usize::from(negative);
    // Zeros before the first significant digit (`0`, `0.`, `0.000`) add
    // nothing to d; those after the point lower the exponent.
    let mut fraction = false;
    let mut e = 0i32;
    while let Some(&c) = token.get(i) {
        match c {
            b'0' => e -= i32::from(fraction),
            b'.' => fraction = true,
            _ => break,
        }
        i += 1;
    }
    let mut run = Digits {
        d: 0,
        count: 0,
        max,
    };
    if !fraction {
        i = run.take(token, i)?;
        if token.get(i) == Some(&b'.') {
            fraction = true;
            i += 1;
        }
    }
    if fraction {
        let from = i;
        i = run.take(token, i)?;
        e -= (i - from) as i32;
    }
    if i < token.len() {
        e += exponent(&token[i..])?;
    }
    Some((negative, run.d, e))
}

/// The digits read so far: their value and count, and the most allowed.
struct Digits {
    d: u64,
    count: u32,
    max: u32,
}

impl Digits {
    /// Reads the run of digits at `i`, eight at a time where eight follow;
    /// returns where it ends, or `None` past `max` digits.
    #[inline(always)]
    fn take(&mut self, token: &[u8], mut i: usize) -> Option<usize> {
        while let Some(chunk) = token.get(i..i + 8) {
            let word = u64::from_le_bytes(chunk.try_into().ok()?);
            if !all_digits(word) {
                break;
            }
            self.count += 8;
            if self.count > self.max {
                return None;
            }
            self.d = self.d * 100_000_000 + value_of_eight(word);
            i += 8;
        }
        while let Some(&c) = token.get(i).filter(|c| c.is_ascii_digit()) {
            self.count += 1;
            if self.count > self.max {
                return None;
            }
            self.d = self.d * 10 + u64::from(c - b'0');
            i += 1;
        }
        Some(i)
    }
}

/// Whether the eight bytes of `word` are all ASCII digits.
#[inline(always)]
fn all_digits(word: u64) -> bool {
    const HIGH: u64 = 0xf0f0_f0f0_f0f0_f0f0;
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    // 0x30..=0x39: high nibble 3, and adding 6 leaves it 3.
    word & HIGH == ZEROS && word.wrapping_add(0x0606_0606_0606_0606) & HIGH == ZEROS
}

/// The value of eight ASCII digits, the first in the lowest byte: pairs,
/// then fours, then the whole, each step one multiplication in parallel
/// lanes.
#[inline(always)]
fn value_of_eight(word: u64) -> u64 {
    let v = word - 0x3030_3030_3030_3030;
    // Each 16-bit lane: 10 * first + second.
    let v = (v * 10 + (v >> 8)) & 0x00ff_00ff_00ff_00ff;
    // Each 32-bit lane: 100 * pair + pair.
    let v = (v * 100 + (v >> 16)) & 0x0000_ffff_0000_ffff;
    // 10000 * four + four.
    (v * 10_000 + (v >> 32)) & 0xffff_ffff
}

/// The exponent part `e`/`E`, an optional sign, then one to four digits;
/// `None` for anything else.
#[inline(always)]
fn exponent(part: &[u8]) -> Option<i32> {
    let (&mark, rest) = part.split_first()?;
    let (minus, digits) = match rest.split_first() {
        Some((&b'-', digits)) => (true, digits),
        Some((&b'+', digits)) => (false, digits),
        _ => (false, rest),
    };
    if !matches!(mark, b'e' | b'E') || digits.is_empty() || digits.len() > 4 {
        return None;
    }
    let mut v = 0i32;
    for &c in digits {
        v = v * 10 + i32::from(c.checked_sub(b'0').filter(|&x| x < 10)?);
    }
    Some(if minus { -v } else { v })
}

/// Writes the canonical form of the number token `token` (already accepted
/// by the JSON grammar) into `out` when its own digits are the shortest (see
/// the module doc), and returns the length; `None` otherwise, writing
/// nothing the caller keeps.
#[inline]
pub(crate) fn format_token(token: &[u8], out: &mut [u8; MAX_LEN]) -> Option<usize> {
    let (negative, d, e) = gather(token, MAX_GATHERED)?;
    if d == 0 {
        // Zero of either sign, any spelling: "0".
        out[0] = b'0';
        return Some(1);
    }
    let (d, e) = strip_zeros(d, e);
    let k = layout::digit_count(d) as i32;
    let n = e + k;
    let shortest = (k <= 15 && (-306..=308).contains(&n)) || (e == 0 && d <= 1 << 53);
    shortest.then(|| layout::write(negative, d, e, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The eight-digit value against the digits' own arithmetic, on values
    /// that put every digit in every lane.
    #[test]
    fn value_of_eight_matches_the_digits() {
        let mut v = 0u64;
        while v < 100_000_000 {
            let text = std::format!("{v:08}");
            let word = u64::from_le_bytes(text.as_bytes().try_into().unwrap());
            assert!(all_digits(word), "{text}");
            assert_eq!(value_of_eight(word), v, "{text}");
            v += 1 + v / 3 % 997 * 101;
        }
    }

    /// Every byte value in every lane of otherwise-digit words: `all_digits`
    /// is the byte-by-byte test.
    #[test]
    fn all_digits_is_the_bytewise_test() {
        for lane in 0..8 {
            for b in 0..=255u8 {
                let mut bytes = *b"31415926";
                bytes[lane] = b;
                assert_eq!(
                    all_digits(u64::from_le_bytes(bytes)),
                    b.is_ascii_digit(),
                    "byte {b:#04x} in lane {lane}"
                );
            }
        }
    }
}
