//! Display escaping of untrusted text: the one rule for every string a
//! server controls (tool names, error messages, warnings, stderr tails) on
//! its way to a terminal, a text report or a GitHub Actions annotation.
//!
//! [`is_hidden`] names the characters that change what a reader sees
//! without being seen themselves: C0 controls (TAB, CR and LF included),
//! DEL, C1 controls, the bidirectional controls (embeddings, overrides,
//! isolates, and the LRM / RLM / ALM marks), the line and paragraph
//! separators, the zero-width characters that join nothing (ZERO WIDTH
//! SPACE, WORD JOINER, the invisible operators, ZERO WIDTH NO-BREAK SPACE;
//! ZWNJ and ZWJ stay printable, as scripts and emoji need them), and the
//! tag characters. Each is shown as a Rust-style escape
//! (`\u{1b}`, lowercase hex), so a reviewer sees what the server sent:
//! a hidden character is never dropped, and never reaches the output raw.
//!
//! - [`escape`] and [`escape_cut`]: for an untrusted value. A backslash is
//!   doubled too, so the output reads back unambiguously and a value cannot
//!   forge an escape (`\u{1b}` typed by the server shows as `\\u{1b}`).
//! - [`escape_hidden`] and [`escape_hidden_cut`]: for text composed of our
//!   own words and values that were escaped already (an error message, a
//!   report line). Only hidden characters are escaped, so applying them
//!   again changes nothing; they are the safety net at every sink.
//!
//! The `_cut` forms keep at most `max_chars` characters of output (an
//! escape is never split), then append [`CUT`].
//!
//! JSON output does not use this module: the JSON writer's own escaping is
//! exact and reversible.

use alloc::string::String;
use core::fmt::Write;

/// Marks where text was cut.
pub const CUT: &str = "...";

/// Whether `c` must be shown as an escape rather than printed.
///
/// ```
/// use contractpin::escape::is_hidden;
/// assert!(is_hidden('\u{1b}') && is_hidden('\u{202e}') && is_hidden('\u{e0041}'));
/// assert!(!is_hidden('a') && !is_hidden('é') && !is_hidden('\u{a0}'));
/// ```
pub fn is_hidden(c: char) -> bool {
    matches!(
        c,
        // C0 controls (NUL, BEL, TAB, LF, CR, ESC, ...), DEL and C1 controls (NEL, CSI, OSC, ...).
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        // Bidirectional marks: ALM, LRM, RLM.
        | '\u{61c}' | '\u{200e}' | '\u{200f}'
        // LINE SEPARATOR, PARAGRAPH SEPARATOR.
        | '\u{2028}' | '\u{2029}'
        // ZERO WIDTH SPACE; WORD JOINER and the invisible operators; ZERO WIDTH NO-BREAK SPACE (BOM).
        | '\u{200b}' | '\u{2060}'..='\u{2064}' | '\u{feff}'
        // Bidirectional embeddings and overrides (LRE, RLE, PDF, LRO, RLO), isolates (LRI, RLI, FSI, PDI).
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        // Tag characters (invisible; they can spell hidden text).
        | '\u{e0000}'..='\u{e007f}'
    )
}

/// An untrusted value made safe to display: `\` becomes `\\` and every
/// [hidden](is_hidden) character `\u{..}`.
///
/// ```
/// use contractpin::escape::escape;
/// assert_eq!(escape("a\u{1b}[31mb\\c\n"), "a\\u{1b}[31mb\\\\c\\u{a}");
/// ```
pub fn escape(text: &str) -> String {
    render(text, Mode::Value, usize::MAX)
}

/// [`escape`], keeping at most `max_chars` characters (never half an
/// escape), then [`CUT`] if anything was left out.
pub fn escape_cut(text: &str, max_chars: usize) -> String {
    render(text, Mode::Value, max_chars)
}

/// Composed text (our words and already escaped values) made safe to
/// display: hidden characters become `\u{..}`; backslashes and existing
/// escapes are kept, so `escape_hidden(escape_hidden(t)) == escape_hidden(t)`.
pub fn escape_hidden(text: &str) -> String {
    render(text, Mode::Composed, usize::MAX)
}

/// [`escape_hidden`], keeping at most `max_chars` characters (never half an
/// escape, including escapes already in `text`), then [`CUT`].
pub fn escape_hidden_cut(text: &str, max_chars: usize) -> String {
    render(text, Mode::Composed, max_chars)
}

/// Whether a backslash in the input is a value's own character (doubled) or
/// possibly the start of an escape written earlier (kept).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Value,
    Composed,
}

fn render(text: &str, mode: Mode, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars.saturating_add(CUT.len())));
    let mut used = 0usize;
    let mut rest = text;
    let mut piece = String::new();
    while let Some(c) = rest.chars().next() {
        piece.clear();
        let taken = next_piece(rest, c, mode, &mut piece);
        let width = piece.chars().count();
        if used + width > max_chars {
            out.push_str(CUT);
            break;
        }
        used += width;
        out.push_str(&piece);
        rest = &rest[taken..];
    }
    out
}

/// Writes the display form of the start of `rest` (whose first character
/// is `c`) to `piece`; returns how many bytes of `rest` it stands for.
fn next_piece(rest: &str, c: char, mode: Mode, piece: &mut String) -> usize {
    if c == '\\' {
        match mode {
            Mode::Value => piece.push_str("\\\\"),
            Mode::Composed => {
                let n = existing_escape_len(rest);
                piece.push_str(&rest[..n]);
                return n;
            }
        }
    } else if is_hidden(c) {
        // Writing to a String cannot fail.
        let _ = write!(piece, "\\u{{{:x}}}", u32::from(c));
    } else {
        piece.push(c);
    }
    c.len_utf8()
}

/// Length in bytes of the escape that starts `rest` (which starts with a
/// backslash): `\\`, or `\u{` + 1 to 6 hex digits + `}`; 1 for a lone
/// backslash.
fn existing_escape_len(rest: &str) -> usize {
    let b = rest.as_bytes();
    if b.get(1) == Some(&b'\\') {
        return 2;
    }
    if b.get(1) != Some(&b'u') || b.get(2) != Some(&b'{') {
        return 1;
    }
    let digits = b[3..].iter().take_while(|d| d.is_ascii_hexdigit()).count();
    if (1..=6).contains(&digits) && b.get(3 + digits) == Some(&b'}') {
        4 + digits
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    /// Every listed range, at and just beyond both of its ends.
    #[test]
    fn every_range_boundary() {
        let hidden = [
            (0x00, 0x1f),
            (0x7f, 0x9f),
            (0x061c, 0x061c),
            (0x200b, 0x200b),
            (0x200e, 0x200f),
            (0x2060, 0x2064),
            (0xfeff, 0xfeff),
            (0x2028, 0x2029),
            (0x202a, 0x202e),
            (0x2066, 0x2069),
            (0xe0000, 0xe007f),
        ];
        for (lo, hi) in hidden {
            let inner = if hi > lo { [lo + 1, hi - 1] } else { [lo, hi] };
            for n in [lo, inner[0], inner[1], hi] {
                let c = char::from_u32(n).unwrap();
                assert!(is_hidden(c), "U+{n:04X}");
                assert_eq!(escape(&format!("a{c}b")), format!("a\\u{{{n:x}}}b"));
                assert_eq!(escape_hidden(&format!("a{c}b")), format!("a\\u{{{n:x}}}b"));
            }
        }
        // The neighbours that stay printable.
        for n in [
            0x20, 0x7e, 0xa0, 0x061b, 0x061d, 0x200a, 0x200c, 0x200d, 0x2010, 0x2027, 0x202f,
            0x205f, 0x2065, 0x206a, 0xfefe, 0xff00, 0xdffff, 0xe0080,
        ] {
            let c = char::from_u32(n).unwrap();
            assert!(!is_hidden(c), "U+{n:04X}");
            assert_eq!(escape(&format!("{c}")), format!("{c}"));
        }
    }

    #[test]
    fn backslash_is_doubled_in_values_and_kept_in_composed_text() {
        assert_eq!(escape("\\u{1b}"), "\\\\u{1b}");
        assert_eq!(escape("a\\b"), "a\\\\b");
        let once = escape("x\u{1b}y\\z\u{202e}");
        assert_eq!(once, "x\\u{1b}y\\\\z\\u{202e}");
        assert_eq!(escape_hidden(&once), once);
        assert_eq!(
            escape_hidden(&format!("{once}\n")),
            format!("{once}\\u{{a}}")
        );
    }

    #[test]
    fn cuts_never_split_an_escape() {
        assert_eq!(escape_cut("abcdef", 6), "abcdef");
        assert_eq!(escape_cut("abcdefg", 6), "abcdef...");
        // "ab" + "\u{1b}" (6) does not fit in 7: cut before the escape.
        assert_eq!(escape_cut("ab\u{1b}cd", 7), "ab...");
        assert_eq!(escape_cut("ab\u{1b}cd", 8), "ab\\u{1b}...");
        assert_eq!(escape_cut("a\\b", 2), "a...");
        // Escapes already in composed text are whole pieces too.
        assert_eq!(escape_hidden_cut("ab\\u{1b}cd", 7), "ab...");
        assert_eq!(escape_hidden_cut("ab\\\\cd", 3), "ab...");
        assert_eq!(escape_hidden_cut("a\\u{zz}", 3), "a\\u...");
        assert_eq!(escape_hidden_cut("\\u{1234567}", 2), "\\u...");
    }

    #[test]
    fn counts_characters_not_bytes() {
        assert_eq!(escape_cut("ééé", 3), "ééé");
        assert_eq!(escape_cut("éééé", 3), "ééé...");
    }
}
