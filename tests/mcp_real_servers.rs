//! The MCP client against real MCP servers, installed at pinned versions by
//! `.ci/install-servers.sh` (see tests/mcp/servers.md): npm server-everything
//! (stdio, streamableHttp, sse), server-memory, server-filesystem,
//! server-sequential-thinking, a paging server on the TS SDK, and PyPI mcp
//! 2.3.0 / 1.30.0 servers (stdio, streamable-http with SSE and JSON answers,
//! stateless, legacy sse).
//!
//! For every server, every transport and every protocol version tried must
//! give the same server digest, and that digest must equal the one an
//! independent oracle computed from the captured bytes
//! (tests/mcp/expected-digests.json, section `fixtures`).
//!
//! When node is missing these tests skip, saying so; where
//! `CONTRACTPIN_REQUIRE_TOOLS` is set (scripts/test.sh) they fail instead.
#![cfg(feature = "mcp-http")]

#[path = "support/fixtures.rs"]
mod fixtures;
#[path = "support/tools.rs"]
mod tools;
use fixtures::oracle;
use std::collections::BTreeMap;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use contractpin::mcp::{fetch_tools_list, ClientOptions, Fetched, ServerSpec};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// `rel` under the repository, absolute: on Windows `ROOT` is `/work/...`,
/// relative to the current drive, which a server started in another
/// directory (on another drive) would not find.
fn path(rel: &str) -> PathBuf {
    std::path::absolute(Path::new(ROOT).join(rel)).expect("an absolute path")
}

fn require(rel: &str) -> String {
    let p = path(rel);
    assert!(
        p.exists(),
        "the real MCP test servers are not installed ({} is missing): run `bash .ci/install-servers.sh`",
        p.display()
    );
    p.display().to_string()
}

fn npm_server(name: &str) -> String {
    require(&format!(
        "tests/mcp/node/node_modules/@modelcontextprotocol/{name}/dist/index.js"
    ))
}

fn venv_python(v: u32) -> String {
    require(&format!(".venv-mcp{v}/bin/python"))
}

fn scratch_dir() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "contractpin-real-mcp-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn opts() -> ClientOptions {
    ClientOptions {
        request_timeout: Duration::from_secs(20),
        total_timeout: Duration::from_secs(40),
        ..ClientOptions::default()
    }
}

fn stdio(command: &[&str], env: &[(&str, &str)]) -> ServerSpec {
    ServerSpec::Stdio {
        command: command.iter().map(|s| s.to_string()).collect(),
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        cwd: None,
    }
}

fn http(url: &str) -> ServerSpec {
    ServerSpec::Http {
        url: url.into(),
        headers: vec![],
    }
}

/// One fetch: the digest, with the transport and handshake it used.
struct Got {
    label: String,
    digest: String,
    fetched: Fetched,
}

fn get(label: &str, spec: &ServerSpec, o: &ClientOptions) -> Got {
    let t0 = Instant::now();
    let fetched = fetch_tools_list(spec, o).unwrap_or_else(|e| panic!("{label}: {e}"));
    let digest = contractpin::digest_tools_list(&fetched.pages)
        .unwrap_or_else(|e| panic!("{label}: {e}"))
        .digest
        .to_string();
    eprintln!(
        "{label:<40} {digest}  {} tools, {} page(s), {} via {} {} in {:?}",
        fetched.tool_names_seen,
        fetched.page_count,
        fetched.transport,
        fetched.handshake,
        fetched.protocol_version,
        t0.elapsed()
    );
    assert!(
        fetched.warnings.is_empty(),
        "{label}: {:?}",
        fetched.warnings
    );
    assert_eq!(fetched.skipped_stdout_lines, 0, "{label}");
    Got {
        label: label.into(),
        digest,
        fetched,
    }
}

fn all_equal(name: &str, got: &[Got]) {
    let want = oracle(name);
    for g in got {
        assert_eq!(
            g.digest, want,
            "{}: differs from the oracle's digest of the {name} fixture",
            g.label
        );
    }
}

fn forced(v: &str) -> ClientOptions {
    ClientOptions {
        protocol_version: Some(v.into()),
        ..opts()
    }
}

/// A server process listening on loopback; killed and reaped on drop.
struct Listening {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn wait_for_port(child: &mut Child, port: u16, what: &str) -> bool {
    let until = Instant::now() + Duration::from_secs(30);
    while Instant::now() < until {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return true;
        }
        if let Ok(Some(st)) = child.try_wait() {
            eprintln!("{what} exited early: {st}");
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("{what} did not listen on 127.0.0.1:{port} within 30 s");
}

/// server-everything in `streamableHttp` or `sse` mode, bound to 127.0.0.1
/// by our preload, on a port the preload picks and reports.
fn everything_http(mode: &str) -> Listening {
    let dir = scratch_dir();
    let port_file = dir.join("port");
    let preload = require("tests/mcp/loopback.cjs");
    let mut child = Command::new("node")
        .arg(npm_server("server-everything"))
        .arg(mode)
        .env("PORT", "0")
        .env("CONTRACTPIN_PORT_FILE", &port_file)
        .env("NODE_OPTIONS", format!("--require {preload}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("node runs");
    let until = Instant::now() + Duration::from_secs(30);
    let port = loop {
        if let Some(p) = std::fs::read_to_string(&port_file)
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            break p;
        }
        assert!(
            Instant::now() < until,
            "server-everything {mode} did not report its port"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(wait_for_port(&mut child, port, "server-everything"));
    Listening { child, port, dir }
}

/// A Python SDK server (`py1_server.py` / `py2_server.py`) on a free port.
fn python_http(v: u32, args: &[&str]) -> Listening {
    let python = venv_python(v);
    let script = require(&format!("tests/mcp/py{v}_server.py"));
    for _ in 0..3 {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .unwrap()
            .port();
        let mut child = Command::new(&python)
            .arg(&script)
            .args(args)
            .args(["--port", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python runs");
        if wait_for_port(&mut child, port, "python server") {
            return Listening {
                child,
                port,
                dir: scratch_dir(),
            };
        }
        // The port was taken in between: try another.
        let _ = child.kill();
        let _ = child.wait();
    }
    panic!("py{v}_server.py did not start");
}

// ------------------------------------------------------------------ TS servers

#[test]
fn server_everything_over_stdio_streamable_http_and_sse() {
    if !tools::needs(&["node"]) {
        return;
    }
    let js = npm_server("server-everything");
    let spec = stdio(&["node", &js, "stdio"], &[]);
    let mut got = vec![get("everything stdio", &spec, &opts())];
    for v in ["2024-11-05", "2025-03-26", "2025-06-18"] {
        got.push(get(&format!("everything stdio {v}"), &spec, &forced(v)));
    }
    let server = everything_http("streamableHttp");
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    got.push(get("everything streamableHttp", &http(&url), &opts()));
    got.push(get(
        "everything streamableHttp 2024-11-05",
        &http(&url),
        &forced("2024-11-05"),
    ));
    drop(server);
    let server = everything_http("sse");
    got.push(get(
        "everything sse",
        &http(&format!("http://127.0.0.1:{}/sse", server.port)),
        &opts(),
    ));
    // The user may give the server's root URL: the legacy endpoint is found at /sse.
    got.push(get(
        "everything sse (root url)",
        &http(&format!("http://127.0.0.1:{}", server.port)),
        &opts(),
    ));
    all_equal("everything", &got);
    for g in &got {
        // 13 tools: 12 plus the one it registers on notifications/initialized.
        assert_eq!(g.fetched.tool_names_seen, 13, "{}", g.label);
        assert_eq!(g.fetched.handshake, "initialize", "{}", g.label);
    }
    assert_eq!(got[0].fetched.protocol_version, "2025-11-25");
    assert_eq!(got[1].fetched.protocol_version, "2024-11-05");
    assert_eq!(got[4].fetched.transport, "streamable-http");
    assert_eq!(got[6].fetched.transport, "legacy-sse");
    // The handshake facts a lock records, over every transport and version:
    // serverInfo, and the instructions, which server-everything reads
    // verbatim from its docs/instructions.md.
    let docs = std::path::Path::new(&js)
        .parent()
        .unwrap()
        .join("docs/instructions.md");
    let instructions = std::fs::read_to_string(docs).expect("instructions.md");
    for g in &got {
        let info = g.fetched.server_info.as_ref().expect("serverInfo");
        assert_eq!(info.name, "mcp-servers/everything", "{}", g.label);
        assert!(!info.version.is_empty(), "{}", g.label);
        assert_eq!(
            g.fetched.instructions.as_deref(),
            Some(&instructions[..]),
            "{}",
            g.label
        );
        let facts = g.fetched.facts();
        assert_eq!(
            facts.protocol_version.as_deref(),
            Some(&g.fetched.protocol_version[..])
        );
    }
}

#[test]
fn server_memory_stdio() {
    if !tools::needs(&["node"]) {
        return;
    }
    let js = npm_server("server-memory");
    let dir = scratch_dir();
    let mem = dir.join("memory.jsonl").display().to_string();
    let spec = stdio(&["node", &js], &[("MEMORY_FILE_PATH", &mem)]);
    let got = vec![
        get("memory stdio", &spec, &opts()),
        get("memory stdio 2025-06-18", &spec, &forced("2025-06-18")),
    ];
    all_equal("memory", &got);
    assert_eq!(got[0].fetched.tool_names_seen, 9);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn server_filesystem_stdio() {
    if !tools::needs(&["node"]) {
        return;
    }
    let js = npm_server("server-filesystem");
    let dir = scratch_dir();
    let d = dir.display().to_string();
    let spec = stdio(&["node", &js, &d], &[]);
    let mut got = vec![get("filesystem stdio", &spec, &opts())];
    // The same server started from another working directory.
    let spec = ServerSpec::Stdio {
        command: vec!["node".into(), js.clone(), d.clone()],
        env: BTreeMap::new(),
        cwd: Some(dir.clone()),
    };
    got.push(get("filesystem stdio (cwd)", &spec, &forced("2025-03-26")));
    all_equal("filesystem", &got);
    assert_eq!(got[0].fetched.tool_names_seen, 14);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn server_sequential_thinking_stdio() {
    if !tools::needs(&["node"]) {
        return;
    }
    let js = npm_server("server-sequential-thinking");
    let got = vec![get(
        "sequential-thinking stdio",
        &stdio(&["node", &js], &[]),
        &opts(),
    )];
    all_equal("sequential-thinking", &got);
}

#[test]
fn ts_sdk_paging_server() {
    if !tools::needs(&["node"]) {
        return;
    }
    let js = require("tests/mcp/ts_paged_server.mjs");
    let mut got = Vec::new();
    for (size, pages) in [("1", 5), ("2", 3), ("100", 1)] {
        let g = get(
            &format!("ts-paged stdio page size {size}"),
            &stdio(&["node", &js, size], &[]),
            &opts(),
        );
        assert_eq!(
            (g.fetched.page_count, g.fetched.tool_names_seen),
            (pages, 5),
            "{}",
            g.label
        );
        got.push(g);
    }
    all_equal("ts-paged", &got);
}

// ------------------------------------------------------------------ Python SDK servers

#[test]
fn python_mcp2_every_transport() {
    // The venv's interpreter is python3's.
    if !tools::needs(&["python3"]) {
        return;
    }
    let py = venv_python(2);
    let script = require("tests/mcp/py2_server.py");
    let spec = stdio(&[&py, &script], &[]);
    let mut got = vec![get("py2 stdio", &spec, &opts())];
    assert_eq!(
        (
            got[0].fetched.handshake,
            got[0].fetched.protocol_version.as_str()
        ),
        ("discover", "2026-07-28")
    );
    got.push(get("py2 stdio 2025-11-25", &spec, &forced("2025-11-25")));
    got.push(get("py2 stdio 2024-11-05", &spec, &forced("2024-11-05")));
    for (label, args) in [
        (
            "py2 streamable-http (sse answers)",
            &["--transport", "http"][..],
        ),
        (
            "py2 streamable-http (json answers)",
            &["--transport", "http", "--json-response"][..],
        ),
        (
            "py2 streamable-http (stateless)",
            &["--transport", "http", "--stateless"][..],
        ),
    ] {
        let server = python_http(2, args);
        let url = format!("http://127.0.0.1:{}/mcp", server.port);
        got.push(get(label, &http(&url), &opts()));
        got.push(get(
            &format!("{label} 2025-06-18"),
            &http(&url),
            &forced("2025-06-18"),
        ));
    }
    let server = python_http(2, &["--transport", "sse"]);
    got.push(get(
        "py2 sse",
        &http(&format!("http://127.0.0.1:{}/sse", server.port)),
        &opts(),
    ));
    all_equal("py2", &got);
    assert_eq!(got[3].fetched.handshake, "discover");
    assert_eq!(got[4].fetched.protocol_version, "2025-06-18");
}

#[test]
fn python_mcp1_every_transport() {
    // The venv's interpreter is python3's.
    if !tools::needs(&["python3"]) {
        return;
    }
    let py = venv_python(1);
    let script = require("tests/mcp/py1_server.py");
    let spec = stdio(&[&py, &script], &[]);
    let mut got = vec![get("py1 stdio", &spec, &opts())];
    got.push(get("py1 stdio 2024-11-05", &spec, &forced("2024-11-05")));
    for (label, args) in [
        (
            "py1 streamable-http (sse answers)",
            &["--transport", "http"][..],
        ),
        (
            "py1 streamable-http (json answers)",
            &["--transport", "http", "--json-response"][..],
        ),
    ] {
        let server = python_http(1, args);
        let url = format!("http://127.0.0.1:{}/mcp", server.port);
        got.push(get(label, &http(&url), &opts()));
    }
    let server = python_http(1, &["--transport", "sse"]);
    got.push(get(
        "py1 sse",
        &http(&format!("http://127.0.0.1:{}/sse", server.port)),
        &opts(),
    ));
    // py1 and py2 serve the same tools (different bytes): one digest.
    all_equal("py1", &got);
    assert_eq!(oracle("py1"), oracle("py2"));
    for g in &got {
        assert_eq!(g.fetched.handshake, "initialize", "{}", g.label);
    }
}
