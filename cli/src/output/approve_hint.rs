//! The `approve` command `verify`'s text report prints under each drifted
//! server: `--all` bound by `--expect` (and `--expect-instructions` when
//! the instructions changed) to the digests of that report, so the reviewer
//! pins exactly what they read.
//!
//! Server names and lock paths come from a pull request and the line is
//! pasted into a shell, so the command is printed only when each of them is
//! one plain shell word ([`shell_word`]); otherwise the line gives the
//! digests and `…` in place of those values, no runnable command.
//!
//! The command runs the server as verify did: with verify's
//! `--trusted-lock`, `--transports` and `--allow-outside-paths`. verify's
//! `--header` values are never printed (they may be secrets): when verify
//! had some, a second line says to add them.

use std::path::Path;

use clap::ValueEnum;
use contractpin::verify::{InstructionsStatus, ServerReport, ServerStatus};

use crate::args::TransportArg;

/// What the hint starts with.
const LEAD: &str = "  to pin exactly what this report shows:";

/// Ends the line that is not a command: what to put in for `…`. (Its
/// parentheses also make the whole line a shell syntax error if pasted.)
const UNSAFE_NOTE: &str =
    " (not a command to paste: the server name or a lock path needs shell quoting; \
     put it in, quoted, for each …)";

/// The line under a hint whose server verify sent `--header` values.
const HEADER_NOTE: &str = "  (add the --header options you gave verify: they are not printed)\n";

/// What `verify` was run with that the hint's command repeats: where it
/// read its pins (`--lock`, `--trusted-lock`, as given) and how it was
/// allowed to run the servers.
pub struct LockPaths<'a> {
    /// `--lock`.
    pub lock: &'a Path,
    /// `--trusted-lock`, when given.
    pub trusted: Option<&'a Path>,
    /// `--transports`, when given.
    pub transports: Option<&'a [TransportArg]>,
    /// `--allow-outside-paths`.
    pub allow_outside_paths: bool,
    /// Whether verify sent `--header` values (to its one `--server`).
    pub headers: bool,
}

/// The hint line of one server (with its newline): `None` unless the
/// server is DRIFT and has a live digest.
pub fn approve_hint(r: &ServerReport, paths: &LockPaths) -> Option<String> {
    let live = r
        .live_digest
        .filter(|_| r.status() == ServerStatus::Drift)?;
    let lock = path_word(paths.lock);
    let name = Some(r.name.as_str()).filter(|n| shell_word(n));
    let trusted = paths.trusted.map(path_word);
    let mut line = format!(
        "{LEAD} contractpin approve --lock {} --server {} --all --expect {live}",
        lock.unwrap_or("…"),
        name.unwrap_or("…")
    );
    if let Some(digest) = expect_instructions(r) {
        line.push_str(&format!(" --expect-instructions {digest}"));
    }
    if let Some(base) = trusted {
        line.push_str(&format!(" --trusted-lock {}", base.unwrap_or("…")));
    }
    if let Some(list) = paths.transports {
        line.push_str(&format!(" --transports {}", transport_list(list)));
    }
    if paths.allow_outside_paths {
        line.push_str(" --allow-outside-paths");
    }
    if lock.is_none() || name.is_none() || trusted.is_some_and(|b| b.is_none()) {
        line.push_str(UNSAFE_NOTE);
    }
    line.push('\n');
    if paths.headers {
        line.push_str(HEADER_NOTE);
    }
    Some(line)
}

/// `--transports` as verify's parser reads it: the names, comma-separated.
fn transport_list(list: &[TransportArg]) -> String {
    let names: Vec<String> = list
        .iter()
        .filter_map(|t| t.to_possible_value())
        .map(|v| v.get_name().to_string())
        .collect();
    names.join(",")
}

/// The `--expect-instructions` value when the instructions are not
/// unchanged: their live digest, or `none` when the server sends none.
fn expect_instructions(r: &ServerReport) -> Option<String> {
    let v = r
        .instructions
        .filter(|v| v.status != InstructionsStatus::Unchanged)?;
    Some(v.live.map_or_else(|| "none".to_string(), |d| d.to_string()))
}

/// A path as one plain shell word ([`shell_word`]), if it is one.
fn path_word(path: &Path) -> Option<&str> {
    path.to_str().filter(|p| shell_word(p))
}

/// Whether `word` can be pasted into a shell unquoted as one argument that
/// is not an option: it is not empty, does not start with `-`, and has only
/// the characters `A-Z a-z 0-9 . _ / - + @ : ,` (so no space, quote, `$`,
/// backtick, `;`, `~`, glob, newline or non-ASCII character, and no `=`,
/// which zsh expands to a command's path at a word's start, `=ls`, and
/// after `=` or `:` with `MAGIC_EQUAL_SUBST`).
pub fn shell_word(word: &str) -> bool {
    !word.is_empty()
        && !word.starts_with('-')
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._/-+@:,".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transports_are_listed_by_their_command_line_names() {
        let all = [TransportArg::Stdio, TransportArg::Http, TransportArg::File];
        assert_eq!(transport_list(&all), "stdio,http,file");
        assert_eq!(transport_list(&all[2..]), "file");
        assert!(shell_word(&transport_list(&all)));
    }

    #[test]
    fn shell_words_are_plain() {
        for ok in [
            "weather",
            "a.b_c-d+e@f:g,h",
            "../locks/contractpin.lock",
            "X9",
        ] {
            assert!(shell_word(ok), "{ok}");
        }
        let bad = [
            "", "a b", "x;y", "$HOME", "`id`", "a'b", "a\"b", "a\nb", "a\tb", "~/x", "a*", "é",
            "a\\b", "a|b", "a&b", "a>b", "(a)", "-x", "--lock=x", "a#b", "=ls", "=", "a==ls",
            "x=y:=ls", "a=b",
        ];
        for bad in bad {
            assert!(!shell_word(bad), "{bad:?}");
        }
    }
}
