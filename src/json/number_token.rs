//! Validation of one number token against RFC 8259 grammar, the
//! "already canonical" fast-path test, and the overflow check.

use crate::error::{Error, ErrorKind};

/// Result of scanning a number token.
pub(crate) struct ScannedNumber {
    /// Index one past the token.
    pub end: usize,
    /// How its canonical form is written.
    pub form: Form,
}

/// How a number token's canonical form is written (`jcs::write_number`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// The token's text is already the ECMAScript serialization of its
    /// value: an integer of at most 15 digits other than `-0`, or a plain
    /// decimal accepted by `plain_decimal_is_canonical`. Copied.
    Canonical,
    /// Few enough digits (at most 15 after a leading `0.`, a 16-digit
    /// integer, or trailing zeros that may leave that few) that
    /// `number::format_token` may lay it out from its own digits; it
    /// decides exactly, and the double route takes what it declines.
    Digits,
    /// More significant digits than `number::format_token` reads: through a
    /// double.
    Double,
}

impl ScannedNumber {
    pub(crate) fn canonical(&self) -> bool {
        self.form == Form::Canonical
    }
}

#[inline]
fn is_number_byte(c: u8) -> bool {
    matches!(c, b'0'..=b'9' | b'+' | b'-' | b'.' | b'e' | b'E')
}

/// Whether a plain decimal `-?I.F` (no exponent; `digits` holds F, `int_digits`
/// the length of I, `zero_int` whether I is `0`) is already the ECMAScript
/// serialization of its value: F does not end in `0`, at most 15 significant
/// digits, and not below 1e-6 (at most five zeros after `0.`).
///
/// Why this is exact: two different decimals of at most 15 significant digits
/// never round to the same double (DBL_DIG = 15, and the value is far above
/// the subnormal range), so no shorter or different digit string reads back
/// as this double: Number::toString picks exactly these digits. With
/// 1e-6 <= |x| < 1e21 and a fractional part, its layout is `I.F` (or `0.`,
/// zeros, digits), the text as written. `-0.0` is excluded by the last-digit
/// rule.
#[inline]
fn plain_decimal_is_canonical(digits: &[u8], zero_int: bool, int_digits: usize) -> bool {
    if digits.last() == Some(&b'0') {
        return false;
    }
    if zero_int {
        let zeros = digits.iter().take_while(|&&c| c == b'0').count();
        zeros <= 5 && digits.len() - zeros <= 15
    } else {
        int_digits + digits.len() <= 15
    }
}

/// Scans the number token starting at `start` (a `-` or a digit).
/// Always inlined: a call from the one-pass canonicalizer's loop costs it
/// more than the scan (docs/PERFORMANCE.md, "Inlined into the loop").
#[inline(always)]
pub(crate) fn scan_number(input: &[u8], start: usize) -> Result<ScannedNumber, Error> {
    let invalid = Error::new(ErrorKind::InvalidNumber, start);
    let at = |i: usize| input.get(i).copied().unwrap_or(0);
    let mut i = start;
    let negative = at(i) == b'-';
    if negative {
        i += 1;
    }
    // Integer part: 0 or [1-9][0-9]*.
    let int_start = i;
    match at(i) {
        b'0' => i += 1,
        b'1'..=b'9' => i = crate::arch::digits_end(input, i + 1),
        _ => return Err(invalid),
    }
    let int_digits = i - int_start;
    let mut fraction = false;
    let mut frac = (0, 0);
    if at(i) == b'.' {
        fraction = true;
        i += 1;
        let f = i;
        i = crate::arch::digits_end(input, i);
        if i == f {
            return Err(invalid);
        }
        frac = (f, i);
    }
    let mut exponent: i64 = 0;
    let mut has_exp = false;
    if matches!(at(i), b'e' | b'E') {
        has_exp = true;
        i += 1;
        let exp_negative = at(i) == b'-';
        if matches!(at(i), b'+' | b'-') {
            i += 1;
        }
        let e = i;
        while at(i).is_ascii_digit() {
            exponent = (exponent * 10 + (at(i) - b'0') as i64).min(1 << 40);
            i += 1;
        }
        if i == e {
            return Err(invalid);
        }
        if exp_negative {
            exponent = -exponent;
        }
    }
    // The token is the maximal run of number bytes; anything left is malformed.
    if is_number_byte(at(i)) && i < input.len() {
        return Err(invalid);
    }
    let zero_int = input[int_start] == b'0';
    let canonical = !has_exp
        && if fraction {
            plain_decimal_is_canonical(&input[frac.0..frac.1], zero_int, int_digits)
        } else {
            int_digits <= 15 && (!negative || !zero_int)
        };
    let form = if canonical {
        Form::Canonical
    } else {
        // The digits before the exponent, less a leading `0`: an upper bound
        // of the significant ones unless the last of them is a zero.
        let (mantissa_end, digits) = match fraction {
            true if zero_int => (frac.1, frac.1 - frac.0),
            true => (frac.1, int_digits + frac.1 - frac.0),
            false => (int_start + int_digits, int_digits),
        };
        let few = digits <= 15 || (digits == 16 && !fraction) || input[mantissa_end - 1] == b'0';
        if few {
            Form::Digits
        } else {
            Form::Double
        }
    };
    // Overflow: the value is below 10^(significant integer digits + exponent),
    // so only tokens where that reaches past 10^308 need an exact check.
    let magnitude = if zero_int { 0 } else { int_digits as i64 } + exponent;
    if magnitude > 308 {
        let text = core::str::from_utf8(&input[start..i]).map_err(|_| invalid)?;
        let value: f64 = text.parse().map_err(|_| invalid)?;
        if value.is_infinite() {
            return Err(Error::new(ErrorKind::NumberOutOfRange, start));
        }
    }
    Ok(ScannedNumber { end: i, form })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(s: &str) -> Result<(usize, bool), ErrorKind> {
        scan_number(s.as_bytes(), 0)
            .map(|n| (n.end, n.canonical()))
            .map_err(|e| e.kind())
    }

    #[test]
    fn grammar() {
        assert_eq!(scan("0"), Ok((1, true)));
        assert_eq!(scan("-0"), Ok((2, false)));
        assert_eq!(scan("123456789012345"), Ok((15, true)));
        assert_eq!(scan("1234567890123456"), Ok((16, false)));
        assert_eq!(scan("1.5"), Ok((3, true)));
        assert_eq!(scan("-0.5"), Ok((4, true)));
        assert_eq!(scan("0.000001"), Ok((8, true)));
        assert_eq!(scan("0.0000001"), Ok((9, false)));
        assert_eq!(scan("1.50"), Ok((4, false)));
        assert_eq!(scan("-0.0"), Ok((4, false)));
        assert_eq!(scan("12345678901234.5"), Ok((16, true)));
        assert_eq!(scan("123456789012345.6"), Ok((17, false)));
        assert_eq!(scan("0.123456789012345"), Ok((17, true)));
        assert_eq!(scan("0.1234567890123456"), Ok((18, false)));
        assert_eq!(scan("1.5e0"), Ok((5, false)));
        assert_eq!(scan("1e5,"), Ok((3, false)));
        assert_eq!(scan("-12]"), Ok((3, true)));
        for bad in [
            "-", "01", "1.", "1e", "1e+", "1.2.3", "1-2", "-01", ".5", "1e5e5", "+1",
        ] {
            assert!(scan(bad).is_err(), "{bad}");
        }
    }

    /// Every decimal the fast path calls canonical must be printed unchanged by
    /// the full route (parse to a double, ECMAScript formatting).
    #[test]
    fn canonical_decimals_survive_the_full_route() {
        use crate::number::{format_f64, MAX_LEN};
        use std::string::String;
        let mut state = 12345u64;
        let mut next = |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        let mut accepted = 0;
        for _ in 0..crate::test_rng::rounds(50_000) {
            let mut t = String::new();
            if next(2) == 0 {
                t.push('-');
            }
            let int_len = next(16);
            if int_len == 0 {
                t.push('0');
            } else {
                t.push((b'1' + next(9) as u8) as char);
                for _ in 1..int_len {
                    t.push((b'0' + next(10) as u8) as char);
                }
            }
            t.push('.');
            for _ in 0..next(8) {
                t.push('0');
            }
            for _ in 0..1 + next(16) {
                t.push((b'0' + next(10) as u8) as char);
            }
            let n = scan_number(t.as_bytes(), 0).unwrap();
            if n.canonical() {
                accepted += 1;
                let mut buf = [0u8; MAX_LEN];
                let len = format_f64(t.parse().unwrap(), &mut buf).unwrap();
                assert_eq!(core::str::from_utf8(&buf[..len]).unwrap(), t);
            }
        }
        assert!(accepted > crate::test_rng::rounds(50_000) / 5, "{accepted}");
    }

    /// The forms the scan gives: the usual non-canonical spellings go to
    /// `number::format_token`; sixteen or seventeen significant digits that
    /// do not end in zero go through a double.
    #[test]
    fn forms() {
        let form = |s: &str| scan_number(s.as_bytes(), 0).map(|n| n.form).unwrap();
        for t in ["12", "0.5", "-0.25", "123456789012345"] {
            assert_eq!(form(t), Form::Canonical, "{t}");
        }
        for t in [
            "-0",
            "1.0",
            "100.00",
            "-0.0",
            "1E3",
            "2.5E+10",
            "1e21",
            "1e-7",
            "5e-324",
            "9007199254740991",
            "0.123456789012345e3",
            "12345678901234567890.0",
        ] {
            assert_eq!(form(t), Form::Digits, "{t}");
        }
        for t in [
            "98952.27388501668",
            "0.1234567890123456",
            "1.2345678901234567e54",
        ] {
            assert_eq!(form(t), Form::Double, "{t}");
        }
    }

    #[test]
    fn range() {
        assert_eq!(scan("1e308").map(|r| r.0), Ok(5));
        assert_eq!(scan("1.7976931348623157e308").map(|r| r.0), Ok(22));
        assert_eq!(
            scan("1.7976931348623159e308"),
            Err(ErrorKind::NumberOutOfRange)
        );
        assert_eq!(scan("1e309"), Err(ErrorKind::NumberOutOfRange));
        assert_eq!(
            scan("-1e99999999999999999999999"),
            Err(ErrorKind::NumberOutOfRange)
        );
        assert_eq!(scan("1e-99999999999999999999999").map(|r| r.1), Ok(false));
        assert_eq!(scan("0e99999").map(|r| r.0), Ok(7));
    }
}
