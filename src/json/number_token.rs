//! Validation of one number token against RFC 8259 grammar, the
//! "already canonical" fast-path test, and the overflow check.

use crate::error::{Error, ErrorKind};

/// Result of scanning a number token.
pub(crate) struct ScannedNumber {
    /// Index one past the token.
    pub end: usize,
    /// The token is an integer of at most 15 digits and not `-0`, so its text
    /// is already the ECMAScript serialization of its value.
    pub canonical: bool,
}

#[inline]
fn is_number_byte(c: u8) -> bool {
    matches!(c, b'0'..=b'9' | b'+' | b'-' | b'.' | b'e' | b'E')
}

/// Scans the number token starting at `start` (a `-` or a digit).
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
        b'1'..=b'9' => {
            while at(i).is_ascii_digit() {
                i += 1;
            }
        }
        _ => return Err(invalid),
    }
    let int_digits = i - int_start;
    let mut fraction = false;
    if at(i) == b'.' {
        fraction = true;
        i += 1;
        let f = i;
        while at(i).is_ascii_digit() {
            i += 1;
        }
        if i == f {
            return Err(invalid);
        }
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
    let canonical = !fraction && !has_exp && int_digits <= 15 && (!negative || !zero_int);
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
    Ok(ScannedNumber { end: i, canonical })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(s: &str) -> Result<(usize, bool), ErrorKind> {
        scan_number(s.as_bytes(), 0)
            .map(|n| (n.end, n.canonical))
            .map_err(|e| e.kind())
    }

    #[test]
    fn grammar() {
        assert_eq!(scan("0"), Ok((1, true)));
        assert_eq!(scan("-0"), Ok((2, false)));
        assert_eq!(scan("123456789012345"), Ok((15, true)));
        assert_eq!(scan("1234567890123456"), Ok((16, false)));
        assert_eq!(scan("1.5"), Ok((3, false)));
        assert_eq!(scan("1e5,"), Ok((3, false)));
        assert_eq!(scan("-12]"), Ok((3, true)));
        for bad in [
            "-", "01", "1.", "1e", "1e+", "1.2.3", "1-2", "-01", ".5", "1e5e5", "+1",
        ] {
            assert!(scan(bad).is_err(), "{bad}");
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
