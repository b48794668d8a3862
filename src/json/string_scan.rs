//! Validation of one string token: UTF-8, control characters, escapes and
//! surrogate pairs. Plain ASCII runs are skipped a block at a time
//! ([`crate::arch`]).

use crate::error::{Error, ErrorKind};

/// Result of scanning a string body.
pub(crate) struct Scanned {
    /// Index of the closing quote.
    pub end: usize,
    /// Whether the body contains a backslash.
    pub escaped: bool,
}

#[inline]
fn is_hex(c: u8) -> bool {
    c.is_ascii_hexdigit()
}

/// Index of the first byte at or after `pos` that is `"`, `\\`, below 0x20 or
/// 0x80 and above, or a position within one block of the end, from where the
/// caller continues byte by byte.
#[inline(always)]
fn skip_plain(input: &[u8], pos: usize) -> usize {
    crate::arch::skip_blocks(input, pos, crate::arch::Class::StringSpecial)
}

/// Scans from `pos` (just after the opening quote) to the closing quote.
#[inline(always)]
pub(crate) fn scan_string(input: &[u8], mut pos: usize) -> Result<Scanned, Error> {
    let len = input.len();
    let mut escaped = false;
    loop {
        // Fast path: skip plain ASCII in blocks.
        pos = skip_plain(input, pos);
        let Some(&b) = input.get(pos) else {
            return Err(Error::new(ErrorKind::UnexpectedEnd, len));
        };
        match b {
            b'"' => return Ok(Scanned { end: pos, escaped }),
            b'\\' => {
                escaped = true;
                pos = scan_escape(input, pos)?.0;
            }
            0x00..=0x1f => return Err(Error::new(ErrorKind::ControlCharacter, pos)),
            0x20..=0x7f => pos += 1,
            _ => {
                // A run of non-ASCII text: validate sequence after sequence,
                // the common two- and three-byte forms inline.
                while let Some(&c) = input.get(pos) {
                    if c < 0x80 {
                        break;
                    }
                    pos = match utf8_common(input, pos, c) {
                        Some(next) => next,
                        None => scan_utf8(input, pos)?,
                    };
                }
            }
        }
    }
}

/// Validates the escape at `pos` (a backslash): the index after it, and the
/// code point it stands for (a surrogate pair's two escapes give one).
/// Inlined: the one-pass canonicalizer writes the code point it returns, so
/// no escape is read twice.
#[inline(always)]
pub(super) fn scan_escape(input: &[u8], pos: usize) -> Result<(usize, u32), Error> {
    let len = input.len();
    let Some(&e) = input.get(pos + 1) else {
        return Err(Error::new(ErrorKind::UnexpectedEnd, len));
    };
    match e {
        b'u' => {
            let unit = hex_unit(input, pos)?;
            if (0xdc00..0xe000).contains(&unit) {
                return Err(Error::new(ErrorKind::LoneSurrogate, pos));
            }
            if !(0xd800..0xdc00).contains(&unit) {
                return Ok((pos + 6, unit));
            }
            // A high surrogate must be followed by an escaped low surrogate.
            let next = pos + 6;
            match (input.get(next), input.get(next + 1)) {
                (Some(b'\\'), Some(b'u')) => {}
                (None, _) | (Some(b'\\'), None) => {
                    return Err(Error::new(ErrorKind::UnexpectedEnd, len))
                }
                _ => return Err(Error::new(ErrorKind::LoneSurrogate, pos)),
            }
            let low = hex_unit(input, next)?;
            if !(0xdc00..0xe000).contains(&low) {
                return Err(Error::new(ErrorKind::LoneSurrogate, pos));
            }
            Ok((next + 6, surrogate_pair(unit, low)))
        }
        _ => match simple_escape(e) {
            Some(c) => Ok((pos + 2, c as u32)),
            None => Err(Error::new(ErrorKind::InvalidEscape, pos)),
        },
    }
}

/// The character the two-character escape `\` `e` stands for (RFC 8259
/// section 7), or `None` when `e` makes no such escape (`u` included).
#[inline(always)]
pub(super) const fn simple_escape(e: u8) -> Option<u8> {
    match e {
        b'"' | b'\\' | b'/' => Some(e),
        b'b' => Some(0x08),
        b'f' => Some(0x0c),
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        _ => None,
    }
}

/// The code point of a high and a low surrogate (as validated).
#[inline(always)]
pub(super) const fn surrogate_pair(high: u32, low: u32) -> u32 {
    0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00)
}

/// Reads the four hex digits of the `\u` escape starting at `pos`.
#[inline(always)]
fn hex_unit(input: &[u8], pos: usize) -> Result<u32, Error> {
    let mut unit = 0u32;
    for i in 0..4 {
        let Some(&c) = input.get(pos + 2 + i) else {
            return Err(Error::new(ErrorKind::UnexpectedEnd, input.len()));
        };
        if !is_hex(c) {
            return Err(Error::new(ErrorKind::InvalidEscape, pos));
        }
        unit = (unit << 4) | (c as char).to_digit(16).unwrap_or(0);
    }
    Ok(unit)
}

/// The index after a valid two-byte sequence (U+0080..U+07FF) or a valid
/// three-byte sequence with lead byte E1..EC or EE..EF (whose second byte may
/// be any continuation byte) at `pos`, whose first byte is `c`; `None` for
/// anything else, which [`scan_utf8`] then validates (or rejects) in full.
#[inline(always)]
fn utf8_common(input: &[u8], pos: usize, c: u8) -> Option<usize> {
    let cont = |i: usize| input.get(i).is_some_and(|&b| b & 0xc0 == 0x80);
    match c {
        0xc2..=0xdf if cont(pos + 1) => Some(pos + 2),
        0xe1..=0xec | 0xee..=0xef if cont(pos + 1) && cont(pos + 2) => Some(pos + 3),
        _ => None,
    }
}

/// Validates one multi-byte UTF-8 sequence at `pos`; returns the index after it.
fn scan_utf8(input: &[u8], pos: usize) -> Result<usize, Error> {
    let bad = Error::new(ErrorKind::InvalidUtf8, pos);
    let b0 = input[pos];
    // Allowed range of the second byte, and the sequence length.
    let (lo, hi, n) = match b0 {
        0xc2..=0xdf => (0x80, 0xbf, 2),
        0xe0 => (0xa0, 0xbf, 3),
        0xe1..=0xec | 0xee..=0xef => (0x80, 0xbf, 3),
        0xed => (0x80, 0x9f, 3), // excludes encoded surrogates
        0xf0 => (0x90, 0xbf, 4),
        0xf1..=0xf3 => (0x80, 0xbf, 4),
        0xf4 => (0x80, 0x8f, 4), // nothing above U+10FFFF
        _ => return Err(bad),
    };
    let Some(&b1) = input.get(pos + 1) else {
        return Err(bad);
    };
    if !(lo..=hi).contains(&b1) {
        return Err(bad);
    }
    for k in 2..n {
        match input.get(pos + k) {
            Some(&c) if (0x80..=0xbf).contains(&c) => {}
            _ => return Err(bad),
        }
    }
    Ok(pos + n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(s: &[u8]) -> Result<(usize, bool), ErrorKind> {
        scan_string(s, 0)
            .map(|r| (r.end, r.escaped))
            .map_err(|e| e.kind())
    }

    #[test]
    fn plain_and_escaped() {
        assert_eq!(kind(b"abc\""), Ok((3, false)));
        assert_eq!(kind(b"0123456789abcdefghij\""), Ok((20, false)));
        assert_eq!(kind(br#"a\nb""#), Ok((4, true)));
        assert_eq!(kind("é€😀\"".as_bytes()), Ok((9, false)));
        assert_eq!(kind(br#"\ud83d\ude00""#), Ok((12, true)));
    }

    /// Index of the first special byte (or `len`), byte by byte.
    fn first_special(input: &[u8], pos: usize) -> usize {
        input[pos..]
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || !(0x20..0x80).contains(&b))
            .map_or(input.len(), |i| pos + i)
    }

    #[test]
    fn block_skips_stop_at_the_first_special_byte() {
        let specials = [b'"', b'\\', 0x00, 0x1f, 0x80, 0xc3, 0xff];
        for len in 0..48 {
            for at in (0..=len).step_by(crate::test_rng::STEP) {
                for &sp in &specials {
                    let mut input = std::vec![b'a'; len];
                    if at < len {
                        input[at] = sp;
                    }
                    for start in 0..=len.min(3) {
                        let want = first_special(&input, start);
                        let got = skip_plain(&input, start);
                        // A block skip may stop early near the end, never past the byte.
                        assert!(got <= want, "len {len} at {at} start {start}");
                        assert!(got == want || len - got < 16, "len {len} at {at}");
                        assert_eq!(first_special(&input, got), want);
                    }
                }
            }
        }
    }

    /// The code point each escape stands for, from RFC 8259's table and
    /// from the code points themselves written as `\uXXXX` (a surrogate
    /// pair above U+FFFF), in both cases of hex digit.
    #[test]
    fn escapes_give_their_code_points() {
        let simple = [
            (b'"', 0x22),
            (b'\\', 0x5c),
            (b'/', 0x2f),
            (b'b', 0x08),
            (b'f', 0x0c),
            (b'n', 0x0a),
            (b'r', 0x0d),
            (b't', 0x09),
        ];
        for (e, cp) in simple {
            assert_eq!(scan_escape(&[b'\\', e, b'x'], 0).ok(), Some((2, cp)));
        }
        // Every seventh code point natively; about seventy under Miri
        // (`scripts/miri-core.sh` runs this module).
        let step = if cfg!(miri) { 16411 } else { 7 };
        let chars = (0..=0x10ffffu32)
            .step_by(step)
            .chain([0xffff, 0x10000, 0x10ffff]);
        for c in chars.filter_map(char::from_u32) {
            let mut units = [0u16; 2];
            let escape: std::string::String = c
                .encode_utf16(&mut units)
                .iter()
                .map(|u| std::format!("\\u{u:04x}"))
                .collect();
            for text in [escape.clone(), escape.to_uppercase().replace("\\U", "\\u")] {
                let got = scan_escape(text.as_bytes(), 0).ok();
                assert_eq!(got, Some((text.len(), c as u32)), "{text}");
            }
        }
    }

    #[test]
    fn rejections() {
        assert_eq!(kind(b"abc"), Err(ErrorKind::UnexpectedEnd));
        assert_eq!(kind(b"a\x01\""), Err(ErrorKind::ControlCharacter));
        assert_eq!(kind(b"0123456789\x1f\""), Err(ErrorKind::ControlCharacter));
        assert_eq!(kind(br#"\x""#), Err(ErrorKind::InvalidEscape));
        assert_eq!(kind(br#"\u12g4""#), Err(ErrorKind::InvalidEscape));
        assert_eq!(kind(br#"\ud800""#), Err(ErrorKind::LoneSurrogate));
        assert_eq!(kind(br#"\udc00\ud800""#), Err(ErrorKind::LoneSurrogate));
        assert_eq!(kind(br#"\ud800\u0041""#), Err(ErrorKind::LoneSurrogate));
        assert_eq!(kind(b"\xc0\xaf\""), Err(ErrorKind::InvalidUtf8));
        assert_eq!(kind(b"\xed\xa0\x80\""), Err(ErrorKind::InvalidUtf8));
        assert_eq!(kind(b"\xf4\x90\x80\x80\""), Err(ErrorKind::InvalidUtf8));
        assert_eq!(kind(b"\x80\""), Err(ErrorKind::InvalidUtf8));
        assert_eq!(kind(b"\xe2\x82\""), Err(ErrorKind::InvalidUtf8));
        assert_eq!(kind(b"\xff\""), Err(ErrorKind::InvalidUtf8));
    }
}
