//! Shortest round-trip decimal digits of a double, by the Schubfach method
//! (R. Giulietti, "The Schubfach way to render doubles", 2020-2021).
//!
//! # The idea
//!
//! A positive finite double is `v = c * 2^q` with an integer significand `c`.
//! Every real number in its rounding interval `R_v` (half-way to each
//! neighbour; the end points included iff `c` is even, because
//! round-half-to-even then rounds them to `v`) reads back as `v`. We want the
//! decimal in `R_v` with the fewest significant digits, and among those the
//! one closest to `v` (ties to an even last digit), as ECMAScript asks.
//!
//! Pick the decimal exponent `k` so that the width of `R_v`, measured in
//! units of `10^k`, is in `[1, 10)`: `k = floor(log10(2^q))`, or
//! `floor(log10(3/4 * 2^q))` when `c = 2^52` and the lower neighbour is only
//! half as far away. Scaled by `10^-k`, `R_v` then
//!
//! * contains at most one multiple of 10 (width < 10). If it contains one,
//!   that is the unique shortest candidate (unit `10^(k+1)` or coarser);
//! * otherwise contains the integer closest to `v * 10^-k` or its other
//!   neighbour, all its integers have the same number of digits, and we take
//!   the one of `s = floor(v * 10^-k)`, `s + 1` that lies in `R_v`, or the
//!   closer one when both do.
//!
//! # Exact decisions from approximate products
//!
//! With four times the significand (`4c`, and the end points `4c - 2` or
//! `4c - 1`, and `4c + 2`) we need `x = u * 2^q * 10^-k` only through
//! comparisons with even integers. Round-to-odd, `floor(x) | (x not an
//! integer)`, keeps exactly that information. We compute it from a 128-bit
//! approximation `G >= 10^-k * 2^(127 - floor(log2 10^-k))` (see
//! [`super::tables`]); `scripts/gen_number_tables.py` proves, for every binary
//! exponent, that the error of the product never changes the round-to-odd
//! result (the smallest non-zero fractional part of any `x` is about
//! `2^-65.4`, the error below `2^-69`, and we count fractions from `2^-68` up
//! as "not an integer").

use super::tables::{G, K_MAX, K_MIN};

/// Bits of the stored significand.
const FRAC_BITS: u32 = 52;
/// Mask of the stored significand.
const FRAC_MASK: u64 = (1 << FRAC_BITS) - 1;
/// Binary exponent `q` of the subnormals (and of the smallest normals).
const Q_MIN: i32 = -1074;

/// `floor(q * log10(2))` for `q` in `[-1074, 971]` (proved by the table script).
#[inline(always)]
fn flog10_pow2(q: i32) -> i32 {
    (q * 315_653) >> 20
}

/// `floor(q * log10(2) + log10(3/4))` for `q` in `[-1074, 971]`.
#[inline(always)]
fn flog10_three_quarters_pow2(q: i32) -> i32 {
    (q * 315_653 - 131_008) >> 20
}

/// `floor(e * log2(10))` for `e` in `[-292, 324]`.
#[inline(always)]
fn flog2_pow10(e: i32) -> i32 {
    (e * 1_741_647) >> 19
}

/// Round-to-odd of `g * cp / 2^128`: the integer part, with bit 0 set when the
/// fractional part is at least `2^-68` (that is, when the exact product is not
/// an integer; see the module docs).
#[inline(always)]
fn round_to_odd(g: u128, cp: u64) -> u64 {
    let low = u128::from(g as u64) * u128::from(cp);
    let high = (g >> 64) * u128::from(cp);
    // `high < 2^123`, so this cannot overflow.
    let mid = high + (low >> 64);
    let integer = (mid >> 64) as u64;
    let sticky = (mid as u64) | ((low as u64) >> 60) != 0;
    integer | u64::from(sticky)
}

/// Removes trailing decimal zeros: returns `(d', e')` with `d' * 10^e' =
/// d * 10^e` and `d'` not divisible by 10. `d` must be non-zero.
#[inline]
pub(super) fn strip_zeros(mut d: u64, mut e: i32) -> (u64, i32) {
    if d.is_multiple_of(100_000_000) {
        d /= 100_000_000;
        e += 8;
    }
    if d.is_multiple_of(10_000) {
        d /= 10_000;
        e += 4;
    }
    if d.is_multiple_of(100) {
        d /= 100;
        e += 2;
    }
    if d.is_multiple_of(10) {
        d /= 10;
        e += 1;
    }
    // d < 10^18 has at most 17 trailing zeros; the steps above remove up to 15.
    while d.is_multiple_of(10) {
        d /= 10;
        e += 1;
    }
    (d, e)
}

/// Shortest round-trip decimal of the positive finite non-zero double with
/// bit pattern `bits` (the sign bit is ignored): `(d, e)` with the value
/// reading back from `d * 10^e`, `d` not divisible by 10, `d` as short as
/// possible and, among the shortest, closest to the double (ties to even).
#[inline(always)]
pub(super) fn to_decimal(bits: u64) -> (u64, i32) {
    let frac = bits & FRAC_MASK;
    let biased = ((bits >> FRAC_BITS) & 0x7ff) as i32;
    let (c, q) = if biased == 0 {
        (frac, Q_MIN)
    } else {
        (frac | (1 << FRAC_BITS), biased - 1075)
    };
    // The end points of the rounding interval belong to it iff c is even.
    let open = c & 1;
    let cb = c << 2;
    let cbr = cb + 2;
    // Irregular spacing: c = 2^52 above the smallest binade, where the lower
    // neighbour is at half the distance of the upper one.
    let (k, cbl) = if frac == 0 && biased > 1 {
        (flog10_three_quarters_pow2(q), cb - 1)
    } else {
        (flog10_pow2(q), cb - 2)
    };
    debug_assert!((K_MIN..=K_MAX).contains(&k));
    // h in [1, 4] aligns the product so that the integer part starts at bit 128.
    let h = q + flog2_pow10(-k) + 1;
    let g = G[(k - K_MIN) as usize];
    let vb = round_to_odd(g, cb << h);
    let vbl = round_to_odd(g, cbl << h);
    let vbr = round_to_odd(g, cbr << h);

    // s = floor(v * 10^-k); vb carries two more bits.
    let s = vb >> 2;

    // A multiple of 10 in the interval is the unique shortest candidate.
    // Only the two multiples around s can be inside (width < 10).
    let s10 = s / 10;
    let lower10 = s10 * 10;
    let upper10 = lower10 + 10;
    let lower10_in = vbl + open <= lower10 << 2;
    let upper10_in = (upper10 << 2) + open <= vbr;
    // (For the tiny subnormals with s < 10 the only hit is 2 * 2^-1074, whose
    // candidate 10 * 10^-324 is also the closest one: tested.)
    let shorter = lower10_in != upper10_in;

    // Otherwise s or s + 1, whichever is inside, or the closer one: compare
    // v with the midpoint s + 1/2, that is vb with 4s + 2; ties to even.
    let t = s + 1;
    let s_in = vbl + open <= s << 2;
    let t_in = (t << 2) + open <= vbr;
    let mid = (s << 2) + 2;
    let closer_t = (vb > mid) | ((vb == mid) & (s & 1 == 1));
    let take_t = t_in & (!s_in | closer_t);

    // Both outcomes are computed; a masked select (rather than a branch,
    // which would be mispredicted for about half of all doubles) picks one.
    let mask = 0u64.wrapping_sub(u64::from(shorter));
    let longer_d = s + u64::from(take_t);
    let shorter_d = s10 + u64::from(upper10_in);
    let d = longer_d ^ ((longer_d ^ shorter_d) & mask);
    let e = k + i32::from(shorter);
    // Only the shorter candidate can end in 0 (then often more than one).
    if d.is_multiple_of(10) {
        return strip_zeros(d, e);
    }
    (d, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exponent formulas agree with `f64` logarithms away from integers
    /// (the exact proof is in `scripts/gen_number_tables.py`).
    #[test]
    fn log_formulas_match_float_logs() {
        for q in Q_MIN..=971 {
            let x = f64::from(q) * core::f64::consts::LOG10_2;
            assert_eq!(flog10_pow2(q), floor(x), "q = {q}");
            let y = x + 0.75f64.log10();
            assert_eq!(flog10_three_quarters_pow2(q), floor(y), "q = {q}");
        }
        for e in -K_MAX..=-K_MIN {
            let x = f64::from(e) * core::f64::consts::LOG2_10;
            assert_eq!(flog2_pow10(e), floor(x), "e = {e}");
        }
    }

    fn floor(x: f64) -> i32 {
        // q * log10(2) is never within 1e-9 of an integer unless q = 0.
        let f = x.floor();
        assert!(x - f > 1e-9 || x == f, "too close to call: {x}");
        f as i32
    }

    /// Every table entry is a power of ten scaled into `[2^127, 2^128)`, from
    /// above by less than one unit: checked exactly where `10^-k * 2^n` is an
    /// integer (`-k` in `0..=38`, via `u128` arithmetic), and by the ratio of
    /// neighbours elsewhere.
    #[test]
    fn table_entries_are_scaled_powers_of_ten() {
        assert_eq!(G.len() as i32, K_MAX - K_MIN + 1);
        let mut p: u128 = 1;
        for e in 0..=38i32 {
            let k = -e;
            let g = G[(k - K_MIN) as usize];
            assert!(g >> 127 == 1, "k = {k}");
            let shift = p.leading_zeros();
            assert_eq!(g - 1, p << shift, "k = {k}");
            if e < 38 {
                p *= 10;
            }
        }
        for i in 1..G.len() {
            // G[i] ~ G[i-1] / 10 * 2^m for m in {3, 4}
            let (a, b) = (G[i - 1] as f64, G[i] as f64);
            let r = a / b / 10.0;
            let ok = (r * 8.0 - 1.0).abs() < 1e-15 || (r * 16.0 - 1.0).abs() < 1e-15;
            assert!(ok, "entry {i}: ratio {r}");
        }
    }

    #[test]
    fn strip_zeros_removes_all_trailing_zeros() {
        assert_eq!(strip_zeros(1, 0), (1, 0));
        assert_eq!(strip_zeros(10_000_000_000_000_000, -16), (1, 0));
        assert_eq!(strip_zeros(120_000_000_000_000_000, 3), (12, 19));
        assert_eq!(strip_zeros(1_234_567_890, 0), (123_456_789, 1));
        for z in 0..18 {
            assert_eq!(strip_zeros(7 * 10u64.pow(z), 0), (7, z as i32));
        }
    }
}
