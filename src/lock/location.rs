//! Paths in a lock (feature `std`): a file transport's `path` and a stdio
//! server's `cwd` are stored relative to the lock file's directory, so a
//! lock verifies from any working directory, and they must stay inside that
//! directory unless the caller allows otherwise.
//!
//! A stdio entry without `cwd` runs in the lock's directory (see
//! `ServerSpec::from_source`), and `init` records the directory it runs a
//! server in relative to the lock ([`implicit_cwd`]), so a command such as
//! `node server.js` works from wherever `verify` runs.
//!
//! A lock is input from whoever can change it. A `path` of `/etc/shadow` or
//! `../../secrets.json`, or a `cwd` in someone's home directory, reaches
//! outside the repository the lock belongs to; [`resolve_inside`] refuses
//! them, lexically (absolute paths, `..` climbing above the lock's
//! directory) and after following symbolic links.

use std::path::{Component, Path, PathBuf};
use std::string::{String, ToString};
use std::vec::Vec;

/// Lexically normalised absolute form of `path` (relative to the current
/// directory): `.` dropped, `..` applied, no file system access.
fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .unwrap_or_else(|_| PathBuf::from("."))
            .join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Whether `path` starts at a root or a drive, so that it names the same
/// place whatever directory it is taken from (joining it to one drops that
/// directory): absolute paths, and on Windows also `\x` (the current
/// drive's root) and `C:x` (relative to drive C's current directory),
/// which Windows does not call absolute.
fn rooted(path: &Path) -> bool {
    matches!(
        path.components().next(),
        Some(Component::Prefix(_) | Component::RootDir)
    )
}

/// The directory holding the lock file (absolute).
pub fn lock_dir(lock: &Path) -> PathBuf {
    absolute(lock)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("/"))
}

/// `path` (relative to the current directory, or absolute) as it is stored
/// in the lock: relative to the lock's directory (`"."` for the directory
/// itself), except an absolute path (one that starts at a root or a
/// drive) outside that directory, which is kept.
pub fn relative_to_lock(path: &str, lock: &Path) -> String {
    let p = Path::new(path);
    let target = absolute(p);
    let base = lock_dir(lock);
    if rooted(p) && !target.starts_with(&base) {
        return path.to_string();
    }
    relative(&target, &base)
}

/// The `cwd` that `init` records for a stdio server given no working
/// directory: the directory `init` runs in (where it starts the server),
/// relative to the lock's directory; `None` when that is the lock's
/// directory itself, where an entry without `cwd` runs anyway. A directory
/// outside the lock's is recorded only with `allow_outside` (as `../..`);
/// without it, `None` too: the server then runs in the lock's directory, at
/// `init` as at `verify`.
pub fn implicit_cwd(lock: &Path, allow_outside: bool) -> Option<String> {
    // Both sides as real paths (getcwd(3) gives one; on Windows the real
    // form also carries the `\\?\` prefix, so both must have it).
    let here = std::env::current_dir().ok()?;
    let here = here.canonicalize().unwrap_or(here);
    let dir = lock_dir(lock);
    let dir = dir.canonicalize().unwrap_or(dir);
    let rel = relative(&here, &dir);
    let outside = Path::new(&rel).components().next() == Some(Component::ParentDir);
    (rel != "." && (allow_outside || !outside)).then_some(rel)
}

/// `target` relative to `base` (both absolute and normalised): `..` for
/// each component of `base` beyond the common prefix, then the rest of
/// `target`; `"."` when they are the same. The parts are joined with `/`
/// on every platform, so a lock written on Windows reads the same on Linux
/// (Windows takes `/` as a separator too).
fn relative(target: &Path, base: &Path) -> String {
    let t: Vec<_> = target.components().collect();
    let b: Vec<_> = base.components().collect();
    let common = t.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let ups = (common..b.len()).map(|_| std::borrow::Cow::Borrowed(".."));
    let downs = t[common..].iter().map(|c| c.as_os_str().to_string_lossy());
    let parts: Vec<_> = ups.chain(downs).collect();
    if parts.is_empty() {
        return ".".to_string();
    }
    parts.join("/")
}

/// A path read from the lock, resolved against the lock's directory
/// (absolute paths unchanged), with no containment check.
pub fn resolve_from_lock(path: &str, lock: &Path) -> PathBuf {
    let p = Path::new(path);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        lock_dir(lock).join(p)
    }
}

/// A path read from the lock, resolved against the lock's directory, or why
/// it reaches outside that directory: it is absolute, climbs above it with
/// `..`, or leads outside it through a symbolic link. A path that does not
/// exist yet is judged lexically.
pub fn resolve_inside(path: &str, lock: &Path) -> Result<PathBuf, String> {
    if rooted(Path::new(path)) {
        return Err(std::format!("{path:?} is an absolute path"));
    }
    let mut depth: usize = 0;
    for c in Path::new(path).components() {
        match c {
            Component::ParentDir if depth == 0 => {
                return Err(std::format!("{path:?} climbs above the lock's directory"))
            }
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            _ => {}
        }
    }
    let dir = lock_dir(lock);
    let resolved = dir.join(path);
    if let (Ok(real), Ok(real_dir)) = (resolved.canonicalize(), dir.canonicalize()) {
        if !real.starts_with(&real_dir) {
            return Err(std::format!(
                "{path:?} leads outside the lock's directory through a symbolic link"
            ));
        }
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_relative_paths() {
        let cwd = std::env::current_dir().unwrap();
        let lock = cwd.join("examples/contractpin.lock");
        assert_eq!(
            relative_to_lock("examples/tools-list.json", &lock),
            "tools-list.json"
        );
        assert_eq!(relative_to_lock("data/x.json", &lock), "../data/x.json");
        assert_eq!(relative_to_lock("/abs/x.json", &lock), "/abs/x.json");
        let inside = cwd.join("examples/sub/x.json");
        assert_eq!(
            relative_to_lock(inside.to_str().unwrap(), &lock),
            "sub/x.json"
        );
        assert_eq!(relative_to_lock("examples", &lock), ".");
        assert_eq!(
            resolve_from_lock("tools-list.json", &lock),
            cwd.join("examples/tools-list.json")
        );
    }

    #[test]
    fn the_implicit_cwd_is_the_current_directory_relative_to_the_lock() {
        // The test runs in the package directory (the repository root).
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(implicit_cwd(&cwd.join("contractpin.lock"), false), None);
        assert_eq!(implicit_cwd(Path::new("contractpin.lock"), false), None);
        let parent = cwd.parent().unwrap().join("x.lock");
        let name = cwd.file_name().unwrap().to_str().unwrap().to_string();
        assert_eq!(implicit_cwd(&parent, false), Some(name.clone()));
        // Outside the lock's directory: only on request, then as `..`.
        let below = cwd.join("examples/contractpin.lock");
        assert_eq!(implicit_cwd(&below, false), None);
        assert_eq!(implicit_cwd(&below, true).as_deref(), Some(".."));
    }

    #[test]
    fn containment() {
        let cwd = std::env::current_dir().unwrap();
        let lock = cwd.join("examples/contractpin.lock");
        assert_eq!(
            resolve_inside("tools-list.json", &lock).unwrap(),
            cwd.join("examples/tools-list.json")
        );
        assert!(resolve_inside(".", &lock).is_ok());
        assert!(resolve_inside("a/../tools-list.json", &lock).is_ok());
        assert!(resolve_inside("../Cargo.toml", &lock).is_err());
        assert!(resolve_inside("a/../../x", &lock).is_err());
        assert!(resolve_inside("/etc/passwd", &lock).is_err());
        // A root or a drive leaves the directory on every platform; on
        // Windows `\x` and `C:x` are not "absolute", and joining either
        // to the lock's directory would drop it.
        for outside in ["/nonexistent/x.json", "//server/share/x.json"] {
            let why = resolve_inside(outside, &lock).unwrap_err();
            assert!(why.contains("absolute"), "{outside}: {why}");
        }
        #[cfg(windows)]
        for outside in [
            "\\nonexistent\\x.json",
            "C:x.json",
            "Z:nonexistent.json",
            "\\\\?\\C:\\x",
        ] {
            let why = resolve_inside(outside, &lock).unwrap_err();
            assert!(why.contains("absolute"), "{outside}: {why}");
        }
        #[cfg(windows)]
        assert!(resolve_inside("a\\..\\..\\x", &lock).is_err());
    }

    /// Stored paths use `/` on every platform: a lock written on Windows
    /// verifies on Linux.
    #[test]
    fn stored_paths_use_forward_slashes() {
        let cwd = std::env::current_dir().unwrap();
        let lock = cwd.join("examples/contractpin.lock");
        let deep = cwd.join("examples").join("a").join("b").join("x.json");
        assert_eq!(
            relative_to_lock(deep.to_str().unwrap(), &lock),
            "a/b/x.json"
        );
        let lock = cwd.join("examples").join("a").join("contractpin.lock");
        assert_eq!(relative_to_lock("data/x.json", &lock), "../../data/x.json");
    }
}
