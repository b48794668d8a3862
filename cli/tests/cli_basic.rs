//! CLI: --help/--version, argument errors, `canon` and `digest`.

mod cli_support;
use cli_support::*;

#[test]
fn version_and_help_exit_0() {
    let o = cp(&["--version"]).run();
    o.code(0);
    assert_eq!(
        o.out(),
        format!("contractpin {}\n", env!("CARGO_PKG_VERSION"))
    );
    let o = cp(&["--help"]).run();
    o.code(0);
    for c in ["init", "verify", "digest", "canon", "Exit codes"] {
        assert!(o.out().contains(c), "{c} missing from --help:\n{}", o.out());
    }
    for (cmd, must) in [
        (
            "init",
            vec![
                "--lock",
                "--name",
                "--force",
                "--http",
                "--file",
                "--from",
                "--header",
                "--env",
                "--cwd",
                "--timeout",
                "--total-timeout",
                "--max-pages",
                "--max-line-bytes",
                "--max-response-bytes",
                "--max-input-bytes",
                "--max-depth",
                "--max-tools",
            ],
        ),
        (
            "verify",
            vec![
                "--lock",
                "--server",
                "--allow-new",
                "--format",
                "--header",
                "--timeout",
                "--total-timeout",
                "--max-pages",
                "--max-tools",
            ],
        ),
        (
            "digest",
            vec![
                "--json",
                "--max-tools",
                "--max-depth",
                "--max-input-bytes",
                "FILE|-",
            ],
        ),
        (
            "canon",
            vec!["--max-depth", "--max-input-bytes", "no trailing newline"],
        ),
    ] {
        let o = cp(&[cmd, "--help"]).run();
        o.code(0);
        for m in must {
            assert!(
                o.out().contains(m),
                "`{cmd} --help` lacks {m}:\n{}",
                o.out()
            );
        }
        assert!(o.err().is_empty());
        // -h is the short form.
        cp(&[cmd, "-h"]).run().code(0);
    }
    // Subcommands report the version too.
    cp(&["verify", "--version"]).run().code(0);
}

#[test]
fn argument_errors_exit_2_with_a_usage_hint() {
    for args in [
        vec!["--bogus"],
        vec![],
        vec!["frobnicate"],
        vec!["canon", "--bogus"],
        vec!["digest", "--jsn"],
        vec!["verify", "--format", "yaml"],
        vec!["verify", "--timeout", "abc"],
        vec!["init", "--max-pages", "-3"],
        vec!["canon", "a", "b"],
    ] {
        let o = cp(&args).run();
        o.code(2);
        assert!(o.stdout.is_empty(), "{args:?} wrote to stdout");
        let err = o.err();
        assert!(
            err.contains("Usage:") || err.contains("--help"),
            "{args:?}: no usage hint in {err}"
        );
    }
    // A misspelt flag gets a suggestion.
    let o = cp(&["digest", "--jsn"]).run();
    assert!(o.err().contains("--json"), "{}", o.err());
}

#[test]
fn canon_writes_canonical_bytes_without_trailing_newline() {
    let doc = br#" { "b" : [1.0, 2e21, -0, 1E-7, "\u00e9\/"], "a": {"\ufb01": 1, "\ud83d\ude00": 2, "z": 3}, "": null } "#;
    // UTF-16 order: U+1F600 (D83D DE00) sorts before U+FB01, unlike code point order.
    let expected = "{\"\":null,\"a\":{\"z\":3,\"\u{1F600}\":2,\"\u{FB01}\":1},\"b\":[1,2e+21,0,1e-7,\"\u{e9}/\"]}";
    let dir = TempDir::new("canon");
    let f = dir.write("doc.json", doc);
    for args in [
        vec!["canon".to_string(), s(&f)],
        vec!["canon".into()],
        vec!["canon".into(), "-".into()],
    ] {
        let o = cp(&args).stdin(doc).run();
        o.code(0);
        assert_eq!(o.out(), expected, "{args:?}");
        assert!(o.stderr.is_empty());
    }
    // Already canonical input is a fixed point; no newline is added.
    let o = cp(&["canon"]).stdin(b"[]").run();
    assert_eq!(o.stdout, b"[]");
    let o = cp(&["canon"]).stdin(b"\"x\"\n").run();
    assert_eq!(o.stdout, b"\"x\"");
}

#[test]
fn canon_rejections_exit_2_with_kind_and_offset() {
    let cases: &[(&[u8], &str)] = &[
        (b"", "error: unexpected-end at byte 0: "),
        (b"{\"a\":1,\"a\":2}", "error: duplicate-key at byte 7: "),
        (b"[1,]", "error: unexpected-byte at byte 3: "),
        (b"[01]", "error: invalid-number at byte 1: "),
        (b"1e400", "error: number-out-of-range at byte 0: "),
        (b"\xEF\xBB\xBF{}", "error: byte-order-mark at byte 0: "),
        (b"[\"\\ud800\"]", "error: lone-surrogate at byte "),
        (b"\"\xC0\xAF\"", "error: invalid-utf8 at byte "),
        (b"{} x", "error: trailing-data at byte 3: "),
        (b"[\"a\x01\"]", "error: control-character at byte "),
        (b"\"\\x\"", "error: invalid-escape at byte "),
        (b"NaN", "error: unexpected-byte at byte 0: "),
    ];
    for (input, prefix) in cases {
        let o = cp(&["canon"]).stdin(input).run();
        o.code(2);
        assert!(o.stdout.is_empty(), "{prefix}: stdout must stay empty");
        let err = o.err();
        assert!(err.starts_with(prefix), "{input:?}: {err:?}");
        assert!(err.ends_with('\n') && err.lines().count() == 1, "{err:?}");
    }
}

#[test]
fn canon_limits() {
    let deep = format!("{}{}", "[".repeat(10), "]".repeat(10));
    cp(&["canon", "--max-depth", "10"])
        .stdin(deep.as_bytes())
        .run()
        .code(0);
    let o = cp(&["canon", "--max-depth", "9"])
        .stdin(deep.as_bytes())
        .run();
    o.code(2);
    assert!(
        o.err().starts_with("error: depth-limit at byte 9: "),
        "{}",
        o.err()
    );
    // Default depth limit 256: 256 is fine, 257 is not (and never a crash).
    let ok = format!("{}{}", "[".repeat(256), "]".repeat(256));
    cp(&["canon"]).stdin(ok.as_bytes()).run().code(0);
    let bad = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let o = cp(&["canon"]).stdin(bad.as_bytes()).run();
    o.code(2);
    assert!(
        o.err().starts_with("error: depth-limit at byte 256: "),
        "{}",
        o.err()
    );

    let doc = b"[1,2,3]"; // 7 bytes
    cp(&["canon", "--max-input-bytes", "7"])
        .stdin(doc)
        .run()
        .code(0);
    let o = cp(&["canon", "--max-input-bytes", "6"]).stdin(doc).run();
    o.code(2);
    assert!(
        o.err().starts_with("error: size-limit at byte "),
        "{}",
        o.err()
    );
}

#[test]
fn canon_output_larger_than_input() {
    // 1e20 (4 bytes) becomes 21 digits: the ABI's "buffer too small" retry path.
    let doc = format!("[{}1]", "1e20,".repeat(2000));
    let o = cp(&["canon"]).stdin(doc.as_bytes()).run();
    o.code(0);
    let expected = format!("[{}1]", "100000000000000000000,".repeat(2000));
    assert_eq!(o.out(), expected);
}

#[test]
fn canon_missing_file_exits_2() {
    let o = cp(&["canon", "/nonexistent/contractpin/x.json"]).run();
    o.code(2);
    assert!(
        o.err()
            .starts_with("error: cannot read /nonexistent/contractpin/x.json"),
        "{}",
        o.err()
    );
}

#[test]
fn digest_text_matches_the_reference() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let file = root().join("examples/tools-list.json");
    let (server, tools) = reference(&[&s(&file)]);
    let o = cp(&["digest", &s(&file)]).run();
    o.code(0);
    let mut expected = format!("{server}  ({} tools)\n", tools.len());
    for (d, n) in &tools {
        expected.push_str(&format!("{d}  {n}\n"));
    }
    assert_eq!(o.out(), expected);
    // stdin and '-' give the same.
    let bytes = std::fs::read(&file).unwrap();
    assert_eq!(cp(&["digest"]).stdin(&bytes).run().out(), expected);
    assert_eq!(cp(&["digest", "-"]).stdin(&bytes).run().out(), expected);
}

#[test]
fn digest_accepts_every_tools_list_shape() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let tool_a = r#"{"name":"a","description":"A","inputSchema":{"type":"object"}}"#;
    let tool_b = r#"{"name":"b","title":"ignored"}"#;
    let dir = TempDir::new("shapes");
    let bare = dir.write("bare.json", format!("[{tool_a},{tool_b}]"));
    let (server, _) = reference(&[&s(&bare)]);
    let shapes = [
        format!("{{\"tools\":[{tool_a},{tool_b}]}}"),
        format!("{{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{{\"tools\":[{tool_b},{tool_a}],\"nextCursor\":null}}}}"),
        format!("[{tool_b},{tool_a}]"),
        format!("[{{\"tools\":[{tool_a}],\"nextCursor\":\"x\"}},{{\"tools\":[{tool_b}]}}]"),
    ];
    for shape in &shapes {
        let o = cp(&["digest"]).stdin(shape.as_bytes()).run();
        o.code(0);
        assert!(
            o.out().starts_with(&format!("{server}  (2 tools)\n")),
            "{shape}: {}",
            o.out()
        );
    }
    let (empty, _) = reference(&[&s(&dir.write("empty.json", "[]"))]);
    let o = cp(&["digest"]).stdin(b"{\"tools\":[]}").run();
    o.code(0);
    assert_eq!(o.out(), format!("{empty}  (0 tools)\n"));
    let o = cp(&["digest"])
        .stdin(format!("[{tool_a}]").as_bytes())
        .run();
    assert!(o.out().contains("(1 tool)\n"), "{}", o.out());
}

#[test]
fn digest_json_is_the_lock_server_entry() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let file = root().join("examples/tools-list.json");
    let o = cp(&["digest", "--json", &s(&file)]).run();
    o.code(0);
    let text = o.out();
    let reference_entry = reference_raw(&["--json", &s(&file)]);
    assert!(
        json_equal(&text, &reference_entry),
        "{text}\nvs\n{reference_entry}"
    );
    // Pretty like the lock: 2-space indent, LF, trailing newline, keys sorted.
    assert!(text.starts_with("{\n  \"digest\": \"sha256:"));
    assert!(text.ends_with("}\n") && !text.contains('\r'));
    let d = text.find("\"digest\"").unwrap();
    let c = text.find("\"tool_count\"").unwrap();
    let t = text.find("\"tools\"").unwrap();
    assert!(d < c && c < t);
    // The entry is byte-identical to the one `init --no-snapshot` writes
    // into a lock (the shipped example also holds contract snapshots).
    let dir = TempDir::new("digest-entry");
    dir.write(
        "tools-list.json",
        std::fs::read(root().join("examples/tools-list.json")).unwrap(),
    );
    cp(&[
        "init",
        "--no-snapshot",
        "--name",
        "example",
        "--file",
        "tools-list.json",
    ])
    .cwd(&dir.0)
    .run()
    .code(0);
    let lock = read(&dir.path("contractpin.lock"));
    let inner: Vec<String> = text
        .lines()
        .skip(1)
        .filter(|l| *l != "}")
        .map(|l| format!("    {l}\n"))
        .collect();
    // The lock adds `path` between `digest` and `tool_count`, and `transport`
    // after `tools` (so the closing brace of `tools` gets a comma).
    assert!(lock.contains(&inner[0]), "digest line differs");
    let rest: String = inner[1..inner.len() - 1].concat();
    assert!(
        lock.contains(&rest),
        "lock entry differs from digest --json"
    );
}

#[test]
fn digest_rejections_exit_2() {
    for (doc, prefix) in [
        (&b"{\"result\":{}}"[..], "error: not-tools-list at byte "),
        (b"{\"tools\":[1]}", "error: tool-not-object at byte "),
        (b"[{\"name\":1}]", "error: name-not-string at byte "),
        (
            b"[{\"name\":\"x\"},{\"name\":\"x\"}]",
            "error: duplicate-tool-name at byte ",
        ),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-1,\"message\":\"m\"}}",
            "error: json-rpc-error at byte ",
        ),
        (b"{\"tools\":[", "error: unexpected-end at byte 10: "),
    ] {
        let o = cp(&["digest"]).stdin(doc).run();
        o.code(2);
        assert!(o.err().starts_with(prefix), "{}", o.err());
        assert!(o.stdout.is_empty());
    }
    let three = b"[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"}]";
    cp(&["digest", "--max-tools", "3"])
        .stdin(three)
        .run()
        .code(0);
    let o = cp(&["digest", "--max-tools", "2"]).stdin(three).run();
    o.code(2);
    assert!(
        o.err().starts_with("error: tool-limit at byte "),
        "{}",
        o.err()
    );
}

#[test]
fn hostile_tool_names_cannot_forge_output_lines() {
    let doc = br#"[{"name":"evil\nsha256:0000  forged\u001b[31m"}]"#;
    let o = cp(&["digest"]).stdin(doc).run();
    o.code(0);
    assert_eq!(o.out().lines().count(), 2, "{}", o.out());
    assert!(!o.out().contains('\u{1b}'));
}

#[test]
fn reference_fixtures_are_consistent() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    // The shipped lock pins exactly what the independent reference computes.
    let (server, _) = reference(&[&s(&root().join("examples/tools-list.json"))]);
    assert!(read(&root().join("examples/contractpin.lock")).contains(&server));
    let (drifted, _) = reference(&[&s(&root().join("examples/drifted-tools-list.json"))]);
    assert_ne!(server, drifted);
}
