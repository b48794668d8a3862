//! Helpers for the hardening tests (`tests/limits.rs`, `tests/secrets.rs`)
//! and the proxy tests over HTTP (`HttpServer`):
//! scratch directories and running the `contractpin` binary with a deadline.
#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_contractpin");

/// A fresh scratch directory, removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    /// A new empty directory.
    pub fn new() -> Scratch {
        static N: AtomicUsize = AtomicUsize::new(0);
        let d = std::env::temp_dir().join(format!(
            "contractpin-hardening-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
    /// A path inside it.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch::new()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The outcome of one run of the binary.
#[derive(Debug)]
pub struct Run {
    /// Exit code (-1 when killed by a signal).
    pub code: i32,
    /// stdout, lossily decoded.
    pub stdout: String,
    /// stderr, lossily decoded.
    pub stderr: String,
    /// Wall time.
    pub took: Duration,
}

/// Runs the binary, killing it (and failing) after `deadline`.
pub fn cli(args: &[&str], deadline: Duration) -> Run {
    cli_env(args, &[], deadline)
}

/// Runs the binary with extra environment variables.
pub fn cli_env(args: &[&str], env: &[(&str, &str)], deadline: Duration) -> Run {
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
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        out.read_to_end(&mut s).unwrap();
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        err.read_to_end(&mut s).unwrap();
        s
    });
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t0.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("contractpin {args:?} still running after {deadline:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let stdout = String::from_utf8_lossy(&reader.join().unwrap()).into_owned();
    let stderr = String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned();
    Run {
        code: status.code().unwrap_or(-1),
        stdout,
        stderr,
        took: t0.elapsed(),
    }
}

/// A loopback HTTP server process started by a test, killed on drop.
pub struct HttpServer {
    child: Child,
    /// The MCP endpoint, `http://127.0.0.1:<port>/mcp`.
    pub url: String,
    _dir: Scratch,
}

impl HttpServer {
    /// Runs the command `build` makes from a port-file path, and waits (up to
    /// 15 s) until the server writes the port it bound into that file.
    pub fn start(build: impl FnOnce(&Path) -> Command) -> HttpServer {
        let dir = Scratch::new();
        let port_file = dir.path("port");
        let child = build(&port_file)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 runs");
        let until = Instant::now() + Duration::from_secs(15);
        let port = loop {
            if let Some(p) = std::fs::read_to_string(&port_file)
                .ok()
                .and_then(|p| p.trim().parse::<u16>().ok())
            {
                break p;
            }
            assert!(Instant::now() < until, "the test http server did not start");
            std::thread::sleep(Duration::from_millis(20));
        };
        HttpServer {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
            _dir: dir,
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
