//! Canonical string output (spec section 3.5): escape `"`, `\` and
//! U+0000..U+001F only; everything else is literal UTF-8.

use super::sink::Sink;
use crate::json::unescape::{encode_utf8, next_code_point};

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Writes the canonical escape (or the literal UTF-8) of one code point.
#[inline(always)]
pub(crate) fn write_code_point<S: Sink>(sink: &mut S, cp: u32) {
    match cp {
        0x22 => sink.write(b"\\\""),
        0x5c => sink.write(b"\\\\"),
        0x08 => sink.write(b"\\b"),
        0x09 => sink.write(b"\\t"),
        0x0a => sink.write(b"\\n"),
        0x0c => sink.write(b"\\f"),
        0x0d => sink.write(b"\\r"),
        0x00..=0x1f => sink.write(&[
            b'\\',
            b'u',
            b'0',
            b'0',
            HEX[(cp >> 4) as usize],
            HEX[(cp & 15) as usize],
        ]),
        _ => {
            let mut buf = [0u8; 4];
            let n = encode_utf8(cp, &mut buf);
            sink.write(&buf[..n]);
        }
    }
}

/// Whether the escape whose letter (the byte after the backslash) is
/// `letter` is already the canonical form of the character it stands for:
/// `\"`, `\\` and the short escapes of U+0008, U+0009, U+000A, U+000C and
/// U+000D are what [`write_code_point`] writes for them; `\/` and `\u`
/// escapes are not.
#[inline(always)]
pub(crate) fn escape_is_canonical(letter: u8) -> bool {
    matches!(letter, b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't')
}

/// Index of the first backslash at or after `pos`, or `raw.len()`.
#[inline]
fn find_backslash(raw: &[u8], pos: usize) -> usize {
    crate::arch::find(raw, pos, crate::arch::Class::Backslash)
}

/// Writes a string token in canonical form, with quotes, from validated raw
/// content. Content without escapes is already canonical and copied through.
#[inline]
pub fn write_string<S: Sink>(sink: &mut S, raw: &[u8], escaped: bool) {
    sink.write(b"\"");
    if !escaped {
        sink.write(raw);
    } else {
        // `raw[start..pos]` is canonical as it is: literal text and escapes
        // already in canonical form, copied in one piece.
        let (mut start, mut pos) = (0, 0);
        loop {
            pos = find_backslash(raw, pos);
            if pos == raw.len() {
                break;
            }
            if raw.get(pos + 1).is_some_and(|&c| escape_is_canonical(c)) {
                pos += 2;
                continue;
            }
            sink.write(&raw[start..pos]);
            let cp = next_code_point(raw, &mut pos);
            write_code_point(sink, cp);
            start = pos;
        }
        sink.write(&raw[start..]);
    }
    sink.write(b"\"");
}

/// Writes an arbitrary (Rust, hence valid) string in canonical form, with quotes.
pub fn write_str<S: Sink>(sink: &mut S, text: &str) {
    sink.write(b"\"");
    let bytes = text.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b < 0x20 || b == b'"' || b == b'\\' {
            sink.write(&bytes[start..i]);
            write_code_point(sink, b as u32);
            start = i + 1;
        }
    }
    sink.write(&bytes[start..]);
    sink.write(b"\"");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_backslash_matches_a_byte_search() {
        for len in 0..50 {
            for at in (0..=len).step_by(crate::test_rng::STEP) {
                let mut raw = std::vec![b'x'; len];
                if at < len {
                    raw[at] = b'\\';
                }
                for pos in 0..=len {
                    let want = raw[pos..]
                        .iter()
                        .position(|&b| b == b'\\')
                        .map_or(len, |i| pos + i);
                    assert_eq!(
                        find_backslash(&raw, pos),
                        want,
                        "len {len} at {at} pos {pos}"
                    );
                }
            }
        }
    }
}
