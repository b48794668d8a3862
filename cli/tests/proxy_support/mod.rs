//! Helpers of the `contractpin proxy` suites (`cli/tests/proxy_*.rs`):
//! pinning a server with `contractpin init`, a proxy session driven line by
//! line from the test, running the SDK client scripts of
//! `tests/mcp/clients/` and reading their JSON output with the crate's own
//! parser.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use contractpin::json::{self, Node, Tag, Value};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_contractpin");

/// The repository root, absolute (on Windows with its drive, and not the
/// verbatim `\\?\` form that `canonicalize` gives, which no `/` may follow).
pub fn root() -> PathBuf {
    let cli = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::path::absolute(cli.parent().expect("the repository root")).expect("the repository root")
}

/// A path in the repository.
pub fn repo(rel: &str) -> String {
    root().join(rel).display().to_string()
}

/// The fake server script.
pub fn fake() -> String {
    repo("tests/mcp/fake_server.py")
}

/// server-everything's entry point.
pub fn everything() -> String {
    repo("tests/mcp/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

/// The real Python interpreter (not a shim that adds variables).
pub fn python() -> String {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A scratch directory, removed on drop.
pub struct Dir(pub PathBuf);

impl Dir {
    /// A new empty directory.
    pub fn new(tag: &str) -> Dir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let d = std::env::temp_dir().join(format!(
            "contractpin-proxy-{}-{}-{tag}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("mkdir");
        Dir(d)
    }
    /// A path inside, as text.
    pub fn path(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }
    /// The lock's path.
    pub fn lock(&self) -> String {
        self.path("contractpin.lock")
    }
    /// Reads a file inside (empty when missing).
    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.0.join(name)).unwrap_or_default()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One finished run of the binary.
#[derive(Debug)]
pub struct Done {
    /// Exit code (-1: killed by a signal).
    pub code: i32,
    /// stdout.
    pub stdout: String,
    /// stderr.
    pub stderr: String,
    /// Wall time.
    pub took: Duration,
}

/// Runs the binary to completion (stdin from `input`), failing after `secs`.
pub fn cp(args: &[&str], input: &[u8], secs: u64) -> Done {
    let t0 = Instant::now();
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("contractpin runs");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let (out, err) = drain(&mut child);
    let code = wait(&mut child, Duration::from_secs(secs)).unwrap_or_else(|| {
        let _ = child.kill();
        let _ = child.wait();
        panic!("contractpin {args:?} still running after {secs} s")
    });
    Done {
        code,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
        took: t0.elapsed(),
    }
}

type Text = std::thread::JoinHandle<String>;

fn drain(child: &mut Child) -> (Text, Text) {
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let a = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = so.read_to_end(&mut b);
        String::from_utf8_lossy(&b).into_owned()
    });
    let b = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = se.read_to_end(&mut b);
        String::from_utf8_lossy(&b).into_owned()
    });
    (a, b)
}

/// Waits up to `d` for the child; its exit code (-1 for a signal).
pub fn wait(child: &mut Child, d: Duration) -> Option<i32> {
    let until = Instant::now() + d;
    loop {
        if let Some(s) = child.try_wait().expect("wait") {
            return Some(s.code().unwrap_or(-1));
        }
        if Instant::now() > until {
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Pins `command` as `name` in `dir`'s lock with `contractpin init`.
pub fn pin(dir: &Dir, name: &str, command: &[&str]) {
    let lock = dir.lock();
    let mut args = vec!["init", "--lock", &lock, "--name", name, "--"];
    args.extend_from_slice(command);
    let run = cp(&args, b"", 60);
    assert_eq!(run.code, 0, "init: {run:#?}");
}

/// `proxy --lock LOCK --name NAME EXTRA...`.
pub fn proxy_args(dir: &Dir, name: &str, extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = vec![
        "proxy".into(),
        "--lock".into(),
        dir.lock(),
        "--name".into(),
        name.into(),
    ];
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

/// A running `contractpin proxy` driven line by line.
pub struct Session {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Option<Vec<u8>>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Told once the proxy's stderr is at its end (every writer closed it).
    stderr_end: mpsc::Receiver<()>,
    /// Every byte read from stdout (to check that lines are whole).
    pub raw_stdout: Arc<Mutex<Vec<u8>>>,
}

impl Session {
    /// Starts the proxy with `args`.
    pub fn start(args: &[String]) -> Session {
        Session::spawn(BIN, args)
    }

    /// Starts any program (a server, driven raw by the test).
    pub fn spawn(program: &str, args: &[String]) -> Session {
        let mut child = Command::new(program)
            .args(args)
            .current_dir(root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("contractpin proxy runs");
        let stdin = child.stdin.take();
        let mut out = child.stdout.take().unwrap();
        let mut err = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        let raw_stdout = Arc::new(Mutex::new(Vec::new()));
        let raw = raw_stdout.clone();
        std::thread::spawn(move || {
            let mut pending = Vec::new();
            let mut buf = [0u8; 65536];
            loop {
                match out.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        raw.lock().unwrap().extend_from_slice(&buf[..n]);
                        pending.extend_from_slice(&buf[..n]);
                        while let Some(i) = pending.iter().position(|&b| b == b'\n') {
                            let line: Vec<u8> = pending.drain(..=i).collect();
                            let _ = tx.send(Some(line[..line.len() - 1].to_vec()));
                        }
                    }
                }
            }
            let _ = tx.send(None);
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let e = stderr.clone();
        let (ended, stderr_end) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                e.lock().unwrap().extend_from_slice(&buf[..n]);
            }
            let _ = ended.send(());
        });
        Session {
            child,
            stdin,
            lines,
            stderr,
            stderr_end,
            raw_stdout,
        }
    }

    /// Writes one line (a newline is added).
    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        let _ = stdin.write_all(line.as_bytes());
        let _ = stdin.write_all(b"\n");
        let _ = stdin.flush();
    }

    /// Writes raw bytes.
    pub fn send_raw(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes)?;
        stdin.flush()
    }

    /// The next stdout line within `d` (`None`: end of stdout or timeout).
    pub fn recv(&self, d: Duration) -> Option<String> {
        match self.lines.recv_timeout(d) {
            Ok(Some(l)) => Some(String::from_utf8_lossy(&l).into_owned()),
            _ => None,
        }
    }

    /// The next line holding `needle` within `d`, skipping others.
    pub fn recv_with(&self, needle: &str, d: Duration) -> String {
        self.recv_where(|l| l.contains(needle), needle, d)
    }

    /// The next line for which `pred` holds within `d`, skipping others.
    pub fn recv_where(&self, pred: impl Fn(&str) -> bool, what: &str, d: Duration) -> String {
        let needle = what;
        let until = Instant::now() + d;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.recv(left) {
                Some(l) if pred(&l) => return l,
                Some(_) => {}
                None => panic!(
                    "no line with {needle:?} within {d:?}; stderr:\n{}",
                    self.stderr()
                ),
            }
        }
    }

    /// A request and its answer (the line with its id).
    pub fn call(&mut self, id: u32, method: &str, params: &str) -> String {
        self.send(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#
        ));
        self.answer(id, Duration::from_secs(20))
    }

    /// The answer to request `id` (a line with that id and no method).
    pub fn answer(&self, id: u32, d: Duration) -> String {
        let (a, b) = (format!(r#""id":{id},"#), format!(r#""id":{id}}}"#));
        self.recv_where(
            |l| (l.contains(&a) || l.contains(&b)) && !l.contains(r#""method""#),
            &a,
            d,
        )
    }

    /// initialize + notifications/initialized, as client `name`.
    pub fn handshake(&mut self, name: &str) -> String {
        let init = self.call(
            0,
            "initialize",
            &format!(
                r#"{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"{name}","version":"1"}}}}"#
            ),
        );
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        init
    }

    /// Takes the proxy's stdin (to write from another thread).
    pub fn take_stdin(&mut self) -> ChildStdin {
        self.stdin.take().expect("stdin open")
    }

    /// Closes the proxy's stdin.
    pub fn close(&mut self) {
        self.stdin = None;
    }

    /// Waits for the exit code, failing after `d`.
    pub fn exit(&mut self, d: Duration) -> i32 {
        match wait(&mut self.child, d) {
            Some(c) => {
                // The proxy is gone, but its last words may still be in the
                // pipe: read them before anyone looks at `stderr()` (a
                // server the proxy left behind keeps the pipe open, so this
                // waits a bounded time).
                let _ = self.stderr_end.recv_timeout(Duration::from_secs(5));
                c
            }
            None => {
                let _ = self.child.kill();
                panic!(
                    "the proxy did not exit within {d:?}; stderr:\n{}",
                    self.stderr()
                );
            }
        }
    }

    /// What the proxy wrote to stderr so far.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    /// Sends a signal to the proxy.
    pub fn signal(&self, sig: &str) {
        let _ = Command::new("kill")
            .args([&format!("-{sig}"), &self.child.id().to_string()])
            .status();
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The SDK client scripts.
#[derive(Clone, Copy, Debug)]
pub enum Sdk {
    /// `@modelcontextprotocol/sdk` 1.32.2 (node).
    Ts,
    /// `mcp` 1.30.0 (`.venv-mcp1`).
    Py1,
    /// `mcp` 2.3.0 (`.venv-mcp2`).
    Py2,
}

impl Sdk {
    /// All three.
    pub const ALL: [Sdk; 3] = [Sdk::Ts, Sdk::Py1, Sdk::Py2];

    /// The interpreter and script.
    pub fn command(self) -> (String, String) {
        match self {
            Sdk::Ts => ("node".into(), repo("tests/mcp/clients/ts_client.mjs")),
            Sdk::Py1 => (
                repo(".venv-mcp1/bin/python"),
                repo("tests/mcp/clients/py_client.py"),
            ),
            Sdk::Py2 => (
                repo(".venv-mcp2/bin/python"),
                repo("tests/mcp/clients/py_client.py"),
            ),
        }
    }

    /// The files it needs.
    pub fn needs(self) -> Vec<String> {
        match self {
            Sdk::Ts => vec![
                "node".into(),
                repo("tests/mcp/node/node_modules/@modelcontextprotocol/sdk/package.json"),
            ],
            // The venvs' interpreters are python3's (Linux programs under Wine).
            Sdk::Py1 => vec!["python3".into(), repo(".venv-mcp1/bin/python")],
            Sdk::Py2 => vec!["python3".into(), repo(".venv-mcp2/bin/python")],
        }
    }
}

/// A JSON string literal.
pub fn js(s: &str) -> String {
    let mut out = Vec::new();
    contractpin::jcs::write_str(&mut out, s);
    String::from_utf8(out).unwrap()
}

/// A JSON array of strings.
pub fn js_list(items: &[String]) -> String {
    let parts: Vec<String> = items.iter().map(|s| js(s)).collect();
    format!("[{}]", parts.join(","))
}

/// Runs `sdk`'s client against `command` with `steps` (a JSON array) and
/// `extra` plan members (`"clientName":...`); its JSON output.
pub fn run_client(sdk: Sdk, dir: &Dir, command: &[String], steps: &str, extra: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    let plan = dir.path(&format!("plan-{}.json", N.fetch_add(1, Ordering::Relaxed)));
    let sep = if extra.is_empty() { "" } else { "," };
    std::fs::write(
        &plan,
        format!(
            r#"{{"command":{},"args":{},"steps":{steps}{sep}{extra}}}"#,
            js(&command[0]),
            js_list(&command[1..])
        ),
    )
    .unwrap();
    let (interp, script) = sdk.command();
    let mut child = Command::new(interp)
        .args([&script, &plan])
        .current_dir(root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the client runs");
    let (out, err) = drain(&mut child);
    let code = wait(&mut child, Duration::from_secs(90));
    if code.is_none() {
        let _ = child.kill();
    }
    let (out, err) = (
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default(),
    );
    assert_eq!(code, Some(0), "{sdk:?} client: stdout {out}\nstderr {err}");
    assert!(
        out.trim_end().ends_with('}'),
        "{sdk:?} client printed no result: {out}\nstderr {err}"
    );
    eprintln!("--- {sdk:?} client stderr:\n{err}");
    out.trim_end().to_string()
}

/// Canonical JSON of `text` (for comparing outputs).
pub fn canonical(text: &str) -> String {
    String::from_utf8(contractpin::canonicalize(text.as_bytes()).expect("valid JSON")).unwrap()
}

/// Runs `f` on the value at `path` of the JSON `text` (`None` when absent);
/// path items are member names or array indexes.
pub fn at<R>(text: &str, path: &[&str], f: impl FnOnce(Option<Value<'_>>) -> R) -> R {
    let mut nodes = vec![Node::EMPTY; json::scratch_needed(text.as_bytes())];
    let tape = json::parse(text.as_bytes(), &mut nodes, &contractpin::Limits::DEFAULT)
        .unwrap_or_else(|e| panic!("invalid JSON ({e}): {text}"));
    let mut v = Some(tape.root());
    for p in path {
        v = v.and_then(|x| match x.tag() {
            Tag::Array => p.parse::<usize>().ok().and_then(|i| x.elements().nth(i)),
            _ => x.get(p),
        });
    }
    f(v)
}

/// The text of a string value.
pub fn string(v: Value<'_>) -> String {
    let raw = v.raw_str().expect("a string");
    let mut buf = vec![0u8; raw.len()];
    v.decode_str(&mut buf).expect("decodes").to_string()
}

/// The canonical JSON of the value at `path`.
pub fn json_at(text: &str, path: &[&str]) -> Option<String> {
    at(text, path, |v| {
        v.map(|v| {
            let mut out = Vec::new();
            contractpin::jcs::write(&mut out, v).unwrap();
            String::from_utf8(out).unwrap()
        })
    })
}

/// The tool names of a `{"tools":[...]}` value at `path`.
pub fn tool_names(text: &str, path: &[&str]) -> Vec<String> {
    at(text, path, |v| {
        let v = v.unwrap_or_else(|| panic!("nothing at {path:?}: {text}"));
        let tools = v
            .get("tools")
            .unwrap_or_else(|| panic!("no tools at {path:?}: {text}"));
        tools
            .elements()
            .map(|t| string(t.get("name").expect("a name")))
            .collect()
    })
}

/// The error code of a step result (`None`: it succeeded).
pub fn error_code(text: &str, step: usize) -> Option<i64> {
    let s = step.to_string();
    json_at(text, &["steps", &s, "error", "code"]).map(|c| c.parse().expect("a code"))
}

/// Lines of a JSON-lines log with `status`.
pub fn log_lines<'a>(log: &'a str, status: &str) -> Vec<&'a str> {
    let needle = format!(r#""status":"{status}""#);
    log.lines().filter(|l| l.contains(&needle)).collect()
}

/// The lines a `--record` file holds for `method` (stdin lines received).
pub fn recorded(record: &str, method: &str) -> Vec<String> {
    let needle = format!(r#"\"method\": \"{method}\""#);
    let needle2 = format!(r#"\"method\":\"{method}\""#);
    record
        .lines()
        .filter(|l| l.contains(&needle) || l.contains(&needle2))
        .map(String::from)
        .collect()
}

/// Asserts two JSON texts are equal as canonical JSON, showing where they differ.
#[track_caller]
pub fn assert_same_json(got: &str, want: &str, what: &str) {
    let (g, w) = (canonical(got), canonical(want));
    if g == w {
        return;
    }
    let at = g
        .bytes()
        .zip(w.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(g.len().min(w.len()));
    let from = at.saturating_sub(200);
    let show = |s: &str| {
        s.get(from..(at + 200).min(s.len()))
            .unwrap_or("")
            .to_string()
    };
    panic!(
        "{what}: differ at byte {at}\n got: ...{}\nwant: ...{}",
        show(&g),
        show(&w)
    );
}
