//! Issue 9 item 7: nothing a stdio server started outlives contractpin.
//!
//! - A server that exits by itself still has its process group signalled
//!   (SIGTERM, SIGKILL after the grace): `sh -c 'sleep 60 & exec SERVER'`
//!   leaves `sleep` in the group.
//! - On Linux the CLI is a child subreaper and kills the descendants that
//!   escaped the group (`setsid` after a double fork: fake_server.py
//!   `--orphan-pid-file`) after each server and before it exits.
//!
//! Each test records the pids of the leftovers in files and checks, within
//! 2 s after contractpin exited, that they are gone: for the CLI, reaped
//! (contractpin, their subreaper, must leave no zombie either; in some
//! containers init never reaps); for the library alone, at least not
//! running (the leftovers are init's children then).
#![cfg(target_os = "linux")]

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use contractpin::mcp::{fetch_tools_list, ClientOptions, ServerSpec};

#[path = "hostile/common.rs"]
mod common;

use common::run::{cli, Run};
use common::{eventually, exists, kill_leftover, python3, read_pid, running, Scratch, FAKE};

const DEADLINE: Duration = Duration::from_secs(60);
const GONE_WITHIN: Duration = Duration::from_secs(2);

/// `sh -c` running the fake server after starting `sleep 60` in the
/// background (in the server's process group), its pid in `bg`. With
/// `ignore_term`, the sleep ignores SIGTERM (a disposition it inherits).
fn sh_with_background_sleep(py: &str, bg: &Path, ignore_term: bool, server: &str) -> Vec<String> {
    let trap = if ignore_term { "trap '' TERM; " } else { "" };
    vec![
        "sh".into(),
        "-c".into(),
        format!(
            "{trap}sleep 60 & echo $! > '{}'; exec '{py}' '{FAKE}' {server}",
            bg.display()
        ),
    ]
}

/// `init` then `verify` of `command`; after each, every pid in `pid_files`
/// must be gone (reaped) within 2 s. Returns the `init` run.
fn init_and_verify_leave_nothing(command: &[String], pid_files: &[&Path], init_code: i32) -> Run {
    init_and_verify_leave_nothing_with(&[], command, pid_files, init_code)
}

fn init_and_verify_leave_nothing_with(
    flags: &[&str],
    command: &[String],
    pid_files: &[&Path],
    init_code: i32,
) -> Run {
    let dir = Scratch::new();
    let lock = dir.path("contractpin.lock").display().to_string();
    let mut args: Vec<&str> = vec!["init", "--lock", &lock, "--name", "srv"];
    args.extend_from_slice(flags);
    args.push("--");
    args.extend(command.iter().map(String::as_str));
    let run = cli(&args, DEADLINE);
    assert_eq!(run.code, init_code, "init: {run:#?}");
    assert_gone("init", pid_files, &run);
    if init_code != 0 {
        return run;
    }
    for f in pid_files {
        let _ = std::fs::remove_file(f);
    }
    let verify = cli(&["verify", "--lock", &lock], DEADLINE);
    assert_eq!(verify.code, 0, "verify: {verify:#?}");
    assert_gone("verify", pid_files, &verify);
    run
}

#[track_caller]
fn assert_gone(what: &str, pid_files: &[&Path], run: &Run) {
    for f in pid_files {
        let pid = read_pid(f);
        let gone = eventually(GONE_WITHIN, || !exists(pid));
        let state = common::proc_state(pid);
        kill_leftover(pid);
        assert!(
            gone,
            "{what}: process {pid} ({}) is still there {GONE_WITHIN:?} after contractpin exited (state {state:?}): {run:#?}",
            f.display()
        );
    }
}

#[test]
fn a_background_child_in_the_group_does_not_survive_init_or_verify() {
    let Some(py) = python3("a_background_child_in_the_group_does_not_survive_init_or_verify")
    else {
        return;
    };
    let dir = Scratch::new();
    let bg = dir.path("bg.pid");
    let cmd = sh_with_background_sleep(&py, &bg, false, "--scenario ok");
    init_and_verify_leave_nothing(&cmd, &[&bg], 0);
}

#[test]
fn a_setsid_grandchild_does_not_survive_init_or_verify() {
    let Some(py) = python3("a_setsid_grandchild_does_not_survive_init_or_verify") else {
        return;
    };
    let dir = Scratch::new();
    let orphan = dir.path("orphan.pid");
    let cmd: Vec<String> = vec![
        py,
        FAKE.into(),
        "--scenario".into(),
        "ok".into(),
        "--orphan-pid-file".into(),
        orphan.display().to_string(),
    ];
    init_and_verify_leave_nothing(&cmd, &[&orphan], 0);
}

#[test]
fn the_exit_of_a_server_whose_setsid_child_holds_its_stdout_is_noticed() {
    let Some(py) = python3("the_exit_of_a_server_whose_setsid_child_holds_its_stdout_is_noticed")
    else {
        return;
    };
    let dir = Scratch::new();
    let orphan = dir.path("orphan.pid");
    let cmd: Vec<String> = vec![
        py,
        FAKE.into(),
        "--scenario".into(),
        "exits-after-initialize".into(),
        "--orphan-pid-file".into(),
        orphan.display().to_string(),
    ];
    let run = init_and_verify_leave_nothing(&cmd, &[&orphan], 1);
    // The orphan keeps the server's stdout open (no end of file), but the
    // server and its whole group are gone: an exit error at once, not a
    // timeout 30 s later.
    assert!(
        run.stderr.contains("the server exited (exit status: 3)"),
        "{}",
        run.stderr
    );
    assert!(run.took < Duration::from_secs(10), "{:?}", run.took);
}

#[test]
fn both_kinds_of_leftovers_of_a_failing_server_are_gone_too() {
    let Some(py) = python3("both_kinds_of_leftovers_of_a_failing_server_are_gone_too") else {
        return;
    };
    let dir = Scratch::new();
    let bg = dir.path("bg.pid");
    let orphan = dir.path("orphan.pid");
    let server = format!(
        "--scenario exits-after-initialize --orphan-pid-file '{}'",
        orphan.display()
    );
    let cmd = sh_with_background_sleep(&py, &bg, false, &server);
    // The sleep left in the group holds stdout and could be the server
    // (`sh -c 'server &'`): waited for until the request timeout.
    let run = init_and_verify_leave_nothing_with(&["--timeout", "3"], &cmd, &[&bg, &orphan], 1);
    assert!(
        run.stderr.contains("request timeout of 3 s"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_group_member_that_ignores_sigterm_is_killed_after_the_grace() {
    let Some(py) = python3("a_group_member_that_ignores_sigterm_is_killed_after_the_grace") else {
        return;
    };
    let dir = Scratch::new();
    let bg = dir.path("bg.pid");
    let cmd = sh_with_background_sleep(&py, &bg, true, "--scenario ok");
    let t0 = Instant::now();
    init_and_verify_leave_nothing(&cmd, &[&bg], 0);
    // Two runs, each waiting the 1 s grace for the sleep to ignore SIGTERM.
    assert!(t0.elapsed() >= Duration::from_secs(2), "{:?}", t0.elapsed());
}

#[test]
fn the_library_alone_clears_the_process_group_of_a_server_that_exited_by_itself() {
    let Some(py) =
        python3("the_library_alone_clears_the_process_group_of_a_server_that_exited_by_itself")
    else {
        return;
    };
    let dir = Scratch::new();
    let bg = dir.path("bg.pid");
    let spec = ServerSpec::Stdio {
        command: sh_with_background_sleep(&py, &bg, false, "--scenario ok"),
        env: BTreeMap::new(),
        cwd: None,
    };
    let opts = ClientOptions {
        shutdown_grace: Duration::from_millis(500),
        ..ClientOptions::default()
    };
    let t0 = Instant::now();
    let fetched = fetch_tools_list(&spec, &opts).expect("the ok scenario lists");
    assert_eq!(fetched.transport, "stdio");
    // The server exits by itself on stdin EOF; the sleep got SIGTERM (it is
    // init's child now, so it may linger as a zombie if init never reaps).
    let pid = read_pid(&bg);
    let stopped = eventually(GONE_WITHIN, || !running(pid));
    kill_leftover(pid);
    assert!(
        stopped,
        "sleep {pid} still running: state {:?}",
        common::proc_state(pid)
    );
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
}

#[test]
fn a_wrapper_that_exits_while_its_child_serves_is_still_served() {
    // A guard for the exit detection above: `sh -c 'server <&3 &'` exits at
    // once while the server, in its process group, answers on the same
    // pipes (fd 3 because sh gives `&` jobs /dev/null as stdin). It must
    // still be pinned (and then stopped with the group).
    let Some(py) = python3("a_wrapper_that_exits_while_its_child_serves_is_still_served") else {
        return;
    };
    let dir = Scratch::new();
    let pid_file = dir.path("server.pid");
    let cmd: Vec<String> = vec![
        "sh".into(),
        "-c".into(),
        format!(
            "exec 3<&0; '{py}' '{FAKE}' --scenario ok --delay 0.5 --delay-methods initialize,server/discover --pid-file '{}' <&3 3<&- &",
            pid_file.display()
        ),
    ];
    init_and_verify_leave_nothing(&cmd, &[&pid_file], 0);
}

#[test]
fn a_descriptor_contractpin_inherited_does_not_reach_the_server() {
    // A parent that leaks fd 7 (no close-on-exec) into contractpin: the
    // server must not get it (Linux 5.11+: close_range CLOEXEC before exec).
    let Some(py) = python3("a_descriptor_contractpin_inherited_does_not_reach_the_server") else {
        return;
    };
    let dir = Scratch::new();
    let lock = dir.path("contractpin.lock").display().to_string();
    let (server_fds, shell_fds) = (dir.path("server-fds"), dir.path("shell-fds"));
    let server = [
        "sh",
        "-c",
        r#"ls /proc/self/fd > "$0"; exec "$@""#,
        &server_fds.display().to_string(),
        &py,
        FAKE,
        "--scenario",
        "ok",
    ];
    let mut init = vec!["init", "--lock", &lock, "--name", "srv", "--"];
    init.extend(server);
    assert_eq!(cli(&init, DEADLINE).code, 0);
    let bin = common::run::BIN;
    let out = std::process::Command::new("sh")
        .args([
            "-c",
            r#"exec 7</dev/null; ls /proc/self/fd > "$0"; exec "$@""#,
        ])
        .arg(&shell_fds)
        .args([bin, "verify", "--lock", &lock])
        .output()
        .expect("sh runs");
    assert!(out.status.success(), "{out:?}");
    let fds = |p: &Path| -> Vec<String> {
        let text = std::fs::read_to_string(p).unwrap_or_default();
        text.split_whitespace().map(String::from).collect()
    };
    let (server, shell) = (fds(&server_fds), fds(&shell_fds));
    assert!(
        shell.contains(&"7".to_string()),
        "the leak is set up: {shell:?}"
    );
    for fd in ["0", "1", "2"] {
        assert!(server.contains(&fd.to_string()), "{server:?}");
    }
    assert!(
        !server.contains(&"7".to_string()),
        "fd 7 reached the server: {server:?}"
    );
}
