//! The ECMAScript `Number::toString` layout (spec section 3.6) of a decimal
//! `d * 10^e`, written into a fixed buffer without `core::fmt`.

use super::MAX_LEN;

/// ASCII of the two-digit numbers `00` to `99`, back to back.
static PAIRS: [u8; 200] = make_pairs();

const fn make_pairs() -> [u8; 200] {
    let mut table = [0u8; 200];
    let mut i = 0;
    while i < 100 {
        table[2 * i] = b'0' + (i / 10) as u8;
        table[2 * i + 1] = b'0' + (i % 10) as u8;
        i += 1;
    }
    table
}

/// `POW10[i] = 10^i`.
const POW10: [u64; 20] = {
    let mut table = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        table[i] = table[i - 1] * 10;
        i += 1;
    }
    table
};

/// Number of decimal digits of `d` (1 for `d = 0`).
#[inline]
pub(super) fn digit_count(d: u64) -> usize {
    // Setting bit 0 changes no digit count except that of 0.
    let d = d | 1;
    let bits = 64 - d.leading_zeros() as usize;
    // floor(bits * log10(2)), exact for bits <= 64; the true count is this or one more.
    let guess = (bits * 1233) >> 12;
    guess + usize::from(d >= POW10[guess])
}

/// Writes the two digits of `v < 100` at `buf[at..at + 2]`.
#[inline(always)]
fn write2(buf: &mut [u8; MAX_LEN], at: usize, v: u32) {
    let i = 2 * v as usize;
    buf[at..at + 2].copy_from_slice(&PAIRS[i..i + 2]);
}

/// Writes the four digits of `v < 10_000` (with leading zeros) at `buf[at..at + 4]`.
#[inline(always)]
fn write4(buf: &mut [u8; MAX_LEN], at: usize, v: u32) {
    write2(buf, at, v / 100);
    write2(buf, at + 2, v % 100);
}

/// Writes the decimal digits of `d` so that the last one lands at `buf[end - 1]`.
#[inline(always)]
fn write_digits(buf: &mut [u8; MAX_LEN], mut end: usize, d: u64) {
    let mut d = d;
    while d >= 100_000_000 {
        let q = d / 100_000_000;
        let r = (d - q * 100_000_000) as u32;
        write4(buf, end - 8, r / 10_000);
        write4(buf, end - 4, r % 10_000);
        end -= 8;
        d = q;
    }
    let mut d = d as u32;
    while d >= 100 {
        write2(buf, end - 2, d % 100);
        d /= 100;
        end -= 2;
    }
    if d >= 10 {
        write2(buf, end - 2, d);
    } else {
        buf[end - 1] = b'0' + d as u8;
    }
}

/// Writes the ECMAScript form of `(-1)^negative * d * 10^e` (`0 < d < 10^17`,
/// `d` not divisible by 10, `|e|` small enough for a finite double) and
/// returns its length.
#[inline]
pub(super) fn write(negative: bool, d: u64, e: i32, out: &mut [u8; MAX_LEN]) -> usize {
    let k = digit_count(d);
    // The value is 0.(digits) * 10^n.
    let n = e + k as i32;
    let pos = usize::from(negative);
    // Unconditional: for a positive value every branch below overwrites out[0].
    out[0] = b'-';
    if (k as i32) <= n && n <= 21 {
        // Integer: the digits, then n - k zeros.
        let n = n as usize;
        out[pos..pos + 21].fill(b'0');
        write_digits(out, pos + k, d);
        pos + n
    } else if 0 < n && n <= 21 {
        // A point after the first n digits (here n < k <= 17).
        let n = n as usize;
        write_digits(out, pos + 1 + k, d);
        out.copy_within(pos + 1..pos + 1 + n, pos);
        out[pos + n] = b'.';
        pos + 1 + k
    } else if -6 < n && n <= 0 {
        // "0." then -n zeros, then the digits.
        out[pos..pos + 8].copy_from_slice(b"0.000000");
        let end = pos + 2 + n.unsigned_abs() as usize + k;
        write_digits(out, end, d);
        end
    } else {
        // d[0], then "." and the other digits if any, then "e", sign, |n - 1|.
        write_digits(out, pos + 1 + k, d);
        out[pos] = out[pos + 1];
        let mut i = pos + 1;
        if k > 1 {
            out[i] = b'.';
            i = pos + 1 + k;
        }
        let exp = n - 1;
        out[i] = b'e';
        out[i + 1] = if exp < 0 { b'-' } else { b'+' };
        let a = exp.unsigned_abs();
        if a >= 100 {
            out[i + 2] = b'0' + (a / 100) as u8;
            write2(out, i + 3, a % 100);
            i + 5
        } else if a >= 10 {
            write2(out, i + 2, a);
            i + 4
        } else {
            out[i + 2] = b'0' + a as u8;
            i + 3
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digit_count_at_every_power_of_ten() {
        assert_eq!(digit_count(0), 1);
        assert_eq!(digit_count(1), 1);
        assert_eq!(digit_count(u64::MAX), 20);
        for (i, &p) in POW10.iter().enumerate().skip(1) {
            assert_eq!(digit_count(p - 1), i, "10^{i} - 1");
            assert_eq!(digit_count(p), i + 1, "10^{i}");
            assert_eq!(digit_count(p + 1), i + 1, "10^{i} + 1");
        }
        for b in 0..64 {
            let v = 1u64 << b;
            let expected = (0..20).filter(|&i| POW10[i] <= v).count();
            assert_eq!(digit_count(v), expected, "2^{b}");
        }
    }

    fn render(negative: bool, d: u64, e: i32) -> ([u8; MAX_LEN], usize) {
        let mut out = [b'#'; MAX_LEN];
        let len = write(negative, d, e, &mut out);
        (out, len)
    }

    fn check(negative: bool, d: u64, e: i32, expected: &str) {
        let (out, len) = render(negative, d, e);
        assert_eq!(
            core::str::from_utf8(&out[..len]).unwrap(),
            expected,
            "{d}e{e}"
        );
    }

    #[test]
    fn every_branch_and_its_edges() {
        // k <= n <= 21: integer with zeros
        check(false, 1, 0, "1");
        check(false, 1, 20, "100000000000000000000");
        check(true, 1, 20, "-100000000000000000000");
        check(false, 12345678901234567, 4, "123456789012345670000");
        check(false, 9, 20, "900000000000000000000");
        // 0 < n < k: point inside
        check(false, 15, -1, "1.5");
        check(true, 15, -1, "-1.5");
        check(false, 12345678901234567, -1, "1234567890123456.7");
        check(false, 12345678901234567, -16, "1.2345678901234567");
        // -6 < n <= 0: leading "0."
        check(false, 1, -1, "0.1");
        check(false, 1, -6, "0.000001");
        check(true, 12345678901234567, -22, "-0.0000012345678901234567");
        // otherwise: exponent form
        check(false, 1, 21, "1e+21");
        check(false, 1, -7, "1e-7");
        check(false, 12, 20, "1.2e+21");
        check(true, 12345678901234567, -23, "-1.2345678901234567e-7");
        check(false, 5, -324, "5e-324");
        check(false, 17976931348623157, 292, "1.7976931348623157e+308");
        check(true, 22250738585072014, -324, "-2.2250738585072014e-308");
        check(false, 123, -20, "1.23e-18");
        check(false, 1, 99, "1e+99");
        check(false, 1, 100, "1e+100");
        check(false, 1, -10, "1e-10");
    }

    #[test]
    fn longest_outputs_fit() {
        let (_, len) = render(true, 12345678901234567, -22);
        assert_eq!(len, MAX_LEN);
        let (_, len) = render(true, 12345678901234567, -324);
        assert_eq!(len, 24);
    }
}
