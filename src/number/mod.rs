//! ECMAScript `Number::toString` for `f64` (spec section 3.6; RFC 8785
//! section 3.2.2.3), written in-house: no dependencies, no allocation, no
//! `core::fmt`.
//!
//! Two steps:
//!
//! 1. the shortest decimal digits that read back as the same double, and of
//!    those the closest one, ties to even ([`shortest_digits`], by the
//!    Schubfach method, module `shortest`);
//! 2. the ECMAScript layout of those digits (module `layout`): plain integer
//!    up to 21 digits, a decimal point inside the digits, `0.000…` down to
//!    `1e-6`, and exponent form (`1e+21`, `1e-7`) otherwise; `-0` is `0`.
//!
//! A number token not already canonical reaches them one of two ways (the
//! canonicalizer's `jcs::write_number` picks):
//!
//! - straight from its own digits when those are provably the shortest
//!   (module `decimal`: `1.0`, `1E3`, `-0`, `2^53 - 1`), with no double;
//! - through the nearest double (module `parse`: Clinger's fast path and the
//!   Eisel-Lemire method over the same power-of-ten table, `core`'s parser
//!   for what those leave), then step 1.
//!
//! ```
//! use contractpin::number::{format_f64, MAX_LEN};
//!
//! let mut buf = [0u8; MAX_LEN];
//! let len = format_f64(0.1 + 0.2, &mut buf).unwrap();
//! assert_eq!(&buf[..len], b"0.30000000000000004");
//! assert_eq!(format_f64(f64::NAN, &mut buf), None);
//! ```

mod decimal;
mod layout;
mod parse;
mod shortest;
mod tables;
#[cfg(test)]
mod tests;

pub(crate) use decimal::format_token;
pub(crate) use parse::token_to_f64;

/// Length of the longest output of [`format_f64`]: 25 bytes.
///
/// The longest forms are a negative value in `[1e-6, 1e-5)` with 17
/// significant digits, `-0.00000` followed by 17 digits, for example
/// `-1.2345678901234567e-6` → `-0.0000012345678901234567` (25 bytes), and
/// the exponent form with 17 digits and a three-digit exponent, for example
/// `-2.2250738585072014e-308` (24 bytes). Integers take at most 22 bytes
/// (`-` and 21 digits) and a point inside the digits at most 19.
pub const MAX_LEN: usize = 25;

/// Bits of a double other than the sign.
const ABS_MASK: u64 = !(1 << 63);
/// Bit pattern of positive infinity: every larger absolute pattern is NaN.
const INF_BITS: u64 = 0x7ff0_0000_0000_0000;

/// Writes the ECMAScript `Number::toString` form of `value` into `out` and
/// returns the number of bytes written (at most [`MAX_LEN`]).
///
/// `-0.0` is written as `0`. Returns `None`, writing nothing, for NaN and
/// the infinities, which have no JSON form.
///
/// Always inlined, with the digit search and the layout: the canonicalizer's
/// loop calls it for every number not already canonical.
#[inline(always)]
pub fn format_f64(value: f64, out: &mut [u8; MAX_LEN]) -> Option<usize> {
    let bits = value.to_bits();
    let abs = bits & ABS_MASK;
    if abs >= INF_BITS {
        return None;
    }
    if abs == 0 {
        out[0] = b'0';
        return Some(1);
    }
    let (d, e) = shortest::to_decimal(abs);
    Some(layout::write(bits != abs, d, e, out))
}

/// The digits of `|value|` as spec section 3.6 names them: `(s, n, k)` with
/// `|value|` reading back from `s × 10^(n − k)`, `s` having exactly `k`
/// digits (`10^(k−1) ≤ s < 10^k`), `k` as small as possible, and `s` the
/// closest such to `|value|` (ties to even). `s` does not end in `0`.
///
/// For example `1.5` gives `(15, 1, 2)` and `1e21` gives `(1, 22, 1)`.
/// Zero (either sign) gives `(0, 1, 1)`, the digits of `"0"`. NaN and the
/// infinities have no digits and give `(0, 0, 0)`.
#[inline]
pub fn shortest_digits(value: f64) -> (u64, i32, usize) {
    let abs = value.to_bits() & ABS_MASK;
    if abs >= INF_BITS {
        return (0, 0, 0);
    }
    if abs == 0 {
        return (0, 1, 1);
    }
    let (d, e) = shortest::to_decimal(abs);
    let k = layout::digit_count(d);
    (d, e + k as i32, k)
}
