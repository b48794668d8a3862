//! `verify --format sarif`: every document is checked by the official SARIF
//! 2.1.0 validator (Microsoft SARIF Multitool, npm
//! `@microsoft/sarif-multitool`, pinned in tests/sarif/package.json and
//! installed by .ci/install-sarif.sh), and its results (rule ids, levels,
//! lines, messages) against values written by hand from the lock.

mod cli_support;
use cli_support::*;

use std::path::{Path, PathBuf};
use std::process::Command;

fn validator() -> PathBuf {
    root().join("tests/sarif/node_modules/.bin/sarif-multitool")
}

fn have_validator() -> bool {
    cli_support::tools::needs(&["node", "python3"])
        && cli_support::tools::needs_path(&validator(), ".ci/install-sarif.sh")
}

/// Runs `sarif-multitool validate` on `sarif` and fails on any error or
/// warning it reports (it exits 0 either way, so its own SARIF output is read).
#[track_caller]
fn validate(dir: &TempDir, sarif: &str) {
    let input = dir.write("report.sarif", sarif);
    let output = dir.path("validation.sarif");
    let o = Command::new(validator())
        .arg("validate")
        .arg(&input)
        .arg("--output")
        .arg(&output)
        .args(["--log", "ForceOverwrite"])
        .output()
        .expect("run sarif-multitool");
    assert!(
        o.status.success(),
        "sarif-multitool failed:\n{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    py_check_json(
        &read(&output),
        "bad=[(r['ruleId'],r.get('level','warning'),r['message'].get('text') or r['message'].get('arguments')) \
         for run in d['runs'] for r in run.get('results',[]) if r.get('level','warning') in ('error','warning')]\n\
         assert not bad, bad\n\
         assert d['runs'][0]['invocations'][0]['executionSuccessful'] is True",
    );
}

/// A copy of the shipped lock pointing at the drifted dump.
fn drifted_lock(dir: &TempDir) -> PathBuf {
    let lock = dir.path("contractpin.lock");
    std::fs::copy(root().join("examples/contractpin.lock"), &lock).unwrap();
    serve_file(&lock, "example", "examples/drifted-tools-list.json");
    lock
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .expect("needle in lock")
        + 1
}

/// `verify --format sarif` run in the lock's directory (`--lock contractpin.lock`).
fn sarif(lock: &Path, extra: &[&str]) -> Out {
    let mut args = vec!["verify", "--lock", "contractpin.lock", "--format", "sarif"];
    args.extend_from_slice(extra);
    cp(&args).cwd(lock.parent().expect("a directory")).run()
}

#[test]
fn drift_is_one_result_per_tool_at_its_line() {
    if !have_validator() {
        return;
    }
    let dir = TempDir::new("sarif-drift");
    let lock = drifted_lock(&dir);
    let text = read(&lock);
    let o = sarif(&lock, &[]);
    o.code(1);
    let out = o.out();
    validate(&dir, &out);
    // Its own canonical form: one line, keys in canonical order.
    assert_eq!(out.lines().count(), 1);
    assert_eq!(
        contractpin::canonicalize(out.trim_end().as_bytes()).unwrap(),
        out.trim_end().as_bytes()
    );
    let lines = [
        line_of(&text, "\"delete_record\": {"),
        line_of(&text, "\"example\": {"),
        line_of(&text, "\"read_file\": {"),
        line_of(&text, "\"search_web\": {"),
    ];
    py_check_json(
        &out,
        &format!(
            "assert d['version']=='2.1.0'\n\
             run=d['runs'][0]\n\
             rules=[r['id'] for r in run['tool']['driver']['rules']]\n\
             assert rules==['contractpin/tool-drifted','contractpin/tool-added','contractpin/tool-removed','contractpin/server-unreachable'], rules\n\
             res=run['results']\n\
             got=[(r['ruleId'],r['level'],r['locations'][0]['physicalLocation']['artifactLocation']['uri'],r['locations'][0]['physicalLocation']['region']['startLine']) for r in res]\n\
             want=[('contractpin/tool-removed','error','contractpin.lock',{}),('contractpin/tool-added','error','contractpin.lock',{}),\
             ('contractpin/tool-drifted','error','contractpin.lock',{}),('contractpin/tool-drifted','error','contractpin.lock',{})]\n\
             assert got==want, got\n\
             assert all(rules[r['ruleIndex']]==r['ruleId'] for r in res)\n\
             m=[r['message']['text'] for r in res]\n\
             assert m[1].startswith('Server example has a new tool export_data that is not pinned.\\n'), m[1]\n\
             assert '\\n  name: added \"export_data\"' in m[1], m[1]\n\
             assert m[2].startswith('Tool read_file of server example no longer matches its pinned contract (changed: annotations).'), m[2]\n\
             assert '\\n  annotations /readOnlyHint: true -> false' in m[2], m[2]\n\
             assert 'https://collect.example/log' in m[3], m[3]",
            lines[0], lines[1], lines[2], lines[3]
        ),
    );
}

#[test]
fn allowed_additions_are_warnings_and_a_clean_run_has_no_results() {
    if !have_validator() {
        return;
    }
    let dir = TempDir::new("sarif-clean");
    let lock = dir.path("contractpin.lock");
    std::fs::copy(root().join("examples/contractpin.lock"), &lock).unwrap();
    beside(&lock, "examples/tools-list.json");
    let o = sarif(&lock, &[]);
    o.code(0);
    validate(&dir, &o.out());
    py_check_json(&o.out(), "assert d['runs'][0]['results']==[]");

    let dir = TempDir::new("sarif-allow");
    let lock = drifted_lock(&dir);
    let o = sarif(&lock, &["--allow-new"]);
    o.code(1);
    validate(&dir, &o.out());
    py_check_json(
        &o.out(),
        "lv={r['ruleId']:r['level'] for r in d['runs'][0]['results']}\n\
         assert lv['contractpin/tool-added']=='warning', lv",
    );
}

#[test]
fn an_unreachable_server_and_hostile_text() {
    if !have_validator() {
        return;
    }
    let dir = TempDir::new("sarif-down");
    let lock = drifted_lock(&dir);
    set_string(&lock, "example", "path", "missing/100%/\u{202e}dump.json");
    let text = read(&lock);
    let o = sarif(&lock, &[]);
    o.code(1);
    validate(&dir, &o.out());
    assert!(!o.out().contains('\u{202e}'), "{}", o.out());
    py_check_json(
        &o.out(),
        &format!(
            "res=d['runs'][0]['results']\n\
             assert len(res)==1, res\n\
             r=res[0]\n\
             assert r['ruleId']=='contractpin/server-unreachable' and r['level']=='error'\n\
             assert r['locations'][0]['physicalLocation']['region']['startLine']=={}\n\
             assert r['message']['text'].startswith('Server example could not be checked: '), r\n\
             assert '\\\\u{{202e}}dump.json' in r['message']['text'], r",
            line_of(&text, "\"example\": {")
        ),
    );

    // Tool names and descriptions with hidden characters and JSON-hostile text.
    let dir = TempDir::new("sarif-hostile");
    let pinned = r#"[{"name":"t","description":"Read.","inputSchema":{"type":"object"}}]"#;
    let live = "[{\"name\":\"t\",\"description\":\"Read.\u{202e} \\\"quoted\\\" \\u0000 </script>\",\"inputSchema\":{\"type\":\"object\"}},{\"name\":\"n\u{200b}ew\\n::error::x\",\"description\":\"x\",\"inputSchema\":{}}]";
    dir.write("pinned.json", pinned);
    let lock = dir.path("contractpin.lock");
    cp(&[
        "init",
        "--no-snapshot",
        "--lock",
        &s(&lock),
        "--name",
        "s",
        "--file",
        &s(&dir.path("pinned.json")),
    ])
    .run()
    .code(0);
    dir.write("live.json", live);
    set_string(&lock, "s", "path", "live.json");
    let o = sarif(&lock, &[]);
    o.code(1);
    validate(&dir, &o.out());
    let out = o.out();
    assert!(
        !out.contains('\u{202e}') && !out.contains('\u{200b}'),
        "{out}"
    );
    py_check_json(
        &out,
        "m=[r['message']['text'] for r in d['runs'][0]['results']]\n\
         assert m[0].startswith('Server s has a new tool n\\\\u{200b}ew\\\\u{a}::error::x that is not pinned.'), m\n\
         assert 'description: now \"Read.\\\\u{202e} \\\\\"quoted\\\\\" \\\\u0000 </script>\"' in m[1], m",
    );
}

/// The check above can fail: a log without the driver's `name` is reported.
#[test]
fn the_validator_rejects_a_broken_log() {
    if !have_validator() {
        return;
    }
    let dir = TempDir::new("sarif-broken");
    let lock = drifted_lock(&dir);
    let out = sarif(&lock, &[]).out();
    let broken = out.replacen("\"name\":\"contractpin\",", "", 1);
    assert_ne!(broken, out);
    let input = dir.write("broken.sarif", &broken);
    let output = dir.path("validation.sarif");
    let st = Command::new(validator())
        .arg("validate")
        .arg(&input)
        .arg("--output")
        .arg(&output)
        .args(["--log", "ForceOverwrite"])
        .output()
        .expect("run sarif-multitool");
    assert!(st.status.success());
    py_check_json(
        &read(&output),
        "bad=[r for run in d['runs'] for r in run.get('results',[]) if r.get('level','warning')=='error']\n\
         assert any(r['ruleId']=='JSON1002' for r in bad), bad",
    );
}
