//! Lock durability: SIGKILL during `init` never leaves a torn lock (the
//! previous lock stays byte-identical unless the new one was completely in
//! place), and concurrent `init` runs on one lock lose no entry.

mod cli_support;
use cli_support::*;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const EPOCH: &str = "1767225600";

/// A tools/list with `n` tools (a few MB, so digesting it in a debug build
/// takes long enough to be interrupted at many points), `variant` changes
/// every description.
fn big_dump(dir: &TempDir, name: &str, n: usize, variant: &str) -> std::path::PathBuf {
    let mut text = String::from("{\"tools\":[");
    for i in 0..n {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&format!(
            "{{\"name\":\"tool_{i:06}\",\"description\":\"Tool {i} ({variant}) \\u00e9 \\ud83d\\ude00 with a long description to hash.\",\"inputSchema\":{{\"type\":\"object\",\"properties\":{{\"a\":{{\"type\":\"number\",\"default\":{i}.50}},\"b\":{{\"enum\":[\"x\",\"y\",1e2]}}}}}}}}"
        ));
    }
    text.push_str("]}");
    dir.write(name, text)
}

fn init_cmd(lock: &std::path::Path, name: &str, dump: &std::path::Path) -> Command {
    let mut c = Command::new(bin());
    c.args(["init", "--lock"])
        .arg(lock)
        .args(["--name", name, "--force", "--allow-outside-paths", "--file"])
        .arg(dump)
        .env("SOURCE_DATE_EPOCH", EPOCH)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// Starts `cmd`. Under Wine, process creation right after a child was
/// killed now and then fails with ERROR_INTERNAL_ERROR (1359; seen once in
/// CI, with the cores busy); that is Wine, not what this test checks, so on
/// Windows a start is tried up to five times. Elsewhere a failed start fails
/// the test at once.
fn spawn(cmd: &mut Command) -> std::process::Child {
    let tries = if cfg!(windows) { 5 } else { 1 };
    let mut last = None;
    for _ in 0..tries {
        match cmd.spawn() {
            Ok(child) => return child,
            Err(e) => last = Some(e),
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("contractpin did not start ({tries} tries): {last:?}");
}

#[test]
fn sigkill_during_init_never_tears_the_lock() {
    let dir = TempDir::new("kill");
    let lock = dir.path("contractpin.lock");
    let dumps = [
        big_dump(&dir, "one.json", 1500, "one"),
        big_dump(&dir, "two.json", 1500, "two"),
    ];
    // The base lock and the two complete outcomes, computed by runs that finish.
    assert!(
        init_cmd(&lock, "base", &root().join("examples/tools-list.json"))
            .status()
            .unwrap()
            .success()
    );
    let base = std::fs::read(&lock).unwrap();
    let mut outcome = Vec::new();
    let mut full_run = Duration::ZERO;
    for d in &dumps {
        let copy = dir.path("outcome.lock");
        std::fs::write(&copy, &base).unwrap();
        let t = Instant::now();
        assert!(init_cmd(&copy, "big", d).status().unwrap().success());
        full_run = full_run.max(t.elapsed());
        outcome.push(std::fs::read(&copy).unwrap());
    }
    assert_ne!(outcome[0], outcome[1]);

    // Kill at pseudo-random points for about five seconds.
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15 ^ u64::from(std::process::id());
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        seed >> 33
    };
    let window = full_run.as_micros().max(1000) as u64;
    let started = Instant::now();
    let (mut runs, mut killed_unchanged, mut killed_after_rename) = (0, 0, 0);
    while started.elapsed() < Duration::from_secs(5) || runs < 10 {
        let pick = (runs % 2) as usize;
        let before = std::fs::read(&lock).unwrap();
        let mut child = spawn(&mut init_cmd(&lock, "big", &dumps[pick]));
        std::thread::sleep(Duration::from_micros(next() % (window + window / 4)));
        let _ = child.kill(); // SIGKILL
        let status = child.wait().unwrap();
        let after = std::fs::read(&lock).unwrap();
        let killed = was_killed(status);
        if after == before {
            if killed {
                killed_unchanged += 1;
            }
        } else {
            assert_eq!(
                after, outcome[pick],
                "run {runs}: the lock is neither the previous one nor the complete new one"
            );
            if killed {
                killed_after_rename += 1;
            }
        }
        // Reset to the base lock now and then so both outcomes keep changing it.
        if runs % 3 == 2 {
            std::fs::write(&lock, &base).unwrap();
        }
        runs += 1;
        if runs > 200 {
            break;
        }
    }
    eprintln!("full run {full_run:?}; {runs} runs: {killed_unchanged} killed before the rename (lock byte-identical), {killed_after_rename} killed after it");
    assert!(
        killed_unchanged > 0,
        "no run was killed mid-way; widen the window"
    );
    // A later init cleans up what killed runs left behind and works normally.
    assert!(init_cmd(&lock, "big", &dumps[0])
        .status()
        .unwrap()
        .success());
    assert_eq!(std::fs::read(&lock).unwrap(), outcome[0]);
    let leftovers: Vec<_> = std::fs::read_dir(&dir.0)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    cp(&["verify", "--lock", &s(&lock), "--allow-outside-paths"])
        .run()
        .code(0);
}

#[test]
fn concurrent_inits_keep_every_entry() {
    if !cli_support::tools::needs(&["python3"]) {
        return;
    }
    let dir = TempDir::new("concurrent");
    let lock = dir.path("contractpin.lock");
    let dump = big_dump(&dir, "dump.json", 500, "c");
    let children: Vec<_> = (0..8)
        .map(|i| {
            init_cmd(&lock, &format!("server-{i}"), &dump)
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    py_check_json(
        &read(&lock),
        "assert sorted(d['servers'])==['server-%d'%i for i in range(8)], list(d['servers'])\nassert len({v['digest'] for v in d['servers'].values()})==1",
    );
    let o = cp(&["verify", "--lock", &s(&lock)]).run();
    o.code(0);
    assert!(o.out().contains("8 servers match"), "{}", o.out());
    // The same with different sources racing on a lock that already exists.
    let children: Vec<_> = (8..12)
        .map(|i| {
            init_cmd(
                &lock,
                &format!("server-{i}"),
                &root().join("examples/tools-list.json"),
            )
            .spawn()
            .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    py_check_json(&read(&lock), "assert len(d['servers'])==12");
}

/// Whether `Child::kill` ended the run: a signal on Unix; on Windows
/// `TerminateProcess` with exit code 1, which `init --file` of a valid
/// dump never exits with on its own (it exits 0; the full runs above
/// check that).
fn was_killed(status: std::process::ExitStatus) -> bool {
    if cfg!(windows) {
        status.code() == Some(1)
    } else {
        status.code().is_none()
    }
}
