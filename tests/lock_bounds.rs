//! Bounds of the lock writer and its sidecar, from an adversarial review:
//!
//! - writing a lock whose snapshots would grow past [`MAX_LOCK_BYTES`] once
//!   indented stops at the limit (a 4 MB tools/list nested 245 deep took
//!   1 GB before the size check refused its 1 GB lock); a snapshot that
//!   alone would pass the limit is left out, the tool pinned by digest;
//! - the sidecar `<lock>.lock` is never followed through a link, and must
//!   be a regular file.
//!
//! Heap use is measured by a counting global allocator (as in
//! `tests/alloc_count.rs`): only the test's own thread, while counting.

#[cfg(unix)]
use std::fs;

use contractpin::lock::{self, Lock, LockServer, Source, UpdateError, MAX_LOCK_BYTES};
use contractpin::{digest_with_contracts, Limits, ListOptions};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{measure, SERIAL};

/// The peak heap `f` takes on this thread, above what was live before.
fn peak_of<R>(f: impl FnOnce() -> R) -> (usize, R) {
    let (_, peak, r) = measure(f);
    (peak, r)
}

#[path = "support/temp_dir.rs"]
mod temp_dir;
use temp_dir::TempDir;

/// A tools/list of one tool `deep` whose input schema nests `depth` arrays
/// around `n` zeros (2 bytes each as JSON, about `2 * depth` bytes each
/// once indented in a lock), and one small tool `small`.
fn deep_list(depth: usize, n: usize) -> Vec<u8> {
    let zeros = vec!["0"; n].join(",");
    let schema = format!(
        r#"{{"type":"object","x":{}[{zeros}]{}}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    );
    format!(
        r#"{{"tools":[{{"name":"deep","inputSchema":{schema}}},{{"name":"small","inputSchema":{{"type":"object"}}}}]}}"#
    )
    .into_bytes()
}

/// The entry for `list` (a file source) and the tools' canonical contracts.
fn entry(list: &[u8]) -> (LockServer, Vec<(String, Vec<u8>)>) {
    let options = ListOptions {
        field_digests: true,
    };
    let (digests, contracts) = digest_with_contracts(list, &Limits::DEFAULT, options).unwrap();
    let path = "tools.json".to_string();
    (
        LockServer::from_server_digest(Source::File { path }, &digests),
        contracts,
    )
}

/// About 150 MB once indented, from 600 KB of JSON.
const DEPTH: usize = 245;
const ZEROS: usize = 300_000;

/// A lock whose snapshot would be 150 MB is refused (nothing written), and
/// the writer never holds more than about the limit: before the fix it
/// built the whole lock (a 256 MiB buffer and the 128 MiB one it grew
/// from) and only then compared it with the limit.
#[test]
fn writing_a_lock_too_large_stops_at_the_limit() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = TempDir::new("stop");
    let p = dir.path.join("contractpin.lock");
    let (mut server, contracts) = entry(&deep_list(DEPTH, ZEROS));
    // Set as a caller (or approve) may, without `set_snapshots`' checks.
    for (name, contract) in contracts {
        server.tools.get_mut(&name).unwrap().contract = Some(contract);
    }
    let mut new = Lock::new("2026-01-01T00:00:00Z");
    new.servers.insert("s".into(), server);
    let (peak, r) = peak_of(|| lock::update(&p, move |_| Ok::<_, String>(new)));
    match r {
        Err(UpdateError::Io(e)) => {
            let text = e.to_string();
            let want = format!("more than the {MAX_LOCK_BYTES} a lock may have");
            assert!(text.contains(&want), "{text}");
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
    assert!(!p.exists(), "a lock was written");
    println!("peak heap writing: {peak} bytes");
    let bound = 2 * MAX_LOCK_BYTES as usize;
    assert!(
        peak < bound,
        "writing took {peak} bytes of heap (bound {bound})"
    );
}

/// A snapshot that alone would pass the lock's limit is left out: the tool
/// is pinned by its digest (its name is returned for a warning), the other
/// tools keep theirs, the lock is written and reads back. Deciding costs
/// no memory in proportion to the snapshot's indented size.
#[test]
fn a_snapshot_too_large_for_any_lock_is_pinned_by_digest_only() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = TempDir::new("digest-only");
    let p = dir.path.join("contractpin.lock");
    let (mut server, contracts) = entry(&deep_list(DEPTH, ZEROS));
    let (peak, skipped) = peak_of(|| server.set_snapshots(contracts));
    println!("peak heap deciding: {peak} bytes");
    assert_eq!(skipped, ["deep"]);
    assert!(peak < 1 << 20, "deciding took {peak} bytes of heap");
    assert!(server.tools["deep"].contract.is_none());
    assert!(server.tools["small"].contract.is_some());
    let mut new = Lock::new("2026-01-01T00:00:00Z");
    new.servers.insert("s".into(), server);
    let written = lock::update(&p, |_| Ok::<_, String>(new)).unwrap();
    assert_eq!(lock::load(&p).unwrap(), written);
    // A smaller snapshot of the same depth fits and is kept.
    let (mut server, contracts) = entry(&deep_list(DEPTH, 1000));
    assert!(server.set_snapshots(contracts).is_empty());
    assert!(server.tools["deep"].contract.is_some());
}

#[cfg(unix)]
fn minimal_update(p: &std::path::Path) -> Result<Lock, UpdateError<String>> {
    lock::update(p, |_| Ok::<_, String>(Lock::new("2026-01-01T00:00:00Z")))
}

/// A committed link `contractpin.lock.lock -> ../outside/x` made `init`
/// create `x` outside the repository (and lock it). The sidecar is opened
/// without following a link; nothing is created there and nothing written.
#[cfg(unix)]
#[test]
fn the_sidecar_is_never_followed_through_a_link() {
    let dir = TempDir::new("sidecar-link");
    let (repo, outside) = (dir.path.join("repo"), dir.path.join("outside"));
    fs::create_dir_all(&repo).unwrap();
    fs::create_dir_all(&outside).unwrap();
    let p = repo.join("contractpin.lock");
    let target = outside.join("created-by-sidecar");
    std::os::unix::fs::symlink("../outside/created-by-sidecar", lock::sidecar_path(&p)).unwrap();
    for _ in 0..2 {
        let err = minimal_update(&p).unwrap_err().to_string();
        assert!(err.contains("symbolic link"), "{err}");
        assert!(!target.exists(), "the sidecar link was followed");
        assert!(!p.exists());
        // An existing target is not used either.
        fs::write(&target, b"").unwrap();
        let err = minimal_update(&p).unwrap_err().to_string();
        assert!(err.contains("symbolic link"), "{err}");
        fs::remove_file(&target).unwrap();
    }
}

/// A sidecar that is a FIFO (or a directory) is refused at once: only a
/// regular file is locked.
#[cfg(unix)]
#[test]
fn the_sidecar_must_be_a_regular_file() {
    let dir = TempDir::new("sidecar-kind");
    let p = dir.path.join("contractpin.lock");
    let sidecar = lock::sidecar_path(&p);
    let made = std::process::Command::new("mkfifo")
        .arg(&sidecar)
        .status()
        .is_ok_and(|s| s.success());
    if made {
        let err = minimal_update(&p).unwrap_err().to_string();
        assert!(err.contains("not a regular file"), "{err}");
        assert!(!p.exists());
        fs::remove_file(&sidecar).unwrap();
    }
    fs::create_dir(&sidecar).unwrap();
    assert!(minimal_update(&p).is_err());
    assert!(!p.exists());
    fs::remove_dir(&sidecar).unwrap();
    minimal_update(&p).unwrap();
    assert!(fs::symlink_metadata(&sidecar).unwrap().is_file());
}

/// Links among the lock's parent directories are followed (a lock may be
/// kept in a linked directory); the lock and its sidecar are written there.
#[cfg(unix)]
#[test]
fn a_linked_parent_directory_is_followed() {
    let dir = TempDir::new("parent-link");
    let real = dir.path.join("real");
    fs::create_dir_all(&real).unwrap();
    std::os::unix::fs::symlink("real", dir.path.join("cfg")).unwrap();
    minimal_update(&dir.path.join("cfg/contractpin.lock")).unwrap();
    assert!(real.join("contractpin.lock").is_file());
    assert!(real.join("contractpin.lock.lock").is_file());
}
