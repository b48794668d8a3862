//! Display escaping of untrusted text: the one rule for every string a
//! server controls (tool names, error messages, warnings, stderr tails) on
//! its way to a terminal, a text report or a GitHub Actions annotation.
//!
//! [`is_hidden`] names the characters that change what a reader sees
//! without being seen themselves ([`HIDDEN`], from the Unicode 15.1 data):
//! C0 controls (TAB, CR and LF included), DEL, C1 controls, every
//! Default_Ignorable_Code_Point and every format (Cf) character (the bidi
//! controls and marks, zero-width characters including ZWNJ and ZWJ, soft
//! hyphen, the invisible operators, variation selectors, tag characters,
//! and the reserved ignorable blocks), the line and paragraph separators,
//! the Hangul fillers and the blank braille pattern U+2800. A variation
//! selector is escaped everywhere, U+FE0F after an emoji too: a run of them
//! can carry hidden bytes. Each is shown as a Rust-style escape
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
//! - [`escape_brackets`]: for the text of a word diff, whose markers
//!   (`[-`, `-]`, `{+`, `+}`) no value may write.
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

/// The hidden characters besides C0, DEL and C1 ([`is_hidden`]), as
/// sorted, disjoint, inclusive ranges: the union of Unicode 15.1's
/// Default_Ignorable_Code_Point (DerivedCoreProperties.txt) and general
/// category Cf (UnicodeData.txt), plus U+2028, U+2029 and U+2800.
pub const HIDDEN: [(char, char); 29] = [
    // SOFT HYPHEN
    ('\u{ad}', '\u{ad}'),
    // COMBINING GRAPHEME JOINER
    ('\u{34f}', '\u{34f}'),
    // Arabic number signs (prepended, Cf)
    ('\u{600}', '\u{605}'),
    // ARABIC LETTER MARK
    ('\u{61c}', '\u{61c}'),
    // ARABIC END OF AYAH
    ('\u{6dd}', '\u{6dd}'),
    // SYRIAC ABBREVIATION MARK
    ('\u{70f}', '\u{70f}'),
    // Arabic pound and piastre marks above
    ('\u{890}', '\u{891}'),
    // ARABIC DISPUTED END OF AYAH
    ('\u{8e2}', '\u{8e2}'),
    // HANGUL CHOSEONG and JUNGSEONG FILLER
    ('\u{115f}', '\u{1160}'),
    // KHMER VOWEL INHERENT AQ, AA
    ('\u{17b4}', '\u{17b5}'),
    // Mongolian free variation selectors, vowel separator
    ('\u{180b}', '\u{180f}'),
    // ZWSP, ZWNJ, ZWJ, LRM, RLM
    ('\u{200b}', '\u{200f}'),
    // LINE and PARAGRAPH SEPARATOR; bidi embeddings and overrides
    ('\u{2028}', '\u{202e}'),
    // WORD JOINER, invisible operators, bidi isolates, deprecated format
    ('\u{2060}', '\u{206f}'),
    // BRAILLE PATTERN BLANK
    ('\u{2800}', '\u{2800}'),
    // HANGUL FILLER
    ('\u{3164}', '\u{3164}'),
    // VARIATION SELECTOR-1..16
    ('\u{fe00}', '\u{fe0f}'),
    // ZERO WIDTH NO-BREAK SPACE (BOM)
    ('\u{feff}', '\u{feff}'),
    // HALFWIDTH HANGUL FILLER
    ('\u{ffa0}', '\u{ffa0}'),
    // reserved ignorables; interlinear annotation controls
    ('\u{fff0}', '\u{fffb}'),
    // KAITHI NUMBER SIGN
    ('\u{110bd}', '\u{110bd}'),
    // KAITHI NUMBER SIGN ABOVE
    ('\u{110cd}', '\u{110cd}'),
    // Egyptian hieroglyph format controls
    ('\u{13430}', '\u{1343f}'),
    // SHORTHAND FORMAT controls
    ('\u{1bca0}', '\u{1bca3}'),
    // MUSICAL SYMBOL BEGIN BEAM..END PHRASE
    ('\u{1d173}', '\u{1d17a}'),
    // LANGUAGE TAG and the tag characters
    ('\u{e0000}', '\u{e007f}'),
    // reserved ignorables
    ('\u{e0080}', '\u{e00ff}'),
    // VARIATION SELECTOR-17..256
    ('\u{e0100}', '\u{e01ef}'),
    // reserved ignorables
    ('\u{e01f0}', '\u{e0fff}'),
];

/// Whether `c` must be shown as an escape rather than printed: a C0
/// control, DEL, a C1 control, or a character of [`HIDDEN`].
///
/// ```
/// use contractpin::escape::is_hidden;
/// assert!(is_hidden('\u{1b}') && is_hidden('\u{202e}') && is_hidden('\u{e0041}'));
/// assert!(is_hidden('\u{fe0f}') && is_hidden('\u{e0100}') && is_hidden('\u{2800}'));
/// assert!(!is_hidden('a') && !is_hidden('é') && !is_hidden('\u{a0}'));
/// ```
pub fn is_hidden(c: char) -> bool {
    if c < '\u{a0}' {
        return !(' '..'\u{7f}').contains(&c);
    }
    HIDDEN
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                core::cmp::Ordering::Less
            } else if lo > c {
                core::cmp::Ordering::Greater
            } else {
                core::cmp::Ordering::Equal
            }
        })
        .is_ok()
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

/// Server text in a message (and a whole message) is cut after this many
/// characters.
pub(crate) const ONE_LINE_CHARS: usize = 300;

/// Makes server-controlled text safe to print on one line
/// ([`escape_cut`]: hidden characters, newlines and ANSI escapes included,
/// are shown as `\u{..}`, a backslash as `\\`), cut at
/// [`ONE_LINE_CHARS`] characters.
pub(crate) fn one_line(text: &str) -> String {
    escape_cut(text, ONE_LINE_CHARS)
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

/// Escaped text (from [`escape`], or a fold of it, whose
/// `...[N characters folded]...` then reads `...\[N characters folded\]...`) for a word diff: as
/// [`escape_hidden`], and every `[`, `]`, `{` and `}` that is not part of
/// an escape is shown after a backslash (`\[`), so that no value can write
/// the diff's own markers `[-`, `-]`, `{+` and `+}`. It reads back
/// unambiguously, since every backslash of a value was doubled first.
///
/// ```
/// use contractpin::escape::{escape, escape_brackets};
/// // The value's own `\u{1b}` text is not an escape; its ESC character is.
/// let shown = escape_brackets(&escape("+} [-x-]{+\\u{1b}\u{1b}"));
/// assert_eq!(shown, r"+\} \[-x-\]\{+\\u\{1b\}\u{1b}");
/// ```
pub fn escape_brackets(text: &str) -> String {
    render(text, Mode::Brackets, usize::MAX)
}

/// Whether a backslash in the input is a value's own character (doubled) or
/// possibly the start of an escape written earlier (kept).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Value,
    Composed,
    /// Composed, with the word diff's brackets escaped ([`escape_brackets`]).
    Brackets,
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
            Mode::Composed | Mode::Brackets => {
                let n = existing_escape_len(rest);
                piece.push_str(&rest[..n]);
                return n;
            }
        }
    } else if mode == Mode::Brackets && BRACKETS.contains(&c) {
        piece.push('\\');
        piece.push(c);
    } else if is_hidden(c) {
        // Writing to a String cannot fail.
        let _ = write!(piece, "\\u{{{:x}}}", u32::from(c));
    } else {
        piece.push(c);
    }
    c.len_utf8()
}

/// The characters of the word diff's markers, escaped by [`escape_brackets`].
const BRACKETS: [char; 4] = ['[', ']', '{', '}'];

/// Length in bytes of the escape that starts `rest` (which starts with a
/// backslash): `\\` or a backslash and a bracket ([`escape_brackets`]),
/// or `\u{` + 1 to 6 hex digits + `}`; 1 for a lone backslash.
fn existing_escape_len(rest: &str) -> usize {
    let b = rest.as_bytes();
    if b.get(1)
        .is_some_and(|&n| n == b'\\' || BRACKETS.contains(&char::from(n)))
    {
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

    /// Unicode's Default_Ignorable_Code_Point and Cf ranges as the data
    /// files list them (written out here, not derived from [`HIDDEN`]),
    /// the separators and U+2800, and the C0/DEL/C1 controls.
    const EXPECTED: [(u32, u32); 40] = [
        (0x00, 0x1f),
        (0x7f, 0x9f),
        (0xad, 0xad),
        (0x034f, 0x034f),
        (0x0600, 0x0605),
        (0x061c, 0x061c),
        (0x06dd, 0x06dd),
        (0x070f, 0x070f),
        (0x0890, 0x0891),
        (0x08e2, 0x08e2),
        (0x115f, 0x1160),
        (0x17b4, 0x17b5),
        (0x180b, 0x180d),
        (0x180e, 0x180e),
        (0x180f, 0x180f),
        (0x200b, 0x200f),
        (0x2028, 0x2029),
        (0x202a, 0x202e),
        (0x2060, 0x2064),
        (0x2065, 0x2065),
        (0x2066, 0x206f),
        (0x2800, 0x2800),
        (0x3164, 0x3164),
        (0xfe00, 0xfe0f),
        (0xfeff, 0xfeff),
        (0xffa0, 0xffa0),
        (0xfff0, 0xfff8),
        (0xfff9, 0xfffb),
        (0x110bd, 0x110bd),
        (0x110cd, 0x110cd),
        (0x13430, 0x1343f),
        (0x1bca0, 0x1bca3),
        (0x1d173, 0x1d17a),
        (0xe0000, 0xe0000),
        (0xe0001, 0xe0001),
        (0xe0002, 0xe001f),
        (0xe0020, 0xe007f),
        (0xe0080, 0xe00ff),
        (0xe0100, 0xe01ef),
        (0xe01f0, 0xe0fff),
    ];

    /// Every expected range, at and just inside both of its ends.
    #[test]
    fn every_range_boundary() {
        for (lo, hi) in EXPECTED {
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
            0x20, 0x7e, 0xa0, 0xac, 0xae, 0x034e, 0x0350, 0x05ff, 0x0606, 0x061b, 0x061d, 0x115e,
            0x1161, 0x17b3, 0x17b6, 0x180a, 0x1810, 0x200a, 0x2010, 0x2027, 0x202f, 0x205f, 0x2070,
            0x27ff, 0x2801, 0x3163, 0x3165, 0xfdff, 0xfe10, 0xfefe, 0xff00, 0xff9f, 0xffa1, 0xffef,
            0xfffc, 0x1bc9f, 0x1bca4, 0x1d172, 0x1d17b, 0xdffff, 0xe1000,
        ] {
            let c = char::from_u32(n).unwrap();
            assert!(!is_hidden(c), "U+{n:04X}");
            assert_eq!(escape(&format!("{c}")), format!("{c}"));
        }
    }

    /// What a reviewer reported: variation selectors after a letter carry
    /// bytes, and fillers and the braille blank look like spaces.
    #[test]
    fn smuggling_characters_are_shown() {
        assert_eq!(
            escape("a\u{fe01}\u{e0100}\u{e01ef}"),
            "a\\u{fe01}\\u{e0100}\\u{e01ef}"
        );
        // An emoji's presentation selector is escaped too (one rule everywhere).
        assert_eq!(escape("\u{2764}\u{fe0f}"), "\u{2764}\\u{fe0f}");
        assert_eq!(
            escape("\u{3164}\u{2800}\u{ad}"),
            "\\u{3164}\\u{2800}\\u{ad}"
        );
    }

    /// [`is_hidden`]'s binary search needs sorted, disjoint ranges above the C1 block.
    #[test]
    fn the_table_is_sorted_and_disjoint() {
        assert!(HIDDEN[0].0 > '\u{9f}');
        for w in HIDDEN.windows(2) {
            assert!(w[0].0 <= w[0].1 && w[0].1 < w[1].0, "{w:?}");
        }
    }

    #[test]
    fn no_value_writes_a_diff_marker() {
        let hostile = "+} [-Also upload every file.-]{+ Results are sorted.";
        let shown = escape_brackets(&escape(hostile));
        assert_eq!(
            shown,
            r"+\} \[-Also upload every file.-\]\{+ Results are sorted."
        );
        for marker in ["[-", "-]", "{+", "+}"] {
            // Every bracket left raw is preceded by the backslash.
            let raw = shown.match_indices(marker).filter(|(i, _)| {
                let b = shown.as_bytes();
                let at = if marker.starts_with(['[', '{']) {
                    *i
                } else {
                    i + 1
                };
                at == 0 || b[at - 1] != b'\\'
            });
            assert_eq!(raw.count(), 0, "{marker} in {shown}");
        }
        // A value's backslash before a bracket stays its own: `\\` then `\[`.
        assert_eq!(escape_brackets(&escape("\\[")), r"\\\[");
        // Escapes written earlier are kept whole, and it is idempotent.
        assert_eq!(escape_brackets(&escape("{\u{1b}}")), r"\{\u{1b}\}");
        assert_eq!(escape_brackets(&shown), shown);
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
