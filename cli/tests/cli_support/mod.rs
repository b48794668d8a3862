//! Shared helpers for the `tests/cli_*.rs` suites: run the built
//! `contractpin` binary with a deadline, temporary directories, the fake MCP
//! server (tests/mcp/fake_server.py) and the independent Python reference
//! digests (cli/tests/cli_support/reference_digest.py).
#![allow(dead_code)]

#[path = "../../../tests/support/tools.rs"]
pub mod tools;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_contractpin")
}

/// The repository root, absolute (on Windows with its drive, and not the
/// verbatim `\\?\` form that `canonicalize` gives, which no `/` may follow).
pub fn root() -> PathBuf {
    // This package is cli/ in the repository.
    let cli = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::path::absolute(cli.parent().expect("the repository root")).expect("the repository root")
}

/// A symbolic link at `link` to the file `target` (on Windows a file
/// symlink, which the CLI must refuse just as it refuses one on Unix);
/// `false`, with a loud skip notice, where the platform made none: Windows
/// without the symlink privilege refuses, and Wine 8 answers success but
/// creates nothing.
pub fn symlink_file(target: impl AsRef<Path>, link: impl AsRef<Path>) -> bool {
    let link = link.as_ref();
    #[cfg(unix)]
    let made = std::os::unix::fs::symlink(target, link);
    #[cfg(windows)]
    let made = std::os::windows::fs::symlink_file(target, link);
    if made.is_ok() && std::fs::symlink_metadata(link).is_ok_and(|m| m.file_type().is_symlink()) {
        return true;
    }
    if cfg!(unix) {
        panic!("symlink {}: {made:?}", link.display());
    }
    let thread = std::thread::current();
    tools::skip_notice(&format!(
        "part of {}: this platform made no symbolic link ({made:?})",
        thread.name().unwrap_or("a test")
    ));
    false
}

/// The fake MCP server script.
pub fn fake_server() -> PathBuf {
    root().join("tests/mcp/fake_server.py")
}

/// The result of one run.
#[derive(Debug)]
pub struct Out {
    /// Exit code (-1 when killed by a signal).
    pub code: i32,
    /// Raw stdout.
    pub stdout: Vec<u8>,
    /// Raw stderr.
    pub stderr: Vec<u8>,
    /// Wall time.
    pub elapsed: Duration,
}

impl Out {
    /// stdout as text.
    pub fn out(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
    /// stderr as text.
    pub fn err(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
    /// Asserts the exit code, showing both streams on failure.
    #[track_caller]
    pub fn code(&self, expected: i32) -> &Out {
        assert_eq!(
            self.code,
            expected,
            "exit code\n--- stdout:\n{}\n--- stderr:\n{}",
            self.out(),
            self.err()
        );
        self
    }
}

/// A command line for the binary.
pub struct Cp {
    cmd: Command,
    stdin: Option<Vec<u8>>,
    timeout: Duration,
}

/// `contractpin ARGS...` (GITHUB_ACTIONS, NO_COLOR and SOURCE_DATE_EPOCH cleared).
pub fn cp<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Cp {
    cp_with(Command::new(bin()), args)
}

/// [`cp`] started by name, as a shell starts it: `contractpin` looked up in
/// `PATH`, which begins with `dir`.
pub fn cp_by_name<S: AsRef<std::ffi::OsStr>>(dir: &Path, args: &[S]) -> Cp {
    let mut path = std::ffi::OsString::from(dir);
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    let mut cmd = Command::new("contractpin");
    cmd.env("PATH", path);
    cp_with(cmd, args)
}

/// [`cp`] with another copy of the binary: `program`.
pub fn cp_as<S: AsRef<std::ffi::OsStr>>(program: &Path, args: &[S]) -> Cp {
    cp_with(Command::new(program), args)
}

fn cp_with<S: AsRef<std::ffi::OsStr>>(mut cmd: Command, args: &[S]) -> Cp {
    cmd.args(args)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("NO_COLOR")
        .env_remove("SOURCE_DATE_EPOCH")
        .current_dir(root());
    Cp {
        cmd,
        stdin: None,
        timeout: Duration::from_secs(60),
    }
}

impl Cp {
    /// Sets an environment variable.
    pub fn env(mut self, k: &str, v: &str) -> Cp {
        self.cmd.env(k, v);
        self
    }
    /// Removes an environment variable.
    pub fn env_remove(mut self, k: &str) -> Cp {
        self.cmd.env_remove(k);
        self
    }
    /// Feeds stdin.
    pub fn stdin(mut self, bytes: &[u8]) -> Cp {
        self.stdin = Some(bytes.to_vec());
        self
    }
    /// Working directory.
    pub fn cwd(mut self, dir: &Path) -> Cp {
        self.cmd.current_dir(dir);
        self
    }
    /// Deadline (the test fails if the binary runs longer).
    pub fn timeout(mut self, secs: u64) -> Cp {
        self.timeout = Duration::from_secs(secs);
        self
    }
    /// Runs to completion (killing it and failing the test at the deadline).
    pub fn run(mut self) -> Out {
        let start = Instant::now();
        self.cmd
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = self.cmd.spawn().expect("spawn contractpin");
        let out = collect(&mut child, self.stdin.take());
        let deadline = start + self.timeout;
        let status = loop {
            if let Some(s) = child.try_wait().expect("wait") {
                break s;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("contractpin did not finish within {:?}", self.timeout);
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let (stdout, stderr) = out();
        Out {
            code: status.code().unwrap_or(-1),
            stdout,
            stderr,
            elapsed: start.elapsed(),
        }
    }
}

type Collector = Box<dyn FnOnce() -> (Vec<u8>, Vec<u8>)>;

/// Starts threads feeding stdin and draining stdout/stderr.
fn collect(child: &mut Child, stdin: Option<Vec<u8>>) -> Collector {
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        });
    }
    let mut so = child.stdout.take().expect("stdout");
    let mut se = child.stderr.take().expect("stderr");
    let t1 = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = so.read_to_end(&mut b);
        b
    });
    let t2 = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = se.read_to_end(&mut b);
        b
    });
    Box::new(move || (t1.join().unwrap_or_default(), t2.join().unwrap_or_default()))
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A temporary directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// A new empty directory.
    pub fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!(
            "contractpin-cli-{}-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed),
            tag
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("mkdir");
        TempDir(p)
    }
    /// A path inside.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
    /// Writes a file inside and returns its path.
    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(name);
        std::fs::write(&p, bytes).expect("write");
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Path as a `String` argument.
pub fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// Reads a file as text.
pub fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
}

/// `python3 tests/mcp/fake_server.py --transport stdio --scenario S EXTRA...`
pub fn fake_cmd(scenario: &str, extra: &[&str]) -> Vec<String> {
    let mut v = vec![
        "python3".to_string(),
        s(&fake_server()),
        "--transport".to_string(),
        "stdio".to_string(),
        "--scenario".to_string(),
        scenario.to_string(),
    ];
    v.extend(extra.iter().map(|x| x.to_string()));
    v
}

/// Runs `python3 ARGS...` and returns its standard output; the test fails,
/// showing Python's stderr, unless it exits 0.
#[track_caller]
pub fn python_stdout<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> String {
    let out = Command::new("python3")
        .args(args)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf8")
}

/// Runs the independent Python reference (`reference_digest.py ARGS...`).
pub fn reference_raw(args: &[&str]) -> String {
    let script = s(&root().join("cli/tests/cli_support/reference_digest.py"));
    let mut all = vec![script.as_str()];
    all.extend_from_slice(args);
    python_stdout(&all)
}

/// The independent Python reference for a file or a fake-server scenario
/// (`["FILE"]` or `["--fake", "SCENARIO"]`): `(server digest, [(tool digest, name)])`.
pub fn reference(args: &[&str]) -> (String, Vec<(String, String)>) {
    let text = reference_raw(args);
    let mut lines = text.lines();
    let server = lines.next().expect("server digest").to_string();
    let tools = lines
        .map(|l| {
            let (d, n) = l.split_once(' ').expect("tool line");
            (d.to_string(), n.to_string())
        })
        .collect();
    (server, tools)
}

/// Whether two JSON texts hold equal values, judged by Python's json module.
pub fn json_equal(a: &str, b: &str) -> bool {
    let dir = TempDir::new("jsoneq");
    let pa = dir.write("a.json", a);
    let pb = dir.write("b.json", b);
    Command::new("python3")
        .args([
            "-c",
            "import json,sys; sys.exit(0 if json.load(open(sys.argv[1],encoding='utf-8')) == json.load(open(sys.argv[2],encoding='utf-8')) else 1)",
        ])
        .arg(pa)
        .arg(pb)
        .status()
        .expect("python3")
        .success()
}

/// A fake MCP server listening on 127.0.0.1 (Streamable HTTP or legacy SSE);
/// killed on drop.
pub struct FakeHttp {
    child: Child,
    /// The endpoint URL.
    pub url: String,
    _dir: TempDir,
}

impl FakeHttp {
    /// Starts `fake_server.py --transport T --scenario S EXTRA...` and waits
    /// for its port.
    pub fn start(transport: &str, scenario: &str, extra: &[&str]) -> FakeHttp {
        let dir = TempDir::new("fakehttp");
        let port_file = dir.path("port");
        let child = Command::new("python3")
            .arg(fake_server())
            .args([
                "--transport",
                transport,
                "--port",
                "0",
                "--scenario",
                scenario,
            ])
            .arg("--port-file")
            .arg(&port_file)
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn fake_server.py");
        let mut server = FakeHttp {
            child,
            url: String::new(),
            _dir: dir,
        };
        let start = Instant::now();
        loop {
            if let Ok(text) = std::fs::read_to_string(&port_file) {
                if let Ok(port) = text.trim().parse::<u16>() {
                    let path = if transport == "sse" { "/sse" } else { "/mcp" };
                    server.url = format!("http://127.0.0.1:{port}{path}");
                    return server;
                }
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("fake_server.py exited early: {status}");
            }
            assert!(
                start.elapsed() < Duration::from_secs(15),
                "fake_server.py did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for FakeHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Replaces one server's stdio command in a lock text (the lock's formatting
/// is not part of any digest, so editing the command keeps the pins valid).
pub fn set_command(lock: &Path, server: &str, argv: &[String]) {
    edit_server_key(lock, server, "command", &json_array(argv));
}

/// Replaces a server's `url` or `path` (a string key) in a lock.
pub fn set_string(lock: &Path, server: &str, key: &str, value: &str) {
    edit_server_key(lock, server, key, &json_str(value));
}

/// JSON string literal (enough for paths, URLs and argv in these tests).
pub fn json_str(v: &str) -> String {
    let mut o = String::from("\"");
    for c in v.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn json_array(v: &[String]) -> String {
    format!(
        "[{}]",
        v.iter().map(|x| json_str(x)).collect::<Vec<_>>().join(", ")
    )
}

/// Rewrites `"key": <value>` inside server `server` of a pretty lock, via
/// Python's json module (an independent reader/writer).
fn edit_server_key(lock: &Path, server: &str, key: &str, value_json: &str) {
    let script = "import json,sys\n\
        p,srv,key,val=sys.argv[1:5]\n\
        d=json.load(open(p,encoding='utf-8'))\n\
        d['servers'][srv][key]=json.loads(val)\n\
        open(p,'w',encoding='utf-8').write(json.dumps(d,indent=2,ensure_ascii=False)+'\\n')\n";
    let st = Command::new("python3")
        .args(["-c", script])
        .arg(lock)
        .args([server, key, value_json])
        .status()
        .expect("python3");
    assert!(st.success());
}

/// Rewrites the JSON file `file` after running Python `code` on it (`d` is
/// the document).
pub fn py_edit_json(file: &Path, code: &str) {
    let script = format!(
        "import json,sys\nd=json.load(open(sys.argv[1],encoding='utf-8'))\n{code}\nopen(sys.argv[1],'w',encoding='utf-8').write(json.dumps(d,indent=2,ensure_ascii=False)+'\\n')\n"
    );
    let st = Command::new("python3")
        .args(["-c", &script])
        .arg(file)
        .status()
        .expect("python3");
    assert!(st.success(), "python edit failed: {code}");
}

/// Writes `dst` = the tools/list `src` after running Python `code` on it
/// (`t` is the list of tools, `d` the document).
pub fn py_edit_tools(src: &Path, dst: &Path, code: &str) {
    let script = format!(
        "import json,sys\nd=json.load(open(sys.argv[1],encoding='utf-8'))\nt=d['tools']\n{code}\nopen(sys.argv[2],'w',encoding='utf-8').write(json.dumps(d,ensure_ascii=False))\n"
    );
    let st = Command::new("python3")
        .args(["-c", &script])
        .arg(src)
        .arg(dst)
        .status()
        .expect("python3");
    assert!(st.success(), "python edit failed: {code}");
}

/// Runs Python `code` with the JSON value of `file` bound to `d`; the test
/// fails unless it exits 0 (assertions in the snippet).
#[track_caller]
pub fn py_check_json(text: &str, code: &str) {
    let dir = TempDir::new("pycheck");
    let f = dir.write("doc.json", text);
    let script =
        format!("import json,sys\nd=json.load(open(sys.argv[1],encoding='utf-8'))\n{code}\n");
    let out = Command::new("python3")
        .args(["-c", &script])
        .arg(&f)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "python check failed: {code}\n{}\n--- document:\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Copies the repository file `rel` next to `lock` (a file must be inside
/// the lock's directory to be pinned) and returns the copy's absolute path.
pub fn beside(lock: &Path, rel: &str) -> String {
    let name = Path::new(rel).file_name().expect("a file name");
    let copy = lock.parent().expect("lock in a directory").join(name);
    std::fs::copy(root().join(rel), &copy).expect("copy fixture");
    s(&copy)
}

/// Makes the file server `server` of `lock` serve the repository file `rel`
/// (copied beside the lock): how a test makes a pinned server drift.
pub fn serve_file(lock: &Path, server: &str, rel: &str) {
    set_string(lock, server, "path", &beside_name(lock, rel));
}

/// As [`beside`], returning the name the lock stores (relative to it).
pub fn beside_name(lock: &Path, rel: &str) -> String {
    beside(lock, rel);
    Path::new(rel)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// Sends SIGINT to `child` (a contractpin started with piped output) and
/// waits for it to end: how a test interrupts a run.
#[cfg(unix)]
pub fn interrupt(child: std::process::Child) -> std::process::Output {
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(sent.success());
    child.wait_with_output().expect("contractpin ends")
}
