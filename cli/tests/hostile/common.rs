//! Helpers shared by `cli/tests/stdio_env.rs`, `cli/tests/hostile_memory.rs` and
//! `cli/tests/processes.rs` (issue 9 items 4, 5 and 7): the real Python
//! interpreter, running the `contractpin` binary while sampling its peak
//! RSS, and checking whether a process is still there.
#![allow(dead_code)]

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "../support/run.rs"]
pub mod run;

pub use run::{Run, Scratch, BIN};

/// The misbehaving MCP server (tests/mcp/SCENARIOS.md).
pub const FAKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/mcp/fake_server.py");

/// The real Python interpreter (`sys.executable`, not a pyenv or asdf shim,
/// which would add variables of its own to a server's environment), or
/// `None` after saying loudly that the calling test does not run.
pub fn python3(test: &str) -> Option<String> {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .stderr(Stdio::inherit())
        .output();
    match out {
        Ok(o) if o.status.success() => {
            let exe = String::from_utf8_lossy(&o.stdout).trim().to_string();
            if !exe.is_empty() && Path::new(&exe).is_file() {
                return Some(exe);
            }
            eprintln!(
                "\n*** SKIPPED {test}: python3 reports no usable sys.executable ({exe:?}) ***\n"
            );
            None
        }
        other => {
            eprintln!(
                "\n*** SKIPPED {test}: python3 is needed for tests/mcp/fake_server.py and could not run ({other:?}) ***\n"
            );
            None
        }
    }
}

/// One run of the binary with the peak resident set size it reached.
#[derive(Debug)]
pub struct Measured {
    /// Exit code, stdout, stderr, time.
    pub run: Run,
    /// `VmHWM` of the contractpin process (KiB), sampled every 2 ms until
    /// it exited (Linux). High-water marks only grow, so the last sample
    /// misses at most the final 2 ms.
    pub peak_kib: u64,
}

/// The `VmHWM` line of `/proc/<pid>/status`, in KiB.
fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs the binary with extra environment variables, sampling its peak RSS;
/// kills it (and fails) after `deadline`.
pub fn cli_measured(args: &[&str], env: &[(&str, &str)], deadline: Duration) -> Measured {
    let t0 = Instant::now();
    let mut child = Command::new(BIN)
        .args(args)
        .env_remove("GITHUB_ACTIONS")
        .env("SOURCE_DATE_EPOCH", "1790000000")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("contractpin runs");
    let pid = child.id();
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let mut peak_kib = 0;
    let status = loop {
        if let Some(k) = vm_hwm_kib(pid) {
            peak_kib = peak_kib.max(k);
        }
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t0.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("contractpin {args:?} still running after {deadline:?} (peak RSS so far {peak_kib} KiB)");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let stdout = String::from_utf8_lossy(&reader.join().unwrap()).into_owned();
    let stderr = String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned();
    Measured {
        run: Run {
            code: status.code().unwrap_or(-1),
            stdout,
            stderr,
            took: t0.elapsed(),
        },
        peak_kib,
    }
}

/// The state letter of `/proc/<pid>/stat` (`None`: no such process).
pub fn proc_state(pid: i32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().next()?.chars().next()
}

/// Whether `pid` names a process that exists (a zombie counts): whether
/// it has a `/proc` entry (Linux).
pub fn exists(pid: i32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Whether `pid` is running (exists and is not a zombie).
pub fn running(pid: i32) -> bool {
    exists(pid) && proc_state(pid).is_some_and(|s| s != 'Z' && s != 'X')
}

/// Waits up to `d` for `cond` to hold.
pub fn eventually(d: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + d;
    loop {
        if cond() {
            return true;
        }
        if Instant::now() > until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Reads a pid file written by a test server (waiting up to 5 s for it).
pub fn read_pid(path: &Path) -> i32 {
    let mut pid = None;
    eventually(Duration::from_secs(5), || {
        pid = std::fs::read_to_string(path)
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok());
        pid.is_some()
    });
    pid.unwrap_or_else(|| panic!("no pid in {}", path.display()))
}

/// SIGKILL to a leftover test process (written by the test's own server a
/// moment ago), so that a failing test leaves nothing behind.
pub fn kill_leftover(pid: i32) {
    if running(pid) {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
}
