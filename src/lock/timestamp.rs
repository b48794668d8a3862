//! `generated_at` timestamps: UTC `YYYY-MM-DDTHH:MM:SSZ`, with
//! `SOURCE_DATE_EPOCH` for reproducible locks. The civil-date arithmetic is
//! done here (proleptic Gregorian calendar), without a date library.

use alloc::string::String;

/// The last second with a four-digit year: 9999-12-31T23:59:59Z.
pub const MAX_TIMESTAMP: u64 = 253_402_300_799;

const SECS_PER_DAY: u64 = 86_400;
/// Days from 0000-03-01 to 1970-01-01 (the counting starts in March so that
/// the leap day is the last day of a counting year).
const DAYS_0000_03_01_TO_EPOCH: u64 = 719_468;
const DAYS_PER_400_YEARS: u64 = 146_097;

/// (year, month 1..=12, day 1..=31) of a day count since 1970-01-01.
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + DAYS_0000_03_01_TO_EPOCH;
    let era = z / DAYS_PER_400_YEARS;
    let day_of_era = z % DAYS_PER_400_YEARS; // 0..=146096
                                             // Year of the era: subtract the leap days seen so far, then divide.
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    // Months counted from March: 31,30,31,30,31, 31,30,31,30,31, 31,28/29.
    let month_from_march = (5 * day_of_year + 2) / 153; // 0..=11
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = era * 400 + year_of_era + u64::from(month <= 2);
    (year, month, day)
}

fn push_digits(out: &mut String, value: u64, width: usize) {
    let mut buf = [b'0'; 20];
    let mut v = value;
    for slot in buf[..width].iter_mut().rev() {
        *slot = b'0' + (v % 10) as u8;
        v /= 10;
    }
    for &b in &buf[..width] {
        out.push(b as char);
    }
}

/// Formats seconds since 1970-01-01T00:00:00Z as `YYYY-MM-DDTHH:MM:SSZ`;
/// `None` past [`MAX_TIMESTAMP`].
///
/// ```
/// assert_eq!(contractpin::lock::format_timestamp(0).unwrap(), "1970-01-01T00:00:00Z");
/// ```
pub fn format_timestamp(secs: u64) -> Option<String> {
    if secs > MAX_TIMESTAMP {
        return None;
    }
    let (year, month, day) = civil_from_days(secs / SECS_PER_DAY);
    let rem = secs % SECS_PER_DAY;
    let mut out = String::with_capacity(20);
    push_digits(&mut out, year, 4);
    out.push('-');
    push_digits(&mut out, month, 2);
    out.push('-');
    push_digits(&mut out, day, 2);
    out.push('T');
    push_digits(&mut out, rem / 3600, 2);
    out.push(':');
    push_digits(&mut out, rem / 60 % 60, 2);
    out.push(':');
    push_digits(&mut out, rem % 60, 2);
    out.push('Z');
    Some(out)
}

fn is_leap(year: u32) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

/// Whether `text` is a valid `YYYY-MM-DDTHH:MM:SSZ` (a real calendar date;
/// seconds up to 60 for a leap second).
pub fn is_valid_timestamp(text: &str) -> bool {
    let b = text.as_bytes();
    if b.len() != 20 {
        return false;
    }
    let shape_ok = b.iter().enumerate().all(|(i, &c)| match i {
        4 | 7 => c == b'-',
        10 => c == b'T',
        13 | 16 => c == b':',
        19 => c == b'Z',
        _ => c.is_ascii_digit(),
    });
    if !shape_ok {
        return false;
    }
    let num = |from: usize, to: usize| {
        b[from..to]
            .iter()
            .fold(0u32, |acc, &c| acc * 10 + u32::from(c - b'0'))
    };
    let (year, month, day) = (num(0, 4), num(5, 7), num(8, 10));
    let (hour, minute, second) = (num(11, 13), num(14, 16), num(17, 19));
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days_in_month).contains(&day) && hour < 24 && minute < 60 && second <= 60
}

/// `SOURCE_DATE_EPOCH` is set but is not a decimal number of seconds in
/// `0..=MAX_TIMESTAMP`, or the system clock is before 1970.
#[cfg(feature = "std")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimestampError {
    detail: String,
}

#[cfg(feature = "std")]
impl core::fmt::Display for TimestampError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.detail)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for TimestampError {}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ`, or the time given by the
/// environment variable `SOURCE_DATE_EPOCH` (decimal seconds since 1970)
/// when it is set and not empty, for reproducible locks. A malformed
/// `SOURCE_DATE_EPOCH` is an error rather than silently ignored
/// (reproducible-builds.org: "SHOULD exit with a non-zero error code").
#[cfg(feature = "std")]
pub fn timestamp_now() -> Result<String, TimestampError> {
    use alloc::format;
    let secs = match std::env::var_os("SOURCE_DATE_EPOCH") {
        Some(v) if !v.is_empty() => {
            let text = v.to_string_lossy();
            let bad = || {
                TimestampError {
                detail: format!(
                    "SOURCE_DATE_EPOCH={text:?} is not a whole number of seconds between 0 and {MAX_TIMESTAMP}"
                ),
            }
            };
            if !text.bytes().all(|c| c.is_ascii_digit()) {
                return Err(bad());
            }
            text.parse::<u64>().map_err(|_| bad())?
        }
        _ => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_err(|_| TimestampError {
                detail: String::from("the system clock is set before 1970"),
            })?
            .as_secs(),
    };
    format_timestamp(secs).ok_or_else(|| TimestampError {
        detail: format!("timestamp {secs} is past year 9999"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Walks every day from 1970 to 2500 forward with an independent
    /// day-by-day calendar and checks the closed-form conversion.
    #[test]
    fn civil_matches_day_by_day_walk() {
        let (mut y, mut m, mut d) = (1970u64, 1u64, 1u64);
        for days in 0..(530 * 366) {
            assert_eq!(civil_from_days(days), (y, m, d), "day {days}");
            let dim = match m {
                1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
                4 | 6 | 9 | 11 => 30,
                _ if is_leap(y as u32) => 29,
                _ => 28,
            };
            d += 1;
            if d > dim {
                d = 1;
                m += 1;
                if m > 12 {
                    m = 1;
                    y += 1;
                }
            }
        }
    }
}
