//! CLI against the misbehaving fake MCP server (tests/mcp/fake_server.py)
//! over stdio, Streamable HTTP and legacy SSE: every scenario with its
//! asserted exit code and key output. Loopback only.

mod cli_support;
use cli_support::*;

use std::path::{Path, PathBuf};
use std::time::Duration;

/// A lock pinning the fake server's baseline (`ok`) over stdio as `fake`.
fn pin_stdio(dir: &TempDir) -> PathBuf {
    let lock = dir.path("contractpin.lock");
    let mut args = vec![
        "init".to_string(),
        "--lock".into(),
        s(&lock),
        "--name".into(),
        "fake".into(),
        "--".into(),
    ];
    args.extend(fake_cmd("ok", &[]));
    let o = cp(&args).run();
    o.code(0);
    let (server, _) = reference(&["--fake", "ok"]);
    assert!(
        o.out()
            .contains(&format!("pinned fake (stdio): {server}  (3 tools)")),
        "{}",
        o.out()
    );
    lock
}

/// A lock pinning the baseline over HTTP (`transport` = http or sse) as `fake`.
fn pin_http(dir: &TempDir, transport: &str) -> PathBuf {
    let lock = dir.path("contractpin.lock");
    let srv = FakeHttp::start(transport, "ok", &[]);
    let o = cp(&[
        "init",
        "--lock",
        &s(&lock),
        "--name",
        "fake",
        "--http",
        &srv.url,
    ])
    .run();
    o.code(0);
    let (server, _) = reference(&["--fake", "ok"]);
    assert!(
        o.out()
            .contains(&format!("pinned fake (http): {server}  (3 tools)")),
        "{}",
        o.out()
    );
    lock
}

fn verify(lock: &Path, extra: &[&str]) -> Out {
    let mut args = vec!["verify".to_string(), "--lock".into(), s(lock)];
    args.extend(extra.iter().map(|x| x.to_string()));
    cp(&args).timeout(60).run()
}

/// Points the stdio entry at `scenario` and verifies.
fn verify_stdio(lock: &Path, scenario: &str, server_extra: &[&str], cli: &[&str]) -> Out {
    set_command(lock, "fake", &fake_cmd(scenario, server_extra));
    verify(lock, cli)
}

/// Starts a server for `scenario`, points the http entry at it, verifies.
fn verify_http(
    lock: &Path,
    transport: &str,
    scenario: &str,
    server_extra: &[&str],
    cli: &[&str],
) -> Out {
    let srv = FakeHttp::start(transport, scenario, server_extra);
    set_string(lock, "fake", "url", &srv.url);
    verify(lock, cli)
}

/// What a scenario must produce.
struct Expect {
    code: i32,
    stdout: &'static [&'static str],
    stderr: &'static [&'static str],
}

const fn ex(code: i32, stdout: &'static [&'static str], stderr: &'static [&'static str]) -> Expect {
    Expect {
        code,
        stdout,
        stderr,
    }
}

fn check(what: &str, o: &Out, e: &Expect) {
    assert_eq!(
        o.code,
        e.code,
        "{what}: exit code\n--- stdout:\n{}\n--- stderr:\n{}",
        o.out(),
        o.err()
    );
    for needle in e.stdout {
        assert!(
            o.out().contains(needle),
            "{what}: stdout lacks {needle:?}:\n{}",
            o.out()
        );
    }
    for needle in e.stderr {
        assert!(
            o.err().contains(needle),
            "{what}: stderr lacks {needle:?}:\n{}",
            o.err()
        );
    }
}

type Case = (&'static str, Vec<&'static str>, Vec<&'static str>, Expect);

/// Runs the cases four at a time, each on its own copy of the lock, and
/// checks every outcome (and that nothing takes long: timeouts and shutdown
/// are bounded).
fn in_parallel(
    dir: &TempDir,
    lock: &Path,
    cases: Vec<Case>,
    run: fn(&Path, &str, &[&str], &[&str]) -> Out,
) {
    let mut pending: Vec<(usize, Case)> = cases.into_iter().enumerate().collect();
    while !pending.is_empty() {
        let batch: Vec<(usize, Case)> = pending.drain(..pending.len().min(4)).collect();
        let handles: Vec<_> = batch
            .into_iter()
            .map(|(i, case)| {
                let copy = dir.path(&format!("case-{i}.lock"));
                std::fs::copy(lock, &copy).unwrap();
                std::thread::spawn(move || {
                    let (scenario, server_extra, cli, _) = &case;
                    let o = run(&copy, scenario, server_extra, cli);
                    (case, o)
                })
            })
            .collect();
        for h in handles {
            let ((scenario, server_extra, cli, expect), o) = h.join().expect("case thread");
            check(&format!("{scenario} {server_extra:?} {cli:?}"), &o, &expect);
            assert!(
                o.elapsed < Duration::from_secs(20),
                "{scenario}: took {:?}",
                o.elapsed
            );
        }
    }
}

/// Scenarios shared by every transport: (scenario, server args, CLI args, expectation).
fn common() -> Vec<Case> {
    vec![
        (
            "ok",
            vec![],
            vec![],
            ex(0, &["OK fake: 3 tools unchanged"], &[]),
        ),
        (
            "ok",
            vec!["--discover"],
            vec![],
            ex(0, &["OK fake: 3 tools unchanged"], &[]),
        ),
        (
            "drift-description",
            vec![],
            vec![],
            ex(
                1,
                &[
                    "DRIFT fake: 1 drifted, 2 unchanged",
                    "send_email",
                    "changed: description",
                ],
                &[],
            ),
        ),
        (
            "added-tool",
            vec![],
            vec![],
            ex(
                1,
                &["DRIFT fake: 1 added, 3 unchanged", "export_contacts"],
                &[],
            ),
        ),
        (
            "added-tool",
            vec![],
            vec!["--allow-new"],
            ex(
                0,
                &["OK fake: 3 tools unchanged, 1 added (allowed by --allow-new)"],
                &[],
            ),
        ),
        (
            "removed-tool",
            vec![],
            vec![],
            ex(
                1,
                &["DRIFT fake: 1 removed, 2 unchanged", "search_docs"],
                &[],
            ),
        ),
        (
            "removed-tool",
            vec![],
            vec!["--allow-new"],
            ex(1, &["removed"], &[]),
        ),
        (
            "one-per-page",
            vec![],
            vec![],
            ex(0, &["OK fake: 3 tools unchanged"], &[]),
        ),
        (
            "ok",
            vec!["--page-size", "2"],
            vec![],
            ex(0, &["OK fake"], &[]),
        ),
        (
            "stuck-cursor",
            vec![],
            vec![],
            ex(1, &["UNREACHABLE fake", "stuck"], &[]),
        ),
        (
            "empty-cursor-continuation",
            vec![],
            vec![],
            ex(0, &["OK fake: 3 tools unchanged"], &[]),
        ),
        (
            "empty-cursor-continuation",
            vec!["--discover"],
            vec![],
            ex(0, &["OK fake: 3 tools unchanged"], &[]),
        ),
        (
            "empty-cursor-legacy-end",
            vec![],
            vec![],
            ex(
                0,
                &["OK fake: 3 tools unchanged"],
                &["warning: ", "empty nextCursor"],
            ),
        ),
        (
            "empty-cursor-legacy-end-repeat",
            vec![],
            vec![],
            ex(
                0,
                &["OK fake: 3 tools unchanged"],
                &["warning: ", "empty nextCursor"],
            ),
        ),
        (
            "duplicate-across-pages",
            vec![],
            vec![],
            ex(1, &["UNREACHABLE fake", "search_docs"], &[]),
        ),
        (
            "jsonrpc-error",
            vec![],
            vec![],
            ex(1, &["UNREACHABLE fake", "-32603"], &[]),
        ),
        (
            "never-answers-tools-list",
            vec![],
            vec!["--timeout", "1"],
            ex(1, &["UNREACHABLE fake", "tools/list"], &[]),
        ),
        (
            "never-answers-tools-list",
            vec![],
            vec!["--timeout", "30", "--total-timeout", "1.5"],
            ex(1, &["UNREACHABLE fake"], &[]),
        ),
        (
            "slow",
            vec!["--delay", "3"],
            vec!["--timeout", "1"],
            ex(1, &["UNREACHABLE fake"], &[]),
        ),
        (
            "slow",
            vec!["--delay", "0.3"],
            vec!["--timeout", "10"],
            ex(0, &["OK fake"], &[]),
        ),
        (
            "many-pages",
            vec![],
            vec!["--max-pages", "5"],
            ex(1, &["UNREACHABLE fake"], &[]),
        ),
        (
            "sse-unrelated-events",
            vec![],
            vec![],
            ex(0, &["OK fake: 3 tools unchanged"], &[]),
        ),
    ]
}

#[test]
fn stdio_scenarios() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("stdio");
    let lock = pin_stdio(&dir);
    let mut cases = common();
    cases.extend([
        (
            "junk-stdout",
            vec![],
            vec![],
            ex(
                0,
                &["OK fake: 3 tools unchanged"],
                &["warning: ", "non-JSON line"],
            ),
        ),
        (
            "stderr-flood",
            vec!["--flood-bytes", "2000000"],
            vec![],
            ex(0, &["OK fake: 3 tools unchanged"], &[]),
        ),
        (
            "ignores-sigterm",
            vec![],
            vec![],
            ex(0, &["OK fake: 3 tools unchanged"], &[]),
        ),
        (
            "exits-after-initialize",
            vec![],
            vec![],
            ex(
                1,
                &[
                    "UNREACHABLE fake",
                    "exited",
                    "server stderr",
                    "exiting with status 3",
                ],
                &[],
            ),
        ),
    ]);
    in_parallel(&dir, &lock, cases, |lock, scenario, server_extra, cli| {
        verify_stdio(lock, scenario, server_extra, cli)
    });
}

#[test]
fn stdio_timeouts_are_prompt() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("prompt");
    let lock = pin_stdio(&dir);
    let o = verify_stdio(&lock, "never-answers-tools-list", &[], &["--timeout", "1"]);
    o.code(1);
    assert!(o.elapsed < Duration::from_secs(8), "{:?}", o.elapsed);
    let o = verify_stdio(
        &lock,
        "never-answers-tools-list",
        &[],
        &["--total-timeout", "1"],
    );
    o.code(1);
    assert!(o.elapsed < Duration::from_secs(8), "{:?}", o.elapsed);
    // A server that ignores SIGTERM is killed; the run still ends quickly.
    let pid_file = dir.path("server.pid");
    let o = verify_stdio(
        &lock,
        "ignores-sigterm",
        &["--pid-file", &s(&pid_file)],
        &[],
    );
    o.code(0);
    assert!(o.elapsed < Duration::from_secs(10), "{:?}", o.elapsed);
    // ... and it is really gone (SIGKILL after the grace periods).
    let pid = read(&pid_file).trim().to_string();
    let gone = (0..100).any(|_| {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let dead = status.is_empty() || status.contains("State:\tZ");
        if !dead {
            std::thread::sleep(Duration::from_millis(20));
        }
        dead
    });
    assert!(gone, "the fake server {pid} survived verify");
}

#[test]
fn http_scenarios() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("http");
    let lock = pin_http(&dir, "http");
    let mut cases = common();
    cases.extend([
        (
            "ok",
            vec!["--http-answer", "sse"],
            vec![],
            ex(0, &["OK fake: 3 tools unchanged"], &[]),
        ),
        (
            "sse-unrelated-events",
            vec!["--http-answer", "sse"],
            vec![],
            ex(0, &["OK fake: 3 tools unchanged"], &[]),
        ),
        (
            "sse-framing",
            vec![],
            vec![],
            ex(0, &["OK fake: 3 tools unchanged"], &[]),
        ),
        (
            "missing-session",
            vec![],
            vec![],
            ex(0, &["OK fake: 3 tools unchanged"], &[]),
        ),
        (
            "ok",
            vec!["--no-session"],
            vec![],
            ex(0, &["OK fake: 3 tools unchanged"], &[]),
        ),
        (
            "expired-session",
            vec![],
            vec![],
            ex(1, &["UNREACHABLE fake", "404"], &[]),
        ),
        (
            "many-tools",
            vec!["--count", "20"],
            vec!["--max-tools", "19"],
            ex(1, &["UNREACHABLE fake"], &[]),
        ),
        // The HTTP fake exits 50 ms after answering initialize, while it goes
        // on serving other threads; holding tools/list back for 0.5 s makes
        // the exit land before the answer.
        (
            "exits-after-initialize",
            vec!["--delay", "0.5", "--delay-methods", "tools/list"],
            vec!["--timeout", "10"],
            ex(1, &["UNREACHABLE fake"], &[]),
        ),
    ]);
    in_parallel(&dir, &lock, cases, |lock, scenario, server_extra, cli| {
        verify_http(lock, "http", scenario, server_extra, cli)
    });
}

#[test]
fn legacy_sse_scenarios() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("sse");
    let lock = pin_http(&dir, "sse");
    let cases = vec![
        (
            "ok",
            vec![],
            vec![],
            ex(0, &["OK fake: 3 tools unchanged"], &[]),
        ),
        (
            "drift-description",
            vec![],
            vec![],
            ex(1, &["send_email", "changed: description"], &[]),
        ),
        (
            "added-tool",
            vec![],
            vec![],
            ex(1, &["export_contacts"], &[]),
        ),
        ("removed-tool", vec![], vec![], ex(1, &["search_docs"], &[])),
        ("one-per-page", vec![], vec![], ex(0, &["OK fake"], &[])),
        (
            "sse-unrelated-events",
            vec![],
            vec![],
            ex(0, &["OK fake"], &[]),
        ),
        (
            "stuck-cursor",
            vec![],
            vec![],
            ex(1, &["UNREACHABLE fake"], &[]),
        ),
        (
            "duplicate-across-pages",
            vec![],
            vec![],
            ex(1, &["UNREACHABLE fake"], &[]),
        ),
        (
            "jsonrpc-error",
            vec![],
            vec![],
            ex(1, &["UNREACHABLE fake", "-32603"], &[]),
        ),
        (
            "never-answers-tools-list",
            vec![],
            vec!["--timeout", "1"],
            ex(1, &["UNREACHABLE fake"], &[]),
        ),
    ];
    in_parallel(&dir, &lock, cases, |lock, scenario, server_extra, cli| {
        verify_http(lock, "sse", scenario, server_extra, cli)
    });
}

#[test]
fn unreachable_http_server_exits_1() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("down");
    let lock = pin_http(&dir, "http");
    // Nothing listens on port 9 of the loopback (discard service is not run).
    set_string(&lock, "fake", "url", "http://127.0.0.1:9/mcp");
    let o = verify(&lock, &["--timeout", "3"]);
    o.code(1);
    assert!(o.out().contains("UNREACHABLE fake"), "{}", o.out());
    let o = cp(&[
        "init",
        "--lock",
        &s(&dir.path("new.lock")),
        "--name",
        "x",
        "--http",
        "http://127.0.0.1:9/mcp",
        "--timeout",
        "3",
    ])
    .run();
    o.code(1);
    assert!(!dir.path("new.lock").exists());
}

#[test]
fn init_fails_with_exit_1_for_every_invalid_listing() {
    let dir = TempDir::new("initfail");
    let lock = dir.path("l.lock");
    for (scenario, extra, cli) in [
        ("stuck-cursor", vec![], vec![]),
        ("duplicate-across-pages", vec![], vec![]),
        ("jsonrpc-error", vec![], vec![]),
        ("exits-after-initialize", vec![], vec![]),
        ("never-answers-tools-list", vec![], vec!["--timeout", "1"]),
        ("many-pages", vec![], vec!["--max-pages", "4"]),
        (
            "huge-line",
            vec!["--huge-bytes", "100000"],
            vec!["--max-line-bytes", "99999"],
        ),
        (
            "many-tools",
            vec!["--count", "30"],
            vec!["--max-tools", "29"],
        ),
    ] {
        let mut args = vec![
            "init".to_string(),
            "--lock".into(),
            s(&lock),
            "--name".into(),
            "x".into(),
        ];
        args.extend(cli.iter().map(|x| x.to_string()));
        args.push("--".into());
        args.extend(fake_cmd(scenario, &extra));
        let o = cp(&args).run();
        o.code(1);
        assert!(
            o.err().contains("cannot fetch the tools list")
                || o.err().contains("invalid tools list"),
            "{scenario}: {}",
            o.err()
        );
        assert!(
            o.err().contains("was not changed"),
            "{scenario}: {}",
            o.err()
        );
        assert!(!lock.exists(), "{scenario} wrote a lock");
    }
}

#[test]
fn limits_at_and_just_over() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("limits");
    let lock = dir.path("l.lock");
    let run = |scenario: &str, extra: &[&str], cli: &[&str]| {
        let _ = std::fs::remove_file(&lock);
        let mut args = vec![
            "init".to_string(),
            "--lock".into(),
            s(&lock),
            "--name".into(),
            "x".into(),
        ];
        args.extend(cli.iter().map(|x| x.to_string()));
        args.push("--".into());
        args.extend(fake_cmd(scenario, extra));
        cp(&args).run()
    };
    // Pages: exactly 5 pages pass with --max-pages 5, 6 do not.
    run("many-pages", &["--pages", "5"], &["--max-pages", "5"]).code(0);
    run("many-pages", &["--pages", "6"], &["--max-pages", "5"]).code(1);
    // Tools.
    run("many-tools", &["--count", "30"], &["--max-tools", "30"]).code(0);
    run("many-tools", &["--count", "31"], &["--max-tools", "30"]).code(1);
    // stdout line length: the answer line is exactly 100000 bytes.
    run(
        "huge-line",
        &["--huge-bytes", "100000"],
        &["--max-line-bytes", "100000"],
    )
    .code(0);
    run(
        "huge-line",
        &["--huge-bytes", "100001"],
        &["--max-line-bytes", "100000"],
    )
    .code(1);
    // HTTP response size.
    let srv = FakeHttp::start("http", "ok", &[]);
    let o = cp(&[
        "init",
        "--lock",
        &s(&lock),
        "--name",
        "h",
        "--http",
        &srv.url,
        "--max-response-bytes",
        "50",
        "--force",
    ])
    .run();
    o.code(1);
    cp(&[
        "init",
        "--lock",
        &s(&lock),
        "--name",
        "h",
        "--http",
        &srv.url,
        "--max-response-bytes",
        "100000",
        "--force",
    ])
    .run()
    .code(0);
}

#[test]
fn same_digests_over_every_transport() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    // The shipped example served over stdio, Streamable HTTP (JSON and SSE
    // answers), legacy SSE and paged, against the file transport and the
    // independent reference.
    let (expected, _) = reference(&[&s(&root().join("examples/tools-list.json"))]);
    let dir = TempDir::new("xport");
    let lock = dir.path("l.lock");
    // Compact copy: the fake server splices tool bytes as they are, and a
    // newline inside a tool would break newline-delimited stdio framing.
    let compact = dir.path("compact.json");
    py_edit_tools(&root().join("examples/tools-list.json"), &compact, "pass");
    let example = s(&compact);
    let mut outputs = Vec::new();
    let mut args = vec![
        "init".to_string(),
        "--lock".into(),
        s(&lock),
        "--name".into(),
        "stdio".into(),
        "--".into(),
    ];
    args.extend(fake_cmd("ok", &["--tools", &example]));
    outputs.push(cp(&args).run());
    let mut args = vec![
        "init".to_string(),
        "--lock".into(),
        s(&lock),
        "--name".into(),
        "stdio-paged-modern".into(),
        "--".into(),
    ];
    args.extend(fake_cmd(
        "ok",
        &["--tools", &example, "--page-size", "1", "--discover"],
    ));
    outputs.push(cp(&args).run());
    let servers = [
        (
            "http",
            FakeHttp::start("http", "ok", &["--tools", &example]),
        ),
        (
            "http-sse-paged",
            FakeHttp::start(
                "http",
                "ok",
                &[
                    "--tools",
                    &example,
                    "--http-answer",
                    "sse",
                    "--page-size",
                    "3",
                ],
            ),
        ),
        (
            "http-modern",
            FakeHttp::start("http", "ok", &["--tools", &example, "--discover"]),
        ),
        (
            "legacy-sse",
            FakeHttp::start("sse", "ok", &["--tools", &example]),
        ),
    ];
    for (name, srv) in &servers {
        outputs.push(
            cp(&[
                "init",
                "--lock",
                &s(&lock),
                "--name",
                name,
                "--http",
                &srv.url,
            ])
            .run(),
        );
    }
    outputs.push(
        cp(&[
            "init",
            "--lock",
            &s(&lock),
            "--name",
            "file",
            "--file",
            &example,
        ])
        .run(),
    );
    for o in &outputs {
        o.code(0);
        assert!(
            o.out().contains(&format!(": {expected}  (4 tools)")),
            "{}",
            o.out()
        );
    }
    py_check_json(
        &read(&lock),
        &format!("assert len(d['servers'])==7\nfor k,v in d['servers'].items():\n  assert v['digest']=={expected:?},k"),
    );
    // And the whole lock verifies (exit 0) with every server reachable.
    let o = verify(&lock, &[]);
    o.code(0);
    assert!(o.out().contains("7 servers match"), "{}", o.out());
}

#[test]
fn stdio_env_and_cwd_reach_the_server() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    // The server's argv is relative to its cwd; env values are passed.
    let dir = TempDir::new("envcwd");
    let lock = dir.path("l.lock");
    let mcp_dir = root().join("tests/mcp");
    let o = cp(&[
        "init",
        "--lock",
        &s(&lock),
        "--name",
        "x",
        "--allow-outside-paths",
        "--cwd",
        &s(&mcp_dir),
        "--env",
        "FAKE_UNUSED=1",
        "--",
        "python3",
        "fake_server.py",
        "--scenario",
        "ok",
    ])
    .run();
    o.code(0);
    py_check_json(
        &read(&lock),
        &format!("e=d['servers']['x']\nassert e['cwd']=={:?}\nassert e['env']=={{'FAKE_UNUSED':'${{FAKE_UNUSED}}'}}", s(&mcp_dir)),
    );
    // verify needs FAKE_UNUSED in its environment (the lock stores a reference).
    let o = cp(&["verify", "--lock", &s(&lock), "--allow-outside-paths"])
        .env_remove("FAKE_UNUSED")
        .run();
    o.code(2);
    assert!(
        o.err().contains("FAKE_UNUSED") && o.err().contains("not set"),
        "{}",
        o.err()
    );
    assert!(
        o.stdout.is_empty(),
        "no half report on a usage error: {}",
        o.out()
    );
    cp(&["verify", "--lock", &s(&lock), "--allow-outside-paths"])
        .env("FAKE_UNUSED", "1")
        .run()
        .code(0);
    // A bad cwd or command cannot be spawned: exit 1, not a crash.
    let o = cp(&[
        "init",
        "--lock",
        &s(&dir.path("m.lock")),
        "--name",
        "y",
        "--",
        "/nonexistent/mcp-server",
    ])
    .run();
    o.code(1);
    assert!(o.err().contains("/nonexistent/mcp-server"), "{}", o.err());
}
