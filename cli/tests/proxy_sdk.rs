//! `contractpin proxy` between the official SDK clients (TypeScript SDK
//! 1.32.2, Python SDK 1.30.0 and 2.3.0: tests/mcp/clients/) and the
//! reference server-everything over stdio: every result through the proxy
//! equals the result of a direct connection (tools, `echo`, a tool with
//! structured output, a long-running tool with progress notifications,
//! resources, prompts, ping, the notifications the client saw), and the
//! server's requests (sampling, roots, elicitation) reach the client and its
//! answers the server.

#[path = "../../tests/support/tools.rs"]
mod tools;

mod proxy_support;

use contractpin::lock::{Lock, Transport};
use proxy_support::*;

fn available(sdk: Sdk) -> bool {
    let mut need = sdk.needs();
    need.push("node".into());
    need.push(everything());
    let refs: Vec<&str> = need.iter().map(String::as_str).collect();
    tools::needs(&refs)
}

fn direct() -> Vec<String> {
    vec!["node".into(), everything(), "stdio".into()]
}

fn via_proxy(dir: &Dir, extra: &[&str]) -> Vec<String> {
    let mut v = vec![BIN.to_string()];
    v.extend(proxy_args(dir, "everything", extra));
    v
}

const STEPS: &str = r#"[
  {"op":"list"},
  {"op":"call","name":"echo","arguments":{"message":"hello through the proxy"}},
  {"op":"call","name":"get-structured-content","arguments":{"location":"Chicago"}},
  {"op":"call","name":"get-sum","arguments":{"a":2,"b":40}},
  {"op":"call","name":"trigger-long-running-operation","arguments":{"duration":0.3,"steps":3},"progress":true},
  {"op":"resources"},
  {"op":"read","uri":"demo://resource/static/document/architecture.md"},
  {"op":"prompts"},
  {"op":"prompt","name":"simple-prompt"},
  {"op":"ping"}
]"#;

fn same_as_direct(sdk: Sdk) {
    if !available(sdk) {
        return;
    }
    let dir = Dir::new("everything");
    let cmd = direct();
    let refs: Vec<&str> = cmd.iter().map(String::as_str).collect();
    pin(&dir, "everything", &refs);
    let log = dir.path("proxy.log");
    let want = run_client(sdk, &dir, &direct(), STEPS, "");
    let got = run_client(sdk, &dir, &via_proxy(&dir, &["--log", &log]), STEPS, "");
    // The steps really ran (not two equal failures).
    assert!(tool_names(&want, &["steps", "0"]).len() >= 10, "{want}");
    for step in 1..=9 {
        assert_eq!(error_code(&want, step), None, "step {step}: {want}");
    }
    assert!(json_at(&want, &["steps", "1"])
        .unwrap()
        .contains("hello through the proxy"));
    assert!(
        json_at(&want, &["steps", "2", "structuredContent"]).is_some(),
        "{want}"
    );
    assert_eq!(
        json_at(&want, &["steps", "4", "progressNotifications"]).as_deref(),
        Some("true"),
        "{want}"
    );
    assert_same_json(&got, &want, "through the proxy vs direct");
    // Nothing to report: the listing matches the pins. The one line names
    // the real client and what it declared.
    let events = dir.read("proxy.log");
    assert_eq!(only_client_lines(&events), 1, "nothing to report: {events}");
    assert!(!events.contains("capabilities-differ"), "{events}");
    // A call for a tool that is not listed never reaches the server: the
    // proxy answers -32602 "Unknown tool" as MCP specifies (server-everything
    // itself would answer with an isError result).
    let steps = r#"[{"op":"list"},{"op":"call","name":"no-such-tool"}]"#;
    let direct_answer = run_client(sdk, &dir, &direct(), steps, "");
    assert_eq!(error_code(&direct_answer, 1), None, "{direct_answer}");
    let got = run_client(sdk, &dir, &via_proxy(&dir, &["--log", &log]), steps, "");
    assert_eq!(error_code(&got, 1), Some(-32602), "{got}");
    let text = dir.read("proxy.log");
    assert_eq!(log_lines(&text, "call-refused").len(), 1, "{text}");
}

#[test]
fn server_everything_through_the_proxy_equals_direct_ts() {
    same_as_direct(Sdk::Ts);
}

#[test]
fn server_everything_through_the_proxy_equals_direct_python_1() {
    same_as_direct(Sdk::Py1);
}

#[test]
fn server_everything_through_the_proxy_equals_direct_python_2() {
    same_as_direct(Sdk::Py2);
}

/// What the test clients declare (the Python SDKs always declare both
/// elicitation modes when they have a callback; the TS client declares what
/// the plan says), and what the capture below declares.
const CAPS: &str =
    r#"{"sampling":{},"roots":{"listChanged":true},"elicitation":{"form":{},"url":{}}}"#;

/// Pins server-everything as a client with `CAPS` sees it (it registers
/// more tools for such a client): the listing captured raw, pinned with
/// `init --file`, the entry then made a stdio one.
fn pin_with_capabilities(dir: &Dir) {
    let mut s = Session::spawn("node", &[everything(), "stdio".into()]);
    s.call(
        0,
        "initialize",
        &format!(r#"{{"protocolVersion":"2025-06-18","capabilities":{CAPS},"clientInfo":{{"name":"t","version":"1"}}}}"#),
    );
    s.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let answer = s.call(1, "tools/list", "{}");
    let result = json_at(&answer, &["result"]).expect("a result");
    std::fs::write(dir.0.join("dump.json"), result).unwrap();
    let lock = dir.lock();
    let run = cp(
        &[
            "init",
            "--lock",
            &lock,
            "--name",
            "everything",
            "--file",
            &dir.path("dump.json"),
        ],
        b"",
        60,
    );
    assert_eq!(run.code, 0, "{run:#?}");
    let mut l = Lock::parse(&std::fs::read(&lock).unwrap()).unwrap();
    let e = l.servers.get_mut("everything").unwrap();
    e.transport = Transport::Stdio;
    e.path = None;
    e.command = Some(direct());
    std::fs::write(&lock, l.to_pretty()).unwrap();
}

const SERVER_REQUEST_STEPS: &str = r#"[
  {"op":"sleep","ms":600},
  {"op":"list"},
  {"op":"call","name":"trigger-sampling-request","arguments":{"prompt":"say hi","maxTokens":10}},
  {"op":"call","name":"trigger-elicitation-request","arguments":{}},
  {"op":"call","name":"get-roots-list","arguments":{}}
]"#;

fn server_requests(sdk: Sdk) {
    if !available(sdk) {
        return;
    }
    let dir = Dir::new("everything-caps");
    pin_with_capabilities(&dir);
    let extra = format!(r#""capabilities":{CAPS}"#);
    let want = run_client(sdk, &dir, &direct(), SERVER_REQUEST_STEPS, &extra);
    let log = dir.path("proxy.log");
    // An `init --file` entry pins no instructions, and server-everything
    // sends some: without --ignore-instructions they would be "added" and
    // removed (cli/tests/proxy_instructions.rs tests that).
    let got = run_client(
        sdk,
        &dir,
        &via_proxy(&dir, &["--log", &log, "--ignore-instructions"]),
        SERVER_REQUEST_STEPS,
        &extra,
    );
    let names = tool_names(&want, &["steps", "1"]);
    assert!(
        names.iter().any(|n| n == "trigger-sampling-request"),
        "{want}"
    );
    assert!(
        json_at(&want, &["steps", "2"])
            .unwrap()
            .contains("sampled by the test client"),
        "{want}"
    );
    assert!(
        json_at(&want, &["steps", "4"])
            .unwrap()
            .contains("contractpin-test-root"),
        "{want}"
    );
    let requests = json_at(&want, &["serverRequests"]).unwrap();
    for m in ["sampling/createMessage", "elicitation/create", "roots/list"] {
        assert!(requests.contains(m), "{m}: {want}");
    }
    assert_same_json(&got, &want, "through the proxy vs direct");
    // This client declares more than the lock was pinned with: a warning,
    // and nothing else to report.
    let events = dir.read("proxy.log");
    assert!(
        only_client_lines(&events) >= 1,
        "nothing to report: {events}"
    );
}

/// The number of log lines, all of which must be about the client (its
/// declaration, or a capability warning): panics on any other event.
fn only_client_lines(log: &str) -> usize {
    for line in log.lines() {
        assert!(
            line.contains(r#""status":"client""#)
                || line.contains(r#""status":"capabilities-differ""#),
            "unexpected event: {line}"
        );
    }
    log.lines()
        .filter(|l| l.contains(r#""status":"client""#))
        .count()
}

#[test]
fn server_requests_and_their_answers_pass_through_ts() {
    server_requests(Sdk::Ts);
}

#[test]
fn server_requests_and_their_answers_pass_through_python_1() {
    server_requests(Sdk::Py1);
}

#[test]
fn server_requests_and_their_answers_pass_through_python_2() {
    server_requests(Sdk::Py2);
}

/// server-everything registers more tools for a client with sampling,
/// roots or elicitation: pinned without them, those tools are unpinned and
/// the proxy hides them and refuses their calls.
#[test]
fn tools_a_server_adds_for_some_clients_are_unpinned() {
    let sdk = Sdk::Ts;
    if !available(sdk) {
        return;
    }
    let dir = Dir::new("everything-unpinned");
    let cmd = direct();
    let refs: Vec<&str> = cmd.iter().map(String::as_str).collect();
    pin(&dir, "everything", &refs);
    let extra = format!(r#""capabilities":{CAPS}"#);
    let log = dir.path("proxy.log");
    let got = run_client(
        sdk,
        &dir,
        &via_proxy(&dir, &["--log", &log]),
        SERVER_REQUEST_STEPS,
        &extra,
    );
    let pinned = Lock::parse(&std::fs::read(dir.lock()).unwrap()).unwrap();
    let pinned: Vec<&String> = pinned.servers["everything"].tools.keys().collect();
    let names = tool_names(&got, &["steps", "1"]);
    assert_eq!(names.len(), pinned.len(), "{got}");
    assert!(names.iter().all(|n| pinned.contains(&n)), "{got}");
    for step in 2..=4 {
        assert_eq!(error_code(&got, step), Some(-32602), "step {step}: {got}");
    }
    let text = dir.read("proxy.log");
    assert!(
        log_lines(&text, "unpinned")
            .iter()
            .any(|l| l.contains(r#""tool":"trigger-sampling-request""#)),
        "{text}"
    );
    assert_eq!(log_lines(&text, "call-refused").len(), 3, "{text}");
}

/// `wrap` end to end, as a user runs it, on every platform (the one wrap
/// test that needs no Python, so it runs on Windows too): a Claude Desktop
/// configuration with server-memory, `init --from` it, `wrap` it, then the
/// TypeScript SDK client starts exactly the wrapped entry (its command and
/// args, read back from the file) and gets what a direct connection gets;
/// `unwrap` restores every byte.
#[test]
fn a_wrapped_configuration_serves_the_ts_sdk_what_the_server_does() {
    let memory =
        repo("tests/mcp/node/node_modules/@modelcontextprotocol/server-memory/dist/index.js");
    if !tools::needs(&["node", &memory]) {
        return;
    }
    let dir = Dir::new("wrap-memory");
    let store = dir.path("memory.jsonl");
    let config = dir.path("claude_desktop_config.json");
    let original = format!(
        "{{\n  \"mcpServers\": {{\n    \"memory\": {{\n      \"command\": \"node\",\n      \
         \"args\": [{}],\n      \"env\": {{\"MEMORY_FILE_PATH\": {}}}\n    }}\n  }}\n}}\n",
        js(&memory),
        js(&store)
    );
    std::fs::write(&config, &original).unwrap();
    let lock = dir.lock();
    // Pinned from the lock's directory, where the proxy runs the server.
    let pinned = std::process::Command::new(BIN)
        .args(["init", "--lock", &lock, "--from", &config])
        .current_dir(&dir.0)
        .output()
        .unwrap();
    assert!(pinned.status.success(), "{pinned:?}");
    let wrap = cp(&["wrap", "--config", &config, "--lock", &lock], b"", 60);
    assert_eq!(wrap.code, 0, "{wrap:#?}");
    let wrapped = dir.read("claude_desktop_config.json");
    let entry = ["mcpServers", "memory"];
    let command = at(&wrapped, &[&entry[..], &["command"]].concat(), |v| {
        string(v.expect("a command"))
    });
    let args: Vec<String> = at(&wrapped, &[&entry[..], &["args"]].concat(), |v| {
        v.expect("args").elements().map(string).collect()
    });
    assert_eq!(args[..2], ["proxy", "--lock"], "{wrapped}");
    // The client's environment block is kept for the server.
    assert!(json_at(
        &wrapped,
        &[&entry[..], &["env", "MEMORY_FILE_PATH"]].concat()
    )
    .is_some());
    let steps = r#"[{"op":"list"},{"op":"call","name":"read_graph","arguments":{}},{"op":"ping"}]"#;
    let mut through = vec![command];
    through.extend(args);
    // The entry's environment block, as the client passes it.
    let env = format!(r#""env":{{"MEMORY_FILE_PATH":{}}}"#, js(&store));
    let got = run_client(Sdk::Ts, &dir, &through, steps, &env);
    let want = run_client(Sdk::Ts, &dir, &["node".into(), memory], steps, &env);
    assert_eq!(tool_names(&got, &["steps", "0"]).len(), 9, "{got}");
    assert_same_json(&got, &want, "wrapped against direct");
    let unwrap = cp(&["unwrap", "--config", &config], b"", 60);
    assert_eq!(unwrap.code, 0, "{unwrap:#?}");
    assert_eq!(dir.read("claude_desktop_config.json"), original);
}
