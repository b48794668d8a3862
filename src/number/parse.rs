//! A number token to the nearest double, for the tokens whose canonical form
//! needs one: the Eisel-Lemire method (D. Lemire, "Number Parsing at a
//! Gigabyte per Second", 2021; N. Tao and D. Lemire, "Fast Number Parsing
//! Without Fallback", 2023) over the power-of-ten table the shortest-digits
//! search already carries ([`super::tables::G`]).
//!
//! The token's digits are read once into a `u64` ([`super::decimal::gather`],
//! at most 19 of them, so the value `w * 10^q` is exact). Then:
//!
//! - `w <= 2^53` and `|q| <= 22`: `w` and `10^|q|` are both doubles, and
//!   one IEEE multiplication or division rounds their exact product or
//!   quotient once, to nearest (Clinger's fast path);
//! - otherwise `w * 10^q` is approximated by `w` times the 128-bit truncated
//!   significand of `10^q`. The top bits give the double's significand
//!   unless the product lies too close to a rounding boundary to tell, which
//!   the method detects; it then answers `None`.
//!
//! `None` (more than 19 digits, `q` outside the table, or an undecided
//! product) sends the caller to `core`'s parser. The tests hold every answer
//! to it.

use super::decimal::gather;
use super::tables::{G, K_MAX, K_MIN};

/// Most significant digits read: every 19-digit integer fits a `u64`.
const MAX_DIGITS: u32 = 19;

/// Exact doubles `10^0` to `10^22` (`5^22 < 2^53`).
const EXACT_POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Stored significand bits of a double.
const FRAC_BITS: i32 = 52;
/// Biased exponent of the infinities.
const INF_EXP: i32 = 0x7ff;

/// The double nearest the value of the number token `token` (accepted by
/// the JSON grammar), ties to even; `None` where the fast methods cannot
/// tell (see the module doc).
#[inline]
pub(crate) fn token_to_f64(token: &[u8]) -> Option<f64> {
    let (negative, w, q) = gather(token, MAX_DIGITS)?;
    let magnitude = if w == 0 {
        0.0
    } else if w <= 1 << 53 && (-22..=22).contains(&q) {
        // Exact operands, one rounding.
        let pow = EXACT_POW10[q.unsigned_abs() as usize];
        if q < 0 {
            w as f64 / pow
        } else {
            w as f64 * pow
        }
    } else {
        f64::from_bits(eisel_lemire(w, q)?)
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// `floor(q * log2(10)) + 63` for `q` in `[-342, 308]`: the binary
/// exponent of the product's top bit, before the normalizing shift.
#[inline(always)]
fn binary_exponent(q: i32) -> i32 {
    ((q * (152_170 + 65_536)) >> 16) + 63
}

/// The bit pattern of the double nearest `w * 10^q` (`w > 0`), or `None`
/// when `q` is outside the table or the truncated product cannot decide the
/// rounding.
#[inline]
fn eisel_lemire(w: u64, q: i32) -> Option<u64> {
    // The table holds 10^q for q in [-K_MAX, -K_MIN]; below 1e-292 and above
    // 1e308 the caller's parser answers (those are rare, and above 1e308 is
    // infinity or an error the scan reported).
    if !(-K_MAX..=308).contains(&q) {
        return None;
    }
    let lz = w.leading_zeros();
    let w = w << lz;
    // The method's table of 10^q's 128-bit significands: rounded up for
    // 10^-27 to 10^-1 (which makes exact halves detectable below), truncated
    // elsewhere. G is the floor plus one, so both come from it
    // (`scripts/gen_number_tables.py` checks every entry against fast_float's
    // table script; the tests hold the results to core's parser).
    let g = G[(-q - K_MIN) as usize];
    let pow = if (-27..0).contains(&q) { g } else { g - 1 };
    let (hi5, lo5) = ((pow >> 64) as u64, pow as u64);
    let (mut lo, mut hi) = mul(w, hi5);
    // 52 stored bits, the hidden one, one to round and one for a leading
    // zero of the product: when the bits below them are all ones, the low
    // word of 10^q can carry into them.
    const MASK: u64 = u64::MAX >> (FRAC_BITS + 3);
    if hi & MASK == MASK {
        let (_, carry_in) = mul(w, lo5);
        lo = lo.wrapping_add(carry_in);
        hi += u64::from(carry_in > lo);
    }
    // All ones in the low word: the exact product may lie on either side of
    // a boundary, except where 10^q is exact (q in [0, 55]) or close enough
    // (the method's proof covers q >= -27).
    if lo == u64::MAX && !(-27..=55).contains(&q) {
        return None;
    }
    let upper = (hi >> 63) as i32;
    let shift = upper + 64 - FRAC_BITS - 3;
    let mut m = hi >> shift;
    let mut exp = binary_exponent(q) + upper - lz as i32 + 1023;
    if exp <= 0 {
        // Subnormal (or zero): fewer significand bits, rounded half up by
        // the method's proof (no ties are possible down here).
        if -exp + 1 >= 64 {
            return Some(0);
        }
        m >>= -exp + 1;
        m += m & 1;
        m >>= 1;
        // Rounding up may reach the smallest normal.
        let e = u64::from(m >= 1 << FRAC_BITS);
        return Some((m & !(1 << FRAC_BITS)) | e << FRAC_BITS);
    }
    // A tie (exactly half way) is possible only where 10^q is exact enough:
    // then round to even instead of up.
    if lo <= 1 && (-4..=23).contains(&q) && m & 3 == 1 && (m << shift) == hi {
        m &= !1;
    }
    m += m & 1;
    m >>= 1;
    if m >= 2 << FRAC_BITS {
        m = 1 << FRAC_BITS;
        exp += 1;
    }
    if exp >= INF_EXP {
        return None;
    }
    Some((m & !(1 << FRAC_BITS)) | (exp as u64) << FRAC_BITS)
}

/// The 128-bit product `a * b` as `(low, high)` words.
#[inline(always)]
fn mul(a: u64, b: u64) -> (u64, u64) {
    let p = u128::from(a) * u128::from(b);
    (p as u64, (p >> 64) as u64)
}
