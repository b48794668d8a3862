//! Folding of long values for display: the one place that decides how a
//! long description or JSON value is shortened in a text report, an
//! approval prompt or a SARIF message.
//!
//! A text of at most `max_chars` characters is shown whole; a longer one
//! as its first and last `max_chars / 2` characters with
//! `...[N characters folded]...` between, unless that marker would be as
//! long as what it leaves out (then the text is shown whole). The cut is made in the text
//! before it is escaped, so an escape is never split, and every part is
//! escaped with the one rule of [`crate::escape`].

use alloc::format;
use alloc::string::String;

use crate::escape::{escape, escape_brackets, escape_hidden};

/// An untrusted string value, escaped with [`escape`] and folded.
///
/// ```
/// use contractpin::drift::fold;
/// let long = "abcdefghij".repeat(10);
/// assert_eq!(fold(&long, 4), "ab...[96 characters folded]...ij");
/// assert_eq!(fold("abcdefghij", 4), "abcdefghij"); // folding would not shorten it
/// assert_eq!(fold("a\u{202e}b", 10), "a\\u{202e}b");
/// ```
pub fn fold(text: &str, max_chars: usize) -> String {
    fold_with(text, max_chars, escape)
}

/// Canonical JSON text (from the JSON writer: every backslash of a string
/// is already doubled, so a shown `\u{..}` is always ours), escaped with
/// [`escape_hidden`] and folded.
///
/// ```
/// use contractpin::drift::fold_json;
/// assert_eq!(fold_json(r#"{"a":"x\\y"}"#, 40), r#"{"a":"x\\y"}"#);
/// assert_eq!(fold_json("\"\u{200b}\"", 40), "\"\\u{200b}\"");
/// ```
pub fn fold_json(json: &str, max_chars: usize) -> String {
    fold_with(json, max_chars, escape_hidden)
}

/// An untrusted string value for a word diff: as [`fold`], with the
/// value's own brackets escaped ([`escape_brackets`]) in each part, so only
/// the fold notice's `[` and `]` are raw and no value can imitate it (or
/// the diff's markers).
///
/// ```
/// use contractpin::drift::fold_diff;
/// let long = format!("[{}]", "x".repeat(98));
/// assert_eq!(fold_diff(&long, 4), r"\[x...[96 characters folded]...x\]");
/// assert_eq!(fold_diff("{+a+}", 10), r"\{+a+\}");
/// ```
pub fn fold_diff(text: &str, max_chars: usize) -> String {
    fold_with(text, max_chars, |t| escape_brackets(&escape(t)))
}

fn fold_with(text: &str, max_chars: usize, show: fn(&str) -> String) -> String {
    let count = text.chars().count();
    if count <= max_chars {
        return show(text);
    }
    let head = max_chars / 2;
    let tail = max_chars - head;
    let head_end = text.char_indices().nth(head).map_or(text.len(), |(i, _)| i);
    let tail_start = if tail == 0 {
        text.len()
    } else {
        text.char_indices().nth_back(tail - 1).map_or(0, |(i, _)| i)
    };
    let marker = format!("...[{} characters folded]...", count - head - tail);
    if count - head - tail <= marker.len() {
        return show(text);
    }
    format!(
        "{}{marker}{}",
        show(&text[..head_end]),
        show(&text[tail_start..])
    )
}
