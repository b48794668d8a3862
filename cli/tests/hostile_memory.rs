//! Issue 9 item 5: memory stays bounded by the documented limits against
//! servers that send too much too fast. Each test runs the real
//! `contractpin` binary with small limits (1 MiB input, line and response
//! size) against a hostile tests/mcp/fake_server.py scenario, samples the
//! binary's peak RSS (`VmHWM`) and asserts that it stays under
//! 4 × the limit + 64 MiB and that the run ends with a clear error (exit 1).
//!
//! | server | what it does | what bounds us |
//! |---|---|---|
//! | `many-pages --page-bytes` | 200 pages of ~1 MB | the running input-size total (`--max-input-bytes`), checked per page |
//! | `notification-flood`, stdio | 100 notifications of 1 MB before the answer, then exits | the byte-bounded stdout line queue |
//! | `notification-flood`, legacy SSE | the same as events on the GET stream, then ends it | the byte-bounded event queue |
//! | `notification-flood`, Streamable HTTP SSE | the same in the POST's answer stream | the response size limit (a guard: already bounded) |
//! | `ping-flood` | 50 000 ping requests, never reads stdin again | the write queue gives up at the request timeout |
//! | [`STALL_AND_FLOOD`] `empty` | stalls our parser (pings, then it stops reading), then 4 MB of empty lines | blank lines are dropped before the line queue |
//! | [`STALL_AND_FLOOD`] `short` | the same with 4 M lines of 1 byte, 32 MiB line limit | every queued line costs its slot and heap block too |
//!
//! Peak RSS, debug build, main at 34f8b26 → with the fix: pages 202.6 →
//! 13.1 MiB, stdio flood 195.8 → 21.9 MiB, legacy SSE flood 188.7 → 21.3 MiB,
//! Streamable HTTP SSE 18.9 → 18.6 MiB; ping-flood hung (killed after 30 s)
//! → exit 1 after 4.1 s. The numbers are printed (`--nocapture`). The two
//! floods were 200 messages until 2026-12-06; 100 still tell a bounded queue
//! from an unbounded one by far (each queue's budget made 100,000 times
//! larger: stdio 110.5 MiB, legacy SSE 107.3 MiB, against 23-24 MiB with
//! the budgets as they are) in 11 s each instead of 16-17.
//!
//! The two stalled floods (2026-12-07; an empty line cost 0 bytes in the
//! line queue and a 1-byte line 8, while each entry took some 40 bytes in
//! the deque plus a heap block): empty lines 174.5 → 14.2 MiB, 1-byte
//! lines 297.6 → 33.1 MiB (debug build).
#![cfg(target_os = "linux")]

use std::process::Command;
use std::time::Duration;

#[path = "hostile/common.rs"]
mod common;

use common::run::HttpServer;
use common::{cli_measured, python3, Measured, Scratch, FAKE};

const LIMIT: usize = 1 << 20;
const LIMIT_S: &str = "1048576";
/// 4 × the configured limit + 64 MiB, in KiB.
const BOUND_KIB: u64 = (4 * LIMIT as u64 + (64 << 20)) / 1024;
const DEADLINE: Duration = Duration::from_secs(120);
/// Each message a little under the 1 MiB limits.
const NEAR_LIMIT: &str = "1000000";

fn limits() -> Vec<&'static str> {
    vec![
        "--max-input-bytes",
        LIMIT_S,
        "--max-line-bytes",
        LIMIT_S,
        "--max-response-bytes",
        LIMIT_S,
        "--timeout",
        "60",
        "--total-timeout",
        "100",
    ]
}

/// `init` of a stdio server `py FAKE ARGS`, measured.
fn init_stdio(py: &str, server: &[&str]) -> (Measured, bool) {
    let dir = Scratch::new();
    let lock = dir.path("contractpin.lock").display().to_string();
    let mut args = vec!["init", "--lock", &lock, "--name", "hostile"];
    args.extend(limits());
    args.extend_from_slice(&["--", py, FAKE]);
    args.extend_from_slice(server);
    let m = cli_measured(&args, &[], DEADLINE);
    let wrote = dir.path("contractpin.lock").exists();
    (m, wrote)
}

/// `init --http URL`, measured.
fn init_http(url: &str) -> (Measured, bool) {
    let dir = Scratch::new();
    let lock = dir.path("contractpin.lock").display().to_string();
    let mut args = vec!["init", "--lock", &lock, "--name", "hostile", "--http", url];
    args.extend(limits());
    let m = cli_measured(&args, &[], DEADLINE);
    let wrote = dir.path("contractpin.lock").exists();
    (m, wrote)
}

fn http_fake(py: &str, transport: &str, extra: &[&str]) -> HttpServer {
    HttpServer::start(|port_file| {
        let mut c = Command::new(py);
        c.arg(FAKE)
            .args(["--transport", transport, "--port", "0", "--port-file"])
            .arg(port_file)
            .args(extra);
        c
    })
}

/// Exit 1, RSS sampled and its peak under 4 x `max_line` bytes + 64 MiB
/// (the documented bound), reported on stderr.
#[track_caller]
fn assert_under_bound(label: &str, m: &Measured, max_line: usize) {
    let bound_kib = (4 * max_line as u64 + (64 << 20)) / 1024;
    eprintln!(
        "{label}: exit {}, peak RSS {:.1} MiB (bound {:.1} MiB), {:.1} s",
        m.run.code,
        m.peak_kib as f64 / 1024.0,
        bound_kib as f64 / 1024.0,
        m.run.took.as_secs_f64()
    );
    assert!(m.peak_kib > 0, "{label}: RSS was never sampled");
    assert!(
        m.peak_kib < bound_kib,
        "{label}: peak RSS {} KiB is over 4 x {max_line} bytes + 64 MiB ({bound_kib} KiB): {:#?}",
        m.peak_kib,
        m.run
    );
    assert_eq!(m.run.code, 1, "{label}: {:#?}", m.run);
}

/// Exit 1 with `words` in the error, no lock, and peak RSS under the bound.
#[track_caller]
fn assert_bounded(label: &str, (m, wrote): &(Measured, bool), words: &str) {
    assert_under_bound(label, m, LIMIT);
    assert!(!*wrote, "{label}: a lock was written");
    assert!(
        m.run.stderr.contains(words),
        "{label}: the error should say {words:?}: {}",
        m.run.stderr
    );
}

#[test]
fn many_large_pages_stop_at_the_input_size_limit() {
    let Some(py) = python3("many_large_pages_stop_at_the_input_size_limit") else {
        return;
    };
    let dir = Scratch::new();
    let record = dir.path("record.jsonl").display().to_string();
    let r = init_stdio(
        &py,
        &[
            "--scenario",
            "many-pages",
            "--pages",
            "200",
            "--page-bytes",
            NEAR_LIMIT,
            "--record",
            &record,
        ],
    );
    assert_bounded("200 pages of 1 MB", &r, "size-limit");
    assert!(
        r.0.run
            .stderr
            .contains("1048576 bytes (the input size limit)"),
        "{}",
        r.0.run.stderr
    );
    // It stopped asking at the page that crossed the limit (the second).
    let asked = std::fs::read_to_string(&record)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("\"kind\": \"stdin\"") && l.contains("tools/list"))
        .count();
    assert_eq!(asked, 2, "tools/list requests sent");
}

#[test]
fn a_stdio_flood_of_large_notifications_is_back_pressured() {
    let Some(py) = python3("a_stdio_flood_of_large_notifications_is_back_pressured") else {
        return;
    };
    let r = init_stdio(
        &py,
        &[
            "--scenario",
            "notification-flood",
            "--flood-count",
            "100",
            "--flood-message-bytes",
            NEAR_LIMIT,
        ],
    );
    assert_bounded(
        "stdio: 100 notifications of 1 MB",
        &r,
        "exited (exit status: 4)",
    );
}

#[test]
fn a_legacy_sse_flood_of_large_events_is_back_pressured() {
    let Some(py) = python3("a_legacy_sse_flood_of_large_events_is_back_pressured") else {
        return;
    };
    let server = http_fake(
        &py,
        "sse",
        &[
            "--scenario",
            "notification-flood",
            "--flood-count",
            "100",
            "--flood-message-bytes",
            NEAR_LIMIT,
        ],
    );
    let url = server.url.replace("/mcp", "/sse");
    let r = init_http(&url);
    assert_bounded(
        "legacy SSE: 100 events of 1 MB",
        &r,
        "ended (closed by the server)",
    );
}

#[test]
fn a_streamable_http_sse_flood_stays_within_the_response_limit() {
    // A guard: the POST answer stream was already bounded by the response
    // size limit (it counts every byte of the stream).
    let Some(py) = python3("a_streamable_http_sse_flood_stays_within_the_response_limit") else {
        return;
    };
    let server = http_fake(
        &py,
        "http",
        &[
            "--http-answer",
            "sse",
            "--scenario",
            "notification-flood",
            "--flood-count",
            "200",
            "--flood-message-bytes",
            NEAR_LIMIT,
        ],
    );
    let r = init_http(&server.url);
    assert_bounded(
        "Streamable HTTP SSE: 200 events of 1 MB",
        &r,
        "the response size limit",
    );
}

#[test]
fn a_server_that_stops_reading_its_stdin_is_a_timeout_not_a_hang() {
    let Some(py) = python3("a_server_that_stops_reading_its_stdin_is_a_timeout_not_a_hang") else {
        return;
    };
    let dir = Scratch::new();
    let lock = dir.path("contractpin.lock").display().to_string();
    let args = [
        "init",
        "--lock",
        &lock,
        "--name",
        "pings",
        "--timeout",
        "3",
        "--total-timeout",
        "10",
        "--",
        &py,
        FAKE,
        "--scenario",
        "ping-flood",
        "--ping-count",
        "50000",
    ];
    // The server gives up by itself after 60 s; contractpin must be done long before.
    let m = cli_measured(&args, &[], Duration::from_secs(30));
    eprintln!(
        "ping-flood: exit {} after {:.1} s, peak RSS {:.1} MiB",
        m.run.code,
        m.run.took.as_secs_f64(),
        m.peak_kib as f64 / 1024.0
    );
    assert_eq!(m.run.code, 1, "{:#?}", m.run);
    assert!(
        m.run.stderr.contains("stopped reading") && m.run.stderr.contains("request timeout of 3 s"),
        "{}",
        m.run.stderr
    );
    // 3 s of timeout, then the shutdown graces (1 s + 1 s at most).
    assert!(m.run.took < Duration::from_secs(8), "took {:?}", m.run.took);
    assert!(m.peak_kib < BOUND_KIB, "{} KiB", m.peak_kib);
}

/// A stdio server for the stalled floods (`python3 - UNIT BYTES`): it
/// answers the handshake; on `tools/list` it sends six `ping` requests with
/// 300 KB ids and stops reading its stdin, so our answers fill the 1 MiB
/// stdin queue and the thread that parses its lines waits there until the
/// request timeout, while it writes BYTES of UNIT lines (`empty`: `\n`,
/// `short`: `x\n`) that can only pile up in the line queue.
const STALL_AND_FLOOD: &str = r#"
import json, sys, time
unit = {"empty": b"\n", "short": b"x\n"}[sys.argv[1]]
total = int(sys.argv[2])
out = sys.stdout.buffer
def send(o):
    out.write(json.dumps(o).encode() + b"\n")
    out.flush()
for line in sys.stdin.buffer:
    msg = json.loads(line)
    i, m = msg.get("id"), msg.get("method")
    if i is None:
        continue
    if m != "tools/list":
        send({"jsonrpc": "2.0", "id": i, "result": {"protocolVersion": "2025-06-18",
              "capabilities": {"tools": {}}, "serverInfo": {"name": "flood", "version": "1"}}})
        continue
    for k in range(6):
        send({"jsonrpc": "2.0", "id": "p" * 300000 + str(k), "method": "ping"})
    chunk = unit * ((1 << 20) // len(unit))
    n = 0
    while n < total:
        out.write(chunk)
        n += len(chunk)
    out.flush()
    sys.stderr.write("flooded %d bytes\n" % n)
    sys.stderr.flush()
    time.sleep(60)
"#;

/// `init` of [`STALL_AND_FLOOD`] with `unit` lines, `bytes` of them, the
/// line limit `max_line`; asserts exit 1 at the stdin timeout and a peak
/// RSS under 4 × `max_line` + 64 MiB.
fn stalled_flood(label: &str, unit: &str, bytes: &str, max_line: usize) {
    let Some(py) = python3(label) else {
        return;
    };
    let dir = Scratch::new();
    let script = dir.path("flood.py");
    std::fs::write(&script, STALL_AND_FLOOD).expect("write the server");
    let lock = dir.path("contractpin.lock").display().to_string();
    let (script, max) = (script.display().to_string(), max_line.to_string());
    let args = [
        "init",
        "--lock",
        &lock,
        "--name",
        "flood",
        "--max-line-bytes",
        &max,
        "--timeout",
        "5",
        "--total-timeout",
        "30",
        "--",
        &py,
        &script,
        unit,
        bytes,
    ];
    let m = cli_measured(&args, &[], DEADLINE);
    assert_under_bound(label, &m, max_line);
    assert!(
        m.run.stderr.contains("flooded") && m.run.stderr.contains("stopped reading"),
        "{label}: the flood ran, then the stdin timeout: {}",
        m.run.stderr
    );
}

#[test]
fn a_stalled_flood_of_empty_lines_takes_no_memory() {
    // Before the fix: 4 M empty lines, each a free entry in the queue.
    stalled_flood(
        "a_stalled_flood_of_empty_lines_takes_no_memory",
        "empty",
        "4000000",
        LIMIT,
    );
}

#[test]
fn a_stalled_flood_of_short_lines_stays_within_the_line_budget() {
    // 32 MiB of line budget: at 8 bytes charged for a 1-byte line, 4 M of
    // them fitted, and took some 80 bytes each.
    stalled_flood(
        "a_stalled_flood_of_short_lines_stays_within_the_line_budget",
        "short",
        "8000000",
        32 << 20,
    );
}
