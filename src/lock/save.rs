//! Durable lock saving (feature `std`): atomic replace and a file lock
//! around read-modify-write.
//!
//! **Atomic save.** [`save_atomic`] creates a uniquely named temporary file
//! (`.<name>.tmp-<pid>-<n>`) in the target's directory, writes it, fsyncs it,
//! renames it over the target (atomic on POSIX file systems) and fsyncs the
//! directory. An existing target's permissions are kept. A failure removes
//! the temporary file; a process killed mid-save can leave one behind, but
//! the target is always the complete old or the complete new lock. Stale
//! temporary files of dead processes are removed by the next [`update`].
//!
//! **File lock.** [`update`] takes an exclusive file lock (`flock`;
//! `LockFileEx` on Windows) on a sidecar file, `<lock path>.lock` (for
//! `contractpin.lock`: `contractpin.lock.lock`; add it to `.gitignore`).
//! Locking the lock file itself would not work: each save replaces it with
//! a new inode, so a waiter would end up holding a lock on a file no longer
//! in place. The sidecar is never deleted
//! (deleting a lock file reintroduces the same race).
//!
//! **No writing through links.** A lock path that is a symbolic link
//! (dangling or not) is refused by [`save_atomic`] and [`update`]: a link
//! committed to a repository could point anywhere, and `init` would write
//! there. So is a sidecar that is a link (opened with `O_NOFOLLOW`;
//! `FILE_FLAG_OPEN_REPARSE_POINT` on Windows) or anything but a regular
//! file. Links among the parent directories are followed: a lock may live
//! in a linked directory. Reading ([`load`], [`read`]) takes only a regular file of at most
//! [`MAX_LOCK_BYTES`], so a FIFO or device named as the lock fails at once.

use std::ffi::OsString;
use std::fmt;
use std::format;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::vec::Vec;

use super::error::LockError;
use super::model::Lock;
use crate::fs::ReadFileError;

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// The path of the sidecar file that [`update`] locks: `<path>.lock`.
pub fn sidecar_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(".lock");
    PathBuf::from(name)
}

/// Refuses a lock `path` that is a symbolic link (dangling or not), with
/// the error [`save_atomic`] and [`update`] give for it (the one message):
/// a lock checked out from a repository that is a link could make `init`
/// write anywhere the link points, outside the repository. A command that
/// writes the lock only after other work (`approve`, after running a
/// server) calls this first, so that it fails before doing any.
pub fn refuse_link(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is a symbolic link; refusing to write through it (write the real file instead)",
                path.display()
            ),
        )),
        _ => Ok(()),
    }
}

/// `path` itself, refusing a symbolic link ([`refuse_link`]).
fn resolve(path: &Path) -> io::Result<PathBuf> {
    refuse_link(path).map(|()| path.to_path_buf())
}

/// The bytes of the lock at `path`, `None` if it does not exist; only a
/// regular file of at most [`MAX_LOCK_BYTES`] is read.
fn read_existing(path: &Path) -> io::Result<Option<Vec<u8>>> {
    match crate::fs::read_regular_file(path, MAX_LOCK_BYTES) {
        Ok(b) => Ok(Some(b)),
        Err(ReadFileError::Io(e)) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(ReadFileError::Io(e)) => Err(e),
        Err(e) => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {e}", path.display()),
        )),
    }
}

fn split(target: &Path) -> io::Result<(PathBuf, OsString)> {
    let name = target
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "lock path has no file name"))?
        .to_os_string();
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((dir, name))
}

fn temp_prefix(name: &OsString) -> OsString {
    let mut p = OsString::from(".");
    p.push(name);
    p.push(".tmp-");
    p
}

/// Renames `from` over `to`.
#[cfg(not(windows))]
fn rename_over(from: &Path, to: &Path) -> io::Result<()> {
    fs::rename(from, to)
}

/// Renames `from` over `to`. Windows refuses ("Access denied") to replace a
/// file that another process holds open without POSIX rename semantics
/// (another `contractpin` reading the lock outside the file lock, an
/// editor, a virus scanner): such a hold is brief, so try again for up to
/// about two seconds before giving up.
#[cfg(windows)]
fn rename_over(from: &Path, to: &Path) -> io::Result<()> {
    let mut tries = 0;
    loop {
        match fs::rename(from, to) {
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied && tries < 100 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other,
        }
    }
}

/// Makes a rename or link just done in `dir` durable: the directory is
/// fsynced (a file system that cannot is no error). The one rule for it,
/// used for the lock and for the files `wrap` writes.
#[cfg(unix)]
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    match File::open(dir)?.sync_all() {
        // Some file systems cannot fsync a directory; the rename is done.
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => Ok(()),
        other => other,
    }
}

/// Windows has no directory fsync (a directory does not even open as a
/// file): NTFS journals the rename itself, so once `rename` returns the
/// new file is in place, and a crash leaves the old one or the new one.
#[cfg(not(unix))]
pub fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}

/// Replaces the file at `path` with `bytes` atomically and durably: readers
/// (and a crash at any moment) see the old content or the new, never a mix.
pub fn save_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let target = resolve(path)?;
    let (dir, name) = split(&target)?;
    let prefix = temp_prefix(&name);
    let old = fs::metadata(&target).ok();
    let (tmp_path, mut file) = loop {
        let mut tmp_name = prefix.clone();
        tmp_name.push(format!(
            "{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let candidate = dir.join(tmp_name);
        match create_like(&candidate, old.as_ref()) {
            Ok(f) => break (candidate, f),
            // A leftover of an earlier process with the same pid.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    };
    let result = (|| {
        file.write_all(bytes)?;
        if let Some(meta) = &old {
            file.set_permissions(meta.permissions())?;
        }
        file.sync_all()?;
        drop(file);
        rename_over(&tmp_path, &target)?;
        sync_dir(&dir)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp_path);
    }
    result
}

/// Creates the new file `path` (never an existing one) for the content of
/// the file whose metadata is `like`: on Unix it is created with `like`'s
/// permission bits (the umask may narrow them; they are set exactly once
/// written), so a private file's new content is never readable by others,
/// not even for a moment; and it gets `like`'s owner and group where the
/// process may give them (root rewriting another user's file), so a rewrite
/// keeps who owns it. Without `like`, a new file's usual mode (0666 less the
/// umask).
fn create_like(path: &Path, like: Option<&fs::Metadata>) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
        options.mode(like.map_or(0o666, |m| m.mode() & 0o777));
        let file = options.open(path)?;
        if let Some(m) = like {
            let mine = file.metadata()?;
            if (mine.uid(), mine.gid()) != (m.uid(), m.gid()) {
                // Only root may give a file away; anyone else keeps it.
                match std::os::unix::fs::fchown(&file, Some(m.uid()), Some(m.gid())) {
                    Err(e) if e.kind() != io::ErrorKind::PermissionDenied => {
                        let _ = fs::remove_file(path);
                        return Err(e);
                    }
                    _ => {}
                }
            }
        }
        Ok(file)
    }
    #[cfg(not(unix))]
    {
        let _ = like;
        options.open(path)
    }
}

/// Reads and strictly parses the lock at `path`. A file that cannot be read
/// (including one that does not exist) is [`LockErrorKind::Io`](super::LockErrorKind::Io).
pub fn load(path: &Path) -> Result<Lock, LockError> {
    Lock::parse(&read(path).map_err(|e| LockError::io(format!("{}: {e}", path.display())))?)
}

/// The largest lock file read (64 MiB, the default input limit).
pub const MAX_LOCK_BYTES: u64 = super::LOCK_BYTE_LIMIT as u64;

/// The bytes of the lock file at `path`: a regular file (symbolic links
/// followed) of at most [`MAX_LOCK_BYTES`]; a FIFO, device or directory is
/// an error at once, never a wait.
pub fn read(path: &Path) -> Result<Vec<u8>, ReadFileError> {
    crate::fs::read_regular_file(path, MAX_LOCK_BYTES)
}

/// Why [`update`] did not write.
#[derive(Debug)]
pub enum UpdateError<E> {
    /// Locking, reading or writing failed.
    Io(io::Error),
    /// The existing lock file is invalid (it is left untouched).
    Lock(LockError),
    /// The closure returned an error (nothing was written).
    Aborted(E),
}

impl<E: fmt::Display> fmt::Display for UpdateError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UpdateError::Io(e) => write!(f, "cannot update lock file: {e}"),
            UpdateError::Lock(e) => e.fmt(f),
            UpdateError::Aborted(e) => e.fmt(f),
        }
    }
}

/// The source of an I/O or lock failure is the [`io::Error`] or the
/// [`LockError`]; an aborted update has none (the closure's value is its own).
impl<E: fmt::Debug + fmt::Display> std::error::Error for UpdateError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            UpdateError::Io(e) => Some(e),
            UpdateError::Lock(e) => Some(e),
            UpdateError::Aborted(_) => None,
        }
    }
}

impl<E> From<io::Error> for UpdateError<E> {
    fn from(e: io::Error) -> Self {
        UpdateError::Io(e)
    }
}

/// An exclusive lock on a file (`File::lock`), released when dropped
/// (closing the file).
struct FileLock {
    _file: File,
}

impl FileLock {
    /// Locks the sidecar at `path`, creating it if needed. It must be a
    /// regular file: a symbolic link (dangling or not) is refused, never
    /// followed (a link committed to a repository would make `init` create
    /// or lock a file anywhere it points), and so are a FIFO, a device and
    /// a directory.
    fn exclusive(path: &Path) -> io::Result<FileLock> {
        let file = open_sidecar(path).map_err(|e| match fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => refused_sidecar(path, "a symbolic link"),
            _ => e,
        })?;
        let kind = file.metadata()?.file_type();
        if kind.is_symlink() {
            // Windows: the link itself was opened.
            return Err(refused_sidecar(path, "a symbolic link"));
        }
        if !kind.is_file() {
            return Err(refused_sidecar(path, "not a regular file"));
        }
        // `flock(2)` on Unix, `LockFileEx` on Windows: every platform
        // serialises updates.
        loop {
            match file.lock() {
                Ok(()) => break,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => return Err(err),
            }
        }
        Ok(FileLock { _file: file })
    }
}

/// The error for a sidecar that is `what` instead of a regular file.
fn refused_sidecar(path: &Path, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{} is {what}; refusing to use it as the lock's lock file (remove it: it is \
             created as a regular file)",
            path.display()
        ),
    )
}

/// Opens (creating) the sidecar read-write without following a symbolic
/// link in its last component: `O_NOFOLLOW` (a link is `ELOOP`), and
/// `O_NONBLOCK | O_NOCTTY` so that a FIFO or terminal opens at once (and is
/// then refused) instead of waiting or becoming the controlling terminal.
#[cfg(unix)]
fn open_sidecar(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    sidecar_options()
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
}

/// Opens (creating) the sidecar read-write; `FILE_FLAG_OPEN_REPARSE_POINT`
/// opens a symbolic link or junction itself, never its target (it is then
/// not a regular file, and refused).
#[cfg(windows)]
fn open_sidecar(path: &Path) -> io::Result<File> {
    use std::os::windows::fs::OpenOptionsExt;
    /// `CreateFile` flag: open a reparse point itself, not what it names.
    const FILE_FLAG_OPEN_REPARSE_POINT: u32 = 0x0020_0000;
    sidecar_options()
        .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
        .open(path)
}

/// Opens (creating) the sidecar read-write (no way to refuse a link here).
#[cfg(not(any(unix, windows)))]
fn open_sidecar(path: &Path) -> io::Result<File> {
    sidecar_options().open(path)
}

/// Read-write, created if missing, never truncated.
fn sidecar_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    options
}

/// Removes temporary files left by killed saves of processes that no longer
/// exist. Called with the file lock held; best effort.
fn remove_stale_temps(target: &Path) {
    let Ok((dir, name)) = split(target) else {
        return;
    };
    let prefix = temp_prefix(&name);
    let prefix = prefix.to_string_lossy().into_owned();
    let Ok(entries) = fs::read_dir(&dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|n| n.strip_prefix(&prefix)) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid != 0 && pid != std::process::id() && process_gone(pid) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Whether process `pid` is known to have gone (`false` when unsure).
#[cfg(unix)]
fn process_gone(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks whether the process exists.
    let rc = unsafe { libc::kill(pid, 0) };
    rc != 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

#[cfg(windows)]
fn process_gone(pid: u32) -> bool {
    crate::win32::process_gone(pid)
}

#[cfg(not(any(unix, windows)))]
fn process_gone(_pid: u32) -> bool {
    false
}

/// Read-modify-write of the lock at `path` under an exclusive file lock.
///
/// Takes the lock on [`sidecar_path`], reads the current lock (`None` if the
/// file does not exist; an invalid lock is [`UpdateError::Lock`]), calls
/// `modify`, and saves its result with [`save_atomic`] (skipped when the
/// bytes are unchanged). If `modify` fails, or the result would be larger
/// than [`MAX_LOCK_BYTES`] (it could not be read back), nothing is written;
/// the writer stops at that limit ([`Lock::to_pretty_within`]), so a lock
/// whose snapshots would grow to gigabytes once indented costs no more
/// memory than the limit. Concurrent
/// updates of the same lock, from threads or processes, are serialised, so
/// none is lost.
pub fn update<E, F>(path: &Path, modify: F) -> Result<Lock, UpdateError<E>>
where
    F: FnOnce(Option<Lock>) -> Result<Lock, E>,
{
    let target = resolve(path)?;
    let _guard = FileLock::exclusive(&sidecar_path(&target))?;
    remove_stale_temps(&target);
    let old_bytes = read_existing(&target)?;
    let current = match &old_bytes {
        Some(b) => Some(Lock::parse(b).map_err(UpdateError::Lock)?),
        None => None,
    };
    let new = modify(current).map_err(UpdateError::Aborted)?;
    // Never write (nor build) a lock that no reader would accept back.
    let bytes = new
        .to_pretty_within(MAX_LOCK_BYTES as usize)
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "the lock would be too large: more than the {MAX_LOCK_BYTES} a lock may have, \
                 in bytes (contract snapshots make it larger; pin digests only)"
                ),
            )
        })?;
    if old_bytes.as_deref() != Some(&bytes[..]) {
        save_atomic(&target, &bytes)?;
    }
    Ok(new)
}
