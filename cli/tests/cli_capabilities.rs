//! CLI: `--client-capabilities` on `init` and `verify`, and the lock key
//! `client_capabilities`.
//!
//! Against the real reference server-everything (installed by
//! `.ci/install-servers.sh`; skipped loudly without it, failed under
//! `CONTRACTPIN_REQUIRE_TOOLS`),
//! which registers `get-roots-list`, `trigger-sampling-request` and
//! `trigger-elicitation-request` only for a client that declares `roots`,
//! `sampling` and `elicitation`; and against a small recording server that
//! writes down what each handshake generation declared.

mod cli_support;
use cli_support::*;

const CONDITIONAL: [&str; 3] = [
    "get-roots-list",
    "trigger-elicitation-request",
    "trigger-sampling-request",
];

const EVERYTHING: &str =
    "tests/mcp/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js";

fn everything() -> Vec<String> {
    vec!["node".into(), s(&root().join(EVERYTHING)), "stdio".into()]
}

fn init(lock: &std::path::Path, extra: &[&str], command: &[String]) -> Out {
    let mut args: Vec<String> = vec![
        "init".into(),
        "--lock".into(),
        s(lock),
        "--name".into(),
        "e".into(),
    ];
    args.extend(extra.iter().map(|x| x.to_string()));
    args.push("--".into());
    args.extend(command.iter().cloned());
    cp(&args).run()
}

fn verify(lock: &std::path::Path, extra: &[&str]) -> Out {
    let mut args: Vec<String> = vec!["verify".into(), "--lock".into(), s(lock)];
    args.extend(extra.iter().map(|x| x.to_string()));
    cp(&args).run()
}

#[test]
fn server_everything_lists_more_tools_to_a_client_that_declares_them() {
    let js = root().join(EVERYTHING);
    if !cli_support::tools::needs(&["python3", "node"])
        || !cli_support::tools::needs_path(&js, "bash .ci/install-servers.sh")
    {
        return;
    }
    let dir = TempDir::new("caps-everything");
    let plain = dir.path("plain.lock");
    let full = dir.path("full.lock");
    init(&plain, &[], &everything()).code(0);
    let o = init(
        &full,
        &["--client-capabilities", "sampling, roots,elicitation,roots"],
        &everything(),
    );
    o.code(0);
    assert!(
        o.out()
            .contains("client capabilities elicitation,roots,sampling"),
        "{}",
        o.out()
    );
    let conditional = format!("{CONDITIONAL:?}").replace('"', "'");
    py_check_json(
        &read(&plain),
        &format!(
            "e=d['servers']['e']\nassert 'client_capabilities' not in e\n\
             assert not set({conditional}) & set(e['tools']), sorted(e['tools'])\n\
             assert 'echo' in e['tools']"
        ),
    );
    py_check_json(
        &read(&full),
        &format!(
            "e=d['servers']['e']\nassert e['client_capabilities']==['elicitation','roots','sampling']\n\
             assert set({conditional}) <= set(e['tools']), sorted(e['tools'])"
        ),
    );
    // Same tools otherwise: the pins differ by exactly the conditional tools.
    py_check_json(
        &format!("[{}, {}]", read(&plain), read(&full)),
        &format!(
            "a,b=(x['servers']['e']['tools'] for x in d)\n\
             assert set(b)-set(a)==set({conditional}) and set(a)<=set(b)\n\
             assert all(a[k]==b[k] for k in a)"
        ),
    );
    // verify declares the recorded capabilities again: both locks match.
    verify(&full, &[]).code(0);
    verify(&plain, &[]).code(0);
    // An explicit, different list overrides the lock: drift, with a warning.
    let o = verify(&full, &["--client-capabilities", "none"]);
    o.code(1);
    for t in CONDITIONAL {
        assert!(o.out().contains(&format!("removed  {t}")), "{}", o.out());
    }
    assert!(
        o.err().contains(
            "declaring client capabilities none instead of the lock's elicitation,roots,sampling"
        ),
        "{}",
        o.err()
    );
    let o = verify(&plain, &["--client-capabilities", "roots"]);
    o.code(1);
    assert!(o.out().contains("added    get-roots-list"), "{}", o.out());
    assert!(!o.out().contains("trigger-sampling-request"), "{}", o.out());
    // The same list as the lock's (in another order) is no override at all.
    let o = verify(
        &full,
        &["--client-capabilities", "roots,sampling,elicitation"],
    );
    o.code(0);
    assert!(!o.err().contains("declaring"), "{}", o.err());
}

/// A stdio MCP server that appends every request's params to LOG and speaks
/// `server/discover` when its first argument is `modern` (else it answers
/// it with -32601, so the client falls back to `initialize`).
const RECORDER: &str = r#"
import json, sys
mode, log = sys.argv[1], sys.argv[2]
for line in sys.stdin:
    m = json.loads(line)
    with open(log, "a") as f:
        f.write(json.dumps({"method": m.get("method"), "params": m.get("params")}) + "\n")
    if "id" not in m:
        continue
    meth, rid = m["method"], m["id"]
    if meth == "server/discover" and mode != "modern":
        out = {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}}
    elif meth == "server/discover":
        out = {"jsonrpc": "2.0", "id": rid, "result": {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, "serverInfo": {"name": "rec", "version": "1"}}}
    elif meth == "initialize":
        out = {"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "rec", "version": "1"}}}
    else:
        out = {"jsonrpc": "2.0", "id": rid, "result": {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}}
    print(json.dumps(out), flush=True)
"#;

/// The params of every request of `method` in the recorder's log.
fn recorded(log: &std::path::Path, method: &str) -> Vec<String> {
    read(log)
        .lines()
        .filter(|l| l.contains(&format!("\"method\": \"{method}\"")))
        .map(str::to_string)
        .collect()
}

#[test]
fn both_handshake_generations_declare_the_capabilities() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("caps-recorder");
    let script = dir.write("rec.py", RECORDER);
    for mode in ["legacy", "modern"] {
        let log = dir.path(&format!("{mode}.log"));
        let lock = dir.path(&format!("{mode}.lock"));
        let cmd = vec!["python3".into(), s(&script), mode.into(), s(&log)];
        init(
            &lock,
            &[
                "--client-capabilities",
                "elicitation.url,roots,experimental.io.example/x",
            ],
            &cmd,
        )
        .code(0);
        let want =
            r#"{"elicitation": {"url": {}}, "experimental": {"io.example/x": {}}, "roots": {}}"#;
        let check = |method: &str, code: &str| {
            let lines = recorded(&log, method);
            assert!(!lines.is_empty(), "{mode}: no {method} in\n{}", read(&log));
            for l in lines {
                py_check_json(&l, code);
            }
        };
        let meta = format!(
            "assert d['params']['_meta']['io.modelcontextprotocol/clientCapabilities']=={want}, d"
        );
        if mode == "modern" {
            check("server/discover", &meta);
            check("tools/list", &meta);
            assert!(recorded(&log, "initialize").is_empty(), "{}", read(&log));
        } else {
            check(
                "initialize",
                &format!("assert d['params']['capabilities']=={want}, d"),
            );
        }
        // verify declares the same again (the log grows by one handshake).
        std::fs::remove_file(&log).unwrap();
        verify(&lock, &[]).code(0);
        if mode == "modern" {
            check("server/discover", &meta);
        } else {
            check(
                "initialize",
                &format!("assert d['params']['capabilities']=={want}, d"),
            );
        }
        // Without a recorded list, an empty object.
        std::fs::remove_file(&log).unwrap();
        verify(&lock, &["--client-capabilities", "none"]).code(0);
        let empty = if mode == "modern" {
            (
                "server/discover",
                "assert d['params']['_meta']['io.modelcontextprotocol/clientCapabilities']=={}, d",
            )
        } else {
            ("initialize", "assert d['params']['capabilities']=={}, d")
        };
        check(empty.0, empty.1);
    }
}

#[test]
fn unknown_names_and_misuse_exit_2_before_anything_runs() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("caps-bad");
    let lock = dir.path("l.lock");
    let marker = dir.path("started");
    let cmd = vec![
        "python3".to_string(),
        "-c".into(),
        format!("open({:?}, 'w')", s(&marker)),
    ];
    for bad in [
        "telepathy",
        "roots,,sampling",
        "roots,none",
        "Roots",
        "experimental.",
        "roots.listChanged",
    ] {
        let o = init(&lock, &["--client-capabilities", bad], &cmd);
        o.code(2);
        assert!(
            o.err().contains("--client-capabilities"),
            "{bad}: {}",
            o.err()
        );
        assert!(!marker.exists() && !lock.exists(), "{bad}");
    }
    let o = init(&lock, &["--client-capabilities", "telepathy"], &cmd);
    assert!(
        o.err().contains("\"telepathy\"") && o.err().contains("elicitation"),
        "{}",
        o.err()
    );
    // A dump has no handshake.
    let dump = beside(&lock, "examples/tools-list.json");
    let o = cp(&[
        "init",
        "--lock",
        &s(&lock),
        "--name",
        "f",
        "--file",
        &dump,
        "--client-capabilities",
        "roots",
    ])
    .run();
    o.code(2);
    assert!(o.err().contains("--file"), "{}", o.err());
    // A hand-edited lock with an unknown name is refused by the reader.
    init(
        &lock,
        &["--client-capabilities", "roots"],
        &fake_cmd("ok", &[]),
    )
    .code(0);
    verify(&lock, &["--client-capabilities", "bogus"]).code(2);
    let text = read(&lock).replace("\"roots\"", "\"telepathy\"");
    std::fs::write(&lock, text).unwrap();
    let o = verify(&lock, &[]);
    o.code(2);
    assert!(
        o.err().contains("client_capabilities") && o.err().contains("telepathy"),
        "{}",
        o.err()
    );
}

#[test]
fn from_a_config_every_server_records_them() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("caps-from");
    let lock = dir.path("l.lock");
    let o = cp(&[
        "init",
        "--lock",
        &s(&lock),
        "--from",
        "examples/mcp-configs/claude_desktop_config.json",
        "--client-capabilities",
        "sampling",
        // The configuration's commands are relative to the repository root.
        "--allow-outside-paths",
    ])
    .run();
    o.code(0);
    py_check_json(
        &read(&lock),
        "assert all(e['client_capabilities']==['sampling'] for e in d['servers'].values()), d",
    );
    // The fake server lists the same tools whatever is declared.
    cp(&["verify", "--lock", &s(&lock), "--allow-outside-paths"])
        .env("NOTES_API_TOKEN", "x")
        .run()
        .code(0);
}
