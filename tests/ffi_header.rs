//! `include/contractpin.h` is fresh (regenerated with the pinned cbindgen),
//! carries the Cargo.toml version, and compiles as C99, as C++ and when
//! included twice; its enum values agree with the Rust definitions.
#![cfg(feature = "ffi")]

#[path = "support/tools.rs"]
mod tools;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use contractpin::ffi::{contractpin_status, CONTRACTPIN_SHA256_STATE_SIZE};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn header() -> String {
    std::fs::read_to_string(root().join("include/contractpin.h")).expect("include/contractpin.h")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "contractpin-ffi-header-{}-{name}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn committed_header_is_fresh() {
    if !tools::needs(&["cbindgen"]) {
        return;
    }
    let dir = temp_dir("fresh");
    let out = dir.join("contractpin.h");
    let run = Command::new("sh")
        .arg(root().join("scripts/gen-header.sh"))
        .arg(&out)
        .output()
        .expect("cannot run sh scripts/gen-header.sh");
    assert!(
        run.status.success(),
        "scripts/gen-header.sh failed (is the pinned cbindgen installed? run .ci/install-bindings.sh):\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let fresh = std::fs::read_to_string(&out).unwrap();
    let committed = header();
    if fresh != committed {
        let first = fresh
            .lines()
            .zip(committed.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(fresh.lines().count().min(committed.lines().count()));
        panic!(
            "include/contractpin.h is stale: run scripts/gen-header.sh and commit the result \
             (first difference at line {}: generated {:?}, committed {:?})",
            first + 1,
            fresh.lines().nth(first),
            committed.lines().nth(first)
        );
    }
    std::fs::remove_dir_all(dir).ok();
}

fn macro_value(header: &str, name: &str) -> String {
    let prefix = format!("#define {name} ");
    header
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("{name} missing from the header"))
        .trim()
        .to_string()
}

/// The `version` of the `[package]` table, read from Cargo.toml itself.
fn cargo_toml_version() -> String {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let mut in_package = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package && line.starts_with("version") {
            let value = line.split_once('=').unwrap().1.trim();
            return value.trim_matches('"').to_string();
        }
    }
    panic!("no version in [package] of Cargo.toml");
}

#[test]
fn version_macros_match_cargo_toml() {
    let h = header();
    let version = cargo_toml_version();
    assert_eq!(
        macro_value(&h, "CONTRACTPIN_VERSION_STRING"),
        format!("\"{version}\"")
    );
    let core = version.split(['-', '+']).next().unwrap();
    let parts: Vec<&str> = core.split('.').collect();
    assert_eq!(macro_value(&h, "CONTRACTPIN_VERSION_MAJOR"), parts[0]);
    assert_eq!(macro_value(&h, "CONTRACTPIN_VERSION_MINOR"), parts[1]);
    assert_eq!(macro_value(&h, "CONTRACTPIN_VERSION_PATCH"), parts[2]);
    assert_eq!(version, env!("CARGO_PKG_VERSION"));
}

/// A translation unit that includes the header twice and checks, at compile
/// time, every status value and the SHA-256 state size against Rust.
fn check_source() -> String {
    let mut src = String::from("#include \"contractpin.h\"\n#include \"contractpin.h\"\n");
    let mut n = 0;
    let mut check = |expr: String| {
        writeln!(
            src,
            "typedef char contractpin_check_{n}[({expr}) ? 1 : -1];"
        )
        .unwrap();
        n += 1;
    };
    for status in contractpin_status::all() {
        let c_name = format!(
            "CONTRACTPIN_STATUS_{}",
            status.name().replace('-', "_").to_uppercase()
        );
        check(format!("{c_name} == {}", status as u32));
    }
    check(format!(
        "sizeof(contractpin_sha256) == {CONTRACTPIN_SHA256_STATE_SIZE}"
    ));
    check(format!(
        "sizeof(contractpin_limits) == {}",
        std::mem::size_of::<contractpin::ffi::contractpin_limits>()
    ));
    check("CONTRACTPIN_DIGEST_TEXT_SIZE == 72 && CONTRACTPIN_DIGEST_TEXT_LEN == 71".into());
    check("CONTRACTPIN_FIELD_OUTPUT_SCHEMA == 4 && CONTRACTPIN_TOOL_STATUS_REMOVED == 3".into());
    check(format!(
        "CONTRACTPIN_INSTRUCTIONS_STATUS_NOT_CHECKED == {} && CONTRACTPIN_INPUT_INITIALIZE_RESULT == {}",
        contractpin::ffi::contractpin_instructions_status::NotChecked as u32,
        contractpin::ffi::contractpin_input::InitializeResult as u32
    ));
    check(format!(
        "CONTRACTPIN_VERIFY_IGNORE_INSTRUCTIONS == {}",
        contractpin::ffi::CONTRACTPIN_VERIFY_IGNORE_INSTRUCTIONS
    ));
    src.push_str("int main(void) { return contractpin_version() == 0; }\n");
    src
}

fn compile(compiler: &str, args: &[&str], file: &Path) {
    let include = root().join("include");
    let out = Command::new(compiler)
        .args(args)
        .arg("-I")
        .arg(&include)
        .arg("-fsyntax-only")
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {compiler} (needed to check the header): {e}"));
    assert!(
        out.status.success(),
        "{compiler} {args:?} rejected the header:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn header_compiles_as_c99_and_cpp_and_twice() {
    let dir = temp_dir("compile");
    let c = dir.join("check.c");
    std::fs::write(&c, check_source()).unwrap();
    compile(
        "gcc",
        &[
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-x",
            "c",
        ],
        &c,
    );
    compile(
        "gcc",
        &["-std=c11", "-Wall", "-Wextra", "-Werror", "-x", "c"],
        &c,
    );
    compile(
        "g++",
        &["-std=c++11", "-Wall", "-Wextra", "-Werror", "-x", "c++"],
        &c,
    );
    compile(
        "g++",
        &[
            "-std=c++17",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-x",
            "c++",
        ],
        &c,
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_wrong_check_is_rejected() {
    // The compile-time checks above can fail: a wrong value is an error.
    let dir = temp_dir("negative");
    let c = dir.join("bad.c");
    std::fs::write(
        &c,
        "#include \"contractpin.h\"\ntypedef char bad[(CONTRACTPIN_STATUS_OK == 1) ? 1 : -1];\n",
    )
    .unwrap();
    let out = Command::new("gcc")
        .args(["-std=c99", "-fsyntax-only", "-I"])
        .arg(root().join("include"))
        .arg(&c)
        .output()
        .expect("gcc");
    assert!(!out.status.success());
    std::fs::remove_dir_all(dir).ok();
}
