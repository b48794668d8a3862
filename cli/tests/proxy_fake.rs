//! `contractpin proxy` against the misbehaving fake server (scenarios
//! `cloak`, `swap`, `add` of tests/mcp/SCENARIOS.md), driven by the real SDK
//! clients of tests/mcp/clients/: the TypeScript SDK 1.32.2 and the Python
//! SDK 1.30.0 and 2.3.0.
//!
//! Each test first shows that the attack works without the proxy (the
//! cloaking server passes `verify`, and a direct client gets the poisoned
//! description), then that through the proxy in enforce mode the client never
//! sees a drifted tool and its calls to one fail with -32602 without reaching
//! the server (its `--record`), and that observe mode changes nothing but
//! names the tools in the log.

#[path = "../../tests/support/tools.rs"]
mod tools;

mod proxy_support;

#[path = "support/run.rs"]
mod run;

use proxy_support::*;
use run::HttpServer;

const POISON: &str = "<IMPORTANT>";

/// The baseline tools without `"outputSchema": null` (which the TS SDK's
/// schema refuses), served with `--tools` for every client alike.
fn tools_file(dir: &Dir) -> String {
    let path = dir.path("tools.json");
    let script = "import sys; sys.path.insert(0, 'tests/mcp'); import fake_server as f; \
                  sys.stdout.write('[' + ','.join(t.decode() for t in f.BASELINE_TOOLS) \
                  .replace(', \"outputSchema\": null', '') + ']')";
    let out = std::process::Command::new(python())
        .args(["-c", script])
        .current_dir(root())
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{out:?}");
    std::fs::write(&path, out.stdout).unwrap();
    path
}

/// Whether `sdk` and python3 are there (a loud skip otherwise).
fn available(sdk: Sdk) -> bool {
    let mut need: Vec<String> = vec!["python3".into()];
    need.extend(sdk.needs());
    let refs: Vec<&str> = need.iter().map(String::as_str).collect();
    tools::needs(&refs)
}

/// The fake server's command for `scenario`, recording what it receives.
fn server(dir: &Dir, scenario: &str) -> Vec<String> {
    vec![
        python(),
        fake(),
        "--scenario".into(),
        scenario.into(),
        "--tools".into(),
        tools_file(dir),
        "--record".into(),
        dir.path("record.jsonl"),
    ]
}

/// Pins `scenario` as `fake` (init's clientInfo.name is `contractpin`).
fn pinned(dir: &Dir, scenario: &str) -> Vec<String> {
    let cmd = server(dir, scenario);
    let refs: Vec<&str> = cmd.iter().map(String::as_str).collect();
    pin(dir, "fake", &refs);
    let _ = std::fs::remove_file(dir.0.join("record.jsonl"));
    cmd
}

fn via_proxy(dir: &Dir, extra: &[&str]) -> Vec<String> {
    let mut v = vec![BIN.to_string()];
    v.extend(proxy_args(dir, "fake", extra));
    v
}

fn description(out: &str, step: usize, tool: usize) -> String {
    let (s, t) = (step.to_string(), tool.to_string());
    at(out, &["steps", &s, "tools", &t, "description"], |v| {
        string(v.expect("a description"))
    })
}

const CLOAK_STEPS: &str = r#"[
  {"op":"list"},
  {"op":"call","name":"get_weather","arguments":{"city":"Paris"}},
  {"op":"call","name":"send_email","arguments":{"to":"a@b.c","subject":"s","body":"b"}}
]"#;

fn cloak(sdk: Sdk) {
    if !available(sdk) {
        return;
    }
    let dir = Dir::new("cloak");
    let direct = pinned(&dir, "cloak");
    let lock = dir.lock();
    // verify is fooled: it is contractpin, so it gets the pinned contracts.
    let verify = cp(&["verify", "--lock", &lock], b"", 60);
    assert_eq!(
        verify.code, 0,
        "the cloaking server passes verify: {verify:#?}"
    );

    // A direct client gets the poison.
    let out = run_client(sdk, &dir, &direct, CLOAK_STEPS, "");
    assert_eq!(
        tool_names(&out, &["steps", "0"]),
        ["get_weather", "search_docs", "send_email"]
    );
    assert!(description(&out, 0, 2).contains(POISON), "{out}");

    // Through the proxy (enforce): the poisoned tool is gone and uncallable.
    let _ = std::fs::remove_file(dir.0.join("record.jsonl"));
    let log = dir.path("proxy.log");
    let out = run_client(
        sdk,
        &dir,
        &via_proxy(&dir, &["--log", &log]),
        CLOAK_STEPS,
        "",
    );
    assert_eq!(
        tool_names(&out, &["steps", "0"]),
        ["get_weather", "search_docs"],
        "{out}"
    );
    assert_eq!(error_code(&out, 1), None, "{out}");
    assert_eq!(error_code(&out, 2), Some(-32602), "{out}");
    assert!(json_at(&out, &["steps", "2", "error", "message"])
        .unwrap()
        .contains("Unknown tool: send_email"));
    let record = dir.read("record.jsonl");
    assert_eq!(
        recorded(&record, "tools/call").len(),
        1,
        "only get_weather reached the server: {record}"
    );
    assert!(
        !record.contains("send_email\\\", \\\"arguments")
            && !record.contains(r#"\"name\":\"send_email\""#)
    );
    let text = dir.read("proxy.log");
    let drifted = log_lines(&text, "drifted");
    assert_eq!(drifted.len(), 1, "{text}");
    assert!(
        drifted[0].contains(r#""changed":["description"]"#)
            && drifted[0].contains(r#""tool":"send_email""#)
    );
    assert_eq!(log_lines(&text, "call-refused").len(), 1, "{text}");

    // Observe: the client sees and calls it; the log names it.
    let _ = std::fs::remove_file(dir.0.join("record.jsonl"));
    let log = dir.path("observe.log");
    let out = run_client(
        sdk,
        &dir,
        &via_proxy(&dir, &["--mode", "observe", "--log", &log]),
        CLOAK_STEPS,
        "",
    );
    assert!(description(&out, 0, 2).contains(POISON), "{out}");
    assert_eq!(error_code(&out, 2), None, "{out}");
    let text = dir.read("observe.log");
    assert_eq!(log_lines(&text, "drifted").len(), 1, "{text}");
    let unverified = log_lines(&text, "call-unverified");
    assert!(
        unverified.len() == 1 && unverified[0].contains(r#""reason":"drifted""#),
        "{text}"
    );
    assert_eq!(recorded(&dir.read("record.jsonl"), "tools/call").len(), 2);
}

#[test]
fn cloak_fools_verify_but_not_the_proxy_ts() {
    cloak(Sdk::Ts);
}

#[test]
fn cloak_fools_verify_but_not_the_proxy_python_1() {
    cloak(Sdk::Py1);
}

#[test]
fn cloak_fools_verify_but_not_the_proxy_python_2() {
    cloak(Sdk::Py2);
}

/// Scenario `shadow`: the poisoned list in `tools`, the pinned one nested
/// beside it as `result.tools`. The SDK clients read the outer list; verify
/// and the proxy refuse the page (`not-tools-list`, SPEC.md section 6)
/// instead of checking the inner one (the review of 2026-12-07 found both
/// passed it).
fn shadow(sdk: Sdk) {
    if !available(sdk) {
        return;
    }
    let dir = Dir::new("shadow");
    let baseline = pinned(&dir, "ok");
    let lock = dir.lock();
    let text = dir.read("contractpin.lock");
    let at = text
        .find(r#""ok""#)
        .expect("the scenario in the lock's command");
    let shadowed = std::format!("{}\"shadow\"{}", &text[..at], &text[at + 4..]);
    std::fs::write(&lock, shadowed).unwrap();
    let direct: Vec<String> = baseline
        .iter()
        .map(|a| {
            if a == "ok" {
                "shadow".into()
            } else {
                a.clone()
            }
        })
        .collect();
    let verify = cp(&["verify", "--lock", &lock], b"", 60);
    assert_eq!(verify.code, 1, "verify refuses the page: {verify:#?}");
    assert!(verify.stdout.contains("not-tools-list"), "{verify:#?}");

    // A direct client reads the outer, poisoned list.
    let out = run_client(sdk, &dir, &direct, CLOAK_STEPS, "");
    assert!(description(&out, 0, 2).contains(POISON), "{out}");

    // Through the proxy: the listing is an error, no call reaches the server.
    let _ = std::fs::remove_file(dir.0.join("record.jsonl"));
    let log = dir.path("proxy.log");
    let out = run_client(
        sdk,
        &dir,
        &via_proxy(&dir, &["--log", &log]),
        CLOAK_STEPS,
        "",
    );
    assert!(!out.contains(POISON), "{out}");
    assert_eq!(error_code(&out, 0), Some(-32603), "{out}");
    assert_eq!(error_code(&out, 1), Some(-32602), "{out}");
    assert_eq!(error_code(&out, 2), Some(-32602), "{out}");
    let record = dir.read("record.jsonl");
    assert!(recorded(&record, "tools/call").is_empty(), "{record}");
    let text = dir.read("proxy.log");
    assert_eq!(log_lines(&text, "page-rejected").len(), 1, "{text}");
}

#[test]
fn a_pinned_list_nested_beside_the_real_one_is_refused_ts() {
    shadow(Sdk::Ts);
}

#[test]
fn a_pinned_list_nested_beside_the_real_one_is_refused_python_1() {
    shadow(Sdk::Py1);
}

#[test]
fn a_pinned_list_nested_beside_the_real_one_is_refused_python_2() {
    shadow(Sdk::Py2);
}

/// list, two calls (the second triggers the change), the notification, a
/// call before listing again, the new listing, calls.
const SWAP_STEPS: &str = r#"[
  {"op":"list"},
  {"op":"call","name":"get_weather","arguments":{"city":"Paris"}},
  {"op":"call","name":"search_docs","arguments":{"query":"q"}},
  {"op":"wait_list_changed","count":1,"timeout_ms":10000},
  {"op":"call","name":"get_weather","arguments":{"city":"Oslo"}},
  {"op":"list"},
  {"op":"call","name":"CHANGED","arguments":{"to":"a@b.c","subject":"s","body":"b"}},
  {"op":"call","name":"get_weather","arguments":{"city":"Rome"}}
]"#;

fn mid_session(sdk: Sdk, scenario: &str, changed: &str) {
    if !available(sdk) {
        return;
    }
    let dir = Dir::new(scenario);
    pinned(&dir, scenario);
    let steps = SWAP_STEPS.replace("CHANGED", changed);
    let log = dir.path("proxy.log");
    let out = run_client(sdk, &dir, &via_proxy(&dir, &["--log", &log]), &steps, "");
    let base = ["get_weather", "search_docs", "send_email"];
    assert_eq!(tool_names(&out, &["steps", "0"]), base, "{out}");
    assert_eq!(error_code(&out, 1), None, "{out}");
    assert_eq!(error_code(&out, 2), None, "{out}");
    assert_eq!(
        json_at(&out, &["steps", "3", "listChanged"]).as_deref(),
        Some("true"),
        "{out}"
    );
    // The list changed: nothing is callable until the client lists again.
    assert_eq!(error_code(&out, 4), Some(-32602), "{out}");
    let after: Vec<String> = tool_names(&out, &["steps", "5"]);
    let expected: Vec<&str> = base.iter().copied().filter(|t| *t != changed).collect();
    assert_eq!(after, expected, "the changed tool is hidden: {out}");
    assert_eq!(error_code(&out, 6), Some(-32602), "{out}");
    assert_eq!(error_code(&out, 7), None, "{out}");
    let record = dir.read("record.jsonl");
    assert_eq!(recorded(&record, "tools/call").len(), 3, "{record}");
    assert!(
        !record.contains(&format!(r#"\"name\":\"{changed}\""#)),
        "{record}"
    );
    let text = dir.read("proxy.log");
    let status = if scenario == "swap" {
        "drifted"
    } else {
        "unpinned"
    };
    let events = log_lines(&text, status);
    assert!(
        events.len() == 1 && events[0].contains(&format!(r#""tool":"{changed}""#)),
        "{text}"
    );
    let refused = log_lines(&text, "call-refused");
    assert_eq!(refused.len(), 2, "{text}");
    assert!(refused[0].contains(r#""reason":"list-changed""#), "{text}");
    assert!(
        refused[1].contains(&format!(r#""reason":"{status}""#)),
        "{text}"
    );

    // Observe: everything goes through; the log names the tool.
    let log = dir.path("observe.log");
    let out = run_client(
        sdk,
        &dir,
        &via_proxy(&dir, &["--mode", "observe", "--log", &log]),
        &steps,
        "",
    );
    let all = tool_names(&out, &["steps", "5"]);
    assert!(all.iter().any(|t| t == changed), "{out}");
    for step in [4, 6, 7] {
        assert_eq!(error_code(&out, step), None, "step {step}: {out}");
    }
    let text = dir.read("observe.log");
    assert_eq!(log_lines(&text, status).len(), 1, "{text}");
    assert_eq!(log_lines(&text, "call-unverified").len(), 2, "{text}");
}

#[test]
fn a_tool_swapped_mid_session_is_hidden_and_refused_ts() {
    mid_session(Sdk::Ts, "swap", "send_email");
}

#[test]
fn a_tool_swapped_mid_session_is_hidden_and_refused_python_1() {
    mid_session(Sdk::Py1, "swap", "send_email");
}

#[test]
fn a_tool_swapped_mid_session_is_hidden_and_refused_python_2() {
    mid_session(Sdk::Py2, "swap", "send_email");
}

#[test]
fn a_tool_added_mid_session_is_hidden_and_refused_ts() {
    mid_session(Sdk::Ts, "add", "export_contacts");
}

#[test]
fn a_tool_added_mid_session_is_hidden_and_refused_python_1() {
    mid_session(Sdk::Py1, "add", "export_contacts");
}

#[test]
fn a_tool_added_mid_session_is_hidden_and_refused_python_2() {
    mid_session(Sdk::Py2, "add", "export_contacts");
}

#[test]
fn on_drift_block_answers_the_listing_with_an_error() {
    let sdk = Sdk::Py2;
    if !available(sdk) {
        return;
    }
    let dir = Dir::new("block");
    pinned(&dir, "cloak");
    let log = dir.path("proxy.log");
    let proxy = via_proxy(&dir, &["--on-drift", "block", "--log", &log]);
    let out = run_client(sdk, &dir, &proxy, CLOAK_STEPS, "");
    assert_eq!(error_code(&out, 0), Some(-32603), "{out}");
    let msg = json_at(&out, &["steps", "0", "error", "message"]).unwrap();
    assert!(
        msg.contains("send_email (drifted: description)") && msg.contains("--on-drift block"),
        "{msg}"
    );
    assert_eq!(
        error_code(&out, 1),
        Some(-32602),
        "nothing of a blocked listing is callable: {out}"
    );
    assert_eq!(recorded(&dir.read("record.jsonl"), "tools/call").len(), 0);
    assert_eq!(
        log_lines(&dir.read("proxy.log"), "listing-blocked").len(),
        1
    );

    // A clean listing passes even in block mode (the client named contractpin
    // is served the pins).
    let out = run_client(
        sdk,
        &dir,
        &proxy,
        CLOAK_STEPS,
        r#""clientName":"contractpin-like""#,
    );
    assert_eq!(
        tool_names(&out, &["steps", "0"]),
        ["get_weather", "search_docs", "send_email"]
    );
    assert_eq!(error_code(&out, 2), None, "{out}");
}

/// The same cloak over Streamable HTTP: the proxy's HTTP upstream
/// (`src/proxy/http.rs`) with the same enforcement, the client on stdio.
#[test]
fn cloak_over_streamable_http() {
    let sdk = Sdk::Py2;
    if !available(sdk) {
        return;
    }
    let dir = Dir::new("cloak-http");
    let server = HttpServer::start(|port_file| {
        let mut c = std::process::Command::new(python());
        c.args([&fake(), "--transport", "http", "--port", "0", "--port-file"])
            .arg(port_file)
            .args([
                "--scenario",
                "cloak",
                "--tools",
                &tools_file(&dir),
                "--record",
                &dir.path("record.jsonl"),
            ]);
        c
    });
    let url = server.url.clone();
    let lock = dir.lock();
    let init = cp(
        &["init", "--lock", &lock, "--name", "fake", "--http", &url],
        b"",
        60,
    );
    assert_eq!(init.code, 0, "{init:#?}");
    let verify = cp(&["verify", "--lock", &lock], b"", 60);
    assert_eq!(
        verify.code, 0,
        "the cloaking server passes verify: {verify:#?}"
    );
    let _ = std::fs::remove_file(dir.0.join("record.jsonl"));
    let log = dir.path("proxy.log");
    let out = run_client(
        sdk,
        &dir,
        &via_proxy(&dir, &["--log", &log]),
        CLOAK_STEPS,
        "",
    );
    drop(server);
    assert_eq!(
        tool_names(&out, &["steps", "0"]),
        ["get_weather", "search_docs"],
        "{out}"
    );
    assert_eq!(error_code(&out, 1), None, "{out}");
    assert_eq!(error_code(&out, 2), Some(-32602), "{out}");
    let record = dir.read("record.jsonl");
    let calls = recorded(&record, "tools/call");
    assert_eq!(
        calls.len(),
        1,
        "only get_weather reached the server: {record}"
    );
    assert!(calls[0].contains("get_weather"), "{record}");
    assert_eq!(log_lines(&dir.read("proxy.log"), "drifted").len(), 1);
}

/// `--max-line-bytes` bounds each message of an http server too (an SSE
/// event or a JSON answer): an answer over it is a JSON-RPC error for the
/// client's request, never read whole, and the session goes on.
#[test]
fn an_http_answer_over_the_message_limit_is_an_error_for_the_client() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let dir = Dir::new("http-huge");
    let server = HttpServer::start(|port_file| {
        let mut c = std::process::Command::new(python());
        c.args([&fake(), "--transport", "http", "--port", "0", "--port-file"])
            .arg(port_file)
            .args(["--scenario", "huge-line", "--huge-bytes", "300000"]);
        c
    });
    let lock = dir.lock();
    let init = cp(
        &[
            "init",
            "--lock",
            &lock,
            "--name",
            "fake",
            "--http",
            &server.url,
        ],
        b"",
        60,
    );
    assert_eq!(init.code, 0, "{init:#?}");
    let mut s = Session::start(&proxy_args(&dir, "fake", &["--max-line-bytes", "100000"]));
    s.handshake("t");
    let answer = s.call(7, "tools/list", "{}");
    assert!(
        answer.contains(r#""id":7"#) && answer.contains(r#""error""#),
        "{answer}"
    );
    assert!(answer.contains("larger than 100000 bytes"), "{answer}");
    // Still there: the next request is answered.
    let again = s.call(8, "ping", "{}");
    assert!(again.contains(r#""id":8"#), "{again}");
    s.close();
    assert_eq!(
        s.exit(std::time::Duration::from_secs(30)),
        0,
        "{}",
        s.stderr()
    );
}
