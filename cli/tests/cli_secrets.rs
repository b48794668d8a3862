//! Secrets never reach the lock, stdout or stderr: a fake token passed as
//! an HTTP header (`${TOKEN}` expansion), as a stdio `--env` reference, as
//! a literal `--env` value, in an MCP client configuration and in a URL's
//! user information, through successful and failing runs of init and verify.

mod cli_support;
use cli_support::*;

const TOKEN: &str = "tok-7c1f9e2a44b05d38-FAKE-SECRET";

fn assert_clean(what: &str, texts: &[String]) {
    for t in texts {
        assert!(!t.contains(TOKEN), "{what}: the token leaked:\n{t}");
        // Not even a recognisable part of it.
        assert!(
            !t.contains("7c1f9e2a44b05d38"),
            "{what}: part of the token leaked:\n{t}"
        );
    }
}

fn all(o: &Out) -> Vec<String> {
    vec![o.out(), o.err()]
}

#[test]
fn header_token_never_persisted_or_printed() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("hdr");
    let lock = dir.path("l.lock");
    let record = dir.path("record.jsonl");
    let srv = FakeHttp::start("http", "ok", &["--record", &s(&record)]);
    let header = "Authorization: Bearer ${TOKEN}";
    let o = cp(&[
        "init",
        "--lock",
        &s(&lock),
        "--name",
        "api",
        "--http",
        &srv.url,
        "--header",
        header,
    ])
    .env("TOKEN", TOKEN)
    .run();
    o.code(0);
    // The header was really sent, with the expanded value.
    assert!(
        read(&record).contains(&format!("Bearer {TOKEN}")),
        "the server never saw the header"
    );
    // The lock holds the reference (the template), never the value.
    let lock_text = read(&lock);
    assert!(
        lock_text.contains("\"Authorization\": \"Bearer ${TOKEN}\""),
        "{lock_text}"
    );
    let mut texts = all(&o);
    texts.push(lock_text);
    for format in ["text", "json"] {
        let o = cp(&[
            "verify",
            "--lock",
            &s(&lock),
            "--server",
            "api",
            "--header",
            header,
            "--format",
            format,
        ])
        .env("TOKEN", TOKEN)
        .run();
        o.code(0);
        texts.extend(all(&o));
    }
    // Failing runs: a drifted server, an unreachable one, an expired session.
    drop(srv);
    for (scenario, port9) in [
        ("drift-description", false),
        ("expired-session", false),
        ("ok", true),
    ] {
        let srv = FakeHttp::start("http", scenario, &[]);
        let url = if port9 {
            "http://127.0.0.1:9/mcp".to_string()
        } else {
            srv.url.clone()
        };
        set_string(&lock, "api", "url", &url);
        let o = cp(&["verify", "--lock", &s(&lock), "--timeout", "3"])
            .env("TOKEN", TOKEN)
            .env("GITHUB_ACTIONS", "true")
            .run();
        o.code(1);
        texts.extend(all(&o));
        let o = cp(&[
            "init",
            "--lock",
            &s(&dir.path("x.lock")),
            "--name",
            "x",
            "--http",
            &url,
            "--header",
            header,
            "--timeout",
            "3",
        ])
        .env("TOKEN", TOKEN)
        .run();
        texts.extend(all(&o));
    }
    // An unset variable is named, never guessed at.
    let o = cp(&["verify", "--lock", &s(&lock)])
        .env_remove("TOKEN")
        .run();
    o.code(2);
    assert!(o.err().contains("TOKEN"));
    texts.extend(all(&o));
    // A literal token on the command line is not echoed in errors either.
    let o = cp(&[
        "init",
        "--lock",
        &s(&lock),
        "--name",
        "y",
        "--http",
        "http://127.0.0.1:9/mcp",
        "--header",
        &format!("Authorization: Bearer {TOKEN}"),
        "--timeout",
        "3",
    ])
    .run();
    o.code(1);
    texts.extend(all(&o));
    let o = cp(&[
        "init",
        "--lock",
        &s(&lock),
        "--name",
        "y",
        "--http",
        "http://127.0.0.1:9/mcp",
        "--header",
        &format!("Bad Header {TOKEN}"),
    ])
    .run();
    o.code(2);
    texts.extend(all(&o));
    assert_clean("header", &texts);
}

/// A stdio "server" that checks it received the token (by hash, so the
/// command line in the lock holds no secret) and then runs the fake server.
fn checking_server(var: &str) -> Vec<String> {
    let script = format!(
        "import hashlib,os,sys\n\
         v=os.environ.get('{var}','')\n\
         if hashlib.sha256(v.encode()).hexdigest()!=sys.argv[1]: sys.exit('{var} was not passed')\n\
         os.execvp('python3',['python3',sys.argv[2],'--scenario','ok'])\n"
    );
    vec![
        "python3".into(),
        "-c".into(),
        script,
        sha256_hex(TOKEN),
        s(&fake_server()),
    ]
}

fn sha256_hex(text: &str) -> String {
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import hashlib,sys; print(hashlib.sha256(sys.argv[1].encode()).hexdigest())",
            text,
        ])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A stdio "server" that prints its token to stderr and dies.
fn leaking_server(var: &str) -> Vec<String> {
    vec![
        "python3".into(),
        "-c".into(),
        format!("import os,sys; sys.stderr.write('my token is '+os.environ.get('{var}','')+'\\n'); sys.exit(3)"),
    ]
}

#[test]
fn env_reference_and_literal_never_persisted_or_printed() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("env");
    let lock = dir.path("l.lock");
    let mut texts = Vec::new();
    for (name, env_arg) in [
        ("ref", "API_TOKEN=${TOKEN}"),
        ("literal", &*format!("API_TOKEN={TOKEN}")),
    ] {
        let mut args = vec![
            "init".to_string(),
            "--lock".into(),
            s(&lock),
            "--name".into(),
            name.into(),
            "--env".into(),
            env_arg.into(),
            "--".into(),
        ];
        args.extend(checking_server("API_TOKEN"));
        let o = cp(&args).env("TOKEN", TOKEN).run();
        o.code(0);
        texts.extend(all(&o));
    }
    let lock_text = read(&lock);
    py_check_json(
        &lock_text,
        "s=d['servers']\nassert s['ref']['env']=={'API_TOKEN':'${TOKEN}'}\nassert s['literal']['env']=={'API_TOKEN':'${API_TOKEN}'}",
    );
    texts.push(lock_text);
    // verify expands the references from its own environment.
    let o = cp(&["verify", "--lock", &s(&lock)])
        .env("TOKEN", TOKEN)
        .env("API_TOKEN", TOKEN)
        .run();
    o.code(0);
    texts.extend(all(&o));
    // Failing runs where the server prints the token to its stderr: the
    // stderr tail is shown, with the token redacted.
    for (name, env_arg) in [
        ("ref", "API_TOKEN=${TOKEN}"),
        ("literal", &*format!("API_TOKEN={TOKEN}")),
    ] {
        let mut args = vec![
            "init".to_string(),
            "--lock".into(),
            s(&dir.path("fail.lock")),
            "--name".into(),
            name.into(),
            "--env".into(),
            env_arg.into(),
            "--".into(),
        ];
        args.extend(leaking_server("API_TOKEN"));
        let o = cp(&args).env("TOKEN", TOKEN).run();
        o.code(1);
        assert!(o.err().contains("my token is ***"), "{name}: {}", o.err());
        texts.extend(all(&o));
    }
    set_command(&lock, "ref", &leaking_server("API_TOKEN"));
    for format in ["text", "json"] {
        let o = cp(&[
            "verify",
            "--lock",
            &s(&lock),
            "--server",
            "ref",
            "--format",
            format,
        ])
        .env("TOKEN", TOKEN)
        .env("GITHUB_ACTIONS", "true")
        .run();
        o.code(1);
        assert!(o.out().contains("my token is ***"), "{}", o.out());
        texts.extend(all(&o));
    }
    assert_clean("env", &texts);
}

#[test]
fn literal_env_in_a_client_config_never_persisted_or_printed() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("cfgenv");
    let lock = dir.path("l.lock");
    let mut texts = Vec::new();
    let good = checking_server("API_TOKEN");
    let cfg = dir.write(
        "claude_desktop_config.json",
        format!(
            "{{\"mcpServers\": {{\"svc\": {{\"command\": {}, \"args\": [{}], \"env\": {{\"API_TOKEN\": {}}}}}}}}}",
            json_str(&good[0]),
            good[1..].iter().map(|a| json_str(a)).collect::<Vec<_>>().join(", "),
            json_str(TOKEN)
        ),
    );
    let o = cp(&["init", "--lock", &s(&lock), "--from", &s(&cfg)]).run();
    o.code(0);
    texts.extend(all(&o));
    let lock_text = read(&lock);
    py_check_json(
        &lock_text,
        "assert d['servers']['svc']['env']=={'API_TOKEN':'${API_TOKEN}'}",
    );
    texts.push(lock_text);
    let o = cp(&["verify", "--lock", &s(&lock)])
        .env("API_TOKEN", TOKEN)
        .run();
    o.code(0);
    texts.extend(all(&o));
    // The same config with a server that leaks its environment.
    let bad = leaking_server("API_TOKEN");
    let cfg = dir.write(
        "bad.json",
        format!(
            "{{\"mcpServers\": {{\"svc\": {{\"command\": {}, \"args\": [{}], \"env\": {{\"API_TOKEN\": {}}}}}}}}}",
            json_str(&bad[0]),
            bad[1..].iter().map(|a| json_str(a)).collect::<Vec<_>>().join(", "),
            json_str(TOKEN)
        ),
    );
    let o = cp(&[
        "init",
        "--lock",
        &s(&dir.path("bad.lock")),
        "--from",
        &s(&cfg),
    ])
    .run();
    o.code(1);
    assert!(o.err().contains("my token is ***"), "{}", o.err());
    texts.extend(all(&o));
    assert_clean("config env", &texts);
}

#[test]
fn url_user_information_never_persisted_or_printed() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("userinfo");
    let lock = dir.path("l.lock");
    let srv = FakeHttp::start("http", "ok", &[]);
    let url = srv
        .url
        .replacen("http://", &format!("http://user:{TOKEN}@"), 1);
    let o = cp(&["init", "--lock", &s(&lock), "--name", "u", "--http", &url]).run();
    o.code(0);
    let mut texts = all(&o);
    let lock_text = read(&lock);
    py_check_json(
        &lock_text,
        &format!("assert d['servers']['u']['url']=={:?}", srv.url),
    );
    texts.push(lock_text);
    let bad = format!("http://user:{TOKEN}@127.0.0.1:9/mcp");
    let o = cp(&[
        "init",
        "--lock",
        &s(&lock),
        "--name",
        "v",
        "--http",
        &bad,
        "--timeout",
        "3",
    ])
    .run();
    o.code(1);
    texts.extend(all(&o));
    assert_clean("url", &texts);
}

/// A stdio server that echoes its `API_TOKEN` back in what it sends, per
/// `mode` (comma-separated): `desc` puts it in the tool's description,
/// `info` in `serverInfo.version`, `name` in a second tool's name; `new`
/// changes the description without it.
fn echoing_server(mode: &str) -> Vec<String> {
    let script = "import json,os,sys\n\
         mode=sys.argv[1].split(','); tok=os.environ.get('API_TOKEN','none')\n\
         desc='Search the web'+(', now' if 'new' in mode else '')\n\
         desc+=('. debug: key='+tok+' end') if 'desc' in mode else ''\n\
         ver='1.0'+('-'+tok if 'info' in mode else '')\n\
         for line in sys.stdin:\n\
         \x20   m=json.loads(line)\n\
         \x20   if 'id' not in m: continue\n\
         \x20   if m['method']=='initialize':\n\
         \x20       r={'protocolVersion':'2025-06-18','capabilities':{'tools':{}},'serverInfo':{'name':'srv','version':ver}}\n\
         \x20   elif m['method']=='tools/list':\n\
         \x20       r={'tools':[{'name':'search','description':desc,'inputSchema':{'type':'object'}}]}\n\
         \x20       if 'name' in mode: r['tools'].append({'name':'get_'+tok,'inputSchema':{'type':'object'}})\n\
         \x20   else:\n\
         \x20       print(json.dumps({'jsonrpc':'2.0','id':m['id'],'error':{'code':-32601,'message':'no'}}),flush=True); continue\n\
         \x20   print(json.dumps({'jsonrpc':'2.0','id':m['id'],'result':r}),flush=True)\n";
    vec!["python3".into(), "-c".into(), script.into(), mode.into()]
}

/// A lock pinning `echoing_server(mode)` as `srv`, given `API_TOKEN=${TOKEN}`.
fn init_echoing(lock: &std::path::Path, mode: &str, extra: &[&str]) -> Out {
    let mut args: Vec<String> = ["init", "--lock", &s(lock), "--name", "srv", "--force"]
        .iter()
        .map(|a| a.to_string())
        .collect();
    args.extend(extra.iter().map(|a| a.to_string()));
    args.extend(["--env".into(), "API_TOKEN=${TOKEN}".into(), "--".into()]);
    args.extend(echoing_server(mode));
    cp(&args).env("TOKEN", TOKEN).run()
}

/// verify of a drifted `lock` (given `TOKEN`) in text, JSON and SARIF, with
/// GitHub annotations: each exits 1 and shows `shown`; all their output.
fn drift_in_every_format(lock: &std::path::Path, shown: &str) -> Vec<String> {
    let mut texts = Vec::new();
    for format in ["text", "json", "sarif"] {
        let o = cp(&["verify", "--lock", &s(lock), "--format", format])
            .env("TOKEN", TOKEN)
            .env("GITHUB_ACTIONS", "true")
            .run();
        o.code(1);
        assert!(o.out().contains(shown), "{format}: {}", o.out());
        texts.extend(all(&o));
    }
    texts
}

/// Review F2: a server that echoes its token in a tool description or in
/// `serverInfo` gets it masked (`***`) in the text report (word diff and
/// the "server version" line), the JSON report, SARIF and the GitHub
/// annotations.
#[test]
fn a_secret_the_server_echoes_is_masked_in_every_report_format() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("echo-report");
    let lock = dir.path("l.lock");
    init_echoing(&lock, "ok", &[]).code(0);
    let mut texts = vec![read(&lock)];
    set_command(&lock, "srv", &echoing_server("desc"));
    texts.extend(drift_in_every_format(&lock, "key=***"));
    set_command(&lock, "srv", &echoing_server("info"));
    for (format, shown) in [
        ("text", "server version 1.0 -> 1.0-***"),
        ("json", "\"version\": \"1.0-***\""),
    ] {
        let o = cp(&["verify", "--lock", &s(&lock), "--format", format])
            .env("TOKEN", TOKEN)
            .run();
        o.code(0);
        assert!(o.out().contains(shown), "{format}: {}", o.out());
        texts.extend(all(&o));
    }
    assert_clean("echoed in a report", &texts);
}

/// Review F2, the lock: `serverInfo` is recorded masked (it is outside
/// every digest); a snapshot holding the token is refused (exit 2, nothing
/// written: a snapshot must hash to its pin, so it cannot be masked), and
/// `--no-snapshot` pins the real bytes (verify still matches).
#[test]
fn a_secret_the_server_echoes_never_reaches_the_lock() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("echo-lock");
    let lock = dir.path("l.lock");
    let mut texts = Vec::new();
    // init: a snapshot with the token is refused, the lock not written.
    let o = init_echoing(&lock, "desc", &[]);
    o.code(2);
    assert!(o.err().contains("holds a secret"), "{}", o.err());
    assert!(!lock.exists(), "init wrote the lock");
    texts.extend(all(&o));
    // Digest only: the pin is over the real bytes, so verify matches.
    init_echoing(&lock, "desc", &["--no-snapshot"]).code(0);
    let o = cp(&["verify", "--lock", &s(&lock)])
        .env("TOKEN", TOKEN)
        .run();
    o.code(0);
    texts.extend(all(&o));
    texts.push(read(&lock));
    // serverInfo is recorded masked, and verify then reports no change.
    init_echoing(&lock, "info", &[]).code(0);
    let pinned = read(&lock);
    assert!(pinned.contains("\"version\": \"1.0-***\""), "{pinned}");
    let o = cp(&["verify", "--lock", &s(&lock)])
        .env("TOKEN", TOKEN)
        .run();
    o.code(0);
    assert!(!o.out().contains("server version"), "{}", o.out());
    texts.extend(all(&o));
    // approve: a snapshot with the token is refused, the lock unchanged.
    set_command(&lock, "srv", &echoing_server("desc"));
    let before = read(&lock);
    let o = cp(&["approve", "--lock", &s(&lock), "--server", "srv", "--all"])
        .env("TOKEN", TOKEN)
        .run();
    o.code(2);
    assert!(o.err().contains("holds a secret"), "{}", o.err());
    assert_eq!(read(&lock), before, "approve changed the lock");
    texts.extend(all(&o));
    // approve --all records the live serverInfo masked.
    init_echoing(&lock, "ok", &[]).code(0);
    set_command(&lock, "srv", &echoing_server("info,new"));
    let o = cp(&["approve", "--lock", &s(&lock), "--server", "srv", "--all"])
        .env("TOKEN", TOKEN)
        .run();
    o.code(0);
    let approved = read(&lock);
    assert!(approved.contains("\"version\": \"1.0-***\""), "{approved}");
    texts.extend(all(&o));
    texts.push(approved);
    texts.push(pinned);
    assert_clean("echoed into the lock", &texts);
}

/// A tool whose name holds the server's token: names are the lock's keys,
/// so init refuses it even by digest only and approve refuses it (exit 2,
/// nothing written), and every report format shows it masked.
#[test]
fn a_secret_in_a_tool_name_is_never_pinned_or_printed() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("echo-name");
    let lock = dir.path("l.lock");
    let mut texts = Vec::new();
    for extra in [&[][..], &["--no-snapshot"][..]] {
        let o = init_echoing(&lock, "name", extra);
        o.code(2);
        assert!(
            o.err().contains("tool get_***: its name holds a secret"),
            "{}",
            o.err()
        );
        assert!(!lock.exists(), "init wrote the lock");
        texts.extend(all(&o));
    }
    init_echoing(&lock, "ok", &[]).code(0);
    set_command(&lock, "srv", &echoing_server("name"));
    texts.extend(drift_in_every_format(&lock, "get_***"));
    let before = read(&lock);
    let (lock_arg, real) = (s(&lock), format!("get_{TOKEN}"));
    for how in ["--all", "--tool"] {
        let mut args = vec!["approve", "--lock", &lock_arg, "--server", "srv", how];
        if how == "--tool" {
            args.push(&real);
        }
        let o = cp(&args).env("TOKEN", TOKEN).run();
        o.code(2);
        assert!(o.err().contains("its name holds a secret"), "{}", o.err());
        assert_eq!(read(&lock), before, "approve changed the lock");
        texts.extend(all(&o));
    }
    texts.push(before);
    assert_clean("in a tool name", &texts);
}

/// Review F4: with `--inherit-env` a server gets our whole environment, so
/// the value of an inherited variable whose name looks like a credential
/// (`GH_TOKEN`) is masked in its stderr tail too, not only the lock's env.
#[test]
fn inherited_credentials_are_masked_in_a_stderr_tail() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("inherit");
    let lock = dir.path("l.lock");
    init_echoing(&lock, "ok", &[]).code(0);
    set_command(&lock, "srv", &leaking_server("GH_TOKEN"));
    // The lock's own API_TOKEN is another value: only GH_TOKEN holds TOKEN.
    let o = cp(&["verify", "--lock", &s(&lock), "--inherit-env"])
        .env("TOKEN", "not-the-token-0123456789")
        .env("GH_TOKEN", TOKEN)
        .run();
    o.code(1);
    assert!(o.out().contains("my token is ***"), "{}", o.out());
    assert_clean("inherited", &all(&o));
}
