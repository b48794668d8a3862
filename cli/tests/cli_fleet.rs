//! Many servers (drift review items 7 and 8): `verify` and `init` fetch
//! servers in parallel (`--jobs`) and still print in lock order; a server is
//! shut down soon after its answer (`--grace-ms`); Ctrl-C and failing
//! servers leave no process behind; a relative command pinned in the lock's
//! directory works from anywhere; a server that dies before answering is
//! reported as such, with its exit status or signal and its stderr.
//!
//! The slow server is `tests/mcp/slow_server.sh` (POSIX sh: starting 16 of
//! them costs almost no CPU, so the timing measures the waiting, not an
//! interpreter's start-up on a loaded 2-core machine).
#![cfg(unix)]

mod cli_support;
use cli_support::*;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn slow_server() -> PathBuf {
    root().join("tests/mcp/slow_server.sh")
}

/// `sh slow_server.sh DELAY TOOL`.
fn slow(delay: &str, tool: &str) -> Vec<String> {
    vec!["sh".into(), s(&slow_server()), delay.into(), tool.into()]
}

/// A Claude Desktop configuration with these stdio servers.
fn config(dir: &TempDir, servers: &[(String, Vec<String>)]) -> PathBuf {
    let entries: Vec<String> = servers
        .iter()
        .map(|(name, argv)| {
            let args: Vec<String> = argv[1..].iter().map(|a| json_str(a)).collect();
            format!(
                "{}: {{\"command\": {}, \"args\": [{}]}}",
                json_str(name),
                json_str(&argv[0]),
                args.join(", ")
            )
        })
        .collect();
    dir.write(
        "mcp.json",
        format!("{{\"mcpServers\": {{{}}}}}", entries.join(",\n")),
    )
}

/// Pins `servers` in `dir/contractpin.lock` (one `init --from`).
fn pin(dir: &TempDir, servers: &[(String, Vec<String>)]) -> PathBuf {
    let cfg = config(dir, servers);
    let lock = dir.path("contractpin.lock");
    cp(&["init", "--lock", &s(&lock), "--from", &s(&cfg)])
        .run()
        .code(0);
    lock
}

fn sixteen(delay: &str) -> Vec<(String, Vec<String>)> {
    (0..16)
        .map(|i| (format!("s{i:02}"), slow(delay, &format!("t{i}"))))
        .collect()
}

#[test]
fn sixteen_servers_that_take_1_s_each_verify_in_under_3_s() {
    if !tools::needs(&["sh", "sleep"]) {
        return;
    }
    let dir = TempDir::new("fleet16");
    let lock = pin(&dir, &sixteen("1"));
    let o = cp(&["verify", "--lock", &s(&lock)]).run();
    o.code(0);
    // 16 servers, 8 at a time: two rounds of 1 s. (`--jobs 1` takes 16 s:
    // measured by hand, docs/PERFORMANCE.md.)
    assert!(
        o.elapsed < Duration::from_secs(3),
        "took {:?}: {}",
        o.elapsed,
        o.err()
    );
    assert!(
        o.elapsed >= Duration::from_secs(2),
        "{:?}: 8 at a time",
        o.elapsed
    );
    assert!(o.out().contains("16 servers match"), "{}", o.out());
    let out = o.out();
    let order: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("OK "))
        .filter_map(|l| l.split(':').next())
        .collect();
    let expected: Vec<String> = (0..16).map(|i| format!("s{i:02}")).collect();
    assert_eq!(order, expected, "{}", o.out());
    // All at once: one round.
    let o = cp(&["verify", "--lock", &s(&lock), "--jobs", "16"]).run();
    o.code(0);
    assert!(o.elapsed < Duration::from_secs(2), "{:?}", o.elapsed);
}

#[test]
fn output_and_warnings_are_in_lock_order_whichever_server_answers_first() {
    if !tools::needs(&["sh", "sleep"]) {
        return;
    }
    let dir = TempDir::new("fleet-order");
    // The first in lock order answers last; each writes a junk stdout line
    // (a warning) first.
    let servers: Vec<(String, Vec<String>)> = ["0.9", "0.6", "0.3", "0"]
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let script = format!("echo junk-{i}; exec sh '{}' {d} t{i}", s(&slow_server()));
            (format!("n{i}"), vec!["sh".into(), "-c".into(), script])
        })
        .collect();
    let lock = pin(&dir, &servers);
    for format in ["text", "json"] {
        let o = cp(&["verify", "--lock", &s(&lock), "--format", format]).run();
        o.code(0);
        let err = o.err();
        let warned: Vec<usize> = (0..4)
            .map(|i| {
                err.find(&format!("server \"n{i}\": skipped 1 non-JSON line"))
                    .unwrap_or_else(|| panic!("no warning for n{i}: {err}"))
            })
            .collect();
        assert!(warned.windows(2).all(|w| w[0] < w[1]), "{err}");
        let out = o.out();
        let at: Vec<usize> = (0..4)
            .map(|i| out.find(&format!("n{i}")).expect("listed"))
            .collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{out}");
    }
    // init prints its results in order too.
    let o = cp(&[
        "init",
        "--lock",
        &s(&dir.path("again.lock")),
        "--from",
        &s(&dir.path("mcp.json")),
    ])
    .run();
    o.code(0);
    let out = o.out();
    let at: Vec<usize> = (0..4)
        .map(|i| out.find(&format!("pinned n{i} ")).expect("pinned"))
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{out}");
}

#[test]
fn jobs_and_grace_are_checked() {
    for bad in [["--jobs", "0"], ["--grace-ms", "60001"], ["--jobs", "x"]] {
        let o = cp(&[
            "verify",
            "--lock",
            "examples/contractpin.lock",
            bad[0],
            bad[1],
        ])
        .run();
        o.code(2);
    }
    cp(&[
        "verify",
        "--lock",
        "examples/contractpin.lock",
        "--jobs",
        "1",
        "--grace-ms",
        "0",
    ])
    .run()
    .code(0);
}

#[test]
fn a_server_kept_alive_after_its_answer_is_not_waited_for() {
    if !tools::needs(&["sh", "sleep"]) {
        return;
    }
    let dir = TempDir::new("fleet-grace");
    // Answers, then stays alive for 30 s after the end of its stdin (as a
    // server whose timer keeps it running); SIGTERM ends it.
    let script = format!("sh '{}' 0 t; exec sleep 30", s(&slow_server()));
    let servers = vec![("alive".to_string(), vec!["sh".into(), "-c".into(), script])];
    let lock = pin(&dir, &servers);
    let o = cp(&["verify", "--lock", &s(&lock)]).run();
    o.code(0);
    assert!(o.elapsed < Duration::from_millis(1500), "{:?}", o.elapsed);
    // SIGTERM sufficed: it was not killed.
    assert!(!o.err().contains("was killed"), "{}", o.err());
    let o = cp(&["verify", "--lock", &s(&lock), "--grace-ms", "2000"]).run();
    o.code(0);
    assert!(o.elapsed >= Duration::from_secs(2), "{:?}", o.elapsed);
}

/// Waits until `path` holds a pid.
fn wait_pid(path: &Path) -> i32 {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(pid) = std::fs::read_to_string(path)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            return pid;
        }
        assert!(Instant::now() < until, "{} never written", path.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether a process `pid` exists (a zombie counts).
fn exists(pid: i32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

fn gone_within(pid: i32, d: Duration) -> bool {
    let until = Instant::now() + d;
    while Instant::now() < until {
        if !exists(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    !exists(pid)
}

fn kill_leftover(pid: i32) {
    let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
}

#[cfg(target_os = "linux")]
#[test]
fn ctrl_c_stops_every_server_and_leaves_nothing() {
    if !tools::needs(&["python3", "sh", "sleep", "kill"]) {
        return;
    }
    let dir = TempDir::new("fleet-int");
    // Each server writes its pid, then takes 30 s to answer (its `sleep` is
    // in its process group).
    let servers: Vec<(String, Vec<String>)> = (0..3)
        .map(|i| {
            let pid = dir.path(&format!("{i}.pid"));
            let script = format!(
                "echo $$ > '{}'; exec sh '{}' 30 t{i}",
                s(&pid),
                s(&slow_server())
            );
            (format!("i{i}"), vec!["sh".into(), "-c".into(), script])
        })
        .collect();
    // Pin quick twins, then point the lock at the slow commands.
    let quick: Vec<(String, Vec<String>)> = (0..3)
        .map(|i| (format!("i{i}"), slow("0", &format!("t{i}"))))
        .collect();
    let lock = pin(&dir, &quick);
    for (name, argv) in &servers {
        set_command(&lock, name, argv);
    }
    let child = Command::new(bin())
        .args(["verify", "--lock", &s(&lock)])
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start contractpin");
    let pids: Vec<i32> = (0..3)
        .map(|i| wait_pid(&dir.path(&format!("{i}.pid"))))
        .collect();
    let t0 = Instant::now();
    let out = cli_support::interrupt(child);
    let took = t0.elapsed();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let gone: Vec<bool> = pids
        .iter()
        .map(|&p| gone_within(p, Duration::from_secs(2)))
        .collect();
    pids.iter().for_each(|&p| kill_leftover(p));
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted by SIGINT"), "{err}");
    assert!(out.stdout.is_empty(), "no report");
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert!(gone.iter().all(|g| *g), "left behind: {pids:?} {gone:?}");
}

#[test]
fn a_failing_server_among_others_leaves_nothing_behind() {
    if !tools::needs(&["python3", "sh", "sleep"]) {
        return;
    }
    let dir = TempDir::new("fleet-fail");
    let bg = dir.path("bg.pid");
    let failing = format!(
        "sleep 60 >/dev/null 2>&1 & echo $! > '{}'; echo boom >&2; exit 3",
        s(&bg)
    );
    let mut servers = vec![
        ("a".to_string(), slow("0.3", "a")),
        ("b".to_string(), slow("0", "b")),
        ("c".to_string(), slow("0.3", "c")),
    ];
    let lock = pin(&dir, &servers);
    servers[1].1 = vec!["sh".into(), "-c".into(), failing];
    set_command(&lock, "b", &servers[1].1);
    let o = cp(&["verify", "--lock", &s(&lock)]).run();
    o.code(1);
    let out = o.out();
    assert!(out.contains("OK a") && out.contains("OK c"), "{out}");
    assert!(
        out.contains("the server exited (exit status: 3) before answering server/discover"),
        "{out}"
    );
    let pid = wait_pid(&bg);
    let gone = gone_within(pid, Duration::from_secs(2));
    kill_leftover(pid);
    assert!(gone, "the failing server's sleep {pid} is still there");
}

/// `init` of `argv` into a fresh lock; its output.
fn init_one(argv: &[String], extra: &[&str]) -> (TempDir, Out) {
    let dir = TempDir::new("fleet-exit");
    let lock = dir.path("contractpin.lock");
    let mut args: Vec<String> = vec![
        "init".into(),
        "--lock".into(),
        s(&lock),
        "--name".into(),
        "x".into(),
    ];
    args.extend(extra.iter().map(|e| e.to_string()));
    args.push("--".into());
    args.extend(argv.iter().cloned());
    let o = cp(&args).env("CP_FLEET_SECRET", "s3cr3t-fleet-value").run();
    (dir, o)
}

#[test]
fn a_server_that_exits_before_answering_is_reported_with_its_status_and_stderr() {
    if !tools::needs(&["python3", "sh"]) {
        return;
    }
    let argv: Vec<String> = vec!["sh".into(), "-c".into(), "echo boom >&2; exit 3".into()];
    let (dir, o) = init_one(&argv, &[]);
    o.code(1);
    let err = o.err();
    assert!(
        err.contains(
            "server \"x\": cannot fetch the tools list: the server exited (exit status: 3) \
             before answering server/discover\nserver stderr (last lines):\n  | boom\n"
        ),
        "{err}"
    );
    assert!(!err.contains("no answer to"), "{err}");
    assert!(!dir.path("contractpin.lock").exists());
    // verify says the same about a pinned server that now dies.
    let lock = pin(&dir, &[("x".to_string(), slow("0", "t"))]);
    set_command(&lock, "x", &argv);
    let o = cp(&["verify", "--lock", &s(&lock)]).run();
    o.code(1);
    let out = o.out();
    assert!(
        out.contains("the server exited (exit status: 3) before answering server/discover"),
        "{out}"
    );
    assert!(out.contains("| boom"), "{out}");
}

#[test]
fn a_server_killed_by_a_signal_before_answering_is_reported_with_the_signal() {
    if !tools::needs(&["sh"]) {
        return;
    }
    let argv: Vec<String> = vec![
        "sh".into(),
        "-c".into(),
        "echo dying >&2; kill -9 $$".into(),
    ];
    let (_dir, o) = init_one(&argv, &[]);
    o.code(1);
    let err = o.err();
    assert!(
        err.contains("the server exited (signal: 9 (SIGKILL)) before answering server/discover"),
        "{err}"
    );
    assert!(err.contains("  | dying"), "{err}");
}

#[test]
fn the_stderr_of_a_server_that_exits_early_is_redacted() {
    if !tools::needs(&["sh"]) {
        return;
    }
    let argv: Vec<String> = vec![
        "sh".into(),
        "-c".into(),
        "echo \"token is $TOKEN\" >&2; exit 4".into(),
    ];
    let (_dir, o) = init_one(&argv, &["--env", "TOKEN=${CP_FLEET_SECRET}"]);
    o.code(1);
    let err = o.err();
    assert!(err.contains("(exit status: 4) before answering"), "{err}");
    assert!(err.contains("  | token is ***"), "{err}");
    assert!(!err.contains("s3cr3t"), "{err}");
}

#[test]
fn a_relative_command_pinned_in_the_lock_directory_works_from_anywhere() {
    if !tools::needs(&["python3", "sh", "sleep"]) {
        return;
    }
    let dir = TempDir::new("fleet-rel");
    let proj = dir.path("proj");
    let sub = proj.join("sub");
    let elsewhere = dir.path("elsewhere");
    for d in [&sub, &elsewhere] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::copy(slow_server(), proj.join("server.sh")).unwrap();
    std::fs::copy(slow_server(), sub.join("server.sh")).unwrap();
    // Pinned in the lock's directory: no cwd stored.
    cp(&["init", "--name", "top", "--", "sh", "server.sh", "0", "top"])
        .cwd(&proj)
        .run()
        .code(0);
    // Pinned from below it: the directory is stored relative to the lock.
    cp(&[
        "init",
        "--lock",
        "../contractpin.lock",
        "--name",
        "below",
        "--",
        "sh",
        "server.sh",
        "0",
        "below",
    ])
    .cwd(&sub)
    .run()
    .code(0);
    let lock = proj.join("contractpin.lock");
    py_check_json(
        &read(&lock),
        "s=d['servers']\nassert 'cwd' not in s['top'], s\nassert s['below']['cwd']=='sub', s",
    );
    for from in [&elsewhere, &sub, &root()] {
        let o = cp(&["verify", "--lock", &s(&lock)]).cwd(from).run();
        o.code(0);
        assert!(o.out().contains("2 servers match"), "{}", o.out());
    }
    // From outside the lock's directory, init runs the server where verify
    // will (the lock's directory) and records nothing.
    cp(&[
        "init",
        "--lock",
        "proj/contractpin.lock",
        "--name",
        "outside",
        "--",
        "sh",
        "server.sh",
        "0",
        "o",
    ])
    .cwd(&dir.0)
    .run()
    .code(0);
    py_check_json(&read(&lock), "assert 'cwd' not in d['servers']['outside']");
    // A command that exists only where init ran (outside) fails at init,
    // which says where it ran.
    std::fs::copy(slow_server(), elsewhere.join("only-here.sh")).unwrap();
    let o = cp(&[
        "init",
        "--lock",
        &s(&lock),
        "--name",
        "lost",
        "--",
        "sh",
        "only-here.sh",
        "0",
        "o",
    ])
    .cwd(&elsewhere)
    .run();
    o.code(1);
    assert!(
        o.err().contains("it ran in the lock's directory"),
        "{}",
        o.err()
    );
    // With --allow-outside-paths, the directory outside is recorded (as `..`).
    cp(&[
        "init",
        "--lock",
        &s(&lock),
        "--name",
        "lost",
        "--allow-outside-paths",
        "--",
        "sh",
        "only-here.sh",
        "0",
        "o",
    ])
    .cwd(&elsewhere)
    .run()
    .code(0);
    py_check_json(
        &read(&lock),
        "assert d['servers']['lost']['cwd']=='../elsewhere', d",
    );
    cp(&["verify", "--lock", &s(&lock), "--server", "lost"])
        .run()
        .code(2);
    cp(&[
        "verify",
        "--lock",
        &s(&lock),
        "--server",
        "lost",
        "--allow-outside-paths",
    ])
    .run()
    .code(0);
}
