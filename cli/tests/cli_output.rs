//! Output channels: GitHub Actions annotations (GITHUB_ACTIONS=true) and
//! colour (only on a terminal, never with NO_COLOR).

mod cli_support;
use cli_support::*;

use std::process::Command;

/// A copy of the shipped lock pointing at the drifted dump.
fn drifted_lock(dir: &TempDir) -> std::path::PathBuf {
    let lock = dir.path("contractpin.lock");
    std::fs::copy(root().join("examples/contractpin.lock"), &lock).unwrap();
    serve_file(&lock, "example", "examples/drifted-tools-list.json");
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
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
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
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
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

// ------------------------------------------------------------------ spoofing

/// What a hostile server puts in tool names and messages: ANSI colour, an
/// OSC 8 hyperlink, BEL, a right-to-left override, a line separator, a tag
/// character, CR/LF with a forged workflow command, a forged escape, C1
/// controls (CSI, NEL), TAB and DEL, and a forged `%0A`.
const PAYLOADS: &[&str] = &[
    "\u{1b}[31mred\u{1b}[0m",
    "\u{1b}]8;;https://evil.example/\u{1b}\\click\u{1b}]8;;\u{1b}\\",
    "bell\u{7}",
    "\u{202e}fdp.exe",
    "line\u{2028}sep\u{2029}",
    "tag\u{e0041}\u{e007f}",
    "cr\rlf\n::error file=x,line=1::forged",
    "fake \\u{1b} escape",
    "c1 \u{9b}31m \u{85}nel",
    "tab\tdel\u{7f}",
    "lrm\u{200e}\u{200f}\u{61c}\u{2066}iso\u{2069}",
    "%0A::warning::pct",
];

/// The characters that must never reach a terminal or an annotation raw
/// (an oracle independent of the library's own rule).
fn hidden(c: char) -> bool {
    let n = c as u32;
    n < 0x20
        || (0x7f..=0x9f).contains(&n)
        || [0x061c, 0x200e, 0x200f, 0x2028, 0x2029].contains(&n)
        || (0x202a..=0x202e).contains(&n)
        || (0x2066..=0x2069).contains(&n)
        || (0xe0000..=0xe007f).contains(&n)
}

/// The expected display form: `\` doubled, every hidden character `\u{hex}`.
fn shown(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            c if hidden(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Fails if `text` holds a hidden character other than the line breaks
/// between its own lines.
#[track_caller]
fn assert_no_hidden(what: &str, text: &str) {
    for (i, line) in text.split('\n').enumerate() {
        if let Some(c) = line.chars().find(|&c| hidden(c)) {
            panic!("{what}: raw U+{:04X} on line {}: {line:?}", c as u32, i + 1);
        }
    }
}

fn tool(name: &str, description: &str) -> String {
    format!(
        r#"{{"name":{},"description":{},"inputSchema":{{"type":"object"}}}}"#,
        json_str(name),
        json_str(description)
    )
}

fn dump(tools: &[String]) -> String {
    format!(r#"{{"tools":[{}]}}"#, tools.join(","))
}

/// A lock pinning a dump of hostile tool names, and the dump replaced by a
/// drifted one: every payload names a drifted tool, one names a removed tool
/// that is likely renamed to another, one an added tool. Returns the lock
/// and every tool name of both sides.
fn hostile_drift(dir: &TempDir) -> (std::path::PathBuf, Vec<String>) {
    let drifted: Vec<String> = PAYLOADS.iter().map(|p| format!("d-{p}")).collect();
    let removed = format!("r-{}", PAYLOADS[1]);
    let renamed = format!("n-{}", PAYLOADS[3]);
    let added = format!("a-{}", PAYLOADS[6]);
    let mut before: Vec<String> = drifted.iter().map(|n| tool(n, "old")).collect();
    before.push(tool(&removed, "same"));
    let mut after: Vec<String> = drifted.iter().map(|n| tool(n, "new")).collect();
    after.push(tool(&renamed, "same"));
    after.push(tool(&added, "other"));
    let file = dir.write("tools.json", dump(&before));
    let lock = dir.path("contractpin.lock");
    cp(&[
        "init",
        "--lock",
        &s(&lock),
        "--name",
        "hostile",
        "--file",
        &s(&file),
    ])
    .run()
    .code(0);
    std::fs::write(&file, dump(&after)).unwrap();
    let mut names = drifted;
    names.extend([removed, renamed, added]);
    (lock, names)
}

#[test]
fn hostile_tool_names_are_escaped_in_text_and_annotations() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("spoof");
    let (lock, names) = hostile_drift(&dir);
    let lock_arg = s(&lock);

    // Text report.
    let o = cp(&["verify", "--lock", &lock_arg]).run();
    o.code(1);
    assert_no_hidden("text stdout", &o.out());
    assert_no_hidden("text stderr", &o.err());
    assert!(!o.out().lines().any(|l| l.starts_with("::")), "{}", o.out());
    for n in &names {
        assert!(
            o.out().contains(&shown(n)),
            "{:?} not shown as {:?}:\n{}",
            n,
            shown(n),
            o.out()
        );
    }
    assert!(o.out().contains("fake \\\\u{1b} escape"), "{}", o.out());

    // Annotations (and the text report after them).
    let o = cp(&["verify", "--lock", &lock_arg])
        .env("GITHUB_ACTIONS", "true")
        .run();
    o.code(1);
    assert_no_hidden("annotated stdout", &o.out());
    assert_no_hidden("annotated stderr", &o.err());
    let out = o.out();
    let annotations: Vec<&str> = out.lines().filter(|l| l.starts_with("::")).collect();
    // One per drifted tool, the removed one and the two added ones; nothing forged.
    assert_eq!(annotations.len(), PAYLOADS.len() + 3, "{out}");
    for a in &annotations {
        assert!(
            a.starts_with("::error file=") || a.starts_with("::warning file="),
            "{a}"
        );
    }
    for n in &names {
        // The message part (after the second `::`) escapes only % CR LF more.
        let message_form = shown(n).replace('%', "%25");
        assert!(
            annotations.iter().any(|a| a.contains(&message_form)),
            "{n:?} not shown as {message_form:?}:\n{out}"
        );
    }
    assert!(out.contains("%250A::warning::pct"), "{out}");

    // JSON stays exact: the original names, parsed back.
    let o = cp(&["verify", "--lock", &lock_arg, "--format", "json"])
        .env("GITHUB_ACTIONS", "true")
        .run();
    o.code(1);
    assert_no_hidden("json-mode annotations", &o.err());
    let want = dir.write(
        "want.json",
        format!(
            "[{}]",
            names
                .iter()
                .map(|n| json_str(n))
                .collect::<Vec<_>>()
                .join(",")
        ),
    );
    py_check_json(
        &o.out(),
        &format!(
            "names = {{t['name'] for s in d['servers'] for t in s['tools']}}\n\
             want = set(json.load(open({:?}, encoding='utf-8')))\n\
             assert names == want, (sorted(names), sorted(want))",
            s(&want)
        ),
    );
}

/// A stdio MCP server that serves one tool, or (with `CP_EVIL=rpc`) answers
/// every request with a JSON-RPC error whose message is the payloads, or
/// (`CP_EVIL=crash`) writes the payloads to stderr and exits 3.
const HOSTILE_SERVER: &str = r#"
import json, os, sys
payloads = json.loads(sys.argv[1]); evil = os.environ.get("CP_EVIL", "")
if evil == "crash":
    sys.stderr.write("\n".join(payloads) + "\n"); sys.stderr.flush(); sys.exit(3)
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    reply = {"jsonrpc": "2.0", "id": msg["id"]}
    if evil == "rpc":
        reply["error"] = {"code": -32000, "message": " ".join(payloads)}
    elif msg["method"] == "initialize":
        reply["result"] = {"protocolVersion": msg["params"]["protocolVersion"],
                           "capabilities": {"tools": {}}, "serverInfo": {"name": "h", "version": "1"}}
    elif msg["method"] == "tools/list":
        reply["result"] = {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}
    else:
        reply["error"] = {"code": -32601, "message": "no such method"}
    print(json.dumps(reply), flush=True)
"#;

#[test]
fn hostile_server_text_is_escaped_in_errors_reports_and_annotations() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("spoof-err");
    let lock = dir.path("contractpin.lock");
    let lock_arg = s(&lock);
    // Short enough that the 300-character cut keeps every payload.
    let payloads = &PAYLOADS[..7];
    let arg = format!(
        "[{}]",
        payloads
            .iter()
            .map(|p| json_str(p))
            .collect::<Vec<_>>()
            .join(",")
    );
    let server = ["python3", "-c", HOSTILE_SERVER, &arg];
    let mut init = vec!["init", "--lock", &lock_arg, "--name", "h", "--"];
    init.extend(server);
    cp(&init).run().code(0);
    let expect_escapes = |what: &str, text: &str| {
        for needle in [
            "\\u{1b}[31mred",
            "bell\\u{7}",
            "\\u{202e}fdp.exe",
            "tag\\u{e0041}",
        ] {
            assert!(text.contains(needle), "{what}: no {needle:?} in:\n{text}");
        }
    };
    for evil in ["rpc", "crash"] {
        // The text report, with and without annotations.
        for gha in ["false", "true"] {
            // --inherit-env: the server reads CP_EVIL from our environment.
            let o = cp(&["verify", "--lock", &lock_arg, "--inherit-env"])
                .env("CP_EVIL", evil)
                .env("GITHUB_ACTIONS", gha)
                .run();
            o.code(1);
            let what = format!("verify {evil} GITHUB_ACTIONS={gha}");
            assert_no_hidden(&what, &o.out());
            assert_no_hidden(&what, &o.err());
            expect_escapes(&what, &o.out());
            let forged = o.out().lines().filter(|l| l.starts_with("::")).count();
            assert_eq!(forged, usize::from(gha == "true"), "{what}:\n{}", o.out());
        }
        // JSON: valid, and the error is the same escaped text.
        let o = cp(&[
            "verify",
            "--lock",
            &lock_arg,
            "--format",
            "json",
            "--inherit-env",
        ])
        .env("CP_EVIL", evil)
        .run();
        o.code(1);
        py_check_json(
            &o.out(),
            "e = d['servers'][0]['error']\n\
             assert '\\\\u{1b}[31mred' in e and '\\x1b' not in e, e",
        );
        // init prints the failure on stderr.
        let mut again = vec![
            "init",
            "--lock",
            &lock_arg,
            "--name",
            "h",
            "--force",
            "--inherit-env",
            "--",
        ];
        again.extend(server);
        let o = cp(&again).env("CP_EVIL", evil).run();
        o.code(1);
        assert_no_hidden(&format!("init {evil}"), &o.err());
        expect_escapes(&format!("init {evil}"), &o.err());
    }
}
