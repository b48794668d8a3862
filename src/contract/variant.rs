//! Case-variant keys (spec section 6): the one home of the rule that a
//! member whose key is a name this spec reads at that level only under case
//! folding (`Description`, `TOOLS`, `deſcription`) makes the object
//! unacceptable (`case-variant-key`).
//!
//! Why: decoders that match member names case-insensitively (Go's
//! `encoding/json`, and MCP clients built on it; Jackson and .NET with that
//! option) read such a member where a checker that matches exactly reads
//! the real one, or none. A server could then show a checker one
//! description, list or instructions text and such a client another.
//!
//! Folding: ASCII letters in either case, and the four non-ASCII letters
//! that those decoders fold onto ASCII ones: `ſ` (U+017F) and `K` (U+212A,
//! Kelvin) as Go's `strings.EqualFold` folds them, `ı` (U+0131) and `İ`
//! (U+0130) as Java's and .NET's ignore-case comparisons do. Escaped keys
//! are compared after unescaping.
//!
//! The levels and the names read there ([`MESSAGE`], [`PAGE`], [`TOOL`],
//! [`HANDSHAKE`]) are the objects whose unknown members the spec ignores;
//! inside a contract's values every member is hashed, so a variant there
//! is simply drift.

use crate::json::{unescape, Value};

/// A JSON-RPC message's members.
pub const MESSAGE: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];

/// The members read in a tools/list result or response (a page).
pub const PAGE: [&str; 4] = ["tools", "result", "error", "nextCursor"];

/// A tool's contract members ([`super::Field`]).
pub const TOOL: [&str; 5] = [
    "annotations",
    "description",
    "inputSchema",
    "name",
    "outputSchema",
];

/// The member of a handshake result (`initialize`, `server/discover`) that
/// reaches the model.
pub const HANDSHAKE: [&str; 1] = ["instructions"];

/// Whether the key `raw` (validated string content, escapes allowed) is one
/// of `names` under case folding without being it exactly.
pub fn is_variant(raw: &[u8], names: &[&str]) -> bool {
    // Decided without decoding: an ASCII first byte that is not a letter
    // starting one of the names (every name starts with one), or one of the
    // names itself (they never fold to each other). A backslash or a
    // non-ASCII first byte (ſ, K, ı, İ fold) takes the decoding path.
    let Some(&first) = raw.first() else {
        return false;
    };
    if first.is_ascii() && first != b'\\' {
        let starts = |n: &&str| n.as_bytes()[0].eq_ignore_ascii_case(&first);
        if !names.iter().any(starts) || names.iter().any(|n| raw == n.as_bytes()) {
            return false;
        }
    }
    names.iter().any(|n| {
        let n = n.as_bytes();
        folds_to(raw, n) && !unescape::decoded_eq(raw, n)
    })
}

/// The first key of object `obj` that is a case variant of one of `names`.
pub fn variant_member<'a>(obj: Value<'a>, names: &[&str]) -> Option<Value<'a>> {
    obj.members()
        .map(|(k, _)| k)
        .find(|k| k.raw_str().is_some_and(|raw| is_variant(raw, names)))
}

/// Whether `raw` decodes to `name` (ASCII) under the folding above.
fn folds_to(raw: &[u8], name: &[u8]) -> bool {
    // Each character is 1 to 6 bytes (an escape) of `raw`.
    if raw.len() < name.len() || raw.len() > 6 * name.len() {
        return false;
    }
    // An ASCII first byte decides at once (a backslash, or a non-ASCII
    // letter that folds, takes the decoding path below).
    let first = raw[0];
    if first.is_ascii() && first != b'\\' && !first.eq_ignore_ascii_case(&name[0]) {
        return false;
    }
    let mut pos = 0;
    for &want in name {
        if pos >= raw.len()
            || fold(unescape::next_code_point(raw, &mut pos)) != Some(want.to_ascii_lowercase())
        {
            return false;
        }
    }
    pos == raw.len()
}

/// The lowercase ASCII letter a code point folds to, if any.
fn fold(cp: u32) -> Option<u8> {
    match cp {
        0x00..=0x7f => Some((cp as u8).to_ascii_lowercase()),
        0x017f => Some(b's'),
        0x212a => Some(b'k'),
        0x0130 | 0x0131 => Some(b'i'),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_are_found_and_exact_names_are_not() {
        for raw in [
            "Description",
            "DESCRIPTION",
            "de\u{17f}cription",
            "\\u0044escription",
            "de\\u017fcription",
        ] {
            assert!(is_variant(raw.as_bytes(), &TOOL), "{raw}");
        }
        assert!(is_variant("\u{212a}".as_bytes(), &["k"]));
        assert!(is_variant("\u{131}nstructions".as_bytes(), &HANDSHAKE));
        assert!(is_variant("\u{130}nstructions".as_bytes(), &HANDSHAKE));
        assert!(is_variant(b"Tools", &PAGE) && is_variant(b"NEXTCURSOR", &PAGE));
        for raw in [
            "description",
            "\\u0064escription",
            "descriptions",
            "descriptio",
            "title",
            "_meta",
            "d\u{e9}scription",
            "description\\u0000",
        ] {
            assert!(!is_variant(raw.as_bytes(), &TOOL), "{raw}");
        }
    }
}
