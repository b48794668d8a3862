//! The stdio transport against a server that runs wherever the tests run,
//! Windows (under Wine) included: this test program itself, started again
//! with `CONTRACTPIN_STDIO_TEST_ROLE` set, is the server. The other stdio
//! suites start Python or Node servers, which exist only on the host.
//!
//! The server answers `initialize` and `tools/list` with the captured
//! tools/list of the reference memory server
//! (`tests/mcp/fixtures/memory-tools-list.json`), and any other request with
//! "method not found"; the expected digest is the independent oracle's
//! (`tests/mcp/expected-digests.json`, rfc8785 + hashlib).
//!
//! No libtest harness (`harness = false` in Cargo.toml): libtest would print
//! on the server's stdout, which carries the protocol. `main` runs each case
//! and fails the process if one fails.

use std::panic::{catch_unwind, UnwindSafe};
use std::path::Path;
use std::time::{Duration, Instant};

#[path = "support/fixtures.rs"]
mod fixtures;
#[path = "support/self_server.rs"]
mod self_server;
use contractpin::mcp::{fetch_tools_list, ClientOptions, McpErrorKind, ServerSpec};

/// Set in the server's environment: which server to be.
const ROLE: &str = "CONTRACTPIN_STDIO_TEST_ROLE";
/// Set in the client's environment only: a stand-in for a CI secret.
const SECRET: &str = "CONTRACTPIN_STDIO_TEST_SECRET";
/// Set in a silent server's environment: the file it counts in.
const HEARTBEAT: &str = "CONTRACTPIN_STDIO_TEST_HEARTBEAT";

fn main() {
    match std::env::var(ROLE).as_deref() {
        Ok("serve") => return serve(false),
        Ok("report-env") => return serve(true),
        Ok("silent") => return silent(),
        Ok("exit") => std::process::exit(3),
        _ => {}
    }
    let cases: [(&str, fn()); 5] = [
        ("serves_the_oracle_digest", serves_the_oracle_digest),
        (
            "the_environment_is_the_minimal_one",
            the_environment_is_the_minimal_one,
        ),
        (
            "a_silent_server_times_out_and_is_stopped",
            a_silent_server_times_out_and_is_stopped,
        ),
        (
            "a_server_that_exits_is_reported_at_once",
            a_server_that_exits_is_reported_at_once,
        ),
        (
            "what_a_server_starts_is_stopped_with_it",
            what_a_server_starts_is_stopped_with_it,
        ),
    ];
    let failed = cases
        .iter()
        .filter(|(name, case)| !run(name, *case))
        .count();
    println!(
        "stdio_portable: {} passed, {failed} failed",
        cases.len() - failed
    );
    std::process::exit(i32::from(failed > 0));
}

fn run(name: &str, case: impl FnOnce() + UnwindSafe) -> bool {
    let ok = catch_unwind(case).is_ok();
    println!("test {name} ... {}", if ok { "ok" } else { "FAILED" });
    ok
}

// ---------------------------------------------------------------- servers

/// The reference memory server's tools, or with `report_env` two tools
/// whose names say whether [`SECRET`] and `SYSTEMROOT` reached the server.
fn serve(report_env: bool) {
    self_server::serve(|| {
        if !report_env {
            return self_server::memory_tools();
        }
        let seen = if std::env::var_os(SECRET).is_some() {
            "secret_seen"
        } else {
            "secret_hidden"
        };
        let root = if std::env::var_os("SYSTEMROOT").is_some() {
            "systemroot_set"
        } else {
            "no_systemroot"
        };
        format!(
            r#"{{"tools":[{{"name":"{seen}","inputSchema":{{"type":"object"}}}},{{"name":"{root}","inputSchema":{{"type":"object"}}}}]}}"#
        )
    })
}

/// Never answers, and lives on after stdin ends, until it is killed (for
/// a minute at most); with [`HEARTBEAT`] set, counts in that file every
/// 20 ms meanwhile. Each count is written beside the file and renamed over
/// it, so the file is never seen empty: a kill between `fs::write`'s
/// truncation and its write left it empty for good, and the test read
/// that as a server that never ran (one CI run in many).
fn silent() {
    let beat = std::env::var_os(HEARTBEAT).map(std::path::PathBuf::from);
    std::thread::spawn(|| {
        let mut sink = Vec::new();
        let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut sink);
    });
    for n in 0..3000u32 {
        if let Some(file) = &beat {
            let next = file.with_extension("next");
            if std::fs::write(&next, n.to_string()).is_ok() {
                let _ = std::fs::rename(&next, file);
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

// ---------------------------------------------------------------- client side

fn spec(role: &str) -> ServerSpec {
    let exe = std::env::current_exe().unwrap();
    ServerSpec::Stdio {
        command: vec![exe.to_string_lossy().into_owned()],
        env: [(ROLE.to_string(), role.to_string())].into_iter().collect(),
        cwd: None,
    }
}

fn opts() -> ClientOptions {
    ClientOptions {
        request_timeout: Duration::from_secs(20),
        total_timeout: Duration::from_secs(40),
        ..ClientOptions::default()
    }
}

fn serves_the_oracle_digest() {
    let fetched = fetch_tools_list(&spec("serve"), &opts()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(fetched.transport, "stdio");
    let list = contractpin::digest_tools_list(&fetched.pages).unwrap();
    assert_eq!(list.digest.to_string(), fixtures::oracle("memory"));
    assert_eq!(fetched.tool_names_seen, 9);
}

/// Only the variables the MCP SDK clients pass on reach a stdio server (on
/// Windows these include `SYSTEMROOT`, without which many programs fail).
fn the_environment_is_the_minimal_one() {
    // (The cases run one after another: nothing reads the environment
    // meanwhile.)
    std::env::set_var(SECRET, "s3cret");
    let fetched = fetch_tools_list(&spec("report-env"), &opts()).unwrap_or_else(|e| panic!("{e}"));
    let names = String::from_utf8_lossy(&fetched.pages).into_owned();
    assert!(names.contains("secret_hidden"), "{names}");
    #[cfg(windows)]
    assert!(names.contains("systemroot_set"), "{names}");
    let inherit = ClientOptions {
        inherit_env: true,
        ..opts()
    };
    let fetched = fetch_tools_list(&spec("report-env"), &inherit).unwrap_or_else(|e| panic!("{e}"));
    let names = String::from_utf8_lossy(&fetched.pages).into_owned();
    assert!(names.contains("secret_seen"), "{names}");
    std::env::remove_var(SECRET);
}

fn a_silent_server_times_out_and_is_stopped() {
    let o = ClientOptions {
        request_timeout: Duration::from_secs(2),
        total_timeout: Duration::from_secs(4),
        shutdown_grace: Duration::from_millis(100),
        ..ClientOptions::default()
    };
    let t0 = Instant::now();
    let err = fetch_tools_list(&spec("silent"), &o).unwrap_err();
    assert_eq!(*err.kind(), McpErrorKind::Timeout, "{err}");
    // The request timeout, then at most the grace, SIGTERM's second and a
    // margin for a loaded machine: the server does not hold the client.
    assert!(t0.elapsed() < Duration::from_secs(12), "{:?}", t0.elapsed());
}

fn a_server_that_exits_is_reported_at_once() {
    let t0 = Instant::now();
    let err = fetch_tools_list(&spec("exit"), &opts()).unwrap_err();
    assert_eq!(*err.kind(), McpErrorKind::Exited, "{err}");
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
}

/// A server that is a wrapper (a batch script on Windows, found by its bare
/// name as `npx` is; `sh` elsewhere) around the real one: when the client
/// gives up on it, the real one, the wrapper's child, is stopped too (a job
/// object on Windows, the process group on Unix), so it stops counting.
fn what_a_server_starts_is_stopped_with_it() {
    let dir = std::env::temp_dir().join(format!("contractpin-stdio-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let beat = dir.join("heartbeat");
    let (command, mut env) = wrapped(&dir);
    env.insert(ROLE.to_string(), "silent".to_string());
    env.insert(HEARTBEAT.to_string(), beat.to_string_lossy().into_owned());
    let o = ClientOptions {
        request_timeout: Duration::from_secs(3),
        total_timeout: Duration::from_secs(6),
        shutdown_grace: Duration::from_millis(100),
        ..ClientOptions::default()
    };
    let spec = ServerSpec::Stdio {
        command,
        env,
        cwd: None,
    };
    let err = fetch_tools_list(&spec, &o).unwrap_err();
    assert_eq!(*err.kind(), McpErrorKind::Timeout, "{err}");
    let count = || std::fs::read_to_string(&beat).unwrap_or_default();
    assert!(!count().is_empty(), "the real server never ran");
    std::thread::sleep(Duration::from_millis(300));
    let then = count();
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(count(), then, "the wrapper's child outlived the client");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A command that runs this program through a wrapper, and the environment
/// that finds the wrapper.
#[cfg(windows)]
fn wrapped(dir: &Path) -> (Vec<String>, std::collections::BTreeMap<String, String>) {
    let exe = std::env::current_exe().unwrap();
    std::fs::write(
        dir.join("wrapper.cmd"),
        format!("@\"{}\"\r\n", exe.display()),
    )
    .unwrap();
    let path = std::env::var("PATH").unwrap_or_default();
    let env = [("PATH".to_string(), format!("{};{path}", dir.display()))];
    (vec!["wrapper".to_string()], env.into_iter().collect())
}

#[cfg(not(windows))]
fn wrapped(_dir: &Path) -> (Vec<String>, std::collections::BTreeMap<String, String>) {
    let exe = std::env::current_exe().unwrap();
    // `; exit` keeps `sh` from replacing itself with the program.
    let script = r#""$0"; exit $?"#.to_string();
    let command = vec![
        "sh".into(),
        "-c".into(),
        script,
        exe.to_string_lossy().into_owned(),
    ];
    (command, Default::default())
}
