//! The MCP client against our misbehaving test server, tests/mcp/fake_server.py
//! (scenarios: tests/mcp/SCENARIOS.md), over stdio, Streamable HTTP and the
//! legacy HTTP+SSE transport. Every case asserts the outcome (tools and
//! warnings, or the error kind) and that it finished within its time budget.
//! Expected digests come from tests/mcp/expected-digests.json (an independent
//! oracle: rfc8785 + hashlib). Unix only: the test server is started as a
//! Unix process and its exit checked with `kill(pid, 0)`.
#![cfg(all(feature = "mcp-http", unix))]

#[path = "support/tools.rs"]
mod tools;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use contractpin::json::{self, Node, Tag, Value};
use contractpin::mcp::{
    fetch_tools_list, ClientOptions, Fetched, McpError, McpErrorKind, ServerSpec,
};

const FAKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp/fake_server.py");
const EXPECTED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/mcp/expected-digests.json"
);

// ------------------------------------------------------------------ helpers

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tr {
    Stdio,
    Http,
    Sse,
}
use Tr::*;

const ALL: [Tr; 3] = [Stdio, Http, Sse];

fn scratch_dir() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "contractpin-mcp-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A fake server (stdio: just the spec; http/sse: a running process, killed on drop).
struct Fake {
    spec: ServerSpec,
    child: Option<Child>,
    dir: PathBuf,
}

impl Fake {
    fn start(t: Tr, scenario: &str, extra: &[&str]) -> Fake {
        let dir = scratch_dir();
        let record = dir.join("record.jsonl");
        let mut args: Vec<String> = vec![
            FAKE.into(),
            "--scenario".into(),
            scenario.into(),
            "--record".into(),
            record.display().to_string(),
            "--pid-file".into(),
            dir.join("pid").display().to_string(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        if t == Stdio {
            let mut command = vec!["python3".to_string()];
            command.extend(args);
            command.extend(["--transport".into(), "stdio".into()]);
            return Fake {
                spec: ServerSpec::Stdio {
                    command,
                    env: BTreeMap::new(),
                    cwd: None,
                },
                child: None,
                dir,
            };
        }
        let port_file = dir.join("port");
        let transport = if t == Http { "http" } else { "sse" };
        let child = Command::new("python3")
            .args(&args)
            .args(["--transport", transport, "--port", "0", "--port-file"])
            .arg(&port_file)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 runs");
        let mut fake = Fake {
            spec: ServerSpec::File {
                path: PathBuf::new(),
            },
            child: Some(child),
            dir,
        };
        let until = Instant::now() + Duration::from_secs(15);
        let port = loop {
            if let Ok(p) = std::fs::read_to_string(&port_file) {
                if let Ok(p) = p.trim().parse::<u16>() {
                    break p;
                }
            }
            assert!(
                Instant::now() < until,
                "fake server ({transport}) did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        let path = if t == Http { "/mcp" } else { "/sse" };
        fake.spec = ServerSpec::Http {
            url: format!("http://127.0.0.1:{port}{path}"),
            headers: Vec::new(),
        };
        fake
    }

    fn url(&self) -> String {
        match &self.spec {
            ServerSpec::Http { url, .. } => url.clone(),
            _ => panic!("not http"),
        }
    }

    fn with_headers(mut self, h: &[(&str, &str)]) -> Fake {
        if let ServerSpec::Http { headers, .. } = &mut self.spec {
            headers.extend(h.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        }
        self
    }

    /// The JSON lines the server recorded.
    fn record(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.join("record.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(String::from)
            .collect()
    }

    fn pid(&self) -> i32 {
        std::fs::read_to_string(self.dir.join("pid"))
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        if let Some(c) = &mut self.child {
            let _ = c.kill();
            let _ = c.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn opts() -> ClientOptions {
    ClientOptions {
        request_timeout: Duration::from_secs(10),
        total_timeout: Duration::from_secs(30),
        shutdown_grace: Duration::from_millis(500),
        ..ClientOptions::default()
    }
}

/// Runs a fetch and checks it took less than `limit`.
fn timed(limit: Duration, spec: &ServerSpec, o: &ClientOptions) -> Result<Fetched, McpError> {
    let t0 = Instant::now();
    let r = fetch_tools_list(spec, o);
    let took = t0.elapsed();
    assert!(
        took < limit,
        "took {took:?}, limit {limit:?}: {:?}",
        r.as_ref().err()
    );
    r
}

fn fetch(t: Tr, scenario: &str, extra: &[&str]) -> Result<Fetched, McpError> {
    let f = Fake::start(t, scenario, extra);
    timed(Duration::from_secs(15), &f.spec, &opts())
}

fn digest(f: &Fetched) -> String {
    contractpin::digest_tools_list(&f.pages)
        .expect("a valid tools/list")
        .digest
        .to_string()
}

fn tool_names(f: &Fetched) -> Vec<String> {
    contractpin::digest_tools_list(&f.pages)
        .unwrap()
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect()
}

fn get<'a>(v: Value<'a>, key: &str) -> Value<'a> {
    v.get(key).unwrap_or_else(|| panic!("no {key}"))
}

/// The oracle's server digest of a fake scenario (following `same_as`).
fn expected(scenario: &str) -> String {
    let text = std::fs::read(EXPECTED).unwrap();
    let mut nodes = vec![Node::EMPTY; json::scratch_needed(&text)];
    let tape = json::parse(&text, &mut nodes, &contractpin::Limits::DEFAULT).unwrap();
    let fake = get(tape.root(), "fake_server");
    let mut name = scenario.to_string();
    loop {
        let entry = get(fake, &name);
        if let Some(d) = entry.get("digest") {
            return d.as_plain_str().unwrap().to_string();
        }
        name = get(entry, "same_as").as_plain_str().unwrap().to_string();
    }
}

fn ok_digest() -> String {
    let d = expected("ok");
    assert_eq!(
        d,
        "sha256:1488abadc0c9bb498c9b9aa75db2e6f70427475207f14fbdefa1463a51f1b988"
    );
    d
}

fn kind(r: Result<Fetched, McpError>) -> (McpErrorKind, String) {
    match r {
        Ok(f) => panic!(
            "expected an error, got {} tools over {} ({})",
            f.tool_names_seen, f.transport, f.handshake
        ),
        Err(e) => (e.kind().clone(), e.to_string()),
    }
}

fn ok(r: Result<Fetched, McpError>) -> Fetched {
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn process_gone(pid: i32) -> bool {
    let until = Instant::now() + Duration::from_secs(2);
    loop {
        // SAFETY: kill with signal 0 only checks whether the process exists.
        let alive = unsafe { libc::kill(pid, 0) } == 0;
        if !alive {
            return true;
        }
        if Instant::now() > until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn json_lines(lines: &[String]) -> Vec<(String, String, BTreeMap<String, String>, String)> {
    // (kind, method, headers, body) of each recorded event.
    let mut out = Vec::new();
    for l in lines {
        let mut nodes = vec![Node::EMPTY; json::scratch_needed(l.as_bytes())];
        let tape = json::parse(l.as_bytes(), &mut nodes, &contractpin::Limits::DEFAULT).unwrap();
        let r = tape.root();
        let s = |k: &str| {
            r.get(k)
                .and_then(|v| v.as_plain_str())
                .unwrap_or("")
                .to_string()
        };
        let mut headers = BTreeMap::new();
        if let Some(h) = r.get("headers") {
            for (k, v) in h.members() {
                if v.tag() == Tag::String {
                    headers.insert(
                        k.as_plain_str().unwrap().to_ascii_lowercase(),
                        v.as_plain_str().unwrap_or("").to_string(),
                    );
                }
            }
        }
        let body = match r.get("body").or_else(|| r.get("line")) {
            Some(b) => {
                let mut buf = vec![0u8; b.raw_str().map_or(0, <[u8]>::len)];
                b.decode_str(&mut buf).unwrap_or("").to_string()
            }
            None => String::new(),
        };
        out.push((s("kind"), s("method"), headers, body));
    }
    out
}

// ------------------------------------------------------------------ the baseline

#[test]
fn ok_over_every_transport() {
    if !tools::needs(&["python3"]) {
        return;
    }
    for t in ALL {
        let f = ok(fetch(t, "ok", &[]));
        assert_eq!(digest(&f), ok_digest(), "{t:?}");
        assert_eq!(f.page_count, 1);
        assert_eq!(f.tool_names_seen, 3);
        assert_eq!(f.handshake, "initialize");
        assert_eq!(f.protocol_version, "2025-11-25");
        assert!(f.warnings.is_empty(), "{t:?}: {:?}", f.warnings);
        assert_eq!(f.skipped_stdout_lines, 0);
        let want = match t {
            Stdio => "stdio",
            Http => "streamable-http",
            Sse => "legacy-sse",
        };
        assert_eq!(f.transport, want);
        // The pages are our canonical re-serialization, not the server's bytes.
        let canon = contractpin::canonicalize(&f.pages).unwrap();
        assert_eq!(canon, f.pages);
    }
}

#[test]
fn ok_with_sse_answers_and_paging() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let f = ok(fetch(Http, "ok", &["--http-answer", "sse"]));
    assert_eq!(digest(&f), ok_digest());
    for t in ALL {
        let f = ok(fetch(t, "ok", &["--page-size", "2"]));
        assert_eq!((f.page_count, f.tool_names_seen), (2, 3), "{t:?}");
        assert_eq!(digest(&f), ok_digest());
    }
}

#[test]
fn modern_discover_handshake() {
    if !tools::needs(&["python3"]) {
        return;
    }
    for t in ALL {
        let f = ok(fetch(
            t,
            "ok",
            &["--discover", "--strict-init", "--page-size", "2"],
        ));
        assert_eq!(f.handshake, "discover", "{t:?}");
        assert_eq!(f.protocol_version, "2026-07-28");
        assert_eq!(f.page_count, 2);
        assert_eq!(
            digest(&f),
            ok_digest(),
            "resultType/ttlMs/cacheScope/_meta are not part of the digest"
        );
    }
}

#[test]
fn discover_fallbacks_like_real_servers() {
    if !tools::needs(&["node"]) {
        return;
    }
    // mcp 1.x answers server/discover with -32602; the TS SDK over HTTP with 400 -32000.
    for t in ALL {
        let f = ok(fetch(
            t,
            "ok",
            &["--discover-error", "-32602", "--strict-init"],
        ));
        assert_eq!(
            (f.handshake, f.protocol_version.as_str()),
            ("initialize", "2025-11-25"),
            "{t:?}"
        );
    }
    let f = ok(fetch(
        Http,
        "ok",
        &[
            "--discover-error",
            "-32000",
            "--discover-http-status",
            "404",
        ],
    ));
    assert_eq!(f.handshake, "initialize");
    assert_eq!(f.transport, "streamable-http");
}

#[test]
fn version_negotiation() {
    if !tools::needs(&["python3"]) {
        return;
    }
    for (versions, want) in [
        ("2024-11-05", "2024-11-05"),
        ("2024-11-05,2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
    ] {
        for t in [Stdio, Http] {
            let f = ok(fetch(t, "ok", &["--versions", versions]));
            assert_eq!(f.protocol_version, want, "{t:?} {versions}");
            assert_eq!(digest(&f), ok_digest());
        }
    }
    // A server that insists on a version we do not speak.
    for t in [Stdio, Http] {
        let (k, msg) = kind(fetch(t, "ok", &["--versions", "2099-01-01"]));
        assert_eq!(k, McpErrorKind::Protocol, "{msg}");
        assert!(msg.contains("2099-01-01"), "{msg}");
    }
}

#[test]
fn forced_protocol_versions() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let f = Fake::start(Stdio, "ok", &[]);
    let mut o = opts();
    o.protocol_version = Some("2025-03-26".into());
    let got = ok(timed(Duration::from_secs(10), &f.spec, &o));
    assert_eq!(
        (got.handshake, got.protocol_version.as_str()),
        ("initialize", "2025-03-26")
    );
    // The server only speaks 2025-06-18: forcing 2025-03-26 fails.
    let f = Fake::start(Stdio, "ok", &["--versions", "2025-06-18"]);
    let (k, _) = kind(timed(Duration::from_secs(10), &f.spec, &o));
    assert_eq!(k, McpErrorKind::Protocol);
    // Forcing 2026-07-28 on a server without server/discover fails; with it, works.
    o.protocol_version = Some("2026-07-28".into());
    let f = Fake::start(Stdio, "ok", &[]);
    assert_eq!(
        kind(timed(Duration::from_secs(10), &f.spec, &o)).0,
        McpErrorKind::Protocol
    );
    let f = Fake::start(Http, "ok", &["--discover"]);
    assert_eq!(
        ok(timed(Duration::from_secs(10), &f.spec, &o)).handshake,
        "discover"
    );
    // An unknown version is a usage problem.
    o.protocol_version = Some("2030-01-01".into());
    let e = timed(Duration::from_secs(10), &f.spec, &o).unwrap_err();
    assert_eq!(e.kind(), &McpErrorKind::Spec);
    assert!(e.is_usage());
}

// ------------------------------------------------------------------ contract changes

#[test]
fn drift_added_removed() {
    if !tools::needs(&["python3"]) {
        return;
    }
    for t in ALL {
        for sc in ["drift-description", "added-tool", "removed-tool"] {
            let f = ok(fetch(t, sc, &[]));
            assert_eq!(digest(&f), expected(sc), "{t:?} {sc}");
            assert_ne!(digest(&f), ok_digest());
        }
    }
}

// ------------------------------------------------------------------ pagination

#[test]
fn one_per_page() {
    if !tools::needs(&["python3"]) {
        return;
    }
    for t in ALL {
        let f = ok(fetch(t, "one-per-page", &[]));
        assert_eq!((f.page_count, f.tool_names_seen), (3, 3), "{t:?}");
        assert_eq!(digest(&f), ok_digest());
        assert!(f.warnings.is_empty());
    }
}

#[test]
fn stuck_cursor() {
    if !tools::needs(&["python3"]) {
        return;
    }
    for t in ALL {
        let fake = Fake::start(t, "stuck-cursor", &[]);
        let (k, msg) = kind(timed(Duration::from_secs(10), &fake.spec, &opts()));
        assert_eq!(k, McpErrorKind::StuckCursor, "{t:?}: {msg}");
        assert!(msg.contains("stuck"), "{msg}");
        if t != Stdio {
            // Exactly two tools/list requests.
            let lists = json_lines(&fake.record())
                .into_iter()
                .filter(|(k, m, _, b)| k == "http" && m == "POST" && b.contains("tools/list"))
                .count();
            assert_eq!(lists, 2, "{t:?}");
        }
    }
}

#[test]
fn empty_cursor_continuation_is_followed_without_warning() {
    if !tools::needs(&["python3"]) {
        return;
    }
    for t in ALL {
        let f = ok(fetch(t, "empty-cursor-continuation", &[]));
        assert_eq!((f.page_count, f.tool_names_seen), (2, 3), "{t:?}");
        assert!(f.warnings.is_empty(), "{:?}", f.warnings);
        assert_eq!(digest(&f), ok_digest());
    }
}

#[test]
fn empty_cursor_legacy_end() {
    if !tools::needs(&["python3"]) {
        return;
    }
    for t in ALL {
        for sc in ["empty-cursor-legacy-end", "empty-cursor-legacy-end-repeat"] {
            let f = ok(fetch(t, sc, &[]));
            assert_eq!((f.page_count, f.tool_names_seen), (2, 3), "{t:?} {sc}");
            assert_eq!(f.warnings.len(), 1, "{:?}", f.warnings);
            assert!(
                f.warnings[0].contains("empty nextCursor"),
                "{:?}",
                f.warnings
            );
            assert_eq!(digest(&f), ok_digest());
        }
    }
}

#[test]
fn duplicate_across_pages() {
    if !tools::needs(&["python3"]) {
        return;
    }
    for t in ALL {
        let (k, msg) = kind(fetch(t, "duplicate-across-pages", &[]));
        assert_eq!(k, McpErrorKind::DuplicateTool, "{t:?}");
        assert!(msg.contains("search_docs"), "{msg}");
    }
}

#[test]
fn page_limit() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let mut o = opts();
    o.max_pages = 5;
    for t in ALL {
        // Endless pages: the cap, never a hang.
        let fake = Fake::start(t, "many-pages", &[]);
        let (k, _) = kind(timed(Duration::from_secs(10), &fake.spec, &o));
        assert_eq!(k, McpErrorKind::PageLimit, "{t:?}");
        // Exactly at the cap: fine; one over: error.
        let fake = Fake::start(t, "many-pages", &["--pages", "5"]);
        let f = ok(timed(Duration::from_secs(10), &fake.spec, &o));
        assert_eq!((f.page_count, f.tool_names_seen), (5, 5));
        let fake = Fake::start(t, "many-pages", &["--pages", "6"]);
        assert_eq!(
            kind(timed(Duration::from_secs(10), &fake.spec, &o)).0,
            McpErrorKind::PageLimit
        );
    }
}

#[test]
fn many_tools() {
    if !tools::needs(&["python3"]) {
        return;
    }
    for t in ALL {
        let f = ok(fetch(
            t,
            "many-tools",
            &["--count", "1000", "--page-size", "250"],
        ));
        assert_eq!((f.page_count, f.tool_names_seen), (4, 1000), "{t:?}");
        let names = tool_names(&f);
        assert_eq!(names.len(), 1000);
        assert_eq!(names[0], "tool_000000");
    }
}

// ------------------------------------------------------------------ stdio misbehaviour

#[test]
fn junk_on_stdout_is_skipped_and_counted() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let f = ok(fetch(Stdio, "junk-stdout", &[]));
    assert_eq!(digest(&f), ok_digest());
    // 5 lines at start-up, then one before each answer: server/discover (our
    // probe), initialize, tools/list.
    assert_eq!(f.skipped_stdout_lines, 8);
    for t in [Http, Sse] {
        let f = ok(fetch(t, "junk-stdout", &[]));
        assert_eq!((digest(&f), f.skipped_stdout_lines), (ok_digest(), 0));
    }
}

#[test]
fn never_answers_tools_list_times_out() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let mut o = opts();
    o.request_timeout = Duration::from_secs(1);
    for (t, extra) in [
        (Stdio, &[][..]),
        (Http, &[][..]),
        (Http, &["--http-answer", "sse"][..]),
        (Sse, &[][..]),
    ] {
        let fake = Fake::start(t, "never-answers-tools-list", extra);
        let t0 = Instant::now();
        let (k, msg) = kind(timed(Duration::from_secs(4), &fake.spec, &o));
        assert_eq!(k, McpErrorKind::Timeout, "{t:?} {extra:?}: {msg}");
        assert!(msg.contains("tools/list"), "{msg}");
        assert!(t0.elapsed() >= Duration::from_secs(1));
        if t == Stdio {
            assert!(process_gone(fake.pid()), "the server was shut down");
        }
    }
}

#[test]
fn total_timeout() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let mut o = opts();
    o.request_timeout = Duration::from_secs(10);
    o.total_timeout = Duration::from_millis(1200);
    for t in [Stdio, Http] {
        let fake = Fake::start(t, "slow", &["--delay", "5"]);
        let (k, msg) = kind(timed(Duration::from_secs(4), &fake.spec, &o));
        assert_eq!(k, McpErrorKind::Timeout, "{msg}");
        assert!(msg.contains("total timeout"), "{msg}");
    }
}

#[test]
fn slow_but_within_the_timeout() {
    if !tools::needs(&["python3"]) {
        return;
    }
    for t in ALL {
        let mut o = opts();
        o.request_timeout = Duration::from_secs(5);
        let fake = Fake::start(t, "slow", &["--delay", "0.5"]);
        let f = ok(timed(Duration::from_secs(8), &fake.spec, &o));
        assert_eq!(digest(&f), ok_digest());
        o.request_timeout = Duration::from_millis(1500);
        let fake = Fake::start(t, "slow", &["--delay", "3"]);
        let t0 = Instant::now();
        let (k, msg) = kind(timed(Duration::from_secs(4), &fake.spec, &o));
        assert_eq!(k, McpErrorKind::Timeout, "{t:?}");
        assert!(
            msg.contains("tools/list") && msg.contains("request timeout of 1.5 s"),
            "{msg}"
        );
        assert!(t0.elapsed() >= Duration::from_millis(1500));
    }
}

#[test]
fn exits_after_initialize() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let fake = Fake::start(Stdio, "exits-after-initialize", &[]);
    let e = timed(Duration::from_secs(8), &fake.spec, &opts()).unwrap_err();
    assert_eq!(e.kind(), &McpErrorKind::Exited);
    let text = e.to_string();
    assert!(text.contains("exit status: 3"), "{text}");
    assert!(
        e.message().contains("notifications/initialized") || e.message().contains("tools/list"),
        "{text}"
    );
    assert!(
        e.stderr_tail().unwrap().contains("exiting with status 3"),
        "{text}"
    );
    // The same when the server exits right after answering server/discover.
    let fake = Fake::start(Stdio, "exits-after-initialize", &["--discover"]);
    assert_eq!(
        kind(timed(Duration::from_secs(8), &fake.spec, &opts())).0,
        McpErrorKind::Exited
    );
    // Over HTTP the fake server keeps serving for ~50 ms after it announces
    // its exit, and our whole exchange fits in that window; a delayed
    // tools/list makes sure the request is in flight when the process dies.
    for t in [Http, Sse] {
        let (k, msg) = kind(fetch(t, "exits-after-initialize", &["--delay", "0.5"]));
        assert_eq!(k, McpErrorKind::Io, "{t:?}: {msg}");
    }
}

#[test]
fn ignores_sigterm_is_killed() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let fake = Fake::start(Stdio, "ignores-sigterm", &[]);
    let mut o = opts();
    o.shutdown_grace = Duration::from_millis(300);
    let t0 = Instant::now();
    let f = ok(timed(Duration::from_secs(6), &fake.spec, &o));
    assert!(
        t0.elapsed() >= Duration::from_millis(600),
        "waited for both graces"
    );
    assert_eq!(digest(&f), ok_digest());
    assert!(
        f.warnings.iter().any(|w| w.contains("killed")),
        "{:?}",
        f.warnings
    );
    assert!(process_gone(fake.pid()));
    let events: Vec<String> = json_lines(&fake.record())
        .into_iter()
        .map(|e| e.0)
        .collect();
    let eof = events
        .iter()
        .position(|k| k == "stdin-eof")
        .expect("stdin closed first");
    let sig = events
        .iter()
        .position(|k| k == "signal")
        .expect("then SIGTERM");
    assert!(eof < sig, "{events:?}");
}

#[test]
fn shutdown_of_a_well_behaved_server_is_quick() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let fake = Fake::start(Stdio, "ok", &[]);
    let f = ok(timed(Duration::from_secs(3), &fake.spec, &opts()));
    assert!(f.warnings.is_empty());
    assert!(process_gone(fake.pid()));
    let events: Vec<String> = json_lines(&fake.record())
        .into_iter()
        .map(|e| e.0)
        .collect();
    assert!(events.contains(&"stdin-eof".to_string()), "{events:?}");
    assert!(
        !events.contains(&"signal".to_string()),
        "no signal needed: {events:?}"
    );
}

#[test]
fn stderr_flood_does_not_block() {
    if !tools::needs(&["python3"]) {
        return;
    }
    for t in ALL {
        let f = ok(fetch(t, "stderr-flood", &["--flood-bytes", "4000000"]));
        assert_eq!(digest(&f), ok_digest(), "{t:?}");
    }
    // On failure, only a bounded tail of stderr is shown.
    let fake = Fake::start(
        Stdio,
        "stderr-flood",
        &["--flood-bytes", "2000000", "--versions", "2099-01-01"],
    );
    let e = timed(Duration::from_secs(10), &fake.spec, &opts()).unwrap_err();
    let tail = e.stderr_tail().expect("a stderr tail");
    assert!(
        tail.len() <= 4096 && tail.lines().count() <= 20,
        "{} bytes",
        tail.len()
    );
}

#[test]
fn line_limit_at_and_over() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let n = 1 << 20;
    let mut o = opts();
    o.max_line_bytes = n;
    let arg = n.to_string();
    let fake = Fake::start(Stdio, "huge-line", &["--huge-bytes", &arg]);
    let f = ok(timed(Duration::from_secs(10), &fake.spec, &o));
    assert_eq!(tool_names(&f), ["huge"]);
    o.max_line_bytes = n - 1;
    let fake = Fake::start(Stdio, "huge-line", &["--huge-bytes", &arg]);
    let (k, msg) = kind(timed(Duration::from_secs(10), &fake.spec, &o));
    assert_eq!(k, McpErrorKind::LineTooLong, "{msg}");
}

#[test]
fn response_limit_at_and_over() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let n = 1 << 20;
    let arg = n.to_string();
    let mut o = opts();
    o.max_response_bytes = n;
    let fake = Fake::start(Http, "huge-line", &["--huge-bytes", &arg]);
    let f = ok(timed(Duration::from_secs(10), &fake.spec, &o));
    assert_eq!(tool_names(&f), ["huge"]);
    o.max_response_bytes = n - 1;
    for (t, extra) in [
        (Http, &[][..]),
        (Http, &["--http-answer", "sse"][..]),
        (Sse, &[][..]),
    ] {
        let fake = Fake::start(
            t,
            "huge-line",
            &[&["--huge-bytes", &arg][..], extra].concat(),
        );
        let (k, msg) = kind(timed(Duration::from_secs(10), &fake.spec, &o));
        assert_eq!(k, McpErrorKind::ResponseTooLarge, "{t:?} {extra:?}: {msg}");
    }
}

// ------------------------------------------------------------------ HTTP specifics

#[test]
fn unrelated_events_are_skipped() {
    if !tools::needs(&["python3"]) {
        return;
    }
    for t in ALL {
        let f = ok(fetch(t, "sse-unrelated-events", &[]));
        assert_eq!(digest(&f), ok_digest(), "{t:?}: took a decoy?");
        assert_eq!(f.skipped_stdout_lines, 0);
    }
}

#[test]
fn sse_framing() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let f = ok(fetch(Http, "sse-framing", &["--page-size", "2"]));
    assert_eq!(digest(&f), ok_digest());
}

#[test]
fn session_headers_and_delete() {
    if !tools::needs(&["python3"]) {
        return;
    }
    std::env::set_var("CONTRACTPIN_TEST_HTTP_TOKEN", "tok-3f9a2c1e7b");
    let fake = Fake::start(Http, "missing-session", &["--page-size", "2"]).with_headers(&[
        ("Authorization", "Bearer ${CONTRACTPIN_TEST_HTTP_TOKEN}"),
        ("X-Plain", "v1"),
    ]);
    let f = ok(timed(Duration::from_secs(10), &fake.spec, &opts()));
    assert_eq!(digest(&f), ok_digest());
    let events = json_lines(&fake.record());
    let http: Vec<_> = events.iter().filter(|e| e.0 == "http").collect();
    // discover (400), initialize, initialized, 2 pages, DELETE.
    let methods: Vec<&str> = http.iter().map(|e| e.1.as_str()).collect();
    assert_eq!(
        methods,
        ["POST", "POST", "POST", "POST", "POST", "DELETE"],
        "{http:?}"
    );
    let sid = http[2]
        .2
        .get("mcp-session-id")
        .expect("session id after initialize")
        .clone();
    for (i, (_, _, h, body)) in http.iter().enumerate() {
        assert_eq!(
            h.get("authorization").map(String::as_str),
            Some("Bearer tok-3f9a2c1e7b")
        );
        assert_eq!(h.get("x-plain").map(String::as_str), Some("v1"));
        if i < 2 {
            assert!(!h.contains_key("mcp-session-id"), "{body}");
            // The discover probe names its version and method; initialize has neither.
            let (v, m) = if i == 0 {
                (Some("2026-07-28"), Some("server/discover"))
            } else {
                (None, None)
            };
            assert_eq!(
                h.get("mcp-protocol-version").map(String::as_str),
                v,
                "{body}"
            );
            assert_eq!(h.get("mcp-method").map(String::as_str), m, "{body}");
        } else {
            assert!(!h.contains_key("mcp-method"), "{body}");
            assert_eq!(h.get("mcp-session-id"), Some(&sid));
            assert_eq!(
                h.get("mcp-protocol-version").map(String::as_str),
                Some("2025-11-25")
            );
        }
        if i < 5 {
            assert_eq!(
                h.get("accept").map(String::as_str),
                Some("application/json, text/event-stream")
            );
            assert_eq!(
                h.get("content-type").map(String::as_str),
                Some("application/json")
            );
        }
    }
    assert!(http[0].3.contains("server/discover"));
    assert!(http[1].3.contains("\"initialize\""));
    assert!(http[2].3.contains("notifications/initialized"));
}

#[test]
fn modern_http_headers() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let fake = Fake::start(Http, "ok", &["--discover"]);
    let f = ok(timed(Duration::from_secs(10), &fake.spec, &opts()));
    assert_eq!(f.handshake, "discover");
    let events = json_lines(&fake.record());
    let posts: Vec<_> = events.iter().filter(|e| e.0 == "http").collect();
    assert_eq!(posts.len(), 2, "discover + one page, no session, no DELETE");
    assert_eq!(
        posts[0].2.get("mcp-method").map(String::as_str),
        Some("server/discover")
    );
    assert_eq!(
        posts[1].2.get("mcp-method").map(String::as_str),
        Some("tools/list")
    );
    for p in &posts {
        assert_eq!(
            p.2.get("mcp-protocol-version").map(String::as_str),
            Some("2026-07-28")
        );
    }
}

#[test]
fn expired_session_gives_up_after_one_new_session() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let fake = Fake::start(Http, "expired-session", &[]);
    let (k, msg) = kind(timed(Duration::from_secs(10), &fake.spec, &opts()));
    assert_eq!(k, McpErrorKind::Http { status: 404 }, "{msg}");
    assert!(msg.contains("session"), "{msg}");
    let inits = json_lines(&fake.record())
        .into_iter()
        .filter(|e| e.0 == "http" && e.3.contains("\"initialize\""))
        .count();
    assert_eq!(inits, 2, "one retry, no loop");
}

#[test]
fn no_session_server() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let f = ok(fetch(Http, "ok", &["--no-session"]));
    assert_eq!(digest(&f), ok_digest());
}

#[test]
fn jsonrpc_error() {
    if !tools::needs(&["python3"]) {
        return;
    }
    for t in ALL {
        let (k, msg) = kind(fetch(t, "jsonrpc-error", &[]));
        assert_eq!(
            k,
            McpErrorKind::JsonRpc {
                code: -32603,
                message: "Internal error: tool registry unavailable".into()
            },
            "{t:?}"
        );
        assert!(msg.contains("tool registry unavailable"), "{msg}");
    }
}

#[test]
fn legacy_sse_found_from_the_base_url() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let fake = Fake::start(Sse, "ok", &[]);
    // The user gave the server's root, not /sse: POST / is 404, GET / is 404, GET /sse works.
    let base = fake.url().trim_end_matches("/sse").to_string();
    let spec = ServerSpec::Http {
        url: base,
        headers: vec![],
    };
    let f = ok(timed(Duration::from_secs(10), &spec, &opts()));
    assert_eq!((f.transport, digest(&f)), ("legacy-sse", ok_digest()));
}

#[test]
fn unreachable_and_wrong_urls() {
    if !tools::needs(&["python3"]) {
        return;
    }
    // A closed port on loopback.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let spec = ServerSpec::Http {
        url: format!("http://127.0.0.1:{port}/mcp"),
        headers: vec![],
    };
    let (k, _) = kind(timed(Duration::from_secs(5), &spec, &opts()));
    assert_eq!(k, McpErrorKind::Io);
    // A path nobody serves: 404 for POST, and no legacy stream either.
    let fake = Fake::start(Http, "ok", &[]);
    let spec = ServerSpec::Http {
        url: fake.url().replace("/mcp", "/nothing"),
        headers: vec![],
    };
    let (k, msg) = kind(timed(Duration::from_secs(5), &spec, &opts()));
    assert_eq!(k, McpErrorKind::Http { status: 404 }, "{msg}");
    assert!(msg.contains("legacy"), "{msg}");
    for bad in ["ftp://127.0.0.1/x", "not a url", "http://"] {
        let spec = ServerSpec::Http {
            url: bad.into(),
            headers: vec![],
        };
        assert_eq!(
            fetch_tools_list(&spec, &opts()).unwrap_err().kind(),
            &McpErrorKind::Spec,
            "{bad}"
        );
    }
    let spec = ServerSpec::Http {
        url: fake.url(),
        headers: vec![("Mcp-Session-Id".into(), "x".into())],
    };
    assert_eq!(
        fetch_tools_list(&spec, &opts()).unwrap_err().kind(),
        &McpErrorKind::Spec
    );
    let spec = ServerSpec::Http {
        url: fake.url(),
        headers: vec![("X-Bad".into(), "a\r\nInjected: 1".into())],
    };
    assert_eq!(
        fetch_tools_list(&spec, &opts()).unwrap_err().kind(),
        &McpErrorKind::Spec
    );
}

// ------------------------------------------------------------------ spawn, env, secrets

#[test]
fn spawn_failures_and_env_errors() {
    let spec = ServerSpec::Stdio {
        command: vec!["/nonexistent/contractpin-no-such-server".into()],
        env: BTreeMap::new(),
        cwd: None,
    };
    let e = timed(Duration::from_secs(3), &spec, &opts()).unwrap_err();
    assert_eq!(e.kind(), &McpErrorKind::Spawn);
    assert!(!e.is_usage());
    let spec = ServerSpec::Stdio {
        command: vec![],
        env: BTreeMap::new(),
        cwd: None,
    };
    assert!(fetch_tools_list(&spec, &opts()).unwrap_err().is_usage());
    let spec = ServerSpec::Stdio {
        command: vec!["python3".into(), FAKE.into()],
        env: BTreeMap::from([(
            "TOKEN".to_string(),
            "${CONTRACTPIN_TEST_SURELY_UNSET_VAR}".to_string(),
        )]),
        cwd: None,
    };
    let e = fetch_tools_list(&spec, &opts()).unwrap_err();
    assert_eq!(e.kind(), &McpErrorKind::EnvVar);
    assert!(e.is_usage());
    assert!(
        e.message().contains("CONTRACTPIN_TEST_SURELY_UNSET_VAR"),
        "{e}"
    );
    let spec = ServerSpec::Http {
        url: "http://127.0.0.1:9/mcp".into(),
        headers: vec![(
            "Authorization".into(),
            "Bearer ${CONTRACTPIN_TEST_SURELY_UNSET_VAR}".into(),
        )],
    };
    assert_eq!(
        fetch_tools_list(&spec, &opts()).unwrap_err().kind(),
        &McpErrorKind::EnvVar
    );
}

#[test]
fn env_cwd_and_secret_redaction() {
    std::env::set_var("CONTRACTPIN_TEST_STDIO_SECRET", "s3cr3t-7d1e0b9a");
    let dir = scratch_dir();
    // A "server" that shows its env and cwd on stderr and exits: the error
    // must show the stderr tail, with the secret redacted.
    let spec = ServerSpec::Stdio {
        command: vec![
            "sh".into(),
            "-c".into(),
            "echo \"token=$TOKEN plain=$PLAIN cwd=$(pwd)\" >&2; exit 7".into(),
        ],
        env: BTreeMap::from([
            (
                "TOKEN".to_string(),
                "${CONTRACTPIN_TEST_STDIO_SECRET}".to_string(),
            ),
            ("PLAIN".to_string(), "visible-value".to_string()),
        ]),
        cwd: Some(dir.clone()),
    };
    let e = timed(Duration::from_secs(5), &spec, &opts()).unwrap_err();
    let text = e.to_string();
    assert_eq!(e.kind(), &McpErrorKind::Exited, "{text}");
    assert!(text.contains("exit status: 7"), "{text}");
    assert!(text.contains("token=***"), "{text}");
    assert!(!text.contains("s3cr3t-7d1e0b9a"), "{text}");
    // Literal env values are masked too: the library applies the CLI's policy.
    assert!(text.contains("plain=***"), "{text}");
    assert!(!text.contains("visible-value"), "{text}");
    assert!(text.contains(&format!("cwd={}", dir.display())), "{text}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn server_requests_are_answered() {
    if !tools::needs(&["python3"]) {
        return;
    }
    // A tiny stdio server (sh + python) that pings us before answering tools/list.
    let script = r#"
import sys, json
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m.get("method") == "server/discover":
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "no"}}), flush=True)
    elif m.get("method") == "initialize":
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}}}), flush=True)
    elif m.get("method") == "tools/list":
        print(json.dumps({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"}), flush=True)
        print(json.dumps({"jsonrpc": "2.0", "id": "srv-2", "method": "roots/list"}), flush=True)
        print(json.dumps({"jsonrpc": "2.0", "id": "srv-3", "method": "sampling/createMessage", "params": {}}), flush=True)
        want = {"srv-1", "srv-2", "srv-3"}
        got = {}
        for reply in sys.stdin:
            r = json.loads(reply)
            got[r["id"]] = r
            if set(got) == want:
                break
        ok = got["srv-1"].get("result") == {} and got["srv-2"].get("result") == {"roots": []} and got["srv-3"]["error"]["code"] == -32601
        name = "answered" if ok else "wrong-answers"
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"tools": [{"name": name, "inputSchema": {"type": "object"}}]}}), flush=True)
"#;
    let spec = ServerSpec::Stdio {
        command: vec!["python3".into(), "-c".into(), script.into()],
        env: BTreeMap::new(),
        cwd: None,
    };
    let f = ok(timed(Duration::from_secs(10), &spec, &opts()));
    assert_eq!(tool_names(&f), ["answered"]);
    assert_eq!(f.protocol_version, "2025-06-18");
}

#[test]
fn file_transport_passes_bytes_through() {
    let dir = scratch_dir();
    let p = dir.join("dump.json");
    let raw = br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","description":"x"}]}}"#;
    std::fs::write(&p, raw).unwrap();
    let f = ok(fetch_tools_list(
        &ServerSpec::File { path: p.clone() },
        &opts(),
    ));
    assert_eq!(f.pages, raw);
    assert_eq!(f.handshake, "file");
    let mut o = opts();
    o.max_response_bytes = raw.len() - 1;
    let e = fetch_tools_list(&ServerSpec::File { path: p }, &o).unwrap_err();
    assert_eq!(e.kind(), &McpErrorKind::ResponseTooLarge);
    let e = fetch_tools_list(
        &ServerSpec::File {
            path: dir.join("missing.json"),
        },
        &opts(),
    )
    .unwrap_err();
    assert_eq!(e.kind(), &McpErrorKind::Io);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn fixture_files_digest_like_the_oracle() {
    // The real servers' captured tools/list (raw bytes) through the file transport.
    let text = std::fs::read(EXPECTED).unwrap();
    let mut nodes = vec![Node::EMPTY; json::scratch_needed(&text)];
    let tape = json::parse(&text, &mut nodes, &contractpin::Limits::DEFAULT).unwrap();
    let fixtures = get(tape.root(), "fixtures");
    let mut n = 0;
    for (name, entry) in fixtures.members() {
        let name = name.as_plain_str().unwrap();
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/mcp/fixtures/{name}-tools-list.json"));
        let f = ok(fetch_tools_list(&ServerSpec::File { path }, &opts()));
        assert_eq!(
            digest(&f),
            get(entry, "digest").as_plain_str().unwrap(),
            "{name}"
        );
        n += 1;
    }
    assert!(n >= 7);
}

/// A scripted stdio server: `answers` maps a method to the raw JSON text put
/// after `"id":N,` in the answer (e.g. `"result":{...}`); `discover` and
/// `initialize` have defaults.
fn scripted(answers: &[(&str, &str)]) -> ServerSpec {
    let script = r#"
import sys, json
answers = json.loads(sys.argv[1])
answers.setdefault("server/discover", '"error":{"code":-32601,"message":"Method not found"}')
answers.setdefault("initialize", '"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}}}')
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    body = answers.get(m["method"], '"error":{"code":-32601,"message":"Method not found"}')
    sys.stdout.write('{"jsonrpc":"2.0","id":' + json.dumps(m["id"]) + ',' + body + '}\n')
    sys.stdout.flush()
"#;
    let mut map = String::from("{");
    for (i, (k, v)) in answers.iter().enumerate() {
        if i > 0 {
            map.push(',');
        }
        map.push_str(&format!("{:?}:{:?}", k, v));
    }
    map.push('}');
    ServerSpec::Stdio {
        command: vec!["python3".into(), "-c".into(), script.into(), map],
        env: BTreeMap::new(),
        cwd: None,
    }
}

#[test]
fn odd_but_valid_answers() {
    if !tools::needs(&["python3"]) {
        return;
    }
    // No tools capability, no tools/list: an empty list, with a warning.
    let spec = scripted(&[(
        "initialize",
        r#""result":{"protocolVersion":"2025-06-18","capabilities":{}}"#,
    )]);
    let f = ok(timed(Duration::from_secs(10), &spec, &opts()));
    assert_eq!((f.page_count, f.tool_names_seen), (1, 0));
    assert!(
        f.warnings[0].contains("no tools capability"),
        "{:?}",
        f.warnings
    );
    assert_eq!(
        contractpin::digest_tools_list(&f.pages)
            .unwrap()
            .tools
            .len(),
        0
    );
    // A result with a top-level `name` member cannot turn the pages into a bare tool array.
    let spec = scripted(&[(
        "tools/list",
        r#""result":{"name":"x","tools":[{"name":"a"}],"nextCursor":null}"#,
    )]);
    let f = ok(timed(Duration::from_secs(10), &spec, &opts()));
    assert_eq!(tool_names(&f), ["a"]);
    assert_eq!(f.warnings.len(), 1, "{:?}", f.warnings);
    // An answer from the modern generation that does not list 2026-07-28.
    let spec = scripted(&[
        (
            "server/discover",
            r#""result":{"supportedVersions":["2027-01-01"],"capabilities":{"tools":{}}}"#,
        ),
        ("tools/list", r#""result":{"tools":[]}"#),
    ]);
    let f = ok(timed(Duration::from_secs(10), &spec, &opts()));
    assert_eq!(f.handshake, "initialize");
    assert_eq!(f.warnings.len(), 1, "{:?}", f.warnings);
}

#[test]
fn invalid_answers() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let cases: &[(&str, McpErrorKind, &str)] = &[
        (
            r#""result":{"tools":[{"name":"a"},{"name":"a"}]}"#,
            McpErrorKind::DuplicateTool,
            "twice on page 1",
        ),
        (
            r#""result":{"tools":[],"nextCursor":7}"#,
            McpErrorKind::Protocol,
            "not a string",
        ),
        (
            r#""result":{"items":[]}"#,
            McpErrorKind::Protocol,
            "no `tools` array",
        ),
        (
            r#""result":{"tools":[{"name":"a","a":1,"a":2}]}"#,
            McpErrorKind::Protocol,
            "duplicate-key",
        ),
        (
            r#""result":{"tools":[{"name":"a","x":1e999}]}"#,
            McpErrorKind::Protocol,
            "number-out-of-range",
        ),
        (
            r#""error":{"code":"oops"}"#,
            McpErrorKind::Protocol,
            "malformed JSON-RPC error",
        ),
    ];
    for (answer, want, text) in cases {
        let spec = scripted(&[("tools/list", answer)]);
        let e = timed(Duration::from_secs(10), &spec, &opts()).unwrap_err();
        assert_eq!(e.kind(), want, "{answer}: {e}");
        assert!(e.message().contains(text), "{answer}: {e}");
    }
}

#[test]
fn io_errors_chain_to_their_cause() {
    use std::error::Error as _;
    let missing = ServerSpec::File {
        path: std::path::PathBuf::from("/nonexistent/contractpin/tools.json"),
    };
    let e = fetch_tools_list(&missing, &ClientOptions::default()).unwrap_err();
    let io = e.source().and_then(|s| s.downcast_ref::<std::io::Error>());
    assert_eq!(
        io.map(|e| e.kind()),
        Some(std::io::ErrorKind::NotFound),
        "{e}"
    );
    let spawn = ServerSpec::Stdio {
        command: vec!["/nonexistent/contractpin-server".into()],
        env: Default::default(),
        cwd: None,
    };
    let e = fetch_tools_list(&spawn, &ClientOptions::default()).unwrap_err();
    assert!(
        e.source()
            .and_then(|s| s.downcast_ref::<std::io::Error>())
            .is_some(),
        "{e}"
    );
}
