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

/// Largest number of significant digits of a shortest decimal.
const MAX_DIGITS: usize = 17;

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

/// The eight ASCII digits of `v < 10^8`, with leading zeros, in print order
/// (first digit in the lowest byte). Branch-free: the two 4-digit halves,
/// then the four 2-digit quarters, then the eight digits are split in
/// parallel lanes of one `u64` by multiplications with exact reciprocals.
#[inline(always)]
fn eight_digits(v: u32) -> [u8; 8] {
    let hi = v / 10_000;
    let lo = v - hi * 10_000;
    // 32-bit lanes: [hi, lo], each < 10^4.
    let x = u64::from(hi) | (u64::from(lo) << 32);
    // n / 100 = (n * 5243) >> 19 for n < 10^4 (lane products stay below 2^26).
    let q = ((x * 5243) >> 19) & 0x0000_007f_0000_007f;
    let r = x - q * 100;
    // 16-bit lanes: [hi / 100, hi % 100, lo / 100, lo % 100], each < 100.
    let y = q | (r << 16);
    // n / 10 = (n * 103) >> 10 for n < 100 (lane products stay below 2^14).
    let tens = ((y * 103) >> 10) & 0x000f_000f_000f_000f;
    let ones = y - tens * 10;
    // 8-bit lanes: the digits in print order.
    (tens | (ones << 8) | 0x3030_3030_3030_3030).to_le_bytes()
}

/// The `MAX_DIGITS` digits of `d < 10^17` with leading zeros at
/// `[0, MAX_DIGITS)`, followed by ASCII zeros, so that fixed-size copies of
/// up to 21 bytes from any digit position read zeros past the last digit.
#[inline(always)]
fn seventeen_digits(d: u64) -> [u8; 48] {
    let mut buf = [b'0'; 48];
    let hi = (d / 100_000_000) as u32;
    let lo = (d - u64::from(hi) * 100_000_000) as u32;
    let top = hi / 100_000_000;
    let mid = hi - top * 100_000_000;
    buf[0] = b'0' + top as u8;
    buf[1..9].copy_from_slice(&eight_digits(mid));
    buf[9..17].copy_from_slice(&eight_digits(lo));
    buf
}

/// Writes the ECMAScript form of `(-1)^negative * d * 10^e` (`0 < d < 10^17`,
/// `d` not divisible by 10, `|e|` small enough for a finite double) and
/// returns its length.
///
/// Every variable-length piece is moved with a fixed-size copy (the output
/// buffer has room for it, and what lands past the end is not part of the
/// result), which is faster than copying exact lengths.
#[inline(always)]
pub(super) fn write(negative: bool, d: u64, e: i32, out: &mut [u8; MAX_LEN]) -> usize {
    let k = digit_count(d);
    // The value is 0.(digits) * 10^n.
    let n = e + k as i32;
    let digits = seventeen_digits(d);
    // The significant digits are digits[first..MAX_DIGITS], zeros after.
    let first = MAX_DIGITS - k;
    let pos = usize::from(negative);
    // Unconditional: for a positive value every branch below overwrites out[0].
    out[0] = b'-';
    if (k as i32) <= n && n <= 21 {
        // Integer: the digits, then n - k zeros (read from past the digits).
        out[pos..pos + 21].copy_from_slice(&digits[first..first + 21]);
        pos + n as usize
    } else if 0 < n && n <= 21 {
        // A point after the first n digits (here n < k <= 17). Built in a
        // larger buffer so that both parts can be copied with a fixed size.
        let n = n as usize;
        let mut wide = [0u8; MAX_LEN + 24];
        wide[0] = b'-';
        wide[pos..pos + 16].copy_from_slice(&digits[first..first + 16]);
        wide[pos + n] = b'.';
        wide[pos + n + 1..pos + n + 17].copy_from_slice(&digits[first + n..first + n + 16]);
        out.copy_from_slice(&wide[..MAX_LEN]);
        pos + 1 + k
    } else if -6 < n && n <= 0 {
        // "0." then -n zeros, then the digits.
        out[pos..pos + 8].copy_from_slice(b"0.000000");
        let at = pos + 2 + n.unsigned_abs() as usize;
        out[at..at + MAX_DIGITS].copy_from_slice(&digits[first..first + MAX_DIGITS]);
        at + k
    } else {
        // d[0], then "." and the other digits if any, then "e", sign, |n - 1|.
        out[pos] = digits[first];
        out[pos + 1] = b'.';
        out[pos + 2..pos + 18].copy_from_slice(&digits[first + 1..first + 17]);
        let i = if k > 1 { pos + 1 + k } else { pos + 1 };
        // "e", the sign, and the one to three digits of |n - 1| <= 324,
        // assembled in one word (branch-free; random exponents have random
        // lengths) and stored with one fixed-size copy.
        let exp = n - 1;
        let a = exp.unsigned_abs();
        let tail = a % 100;
        let three = u64::from(b'0' + (a / 100) as u8)
            | u64::from(PAIRS[2 * tail as usize]) << 8
            | u64::from(PAIRS[2 * tail as usize + 1]) << 16;
        let drop = 2 - usize::from(a >= 10) - usize::from(a >= 100);
        let sign = if exp < 0 { b'-' } else { b'+' };
        let word = u64::from(b'e') | u64::from(sign) << 8 | (three >> (8 * drop)) << 16;
        out[i..i + 6].copy_from_slice(&word.to_le_bytes()[..6]);
        i + 5 - drop
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

    fn eight_digits_reference(mut x: u32) -> [u8; 8] {
        let mut expected = [b'0'; 8];
        for slot in expected.iter_mut().rev() {
            *slot = b'0' + (x % 10) as u8;
            x /= 10;
        }
        expected
    }

    #[test]
    fn eight_digits_every_lane_value() {
        // The reciprocal identities, exhaustively on their ranges.
        for n in 0..10_000u64 {
            assert_eq!((n * 5243) >> 19, n / 100, "{n}");
        }
        for n in 0..100u64 {
            assert_eq!((n * 103) >> 10, n / 10, "{n}");
        }
        // Every value of each 4-digit half, with varied other halves.
        for half in 0..10_000u32 {
            let other = (half * 7919 + 13) % 10_000;
            for v in [half * 10_000 + other, other * 10_000 + half] {
                assert_eq!(eight_digits(v), eight_digits_reference(v), "{v}");
            }
        }
        assert_eq!(&eight_digits(99_999_999), b"99999999");
        assert_eq!(&eight_digits(0), b"00000000");
        let all = seventeen_digits(12_345_678_901_234_567);
        assert_eq!(
            &all[..],
            b"123456789012345670000000000000000000000000000000"
        );
        assert_eq!(&seventeen_digits(5)[..20], b"00000000000000005000");
        assert_eq!(
            &seventeen_digits(99_999_999_999_999_999)[..17],
            b"99999999999999999"
        );
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
