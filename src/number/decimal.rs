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

use super::{layout, MAX_LEN};

/// Most digits gathered before giving up (zeros included): `10^17 < 2^63`.
const MAX_GATHERED: u32 = 17;

/// The digits `d`, the power `e` (value `d * 10^e`) and the sign of a number
/// token that the JSON grammar has accepted, with the trailing zeros of `d`
/// still in it. `None` when the token has more than [`MAX_GATHERED`] digits
/// from its first nonzero one, or an exponent of more than four digits, and
/// for bytes no number token holds (the grammar is the caller's check; this
/// one only keeps a stray byte from being read as a digit).
#[inline(always)]
fn gather(token: &[u8]) -> Option<(bool, u64, i32)> {
    let negative = token.first() == Some(&b'-');
    let mut i = usize::from(negative);
    let (mut d, mut gathered, mut e) = (0u64, 0u32, 0i32);
    let mut fraction = false;
    while let Some(&c) = token.get(i) {
        match c {
            b'0'..=b'9' => {
                if d != 0 || c != b'0' {
                    gathered += 1;
                    if gathered > MAX_GATHERED {
                        return None;
                    }
                    d = d * 10 + u64::from(c - b'0');
                }
                e -= i32::from(fraction);
            }
            b'.' => fraction = true,
            _ => break,
        }
        i += 1;
    }
    if i < token.len() {
        // `e` or `E`, an optional sign, then one to four digits.
        let (minus, digits) = match token[i + 1..].split_first() {
            Some((&b'-', rest)) => (true, rest),
            Some((&b'+', rest)) => (false, rest),
            _ => (false, &token[i + 1..]),
        };
        if !matches!(token[i], b'e' | b'E') || digits.is_empty() || digits.len() > 4 {
            return None;
        }
        let mut v = 0i32;
        for &c in digits {
            v = v * 10 + i32::from(c.checked_sub(b'0').filter(|&x| x < 10)?);
        }
        e += if minus { -v } else { v };
    }
    Some((negative, d, e))
}

/// Writes the canonical form of the number token `token` (already accepted
/// by the JSON grammar) into `out` when its own digits are the shortest (see
/// the module doc), and returns the length; `None` otherwise, writing
/// nothing the caller keeps.
#[inline]
pub(crate) fn format_token(token: &[u8], out: &mut [u8; MAX_LEN]) -> Option<usize> {
    let (negative, mut d, mut e) = gather(token)?;
    if d == 0 {
        // Zero of either sign, any spelling: "0".
        out[0] = b'0';
        return Some(1);
    }
    while d % 10 == 0 {
        d /= 10;
        e += 1;
    }
    let k = layout::digit_count(d) as i32;
    let n = e + k;
    let shortest = (k <= 15 && (-306..=308).contains(&n)) || (e == 0 && d <= 1 << 53);
    shortest.then(|| layout::write(negative, d, e, out))
}
