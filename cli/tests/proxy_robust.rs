//! `contractpin proxy` when things go wrong (issue 11 item 4), driven line by
//! line from the test against the fake server: usage errors exit 2 before
//! the server starts; the client ends (EOF, stops reading, SIGTERM); the
//! server dies, writes junk, writes a line over the limit, never answers,
//! ignores SIGTERM, leaves processes behind; a flood of large messages. In
//! every case the proxy ends cleanly with the right exit code and message,
//! the server's process group is gone, stdout holds whole lines only, and
//! memory stays bounded.
#![cfg(target_os = "linux")]

#[path = "../../tests/support/tools.rs"]
mod tools;

mod proxy_support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use proxy_support::*;

const SECS: Duration = Duration::from_secs(30);

fn python_ok() -> bool {
    tools::needs(&["python3"])
}

/// `python3 fake_server.py --scenario S --pid-file DIR/pid ARGS...`.
fn fake_cmd(dir: &Dir, scenario: &str, args: &[&str]) -> Vec<String> {
    let mut v = vec![
        python(),
        fake(),
        "--scenario".into(),
        scenario.into(),
        "--pid-file".into(),
        dir.path("pid"),
        "--record".into(),
        dir.path("record.jsonl"),
    ];
    v.extend(args.iter().map(|s| s.to_string()));
    v
}

/// Pins the `ok` baseline, then points the entry at `command` (same tools).
fn pin_as(dir: &Dir, command: &[String]) {
    let ok = fake_cmd(dir, "ok", &[]);
    let refs: Vec<&str> = ok.iter().map(String::as_str).collect();
    pin(dir, "fake", &refs);
    set_command(dir, command);
    for f in ["pid", "record.jsonl"] {
        let _ = std::fs::remove_file(dir.0.join(f));
    }
}

fn set_command(dir: &Dir, command: &[String]) {
    let lock = dir.lock();
    let mut l = contractpin::lock::Lock::parse(&std::fs::read(&lock).unwrap()).unwrap();
    l.servers.get_mut("fake").unwrap().command = Some(command.to_vec());
    std::fs::write(&lock, l.to_pretty()).unwrap();
}

fn start(dir: &Dir, extra: &[&str]) -> Session {
    Session::start(&proxy_args(dir, "fake", extra))
}

fn proc_state(pid: i32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 1..]
        .split_whitespace()
        .next()?
        .chars()
        .next()
}

fn running(pid: i32) -> bool {
    proc_state(pid).is_some_and(|s| s != 'Z' && s != 'X')
}

fn eventually(d: Duration, mut f: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + d;
    while Instant::now() < until {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    f()
}

fn read_pid(path: &Path) -> i32 {
    let mut pid = None;
    eventually(Duration::from_secs(10), || {
        pid = std::fs::read_to_string(path)
            .ok()
            .and_then(|s| s.trim().parse().ok());
        pid.is_some()
    });
    pid.unwrap_or_else(|| panic!("no pid in {}", path.display()))
}

#[track_caller]
fn assert_gone(pid: i32, what: &str) {
    if !eventually(Duration::from_secs(2), || !running(pid)) {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
        panic!("{what} (pid {pid}) still runs after the proxy exited");
    }
}

/// Every byte the proxy wrote to stdout is whole lines of JSON.
#[track_caller]
fn whole_json_lines(s: &Session) {
    let raw = s.raw_stdout.lock().unwrap().clone();
    assert!(
        raw.is_empty() || raw.ends_with(b"\n"),
        "a half line at the end"
    );
    for line in raw.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        assert!(
            contractpin::canonicalize(line).is_ok(),
            "not a whole JSON line: {}",
            String::from_utf8_lossy(&line[..line.len().min(200)])
        );
    }
}

const LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;

// ------------------------------------------------------------------ usage

#[test]
fn usage_problems_exit_2_before_the_server_starts() {
    if !python_ok() {
        return;
    }
    let dir = Dir::new("usage");
    pin_as(&dir, &fake_cmd(&dir, "ok", &[]));
    let lock = dir.lock();
    let bad_lock = dir.path("bad.lock");
    std::fs::write(&bad_lock, "{\"contractpin\":\"1\"").unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "proxy".into(),
                "--lock".into(),
                dir.path("missing.lock"),
                "--name".into(),
                "fake".into(),
            ],
            "cannot read lock file",
        ),
        (
            vec![
                "proxy".into(),
                "--lock".into(),
                bad_lock.clone(),
                "--name".into(),
                "fake".into(),
            ],
            "bad.lock",
        ),
        (
            vec![
                "proxy".into(),
                "--lock".into(),
                lock.clone(),
                "--name".into(),
                "nope".into(),
            ],
            "\"nope\" is not pinned in",
        ),
        (
            proxy_args(&dir, "fake", &["--mode", "observe", "--on-drift", "block"]),
            "--on-drift block needs --mode enforce",
        ),
        (
            proxy_args(&dir, "fake", &["--log", "/nonexistent-dir/x.log"]),
            "cannot open the log file",
        ),
        (
            proxy_args(&dir, "fake", &["--timeout", "0"]),
            "--timeout must be a positive",
        ),
        (
            proxy_args(&dir, "fake", &["--header", "A: b"]),
            "--header applies only to an http server",
        ),
        (
            vec!["proxy".into(), "--lock".into(), lock.clone()],
            "--name",
        ),
    ];
    for (args, want) in cases {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = cp(&refs, b"", 30);
        assert_eq!(run.code, 2, "{args:?}: {run:#?}");
        assert!(
            run.stderr.contains(want),
            "{args:?}: want {want:?} in {}",
            run.stderr
        );
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
    }
    assert!(
        !dir.0.join("record.jsonl").exists(),
        "no server was started"
    );

    // Entries that cannot be proxied, and an unset ${VAR}.
    let mut l = contractpin::lock::Lock::parse(&std::fs::read(&lock).unwrap()).unwrap();
    let base = l.servers["fake"].clone();
    let mut env = base.clone();
    env.env = Some(
        [(
            "TOKEN".to_string(),
            "${CONTRACTPIN_PROXY_TEST_UNSET}".to_string(),
        )]
        .into(),
    );
    l.servers.insert("env".into(), env);
    let mut outside = base.clone();
    outside.cwd = Some("../..".into());
    l.servers.insert("outside".into(), outside);
    let mut http = base.clone();
    http.transport = contractpin::lock::Transport::Http;
    http.command = None;
    http.url = Some("http://127.0.0.1:9/mcp".into());
    http.headers = Some(
        [(
            "Authorization".to_string(),
            "Bearer ${CONTRACTPIN_PROXY_TEST_UNSET}".to_string(),
        )]
        .into(),
    );
    l.servers.insert("http".into(), http);
    let mut file = base;
    file.transport = contractpin::lock::Transport::File;
    file.command = None;
    // A dump has no handshake: no server facts (the reader refuses them).
    file.server_info = None;
    file.protocol_version = None;
    file.instructions_digest = None;
    file.path = Some("dump.json".into());
    l.servers.insert("file".into(), file);
    std::fs::write(&lock, l.to_pretty()).unwrap();
    for (name, want) in [
        ("env", "CONTRACTPIN_PROXY_TEST_UNSET"),
        ("outside", "--allow-outside-paths"),
        ("http", "CONTRACTPIN_PROXY_TEST_UNSET"),
        ("file", "nothing to proxy"),
    ] {
        let run = cp(&["proxy", "--lock", &lock, "--name", name], b"", 30);
        assert_eq!(run.code, 2, "{name}: {run:#?}");
        assert!(run.stderr.contains(want), "{name}: {}", run.stderr);
    }
    assert!(
        !dir.0.join("record.jsonl").exists(),
        "no server was started"
    );
}

#[test]
fn help_documents_the_policy_and_the_exit_codes() {
    let run = cp(&["proxy", "--help"], b"", 30);
    assert_eq!(run.code, 0);
    for want in [
        "--on-drift",
        "--mode",
        "--log",
        "notifications/tools/list_changed",
        "-32602",
        "Exit codes: 0",
        "--inherit-env",
        "--max-line-bytes",
        "--ignore-instructions",
        "instructions_digest",
    ] {
        assert!(run.stdout.contains(want), "{want}: {}", run.stdout);
    }
}

// ------------------------------------------------------------------ the client ends

#[test]
fn the_client_closing_stdin_ends_the_session_after_the_last_answers() {
    if !python_ok() {
        return;
    }
    let dir = Dir::new("eof");
    let cmd = fake_cmd(&dir, "ok", &[]);
    pin_as(&dir, &cmd);
    // Everything at once, then EOF: the answers still arrive.
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        "\n"
    );
    let lock = dir.lock();
    let run = cp(
        &["proxy", "--lock", &lock, "--name", "fake"],
        input.as_bytes(),
        30,
    );
    assert_eq!(run.code, 0, "{run:#?}");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    assert!(
        lines[1].contains(r#""id":1,"result":{"tools":["#),
        "{}",
        run.stdout
    );
    assert!(lines[2].contains(r#""id":2,"result":{}"#));
    assert!(run.took < Duration::from_secs(5), "{:?}", run.took);
    assert_gone(read_pid(&dir.0.join("pid")), "the server");
    assert!(
        dir.read("record.jsonl").contains("stdin-eof"),
        "the server saw its stdin close"
    );
}

#[test]
fn the_client_going_away_ends_the_session() {
    if !python_ok() {
        return;
    }
    let dir = Dir::new("gone");
    pin_as(&dir, &fake_cmd(&dir, "ok", &[]));
    let mut child = Command::new(BIN)
        .args(proxy_args(&dir, "fake", &[]))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = read_pid(&dir.0.join("pid"));
    // A client that dies: both its pipes close at once.
    drop(child.stdout.take());
    drop(child.stdin.take());
    assert_eq!(wait(&mut child, SECS), Some(0));
    assert_gone(pid, "the server");

    // A client that stops reading but keeps stdin open: the first answer
    // hits the closed pipe, and the session ends.
    let mut child = Command::new(BIN)
        .args(proxy_args(&dir, "fake", &[]))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = read_pid(&dir.0.join("pid"));
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    use std::io::Write;
    let _ = writeln!(stdin, r#"{{"jsonrpc":"2.0","id":5,"method":"ping"}}"#);
    assert_eq!(
        wait(&mut child, SECS),
        Some(0),
        "ends although stdin is still open"
    );
    assert_gone(pid, "the server");
}

#[test]
fn sigterm_ends_the_session_and_the_server() {
    if !python_ok() {
        return;
    }
    let dir = Dir::new("sigterm");
    pin_as(&dir, &fake_cmd(&dir, "ok", &[]));
    let mut s = start(&dir, &[]);
    s.handshake("t");
    let pid = read_pid(&dir.0.join("pid"));
    s.signal("TERM");
    assert_eq!(s.exit(SECS), 0, "{}", s.stderr());
    assert_gone(pid, "the server");
    whole_json_lines(&s);
}

// ------------------------------------------------------------------ the server fails

#[test]
fn a_server_that_dies_ends_the_session_with_exit_1() {
    if !python_ok() {
        return;
    }
    let dir = Dir::new("dies");
    pin_as(&dir, &fake_cmd(&dir, "exits-after-initialize", &[]));
    let mut s = start(&dir, &[]);
    let init = s.handshake("t");
    assert!(init.contains(r#""result""#), "{init}");
    assert_eq!(s.exit(SECS), 1);
    assert!(s.recv(Duration::from_secs(2)).is_none(), "stdout is closed");
    let err = s.stderr();
    assert!(
        err.contains("error: server \"fake\": the server exited (exit status: 3)"),
        "{err}"
    );
    whole_json_lines(&s);
}

#[test]
fn a_server_that_exits_while_an_escaped_process_holds_its_stdout_is_noticed() {
    if !python_ok() {
        return;
    }
    let dir = Dir::new("escaped");
    let orphan = dir.path("orphan");
    pin_as(
        &dir,
        &fake_cmd(
            &dir,
            "exits-after-initialize",
            &["--orphan-pid-file", &orphan],
        ),
    );
    let mut s = start(&dir, &[]);
    s.handshake("t");
    let t0 = Instant::now();
    assert_eq!(s.exit(SECS), 1, "{}", s.stderr());
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    assert!(
        s.stderr()
            .contains("a process it left behind still holds its stdout"),
        "{}",
        s.stderr()
    );
    // The CLI is a child subreaper: the setsid orphan is killed at exit.
    assert_gone(read_pid(Path::new(&orphan)), "the escaped orphan");
}

#[test]
fn a_server_that_cannot_start_is_exit_1() {
    if !python_ok() {
        return;
    }
    let dir = Dir::new("nostart");
    pin_as(&dir, &["/nonexistent/contractpin-test-server".to_string()]);
    let lock = dir.lock();
    let run = cp(&["proxy", "--lock", &lock, "--name", "fake"], b"", 30);
    assert_eq!(run.code, 1, "{run:#?}");
    assert!(
        run.stderr
            .contains("could not start `/nonexistent/contractpin-test-server`"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty());
}

#[test]
fn junk_on_the_servers_stdout_is_dropped_and_logged() {
    if !python_ok() {
        return;
    }
    let dir = Dir::new("junk");
    pin_as(&dir, &fake_cmd(&dir, "junk-stdout", &[]));
    let log = dir.path("proxy.log");
    let mut s = start(&dir, &["--log", &log]);
    s.handshake("t");
    let list = s.call(1, "tools/list", "{}");
    assert!(list.contains("get_weather"), "{list}");
    s.close();
    assert_eq!(s.exit(SECS), 0);
    whole_json_lines(&s);
    let raw = String::from_utf8_lossy(&s.raw_stdout.lock().unwrap()).into_owned();
    assert!(
        !raw.contains("DEBUG") && !raw.contains("Traceback") && !raw.contains("banner"),
        "{raw}"
    );
    let text = dir.read("proxy.log");
    let skipped = log_lines(&text, "skipped");
    assert_eq!(skipped.len(), 7, "5 at start-up, 1 per answer: {text}");
    assert!(
        text.contains("this banner went to stdout by mistake"),
        "{text}"
    );
    assert!(s.stderr().contains("dropped 7 line(s)"), "{}", s.stderr());
}

#[test]
fn a_line_over_the_limit_ends_the_session_cleanly() {
    if !python_ok() {
        return;
    }
    // From the server.
    let dir = Dir::new("huge");
    pin_as(
        &dir,
        &fake_cmd(&dir, "huge-line", &["--huge-bytes", "300000"]),
    );
    let mut s = start(&dir, &["--max-line-bytes", "100000"]);
    s.handshake("t");
    let pid = read_pid(&dir.0.join("pid"));
    s.send(LIST);
    assert_eq!(s.exit(SECS), 1);
    assert!(
        s.stderr()
            .contains("longer than 100000 bytes (the line limit, --max-line-bytes)"),
        "{}",
        s.stderr()
    );
    assert_gone(pid, "the server");
    whole_json_lines(&s);

    // From the client.
    let dir = Dir::new("huge-client");
    pin_as(&dir, &fake_cmd(&dir, "ok", &[]));
    let mut s = start(&dir, &["--max-line-bytes", "1000"]);
    let pid = read_pid(&dir.0.join("pid"));
    let _ = s.send_raw(&vec![b'x'; 5000]);
    assert_eq!(s.exit(SECS), 1);
    assert!(
        s.stderr()
            .contains("the client wrote a line longer than 1000 bytes"),
        "{}",
        s.stderr()
    );
    assert_gone(pid, "the server");
}

/// A client message nested deeper than the parser reads is not sent: it is
/// answered by its own id (a null id made the Go SDK end the session), and
/// the session goes on.
#[test]
fn a_client_message_nested_too_deep_is_answered_by_its_id() {
    if !python_ok() {
        return;
    }
    let dir = Dir::new("deep-client");
    pin_as(&dir, &fake_cmd(&dir, "ok", &[]));
    let mut s = start(&dir, &[]);
    s.handshake("t");
    let deep = "[".repeat(300) + &"]".repeat(300);
    s.send(&format!(
        r#"{{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{{"name":"get_weather","arguments":{{"a":{deep}}}}}}}"#
    ));
    let answer = s.recv_with(r#""id":41"#, SECS);
    assert!(
        answer.contains(r#""error":{"code":-32600,"message":"Invalid Request""#),
        "{answer}"
    );
    s.send(LIST);
    let listing = s.recv_with(r#""id":1"#, SECS);
    assert!(listing.contains(r#""tools":["#), "{listing}");
}

#[test]
fn a_server_that_never_answers_leaves_the_proxy_responsive() {
    if !python_ok() {
        return;
    }
    let dir = Dir::new("never");
    pin_as(&dir, &fake_cmd(&dir, "never-answers-tools-list", &[]));
    let mut s = start(&dir, &[]);
    s.handshake("t");
    s.send(LIST);
    // Other traffic still flows, and the proxy's own answers come at once.
    assert!(s.call(2, "ping", "{}").contains(r#""result":{}"#));
    let refused = s.call(3, "tools/call", r#"{"name":"get_weather"}"#);
    assert!(refused.contains("-32602"), "{refused}");
    let t0 = Instant::now();
    s.close();
    assert_eq!(s.exit(SECS), 0);
    assert!(t0.elapsed() < Duration::from_secs(4), "{:?}", t0.elapsed());
    assert_gone(read_pid(&dir.0.join("pid")), "the server");
}

#[test]
fn a_server_that_ignores_eof_and_sigterm_is_killed() {
    if !python_ok() {
        return;
    }
    let dir = Dir::new("stubborn");
    pin_as(&dir, &fake_cmd(&dir, "ignores-sigterm", &[]));
    let mut s = start(&dir, &[]);
    s.handshake("t");
    let pid = read_pid(&dir.0.join("pid"));
    let t0 = Instant::now();
    s.close();
    assert_eq!(s.exit(SECS), 0);
    let took = t0.elapsed();
    assert!(
        took >= Duration::from_millis(1900) && took < Duration::from_secs(6),
        "{took:?}"
    );
    assert_gone(pid, "the server");
    let record = dir.read("record.jsonl");
    let eof = record.find("stdin-eof").expect("stdin closed first");
    let term = record.find("\"signal\": 15").expect("then SIGTERM");
    assert!(eof < term, "{record}");
}

#[test]
fn a_server_that_stops_reading_its_stdin_ends_the_session_at_the_timeout() {
    if !python_ok() {
        return;
    }
    let dir = Dir::new("stops-reading");
    pin_as(&dir, &fake_cmd(&dir, "ping-flood", &["--ping-count", "10"]));
    let mut s = start(&dir, &["--timeout", "1"]);
    s.handshake("t");
    let pid = read_pid(&dir.0.join("pid"));
    s.send(LIST); // the server sends its pings and reads no more
    s.recv_with(r#""method":"ping""#, SECS);
    let t0 = Instant::now();
    let writer = fill_stdin(&mut s);
    assert_eq!(s.exit(SECS), 1);
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    let err = s.stderr();
    assert!(
        err.contains("stopped reading") && err.contains("1 s"),
        "{err}"
    );
    assert_gone(pid, "the server");
    let _ = writer.join();
}

/// Writes 4 MiB of requests to the proxy from a thread: more than the
/// server's pipe and the proxy's 1 MiB queue hold when it stopped reading.
fn fill_stdin(s: &mut Session) -> std::thread::JoinHandle<()> {
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"ping","params":{{"_meta":{{"pad":"{}"}}}}}}"#,
        "x".repeat(4000)
    );
    let mut lines = Vec::new();
    for _ in 0..1000 {
        lines.extend_from_slice(big.as_bytes());
        lines.push(b'\n');
    }
    let mut stdin = s.take_stdin();
    std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(&lines);
    })
}

/// Waits up to `d` for the proxy; if it is still running, kills the
/// server's process group (the session's drop kills the proxy) so that a
/// failing test leaves nothing behind.
fn exit_or_clean_up(s: &mut Session, d: Duration, server: i32) -> Option<i32> {
    let code = wait(&mut s.child, d);
    if code.is_none() {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{server}")])
            .status();
    }
    code
}

#[test]
fn sigterm_ends_the_session_while_the_server_is_not_reading() {
    // The client reader waited for room on the server's stdin holding the
    // upstream's lock, which shutdown needs: SIGTERM (and so the SDKs'
    // close sequence) waited for the request timeout.
    if !python_ok() {
        return;
    }
    let dir = Dir::new("deaf-sigterm");
    pin_as(&dir, &fake_cmd(&dir, "ping-flood", &["--ping-count", "10"]));
    let mut s = start(&dir, &["--timeout", "60"]);
    s.handshake("t");
    let pid = read_pid(&dir.0.join("pid"));
    s.send(LIST); // the server sends its pings and reads no more
    s.recv_with(r#""method":"ping""#, SECS);
    let writer = fill_stdin(&mut s);
    std::thread::sleep(Duration::from_secs(2)); // the reader is waiting for room
    let t0 = Instant::now();
    s.signal("TERM");
    let code = exit_or_clean_up(&mut s, Duration::from_secs(10), pid);
    assert_eq!(code, Some(0), "after {:?}: {}", t0.elapsed(), s.stderr());
    assert_gone(pid, "the server");
    let _ = writer.join();
}

#[test]
fn a_proxy_killed_with_sigkill_takes_its_server_along() {
    // PR_SET_PDEATHSIG: a server that ignores the end of its stdin (and
    // SIGTERM) dies with the proxy instead of running on under init.
    if !python_ok() {
        return;
    }
    let dir = Dir::new("pdeathsig");
    pin_as(&dir, &fake_cmd(&dir, "ignores-sigterm", &[]));
    let mut s = start(&dir, &[]);
    s.handshake("t");
    let pid = read_pid(&dir.0.join("pid"));
    s.signal("KILL");
    assert_eq!(s.exit(SECS), -1);
    assert_gone(pid, "the server of a proxy killed with SIGKILL");
}

#[test]
fn a_timeout_too_long_for_the_clock_is_no_deadline() {
    // `--timeout 1e19` overflowed `Instant + Duration`: the client reader
    // panicked at the first message and the proxy hung.
    if !python_ok() {
        return;
    }
    let dir = Dir::new("huge-timeout");
    pin_as(&dir, &fake_cmd(&dir, "ok", &[]));
    let mut s = start(&dir, &["--timeout", "1e19"]);
    s.handshake("t");
    assert!(s.call(2, "ping", "{}").contains(r#""result":{}"#));
    s.close();
    assert_eq!(s.exit(SECS), 0, "{}", s.stderr());
    assert!(!s.stderr().contains("panicked"), "{}", s.stderr());
    assert_gone(read_pid(&dir.0.join("pid")), "the server");
}

/// A server that answers the handshake, then writes `argv[1]` junk lines
/// (`x`) to stdout, then answers `ping`.
const JUNK_FLOOD: &str = r#"
import json, sys
n = int(sys.argv[1])
def send(o):
    sys.stdout.write(json.dumps(o, separators=(",", ":")) + "\n")
    sys.stdout.flush()
for line in sys.stdin:
    msg = json.loads(line)
    i = msg.get("id")
    if i is None:
        continue
    if msg.get("method") == "initialize":
        send({"jsonrpc": "2.0", "id": i, "result": {"protocolVersion": "2025-06-18",
              "capabilities": {"tools": {}}, "serverInfo": {"name": "junk", "version": "1"}}})
        sys.stdout.write("x\n" * n)
        sys.stdout.flush()
    else:
        send({"jsonrpc": "2.0", "id": i, "result": {}})
"#;

#[test]
fn a_flood_of_junk_lines_does_not_flood_the_log() {
    // One `skipped` line (~180 bytes) per 2-byte junk line made the log
    // ~89 times the server's output.
    if !python_ok() {
        return;
    }
    let dir = Dir::new("junk-flood");
    let script = dir.path("junk.py");
    std::fs::write(&script, JUNK_FLOOD).unwrap();
    pin_as(&dir, &[python(), script, "20000".into()]);
    let log = dir.path("proxy.log");
    let mut s = start(&dir, &["--log", &log]);
    s.handshake("t");
    // Its answer comes after the junk: every junk line has been handled.
    assert!(s.call(2, "ping", "{}").contains(r#""result":{}"#));
    s.close();
    assert_eq!(s.exit(SECS), 0, "{}", s.stderr());
    assert!(
        s.stderr().contains("dropped 20000 line(s)"),
        "{}",
        s.stderr()
    );
    let text = dir.read("proxy.log");
    assert_eq!(
        log_lines(&text, "skipped").len(),
        100,
        "one line each for the first 100"
    );
    let more = log_lines(&text, "skipped-more");
    assert_eq!(more.len(), 1, "{more:?}");
    assert!(more[0].contains(r#""count":19900,"#), "{}", more[0]);
    assert!(text.len() < 32 * 1024, "{} bytes of log", text.len());
}

#[test]
fn the_servers_process_group_is_cleared() {
    if !python_ok() {
        return;
    }
    let dir = Dir::new("group");
    let bg = dir.path("bg");
    let sh = vec![
        "sh".to_string(),
        "-c".into(),
        format!(
            "trap '' TERM; sleep 60 & echo $! > '{bg}'; exec '{}' '{}' --scenario ok",
            python(),
            fake()
        ),
    ];
    pin_as(&dir, &sh);
    let mut s = start(&dir, &[]);
    s.handshake("t");
    let bg_pid = read_pid(Path::new(&bg));
    assert!(running(bg_pid));
    s.close();
    assert_eq!(s.exit(SECS), 0);
    assert_gone(bg_pid, "the server's background child (ignoring SIGTERM)");
}

// ------------------------------------------------------------------ memory and secrets

fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Notifications of 1 MiB in the flood below: several times what the proxy
/// may hold for a client that reads nothing (its queue toward the client,
/// `OUT_BUDGET` = 4 MiB, a line being written and one being read).
const FLOOD: usize = 32;

/// A flood of 1 MiB notifications, as fast as the server can write, with a
/// client that reads at once, then with one that reads nothing until the
/// server has stopped writing. The second must stop it by back-pressure
/// (the proxy's queue is bounded in bytes, then the server's stdout pipe
/// fills): the server's progress file counts the lines its pipe took, and
/// at most half the flood may get through before the client reads. That
/// holds on a machine of any speed, where a fixed wait would let a slow
/// debug build look bounded. Then every line arrives whole, and the proxy's
/// peak memory stays a small multiple of the line size.
#[test]
fn a_flood_of_large_messages_keeps_memory_bounded() {
    if !python_ok() {
        return;
    }
    for client_waits in [false, true] {
        let dir = Dir::new("flood");
        let progress = dir.path("progress");
        let count = FLOOD.to_string();
        let args = ["--flood-count", &count, "--progress-file", &progress];
        pin_as(&dir, &fake_cmd(&dir, "notification-flood", &args));
        let mut child = Command::new(BIN)
            .args(proxy_args(&dir, "fake", &[]))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let pid = child.id();
        let mut stdin = child.stdin.take().unwrap();
        use std::io::{Read, Write};
        writeln!(stdin, "{LIST}").unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let reader = std::thread::spawn(move || {
            let _ = wait.recv();
            let mut all = Vec::new();
            let _ = stdout.read_to_end(&mut all);
            all
        });
        let mut stall = Stall::new(&progress, client_waits);
        if !client_waits {
            go.send(()).unwrap();
        }
        let mut peak = 0;
        let t0 = Instant::now();
        let code = loop {
            peak = peak.max(vm_hwm_kib(pid).unwrap_or(0));
            if stall.check() {
                go.send(()).unwrap();
            }
            if let Some(st) = child.try_wait().unwrap() {
                break st.code();
            }
            assert!(t0.elapsed() < Duration::from_secs(90), "still running");
            std::thread::sleep(Duration::from_millis(2));
        };
        drop(stdin);
        // A proxy that ended before the flood stopped: the reader reads now
        // (the check below then fails), rather than wait for ever.
        drop(go);
        let all = reader.join().unwrap();
        assert_eq!(
            stall.held.is_some(),
            client_waits,
            "the proxy ended while the client read nothing"
        );
        assert_eq!(code, Some(1), "the server exits 4 after the flood");
        assert!(all.ends_with(b"\n"), "whole lines only");
        let lines: Vec<&[u8]> = all
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(lines.len(), FLOOD, "every notification arrived");
        assert!(lines
            .iter()
            .all(|l| l.len() == 1 << 20 && l.ends_with(b"]}}")));
        let held = stall
            .held
            .map_or(String::new(), |n| format!(", {n} lines written before"));
        eprintln!("flood (client waits: {client_waits}{held}): proxy peak RSS {peak} KiB");
        if let Some(n) = stall.held {
            assert!(
                n <= FLOOD / 2,
                "{n} of {FLOOD} lines got through to a client that read nothing"
            );
        }
        assert!(peak < 64 * 1024, "peak RSS {peak} KiB");
    }
}

/// Watches the flood's progress file for a client that waits: once the
/// server has written a line, the flood has stopped when no line was
/// added for two seconds (or all got through).
struct Stall<'a> {
    path: &'a str,
    client_waits: bool,
    last: (u64, Instant),
    /// Lines written when the client began to read.
    held: Option<usize>,
}

impl<'a> Stall<'a> {
    fn new(path: &'a str, client_waits: bool) -> Stall<'a> {
        Stall {
            path,
            client_waits,
            last: (0, Instant::now()),
            held: None,
        }
    }

    /// Whether the client should begin to read now (true once).
    fn check(&mut self) -> bool {
        if !self.client_waits || self.held.is_some() {
            return false;
        }
        let n = std::fs::metadata(self.path).map_or(0, |m| m.len());
        if n != self.last.0 {
            self.last = (n, Instant::now());
        }
        let stopped = n > 0 && self.last.1.elapsed() >= Duration::from_secs(2);
        if stopped || n >= FLOOD as u64 {
            self.held = Some(n as usize);
            return true;
        }
        false
    }
}

#[test]
fn secrets_of_the_servers_env_never_reach_the_log() {
    if !python_ok() {
        return;
    }
    let dir = Dir::new("secret");
    let sh = vec![
        "sh".to_string(),
        "-c".into(),
        format!(
            "echo \"debug: token=$API_TOKEN\"; exec '{}' '{}' --scenario ok --pid-file '{}'",
            python(),
            fake(),
            dir.path("pid")
        ),
    ];
    pin_as(&dir, &sh);
    let lock = dir.lock();
    let mut l = contractpin::lock::Lock::parse(&std::fs::read(&lock).unwrap()).unwrap();
    l.servers.get_mut("fake").unwrap().env = Some(
        [(
            "API_TOKEN".to_string(),
            "${CONTRACTPIN_PROXY_TEST_TOKEN}".to_string(),
        )]
        .into(),
    );
    std::fs::write(&lock, l.to_pretty()).unwrap();
    let secret = "tok-9f8e7d6c5b4a3210";
    let log = dir.path("proxy.log");
    let mut child = Command::new(BIN)
        .args(proxy_args(&dir, "fake", &["--log", &log]))
        .env("CONTRACTPIN_PROXY_TEST_TOKEN", secret)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    read_pid(&dir.0.join("pid"));
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = dir.read("proxy.log");
    let skipped = log_lines(&text, "skipped");
    assert_eq!(skipped.len(), 1, "{text}");
    assert!(skipped[0].contains("debug: token=***"), "{text}");
    assert!(!text.contains(secret) && !String::from_utf8_lossy(&out.stderr).contains(secret));
    assert!(!String::from_utf8_lossy(&out.stdout).contains(secret));
}

/// A lock whose command for a server is `contractpin proxy` for that same
/// server (what `init --from` of a wrapped configuration once wrote), or a
/// cycle through two servers: the proxy that would start a server a proxy
/// above it started already refuses to run, so the session ends at once
/// instead of starting proxies without end (an adversarial review counted
/// 109 processes and 566 MB after 2 s). A proxy under a proxy for another
/// server is fine.
#[test]
fn a_proxy_never_starts_a_server_a_proxy_above_it_started() {
    if !python_ok() {
        return;
    }
    let dir = Dir::new("nested");
    pin_as(&dir, &fake_cmd(&dir, "ok", &[]));
    let proxy_for = |name: &str| -> Vec<String> {
        std::iter::once(BIN.to_string())
            .chain(proxy_args(&dir, name, &[]))
            .collect()
    };
    let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let refused_once = |s: &mut Session| {
        s.send(initialize);
        assert_ne!(s.exit(Duration::from_secs(20)), 0);
        let err = s.stderr();
        assert!(err.contains("CONTRACTPIN_PROXY_CHAIN holds"), "{err}");
        assert_eq!(
            err.matches("a contractpin proxy above this one").count(),
            1,
            "{err}"
        );
    };
    // Itself.
    set_command(&dir, &proxy_for("fake"));
    refused_once(&mut start(&dir, &[]));
    // fake -> other -> fake.
    let lock = dir.lock();
    let mut l = contractpin::lock::Lock::parse(&std::fs::read(&lock).unwrap()).unwrap();
    let mut other = l.servers["fake"].clone();
    other.command = Some(proxy_for("fake"));
    l.servers.insert("other".into(), other);
    l.servers.get_mut("fake").unwrap().command = Some(proxy_for("other"));
    std::fs::write(&lock, l.to_pretty()).unwrap();
    refused_once(&mut start(&dir, &[]));
    // Under a proxy for another server: it runs (the client closes at once).
    set_command(&dir, &fake_cmd(&dir, "ok", &[]));
    let run = Command::new(BIN)
        .args(proxy_args(&dir, "fake", &[]))
        .env("CONTRACTPIN_PROXY_CHAIN", "0123456789abcdef")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0), "{run:?}");
}
