//! Where a value ends in a document the parser has already accepted, by a
//! byte scan without a tape: strings are skipped whole, brackets counted.
//! The guard cuts tools out of a page with it and the proxy finds the span
//! of a container it splices; on unvalidated input the answer is
//! meaningless (but always within the input).

use super::parser::is_ws;

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
