//! The external programs a test needs (python3 for the fake MCP server and
//! the reference digests, node for the npm servers and oracles, cbindgen,
//! openssl) and what happens when one is missing.
//!
//! `cargo test` on a machine with only the Rust toolchain passes: a test
//! whose program is missing returns early and says so on stderr, past
//! libtest's capture (`*** SKIPPED <test>: needs python3 ***`). The
//! project's own runs (`scripts/test.sh`, and so `.ci/run`) set
//! `CONTRACTPIN_REQUIRE_TOOLS=1`, under which a missing program fails the
//! test instead: there, nothing is skipped.
//!
//! A platform may lack a program by nature: under Wine there is no
//! `python3` or `sh` (they are Linux programs here). `scripts/test-cross.sh`
//! names those in `CONTRACTPIN_ABSENT_TOOLS` (comma-separated); a test that
//! needs only such programs is skipped loudly even under
//! `CONTRACTPIN_REQUIRE_TOOLS`, and any other missing program still fails.
#![allow(dead_code)]

use std::io::Write;
use std::path::Path;

/// Whether every program in `programs` is on PATH (or an existing path).
/// When one is not: a failure under `CONTRACTPIN_REQUIRE_TOOLS`, otherwise
/// a loud skip notice and `false`.
pub fn needs(programs: &[&str]) -> bool {
    let mut missing: Vec<&str> = programs.iter().copied().filter(|p| !found(p)).collect();
    missing.sort_unstable();
    missing.dedup();
    if missing.is_empty() {
        return true;
    }
    let why = format!("needs {}, not found", missing.join(", "));
    if missing.iter().all(|p| declared_absent(p)) {
        return skip(&format!(
            "{why} (CONTRACTPIN_ABSENT_TOOLS: not on this platform)"
        ));
    }
    skip_or_fail(&why)
}

/// Whether the run declares `program` absent on this platform.
fn declared_absent(program: &str) -> bool {
    std::env::var("CONTRACTPIN_ABSENT_TOOLS")
        .is_ok_and(|list| list.split(',').any(|p| p.trim() == program))
}

/// Like [`needs`] for a file or directory that an install script creates
/// (`what` names the script).
pub fn needs_path(path: &Path, what: &str) -> bool {
    if path.exists() {
        return true;
    }
    skip_or_fail(&format!("needs {} ({what})", path.display()))
}

fn skip_or_fail(why: &str) -> bool {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    if std::env::var_os("CONTRACTPIN_REQUIRE_TOOLS").is_some() {
        panic!("{test} {why}; CONTRACTPIN_REQUIRE_TOOLS is set, so nothing may be skipped");
    }
    skip(why)
}

fn skip(why: &str) -> bool {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    skip_notice(&format!("{test}: {why}"));
    false
}

/// Prints `*** SKIPPED <what> ***` on stderr, past libtest's capture, in
/// one write, so that other tests' progress output cannot split the line
/// (scripts/test-cross.sh counts these).
pub fn skip_notice(what: &str) {
    let line = format!("*** SKIPPED {what} ***\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
}

fn found(program: &str) -> bool {
    if program.contains('/') {
        return Path::new(program).exists();
    }
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            // `node` is `node.exe` on Windows.
            [
                program.to_owned(),
                format!("{program}{}", std::env::consts::EXE_SUFFIX),
            ]
            .iter()
            .map(|name| dir.join(name))
            .any(|candidate| candidate.is_file() && executable(&candidate))
        })
    })
}

#[cfg(unix)]
fn executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn executable(_: &Path) -> bool {
    true
}
