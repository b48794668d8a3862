//! CLI: `init` with the file transport, the lock file, and `verify` against
//! the shipped examples (unchanged, drifted, added, removed, renamed).

mod cli_support;
use cli_support::*;

/// SOURCE_DATE_EPOCH of the shipped examples/contractpin.lock (2026-01-01T00:00:00Z).
const EPOCH: &str = "1767225600";

fn example() -> std::path::PathBuf {
    root().join("examples/tools-list.json")
}

/// A temp dir holding a copy of the example dump and a lock pinning it as `example`.
fn pinned() -> (TempDir, std::path::PathBuf) {
    let dir = TempDir::new("pinned");
    dir.write("tools-list.json", std::fs::read(example()).unwrap());
    let lock = dir.path("contractpin.lock");
    // Relative paths on the command line are stored relative to the lock.
    cp(&["init", "--name", "example", "--file", "tools-list.json"])
        .env("SOURCE_DATE_EPOCH", EPOCH)
        .cwd(&dir.0)
        .run()
        .code(0);
    (dir, lock)
}

#[test]
fn init_file_writes_the_shipped_lock_byte_for_byte() {
    let (_dir, lock) = pinned();
    let written = std::fs::read(&lock).unwrap();
    let shipped = std::fs::read(root().join("examples/contractpin.lock")).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&written),
        String::from_utf8_lossy(&shipped)
    );
}

#[test]
fn lock_formatting() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let (_dir, lock) = pinned();
    let text = read(&lock);
    assert!(text.ends_with("}\n") && !text.ends_with("\n\n"));
    assert!(!text.contains('\r') && !text.contains('\t'));
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        assert_eq!(indent % 2, 0, "odd indent: {line:?}");
        assert!(!line.ends_with(' '), "trailing space: {line:?}");
    }
    assert!(text.starts_with(
        "{\n  \"algorithm\": \"sha256\",\n  \"canonicalization\": \"contractpin-canonical-json/1\",\n  \"contractpin\": \"1\",\n  \"generated_at\": \"2026-01-01T00:00:00Z\",\n  \"servers\": {\n    \"example\": {\n      \"digest\": \"sha256:"
    ));
    let (server, _) = reference(&[&s(&example())]);
    // Keys sorted at every level (Python checks), values match the reference.
    py_check_json(
        &text,
        &format!(
            "def chk(v):\n  if isinstance(v, dict):\n    ks=list(v)\n    assert ks==sorted(ks,key=lambda k:k.encode('utf-16-be')),ks\n    [chk(x) for x in v.values()]\n\
             chk(d)\n\
             e=d['servers']['example']\n\
             assert e['digest']=={server:?}\n\
             assert e['transport']=='file' and e['path']=='tools-list.json'\n\
             assert e['tool_count']==4==len(e['tools'])\n\
             assert set(e['tools'])=={{'search_web','read_file','translate','delete_record'}}\n\
             assert set(e['tools']['search_web']['fields'])=={{'name','description','inputSchema','outputSchema','annotations'}}\n\
             assert set(e['tools']['read_file']['fields'])=={{'name','description','inputSchema','annotations'}}"
        ),
    );
}

#[test]
fn generated_at_is_now_without_source_date_epoch_and_bad_epoch_exits_2() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("ts");
    let lock = dir.path("l.lock");
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    cp(&[
        "init",
        "--lock",
        &s(&lock),
        "--name",
        "x",
        "--file",
        &beside(&lock, "examples/tools-list.json"),
    ])
    .run()
    .code(0);
    py_check_json(
        &read(&lock),
        &format!(
            "import calendar,time\nt=calendar.timegm(time.strptime(d['generated_at'],'%Y-%m-%dT%H:%M:%SZ'))\nassert {before}-1<=t<={before}+120,t"
        ),
    );
    let o = cp(&[
        "init",
        "--lock",
        &s(&dir.path("m.lock")),
        "--name",
        "x",
        "--file",
        &beside(&lock, "examples/tools-list.json"),
    ])
    .env("SOURCE_DATE_EPOCH", "yesterday")
    .run();
    o.code(2);
    assert!(o.err().contains("SOURCE_DATE_EPOCH"), "{}", o.err());
    assert!(!dir.path("m.lock").exists());
}

#[test]
fn force_is_needed_to_replace_and_other_servers_are_kept() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let (dir, lock) = pinned();
    let drifted = std::path::PathBuf::from(beside(&lock, "examples/drifted-tools-list.json"));
    let before = std::fs::read(&lock).unwrap();
    let o = cp(&[
        "init",
        "--lock",
        &s(&lock),
        "--name",
        "example",
        "--file",
        &s(&drifted),
    ])
    .run();
    o.code(2);
    assert!(o.err().contains("--force"), "{}", o.err());
    assert_eq!(
        std::fs::read(&lock).unwrap(),
        before,
        "lock changed without --force"
    );

    // A second server is added next to the first.
    cp(&[
        "init",
        "--lock",
        &s(&lock),
        "--name",
        "second",
        "--file",
        &s(&drifted),
    ])
    .run()
    .code(0);
    let (first_digest, _) = reference(&[&s(&example())]);
    let (drift_digest, _) = reference(&[&s(&drifted)]);
    py_check_json(
        &read(&lock),
        &format!("assert set(d['servers'])=={{'example','second'}}\nassert d['servers']['example']['digest']=={first_digest:?}\nassert d['servers']['second']['digest']=={drift_digest:?}"),
    );
    // --force replaces only the named entry.
    cp(&[
        "init",
        "--lock",
        &s(&lock),
        "--name",
        "example",
        "--file",
        &s(&drifted),
        "--force",
    ])
    .run()
    .code(0);
    py_check_json(
        &read(&lock),
        &format!("assert set(d['servers'])=={{'example','second'}}\nassert d['servers']['example']['digest']=={drift_digest:?}"),
    );
    drop(dir);
}

#[test]
fn source_argument_errors_exit_2_and_write_nothing() {
    let dir = TempDir::new("args");
    let lock = dir.path("l.lock");
    let l = s(&lock);
    let f = s(&example());
    for args in [
        vec!["init", "--lock", &l, "--name", "x"],
        vec!["init", "--lock", &l, "--file", &f],
        vec!["init", "--lock", &l, "--name", "", "--file", &f],
        vec![
            "init",
            "--lock",
            &l,
            "--name",
            "x",
            "--file",
            &f,
            "--http",
            "http://127.0.0.1:9/",
        ],
        vec![
            "init", "--lock", &l, "--name", "x", "--file", &f, "--", "echo",
        ],
        vec![
            "init", "--lock", &l, "--name", "x", "--file", &f, "--header", "A: b",
        ],
        vec![
            "init", "--lock", &l, "--name", "x", "--file", &f, "--env", "A=b",
        ],
        vec![
            "init", "--lock", &l, "--name", "x", "--file", &f, "--cwd", "/",
        ],
        vec![
            "init", "--lock", &l, "--name", "x", "--", "echo", "--env", "x",
        ],
        vec![
            "init", "--lock", &l, "--name", "x", "--env", "NOEQUALS", "--", "echo",
        ],
        vec![
            "init",
            "--lock",
            &l,
            "--name",
            "x",
            "--http",
            "http://127.0.0.1:9/",
            "--header",
            "no colon here",
        ],
        vec![
            "init",
            "--lock",
            &l,
            "--name",
            "x",
            "--http",
            "http://127.0.0.1:9/",
            "--header",
            "Bad Name: v",
        ],
        vec![
            "init",
            "--lock",
            &l,
            "--name",
            "x",
            "--file",
            &f,
            "--timeout",
            "0",
        ],
        vec![
            "init",
            "--lock",
            &l,
            "--name",
            "x",
            "--file",
            &f,
            "--total-timeout",
            "-1",
        ],
        vec![
            "init",
            "--lock",
            &l,
            "--name",
            "x",
            "--file",
            &f,
            "--max-pages",
            "0",
        ],
    ] {
        let o = cp(&args).run();
        if args.contains(&"--env") && args.last() == Some(&"x") {
            // `--env` after `--` belongs to the server's argv: a valid stdio
            // source whose command (`echo`) is not an MCP server -> exit 1.
            o.code(1);
            continue;
        }
        o.code(2);
        assert!(o.err().starts_with("error: "), "{args:?}: {}", o.err());
        assert!(!lock.exists(), "{args:?} wrote a lock");
    }
}

#[test]
fn a_bad_dump_exits_1_and_leaves_the_lock_alone() {
    let (dir, lock) = pinned();
    let before = std::fs::read(&lock).unwrap();
    for (name, content) in [
        ("invalid.json", &b"{\"tools\": [}"[..]),
        ("dup.json", b"[{\"name\":\"a\"},{\"name\":\"a\"}]"),
        ("shape.json", b"{\"hello\": 1}"),
        (
            "rpcerr.json",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32603,\"message\":\"boom\"}}",
        ),
    ] {
        let dump = dir.write(name, content);
        let o = cp(&[
            "init",
            "--lock",
            &s(&lock),
            "--name",
            "bad",
            "--file",
            &s(&dump),
        ])
        .run();
        o.code(1);
        assert!(
            o.err().contains("invalid tools list: "),
            "{name}: {}",
            o.err()
        );
        assert!(o.err().contains(" at byte "), "{name}: {}", o.err());
        assert!(o.err().contains("was not changed"), "{name}: {}", o.err());
        assert_eq!(std::fs::read(&lock).unwrap(), before, "{name}");
    }
    let o = cp(&[
        "init",
        "--lock",
        &s(&lock),
        "--name",
        "bad",
        "--file",
        &s(&dir.path("missing.json")),
    ])
    .run();
    o.code(1);
    assert!(o.err().contains("missing.json"), "{}", o.err());
    assert_eq!(std::fs::read(&lock).unwrap(), before);
    // And without an existing lock, none is created.
    let fresh = dir.path("fresh.lock");
    cp(&[
        "init",
        "--lock",
        &s(&fresh),
        "--name",
        "bad",
        "--file",
        &s(&dir.path("dup.json")),
    ])
    .run()
    .code(1);
    assert!(!fresh.exists());
}

#[test]
fn missing_corrupt_and_unsupported_locks_exit_2() {
    let (dir, lock) = pinned();
    let good = read(&lock);
    let o = cp(&["verify", "--lock", &s(&dir.path("nope.lock"))]).run();
    o.code(2);
    assert!(
        o.err().contains("nope.lock") && o.err().contains("no such file"),
        "{}",
        o.err()
    );
    assert!(o.stdout.is_empty());

    let cases: Vec<(&str, String, &str)> = vec![
        (
            "truncated",
            good[..good.len() / 2].to_string(),
            "not valid JSON",
        ),
        (
            "version",
            good.replace("\"contractpin\": \"1\"", "\"contractpin\": \"2\""),
            "version",
        ),
        (
            "algorithm",
            good.replace("\"algorithm\": \"sha256\"", "\"algorithm\": \"sha512\""),
            "algorithm",
        ),
        (
            "canon",
            good.replace(
                "contractpin-canonical-json/1",
                "contractpin-canonical-json/2",
            ),
            "canonicalization",
        ),
        (
            "count",
            good.replace("\"tool_count\": 4", "\"tool_count\": 5"),
            "tool_count",
        ),
        (
            "digest",
            good.replacen("sha256:fcdc", "sha256:0cdc", 1),
            "digest",
        ),
        ("notjson", "hello".to_string(), "not valid JSON"),
        ("empty", String::new(), "not valid JSON"),
    ];
    for (name, text, needle) in cases {
        let bad = dir.write(&format!("{name}.lock"), &text);
        let o = cp(&["verify", "--lock", &s(&bad)]).run();
        o.code(2);
        assert!(o.err().contains(needle), "{name}: {}", o.err());
        assert!(o.stdout.is_empty(), "{name}");
        // init refuses to touch it too (and leaves it as it was).
        let o = cp(&[
            "init",
            "--lock",
            &s(&bad),
            "--name",
            "other",
            "--file",
            &beside(&lock, "examples/tools-list.json"),
        ])
        .run();
        o.code(2);
        assert_eq!(read(&bad), text, "{name}: init modified a corrupt lock");
    }
}

#[test]
fn verify_unchanged_exits_0_from_any_directory() {
    let o = cp(&["verify", "--lock", "examples/contractpin.lock"]).run();
    o.code(0);
    assert!(
        o.out().contains("OK example: 4 tools unchanged"),
        "{}",
        o.out()
    );
    // Relative paths in the lock are relative to the lock's directory.
    let elsewhere = TempDir::new("cwd");
    cp(&[
        "verify",
        "--lock",
        &s(&root().join("examples/contractpin.lock")),
    ])
    .cwd(&elsewhere.0)
    .run()
    .code(0);
    cp(&["verify", "--lock", "contractpin.lock"])
        .cwd(&root().join("examples"))
        .run()
        .code(0);
    // Default lock name: ./contractpin.lock.
    cp(&["verify"]).cwd(&root().join("examples")).run().code(0);
    let o = cp(&["verify"]).cwd(&elsewhere.0).run();
    o.code(2);
    assert!(o.err().contains("contractpin.lock"));
}

#[test]
fn init_stores_paths_relative_to_the_lock() {
    let dir = TempDir::new("rel");
    std::fs::create_dir_all(dir.path("repo/data")).unwrap();
    std::fs::copy(example(), dir.path("repo/data/dump.json")).unwrap();
    std::fs::copy(example(), dir.path("dump.json")).unwrap();
    // Given relative to the working directory, stored relative to the lock.
    cp(&[
        "init",
        "--lock",
        "repo/pins.lock",
        "--name",
        "x",
        "--file",
        "repo/data/dump.json",
    ])
    .cwd(&dir.0)
    .run()
    .code(0);
    let text = read(&dir.path("repo/pins.lock"));
    assert!(text.contains("\"path\": \"data/dump.json\""), "{text}");
    cp(&["verify", "--lock", "pins.lock"])
        .cwd(&dir.path("repo"))
        .run()
        .code(0);
    // Outside the lock's directory only on request, and then stored as `..`.
    let outside = [
        "init",
        "--lock",
        "repo/pins.lock",
        "--name",
        "y",
        "--file",
        "dump.json",
    ];
    cp(&outside).cwd(&dir.0).run().code(2);
    let mut allowed = outside.to_vec();
    allowed.push("--allow-outside-paths");
    cp(&allowed).cwd(&dir.0).run().code(0);
    assert!(read(&dir.path("repo/pins.lock")).contains("\"path\": \"../dump.json\""));
    cp(&["verify", "--lock", "pins.lock", "--allow-outside-paths"])
        .cwd(&dir.path("repo"))
        .run()
        .code(0);
}

fn with_dump(lock: &std::path::Path, dir: &TempDir, name: &str, code: &str) {
    let dump = dir.path(name);
    py_edit_tools(&example(), &dump, code);
    set_string(lock, "example", "path", name);
}

#[test]
fn verify_drifted_text_names_the_changed_fields() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let (dir, lock) = pinned();
    serve_file(&lock, "example", "examples/drifted-tools-list.json");
    let o = cp(&["verify", "--lock", &s(&lock)]).run();
    o.code(1);
    let out = o.out();
    assert!(
        out.contains("DRIFT example: 2 drifted, 1 added, 1 removed, 1 unchanged"),
        "{out}"
    );
    let line = |name: &str| {
        out.lines()
            .find(|l| l.contains(name))
            .unwrap_or("")
            .to_string()
    };
    assert!(
        line("read_file").contains("drifted")
            && line("read_file").ends_with("changed: annotations"),
        "{out}"
    );
    assert!(
        line("search_web").contains("drifted")
            && line("search_web").ends_with("changed: description"),
        "{out}"
    );
    assert!(
        line("delete_record").trim_start().starts_with("removed"),
        "{out}"
    );
    assert!(
        line("export_data").trim_start().starts_with("added"),
        "{out}"
    );
    assert!(
        !out.contains("translate"),
        "unchanged tools are not listed: {out}"
    );
    let (pinned_d, _) = reference(&[&s(&example())]);
    let (live_d, _) = reference(&[&s(&root().join("examples/drifted-tools-list.json"))]);
    assert!(
        out.contains(&format!("pinned {pinned_d}")) && out.contains(&format!("live   {live_d}")),
        "{out}"
    );
    assert!(out.contains("1 of 1 server failed verification"), "{out}");
    drop(dir);
}

#[test]
fn verify_json_report() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let (dir, lock) = pinned();
    serve_file(&lock, "example", "examples/drifted-tools-list.json");
    let o = cp(&["verify", "--lock", &s(&lock), "--format", "json"]).run();
    o.code(1);
    let (pinned_d, pinned_tools) = reference(&[&s(&example())]);
    let (live_d, _) = reference(&[&s(&root().join("examples/drifted-tools-list.json"))]);
    let delete_digest = &pinned_tools
        .iter()
        .find(|(_, n)| n == "delete_record")
        .unwrap()
        .0;
    py_check_json(
        &o.out(),
        &format!(
            "assert d['contractpin_report']=='1' and d['exit_code']==1\n\
             [srv]=d['servers']\n\
             assert srv['name']=='example' and srv['status']=='drift' and srv['passed'] is False\n\
             assert srv['allow_new'] is False and srv['error'] is None\n\
             assert srv['pinned_digest']=={pinned_d:?} and srv['live_digest']=={live_d:?}\n\
             assert srv['summary']=={{'added':1,'drifted':2,'removed':1,'unchanged':1}}\n\
             t={{x['name']:x for x in srv['tools']}}\n\
             assert [x['name'] for x in srv['tools']]==['delete_record','export_data','read_file','search_web','translate']\n\
             assert t['read_file']['status']=='drifted' and t['read_file']['changed_fields']==['annotations']\n\
             assert t['search_web']['changed_fields']==['description']\n\
             assert t['delete_record']['status']=='removed' and t['delete_record']['live'] is None and t['delete_record']['pinned']=={delete_digest:?}\n\
             assert t['export_data']['status']=='added' and t['export_data']['pinned'] is None\n\
             assert t['translate']['status']=='unchanged' and t['translate']['pinned']==t['translate']['live']\n\
             for x in srv['tools']:\n  assert set(x)=={{'changed_fields','changes','live','name','pinned','renamed_from','renamed_to','status'}}"
        ),
    );
    // The JSON report is the only thing on stdout (no colour, no annotations).
    assert!(o.out().starts_with("{\n") && o.out().ends_with("}\n"));
    let ok = cp(&[
        "verify",
        "--lock",
        "examples/contractpin.lock",
        "--format",
        "json",
    ])
    .run();
    ok.code(0);
    py_check_json(&ok.out(), "assert d['exit_code']==0 and d['servers'][0]['status']=='ok' and d['servers'][0]['passed'] is True");
    drop(dir);
}

#[test]
fn verify_added_fails_unless_allow_new() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let (dir, lock) = pinned();
    with_dump(
        &lock,
        &dir,
        "added.json",
        "t.append({'name':'brand_new','description':'New.','inputSchema':{'type':'object'}})",
    );
    let o = cp(&["verify", "--lock", &s(&lock)]).run();
    o.code(1);
    assert!(
        o.out().contains("DRIFT example: 1 added, 4 unchanged"),
        "{}",
        o.out()
    );
    let o = cp(&["verify", "--lock", &s(&lock), "--allow-new"]).run();
    o.code(0);
    assert!(
        o.out()
            .contains("OK example: 4 tools unchanged, 1 added (allowed by --allow-new)"),
        "{}",
        o.out()
    );
    let o = cp(&[
        "verify",
        "--lock",
        &s(&lock),
        "--allow-new",
        "--format",
        "json",
    ])
    .run();
    o.code(0);
    py_check_json(&o.out(), "s=d['servers'][0]\nassert s['allow_new'] is True and s['passed'] is True and s['status']=='ok' and s['summary']['added']==1");
}

#[test]
fn verify_removed_fails_even_with_allow_new() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let (dir, lock) = pinned();
    with_dump(
        &lock,
        &dir,
        "removed.json",
        "d['tools']=[x for x in t if x['name']!='translate']",
    );
    for extra in [&[][..], &["--allow-new"][..]] {
        let mut args = vec!["verify".to_string(), "--lock".into(), s(&lock)];
        args.extend(extra.iter().map(|x| x.to_string()));
        let o = cp(&args).run();
        o.code(1);
        assert!(
            o.out().contains("DRIFT example: 1 removed, 3 unchanged"),
            "{}",
            o.out()
        );
    }
}

#[test]
fn verify_reports_a_likely_rename() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let (dir, lock) = pinned();
    with_dump(
        &lock,
        &dir,
        "renamed.json",
        "[x for x in t if x['name']=='search_web'][0]['name']='web_search'",
    );
    let o = cp(&["verify", "--lock", &s(&lock)]).run();
    o.code(1);
    let out = o.out();
    assert!(out.contains("likely renamed to web_search"), "{out}");
    assert!(out.contains("likely renamed from search_web"), "{out}");
    let o = cp(&["verify", "--lock", &s(&lock), "--format", "json"]).run();
    o.code(1);
    py_check_json(
        &o.out(),
        "t={x['name']:x for x in d['servers'][0]['tools']}\nassert t['search_web']['status']=='removed' and t['search_web']['renamed_to']=='web_search'\nassert t['web_search']['status']=='added' and t['web_search']['renamed_from']=='search_web'",
    );
    // A rename is still a failure with --allow-new (the old name was removed).
    cp(&["verify", "--lock", &s(&lock), "--allow-new"])
        .run()
        .code(1);
}

#[test]
fn verify_server_selection() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let (dir, lock) = pinned();
    cp(&[
        "init",
        "--lock",
        &s(&lock),
        "--name",
        "bad",
        "--file",
        &beside(&lock, "examples/tools-list.json"),
    ])
    .run()
    .code(0);
    serve_file(&lock, "bad", "examples/drifted-tools-list.json");
    let o = cp(&["verify", "--lock", &s(&lock)]).run();
    o.code(1);
    assert!(
        o.out().contains("DRIFT bad") && o.out().contains("OK example"),
        "{}",
        o.out()
    );
    assert!(o.out().contains("1 of 2 servers failed"), "{}", o.out());
    cp(&["verify", "--lock", &s(&lock), "--server", "example"])
        .run()
        .code(0);
    cp(&["verify", "--lock", &s(&lock), "--server", "bad"])
        .run()
        .code(1);
    let o = cp(&[
        "verify",
        "--lock",
        &s(&lock),
        "--server",
        "example",
        "--server",
        "bad",
        "--format",
        "json",
    ])
    .run();
    o.code(1);
    py_check_json(
        &o.out(),
        "assert [x['name'] for x in d['servers']]==['bad','example']",
    );
    let o = cp(&["verify", "--lock", &s(&lock), "--server", "nosuch"]).run();
    o.code(2);
    assert!(
        o.err().contains("nosuch") && o.err().contains("bad, example"),
        "{}",
        o.err()
    );
    drop(dir);
}

#[test]
fn verify_missing_dump_is_unreachable_exit_1() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let (dir, lock) = pinned();
    std::fs::remove_file(dir.path("tools-list.json")).unwrap();
    let o = cp(&["verify", "--lock", &s(&lock)]).run();
    o.code(1);
    assert!(
        o.out()
            .contains("UNREACHABLE example: could not be checked"),
        "{}",
        o.out()
    );
    assert!(o.out().contains("(1 could not be checked)"), "{}", o.out());
    let o = cp(&["verify", "--lock", &s(&lock), "--format", "json"]).run();
    o.code(1);
    let (pinned_d, _) = reference(&[&s(&example())]);
    py_check_json(
        &o.out(),
        &format!("s=d['servers'][0]\nassert s['status']=='unreachable' and s['error'] and s['live_digest'] is None and s['tools']==[]\nassert s['pinned_digest']=={pinned_d:?}"),
    );
    // An invalid dump is "could not check" too, never "nothing is wrong".
    dir.write("tools-list.json", "[{\"name\":\"a\"},{\"name\":\"a\"}]");
    let o = cp(&["verify", "--lock", &s(&lock)]).run();
    o.code(1);
    assert!(
        o.out().contains("duplicate-tool-name at byte"),
        "{}",
        o.out()
    );
}

#[test]
fn verify_limits_apply_to_the_live_list() {
    let (_dir, lock) = pinned();
    cp(&["verify", "--lock", &s(&lock), "--max-tools", "4"])
        .run()
        .code(0);
    let o = cp(&["verify", "--lock", &s(&lock), "--max-tools", "3"]).run();
    o.code(1);
    assert!(o.out().contains("tool-limit at byte"), "{}", o.out());
    let size = std::fs::metadata(example()).unwrap().len().to_string();
    cp(&["verify", "--lock", &s(&lock), "--max-input-bytes", &size])
        .run()
        .code(0);
    let o = cp(&["verify", "--lock", &s(&lock), "--max-response-bytes", "100"]).run();
    o.code(1);
    let o2 = cp(&["verify", "--lock", &s(&lock), "--max-depth", "3"]).run();
    o2.code(1);
    assert!(o2.out().contains("depth-limit at byte"), "{}", o2.out());
    drop(o);
}
