//! Output channels: GitHub Actions annotations (GITHUB_ACTIONS=true) and
//! colour (only on a terminal, never with NO_COLOR).

mod cli_support;
use cli_support::*;

use std::process::Command;

/// A copy of the shipped lock pointing at the drifted dump.
fn drifted_lock(dir: &TempDir) -> std::path::PathBuf {
    let lock = dir.path("contractpin.lock");
    std::fs::copy(root().join("examples/contractpin.lock"), &lock).unwrap();
    set_string(
        &lock,
        "example",
        "path",
        &beside_name(&lock, "examples/drifted-tools-list.json"),
    );
    lock
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .expect("needle in lock")
        + 1
}

#[test]
fn github_actions_annotations() {
    let dir = TempDir::new("gha");
    let lock = drifted_lock(&dir);
    let lock_text = read(&lock);
    let o = cp(&["verify", "--lock", &s(&lock)])
        .env("GITHUB_ACTIONS", "true")
        .run();
    o.code(1);
    let out = o.out();
    let file = s(&lock);
    let expect = |level: &str, tool: &str, what: &str, line: usize| {
        let prefix = format!(
            "::{level} file={file},line={line},title=contractpin%3A example/{tool} {what}::"
        );
        assert!(
            out.lines().any(|l| l.starts_with(&prefix)),
            "missing {prefix}\n{out}"
        );
    };
    expect(
        "error",
        "search_web",
        "drifted",
        line_of(&lock_text, "\"search_web\": {"),
    );
    expect(
        "error",
        "read_file",
        "drifted",
        line_of(&lock_text, "\"read_file\": {"),
    );
    expect(
        "error",
        "delete_record",
        "removed",
        line_of(&lock_text, "\"delete_record\": {"),
    );
    // An added tool has no line of its own: the server's line.
    expect(
        "error",
        "export_data",
        "added",
        line_of(&lock_text, "\"example\": {"),
    );
    assert!(out.contains("changed: description"), "{out}");
    assert_eq!(
        out.lines().filter(|l| l.starts_with("::")).count(),
        4,
        "{out}"
    );
    // The human report follows.
    assert!(out.contains("DRIFT example"), "{out}");

    // --allow-new turns the added tool into a warning.
    let o = cp(&["verify", "--lock", &s(&lock), "--allow-new"])
        .env("GITHUB_ACTIONS", "true")
        .run();
    o.code(1);
    assert!(
        o.out().contains("::warning file=") && o.out().contains("export_data added"),
        "{}",
        o.out()
    );

    // JSON on stdout stays pure JSON; the annotations go to stderr.
    let o = cp(&["verify", "--lock", &s(&lock), "--format", "json"])
        .env("GITHUB_ACTIONS", "true")
        .run();
    o.code(1);
    py_check_json(&o.out(), "assert d['exit_code']==1");
    assert_eq!(
        o.err()
            .lines()
            .filter(|l| l.starts_with("::error file="))
            .count(),
        4,
        "{}",
        o.err()
    );

    // An unreachable server is an annotation too (with % and newlines escaped).
    set_string(&lock, "example", "path", "nonexistent/100%/dump.json");
    let o = cp(&["verify", "--lock", &s(&lock)])
        .env("GITHUB_ACTIONS", "true")
        .run();
    o.code(1);
    let ann = o
        .out()
        .lines()
        .find(|l| l.starts_with("::error"))
        .unwrap_or("")
        .to_string();
    assert!(
        ann.contains("title=contractpin%3A server example could not be checked::"),
        "{ann}"
    );
    assert!(ann.contains("100%25"), "{ann}");

    // Without GITHUB_ACTIONS=true: no workflow commands.
    for value in [None, Some("false"), Some("1")] {
        let mut c = cp(&["verify", "--lock", &s(&lock)]);
        if let Some(v) = value {
            c = c.env("GITHUB_ACTIONS", v);
        }
        let o = c.run();
        o.code(1);
        assert!(
            !o.out().contains("::error") && !o.err().contains("::error"),
            "{value:?}"
        );
    }
    // A passing run has none either.
    let o = cp(&["verify", "--lock", "examples/contractpin.lock"])
        .env("GITHUB_ACTIONS", "true")
        .run();
    o.code(0);
    assert!(!o.out().contains("::"), "{}", o.out());
}

/// Runs the CLI under a pseudo-terminal with `script(1)`; returns the output.
fn under_tty(args: &str, no_color: Option<&str>) -> Option<String> {
    let mut c = Command::new("script");
    c.args(["-qec", &format!("{} {args}", bin()), "/dev/null"])
        .current_dir(root())
        .env_remove("NO_COLOR")
        .env_remove("GITHUB_ACTIONS");
    if let Some(v) = no_color {
        c.env("NO_COLOR", v);
    }
    let out = c.output().ok()?;
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn colour_only_on_a_tty_and_never_with_no_color() {
    let dir = TempDir::new("colour");
    let lock = drifted_lock(&dir);
    let args = format!("verify --lock {}", s(&lock));
    // Piped stdout: never colour.
    let o = cp(&["verify", "--lock", &s(&lock)]).run();
    assert!(!o.out().contains('\u{1b}'));
    assert!(!o.err().contains('\u{1b}'));
    let Some(tty) = under_tty(&args, None) else {
        eprintln!("script(1) is not available: the TTY half of this test is skipped");
        return;
    };
    assert!(
        tty.contains("DRIFT"),
        "script(1) did not run the CLI: {tty}"
    );
    assert!(
        tty.contains("\u{1b}[1;31mDRIFT\u{1b}[0m"),
        "no colour on a TTY: {tty:?}"
    );
    for v in ["1", "true", ""] {
        let plain = under_tty(&args, Some(v)).unwrap();
        assert!(plain.contains("DRIFT"), "{plain}");
        assert!(
            !plain.contains('\u{1b}'),
            "NO_COLOR={v:?} still coloured: {plain:?}"
        );
    }
}

#[test]
fn errors_go_to_stderr_and_one_line_each() {
    let o = cp(&["verify", "--lock", "/nonexistent/contractpin.lock"]).run();
    o.code(2);
    assert!(o.stdout.is_empty());
    assert_eq!(o.err().lines().count(), 1, "{}", o.err());
    assert!(o
        .err()
        .starts_with("error: cannot read lock file /nonexistent/contractpin.lock: "));
}
