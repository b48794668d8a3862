//! Where a value ends in a document the parser has already accepted, by a
//! byte scan without a tape: strings are skipped whole, brackets counted.
//! The guard cuts tools out of a page with it and the proxy finds the span
//! of a container it splices; on unvalidated input the answer is
//! meaningless (but always within the input). Also the byte span of a
//! tape value ([`value_span`]) and a string value decoded ([`decode`]) and
//! a span replaced ([`splice`]),
//! which the guard and the proxy use to cut members out of a document.

use alloc::string::String;
use alloc::vec::Vec;
use core::ops::Range;

use super::parser::is_ws;
use super::{Tag, Value};

/// The byte range of value `v` in `input` (a document the parser accepted).
pub(crate) fn value_span(input: &[u8], v: Value<'_>) -> Range<usize> {
    let start = v.offset();
    let end = match v.tag() {
        Tag::String => start + v.raw_str().map_or(0, <[u8]>::len) + 2,
        Tag::Number => start + v.raw_number().map_or(0, <[u8]>::len),
        Tag::Null | Tag::True => start + 4,
        Tag::False => start + 5,
        Tag::Array | Tag::Object => value_end(input, start),
    };
    start..end.min(input.len())
}

/// `input` with `range` replaced by `with` (every other byte kept).
pub(crate) fn splice(input: &[u8], range: Range<usize>, with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len() - range.len() + with.len() + 1);
    out.extend_from_slice(&input[..range.start]);
    out.extend_from_slice(with);
    out.extend_from_slice(&input[range.end..]);
    out
}

/// Decodes a string value (escapes resolved); `None` for any other value.
pub(crate) fn decode(v: Value<'_>) -> Option<String> {
    if let Some(s) = v.as_plain_str() {
        return Some(String::from(s));
    }
    let raw = v.raw_str()?;
    let mut buf = alloc::vec![0u8; raw.len()];
    v.decode_str(&mut buf).map(String::from)
}

/// The end (exclusive) of the value starting at `start`: after the closing
/// quote or bracket, or, for a number or literal, at the first `,`,
/// closing bracket or whitespace after it.
pub(crate) fn value_end(input: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    while let Some(&b) = input.get(i) {
        match b {
            b'"' => {
                i += 1;
                while let Some(&c) = input.get(i) {
                    if c == b'"' {
                        break;
                    }
                    i += if c == b'\\' { 2 } else { 1 };
                }
                if depth == 0 {
                    return (i + 1).min(input.len());
                }
            }
            b'{' | b'[' => depth += 1,
            // At depth 0 a closing bracket ends a scalar value (`1}`).
            b'}' | b']' if depth == 0 => return i,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            b if depth == 0 && (b == b',' || is_ws(b)) => return i,
            _ => {}
        }
        i += 1;
    }
    input.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_value() {
        let doc = br#"{"a":"x\"]}","b":[1,{"c":"}"}],"d":-1.5e3,"e":null,"f":{}}"#;
        let at = |needle: &[u8]| doc.windows(needle.len()).position(|w| w == needle).unwrap();
        for (start, value) in [
            (at(br#""x\"#), &br#""x\"]}""#[..]),
            (at(b"[1,"), br#"[1,{"c":"}"}]"#),
            (at(b"-1.5"), b"-1.5e3"),
            (at(b"null"), b"null"),
            (at(b"{}}"), b"{}"),
            (0, &doc[..]),
        ] {
            assert_eq!(&doc[start..value_end(doc, start)], value);
        }
        assert_eq!(value_end(b"[1 ,2]", 1), 2);
        assert_eq!(value_end(b"\"open", 0), 5, "never past the input");
    }
}
