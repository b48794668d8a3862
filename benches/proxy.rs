//! What `contractpin proxy` costs (docs/PERFORMANCE.md, "The proxy").
//!
//! 1. **Round-trip latency**: one `tools/call` at a time against a trivial
//!    stdio echo server (this same binary, started with `--echo-server`),
//!    directly and through the proxy: p50 / p99 / p99.9 of each and the
//!    difference (the latency the proxy adds: two more pipe hops and the
//!    parse and gate of each message).
//! 2. **Throughput**: `tools/call` with 32 requests in flight, calls per
//!    second, directly and through the proxy.
//! 3. **Checking a listing**: `guard::guard_page` on one large `tools/list`
//!    page against `digest_tools_list` of the same page (the proxy checks
//!    at the library's digest speed).
//!
//! `scripts/bench-proxy.sh` builds the release binaries and runs this:
//! `cargo bench --bench proxy` with `CONTRACTPIN_BIN` naming a release
//! `contractpin` (default `target/release/contractpin`).
//! `PROXY_BENCH_CALLS` sets the number of measured round trips (20000).

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use contractpin::guard::{guard_page, GuardMode};
use contractpin::json::{self, Node};
use contractpin::lock::{Lock, LockServer, Source};
use contractpin::Limits;

/// The echo server's tools: a handful, as a small real server has.
fn tools_result(n: usize) -> String {
    let tools: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"name":"tool_{i:05}","description":"Tool number {i}: echoes its input back. Use it for anything.","inputSchema":{{"type":"object","properties":{{"text":{{"type":"string","description":"What to echo"}},"count":{{"type":"integer","minimum":1,"maximum":100}}}},"required":["text"]}},"annotations":{{"readOnlyHint":true}}}}"#
            )
        })
        .collect();
    format!(r#"{{"tools":[{}]}}"#, tools.join(","))
}

const ECHO_TOOLS: usize = 8;

/// The trivial server: answers initialize, tools/list and tools/call at once.
fn echo_server() {
    let stdin = std::io::stdin();
    let mut out = BufWriter::new(std::io::stdout().lock());
    let list = tools_result(ECHO_TOOLS);
    let mut nodes = Vec::new();
    for line in stdin.lock().split(b'\n') {
        let Ok(line) = line else { return };
        nodes.clear();
        nodes.resize(json::scratch_needed(&line).max(1), Node::EMPTY);
        let Ok(tape) = json::parse(&line, &mut nodes, &Limits::DEFAULT) else {
            continue;
        };
        let root = tape.root();
        let (Some(id), Some(method)) = (root.get("id"), root.get("method")) else {
            continue;
        };
        let id = &line[id.offset()..id.offset() + id.raw_number().map_or(0, <[u8]>::len)];
        let result = if method.str_eq("initialize") {
            r#"{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"echo","version":"1"}}"#.to_string()
        } else if method.str_eq("tools/list") {
            list.clone()
        } else {
            r#"{"content":[{"type":"text","text":"ok"}],"isError":false}"#.to_string()
        };
        let _ = out.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":");
        let _ = out.write_all(id);
        let _ = out.write_all(b",\"result\":");
        let _ = out.write_all(result.as_bytes());
        let _ = out.write_all(b"}\n");
        let _ = out.flush();
    }
}

/// A connection to a server (direct, or the proxy).
struct Conn {
    child: Child,
    stdin: BufWriter<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    line: Vec<u8>,
}

impl Conn {
    fn start(program: &Path, args: &[&str]) -> Conn {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
        let stdin = BufWriter::new(child.stdin.take().unwrap());
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut c = Conn {
            child,
            stdin,
            stdout,
            line: Vec::new(),
        };
        c.round_trip(0, "initialize", r#"{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}"#);
        c.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        c.round_trip(1, "tools/list", "{}");
        c
    }

    fn send(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    fn call_line(id: u64) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"tool_00003","arguments":{{"text":"hello"}}}}}}"#
        )
    }

    fn recv(&mut self) {
        self.line.clear();
        let n = self.stdout.read_until(b'\n', &mut self.line).unwrap();
        assert!(n > 0, "the server closed its stdout");
        assert!(
            !self.line.windows(8).any(|w| w == b"\"error\":"),
            "an error answer: {}",
            String::from_utf8_lossy(&self.line)
        );
    }

    fn round_trip(&mut self, id: u64, method: &str, params: &str) {
        self.send(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#
        ));
        self.recv();
    }

    /// Latencies of `n` sequential tools/call round trips.
    fn latencies(&mut self, n: usize) -> Vec<Duration> {
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let line = Conn::call_line(10 + i as u64);
            let t0 = Instant::now();
            self.send(&line);
            self.recv();
            out.push(t0.elapsed());
        }
        out
    }

    /// Calls per second with `window` requests in flight.
    fn throughput(&mut self, total: usize, window: usize) -> f64 {
        let t0 = Instant::now();
        let (mut sent, mut got) = (0, 0);
        while got < total {
            while sent < total && sent - got < window {
                let line = Conn::call_line(1_000_000 + sent as u64);
                self.stdin.write_all(line.as_bytes()).unwrap();
                self.stdin.write_all(b"\n").unwrap();
                sent += 1;
            }
            self.stdin.flush().unwrap();
            self.recv();
            got += 1;
        }
        total as f64 / t0.elapsed().as_secs_f64()
    }

    fn close(mut self) {
        drop(self.stdin);
        let _ = self.child.wait();
    }
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// A lock pinning the echo server (this binary with `--echo-server`).
fn write_lock(dir: &Path, me: &Path) -> PathBuf {
    let result = tools_result(ECHO_TOOLS);
    let digests = contractpin::digest_tools_list(result.as_bytes()).expect("valid tools");
    let source = Source::Stdio {
        command: vec![me.display().to_string(), "--echo-server".into()],
        env: Default::default(),
        cwd: None,
    };
    let mut lock = Lock::new("2026-01-01T00:00:00Z");
    lock.servers.insert(
        "echo".into(),
        LockServer::from_server_digest(source, &digests),
    );
    let path = dir.join("contractpin.lock");
    std::fs::write(&path, lock.to_pretty()).unwrap();
    path
}

struct Stats {
    p50: Duration,
    p99: Duration,
    p999: Duration,
}

fn stats(mut v: Vec<Duration>) -> Stats {
    v.sort();
    Stats {
        p50: pct(&v, 0.50),
        p99: pct(&v, 0.99),
        p999: pct(&v, 0.999),
    }
}

fn latency_and_throughput(me: &Path, bin: &Path, lock: &Path) {
    let calls: usize = std::env::var("PROXY_BENCH_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let lock = lock.display().to_string();
    let proxy_args = [
        "proxy",
        "--lock",
        &lock,
        "--name",
        "echo",
        "--log",
        "/dev/null",
    ];
    let direct = || Conn::start(me, &["--echo-server"]);
    let proxied = || Conn::start(bin, &proxy_args);
    // Alternate rounds so that drift in machine load hits both alike.
    let (mut d_all, mut p_all) = (Vec::new(), Vec::new());
    for _ in 0..4 {
        for (conn, all) in [(direct(), &mut d_all), (proxied(), &mut p_all)] {
            let mut conn = conn;
            conn.latencies(calls / 20); // warm-up
            all.extend(conn.latencies(calls / 4));
            conn.close();
        }
    }
    let (d, p) = (stats(d_all), stats(p_all));
    println!("round trip, one tools/call at a time ({calls} each, 4 alternating rounds):");
    println!(
        "  {:<14} {:>9} {:>9} {:>9}",
        "", "p50 us", "p99 us", "p99.9 us"
    );
    for (name, s) in [("direct", &d), ("through proxy", &p)] {
        println!(
            "  {name:<14} {:>9.1} {:>9.1} {:>9.1}",
            us(s.p50),
            us(s.p99),
            us(s.p999)
        );
    }
    println!(
        "  {:<14} {:>9.1} {:>9.1} {:>9.1}",
        "added",
        us(p.p50) - us(d.p50),
        us(p.p99) - us(d.p99),
        us(p.p999) - us(d.p999)
    );
    let total = calls * 2;
    let mut c = direct();
    let d_tp = c.throughput(total, 32);
    c.close();
    let mut c = proxied();
    let p_tp = c.throughput(total, 32);
    c.close();
    println!("throughput, 32 tools/call in flight ({total} calls):");
    println!("  direct         {d_tp:>10.0} calls/s");
    println!(
        "  through proxy  {p_tp:>10.0} calls/s  ({:.0}%)",
        100.0 * p_tp / d_tp
    );
}

fn guard_speed() {
    for n in [100usize, 2000] {
        let page = tools_result(n);
        let digests = contractpin::digest_tools_list(page.as_bytes()).unwrap();
        let pinned = LockServer::from_server_digest(Source::File { path: "x".into() }, &digests);
        let iters = (20_000_000 / page.len()).max(10);
        let time = |f: &dyn Fn()| {
            f();
            let t0 = Instant::now();
            for _ in 0..iters {
                f();
            }
            t0.elapsed() / iters as u32
        };
        let digest = time(&|| {
            std::hint::black_box(contractpin::digest_tools_list(page.as_bytes()).unwrap());
        });
        let guard = time(&|| {
            let d = guard_page(
                &pinned,
                page.as_bytes(),
                GuardMode::Enforce,
                &Limits::DEFAULT,
            )
            .unwrap();
            assert!(d.events.is_empty());
            std::hint::black_box(d);
        });
        let mb = page.len() as f64 / 1e6;
        println!(
            "checking a {n}-tool page ({:.0} KB): digest_tools_list {:>8.1} us ({:>5.0} MB/s), guard_page {:>8.1} us ({:>5.0} MB/s), ratio {:.2}",
            page.len() as f64 / 1e3,
            us(digest),
            mb / digest.as_secs_f64(),
            us(guard),
            mb / guard.as_secs_f64(),
            guard.as_secs_f64() / digest.as_secs_f64()
        );
    }
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("--echo-server") {
        echo_server();
        return;
    }
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing
    // useful: run only when benchmarking.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let me = std::env::current_exe().expect("own path");
    let bin = std::env::var_os("CONTRACTPIN_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/contractpin")
        });
    assert!(
        bin.exists(),
        "no {} (build it: cargo build --release -p contractpin-cli)",
        bin.display()
    );
    let dir = std::env::temp_dir().join(format!("contractpin-bench-proxy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let lock = write_lock(&dir, &me);
    guard_speed();
    latency_and_throughput(&me, &bin, &lock);
    let _ = std::fs::remove_dir_all(&dir);
}
