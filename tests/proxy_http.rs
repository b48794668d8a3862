//! The proxy's HTTP upstreams (Streamable HTTP, legacy HTTP+SSE, and the
//! fallback between them), driven by a tiny pump: `start` with a `deliver`
//! that pushes into a channel, `send` raw JSON-RPC. Against our fake server
//! (tests/mcp/fake_server.py, http and sse), the real server-everything in
//! its streamableHttp and sse modes, and two in-test HTTP servers (one that
//! echoes a credential in its error, one that never answers).
#![cfg(feature = "mcp-http")]

#[path = "support/tools.rs"]
mod tools;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use contractpin::json::{self, Node, Tag};
use contractpin::mcp::ClientOptions;
use contractpin::proxy::testing::{self, Conn, Event, UPSTREAM_ERROR_CODE};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

// ------------------------------------------------------------------ the pump

/// An upstream and what it delivered.
struct Pump {
    conn: Conn,
    rx: mpsc::Receiver<Event>,
}

fn opts() -> ClientOptions {
    ClientOptions {
        request_timeout: Duration::from_secs(10),
        total_timeout: Duration::from_secs(20),
        ..ClientOptions::default()
    }
}

impl Pump {
    fn start(url: &str, headers: &[(&str, &str)], transport: &str) -> Pump {
        Self::with(url, headers, transport, &opts())
    }

    fn with(url: &str, headers: &[(&str, &str)], transport: &str, o: &ClientOptions) -> Pump {
        let headers: Vec<(String, String)> = headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut conn = testing::connect(url, &headers, o, transport).expect("connect");
        let (tx, rx) = mpsc::channel();
        conn.start(move |e| tx.send(e).is_ok()).expect("start");
        Pump { conn, rx }
    }

    fn send(&mut self, msg: &str) {
        self.conn.send(msg.as_bytes()).expect("send");
    }

    /// The next delivery, within `within`.
    fn next(&self, within: Duration) -> Event {
        self.rx
            .recv_timeout(within)
            .unwrap_or_else(|e| panic!("nothing delivered within {within:?}: {e}"))
    }

    /// Messages up to the response with `id` (raw JSON, `"3"` or `"\"a\""`):
    /// (what came before, the response).
    fn until_response(&self, id: &str, within: Duration) -> (Vec<Msg>, Msg) {
        let until = Instant::now() + within;
        let mut before = Vec::new();
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.next(left) {
                Event::Message(b) => {
                    let m = Msg::parse(&b);
                    if m.is_response() && m.id.as_deref() == Some(id) {
                        return (before, m);
                    }
                    before.push(m);
                }
                Event::Closed(why) => panic!("closed before the response to {id}: {why}"),
            }
        }
    }

    /// The next message that is a server request or notification of `method`.
    fn until_method(&self, method: &str, within: Duration) -> Msg {
        let until = Instant::now() + within;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.next(left) {
                Event::Message(b) => {
                    let m = Msg::parse(&b);
                    if m.method.as_deref() == Some(method) {
                        return m;
                    }
                }
                Event::Closed(why) => panic!("closed before {method}: {why}"),
            }
        }
    }

    /// The standard opening: initialize (with `caps`), its response, the
    /// initialized notification. Returns the negotiated version.
    fn initialize(&mut self, version: &str, caps: &str) -> String {
        self.send(&format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{caps},"clientInfo":{{"name":"proxy-test","version":"0"}}}}}}"#
        ));
        let (_, r) = self.until_response("1", Duration::from_secs(15));
        let v = r.result_str("protocolVersion").expect("a protocolVersion");
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        v
    }
}

/// A delivered message, read just enough.
#[derive(Debug)]
struct Msg {
    text: String,
    id: Option<String>,
    method: Option<String>,
    has_result: bool,
    error_code: Option<i64>,
    error_message: Option<String>,
}

impl Msg {
    fn parse(b: &[u8]) -> Msg {
        assert!(
            !b.contains(&b'\n') && !b.contains(&b'\r'),
            "a delivered message holds a line break"
        );
        let text = String::from_utf8_lossy(b).into_owned();
        let mut nodes = vec![Node::EMPTY; json::scratch_needed(b).max(1)];
        let tape = json::parse(b, &mut nodes, &contractpin::Limits::DEFAULT)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
        let r = tape.root();
        assert_eq!(r.tag(), Tag::Object, "{text}");
        let id = r.get("id").map(|v| match v.tag() {
            Tag::String => format!("\"{}\"", v.as_plain_str().unwrap_or("?")),
            _ => String::from_utf8_lossy(v.raw_number().unwrap_or(b"null")).into_owned(),
        });
        let err = r.get("error");
        Msg {
            id,
            method: r
                .get("method")
                .and_then(|m| m.as_plain_str())
                .map(String::from),
            has_result: r.get("result").is_some(),
            error_code: err
                .and_then(|e| e.get("code"))
                .and_then(|c| c.raw_number())
                .and_then(|n| std::str::from_utf8(n).ok()?.parse().ok()),
            error_message: err
                .and_then(|e| e.get("message"))
                .and_then(|m| m.as_plain_str())
                .map(String::from),
            text,
        }
    }

    fn is_response(&self) -> bool {
        self.method.is_none() && (self.has_result || self.error_code.is_some())
    }

    /// A string member of `result` (plain, no escapes).
    fn result_str(&self, key: &str) -> Option<String> {
        let b = self.text.as_bytes();
        let mut nodes = vec![Node::EMPTY; json::scratch_needed(b)];
        let tape = json::parse(b, &mut nodes, &contractpin::Limits::DEFAULT).ok()?;
        let v = tape.root().get("result")?.get(key)?;
        v.as_plain_str().map(String::from)
    }

    /// The names of `result.tools`.
    fn tool_names(&self) -> Vec<String> {
        let b = self.text.as_bytes();
        let mut nodes = vec![Node::EMPTY; json::scratch_needed(b)];
        let tape = json::parse(b, &mut nodes, &contractpin::Limits::DEFAULT).unwrap();
        let tools = tape.root().get("result").and_then(|r| r.get("tools"));
        tools
            .map(|t| {
                t.elements()
                    .filter_map(|x| x.get("name")?.as_plain_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    }
}

// ------------------------------------------------------------------ servers

fn scratch_dir() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "contractpin-proxy-http-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A server process on loopback, killed and reaped on drop.
struct Server {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn wait_for_port_file(file: &Path, child: &mut Child, what: &str) -> u16 {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(p) = std::fs::read_to_string(file)
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            return p;
        }
        if let Ok(Some(st)) = child.try_wait() {
            panic!("{what} exited early: {st}");
        }
        assert!(Instant::now() < until, "{what} did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// tests/mcp/fake_server.py over `transport` ("http" or "sse").
fn fake(transport: &str, scenario: &str, extra: &[&str]) -> Server {
    let dir = scratch_dir();
    let port_file = dir.join("port");
    let mut child = Command::new("python3")
        .arg(Path::new(ROOT).join("tests/mcp/fake_server.py"))
        .args(["--transport", transport, "--scenario", scenario])
        .args(["--port", "0", "--port-file"])
        .arg(&port_file)
        .arg("--record")
        .arg(dir.join("record.jsonl"))
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3 runs");
    let port = wait_for_port_file(&port_file, &mut child, "fake_server.py");
    Server { child, port, dir }
}

/// One HTTP request the fake server saw.
#[derive(Debug)]
struct Seen {
    method: String,
    headers: BTreeMap<String, String>,
    body: String,
}

impl Server {
    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// The HTTP requests fake_server.py recorded, in order.
    fn seen(&self) -> Vec<Seen> {
        let text = std::fs::read_to_string(self.dir.join("record.jsonl")).unwrap_or_default();
        let mut out = Vec::new();
        for line in text.lines() {
            let b = line.as_bytes();
            let mut nodes = vec![Node::EMPTY; json::scratch_needed(b)];
            let tape = json::parse(b, &mut nodes, &contractpin::Limits::DEFAULT).unwrap();
            let r = tape.root();
            if r.get("kind").and_then(|k| k.as_plain_str()) != Some("http") {
                continue;
            }
            let decode = |v: json::Value<'_>| {
                let mut buf = vec![0u8; v.raw_str().map_or(0, <[u8]>::len)];
                v.decode_str(&mut buf).unwrap_or("").to_string()
            };
            let mut headers = BTreeMap::new();
            if let Some(h) = r.get("headers") {
                for (k, v) in h.members() {
                    headers.insert(decode(k).to_ascii_lowercase(), decode(v));
                }
            }
            out.push(Seen {
                method: r.get("method").map(decode).unwrap_or_default(),
                headers,
                body: r.get("body").map(decode).unwrap_or_default(),
            });
        }
        out
    }

    /// The recorded POSTs whose body names `method`.
    fn posts_of(&self, method: &str) -> Vec<Seen> {
        let needle = format!("\"method\":\"{method}\"");
        self.seen()
            .into_iter()
            .filter(|s| s.method == "POST" && s.body.replace(' ', "").contains(&needle))
            .collect()
    }
}

fn npm_ready() -> bool {
    tools::needs(&["node"])
        && tools::needs_path(
            &Path::new(ROOT)
                .join("tests/mcp/node/node_modules/@modelcontextprotocol/server-everything"),
            "bash .ci/install-servers.sh",
        )
}

/// server-everything in `streamableHttp` or `sse` mode on a free loopback
/// port (as tests/mcp_real_servers.rs starts it); its stdout goes to a file.
fn everything(mode: &str) -> Server {
    let dir = scratch_dir();
    let port_file = dir.join("port");
    let js = Path::new(ROOT)
        .join("tests/mcp/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let preload = Path::new(ROOT).join("tests/mcp/loopback.cjs");
    let log = std::fs::File::create(dir.join("stdout.log")).unwrap();
    let mut child = Command::new("node")
        .arg(js)
        .arg(mode)
        .env("PORT", "0")
        .env("CONTRACTPIN_PORT_FILE", &port_file)
        .env("NODE_OPTIONS", format!("--require {}", preload.display()))
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(Stdio::null())
        .spawn()
        .expect("node runs");
    let port = wait_for_port_file(&port_file, &mut child, "server-everything");
    let until = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < until, "server-everything does not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    Server { child, port, dir }
}

const SECOND: Duration = Duration::from_secs(1);

// ------------------------------------------------------------------ fake server: Streamable HTTP

/// initialize, the session id and version on later requests, a
/// notification accepted (202) before the next request goes out,
/// tools/list, DELETE at shutdown; with JSON and with SSE answers.
#[test]
fn fake_streamable_session_json_and_sse() {
    if !tools::needs(&["python3"]) {
        return;
    }
    for answer in ["json", "sse"] {
        let server = fake("http", "missing-session", &["--http-answer", answer]);
        let mut p = Pump::start(&server.url("/mcp"), &[], "streamable");
        assert_eq!(p.initialize("2025-06-18", "{}"), "2025-06-18", "{answer}");
        p.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
        let (before, r) = p.until_response("2", 10 * SECOND);
        assert!(before.is_empty(), "{answer}: {before:?}");
        assert_eq!(
            r.tool_names(),
            ["get_weather", "search_docs", "send_email"],
            "{answer}"
        );
        p.conn.shutdown();
        assert!(p.conn.send(b"{}").is_err(), "send after shutdown");

        let seen = server.seen();
        let init = &server.posts_of("initialize")[0];
        assert!(!init.headers.contains_key("mcp-session-id"), "{answer}");
        let note = &server.posts_of("notifications/initialized")[0];
        let list = &server.posts_of("tools/list")[0];
        let sid = note
            .headers
            .get("mcp-session-id")
            .expect("session id")
            .clone();
        for s in [note, list] {
            assert_eq!(s.headers.get("mcp-session-id"), Some(&sid), "{answer}");
            assert_eq!(
                s.headers.get("mcp-protocol-version").map(String::as_str),
                Some("2025-06-18"),
                "{answer}"
            );
            assert!(!s.headers.contains_key("mcp-method"), "{answer}");
        }
        // The notification was POSTed (and accepted) before tools/list.
        let pos = |needle: &str| {
            seen.iter()
                .position(|s| s.body.contains(needle))
                .unwrap_or(usize::MAX)
        };
        assert!(
            pos("notifications/initialized") < pos("tools/list"),
            "{answer}"
        );
        // After initialize: the GET stream was tried (405 here), then DELETE.
        let get = seen.iter().find(|s| s.method == "GET").expect("a GET");
        assert_eq!(get.headers.get("mcp-session-id"), Some(&sid));
        assert_eq!(
            get.headers.get("accept").map(String::as_str),
            Some("text/event-stream")
        );
        let del = seen.last().unwrap();
        assert_eq!(del.method, "DELETE", "{answer}: {seen:?}");
        assert_eq!(del.headers.get("mcp-session-id"), Some(&sid));
    }
}

/// A 2026-07-28 client (no initialize; every message names its version
/// in `_meta`): each POST carries that version and its method in headers,
/// which the fake server checks against the body (else 400).
#[test]
fn fake_modern_messages_name_version_and_method() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let server = fake("http", "ok", &["--discover"]);
    let mut p = Pump::start(&server.url("/mcp"), &[], "streamable");
    let meta = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    p.send(&format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{"_meta":{meta}}}}}"#
    ));
    let (_, r) = p.until_response("1", 10 * SECOND);
    assert!(r.has_result, "{}", r.text);
    p.send(&format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{"_meta":{meta}}}}}"#
    ));
    let (_, r) = p.until_response("2", 10 * SECOND);
    assert_eq!(r.tool_names().len(), 3, "{}", r.text);
    let list = &server.posts_of("tools/list")[0];
    assert_eq!(
        list.headers.get("mcp-method").map(String::as_str),
        Some("tools/list")
    );
    assert_eq!(
        list.headers.get("mcp-protocol-version").map(String::as_str),
        Some("2026-07-28")
    );
}

/// Unrelated traffic on an answer stream (a notification, a response to
/// another id) is delivered, in order, before the answer.
#[test]
fn fake_streamable_delivers_a_stream_in_order() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let server = fake("http", "sse-unrelated-events", &[]);
    let mut p = Pump::start(&server.url("/mcp"), &[], "streamable");
    p.initialize("2025-11-25", "{}");
    p.send(r#"{"jsonrpc":"2.0","id":"list-1","method":"tools/list"}"#);
    let (before, r) = p.until_response("\"list-1\"", 10 * SECOND);
    let kinds: Vec<String> = before
        .iter()
        .map(|m| m.method.clone().or(m.id.clone()).unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["notifications/message", "\"unrelated-2\""],
        "{before:?}"
    );
    assert_eq!(r.tool_names().len(), 3);
    // The multi-line data of sse-framing arrives as one line.
    let server = fake("http", "sse-framing", &[]);
    let mut p = Pump::start(&server.url("/mcp"), &[], "streamable");
    p.initialize("2025-11-25", "{}");
    p.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
    assert_eq!(p.until_response("2", 10 * SECOND).1.tool_names().len(), 3);
}

/// A slow request does not hold up a fast one: tools/list takes 3 s, the
/// ping sent after it is answered at once (JSON and SSE answers).
#[test]
fn fake_concurrent_sends_do_not_block_each_other() {
    if !tools::needs(&["python3"]) {
        return;
    }
    for answer in ["json", "sse"] {
        let server = fake(
            "http",
            "ok",
            &[
                "--http-answer",
                answer,
                "--delay",
                "3",
                "--delay-methods",
                "tools/list",
            ],
        );
        let mut p = Pump::start(&server.url("/mcp"), &[], "streamable");
        p.initialize("2025-06-18", "{}");
        let t0 = Instant::now();
        p.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
        assert!(t0.elapsed() < SECOND, "send waited for the answer");
        p.send(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#);
        let (before, _) = p.until_response("3", 10 * SECOND);
        assert!(before.is_empty(), "{before:?}");
        assert!(
            t0.elapsed() < Duration::from_secs(2),
            "{answer}: ping took {:?}",
            t0.elapsed()
        );
        let (_, list) = p.until_response("2", 10 * SECOND);
        assert_eq!(list.tool_names().len(), 3);
        assert!(t0.elapsed() >= Duration::from_secs(3));
    }
}

/// A server that closes an answer stream after its priming event: the
/// answer is fetched with a GET naming the event's id (Last-Event-ID).
#[test]
fn fake_answer_stream_resumed_with_last_event_id() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let server = fake("http", "ok", &["--http-answer", "sse", "--sse-resume"]);
    let mut p = Pump::start(&server.url("/mcp"), &[], "streamable");
    assert_eq!(p.initialize("2025-11-25", "{}"), "2025-11-25");
    p.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
    assert_eq!(p.until_response("2", 10 * SECOND).1.tool_names().len(), 3);
    let resumed: Vec<Seen> = server
        .seen()
        .into_iter()
        .filter(|s| s.method == "GET" && s.headers.contains_key("last-event-id"))
        .collect();
    assert_eq!(resumed.len(), 2, "initialize and tools/list: {resumed:?}");
}

/// An answer stream that ends without the response (the server exits after
/// some notifications): everything before is delivered, the reconnections
/// (Last-Event-ID) fail a bounded number of times, and the request gets an
/// error answer.
#[test]
fn fake_stream_ending_without_the_answer() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let server = fake(
        "http",
        "notification-flood",
        &[
            "--http-answer",
            "sse",
            "--flood-count",
            "5",
            "--flood-message-bytes",
            "2000",
        ],
    );
    let mut p = Pump::start(&server.url("/mcp"), &[], "streamable");
    p.initialize("2025-11-25", "{}");
    let t0 = Instant::now();
    p.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
    let (before, r) = p.until_response("2", 15 * SECOND);
    assert_eq!(before.len(), 5, "{before:?}");
    assert_eq!(r.error_code, Some(UPSTREAM_ERROR_CODE), "{}", r.text);
    assert!(
        r.text.contains("ended without an answer to tools/list"),
        "{}",
        r.text
    );
    assert!(t0.elapsed() < 10 * SECOND, "{:?}", t0.elapsed());
}

/// HTTP 404 for our session id: an error answer for the request, then
/// Closed; sending afterwards fails.
#[test]
fn fake_expired_session_closes() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let server = fake("http", "expired-session", &[]);
    let mut p = Pump::start(&server.url("/mcp"), &[], "streamable");
    p.send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#);
    p.until_response("1", 10 * SECOND);
    p.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
    let mut closed = None;
    let mut answer = None;
    while closed.is_none() {
        match p.next(10 * SECOND) {
            Event::Message(b) => answer = Some(Msg::parse(&b)),
            Event::Closed(why) => closed = Some(why),
        }
    }
    let answer = answer.expect("an error answer to tools/list before Closed");
    assert_eq!(answer.id.as_deref(), Some("2"));
    assert_eq!(answer.error_code, Some(UPSTREAM_ERROR_CODE));
    let why = closed.unwrap();
    assert!(why.starts_with("the server ended the session"), "{why}");
    assert!(why.contains("404"), "{why}");
    assert!(p.rx.recv_timeout(Duration::from_millis(300)).is_err());
    let e = p
        .conn
        .send(br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#)
        .unwrap_err();
    assert!(e.message().contains("ended the session"), "{e}");
}

// ------------------------------------------------------------------ fake server: legacy SSE and the fallback

/// connect_http against a legacy server: the first POST (initialize) is
/// refused (405 at /sse, 404 at the root), the same message goes over the
/// legacy transport, and everything after it.
#[test]
fn fake_legacy_fallback_and_direct() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let server = fake("sse", "ok", &[]);
    for (url, transport) in [
        (server.url("/sse"), "auto"),
        (server.url(""), "auto"),
        (server.url("/sse"), "legacy"),
    ] {
        let mut p = Pump::start(&url, &[], transport);
        assert_eq!(p.initialize("2024-11-05", "{}"), "2024-11-05", "{url}");
        p.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
        let (_, r) = p.until_response("2", 10 * SECOND);
        assert_eq!(r.tool_names().len(), 3, "{url} {transport}");
        p.conn.shutdown();
    }
    let seen = server.seen();
    let legacy_posts = seen
        .iter()
        .filter(|s| s.method == "POST" && s.body.contains("\"initialize\""))
        .count();
    // Two refused probes (/sse, /) and three initializes on /messages.
    assert_eq!(legacy_posts, 5, "{seen:?}");
}

/// The end of the legacy stream is Closed, after every event before it.
#[test]
fn fake_legacy_stream_end_is_closed() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let server = fake(
        "sse",
        "notification-flood",
        &["--flood-count", "3", "--flood-message-bytes", "2000"],
    );
    let mut p = Pump::start(&server.url("/sse"), &[], "legacy");
    p.initialize("2024-11-05", "{}");
    p.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
    let mut notes = 0;
    loop {
        match p.next(10 * SECOND) {
            Event::Message(b) => {
                assert_eq!(
                    Msg::parse(&b).method.as_deref(),
                    Some("notifications/message")
                );
                notes += 1;
            }
            Event::Closed(why) => {
                assert!(why.contains("ended"), "{why}");
                break;
            }
        }
    }
    assert_eq!(notes, 3);
    assert!(p.conn.send(br#"{"jsonrpc":"2.0","method":"x"}"#).is_err());
}

// ------------------------------------------------------------------ credentials and failures

/// A header of the lock entry (with a `${VAR}` reference) reaches the
/// server on every request; a server that echoes it in an error, and URL
/// user information, never show in what the upstream delivers or returns.
#[test]
fn headers_reach_the_server_and_secrets_are_redacted() {
    if !tools::needs(&["python3"]) {
        return;
    }
    std::env::set_var("CP_PROXY_TEST_TOKEN", "tok-5be1f0a9d2c4");
    let server = fake("http", "ok", &[]);
    let headers = [("Authorization", "Bearer ${CP_PROXY_TEST_TOKEN}")];
    let mut p = Pump::start(&server.url("/mcp"), &headers, "streamable");
    p.initialize("2025-06-18", "{}");
    p.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
    p.until_response("2", 10 * SECOND);
    p.conn.shutdown();
    let seen = server.seen();
    assert!(seen.len() >= 4);
    for s in &seen {
        assert_eq!(
            s.headers.get("authorization").map(String::as_str),
            Some("Bearer tok-5be1f0a9d2c4"),
            "{} {}",
            s.method,
            s.body
        );
    }

    // A server that puts the credential in its error message.
    let echo = EchoServer::start();
    let url = format!("http://user:pw-77c3e1a0b9@127.0.0.1:{}/mcp", echo.port);
    let mut p = Pump::start(&url, &headers, "auto");
    p.send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#);
    let (_, r) = p.until_response("1", 10 * SECOND);
    assert_eq!(r.error_code, Some(UPSTREAM_ERROR_CODE));
    let text = r.error_message.unwrap_or_default();
    assert!(text.contains("HTTP 401"), "{text}");
    assert!(text.contains("***"), "{text}");
    for secret in ["tok-5be1f0a9d2c4", "pw-77c3e1a0b9"] {
        assert!(!r.text.contains(secret), "{}", r.text);
    }
    assert!(echo.saw_token(), "the header reached the server");

    // An error returned by a constructor is redacted too.
    let e = testing::connect("http://u:pw-77c3e1a0b9@[::1/", &[], &opts(), "auto")
        .err()
        .expect("a bad URL");
    assert!(!e.to_string().contains("pw-77c3e1a0b9"), "{e}");
}

/// Answers every request with 401 and a JSON-RPC error that echoes the
/// Authorization header; remembers whether it saw the token.
struct EchoServer {
    port: u16,
    saw: mpsc::Receiver<bool>,
}

impl EchoServer {
    fn start() -> EchoServer {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let (tx, saw) = mpsc::channel();
        std::thread::spawn(move || {
            for conn in l.incoming().take(4) {
                let Ok(mut c) = conn else { return };
                let mut r = BufReader::new(c.try_clone().unwrap());
                let mut auth = String::new();
                let mut len = 0usize;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    let lower = line.to_ascii_lowercase();
                    if lower.starts_with("authorization:") {
                        auth = line[14..].trim().to_string();
                    }
                    if let Some(v) = lower.strip_prefix("content-length:") {
                        len = v.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0u8; len];
                let _ = std::io::Read::read_exact(&mut r, &mut body);
                let _ = tx.send(auth.contains("tok-5be1f0a9d2c4"));
                let payload = format!(
                    r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":-32001,"message":"invalid credentials: {auth}"}}}}"#
                );
                let _ = write!(
                    c,
                    "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{payload}",
                    payload.len()
                );
            }
        });
        EchoServer { port, saw }
    }

    fn saw_token(&self) -> bool {
        self.saw.try_iter().any(|s| s)
    }
}

/// An unreachable server: the request is answered with an error at once
/// (no legacy attempt, no hang). A server that accepts the connection but
/// never answers: the error comes within the timeouts.
#[test]
fn unreachable_and_silent_servers() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port(); // closed again: nobody listens
    let mut p = Pump::start(&format!("http://127.0.0.1:{port}/mcp"), &[], "auto");
    let t0 = Instant::now();
    p.send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#);
    let (_, r) = p.until_response("1", 10 * SECOND);
    assert_eq!(r.error_code, Some(UPSTREAM_ERROR_CODE), "{}", r.text);
    assert!(r.text.contains("could not talk to"), "{}", r.text);
    assert!(t0.elapsed() < 5 * SECOND);

    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let o = ClientOptions {
        request_timeout: Duration::from_millis(500),
        total_timeout: Duration::from_millis(1500),
        ..ClientOptions::default()
    };
    let mut p = Pump::with(
        &format!("http://127.0.0.1:{port}/mcp"),
        &[],
        "streamable",
        &o,
    );
    let t0 = Instant::now();
    p.send(r#"{"jsonrpc":"2.0","id":"slow","method":"tools/list"}"#);
    p.send(r#"{"jsonrpc":"2.0","method":"notifications/x"}"#);
    let (_, r) = p.until_response("\"slow\"", 10 * SECOND);
    assert_eq!(r.error_code, Some(UPSTREAM_ERROR_CODE));
    assert!(r.text.contains("total timeout of 1.5 s"), "{}", r.text);
    assert!(t0.elapsed() < 4 * SECOND, "{:?}", t0.elapsed());
    drop(silent);
}

// ------------------------------------------------------------------ server-everything

/// The real reference server over Streamable HTTP: a session, the GET
/// stream carrying its roots/list request (server → client) and our
/// answer to it, progress before the result of a long operation, a
/// sampling request inside a tool call's answer stream, a ping answered
/// while a long call runs, and the DELETE at shutdown.
#[test]
fn everything_streamable_http() {
    if !npm_ready() {
        return;
    }
    let server = everything("streamableHttp");
    let mut p = Pump::start(&server.url("/mcp"), &[], "auto");
    let caps = r#"{"roots":{"listChanged":true},"sampling":{}}"#;
    assert_eq!(p.initialize("2025-11-25", caps), "2025-11-25");

    // The server asks for our roots on its own, over the GET stream.
    let ask = p.until_method("roots/list", 10 * SECOND);
    let ask_id = ask.id.clone().expect("a request");
    p.send(&format!(
        r#"{{"jsonrpc":"2.0","id":{ask_id},"result":{{"roots":[{{"uri":"file:///tmp","name":"tmp"}}]}}}}"#
    ));
    let note = p.until_method("notifications/message", 10 * SECOND);
    assert!(
        note.text.contains("Roots updated: 1 root(s)"),
        "{}",
        note.text
    );

    p.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
    let (_, list) = p.until_response("2", 10 * SECOND);
    let names = list.tool_names();
    for t in [
        "trigger-long-running-operation",
        "trigger-sampling-request",
        "get-roots-list",
    ] {
        assert!(names.iter().any(|n| n == t), "{t} missing from {names:?}");
    }

    // Progress notifications come before the result; a ping is not held up.
    let t0 = Instant::now();
    p.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"trigger-long-running-operation","arguments":{"duration":2,"steps":4},"_meta":{"progressToken":"pt-1"}}}"#);
    p.send(r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#);
    let (_, pong) = p.until_response("4", 10 * SECOND);
    assert!(pong.has_result);
    assert!(
        t0.elapsed() < Duration::from_millis(1500),
        "{:?}",
        t0.elapsed()
    );
    let (before, done) = p.until_response("3", 15 * SECOND);
    let progress: Vec<&Msg> = before
        .iter()
        .filter(|m| m.method.as_deref() == Some("notifications/progress"))
        .collect();
    assert_eq!(progress.len(), 4, "{before:?}");
    assert!(progress.iter().all(|m| m.text.contains("\"pt-1\"")));
    assert!(
        done.text.contains("Long running operation completed"),
        "{}",
        done.text
    );

    // A sampling request inside the answer stream of a tool call.
    p.send(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"trigger-sampling-request","arguments":{"prompt":"hi","maxTokens":5}}}"#);
    let ask = p.until_method("sampling/createMessage", 10 * SECOND);
    let ask_id = ask.id.clone().expect("a request");
    p.send(&format!(
        r#"{{"jsonrpc":"2.0","id":{ask_id},"result":{{"role":"assistant","content":{{"type":"text","text":"sampled-by-test"}},"model":"test-model"}}}}"#
    ));
    let (_, r) = p.until_response("5", 10 * SECOND);
    assert!(r.text.contains("sampled-by-test"), "{}", r.text);

    // A cancelled call: its stream is let go (no more progress is
    // delivered), and no answer is made up for it.
    p.send(r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"trigger-long-running-operation","arguments":{"duration":20,"steps":40},"_meta":{"progressToken":"pt-6"}}}"#);
    p.until_method("notifications/progress", 10 * SECOND);
    p.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6,"reason":"test"}}"#);
    std::thread::sleep(SECOND);
    while p.rx.try_recv().is_ok() {}
    let late = p.rx.recv_timeout(2 * SECOND);
    assert!(late.is_err(), "delivered after the cancellation: {late:?}");

    p.conn.shutdown();
    let log_path = server.dir.join("stdout.log");
    let until = Instant::now() + 5 * SECOND;
    loop {
        let log = std::fs::read_to_string(&log_path).unwrap_or_default();
        if log.contains("Received session termination request") {
            break;
        }
        assert!(Instant::now() < until, "no DELETE seen: {log}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The real server's legacy SSE mode through connect_http (the /sse URL
/// and the root URL) and directly: tools/list, and progress over the
/// stream before the result.
#[test]
fn everything_legacy_sse() {
    if !npm_ready() {
        return;
    }
    let server = everything("sse");
    for (url, transport) in [
        (server.url("/sse"), "auto"),
        (server.url(""), "auto"),
        (server.url("/sse"), "legacy"),
    ] {
        let mut p = Pump::start(&url, &[], transport);
        assert_eq!(p.initialize("2024-11-05", "{}"), "2024-11-05");
        p.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
        let (_, list) = p.until_response("2", 10 * SECOND);
        assert!(
            list.tool_names().len() >= 12,
            "{url}: {:?}",
            list.tool_names()
        );
        p.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"trigger-long-running-operation","arguments":{"duration":0.3,"steps":3},"_meta":{"progressToken":7}}}"#);
        let (before, done) = p.until_response("3", 10 * SECOND);
        let progress = before
            .iter()
            .filter(|m| m.method.as_deref() == Some("notifications/progress"))
            .count();
        assert_eq!(progress, 3, "{url}: {before:?}");
        assert!(done.has_result);
        p.conn.shutdown();
    }
}
