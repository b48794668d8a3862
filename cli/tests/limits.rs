//! Every resource limit (issue 6 item 3, docs/SECURITY.md "Limits"), tested
//! at the limit and just over it, through the library API and through the
//! `contractpin` binary:
//!
//! | limit | library | CLI flag | default |
//! |---|---|---|---|
//! | input size | `Limits::max_input` | `--max-input-bytes` | 64 MiB |
//! | nesting depth | `Limits::max_depth` | `--max-depth` | 256 |
//! | number of tools | `Limits::max_tools` | `--max-tools` | 100 000 |
//! | number of pages | `ClientOptions::max_pages` | `--max-pages` | 1000 |
//! | stdout line of a stdio server | `ClientOptions::max_line_bytes` | `--max-line-bytes` | 16 MiB |
//! | HTTP response (and file) size | `ClientOptions::max_response_bytes` | `--max-response-bytes` | 64 MiB |
//! | time per request | `ClientOptions::request_timeout` | `--timeout` | 30 s |
//! | total time per server | `ClientOptions::total_timeout` | `--total-timeout` | 120 s |
//!
//! "At" means a value exactly at the limit is accepted; "over" means one
//! unit more fails with the documented error, quickly, and (for `init`)
//! writes no lock. The defaults are tested at/over by behaviour where that is
//! cheap (depth, input size, tools, pages, line length, response size) and
//! by value for the two timeouts (waiting 30 s / 120 s is not a test).
//! Servers are tests/mcp/fake_server.py scenarios (tests/mcp/SCENARIOS.md):
//! `huge-line --huge-bytes N`, `many-pages --pages N`, `many-tools --count N`,
//! `slow --delay S`.
#![cfg(unix)]

#[path = "../../tests/support/tools.rs"]
mod tools;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use contractpin::mcp::{fetch_tools_list, ClientOptions, Fetched, McpErrorKind, ServerSpec};
use contractpin::{Context, ErrorKind, Limits, ListOptions};

#[path = "support/run.rs"]
mod run;

use run::{cli, HttpServer, Run, Scratch};

const FAKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/mcp/fake_server.py");

// ------------------------------------------------------------------ helpers

/// `init` of a stdio fake server into a new lock; returns the run and whether
/// a lock was written.
fn init_stdio(flags: &[&str], scenario: &str, extra: &[&str], deadline: Duration) -> (Run, bool) {
    let dir = Scratch::new();
    let lock = dir.path("contractpin.lock");
    let lock_s = lock.display().to_string();
    let mut args = vec!["init", "--lock", &lock_s, "--name", "fake"];
    args.extend_from_slice(flags);
    args.extend_from_slice(&["--", "python3", FAKE, "--scenario", scenario]);
    args.extend_from_slice(extra);
    let run = cli(&args, deadline);
    (run, lock.exists())
}

/// `init --http` against a running fake server.
fn init_http(flags: &[&str], url: &str, deadline: Duration) -> (Run, bool) {
    let dir = Scratch::new();
    let lock = dir.path("contractpin.lock");
    let lock_s = lock.display().to_string();
    let mut args = vec!["init", "--lock", &lock_s, "--name", "fake", "--http", url];
    args.extend_from_slice(flags);
    let run = cli(&args, deadline);
    (run, lock.exists())
}

#[track_caller]
fn assert_ok(r: &(Run, bool), tools: usize) {
    let (run, wrote) = r;
    assert_eq!(run.code, 0, "{run:#?}");
    assert!(*wrote, "no lock written: {run:#?}");
    assert!(
        run.stdout.contains(&format!("({tools} tool")),
        "expected {tools} tools: {run:#?}"
    );
}

/// Exit 1, no lock, and the error names the limit.
#[track_caller]
fn assert_refused(r: &(Run, bool), words: &str) {
    let (run, wrote) = r;
    assert_eq!(run.code, 1, "{run:#?}");
    assert!(
        !*wrote,
        "a lock was written although the fetch failed: {run:#?}"
    );
    assert!(
        run.stderr.contains(words),
        "stderr should mention {words:?}: {run:#?}"
    );
}

fn stdio(scenario: &str, extra: &[&str]) -> ServerSpec {
    let mut command: Vec<String> = vec![
        "python3".into(),
        FAKE.into(),
        "--scenario".into(),
        scenario.into(),
    ];
    command.extend(extra.iter().map(|s| s.to_string()));
    ServerSpec::Stdio {
        command,
        env: BTreeMap::new(),
        cwd: None,
    }
}

fn opts() -> ClientOptions {
    ClientOptions {
        request_timeout: Duration::from_secs(20),
        total_timeout: Duration::from_secs(60),
        shutdown_grace: Duration::from_millis(500),
        ..ClientOptions::default()
    }
}

fn fetch(spec: &ServerSpec, o: &ClientOptions) -> Result<Fetched, contractpin::mcp::McpError> {
    fetch_tools_list(spec, o)
}

fn tool_count(f: &Fetched) -> usize {
    contractpin::digest_tools_list(&f.pages)
        .expect("valid list")
        .tools
        .len()
}

/// A fake server on 127.0.0.1 over Streamable HTTP (killed on drop).
/// The fake MCP server over HTTP, running `scenario` with `extra` flags.
fn http_fake(scenario: &str, extra: &[&str]) -> HttpServer {
    HttpServer::start(|port_file| {
        let mut c = Command::new("python3");
        c.arg(FAKE)
            .args([
                "--transport",
                "http",
                "--port",
                "0",
                "--scenario",
                scenario,
                "--port-file",
            ])
            .arg(port_file)
            .args(extra);
        c
    })
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes).unwrap();
}

/// `[` repeated `depth` times, then `]` as often.
fn nested(depth: usize) -> Vec<u8> {
    let mut v = vec![b'['; depth];
    v.extend(std::iter::repeat_n(b']', depth));
    v
}

/// A JSON string document of exactly `n` bytes (n >= 2).
fn string_doc(n: usize) -> Vec<u8> {
    let mut v = vec![b'"'];
    v.extend(std::iter::repeat_n(b'x', n - 2));
    v.push(b'"');
    v
}

/// A bare array of `n` tools `{"name":"t<i>"}`.
fn tools(n: usize) -> Vec<u8> {
    let mut v = b"[".to_vec();
    for i in 0..n {
        if i > 0 {
            v.push(b',');
        }
        v.extend(format!("{{\"name\":\"t{i}\"}}").bytes());
    }
    v.push(b']');
    v
}

/// The deepest nesting of a JSON document (top-level container = 1).
fn depth_of(doc: &[u8]) -> u32 {
    let (mut d, mut max, mut in_str, mut esc) = (0u32, 0u32, false, false);
    for &b in doc {
        if in_str {
            match (esc, b) {
                (true, _) => esc = false,
                (false, b'\\') => esc = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'[' | b'{' => {
                d += 1;
                max = max.max(d);
            }
            b']' | b'}' => d -= 1,
            _ => {}
        }
    }
    max
}

const QUICK: Duration = Duration::from_secs(30);

// ------------------------------------------------------------------ input size

#[test]
fn input_size_library_at_and_over() {
    let doc = string_doc(1000);
    let at = Limits {
        max_input: 1000,
        ..Limits::DEFAULT
    };
    assert!(Context::with_limits(at).canonicalize(&doc).is_ok());
    let over = Limits {
        max_input: 999,
        ..Limits::DEFAULT
    };
    let e = Context::with_limits(over).canonicalize(&doc).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::SizeLimit, 999));
    // The same limit guards tools/list digests.
    let list = tools(3);
    let at = Limits {
        max_input: list.len(),
        ..Limits::DEFAULT
    };
    assert!(Context::with_limits(at)
        .digest_tools_list(&list, ListOptions::default(), |_| {})
        .is_ok());
    let over = Limits {
        max_input: list.len() - 1,
        ..Limits::DEFAULT
    };
    let e = Context::with_limits(over)
        .digest_tools_list(&list, ListOptions::default(), |_| {})
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::SizeLimit);
}

#[test]
fn input_size_default_is_64_mib() {
    assert_eq!(Limits::DEFAULT.max_input, 64 << 20);
    let at = string_doc(64 << 20);
    let out = contractpin::canonicalize(&at).expect("exactly 64 MiB is accepted");
    assert_eq!(out.len(), 64 << 20);
    let over = string_doc((64 << 20) + 1);
    let e = contractpin::canonicalize(&over).unwrap_err();
    assert_eq!((e.kind(), e.offset()), (ErrorKind::SizeLimit, 64 << 20));
    // The binary, with no flags: the same default.
    let dir = Scratch::new();
    let file = dir.path("big.json");
    write(&file, &over);
    let run = cli(&["canon", file.to_str().unwrap()], QUICK);
    assert_eq!(run.code, 2, "{run:#?}");
    assert!(
        run.stderr.contains("size-limit at byte 67108864"),
        "{}",
        run.stderr
    );
    write(&file, &at);
    let run = cli(&["canon", file.to_str().unwrap()], QUICK);
    assert_eq!(
        (run.code, run.stdout.len()),
        (0, 64 << 20),
        "{}",
        run.stderr
    );
}

#[test]
fn input_size_cli_canon_digest_and_init_file_at_and_over() {
    let dir = Scratch::new();
    let doc = tools(2);
    let file = dir.path("list.json");
    write(&file, &doc);
    let f = file.to_str().unwrap();
    let n = doc.len().to_string();
    let n1 = (doc.len() - 1).to_string();
    for cmd in ["canon", "digest"] {
        let run = cli(&[cmd, "--max-input-bytes", &n, f], QUICK);
        assert_eq!(run.code, 0, "{cmd}: {run:#?}");
        let run = cli(&[cmd, "--max-input-bytes", &n1, f], QUICK);
        assert_eq!(run.code, 2, "{cmd}: {run:#?}");
        assert!(
            run.stderr.contains(&format!("size-limit at byte {n1}")),
            "{cmd}: {}",
            run.stderr
        );
    }
    // init --file: the dump is the input; over the limit, no lock and exit 1.
    let lock = dir.path("contractpin.lock");
    let l = lock.to_str().unwrap();
    let run = cli(
        &[
            "init",
            "--lock",
            l,
            "--name",
            "d",
            "--file",
            f,
            "--max-input-bytes",
            &n1,
        ],
        QUICK,
    );
    assert_eq!(run.code, 1, "{run:#?}");
    assert!(run.stderr.contains("size-limit"), "{}", run.stderr);
    assert!(!lock.exists());
    let run = cli(
        &[
            "init",
            "--lock",
            l,
            "--name",
            "d",
            "--file",
            f,
            "--max-input-bytes",
            &n,
        ],
        QUICK,
    );
    assert_eq!(run.code, 0, "{run:#?}");
    assert!(lock.exists());
}

#[test]
fn input_size_of_a_live_list_at_and_over() {
    if !tools::needs(&["python3"]) {
        return;
    }
    // The limit applies to the tools/list document the client assembles
    // (the pages as a JSON array); measure it with the library first.
    let fetched = fetch(&stdio("ok", &[]), &opts()).unwrap();
    let size = fetched.pages.len();
    let at = Limits {
        max_input: size,
        ..Limits::DEFAULT
    };
    let over = Limits {
        max_input: size - 1,
        ..Limits::DEFAULT
    };
    assert!(Context::with_limits(at)
        .digest_tools_list(&fetched.pages, ListOptions::default(), |_| {})
        .is_ok());
    assert_eq!(
        Context::with_limits(over)
            .digest_tools_list(&fetched.pages, ListOptions::default(), |_| {})
            .unwrap_err()
            .kind(),
        ErrorKind::SizeLimit
    );
    let s = size.to_string();
    let s1 = (size - 1).to_string();
    assert_ok(&init_stdio(&["--max-input-bytes", &s], "ok", &[], QUICK), 3);
    assert_refused(
        &init_stdio(&["--max-input-bytes", &s1], "ok", &[], QUICK),
        "size-limit",
    );
}

// ------------------------------------------------------------------ depth

#[test]
fn depth_library_at_and_over_including_the_default() {
    for limit in [0u32, 1, 3, 256] {
        let l = Limits {
            max_depth: limit,
            ..Limits::DEFAULT
        };
        // Depth 0 is a scalar document.
        let at = if limit == 0 {
            b"0".to_vec()
        } else {
            nested(limit as usize)
        };
        assert!(
            Context::with_limits(l).canonicalize(&at).is_ok(),
            "depth {limit} at limit {limit}"
        );
        let e = Context::with_limits(l)
            .canonicalize(&nested(limit as usize + 1))
            .unwrap_err();
        // The container that opens one level too deep is named.
        assert_eq!(
            (e.kind(), e.offset()),
            (ErrorKind::DepthLimit, limit as usize)
        );
    }
    assert_eq!(Limits::DEFAULT.max_depth, 256);
    assert!(contractpin::canonicalize(&nested(256)).is_ok());
    assert_eq!(
        contractpin::canonicalize(&nested(257)).unwrap_err().kind(),
        ErrorKind::DepthLimit
    );
    // Far deeper than any stack could recurse: a clean error, not a crash.
    assert_eq!(
        contractpin::canonicalize(&nested(1 << 20))
            .unwrap_err()
            .kind(),
        ErrorKind::DepthLimit
    );
}

#[test]
fn depth_cli_at_and_over() {
    let dir = Scratch::new();
    let file = dir.path("deep.json");
    let f = file.to_str().unwrap();
    // Default 256.
    write(&file, &nested(256));
    assert_eq!(cli(&["canon", f], QUICK).code, 0);
    write(&file, &nested(257));
    let run = cli(&["canon", f], QUICK);
    assert_eq!(run.code, 2, "{run:#?}");
    assert!(
        run.stderr.contains("depth-limit at byte 256"),
        "{}",
        run.stderr
    );
    // A flag.
    write(&file, &nested(5));
    assert_eq!(cli(&["canon", "--max-depth", "5", f], QUICK).code, 0);
    let run = cli(&["canon", "--max-depth", "4", f], QUICK);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("depth-limit at byte 4"),
        "{}",
        run.stderr
    );
    write(&file, b"[{\"name\":\"a\",\"inputSchema\":{\"a\":[1]}}]");
    assert_eq!(cli(&["digest", "--max-depth", "4", f], QUICK).code, 0);
    assert_eq!(cli(&["digest", "--max-depth", "3", f], QUICK).code, 2);
}

#[test]
fn depth_of_a_live_list_at_and_over() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let fetched = fetch(&stdio("ok", &[]), &opts()).unwrap();
    let depth = depth_of(&fetched.pages);
    assert!(depth >= 4, "{depth}");
    let lim = |d: u32| Limits {
        max_depth: d,
        ..Limits::DEFAULT
    };
    assert!(Context::with_limits(lim(depth))
        .digest_tools_list(&fetched.pages, ListOptions::default(), |_| {})
        .is_ok());
    assert_eq!(
        Context::with_limits(lim(depth - 1))
            .digest_tools_list(&fetched.pages, ListOptions::default(), |_| {})
            .unwrap_err()
            .kind(),
        ErrorKind::DepthLimit
    );
    let d = depth.to_string();
    let d1 = (depth - 1).to_string();
    assert_ok(&init_stdio(&["--max-depth", &d], "ok", &[], QUICK), 3);
    assert_refused(
        &init_stdio(&["--max-depth", &d1], "ok", &[], QUICK),
        "depth-limit",
    );
}

// ------------------------------------------------------------------ tools

#[test]
fn tools_library_at_and_over_including_the_default() {
    let list = tools(7);
    for (limit, ok) in [(7usize, true), (6, false)] {
        let r = Context::with_limits(Limits {
            max_tools: limit,
            ..Limits::DEFAULT
        })
        .digest_tools_list(&list, ListOptions::default(), |_| {});
        match (ok, r) {
            (true, Ok((_, n))) => assert_eq!(n, 7),
            (false, Err(e)) => assert_eq!(e.kind(), ErrorKind::ToolLimit),
            (_, r) => panic!("max_tools {limit}: {r:?}"),
        }
    }
    // Across pages the count is cumulative.
    let pages = br#"[{"tools":[{"name":"a"},{"name":"b"}]},{"tools":[{"name":"c"}]}]"#;
    let two = Limits {
        max_tools: 2,
        ..Limits::DEFAULT
    };
    assert_eq!(
        Context::with_limits(two)
            .digest_tools_list(pages, ListOptions::default(), |_| {})
            .unwrap_err()
            .kind(),
        ErrorKind::ToolLimit
    );
    // The default, 100 000.
    assert_eq!(Limits::DEFAULT.max_tools, 100_000);
    let at = tools(100_000);
    let (_, n) = Context::new()
        .digest_tools_list(&at, ListOptions::default(), |_| {})
        .unwrap();
    assert_eq!(n, 100_000);
    let over = tools(100_001);
    assert_eq!(
        Context::new()
            .digest_tools_list(&over, ListOptions::default(), |_| {})
            .unwrap_err()
            .kind(),
        ErrorKind::ToolLimit
    );
}

#[test]
fn tools_cli_at_and_over() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let dir = Scratch::new();
    let file = dir.path("list.json");
    let f = file.to_str().unwrap();
    write(&file, &tools(5));
    assert_eq!(cli(&["digest", "--max-tools", "5", f], QUICK).code, 0);
    let run = cli(&["digest", "--max-tools", "4", f], QUICK);
    assert_eq!(run.code, 2, "{run:#?}");
    assert!(run.stderr.contains("tool-limit"), "{}", run.stderr);
    // A live server (stdio), counted over all pages.
    let extra = ["--count", "5", "--page-size", "2"];
    assert_ok(
        &init_stdio(&["--max-tools", "5"], "many-tools", &extra, QUICK),
        5,
    );
    assert_refused(
        &init_stdio(&["--max-tools", "4"], "many-tools", &extra, QUICK),
        "tool-limit",
    );
}

// ------------------------------------------------------------------ pages

#[test]
fn pages_library_at_and_over() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let mut o = opts();
    o.max_pages = 4;
    let f = fetch(&stdio("many-pages", &["--pages", "4"]), &o).unwrap();
    assert_eq!((f.page_count, tool_count(&f)), (4, 4));
    let e = fetch(&stdio("many-pages", &["--pages", "5"]), &o).unwrap_err();
    assert_eq!(e.kind(), &McpErrorKind::PageLimit, "{e}");
    // An endless server stops at the cap too.
    let t0 = Instant::now();
    let e = fetch(&stdio("many-pages", &[]), &o).unwrap_err();
    assert_eq!(e.kind(), &McpErrorKind::PageLimit, "{e}");
    assert!(t0.elapsed() < Duration::from_secs(10));
}

#[test]
fn pages_default_is_1000() {
    if !tools::needs(&["python3"]) {
        return;
    }
    assert_eq!(ClientOptions::default().max_pages, 1000);
    let o = opts(); // default max_pages
    let f = fetch(&stdio("many-pages", &["--pages", "1000"]), &o).unwrap();
    assert_eq!(f.page_count, 1000);
    let e = fetch(&stdio("many-pages", &["--pages", "1001"]), &o).unwrap_err();
    assert_eq!(e.kind(), &McpErrorKind::PageLimit, "{e}");
}

#[test]
fn pages_cli_at_and_over() {
    if !tools::needs(&["python3"]) {
        return;
    }
    assert_ok(
        &init_stdio(
            &["--max-pages", "3"],
            "many-pages",
            &["--pages", "3"],
            QUICK,
        ),
        3,
    );
    assert_refused(
        &init_stdio(
            &["--max-pages", "3"],
            "many-pages",
            &["--pages", "4"],
            QUICK,
        ),
        "page limit is 3",
    );
    // Over HTTP as well.
    let fake = http_fake("many-pages", &["--pages", "3"]);
    assert_ok(&init_http(&["--max-pages", "3"], &fake.url, QUICK), 3);
    assert_refused(
        &init_http(&["--max-pages", "2"], &fake.url, QUICK),
        "page limit is 2",
    );
}

// ------------------------------------------------------------------ stdout line length

#[test]
fn line_length_library_at_and_over_including_the_default() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let n = 100_000usize;
    let arg = n.to_string();
    let mut o = opts();
    o.max_line_bytes = n;
    let f = fetch(&stdio("huge-line", &["--huge-bytes", &arg]), &o).unwrap();
    assert_eq!(tool_count(&f), 1);
    o.max_line_bytes = n - 1;
    let e = fetch(&stdio("huge-line", &["--huge-bytes", &arg]), &o).unwrap_err();
    assert_eq!(e.kind(), &McpErrorKind::LineTooLong, "{e}");
    // The default, 16 MiB.
    let o = opts();
    assert_eq!(o.max_line_bytes, 16 << 20);
    let at = (16usize << 20).to_string();
    let over = ((16usize << 20) + 1).to_string();
    let f = fetch(&stdio("huge-line", &["--huge-bytes", &at]), &o).unwrap();
    assert_eq!(tool_count(&f), 1);
    let e = fetch(&stdio("huge-line", &["--huge-bytes", &over]), &o).unwrap_err();
    assert_eq!(e.kind(), &McpErrorKind::LineTooLong, "{e}");
}

#[test]
fn line_length_cli_at_and_over() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let extra = ["--huge-bytes", "50000"];
    assert_ok(
        &init_stdio(&["--max-line-bytes", "50000"], "huge-line", &extra, QUICK),
        1,
    );
    assert_refused(
        &init_stdio(&["--max-line-bytes", "49999"], "huge-line", &extra, QUICK),
        "longer than 49999 bytes",
    );
}

// ------------------------------------------------------------------ HTTP response size

#[test]
fn response_size_library_at_and_over_including_the_default() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let n = 100_000usize;
    let fake = http_fake("huge-line", &["--huge-bytes", &n.to_string()]);
    let spec = ServerSpec::Http {
        url: fake.url.clone(),
        headers: Vec::new(),
    };
    let mut o = opts();
    o.max_response_bytes = n;
    assert_eq!(tool_count(&fetch(&spec, &o).unwrap()), 1);
    o.max_response_bytes = n - 1;
    let e = fetch(&spec, &o).unwrap_err();
    assert_eq!(e.kind(), &McpErrorKind::ResponseTooLarge, "{e}");
    // The default, 64 MiB.
    assert_eq!(ClientOptions::default().max_response_bytes, 64 << 20);
    let big = 64usize << 20;
    for (size, ok) in [(big, true), (big + 1, false)] {
        let fake = http_fake("huge-line", &["--huge-bytes", &size.to_string()]);
        let spec = ServerSpec::Http {
            url: fake.url.clone(),
            headers: Vec::new(),
        };
        match (ok, fetch(&spec, &opts())) {
            (true, Ok(f)) => assert_eq!(tool_count(&f), 1),
            (false, Err(e)) => assert_eq!(e.kind(), &McpErrorKind::ResponseTooLarge, "{e}"),
            (_, r) => panic!("{size} bytes: {:?}", r.map(|f| f.page_count)),
        }
    }
}

#[test]
fn response_size_cli_at_and_over() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let fake = http_fake("huge-line", &["--huge-bytes", "50000"]);
    assert_ok(
        &init_http(&["--max-response-bytes", "50000"], &fake.url, QUICK),
        1,
    );
    assert_refused(
        &init_http(&["--max-response-bytes", "49999"], &fake.url, QUICK),
        "larger than 49999 bytes",
    );
    // The file transport reads under the same limit.
    let dir = Scratch::new();
    let file = dir.path("list.json");
    let doc = tools(3);
    write(&file, &doc);
    let lock = dir.path("contractpin.lock");
    let (f, l) = (file.to_str().unwrap(), lock.to_str().unwrap());
    let n1 = (doc.len() - 1).to_string();
    let run = cli(
        &[
            "init",
            "--lock",
            l,
            "--name",
            "d",
            "--file",
            f,
            "--max-response-bytes",
            &n1,
        ],
        QUICK,
    );
    assert_eq!(run.code, 1, "{run:#?}");
    assert!(!lock.exists());
    let n = doc.len().to_string();
    let run = cli(
        &[
            "init",
            "--lock",
            l,
            "--name",
            "d",
            "--file",
            f,
            "--max-response-bytes",
            &n,
        ],
        QUICK,
    );
    assert_eq!(run.code, 0, "{run:#?}");
}

// ------------------------------------------------------------------ time

#[test]
fn timeout_defaults_by_value() {
    // Waiting 30 s and 120 s is not a test; the values are checked, and the
    // behaviour is checked with small values below.
    let o = ClientOptions::default();
    assert_eq!(o.request_timeout, Duration::from_secs(30));
    assert_eq!(o.total_timeout, Duration::from_secs(120));
}

#[test]
fn request_timeout_library_within_and_over() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let mut o = opts();
    o.request_timeout = Duration::from_millis(3000);
    let f = fetch(&stdio("slow", &["--delay", "0.5"]), &o).unwrap();
    assert_eq!(tool_count(&f), 3);
    o.request_timeout = Duration::from_millis(500);
    let t0 = Instant::now();
    let e = fetch(&stdio("slow", &["--delay", "5"]), &o).unwrap_err();
    assert_eq!(e.kind(), &McpErrorKind::Timeout, "{e}");
    assert!(t0.elapsed() < Duration::from_secs(3), "{:?}", t0.elapsed());
}

#[test]
fn request_timeout_cli_within_and_over() {
    if !tools::needs(&["python3"]) {
        return;
    }
    assert_ok(
        &init_stdio(&["--timeout", "3"], "slow", &["--delay", "0.5"], QUICK),
        3,
    );
    let r = init_stdio(&["--timeout", "0.5"], "slow", &["--delay", "5"], QUICK);
    assert_refused(&r, "request timeout of 0.5 s");
    assert!(r.0.took < Duration::from_secs(4), "{:?}", r.0.took);
    let fake = http_fake("slow", &["--delay", "5"]);
    let r = init_http(&["--timeout", "0.5"], &fake.url, QUICK);
    assert_refused(&r, "timeout");
    assert!(r.0.took < Duration::from_secs(4), "{:?}", r.0.took);
}

#[test]
fn total_timeout_library_within_and_over() {
    if !tools::needs(&["python3"]) {
        return;
    }
    // Three pages, each answered after 0.4 s: ~1.2 s in all, every request
    // well within its own timeout.
    let extra = ["--delay", "0.4", "--page-size", "1"];
    let mut o = opts();
    o.request_timeout = Duration::from_secs(5);
    o.total_timeout = Duration::from_secs(8);
    let f = fetch(&stdio("slow", &extra), &o).unwrap();
    assert_eq!((f.page_count, tool_count(&f)), (3, 3));
    o.total_timeout = Duration::from_millis(900);
    let t0 = Instant::now();
    let e = fetch(&stdio("slow", &extra), &o).unwrap_err();
    assert_eq!(e.kind(), &McpErrorKind::Timeout, "{e}");
    assert!(e.to_string().contains("total timeout"), "{e}");
    assert!(t0.elapsed() < Duration::from_secs(4), "{:?}", t0.elapsed());
}

#[test]
fn total_timeout_cli_within_and_over() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let extra = ["--delay", "0.4", "--page-size", "1"];
    assert_ok(
        &init_stdio(
            &["--timeout", "5", "--total-timeout", "8"],
            "slow",
            &extra,
            QUICK,
        ),
        3,
    );
    let r = init_stdio(
        &["--timeout", "5", "--total-timeout", "0.9"],
        "slow",
        &extra,
        QUICK,
    );
    assert_refused(&r, "total timeout of 0.9 s");
    assert!(r.0.took < Duration::from_secs(4), "{:?}", r.0.took);
}

// ------------------------------------------------------------------ flag validation

#[test]
fn limit_flags_reject_nonsense_with_exit_2() {
    let dir = Scratch::new();
    let lock = dir.path("contractpin.lock");
    let l = lock.to_str().unwrap();
    for flags in [
        &["--max-pages", "0"][..],
        &["--max-line-bytes", "0"],
        &["--max-response-bytes", "0"],
        &["--max-tools", "0"],
        &["--timeout", "0"],
        &["--timeout", "-1"],
        &["--timeout", "nan"],
        &["--total-timeout", "inf"],
        &["--max-depth", "-1"],
        &["--max-input-bytes", "lots"],
    ] {
        let mut args = vec!["init", "--lock", l, "--name", "x"];
        args.extend_from_slice(flags);
        args.extend_from_slice(&["--", "python3", FAKE]);
        let run = cli(&args, QUICK);
        assert_eq!(run.code, 2, "{flags:?}: {run:#?}");
        assert!(!lock.exists());
    }
}

#[test]
fn proxy_limit_flags_are_checked_like_inits() {
    // The same rules (cli/src/limits.rs), checked before the lock is read:
    // the lock here does not exist, and the message names the flag.
    for (flags, message) in [
        (&["--max-tools", "0"][..], "--max-tools must be at least 1"),
        (
            &["--max-line-bytes", "0"],
            "--max-line-bytes must be at least 1",
        ),
        (
            &["--timeout", "0"],
            "--timeout must be a positive number of seconds",
        ),
        (
            &["--timeout", "inf"],
            "--timeout must be a positive number of seconds",
        ),
        (&["--timeout", "1e300"], "--timeout 1e300 is out of range"),
    ] {
        let mut args = vec![
            "proxy",
            "--lock",
            "/nonexistent/contractpin.lock",
            "--name",
            "x",
        ];
        args.extend_from_slice(flags);
        let run = cli(&args, QUICK);
        assert_eq!(run.code, 2, "{flags:?}: {run:#?}");
        assert!(run.stderr.contains(message), "{flags:?}: {}", run.stderr);
    }
}

// ------------------------------------------------------------------ documented defaults

#[test]
fn help_states_the_library_defaults() {
    let o = ClientOptions::default();
    let l = Limits::DEFAULT;
    let fetch = [
        ("--max-input-bytes", l.max_input.to_string()),
        ("--max-depth", l.max_depth.to_string()),
        ("--max-tools", l.max_tools.to_string()),
        ("--max-pages", o.max_pages.to_string()),
        ("--max-line-bytes", o.max_line_bytes.to_string()),
        ("--max-response-bytes", o.max_response_bytes.to_string()),
        ("--timeout", o.request_timeout.as_secs().to_string()),
        ("--total-timeout", o.total_timeout.as_secs().to_string()),
    ];
    for cmd in ["init", "verify"] {
        let help = cli(&[cmd, "--help"], QUICK).stdout;
        for (flag, default) in &fetch {
            let at = help
                .find(&format!("{flag} <"))
                .unwrap_or_else(|| panic!("{cmd} --help has no {flag}"));
            let rest = &help[at..];
            let entry = &rest[..rest[2..].find("\n      --").map_or(rest.len(), |e| e + 2)];
            assert!(
                entry.contains(&format!("[default: {default}]")),
                "{cmd} --help: {flag} should state [default: {default}]:\n{entry}"
            );
        }
    }
    let proxy = [
        fetch[0].clone(),
        fetch[1].clone(),
        fetch[2].clone(),
        fetch[4].clone(),
        fetch[6].clone(),
    ];
    for (cmd, flags) in [
        ("canon", &fetch[..2]),
        ("digest", &fetch[..3]),
        ("proxy", &proxy[..]),
    ] {
        let help = cli(&[cmd, "--help"], QUICK).stdout;
        for (flag, default) in flags {
            assert!(
                help.contains(flag) && help.contains(&format!("[default: {default}]")),
                "{cmd} --help: {flag} [default: {default}]\n{help}"
            );
        }
    }
}
