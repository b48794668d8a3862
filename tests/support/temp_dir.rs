//! A temporary directory of its own for a library test (removed when
//! dropped); the CLI tests have theirs in `cli/tests/cli_support`.

use std::fs;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

static DIR_COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A fresh, empty directory under the system's temporary directory.
pub struct TempDir {
    /// Its path.
    pub path: PathBuf,
}

impl TempDir {
    /// A new directory named after `tag`, the process and a counter.
    pub fn new(tag: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!(
            "contractpin-test-{tag}-{}-{}",
            std::process::id(),
            DIR_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).unwrap();
        TempDir { path }
    }

    /// The names of its entries, sorted.
    #[allow(dead_code)]
    pub fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(&self.path)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
    }
}
