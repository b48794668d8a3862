//! Decoding of validated string contents (escapes and UTF-8) and comparison
//! of strings in UTF-16 code-unit order, which is the key order of RFC 8785.
//!
//! Everything here assumes content the parser has already validated: escapes
//! are well formed, surrogate escapes come in valid pairs, UTF-8 is valid.

use core::cmp::Ordering;

use super::string_scan::{simple_escape, surrogate_pair};
use crate::jcs::{cmp_utf8_as_utf16, utf16_rank};

#[inline]
fn hex_digit(c: u8) -> u32 {
    match c {
        b'0'..=b'9' => (c - b'0') as u32,
        b'a'..=b'f' => (c - b'a' + 10) as u32,
        _ => (c - b'A' + 10) as u32,
    }
}

#[inline]
fn hex4(raw: &[u8], at: usize) -> u32 {
    (hex_digit(raw[at]) << 12)
        | (hex_digit(raw[at + 1]) << 8)
        | (hex_digit(raw[at + 2]) << 4)
        | hex_digit(raw[at + 3])
}

/// Decodes the code point at `*pos` (raw UTF-8 or an escape) and advances.
#[inline]
pub(crate) fn next_code_point(raw: &[u8], pos: &mut usize) -> u32 {
    let i = *pos;
    let b = raw[i];
    if b < 0x80 {
        if b != b'\\' {
            *pos = i + 1;
            return b as u32;
        }
        let e = raw[i + 1];
        *pos = i + 2;
        return match e {
            b'u' => {
                let u = hex4(raw, i + 2);
                *pos = i + 6;
                if (0xd800..0xdc00).contains(&u) {
                    // Validated: a low-surrogate escape follows.
                    let lo = hex4(raw, i + 8);
                    *pos = i + 12;
                    surrogate_pair(u, lo)
                } else {
                    u
                }
            }
            // Validated: one of the two-character escapes.
            other => simple_escape(other).unwrap_or(other) as u32,
        };
    }
    if b < 0xe0 {
        *pos = i + 2;
        ((b as u32 & 0x1f) << 6) | (raw[i + 1] as u32 & 0x3f)
    } else if b < 0xf0 {
        *pos = i + 3;
        ((b as u32 & 0x0f) << 12) | ((raw[i + 1] as u32 & 0x3f) << 6) | (raw[i + 2] as u32 & 0x3f)
    } else {
        *pos = i + 4;
        ((b as u32 & 0x07) << 18)
            | ((raw[i + 1] as u32 & 0x3f) << 12)
            | ((raw[i + 2] as u32 & 0x3f) << 6)
            | (raw[i + 3] as u32 & 0x3f)
    }
}

/// Writes `cp` as UTF-8 into `out`, returning the length (1..=4).
#[inline]
pub(crate) fn encode_utf8(cp: u32, out: &mut [u8; 4]) -> usize {
    if cp < 0x80 {
        out[0] = cp as u8;
        1
    } else if cp < 0x800 {
        out[0] = 0xc0 | (cp >> 6) as u8;
        out[1] = 0x80 | (cp & 0x3f) as u8;
        2
    } else if cp < 0x10000 {
        out[0] = 0xe0 | (cp >> 12) as u8;
        out[1] = 0x80 | ((cp >> 6) & 0x3f) as u8;
        out[2] = 0x80 | (cp & 0x3f) as u8;
        3
    } else {
        out[0] = 0xf0 | (cp >> 18) as u8;
        out[1] = 0x80 | ((cp >> 12) & 0x3f) as u8;
        out[2] = 0x80 | ((cp >> 6) & 0x3f) as u8;
        out[3] = 0x80 | (cp & 0x3f) as u8;
        4
    }
}

/// Decodes validated content into `out` as UTF-8; `None` if `out` is too small.
pub(crate) fn decode_into(raw: &[u8], out: &mut [u8]) -> Option<usize> {
    let mut pos = 0;
    let mut len = 0;
    let mut buf = [0u8; 4];
    while pos < raw.len() {
        let n = encode_utf8(next_code_point(raw, &mut pos), &mut buf);
        out.get_mut(len..len + n)?.copy_from_slice(&buf[..n]);
        len += n;
    }
    Some(len)
}

/// Length in bytes of the decoded UTF-8 text.
pub(crate) fn decoded_len(raw: &[u8]) -> usize {
    let mut pos = 0;
    let mut len = 0;
    let mut buf = [0u8; 4];
    while pos < raw.len() {
        len += encode_utf8(next_code_point(raw, &mut pos), &mut buf);
    }
    len
}

/// Whether validated content decodes to exactly `text`.
pub(crate) fn decoded_eq(raw: &[u8], text: &[u8]) -> bool {
    let (mut a, mut b) = (0, 0);
    while a < raw.len() && b < text.len() {
        if next_code_point(raw, &mut a) != next_code_point_plain(text, &mut b) {
            return false;
        }
    }
    a == raw.len() && b == text.len()
}

/// Like [`next_code_point`] but for plain UTF-8 (backslash is an ordinary character).
#[inline]
fn next_code_point_plain(text: &[u8], pos: &mut usize) -> u32 {
    if text[*pos] == b'\\' {
        *pos += 1;
        return b'\\' as u32;
    }
    next_code_point(text, pos)
}

/// Compares two validated string contents by their decoded UTF-16 code units.
#[inline]
pub(crate) fn cmp_utf16(a: &[u8], a_escaped: bool, b: &[u8], b_escaped: bool) -> Ordering {
    if !a_escaped && !b_escaped {
        return cmp_utf8_as_utf16(a, b);
    }
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let x = utf16_rank(next_code_point(a, &mut i));
        let y = utf16_rank(next_code_point(b, &mut j));
        if x != y {
            return x.cmp(&y);
        }
    }
    (i < a.len()).cmp(&(j < b.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::String;
    use std::vec::Vec;

    fn units(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn utf16_order_matches_std_encode_utf16() {
        let samples = [
            "",
            "a",
            "b",
            "ab",
            "\u{7f}",
            "\u{80}",
            "\u{7ff}",
            "\u{800}",
            "\u{d7ff}",
            "\u{e000}",
            "\u{ffff}",
            "\u{10000}",
            "\u{1f600}",
            "\u{10ffff}",
            "a\u{ffff}",
            "a\u{1f600}",
            "10",
            "9",
            "\n",
            "1",
        ];
        for x in samples {
            for y in samples {
                let want = units(x).cmp(&units(y));
                assert_eq!(
                    cmp_utf8_as_utf16(x.as_bytes(), y.as_bytes()),
                    want,
                    "{x:?} {y:?}"
                );
                assert_eq!(cmp_utf16(x.as_bytes(), true, y.as_bytes(), false), want);
            }
        }
    }

    #[test]
    fn escapes_decode() {
        let raw = br#"a\"\\\/\b\f\n\r\t\u0041\u00e9\ud83d\ude00z"#;
        let mut out = [0u8; 64];
        let n = decode_into(raw, &mut out).unwrap();
        let s = String::from_utf8(out[..n].to_vec()).unwrap();
        assert_eq!(s, "a\"\\/\u{8}\u{c}\n\r\tA\u{e9}\u{1f600}z");
        assert_eq!(decoded_len(raw), n);
        assert!(decoded_eq(raw, s.as_bytes()));
        assert!(!decoded_eq(raw, b"a"));
        assert!(decoded_eq(br"\u0061", b"a"));
        assert!(decoded_eq(br"\\", b"\\"));
        assert!(decode_into(raw, &mut out[..3]).is_none());
    }
}
