//! The empty, private temporary directories in which `verify` and `approve`
//! run a stdio server without a `cwd` of its own when given a trusted lock
//! (`--trusted-lock`), rather than in the (untrusted) checkout.
//!
//! A [`NeutralDir`] is removed, with whatever the server left in it, when
//! it is dropped. An interrupt (SIGINT, SIGTERM, SIGHUP; Ctrl-C on Windows)
//! ends the process with `process::exit` (`fetch::interrupted`), where no
//! destructor runs, so every live directory is also in a registry
//! ([`LIVE`]): [`NeutralDir::new`] adds it, dropping removes it, and
//! [`remove_all`], which the interrupt path calls once the servers are
//! stopped, removes every directory still in it. This module is the one
//! place that makes, tracks and removes them.

use std::path::PathBuf;
use std::sync::Mutex;

/// Every [`NeutralDir`] not yet dropped: what [`remove_all`] removes.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The registry, even if a thread panicked while holding it (a list of
/// paths cannot be left half-changed).
fn live() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// An empty, private temporary directory (`contractpin-neutral-PID-NANOS`
/// in the temporary directory), registered until it is dropped; dropping it
/// removes it and what is in it.
pub(crate) struct NeutralDir {
    path: PathBuf,
}

impl NeutralDir {
    /// Makes the directory (mode 0700 where the platform has modes) and
    /// registers it.
    pub(crate) fn new() -> std::io::Result<NeutralDir> {
        let path = std::env::temp_dir().join(format!(
            "contractpin-neutral-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ));
        let mut builder = std::fs::DirBuilder::new();
        // Private to this user where the platform has modes.
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        #[cfg(not(unix))]
        let _ = &mut builder;
        builder.create(&path)?;
        live().push(path.clone());
        Ok(NeutralDir { path })
    }

    /// The directory.
    pub(crate) fn path(&self) -> &std::path::Path {
        &self.path
    }
}

impl Drop for NeutralDir {
    fn drop(&mut self) {
        live().retain(|p| p != &self.path);
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Removes every registered directory (and what is in it) and empties the
/// registry: for the interrupt path, which exits without running the
/// destructors, after it has stopped the servers that may write there.
pub(crate) fn remove_all() {
    let paths = std::mem::take(&mut *live());
    for path in paths {
        let _ = std::fs::remove_dir_all(path);
    }
}
