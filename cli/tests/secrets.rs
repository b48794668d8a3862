//! Secrets in server-controlled text: what `tests/cli_secrets.rs` does not
//! cover. That suite passes a fake token through headers, `--env`
//! references and literals, client configs and URLs, and checks the lock,
//! stdout and stderr of passing and failing runs. Here the *server* echoes
//! the secret back (as any server that logs its environment or answers
//! "invalid token: <token>" does), in every place an error message takes
//! server text from:
//!
//! - the body of an HTTP error status;
//! - a JSON-RPC error message, over HTTP and over stdio;
//! - the stdio server's stderr tail, after a crash and after a timeout;
//! - junk lines on a stdio server's stdout;
//!
//! through the library (`McpError`'s text) and the binary (stdout, stderr,
//! the JSON report, and the lock). Not even an 8-character piece of the
//! token may appear: redaction that runs after text was cut (at 300
//! characters, or at the start of the 2 KiB stderr tail) would leave the
//! uncut part of a token behind. The tests for exactly that are
//! regression tests for a fixed bug (pieces of a token left at a cut).
#![cfg(unix)]

#[path = "support/run.rs"]
mod run;
#[path = "../../tests/support/tools.rs"]
mod tools;

use std::collections::BTreeMap;
use std::process::Command;
use std::time::Duration;

use contractpin::mcp::{fetch_tools_list, ClientOptions, McpError, ServerSpec};
use run::{cli_env, HttpServer, Scratch};

const TOKEN: &str = "tok-5b0e1d7a93c2f648-FAKE-SECRET";
const QUICK: Duration = Duration::from_secs(30);

/// Fails if `text` holds any 8-byte piece of the token.
#[track_caller]
fn assert_no_piece(what: &str, text: &str) {
    for start in 0..=TOKEN.len() - 8 {
        let piece = &TOKEN[start..start + 8];
        assert!(
            !text.contains(piece),
            "{what}: a piece of the token ({piece:?}) leaked:\n{text}"
        );
    }
}

fn opts() -> ClientOptions {
    ClientOptions {
        request_timeout: Duration::from_secs(10),
        total_timeout: Duration::from_secs(20),
        shutdown_grace: Duration::from_millis(300),
        ..ClientOptions::default()
    }
}

/// An error's full text, as a program would print it.
fn text(e: &McpError) -> String {
    format!("{e}\n{:?}", e.kind())
}

// ------------------------------------------------------------------ servers

/// A stdio "server" (Python) that answers every request with a JSON-RPC
/// error whose message is `pad` x's then the token from `$API_TOKEN`; also
/// writes the token to stdout junk lines.
const RPC_ERROR_SERVER: &str = r#"
import json, os, sys
pad = int(sys.argv[1]); tok = os.environ.get("API_TOKEN", "")
print("starting with token " + tok, flush=True)
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    print("debug: token " + tok, flush=True)
    err = {"code": -32000, "message": "x" * pad + "invalid token " + tok}
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": err}), flush=True)
"#;

/// A stdio "server" that writes one stderr line (`token=<token>` then `pad`
/// y's) and exits 3, or (mode `hang`) never answers.
const STDERR_SERVER: &str = r#"
import os, sys, time
pad = int(sys.argv[1]); tok = os.environ.get("API_TOKEN", "")
sys.stderr.write("token=" + tok + "y" * pad + "\n"); sys.stderr.flush()
if sys.argv[2] == "hang":
    sys.stdin.read(); time.sleep(60)
sys.exit(3)
"#;

/// An HTTP "server" on 127.0.0.1: every POST gets status `argv[2]` with the
/// body `pad` x's then "invalid token: <Authorization header>", where pad
/// starts at `argv[3]` and grows by one per request. `argv[4]` = `rpc`
/// answers 200 with a JSON-RPC error carrying the same text instead.
const HTTP_SERVER: &str = r#"
import http.server, json, os, sys
port_file, status, pad0, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
count = [0]
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0")); body = self.rfile.read(n)
        text = "x" * (pad0 + count[0]) + "invalid token: " + self.headers.get("Authorization", "")
        count[0] += 1
        if mode == "rpc":
            req = json.loads(body)
            out = json.dumps({"jsonrpc": "2.0", "id": req.get("id"), "error": {"code": -32001, "message": text}}).encode()
            self.send_response(200); self.send_header("Content-Type", "application/json")
        else:
            out = text.encode()
            self.send_response(status); self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(out))); self.end_headers(); self.wfile.write(out)
s = http.server.HTTPServer(("127.0.0.1", 0), H)
tmp = port_file + ".tmp"; open(tmp, "w").write(str(s.server_port)); os.rename(tmp, port_file)
s.serve_forever()
"#;

fn http_server(status: u16, pad: usize, mode: &str) -> HttpServer {
    HttpServer::start(|port_file| {
        let mut c = Command::new("python3");
        c.args(["-c", HTTP_SERVER]).arg(port_file).args([
            status.to_string(),
            pad.to_string(),
            mode.to_string(),
        ]);
        c
    })
}

fn stdio(script: &str, args: &[&str]) -> ServerSpec {
    let mut command = vec!["python3".to_string(), "-c".into(), script.into()];
    command.extend(args.iter().map(|s| s.to_string()));
    ServerSpec::Stdio {
        command,
        env: BTreeMap::from([(
            "API_TOKEN".to_string(),
            "${CONTRACTPIN_TEST_SECRET}".to_string(),
        )]),
        cwd: None,
    }
}

fn http_spec(url: &str) -> ServerSpec {
    ServerSpec::Http {
        url: url.to_string(),
        headers: vec![(
            "Authorization".into(),
            "Bearer ${CONTRACTPIN_TEST_SECRET}".into(),
        )],
    }
}

fn set_secret() {
    std::env::set_var("CONTRACTPIN_TEST_SECRET", TOKEN);
}

/// `init` through the binary; returns everything it printed plus the lock
/// (which must not exist: every server here fails).
fn init(source: &[&str]) -> String {
    let dir = Scratch::new();
    let lock = dir.path("contractpin.lock");
    let l = lock.display().to_string();
    let mut args = vec!["init", "--lock", &l, "--name", "srv", "--timeout", "3"];
    args.extend_from_slice(source);
    let r = cli_env(&args, &[("CONTRACTPIN_TEST_SECRET", TOKEN)], QUICK);
    assert_eq!(r.code, 1, "{r:#?}");
    assert!(
        !lock.exists(),
        "a lock was written although the server failed"
    );
    format!("{}\n{}", r.stdout, r.stderr)
}

// ------------------------------------------------------------------ whole echoes

#[test]
fn echoed_tokens_are_redacted_in_library_errors() {
    if !tools::needs(&["python3"]) {
        return;
    }
    set_secret();
    // A JSON-RPC error over stdio, with junk lines on stdout.
    let e = fetch_tools_list(&stdio(RPC_ERROR_SERVER, &["0"]), &opts()).unwrap_err();
    assert!(text(&e).contains("invalid token ***"), "{}", text(&e));
    assert_no_piece("stdio json-rpc error", &text(&e));
    // The stderr tail of a crashed server and of one that timed out.
    let e = fetch_tools_list(&stdio(STDERR_SERVER, &["10", "exit"]), &opts()).unwrap_err();
    assert!(text(&e).contains("token=***"), "{}", text(&e));
    assert_no_piece("stderr tail after exit", &text(&e));
    let mut o = opts();
    o.request_timeout = Duration::from_millis(800);
    let e = fetch_tools_list(&stdio(STDERR_SERVER, &["10", "hang"]), &o).unwrap_err();
    assert_no_piece("stderr tail after a timeout", &text(&e));
    // An HTTP error body and a JSON-RPC error over HTTP.
    for (status, mode) in [(401, "body"), (403, "body"), (500, "body"), (200, "rpc")] {
        let srv = http_server(status, 0, mode);
        let e = fetch_tools_list(&http_spec(&srv.url), &opts()).unwrap_err();
        assert!(
            text(&e).contains("invalid token: ***"),
            "{status} {mode}: {}",
            text(&e)
        );
        assert_no_piece(&format!("http {status} {mode}"), &text(&e));
    }
}

#[test]
fn echoed_tokens_are_redacted_in_cli_output() {
    if !tools::needs(&["python3"]) {
        return;
    }
    let script_rpc = [
        "--env",
        "API_TOKEN=${CONTRACTPIN_TEST_SECRET}",
        "--",
        "python3",
        "-c",
        RPC_ERROR_SERVER,
        "0",
    ];
    let out = init(&script_rpc);
    assert!(out.contains("invalid token ***"), "{out}");
    assert_no_piece("init stdio json-rpc error", &out);
    // A literal --env value is a secret too (the lock stores ${API_TOKEN}).
    let literal = format!("API_TOKEN={TOKEN}");
    let out = init(&[
        "--env",
        &literal,
        "--",
        "python3",
        "-c",
        STDERR_SERVER,
        "10",
        "exit",
    ]);
    assert!(out.contains("token=***"), "{out}");
    assert_no_piece("init stderr tail", &out);
    let header = "Authorization: Bearer ${CONTRACTPIN_TEST_SECRET}";
    for (status, mode) in [(401, "body"), (200, "rpc")] {
        let srv = http_server(status, 0, mode);
        let out = init(&["--http", &srv.url, "--header", header]);
        assert!(out.contains("invalid token: ***"), "{out}");
        assert_no_piece(&format!("init http {status} {mode}"), &out);
    }
}

#[test]
fn echoed_tokens_are_redacted_in_verify_reports() {
    if !tools::needs(&["python3"]) {
        return;
    }
    // Pin a good server, then verify against one that echoes the token.
    let dir = Scratch::new();
    let lock = dir.path("contractpin.lock");
    let l = lock.display().to_string();
    let fake = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/mcp/fake_server.py");
    let env = [("CONTRACTPIN_TEST_SECRET", TOKEN)];
    let r = cli_env(
        &[
            "init",
            "--lock",
            &l,
            "--name",
            "srv",
            "--env",
            "API_TOKEN=${CONTRACTPIN_TEST_SECRET}",
            "--",
            "python3",
            fake,
        ],
        &env,
        QUICK,
    );
    assert_eq!(r.code, 0, "{r:#?}");
    let pinned = std::fs::read_to_string(&lock).unwrap();
    assert_no_piece("lock", &pinned);
    assert!(pinned.contains("${CONTRACTPIN_TEST_SECRET}"), "{pinned}");
    // Point the pinned command at the echoing server.
    let echo = serde_free_set_command(&pinned, RPC_ERROR_SERVER);
    std::fs::write(&lock, echo).unwrap();
    for format in ["text", "json"] {
        let r = cli_env(
            &["verify", "--lock", &l, "--format", format, "--timeout", "3"],
            &env,
            QUICK,
        );
        assert_eq!(r.code, 1, "{r:#?}");
        let out = format!("{}\n{}", r.stdout, r.stderr);
        assert!(out.contains("***"), "{format}: {out}");
        assert_no_piece(&format!("verify --format {format}"), &out);
    }
}

/// Replaces the pinned `command` array with `python3 -c SCRIPT 0` (plain
/// string surgery on the pretty lock: the command is the first array).
fn serde_free_set_command(lock: &str, script: &str) -> String {
    let start = lock.find("\"command\": [").expect("a stdio server");
    let end = start + lock[start..].find(']').unwrap() + 1;
    let mut quoted = String::new();
    for c in script.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            c => quoted.push(c),
        }
    }
    format!(
        "{}\"command\": [\"python3\", \"-c\", \"{quoted}\", \"0\"]{}",
        &lock[..start],
        &lock[end..]
    )
}

// ------------------------------------------------------------------ cut text

// Server text is cut at 300 characters when an error is built, before the
// secrets are known; a token straddling the cut must not survive in part
// ("invalid token tok-7c1f9e2a..."). Redaction masks the pieces next to the
// cut marker (src/mcp/error.rs `redact`).
#[test]
fn a_token_cut_by_the_300_character_limit_leaks_no_piece() {
    if !tools::needs(&["python3"]) {
        return;
    }
    set_secret();
    // stdio JSON-RPC error: sweep the token across the cut.
    for pad in (220..300).step_by(4) {
        let p = pad.to_string();
        let e = fetch_tools_list(&stdio(RPC_ERROR_SERVER, &[&p]), &opts()).unwrap_err();
        assert_no_piece(&format!("stdio json-rpc error, pad {pad}"), &text(&e));
    }
    // HTTP error bodies and JSON-RPC errors: the server grows the padding by
    // one per request (two requests per attempt: server/discover, initialize).
    for mode in ["body", "rpc"] {
        let srv = http_server(if mode == "rpc" { 200 } else { 401 }, 200, mode);
        for _ in 0..60 {
            let e = fetch_tools_list(&http_spec(&srv.url), &opts()).unwrap_err();
            assert_no_piece(&format!("http {mode}"), &text(&e));
        }
    }
    // And through the binary.
    let out = init(&[
        "--env",
        "API_TOKEN=${CONTRACTPIN_TEST_SECRET}",
        "--",
        "python3",
        "-c",
        RPC_ERROR_SERVER,
        "250",
    ]);
    assert_no_piece("init, pad 250", &out);
}

// The stderr tail is the last 2048 bytes; one long stderr line is cut
// mid-token, so the end of a token could be printed
// ("| c1f9e2a44b05d38-FAKE-SECRET"). The tail marks the cut and redaction
// masks the piece after it (src/mcp/stderr_ring.rs `tail_of`).
#[test]
fn a_token_cut_by_the_stderr_tail_leaks_no_piece() {
    set_secret();
    for pad in (2000..2048).step_by(3) {
        let p = pad.to_string();
        let e = fetch_tools_list(&stdio(STDERR_SERVER, &[&p, "exit"]), &opts()).unwrap_err();
        assert_no_piece(&format!("stderr tail, pad {pad}"), &text(&e));
    }
    let out = init(&[
        "--env",
        "API_TOKEN=${CONTRACTPIN_TEST_SECRET}",
        "--",
        "python3",
        "-c",
        STDERR_SERVER,
        "2020",
        "exit",
    ]);
    assert_no_piece("init, stderr pad 2020", &out);
}

// ------------------------------------------------------------------ encoded echoes (open issue)

/// A token with the characters that encoders rewrite (`/` and `+`, as in
/// base64 tokens).
const SLASH_TOKEN: &str = "tok/9d2c4e6a81b3f057/FAKE+SECRET";

/// A stdio "server" that logs the token from `$API_TOKEN` to stderr the way
/// real servers' structured logs do, JSON-escaped with `\/` (PHP's
/// `json_encode`) and percent-encoded (a logged request URL), then exits 3.
const ENCODED_ECHO_SERVER: &str = r#"
import os, sys, urllib.parse
tok = os.environ.get("API_TOKEN", "")
sys.stderr.write('{"level":"error","msg":"bad token","token":"' + tok.replace("/", "\\/") + '"}\n')
sys.stderr.write("GET /auth?token=" + urllib.parse.quote(tok, safe="") + " 401\n")
sys.exit(3)
"#;

// A server that echoes a secret JSON-escaped (`tok\/9d2c...`) or
// percent-encoded (`tok%2F9d2c...`) must not show its middle either: the
// library masks those encodings of every secret (src/mcp/credentials.rs).
#[test]
fn an_encoded_echo_of_a_token_leaks_no_piece() {
    let check = |what: &str, text: &str| {
        for start in 0..=SLASH_TOKEN.len() - 8 {
            let piece = &SLASH_TOKEN[start..start + 8];
            assert!(!text.contains(piece), "{what}: {piece:?} leaked:\n{text}");
        }
    };
    std::env::set_var("CONTRACTPIN_TEST_SLASH_SECRET", SLASH_TOKEN);
    let spec = ServerSpec::Stdio {
        command: vec!["python3".into(), "-c".into(), ENCODED_ECHO_SERVER.into()],
        env: BTreeMap::from([(
            "API_TOKEN".to_string(),
            "${CONTRACTPIN_TEST_SLASH_SECRET}".to_string(),
        )]),
        cwd: None,
    };
    let e = fetch_tools_list(&spec, &opts()).unwrap_err();
    check("library", &text(&e));
    let dir = Scratch::new();
    let lock = dir.path("contractpin.lock");
    let l = lock.display().to_string();
    let r = cli_env(
        &[
            "init",
            "--lock",
            &l,
            "--name",
            "srv",
            "--env",
            "API_TOKEN=${CONTRACTPIN_TEST_SLASH_SECRET}",
            "--",
            "python3",
            "-c",
            ENCODED_ECHO_SERVER,
        ],
        &[("CONTRACTPIN_TEST_SLASH_SECRET", SLASH_TOKEN)],
        QUICK,
    );
    assert_eq!(r.code, 1, "{r:#?}");
    check("init", &format!("{}\n{}", r.stdout, r.stderr));
}

// ------------------------------------------------------------------ inherited environment

/// Review F4: with `inherit_env` a stdio server gets our whole environment,
/// so a variable whose name looks like a credential is masked in what the
/// library shows of the server (here its stderr tail), though the lock's
/// env does not name it.
#[test]
fn inherited_credentials_are_redacted_in_library_errors() {
    if !tools::needs(&["python3"]) {
        return;
    }
    std::env::set_var("CONTRACTPIN_TEST_INHERITED_TOKEN", TOKEN);
    let script = "import os,sys\n\
         sys.stderr.write('token='+os.environ.get('CONTRACTPIN_TEST_INHERITED_TOKEN','unset')+'\\n')\n\
         sys.exit(3)\n";
    let spec = ServerSpec::Stdio {
        command: vec!["python3".into(), "-c".into(), script.into()],
        env: BTreeMap::new(),
        cwd: None,
    };
    let o = ClientOptions {
        inherit_env: true,
        ..opts()
    };
    let e = fetch_tools_list(&spec, &o).unwrap_err();
    assert!(text(&e).contains("token=***"), "{}", text(&e));
    assert_no_piece("inherited credential in a stderr tail", &text(&e));
}
