//! Reading the files that a lock or a client configuration names: regular
//! files only, bounded in size, and never blocking.
//!
//! A lock is input from whoever can change it, so a path in it may name a
//! FIFO (whose `open` blocks until a writer appears), a terminal or
//! `/dev/ptmx` (whose reads block forever), `/dev/zero` (endless) or a
//! directory. [`read_regular_file`] opens with `O_NONBLOCK`, checks with
//! `fstat` on the opened descriptor (no race with a rename) that it is a
//! regular file, and reads at most `max` bytes.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::path::Path;
use std::vec::Vec;

/// What went wrong in [`read_regular_file`].
#[derive(Debug)]
pub enum ReadFileError {
    /// Opening or reading failed.
    Io(io::Error),
    /// The path names something other than a regular file (the kind is
    /// described: "a directory", "a FIFO", "a character device", ...).
    NotRegular(&'static str),
    /// The file is larger than the limit (the limit is given).
    TooLarge(u64),
}

impl core::fmt::Display for ReadFileError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ReadFileError::Io(e) => write!(f, "{e}"),
            ReadFileError::NotRegular(kind) => write!(f, "it is {kind}, not a regular file"),
            ReadFileError::TooLarge(max) => write!(f, "it is larger than {max} bytes"),
        }
    }
}

impl std::error::Error for ReadFileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadFileError::Io(e) => Some(e),
            _ => None,
        }
    }
}

/// Reads the regular file at `path` (symbolic links followed), at most
/// `max` bytes; anything else is an error at once, never a wait.
pub fn read_regular_file(path: &Path, max: u64) -> Result<Vec<u8>, ReadFileError> {
    let file = open_nonblocking(path).map_err(ReadFileError::Io)?;
    let meta = file.metadata().map_err(ReadFileError::Io)?;
    if !meta.file_type().is_file() {
        return Err(ReadFileError::NotRegular(kind_of(&meta.file_type())));
    }
    // (On Windows a device or a pipe carries file attributes too.)
    #[cfg(windows)]
    if !crate::win32::is_disk_file(&file) {
        return Err(ReadFileError::NotRegular("a device or a pipe"));
    }
    if meta.len() > max {
        return Err(ReadFileError::TooLarge(max));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(ReadFileError::Io)?;
    if bytes.len() as u64 > max {
        return Err(ReadFileError::TooLarge(max));
    }
    Ok(bytes)
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: opening a FIFO without a writer returns at once instead of
    // waiting; for a regular file the flag changes nothing.
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
}

/// Windows: `FILE_FLAG_BACKUP_SEMANTICS` lets a directory open (a plain
/// open is "Access denied"), so it is reported as a directory like
/// anywhere else. Opening never waits there; a console or pipe handle is
/// not a regular file and is refused before any read.
#[cfg(windows)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use std::os::windows::fs::OpenOptionsExt;
    OpenOptions::new()
        .read(true)
        .custom_flags(crate::win32::FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)
}

#[cfg(not(any(unix, windows)))]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    OpenOptions::new().read(true).open(path)
}

fn kind_of(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_a_directory() {
        let dir = std::env::temp_dir();
        match read_regular_file(&dir, 1 << 20) {
            Err(ReadFileError::NotRegular(k)) => assert_eq!(k, "a directory"),
            other => panic!("{dir:?}: {other:?}"),
        }
    }

    /// Windows devices open like files and carry file attributes.
    #[cfg(windows)]
    #[test]
    fn refuses_a_windows_device() {
        for path in ["NUL", "CON"] {
            match read_regular_file(Path::new(path), 1 << 20) {
                Err(ReadFileError::NotRegular(_)) | Err(ReadFileError::Io(_)) => {}
                other => panic!("{path}: {other:?}"),
            }
        }
    }

    #[cfg(unix)]
    #[test]
    fn refuses_what_is_not_a_regular_file() {
        for (path, kind) in [
            ("/", "a directory"),
            ("/dev/zero", "a character device"),
            ("/dev/null", "a character device"),
        ] {
            match read_regular_file(Path::new(path), 1 << 20) {
                Err(ReadFileError::NotRegular(k)) => assert_eq!(k, kind, "{path}"),
                other => panic!("{path}: {other:?}"),
            }
        }
    }

    /// A FIFO with no writer and a socket are refused at once: the read
    /// happens on another thread, and must be over within 5 s.
    #[cfg(unix)]
    #[test]
    fn refuses_a_fifo_and_a_socket_without_waiting() {
        let dir =
            std::env::temp_dir().join(std::format!("contractpin-fs-kinds-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let socket = dir.join("socket");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        for (path, kind) in [(fifo, "a FIFO"), (socket, "a socket")] {
            let (tx, rx) = std::sync::mpsc::channel();
            let p = path.clone();
            std::thread::spawn(move || tx.send(read_regular_file(&p, 1 << 20).map(|_| ())));
            let got = rx.recv_timeout(std::time::Duration::from_secs(5));
            match got {
                Ok(Err(ReadFileError::NotRegular(k))) => assert_eq!(k, kind, "{}", path.display()),
                // A socket cannot be opened as a file at all: refused too.
                Ok(Err(ReadFileError::Io(e))) if kind == "a socket" => {
                    assert_eq!(e.raw_os_error(), Some(libc::ENXIO), "{e}")
                }
                other => panic!("{}: {other:?}", path.display()),
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bounds_the_size() {
        let p = std::env::temp_dir().join(std::format!("contractpin-fs-{}", std::process::id()));
        std::fs::write(&p, b"0123456789").unwrap();
        assert_eq!(read_regular_file(&p, 10).unwrap(), b"0123456789");
        assert!(matches!(
            read_regular_file(&p, 9),
            Err(ReadFileError::TooLarge(9))
        ));
        std::fs::remove_file(&p).unwrap();
    }
}
