//! CLI: `init --from CONFIG` for Claude Desktop, Cursor, Claude Code and VS
//! Code configurations (the samples in examples/mcp-configs/, whose servers
//! run tests/mcp/fake_server.py relative to the repository root, where the
//! tests run: outside the temporary lock's directory, so init records that
//! directory and verify runs the servers there, both with
//! --allow-outside-paths).

mod cli_support;
use cli_support::*;

fn config(name: &str) -> String {
    format!("examples/mcp-configs/{name}")
}

fn init_from(lock: &std::path::Path, cfg: &str, extra: &[&str]) -> Out {
    let mut args = vec![
        "init".to_string(),
        "--lock".into(),
        s(lock),
        "--from".into(),
        config(cfg),
        "--allow-outside-paths".into(),
    ];
    args.extend(extra.iter().map(|x| x.to_string()));
    cp(&args).run()
}

#[test]
fn claude_desktop_imports_every_server() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("claude");
    let lock = dir.path("l.lock");
    let o = init_from(&lock, "claude_desktop_config.json", &[]);
    o.code(0);
    let (ok, _) = reference(&["--fake", "ok"]);
    assert!(
        o.out()
            .contains(&format!("pinned fake-notes (stdio): {ok}")),
        "{}",
        o.out()
    );
    assert!(
        o.out()
            .contains(&format!("pinned fake-weather (stdio): {ok}")),
        "{}",
        o.out()
    );
    py_check_json(
        &read(&lock),
        "s=d['servers']\nassert set(s)=={'fake-notes','fake-weather'}\n\
         assert s['fake-notes']['command']==['python3','tests/mcp/fake_server.py','--transport','stdio','--scenario','ok']\n\
         assert s['fake-notes']['env']=={'NOTES_API_TOKEN':'${NOTES_API_TOKEN}'}\n\
         assert 'env' not in s['fake-weather'] and s['fake-weather']['transport']=='stdio'",
    );
    let literal = "not-a-real-token-claude-desktop";
    assert!(
        !read(&lock).contains(literal) && !o.out().contains(literal) && !o.err().contains(literal)
    );
    // The lock stores a reference: verify needs the variable.
    let o = cp(&["verify", "--lock", &s(&lock), "--allow-outside-paths"])
        .env_remove("NOTES_API_TOKEN")
        .run();
    o.code(2);
    assert!(o.err().contains("NOTES_API_TOKEN"), "{}", o.err());
    cp(&["verify", "--lock", &s(&lock), "--allow-outside-paths"])
        .env("NOTES_API_TOKEN", "x")
        .run()
        .code(0);
    // Importing again needs --force.
    let before = read(&lock);
    let o = init_from(&lock, "claude_desktop_config.json", &[]);
    o.code(2);
    assert!(o.err().contains("--force"));
    assert_eq!(read(&lock), before);
    init_from(&lock, "claude_desktop_config.json", &["--force"]).code(0);
}

#[test]
fn name_filters_one_server() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("filter");
    let lock = dir.path("l.lock");
    init_from(
        &lock,
        "claude_desktop_config.json",
        &["--name", "fake-weather"],
    )
    .code(0);
    py_check_json(&read(&lock), "assert list(d['servers'])==['fake-weather']");
    let o = init_from(&lock, "claude_desktop_config.json", &["--name", "nosuch"]);
    o.code(2);
    assert!(o.err().contains("nosuch"), "{}", o.err());
}

#[test]
fn cursor_with_an_unreachable_server_writes_nothing() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("cursor");
    let lock = dir.path("l.lock");
    // The remote entry's header references an unset variable: usage error.
    let mut args = vec![
        "init".to_string(),
        "--lock".into(),
        s(&lock),
        "--from".into(),
        config("cursor-mcp.json"),
    ];
    let o = cp(&args).env_remove("CURSOR_EXAMPLE_TOKEN").run();
    o.code(2);
    assert!(
        o.err().contains("CURSOR_EXAMPLE_TOKEN") && o.err().contains("not set"),
        "{}",
        o.err()
    );
    assert!(!lock.exists());
    // With the variable set, the remote server cannot be reached: exit 1 and
    // no lock at all, although the stdio server was fine.
    args.extend(["--timeout".into(), "3".into()]);
    let o = cp(&args)
        .env("CURSOR_EXAMPLE_TOKEN", "t0ken-cursor-123")
        .run();
    o.code(1);
    assert!(o.err().contains("remote-unreachable"), "{}", o.err());
    assert!(!o.err().contains("t0ken-cursor-123"));
    assert!(
        !lock.exists(),
        "a lock was written although a server failed"
    );
    // The stdio entry alone pins (junk stdout lines are skipped, with a warning).
    let o = init_from(&lock, "cursor-mcp.json", &["--name", "fake-local"]);
    o.code(0);
    assert!(o.err().contains("non-JSON"), "{}", o.err());
    py_check_json(
        &read(&lock),
        "assert d['servers']['fake-local']['env']=={'LOG_LEVEL':'${LOG_LEVEL}'}",
    );
}

#[test]
fn claude_code_typed_entries() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("claudecode");
    let lock = dir.path("l.lock");
    init_from(&lock, "claude-code.mcp.json", &["--name", "fake-stdio"]).code(0);
    py_check_json(
        &read(&lock),
        "e=d['servers']['fake-stdio']\nassert e['transport']=='stdio' and 'env' not in e",
    );
    let o = cp(&[
        "init",
        "--lock",
        &s(&lock),
        "--from",
        &config("claude-code.mcp.json"),
        "--name",
        "remote-api",
        "--timeout",
        "3",
    ])
    .env("CLAUDE_CODE_EXAMPLE_KEY", "k3y-claude-code-xyz")
    .run();
    o.code(1);
    assert!(!o.err().contains("k3y-claude-code-xyz"));
}

#[test]
fn vscode_mcp_json_with_comments_inputs_and_disabled_entries() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("vscode");
    let lock = dir.path("l.lock");
    // All servers: the SSE entry uses ${input:api-key}, which only VS Code can
    // resolve: a usage error naming it, before anything is fetched.
    let o = init_from(&lock, "vscode-mcp.json", &[]);
    o.code(2);
    assert!(o.err().contains("input:api-key"), "{}", o.err());
    assert!(
        o.err()
            .contains("skipping disabled server \"disabled-one\""),
        "{}",
        o.err()
    );
    assert!(!lock.exists());
    init_from(&lock, "vscode-mcp.json", &["--name", "fake-vscode"]).code(0);
    py_check_json(
        &read(&lock),
        "e=d['servers']['fake-vscode']\nassert e['command'][-1]=='ok' and e['env']=={'FAKE_MODE':'${FAKE_MODE}'}",
    );
}

#[test]
fn vscode_settings_json() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("settings");
    let lock = dir.path("l.lock");
    init_from(&lock, "vscode-settings.json", &[]).code(0);
    py_check_json(&read(&lock), "assert list(d['servers'])==['fake-settings']");
    cp(&["verify", "--lock", &s(&lock), "--allow-outside-paths"])
        .run()
        .code(0);
}

#[test]
fn http_entries_from_a_config() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("cfghttp");
    let lock = dir.path("l.lock");
    let srv = FakeHttp::start("http", "ok", &[]);
    let cfg = dir.write(
        "mcp.json",
        format!(
            "{{\"servers\": {{\"web\": {{\"type\": \"http\", \"url\": {}, \"headers\": {{\"X-Trace\": \"abc\"}}}},\n\
             \"legacy\": {{\"serverUrl\": {}}}}}}}",
            json_str(&srv.url),
            json_str(&srv.url)
        ),
    );
    let o = cp(&["init", "--lock", &s(&lock), "--from", &s(&cfg)]).run();
    o.code(0);
    py_check_json(
        &read(&lock),
        &format!(
            "s=d['servers']\nassert s['web']=={{**s['web'],'transport':'http','url':{:?}}}\nassert s['legacy']['url']=={:?}\nassert 'headers' not in s['web']",
            srv.url, srv.url
        ),
    );
}

#[test]
fn bad_configs_exit_2() {
    let dir = TempDir::new("badcfg");
    let lock = dir.path("l.lock");
    for (name, text, needle) in [
        ("missing.json", None, "cannot read"),
        ("invalid.json", Some("{\"mcpServers\": {"), "not valid JSON"),
        ("nomap.json", Some("{\"other\": {}}"), "mcpServers"),
        ("notobj.json", Some("{\"mcpServers\": []}"), "not an object"),
        ("empty.json", Some("{\"mcpServers\": {}}"), "no servers"),
        (
            "type.json",
            Some("{\"mcpServers\": {\"a\": {\"type\": \"ws\", \"url\": \"ws://x\"}}}"),
            "unsupported \"type\"",
        ),
        (
            "nocmd.json",
            Some("{\"mcpServers\": {\"a\": {\"args\": [\"x\"]}}}"),
            "needs \"command\"",
        ),
        (
            "args.json",
            Some("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"args\": \"y\"}}}"),
            "\"args\" is not an array",
        ),
        (
            "env.json",
            Some("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"env\": {\"K\": 1}}}}"),
            "env \"K\" is not a string",
        ),
        (
            "nourl.json",
            Some("{\"servers\": {\"a\": {\"type\": \"http\"}}}"),
            "needs \"url\"",
        ),
    ] {
        let path = match text {
            Some(t) => dir.write(name, t),
            None => dir.path(name),
        };
        let o = cp(&["init", "--lock", &s(&lock), "--from", &s(&path)]).run();
        o.code(2);
        assert!(o.err().contains(needle), "{name}: {}", o.err());
        assert!(!lock.exists());
    }
    // --env and --cwd do not combine with --from; --header does.
    let o = cp(&[
        "init",
        "--lock",
        &s(&lock),
        "--from",
        &config("vscode-settings.json"),
        "--env",
        "A=b",
    ])
    .run();
    o.code(2);
}
