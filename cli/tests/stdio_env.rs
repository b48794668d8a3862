//! Issue 9 item 4: a stdio server does not inherit contractpin's
//! environment (CI secrets), only what the official MCP SDK clients pass on
//! (`HOME LOGNAME PATH SHELL TERM USER`, minus values that start with `()`)
//! plus the lock's `env`; `--inherit-env` restores full inheritance.
//!
//! The server is tests/mcp/fake_server.py with `--env-file F` (it writes its
//! `os.environ` as JSON to F at start-up), run by the real interpreter
//! (`sys.executable`), not through a pyenv shim that would add variables.
#![cfg(unix)]

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

#[path = "hostile/common.rs"]
mod common;

use common::run::{cli_env, Run};
use common::{python3, Scratch, FAKE};

const SECRET: &str = "s3cr3t-ci-token-6d0f2a91";
const DEADLINE: Duration = Duration::from_secs(60);

/// contractpin's own environment in these tests (on top of the test's).
fn outer_env<'a>(home: &'a str, path: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("CONTRACTPIN_TEST_SECRET", SECRET),
        ("CONTRACTPIN_TEST_REF", "value-of-the-reference"),
        ("DECLARED", "declared-literal-value"),
        ("HOME", home),
        ("PATH", path),
        ("TERM", "xterm-test"),
        ("USER", "ci-user"),
        ("LOGNAME", "ci-logname"),
        // An exported bash function: the SDKs leave such values out.
        ("SHELL", "() {  echo exported function; }"),
    ]
}

fn read_env(file: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("the server wrote no {}: {e}", file.display()));
    let mut nodes =
        vec![contractpin::json::Node::EMPTY; contractpin::json::scratch_needed(text.as_bytes())];
    let tape = contractpin::json::parse(text.as_bytes(), &mut nodes, &contractpin::Limits::DEFAULT)
        .expect("the env dump is JSON");
    let mut out = BTreeMap::new();
    for (k, v) in tape.root().members_sorted() {
        let key = decode(k);
        out.insert(key, decode(v));
    }
    out
}

fn decode(v: contractpin::json::Value<'_>) -> String {
    if let Some(s) = v.as_plain_str() {
        return s.to_string();
    }
    let raw = v.raw_str().expect("a string");
    let mut buf = vec![0u8; raw.len()];
    v.decode_str(&mut buf).expect("decodable").to_string()
}

#[track_caller]
fn assert_ok(run: &Run) {
    assert_eq!(run.code, 0, "{run:#?}");
    assert!(
        !run.stdout.contains(SECRET) && !run.stderr.contains(SECRET),
        "{run:#?}"
    );
}

/// The variables a server may see without `--inherit-env`: the SDK list,
/// the two declared ones, and LC_CTYPE, which Python itself sets in a C
/// locale (PEP 538 locale coercion).
const ALLOWED: [&str; 8] = [
    "HOME", "LOGNAME", "PATH", "TERM", "USER", "DECLARED", "FROM_REF", "LC_CTYPE",
];

/// The names only: a failing run must not print the values of a CI
/// environment that leaked.
fn names(env: &BTreeMap<String, String>) -> Vec<&str> {
    env.keys().map(String::as_str).collect()
}

#[track_caller]
fn assert_minimal(env: &BTreeMap<String, String>, home: &str, path: &str) {
    let keys = names(env);
    assert!(
        !env.contains_key("CONTRACTPIN_TEST_SECRET"),
        "the secret leaked: {keys:?}"
    );
    assert!(
        !env.values().any(|v| v.contains(SECRET)),
        "the secret leaked: {keys:?}"
    );
    assert_eq!(env.get("PATH").map(String::as_str), Some(path), "{keys:?}");
    assert_eq!(env.get("HOME").map(String::as_str), Some(home), "{keys:?}");
    assert_eq!(env.get("TERM").map(String::as_str), Some("xterm-test"));
    assert_eq!(env.get("USER").map(String::as_str), Some("ci-user"));
    assert_eq!(env.get("LOGNAME").map(String::as_str), Some("ci-logname"));
    assert!(
        !env.contains_key("SHELL"),
        "a `()` value is left out: {keys:?}"
    );
    assert_eq!(
        env.get("DECLARED").map(String::as_str),
        Some("declared-literal-value"),
        "the lock's env is passed: {keys:?}"
    );
    assert_eq!(
        env.get("FROM_REF").map(String::as_str),
        Some("value-of-the-reference"),
        "a ${{VAR}} reference is expanded from contractpin's environment: {keys:?}"
    );
    let extra: Vec<&String> = env
        .keys()
        .filter(|k| !ALLOWED.contains(&k.as_str()))
        .collect();
    assert!(
        extra.is_empty(),
        "variables beyond the SDK list and the lock's env: {extra:?}"
    );
}

#[test]
fn a_stdio_server_gets_only_the_sdk_variables_and_its_env_unless_inherit_env() {
    let Some(py) =
        python3("a_stdio_server_gets_only_the_sdk_variables_and_its_env_unless_inherit_env")
    else {
        return;
    };
    let dir = Scratch::new();
    let home = dir.path("home").display().to_string();
    let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into());
    let lock = dir.path("contractpin.lock").display().to_string();
    let dump = dir.path("env.json");
    let dump_s = dump.display().to_string();
    let env = outer_env(&home, &path);
    let init = |extra: &[&str]| {
        let _ = std::fs::remove_file(&dump);
        let mut args = vec![
            "init",
            "--lock",
            &lock,
            "--name",
            "env",
            "--force",
            "--env",
            "DECLARED=declared-literal-value",
            "--env",
            "FROM_REF=${CONTRACTPIN_TEST_REF}",
        ];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--", &py, FAKE, "--scenario", "ok", "--env-file", &dump_s]);
        cli_env(&args, &env, DEADLINE)
    };

    // init, default: the minimal environment.
    assert_ok(&init(&[]));
    assert_minimal(&read_env(&dump), &home, &path);

    // verify, default: the same (the lock keeps DECLARED as `${DECLARED}`).
    let _ = std::fs::remove_file(&dump);
    let run = cli_env(&["verify", "--lock", &lock], &env, DEADLINE);
    assert_ok(&run);
    assert_minimal(&read_env(&dump), &home, &path);

    // --inherit-env, on init and on verify: everything, the secret included.
    for run in [init(&["--inherit-env"]), {
        let _ = std::fs::remove_file(&dump);
        cli_env(
            &["verify", "--lock", &lock, "--inherit-env"],
            &env,
            DEADLINE,
        )
    }] {
        assert_ok(&run);
        let seen = read_env(&dump);
        assert_eq!(
            seen.get("CONTRACTPIN_TEST_SECRET").map(String::as_str),
            Some(SECRET),
            "--inherit-env passes everything on: {run:#?}"
        );
        assert_eq!(
            seen.get("SHELL").map(String::as_str),
            Some("() {  echo exported function; }")
        );
        assert_eq!(
            seen.get("DECLARED").map(String::as_str),
            Some("declared-literal-value")
        );
        assert_eq!(seen.get("PATH").map(String::as_str), Some(path.as_str()));
    }
}

#[test]
fn the_lock_env_overrides_an_inherited_variable() {
    let Some(py) = python3("the_lock_env_overrides_an_inherited_variable") else {
        return;
    };
    let dir = Scratch::new();
    let home = dir.path("home").display().to_string();
    let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into());
    let lock = dir.path("contractpin.lock").display().to_string();
    let dump = dir.path("env.json");
    let dump_s = dump.display().to_string();
    let env = outer_env(&home, &path);
    let run = cli_env(
        &[
            "init",
            "--lock",
            &lock,
            "--name",
            "env",
            "--env",
            "TERM=${CONTRACTPIN_TEST_REF}",
            "--",
            &py,
            FAKE,
            "--scenario",
            "ok",
            "--env-file",
            &dump_s,
        ],
        &env,
        DEADLINE,
    );
    assert_ok(&run);
    let seen = read_env(&dump);
    assert_eq!(
        seen.get("TERM").map(String::as_str),
        Some("value-of-the-reference")
    );
    assert!(
        !seen.contains_key("CONTRACTPIN_TEST_SECRET"),
        "{:?}",
        names(&seen)
    );
}

#[test]
fn the_flag_is_documented_in_the_help_of_init_and_verify() {
    for cmd in ["init", "verify"] {
        let run = common::run::cli(&[cmd, "--help"], DEADLINE);
        assert_eq!(run.code, 0, "{run:#?}");
        assert!(
            run.stdout.contains("--inherit-env"),
            "{cmd}: {}",
            run.stdout
        );
        assert!(
            run.stdout
                .contains("HOME, LOGNAME, PATH, SHELL, TERM and USER"),
            "{cmd}: {}",
            run.stdout
        );
    }
}
