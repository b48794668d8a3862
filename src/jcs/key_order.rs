//! The key order of canonical JSON (RFC 8785 section 3.2.3): by UTF-16 code
//! units. This module is the one statement of the rule; the parser's key
//! sort (`json::key_sort`) and every sorted map in the crate (the lock, the
//! report, the C ABI's server digest) use it.
//!
//! UTF-8 byte order is code-point order, which differs from UTF-16 order
//! only when a character in U+E000..U+FFFF (lead byte 0xEE or 0xEF) meets a
//! supplementary one (lead byte 0xF0..0xF4) at the first difference: in
//! UTF-16 the supplementary character starts with a surrogate
//! (0xD800..0xDBFF), below 0xE000.

use core::cmp::Ordering;

/// Maps a code point to a rank whose numeric order is UTF-16 code-unit order:
/// U+E000..U+FFFF sort after every supplementary character.
#[inline]
pub(crate) fn utf16_rank(cp: u32) -> u32 {
    if (0xe000..0x10000).contains(&cp) {
        cp + 0x11_0000
    } else {
        cp
    }
}

/// Compares two UTF-8 byte strings in UTF-16 code-unit order.
#[inline]
pub(crate) fn cmp_utf8_as_utf16(a: &[u8], b: &[u8]) -> Ordering {
    let n = a.len().min(b.len());
    let i = match a[..n].iter().zip(&b[..n]).position(|(x, y)| x != y) {
        Some(i) => i,
        None => return a.len().cmp(&b.len()),
    };
    let (x, y) = (a[i], b[i]);
    // Continuation bytes are < 0xC0, so both are lead bytes here.
    if x >= 0xee && y >= 0xee && ((x >= 0xf0) != (y >= 0xf0)) {
        return y.cmp(&x);
    }
    x.cmp(&y)
}

/// Compares two strings by UTF-16 code units, the key order of canonical
/// JSON and of the lock file.
///
/// ```
/// use core::cmp::Ordering;
/// // U+FF61 is above U+1F600 in code points, below it in UTF-16.
/// assert_eq!(contractpin::jcs::cmp_utf16("\u{1F600}", "\u{FF61}"), Ordering::Less);
/// assert_eq!(contractpin::jcs::cmp_utf16("a", "b"), Ordering::Less);
/// ```
#[inline]
pub fn cmp_utf16(a: &str, b: &str) -> Ordering {
    cmp_utf8_as_utf16(a.as_bytes(), b.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_encode_utf16() {
        let samples = [
            "",
            "a",
            "ab",
            "b",
            "\u{7f}",
            "\u{80}",
            "\u{7ff}",
            "\u{800}",
            "\u{d7ff}",
            "\u{e000}",
            "\u{ff61}",
            "\u{ffff}",
            "\u{10000}",
            "\u{1f600}",
            "\u{10ffff}",
            "a\u{e000}",
            "a\u{10000}",
        ];
        for x in samples {
            for y in samples {
                assert_eq!(
                    cmp_utf16(x, y),
                    x.encode_utf16().cmp(y.encode_utf16()),
                    "{x:?} {y:?}"
                );
            }
        }
    }
}
