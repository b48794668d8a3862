//! CLI: `wrap --config FILE [--lock L] [--dry-run]` and `unwrap --config FILE`
//! on copies of the sample configurations in examples/mcp-configs/ (Claude
//! Desktop, Cursor, Claude Code, VS Code mcp.json and settings.json), each
//! pinned first with `init --from` the same copy against
//! tests/mcp/fake_server.py.

mod cli_support;
use cli_support::*;

use std::path::{Path, PathBuf};

/// A temporary directory with a copy of one sample configuration.
struct Setup {
    dir: TempDir,
    config: PathBuf,
    lock: PathBuf,
    original: String,
}

/// [`setup`] with every server of the sample pinned; `None` (after a loud
/// skip) without python3, which the sample servers need.
fn pinned_setup(sample: &str) -> Option<Setup> {
    if !cli_support::tools::needs(&["python3"]) {
        return None;
    }
    let st = setup(sample);
    st.pin(None);
    Some(st)
}

fn setup(sample: &str) -> Setup {
    let dir = TempDir::new("wrap");
    let original = read(&root().join("examples/mcp-configs").join(sample));
    let config = dir.write(sample, &original);
    let lock = dir.path("contractpin.lock");
    Setup {
        dir,
        config,
        lock,
        original,
    }
}

impl Setup {
    /// `init --from` the copy (only `name` when given). Its commands are
    /// relative to the repository root, where init runs, outside the lock's
    /// directory: recorded as the servers' cwd with --allow-outside-paths.
    fn pin(&self, name: Option<&str>) {
        let mut args = vec![
            "init".to_string(),
            "--lock".into(),
            s(&self.lock),
            "--from".into(),
            s(&self.config),
            "--allow-outside-paths".into(),
        ];
        if let Some(n) = name {
            args.extend(["--name".into(), n.into()]);
        }
        cp(&args).env("NOTES_API_TOKEN", "x").run().code(0);
    }
    fn wrap(&self, extra: &[&str]) -> Out {
        let mut args = vec![
            "wrap".to_string(),
            "--config".into(),
            s(&self.config),
            "--lock".into(),
            s(&self.lock),
        ];
        args.extend(extra.iter().map(|x| x.to_string()));
        cp(&args).run()
    }
    fn unwrap(&self, extra: &[&str]) -> Out {
        let mut args = vec!["unwrap".to_string(), "--config".into(), s(&self.config)];
        args.extend(extra.iter().map(|x| x.to_string()));
        cp(&args).run()
    }
    fn backup(&self) -> PathBuf {
        PathBuf::from(format!("{}.contractpin-backup", s(&self.config)))
    }
    fn now(&self) -> String {
        read(&self.config)
    }
    /// The absolute paths a wrapped entry must hold, as Python literals.
    fn py_paths(&self) -> String {
        let exe = std::fs::canonicalize(bin()).unwrap();
        let lock = std::fs::canonicalize(&self.lock).unwrap();
        format!("exe={:?}\nlock={:?}\n", s(&exe), s(&lock))
    }
}

/// Python: `d` is the wrapped configuration, `o` the original; the named
/// entries of map `m` are wrapped, keep their other members, and the rest
/// of the file is unchanged.
fn check_wrapped(st: &Setup, map: &str, wrapped: &[&str], code: &str) {
    let orig_json = strip_comments(&st.original);
    let script = format!(
        "{paths}o=json.loads({orig:?})\nm=lambda x: {map}\nwrapped={wrapped:?}\n\
         for n,e in m(d).items():\n\
         \x20   if n not in wrapped:\n\
         \x20       assert e==m(o)[n], (n,e)\n\
         \x20       continue\n\
         \x20   assert e['command']==exe, e\n\
         \x20   assert e['args']==['proxy','--lock',lock,'--name',n], e\n\
         \x20   for k in ('url','serverUrl','headers'):\n\
         \x20       assert k not in e, (n,k)\n\
         \x20   if 'type' in m(o)[n]:\n\
         \x20       assert e['type']=='stdio', e\n\
         \x20   for k,v in m(o)[n].items():\n\
         \x20       if k not in ('command','args','type','url','serverUrl','headers'):\n\
         \x20           assert e[k]==v, (n,k)\n\
         assert set(m(d))==set(m(o))\n\
         {code}",
        paths = st.py_paths(),
        orig = orig_json,
    );
    py_check_json(&strip_comments(&st.now()), &script);
}

/// The JSON of a JSONC text (comments and trailing commas removed), by Python.
fn strip_comments(text: &str) -> String {
    let dir = TempDir::new("jsonc");
    let f = dir.write("c.json", text);
    let script = "import re,sys\nt=open(sys.argv[1],encoding='utf-8').read()\n\
        out=[];i=0;ins=False\n\
        while i<len(t):\n\
        \x20 c=t[i]\n\
        \x20 if ins:\n\
        \x20   out.append(c)\n\
        \x20   if c=='\\\\': out.append(t[i+1]); i+=2; continue\n\
        \x20   if c=='\"': ins=False\n\
        \x20   i+=1; continue\n\
        \x20 if c=='\"': ins=True; out.append(c); i+=1; continue\n\
        \x20 if t.startswith('//',i):\n\
        \x20   j=t.find('\\n',i); i=len(t) if j<0 else j; continue\n\
        \x20 if t.startswith('/*',i):\n\
        \x20   i=t.index('*/',i)+2; continue\n\
        \x20 out.append(c); i+=1\n\
        print(re.sub(r',(\\s*[}\\]])',r'\\1',''.join(out)))\n";
    let out = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(&f)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn claude_desktop_wrap_is_idempotent_and_unwrap_restores_every_byte() {
    let Some(st) = pinned_setup("claude_desktop_config.json") else {
        return;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&st.config, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let o = st.wrap(&[]);
    o.code(0);
    assert!(
        o.out().contains("wrapped fake-notes (was stdio)"),
        "{}",
        o.out()
    );
    assert!(
        o.out().contains("wrapped fake-weather (was stdio)"),
        "{}",
        o.out()
    );
    check_wrapped(
        &st,
        "x['mcpServers']",
        &["fake-notes", "fake-weather"],
        "assert d['mcpServers']['fake-notes']['env']=={'NOTES_API_TOKEN':'not-a-real-token-claude-desktop'}\n\
         assert 'env' not in d['mcpServers']['fake-weather']",
    );
    // The env block is kept byte for byte; only command/args lines changed.
    let wrapped = st.now();
    assert!(wrapped.contains(
        "      \"env\": {\n        \"NOTES_API_TOKEN\": \"not-a-real-token-claude-desktop\"\n      }\n"
    ));
    assert!(!o.out().contains("not-a-real-token") && !o.err().contains("not-a-real-token"));
    assert_eq!(read(&st.backup()), st.original);
    #[cfg(unix)]
    {
        assert_eq!(mode(&st.config), 0o600);
        assert_eq!(
            mode(&st.backup()),
            0o600,
            "the backup holds the same secrets"
        );
    }
    // A second wrap changes nothing at all.
    let o = st.wrap(&[]);
    o.code(0);
    assert!(o.out().contains("nothing to wrap"), "{}", o.out());
    assert!(
        o.out()
            .contains("already wrapped: \"fake-notes\", \"fake-weather\""),
        "{}",
        o.out()
    );
    assert_eq!(st.now(), wrapped);
    assert_eq!(read(&st.backup()), st.original);
    // unwrap: byte-identical, backup gone.
    let o = st.unwrap(&[]);
    o.code(0);
    assert!(
        o.out().contains("exactly as it was before wrap"),
        "{}",
        o.out()
    );
    assert_eq!(st.now(), st.original);
    assert!(!st.backup().exists());
    #[cfg(unix)]
    assert_eq!(mode(&st.config), 0o600);
    // And again: no backup, nothing to restore.
    let o = st.unwrap(&[]);
    o.code(2);
    assert!(o.err().contains("no backup"), "{}", o.err());
}

#[test]
fn cursor_unpinned_servers_are_left_alone_with_a_warning() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let st = setup("cursor-mcp.json");
    st.pin(Some("fake-local"));
    let o = st.wrap(&[]);
    o.code(0);
    assert!(
        o.err()
            .contains("not pinned in the lock, left as they are: \"remote-unreachable\""),
        "{}",
        o.err()
    );
    check_wrapped(
        &st,
        "x['mcpServers']",
        &["fake-local"],
        "assert d['mcpServers']['fake-local']['env']=={'LOG_LEVEL':'debug'}",
    );
    // The unpinned entry's text is untouched.
    assert!(st.now().contains(
        "    \"remote-unreachable\": {\n      \"url\": \"http://127.0.0.1:9/mcp\",\n      \"headers\": { \"Authorization\": \"Bearer ${CURSOR_EXAMPLE_TOKEN}\" }\n    }"
    ));
    st.unwrap(&[]).code(0);
    assert_eq!(st.now(), st.original);
}

#[test]
fn claude_code_http_entry_becomes_a_stdio_entry_and_missing_variables_are_named() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let st = setup("claude-code.mcp.json");
    st.pin(Some("fake-stdio"));
    // Pin the HTTP entry's name against a live fake server, with a stored
    // header reference (the sample's own URL points at a closed port).
    let srv = FakeHttp::start("http", "ok", &[]);
    cp(&[
        "init",
        "--lock",
        &s(&st.lock),
        "--name",
        "remote-api",
        "--http",
        &srv.url,
        "--header",
        "X-API-Key: ${CLAUDE_CODE_EXAMPLE_KEY}",
    ])
    .env("CLAUDE_CODE_EXAMPLE_KEY", "k3y-claude-code-xyz")
    .run()
    .code(0);
    let o = st.wrap(&[]);
    o.code(0);
    assert!(
        o.out().contains("wrapped remote-api (was http)"),
        "{}",
        o.out()
    );
    check_wrapped(
        &st,
        "x['mcpServers']",
        &["fake-stdio", "remote-api"],
        "assert d['mcpServers']['fake-stdio']['env']=={} and d['mcpServers']['fake-stdio']['type']=='stdio'\n\
         assert d['mcpServers']['remote-api']['type']=='stdio'\n\
         assert set(d['mcpServers']['remote-api'])=={'type','command','args'}",
    );
    assert!(
        o.err().contains(&format!(
            "the lock needs ${{CLAUDE_CODE_EXAMPLE_KEY}} for server \"remote-api\"; add it to the env block of remote-api in {}",
            s(&st.config)
        )),
        "{}",
        o.err()
    );
    // The configuration's URL is not the pinned one: the proxy uses the lock's.
    assert!(
        o.err()
            .contains("its URL in the configuration differs from the lock's"),
        "{}",
        o.err()
    );
    assert!(!o.err().contains("k3y-claude-code-xyz"));
    // fake-stdio needs nothing from the environment: no warning about it.
    assert!(!o.err().contains("\"fake-stdio\""), "{}", o.err());
    st.unwrap(&[]).code(0);
    assert_eq!(st.now(), st.original);
}

/// The Claude Code sample with `value` in place of its key reference (a
/// literal header value), written, and its `remote-api` pinned against a
/// fake HTTP server: the setup, the configuration's text and the server
/// (kept running while the test runs). `None` (after a loud skip) without
/// python3.
fn remote_api_with_literal_key(value: &str) -> Option<(Setup, String, FakeHttp)> {
    if !cli_support::tools::needs(&["python3"]) {
        return None;
    }
    let st = setup("claude-code.mcp.json");
    let text = st.original.replace("${CLAUDE_CODE_EXAMPLE_KEY}", value);
    std::fs::write(&st.config, &text).unwrap();
    let srv = FakeHttp::start("http", "ok", &[]);
    cp(&[
        "init",
        "--lock",
        &s(&st.lock),
        "--name",
        "remote-api",
        "--http",
        &srv.url,
    ])
    .run()
    .code(0);
    Some((st, text, srv))
}

/// A header with a literal value in the configuration is not in the lock
/// (init never stores a literal): wrap names the header, never its value,
/// says the proxy will not send it, and the value stays in the backup only.
#[test]
fn a_literal_header_is_named_never_shown_and_not_sent() {
    let secret = "Bearer l1teral-s3cret-value";
    let Some((st, text, _srv)) = remote_api_with_literal_key(secret) else {
        return;
    };
    let o = st.wrap(&[]);
    o.code(0);
    assert!(
        o.err().contains(
            "server \"remote-api\" sends header X-API-Key, which the lock does not store \
             (a literal value is never stored): the proxy will not send it"
        ),
        "{}",
        o.err()
    );
    for (what, t) in [
        ("stdout", o.out()),
        ("stderr", o.err()),
        ("the lock", read(&st.lock)),
    ] {
        assert!(!t.contains("l1teral-s3cret"), "the value is in {what}: {t}");
    }
    assert!(
        !st.now().contains("l1teral-s3cret"),
        "the value is in the wrapped file"
    );
    assert!(
        read(&st.backup()).contains(secret),
        "the backup keeps the original"
    );
    st.unwrap(&[]).code(0);
    assert_eq!(st.now(), text);
}

/// `unwrap` with a backup but no wrapped entry in the file: when the file
/// equals the backup the backup is removed, otherwise it is kept with a
/// warning; the file is never changed.
#[test]
fn unwrap_with_nothing_wrapped_keeps_or_removes_the_backup() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let st = setup("claude-code.mcp.json");
    st.pin(Some("fake-stdio"));
    st.wrap(&[]).code(0);
    // The user put the original back by hand.
    std::fs::write(&st.config, &st.original).unwrap();
    let o = st.unwrap(&[]);
    o.code(0);
    assert!(o.out().contains("nothing to unwrap in"), "{}", o.out());
    assert!(
        !st.backup().exists(),
        "a backup equal to the file is removed"
    );
    assert_eq!(st.now(), st.original);
    // Wrapped again, then replaced by hand with another unwrapped file.
    st.wrap(&[]).code(0);
    let other = st.original.replace("\"ok\"", "\"ok\", \"--pages\", \"1\"");
    std::fs::write(&st.config, &other).unwrap();
    let o = st.unwrap(&[]);
    o.code(0);
    assert!(o.err().contains("(no wrapped entry)"), "{}", o.err());
    assert!(st.backup().exists(), "a backup that differs is kept");
    assert_eq!(st.now(), other);
}

#[test]
fn vscode_mcp_json_keeps_comments_and_disabled_entries() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let st = setup("vscode-mcp.json");
    st.pin(Some("fake-vscode"));
    let o = st.wrap(&[]);
    o.code(0);
    let now = st.now();
    assert!(now.starts_with(
        "// VS Code .vscode/mcp.json: comments and trailing commas are allowed here.\n"
    ));
    assert!(
        now.contains(
            "    /* a local stdio server */\n    \"fake-vscode\": {\n      \"type\": \"stdio\",\n"
        ),
        "{now}"
    );
    assert!(now.contains(
        "    \"disabled-one\": {\n      \"type\": \"stdio\",\n      \"command\": \"does-not-exist\",\n      \"disabled\": true\n    }"
    ));
    assert!(now.contains("\"headers\": { \"Authorization\": \"Bearer ${input:api-key}\" }"));
    check_wrapped(
        &st,
        "x['servers']",
        &["fake-vscode"],
        "assert d['servers']['fake-vscode']['env']=={'FAKE_MODE':'vscode'}\nassert d['inputs']==o['inputs']",
    );
    assert!(o.err().contains("\"remote-sse\""), "{}", o.err());
    assert!(!o.err().contains("disabled-one"), "{}", o.err());
    // Only trailing commas were inside the entry: no comment was lost.
    assert!(!o.err().contains("comments inside"), "{}", o.err());
    st.unwrap(&[]).code(0);
    assert_eq!(st.now(), st.original);
}

#[test]
fn vscode_settings_json_nested_map() {
    let Some(st) = pinned_setup("vscode-settings.json") else {
        return;
    };
    st.wrap(&[]).code(0);
    check_wrapped(
        &st,
        "x['mcp']['servers']",
        &["fake-settings"],
        "assert d['editor.formatOnSave'] is True",
    );
    st.unwrap(&[]).code(0);
    assert_eq!(st.now(), st.original);
}

#[test]
fn comments_inside_a_wrapped_entry_are_named_and_come_back_on_unwrap() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let st = setup("claude_desktop_config.json");
    st.pin(Some("fake-weather"));
    let text = st.original.replace(
        "\"args\": [\"tests/mcp/fake_server.py\", \"--scenario\", \"one-per-page\"]",
        "// paged\n      \"args\": [\"tests/mcp/fake_server.py\", \"--scenario\", \"one-per-page\"]",
    );
    std::fs::write(&st.config, &text).unwrap();
    let o = st.wrap(&[]);
    o.code(0);
    assert!(
        o.err()
            .contains("the comments inside server \"fake-weather\" are kept in the backup only"),
        "{}",
        o.err()
    );
    assert!(!st.now().contains("// paged"));
    st.unwrap(&[]).code(0);
    assert_eq!(st.now(), text);
}

#[test]
fn dry_run_shows_the_diff_and_writes_nothing() {
    let Some(st) = pinned_setup("claude_desktop_config.json") else {
        return;
    };
    let o = st.wrap(&["--dry-run"]);
    o.code(0);
    let exe = s(&std::fs::canonicalize(bin()).unwrap());
    let lock = s(&std::fs::canonicalize(&st.lock).unwrap());
    let out = o.out();
    let name = s(&st.config);
    assert!(
        out.starts_with(&format!("--- {name}\n+++ {name} (wrapped)\n@@ -")),
        "{out}"
    );
    assert!(
        out.contains("\n-      \"command\": \"python3\",\n"),
        "{out}"
    );
    assert!(
        out.contains(&format!("\n+      \"command\": \"{exe}\",\n")),
        "{out}"
    );
    assert!(
        out.contains(&format!(
        "\n+      \"args\": [\"proxy\", \"--lock\", \"{lock}\", \"--name\", \"fake-weather\"]\n"
    )),
        "{out}"
    );
    // Context lines, unchanged: the env block.
    assert!(out.contains("\n         \"NOTES_API_TOKEN\": "), "{out}");
    assert!(o.err().contains("dry run"), "{}", o.err());
    assert_eq!(st.now(), st.original);
    assert!(!st.backup().exists());
    // unwrap --dry-run after a real wrap shows the way back, and writes nothing.
    st.wrap(&[]).code(0);
    let wrapped = st.now();
    let o = st.unwrap(&["--dry-run"]);
    o.code(0);
    assert!(
        o.out().contains("\n+      \"command\": \"python3\",\n"),
        "{}",
        o.out()
    );
    assert_eq!(st.now(), wrapped);
    assert!(st.backup().exists());
}

#[cfg(unix)]
#[test]
fn a_symlinked_config_is_refused() {
    let Some(st) = pinned_setup("claude_desktop_config.json") else {
        return;
    };
    let link = st.dir.path("link.json");
    std::os::unix::fs::symlink(&st.config, &link).unwrap();
    for args in [
        vec!["wrap", "--config", &s(&link), "--lock", &s(&st.lock)],
        vec![
            "wrap",
            "--config",
            &s(&link),
            "--lock",
            &s(&st.lock),
            "--dry-run",
        ],
        vec!["unwrap", "--config", &s(&link)],
    ] {
        let o = cp(&args).run();
        o.code(2);
        assert!(o.err().contains("symbolic link"), "{}", o.err());
        assert!(
            o.err()
                .contains(&s(&std::fs::canonicalize(&st.config).unwrap())),
            "{}",
            o.err()
        );
    }
    assert_eq!(st.now(), st.original);
    assert!(!PathBuf::from(format!("{}.contractpin-backup", s(&link))).exists());
}

#[test]
fn unwrap_keeps_later_changes_and_refuses_edited_entries_without_force() {
    let Some(st) = pinned_setup("claude_desktop_config.json") else {
        return;
    };
    st.wrap(&[]).code(0);
    // A server added since wrap is kept by unwrap.
    let added = st.now().replace(
        "  \"mcpServers\": {\n",
        "  \"mcpServers\": {\n    \"later\": {\"command\": \"later-server\"},\n",
    );
    std::fs::write(&st.config, &added).unwrap();
    st.unwrap(&[]).code(0);
    let want = st.original.replace(
        "  \"mcpServers\": {\n",
        "  \"mcpServers\": {\n    \"later\": {\"command\": \"later-server\"},\n",
    );
    assert_eq!(st.now(), want);
    assert!(!st.backup().exists());

    // A wrapped entry edited since wrap: refused, nothing written.
    std::fs::write(&st.config, &st.original).unwrap();
    st.wrap(&[]).code(0);
    let edited = st
        .now()
        .replace("not-a-real-token-claude-desktop", "changed-token");
    std::fs::write(&st.config, &edited).unwrap();
    let o = st.unwrap(&[]);
    o.code(2);
    assert!(
        o.err().contains("\"fake-notes\"") && o.err().contains("--force"),
        "{}",
        o.err()
    );
    assert!(!o.err().contains("fake-weather"), "{}", o.err());
    assert_eq!(st.now(), edited);
    assert!(st.backup().exists());
    st.unwrap(&["--force"]).code(0);
    assert_eq!(st.now(), st.original);
    assert!(!st.backup().exists());
}

#[test]
fn a_second_wrap_with_new_entries_needs_unwrap_first() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let st = setup("claude_desktop_config.json");
    st.pin(Some("fake-notes"));
    st.wrap(&[]).code(0);
    let wrapped = st.now();
    // fake-weather is pinned later: wrapping it now would need a new backup.
    st.pin(Some("fake-weather"));
    let o = st.wrap(&[]);
    o.code(2);
    assert!(
        o.err().contains("contractpin-backup") && o.err().contains("unwrap"),
        "{}",
        o.err()
    );
    assert!(o.err().contains("\"fake-weather\""), "{}", o.err());
    assert_eq!(st.now(), wrapped);
    assert_eq!(read(&st.backup()), st.original);
    // unwrap, then wrap wraps both.
    st.unwrap(&[]).code(0);
    st.wrap(&[]).code(0);
    check_wrapped(&st, "x['mcpServers']", &["fake-notes", "fake-weather"], "");
}

#[test]
fn usage_errors_exit_2_and_write_nothing() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let st = setup("claude_desktop_config.json");
    // No lock yet.
    let o = st.wrap(&[]);
    o.code(2);
    assert!(o.err().contains("init --from"), "{}", o.err());
    st.pin(None);
    for (text, needle) in [
        ("{\"mcpServers\": {", "not valid JSON"),
        ("{\"other\": {}}", "mcpServers"),
        (
            "{\"mcpServers\": {\"fake-notes\": {\"args\": [\"x\"]}}}",
            "needs \"command\"",
        ),
    ] {
        std::fs::write(&st.config, text).unwrap();
        let o = st.wrap(&[]);
        o.code(2);
        assert!(o.err().contains(needle), "{text}: {}", o.err());
        assert_eq!(st.now(), text);
        assert!(!st.backup().exists());
    }
    // A corrupt lock.
    std::fs::write(&st.config, &st.original).unwrap();
    std::fs::write(&st.lock, "{}").unwrap();
    st.wrap(&[]).code(2);
    assert_eq!(st.now(), st.original);
    // Missing --config.
    cp(&["wrap"]).run().code(2);
    cp(&["unwrap"]).run().code(2);
}

/// The wrapped entry's command line, as a client would run it: the
/// absolute path of this very binary, an existing absolute lock, and the
/// entry's env block.
fn wrapped_command(st: &Setup, name: &str) -> (String, Vec<String>, Vec<(String, String)>) {
    let dir = TempDir::new("argv");
    let f = dir.write("c.json", st.now());
    let script = format!(
        "import json,sys\ne=json.load(open(sys.argv[1]))['mcpServers'][{name:?}]\n\
         print(json.dumps([e['command'],e['args'],sorted(e.get('env',{{}}).items())]))"
    );
    let out = std::process::Command::new("python3")
        .args(["-c", &script])
        .arg(&f)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    // A tiny reader for ["cmd", [args...], [[k, v]...]] of plain strings.
    let strings: Vec<String> = text
        .split('"')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, x)| x.to_string())
        .collect();
    let command = strings[0].clone();
    let args = strings[1..6].to_vec();
    let env = strings[6..]
        .chunks(2)
        .map(|kv| (kv[0].clone(), kv[1].clone()))
        .collect();
    (command, args, env)
}

#[test]
fn the_wrapped_command_line_names_this_binary_and_the_lock() {
    let Some(st) = pinned_setup("claude_desktop_config.json") else {
        return;
    };
    st.wrap(&[]).code(0);
    let (command, args, env) = wrapped_command(&st, "fake-notes");
    assert_eq!(
        PathBuf::from(&command),
        std::fs::canonicalize(bin()).unwrap()
    );
    assert!(Path::new(&command).is_absolute());
    assert_eq!(args[0], "proxy");
    assert_eq!(args[1], "--lock");
    assert!(Path::new(&args[2]).is_absolute() && Path::new(&args[2]).is_file());
    assert_eq!(
        PathBuf::from(&args[2]),
        std::fs::canonicalize(&st.lock).unwrap()
    );
    assert_eq!(&args[3..], ["--name", "fake-notes"]);
    assert_eq!(
        env,
        [(
            "NOTES_API_TOKEN".to_string(),
            "not-a-real-token-claude-desktop".to_string()
        )]
    );
    // The binary the entry names runs (from any directory, with no PATH).
    let out = std::process::Command::new(&command)
        .arg("--version")
        .env_clear()
        .current_dir(st.dir.path(""))
        .output()
        .unwrap();
    assert!(out.status.success());
}

/// Started by name through `PATH` (as from a shell), wrap writes the `PATH`
/// entry, a link, not the versioned file it points to: after an upgrade
/// re-points the link (Homebrew's `bin/contractpin` -> `Cellar/VERSION`)
/// and removes the old file, the wrapped entry still runs and a second wrap
/// finds it wrapped. Started by the versioned file's own path, wrap names
/// the link's entry as this contractpin by another path.
#[cfg(unix)]
#[test]
fn started_from_path_wrap_writes_the_link_that_survives_an_upgrade() {
    let Some(st) = pinned_setup("claude_desktop_config.json") else {
        return;
    };
    let (links, link) = (st.dir.path("bin"), st.dir.path("bin/contractpin"));
    std::fs::create_dir_all(&links).unwrap();
    let install = |version: &str| {
        let file = st.dir.path(&format!("Cellar/{version}/contractpin"));
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::copy(bin(), &file).unwrap();
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&file, &link).unwrap();
        file
    };
    let wrap_args = ["wrap", "--config", &s(&st.config), "--lock", &s(&st.lock)];
    let old = install("1.0");
    cp_by_name(&links, &wrap_args).run().code(0);
    let (command, _, _) = wrapped_command(&st, "fake-notes");
    assert_eq!(command, s(&link), "wrap did not write the PATH entry");
    let new = install("2.0");
    std::fs::remove_dir_all(old.parent().unwrap()).unwrap();
    let out = std::process::Command::new(&command)
        .arg("--version")
        .output()
        .unwrap();
    assert!(out.status.success(), "the wrapped entry no longer runs");
    let o = cp_by_name(&links, &wrap_args).run();
    o.code(0);
    assert!(o.out().contains("already wrapped"), "{}", o.out());
    let o = cp_as(&new, &wrap_args).run();
    o.code(2);
    assert!(
        o.err().contains("is this contractpin by another path"),
        "{}",
        o.err()
    );
}

/// Runs the wrapped entry exactly as a client would (its command, its args, only
/// its env block, from another directory) and talks MCP to it.
#[test]
fn the_wrapped_entry_really_serves_the_pinned_tools() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    use std::io::{BufRead, BufReader, Write};
    let st = setup("claude_desktop_config.json");
    // The lock's command must work from the client's directory: absolute script path.
    let mut cmd = fake_cmd("ok", &[]);
    cmd.insert(0, "--".into());
    let mut args = vec![
        "init".to_string(),
        "--lock".into(),
        s(&st.lock),
        "--name".into(),
        "fake-notes".into(),
    ];
    args.extend(cmd);
    cp(&args).run().code(0);
    st.wrap(&[]).code(0);
    let (command, argv, env) = wrapped_command(&st, "fake-notes");
    let mut child = std::process::Command::new(&command)
        .args(&argv)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .envs(env)
        .current_dir(st.dir.path(""))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#).unwrap();
    let init = lines.next().unwrap().unwrap();
    assert!(init.contains("\"id\":1"), "{init}");
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list"}}"#).unwrap();
    let list = lines
        .find(|l| l.as_ref().is_ok_and(|l| l.contains("\"id\":2")))
        .unwrap()
        .unwrap();
    let (_, tools) = reference(&["--fake", "ok"]);
    // The proxy passes the server's bytes on as sent (spacing included).
    let compact = list.replace(' ', "");
    for (_, name) in tools {
        assert!(compact.contains(&format!("\"name\":\"{name}\"")), "{list}");
    }
    drop(stdin);
    let _ = child.wait();
}

#[test]
fn crlf_and_one_line_entries_keep_their_layout() {
    let Some(st) = pinned_setup("claude_desktop_config.json") else {
        return;
    };
    let text = "{\r\n  \"mcpServers\": {\r\n    \"fake-notes\": {\r\n      \"command\": \"python3\",\r\n      \"args\": [\"tests/mcp/fake_server.py\", \"--transport\", \"stdio\", \"--scenario\", \"ok\"],\r\n      \"env\": {\"NOTES_API_TOKEN\": \"t\"}\r\n    },\r\n    \"fake-weather\": {\"command\": \"python3\", \"args\": [\"tests/mcp/fake_server.py\", \"--scenario\", \"one-per-page\"]}\r\n  }\r\n}\r\n";
    std::fs::write(&st.config, text).unwrap();
    let o = st.wrap(&[]);
    o.code(0);
    // The configuration starts the servers as the lock does: no warning.
    assert!(!o.err().contains("differs"), "{}", o.err());
    let now = st.now();
    let exe = s(&std::fs::canonicalize(bin()).unwrap());
    let lock = s(&std::fs::canonicalize(&st.lock).unwrap());
    assert!(now.contains(&format!(
        "    \"fake-notes\": {{\r\n      \"command\": {exe:?},\r\n      \"args\": [\"proxy\", \"--lock\", {lock:?}, \"--name\", \"fake-notes\"],\r\n      \"env\": {{\"NOTES_API_TOKEN\": \"t\"}}\r\n    }},\r\n"
    )), "{now}");
    assert!(now.contains(&format!(
        "    \"fake-weather\": {{\"command\": {exe:?}, \"args\": [\"proxy\", \"--lock\", {lock:?}, \"--name\", \"fake-weather\"]}}\r\n"
    )), "{now}");
    assert!(!now.replace("\r\n", "").contains('\n'));
    st.unwrap(&[]).code(0);
    assert_eq!(st.now(), text);
}

/// The lock's entry for `name`, as compact JSON (by Python).
fn lock_entry(st: &Setup, name: &str) -> String {
    let script = format!(
        "import json,sys\nprint(json.dumps(json.load(open(sys.argv[1]))['servers'][{name:?}]['command']))"
    );
    let out = std::process::Command::new("python3")
        .args(["-c", &script])
        .arg(&st.lock)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// `init --from` on a wrapped configuration refuses to pin the proxy
/// as the server (it would start itself with no end), --force included,
/// and names the entry and the way out.
#[test]
fn init_from_refuses_a_wrapped_entry_even_with_force() {
    let Some(st) = pinned_setup("claude_desktop_config.json") else {
        return;
    };
    st.wrap(&[]).code(0);
    let lock_before = read(&st.lock);
    for force in [false, true] {
        let mut args = vec![
            "init".to_string(),
            "--lock".into(),
            s(&st.lock),
            "--from".into(),
            s(&st.config),
            "--allow-outside-paths".into(),
        ];
        if force {
            args.push("--force".into());
        }
        let o = cp(&args).env("NOTES_API_TOKEN", "x").run();
        o.code(2);
        assert!(
            o.err().contains("server \"fake-notes\"")
                && o.err().contains("runs `contractpin proxy`")
                && o.err().contains("contractpin unwrap --config"),
            "{}",
            o.err()
        );
        assert_eq!(read(&st.lock), lock_before, "force={force}");
    }
    assert!(lock_entry(&st, "fake-notes").starts_with("[\"python3\""));
}

/// An entry that runs contractpin proxy otherwise than wrap writes it
/// for this lock and this name is never "already wrapped": it is named with
/// what differs, the wrap exits 2 and changes nothing; `--rewrap` rewrites it.
#[test]
fn look_alike_proxy_entries_are_reported_not_taken_as_wrapped() {
    let Some(st) = pinned_setup("claude_desktop_config.json") else {
        return;
    };
    let exe = s(&std::fs::canonicalize(bin()).unwrap());
    let lock = s(&std::fs::canonicalize(&st.lock).unwrap());
    let cases: Vec<(String, String, &str)> = vec![
        ("./contractpin-shim".into(), format!("\"proxy\", \"--lock\", {lock:?}, \"--name\", \"fake-notes\""), "is not this contractpin"),
        (exe.clone(), "\"proxy\", \"--lock\", \"/tmp/attacker.lock\", \"--name\", \"fake-notes\"".into(), "its --lock is \"/tmp/attacker.lock\""),
        (exe.clone(), format!("\"proxy\", \"--lock\", {lock:?}, \"--name\", \"fake-notes\", \"--mode\", \"observe\""), "other options: --mode"),
        (exe.clone(), "\"proxy\", \"--name\", \"fake-notes\"".into(), "it has no --lock"),
        (exe.clone(), format!("\"proxy\", \"--lock\", {lock:?}, \"--name\", \"fake-weather\""), "its --name is \"fake-weather\""),
    ];
    for (command, args, why) in cases {
        let text = format!(
            "{{\"mcpServers\": {{\"fake-notes\": {{\"command\": {command:?}, \"args\": [{args}]}}}}}}\n"
        );
        std::fs::write(&st.config, &text).unwrap();
        let o = st.wrap(&[]);
        o.code(2);
        assert!(!o.out().contains("already wrapped"), "{}", o.out());
        assert!(
            o.err().contains(
                "server \"fake-notes\" runs contractpin proxy, but not as wrap writes it"
            ) && o.err().contains(why)
                && o.err().contains("--rewrap"),
            "{why}: {}",
            o.err()
        );
        assert_eq!(st.now(), text);
        assert!(!st.backup().exists());
        // --rewrap makes it exactly what wrap writes.
        st.wrap(&["--rewrap"]).code(0);
        let (c, a, _) = wrapped_command(&st, "fake-notes");
        assert_eq!(
            (c.as_str(), a.as_slice()),
            (
                exe.as_str(),
                &[
                    "proxy".to_string(),
                    "--lock".into(),
                    lock.clone(),
                    "--name".into(),
                    "fake-notes".into()
                ][..]
            )
        );
        let o = st.wrap(&[]);
        o.code(0);
        assert!(
            o.out().contains("already wrapped: \"fake-notes\""),
            "{}",
            o.out()
        );
        std::fs::remove_file(st.backup()).unwrap();
    }
    // A look-alike under a name the lock does not pin cannot be rewritten.
    std::fs::write(&st.config, "{\"mcpServers\": {\"other\": {\"command\": \"contractpin\", \"args\": [\"proxy\", \"--name\", \"other\"]}}}").unwrap();
    let o = st.wrap(&["--rewrap"]);
    o.code(2);
    assert!(
        o.err().contains("cannot rewrite") && o.err().contains("\"other\""),
        "{}",
        o.err()
    );
}

/// Env keys that decide which program runs or where HTTP goes are named
/// (any case), never their values; an already wrapped entry is checked too.
#[test]
fn risky_env_keys_of_a_wrapped_entry_are_named() {
    let Some(st) = pinned_setup("claude_desktop_config.json") else {
        return;
    };
    let text = st.original.replace(
        "\"NOTES_API_TOKEN\": \"not-a-real-token-claude-desktop\"",
        "\"NOTES_API_TOKEN\": \"t\", \"PATH\": \"/tmp/evilbin-value:/usr/bin\", \"ld_preload\": \"/tmp/evil-preload.so\", \"Https_Proxy\": \"http://mitm-value\", \"DYLD_INSERT_LIBRARIES\": \"x\", \"PYTHONPATH_NOT\": \"y\"",
    );
    std::fs::write(&st.config, &text).unwrap();
    for _ in 0..2 {
        let o = st.wrap(&[]);
        o.code(0);
        assert!(
            o.err().contains(
                "server \"fake-notes\": its env block sets PATH, ld_preload, Https_Proxy, DYLD_INSERT_LIBRARIES, which"
            ),
            "{}",
            o.err()
        );
        assert!(!o.err().contains("fake-weather"), "{}", o.err());
        for v in [
            "evilbin-value",
            "evil-preload",
            "mitm-value",
            "NOTES_API",
            "PYTHONPATH_NOT",
        ] {
            assert!(
                !o.err().contains(v) && !o.out().contains(v),
                "{v}: {}",
                o.err()
            );
        }
    }
}

/// Servers in a map wrap does not read are named, not silently skipped.
#[test]
fn servers_in_maps_that_are_not_read_are_named() {
    let Some(st) = pinned_setup("claude_desktop_config.json") else {
        return;
    };
    let text = "{\"mcpServers\": {}, \"servers\": {\"fake-notes\": {\"command\": \"python3\"}},\n \"projects\": {\"/home/me/proj\": {\"mcpServers\": {\"fake-weather\": {\"command\": \"python3\"}}}}}\n";
    std::fs::write(&st.config, text).unwrap();
    let o = st.wrap(&[]);
    o.code(0);
    assert!(
        o.err().contains("only the \"mcpServers\" map is read; the servers under \"servers\", projects[\"/home/me/proj\"].mcpServers are NOT read"),
        "{}",
        o.err()
    );
    assert!(
        o.out().contains("servers in other maps were NOT read"),
        "{}",
        o.out()
    );
    assert_eq!(st.now(), text);
}

/// `init --from` names (never shows) arguments that look like a credential.
#[cfg(unix)]
#[test]
fn init_from_names_credential_like_arguments() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("credargs");
    let text = "{\"mcpServers\": {\"db\": {\"command\": \"sh\", \"args\": [\"-c\", \"exec python3 tests/mcp/fake_server.py --scenario ok\", \"postgresql://admin:hunter2pass@db.internal/prod\", \"--header\", \"Authorization: Bearer abcdefSECRET0123456789\", \"--api-key=s3cr3tvalue\"]}}}";
    let config = dir.write("c.json", text);
    let o = cp(&[
        "init",
        "--lock",
        &s(&dir.path("contractpin.lock")),
        "--from",
        &s(&config),
        "--allow-outside-paths",
    ])
    .run();
    o.code(0);
    for i in [2, 4, 5] {
        assert!(
            o.err()
                .contains(&format!("server \"db\": args[{i}] looks like a credential")),
            "{i}: {}",
            o.err()
        );
    }
    assert!(
        !o.err().contains("args[3]") && !o.err().contains("args[1]"),
        "{}",
        o.err()
    );
    for v in ["hunter2pass", "abcdefSECRET", "s3cr3tvalue"] {
        assert!(!o.err().contains(v) && !o.out().contains(v), "{v}");
    }
}

/// A configuration written on one line is read in linear time (it was
/// quadratic: 1.1 MB took 44.5 s in a release build).
#[test]
fn a_large_one_line_configuration_is_wrapped() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let st = setup("claude_desktop_config.json");
    st.pin(Some("fake-weather"));
    let mut text = String::from("{\"mcpServers\": {");
    for i in 0..40_000 {
        text.push_str(&format!("\"s{i}\": {{\"command\": \"x\"}}, "));
    }
    text.push_str("\"fake-weather\": {\"command\": \"python3\", \"args\": [\"tests/mcp/fake_server.py\", \"--scenario\", \"one-per-page\"]}}}");
    assert!(text.len() > 1_000_000 && !text.contains('\n'));
    std::fs::write(&st.config, &text).unwrap();
    let o = st.wrap(&[]);
    o.code(0);
    assert!(
        o.out().contains("wrapped fake-weather (was stdio)"),
        "{}",
        o.out()
    );
    let now = st.now();
    assert!(now.starts_with("{\"mcpServers\": {\"s0\": {\"command\": \"x\"}, "));
    assert!(
        now.ends_with("\"--name\", \"fake-weather\"]}}}"),
        "{}",
        &now[now.len() - 200..]
    );
    st.unwrap(&[]).code(0);
    assert_eq!(st.now(), text);
}

/// A pinned entry that is disabled is named, not skipped in silence.
#[test]
fn disabled_pinned_entries_are_named() {
    let Some(st) = pinned_setup("claude_desktop_config.json") else {
        return;
    };
    let text = st.original.replace(
        "\"args\": [\"tests/mcp/fake_server.py\", \"--scenario\", \"one-per-page\"]",
        "\"args\": [\"tests/mcp/fake_server.py\", \"--scenario\", \"one-per-page\"], \"disabled\": true",
    );
    std::fs::write(&st.config, &text).unwrap();
    let o = st.wrap(&[]);
    o.code(0);
    assert!(
        o.err()
            .contains("disabled, so left unwrapped: \"fake-weather\""),
        "{}",
        o.err()
    );
    assert!(o.out().contains("wrapped fake-notes"), "{}", o.out());
}

/// A server name starting with '-' is refused (the proxy reads it as an
/// option: a real `contractpin proxy --name -h` does not start the server).
#[test]
fn a_name_starting_with_a_dash_is_refused() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let st = setup("claude_desktop_config.json");
    let text = st.original.replace("\"fake-weather\"", "\"-h\"");
    std::fs::write(&st.config, &text).unwrap();
    st.pin(None);
    let o = st.wrap(&[]);
    o.code(2);
    assert!(
        o.err().contains("server \"-h\": a name starting with '-' would be read by `contractpin proxy` as an option"),
        "{}",
        o.err()
    );
    assert_eq!(st.now(), text);
    assert!(!st.backup().exists());
    // What the entry would have run.
    let lock = s(&std::fs::canonicalize(&st.lock).unwrap());
    let o = cp(&["proxy", "--lock", &lock, "--name", "-h"])
        .stdin(b"")
        .run();
    assert_ne!(o.code, 0, "{}", o.out());
}

/// `wrap --dry-run` masks env values, header values and credentials in
/// arguments; unwrap --dry-run too.
#[test]
fn dry_run_masks_secret_values() {
    let Some((st, _, _srv)) = remote_api_with_literal_key("l1teral-s3cret-value") else {
        return;
    };
    let o = st.wrap(&["--dry-run"]);
    o.code(0);
    assert!(!o.out().contains("l1teral-s3cret"), "{}", o.out());
    assert!(o.out().contains("\"X-API-Key\": \"***\""), "{}", o.out());
    let st = setup("claude_desktop_config.json");
    st.pin(None);
    let o = st.wrap(&["--dry-run"]);
    o.code(0);
    assert!(!o.out().contains("not-a-real-token"), "{}", o.out());
    assert!(
        o.out().contains("\"NOTES_API_TOKEN\": \"***\""),
        "{}",
        o.out()
    );
    st.wrap(&[]).code(0);
    let o = st.unwrap(&["--dry-run"]);
    o.code(0);
    assert!(!o.out().contains("not-a-real-token"), "{}", o.out());
}
