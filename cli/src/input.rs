//! Reading a JSON document from a file or standard input, bounded in size,
//! and the lock or configuration files named on the command line.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use contractpin::fs::ReadFileError;
use contractpin::lock::MAX_LOCK_BYTES;

use crate::fail::Failure;

/// Reads `path` (`None` or `-` = stdin), at most `max + 1` bytes, so that an
/// oversized input reaches the core's size limit (and its error) without
/// reading all of it.
pub fn read_document(path: Option<&Path>, max: usize) -> Result<Vec<u8>, Failure> {
    let cap = (max as u64).saturating_add(1);
    let mut buf = Vec::new();
    match path {
        None => read_bounded(std::io::stdin().lock(), cap, &mut buf)
            .map_err(|e| Failure::usage(format!("cannot read standard input: {e}")))?,
        Some(p) if p.as_os_str() == "-" => read_bounded(std::io::stdin().lock(), cap, &mut buf)
            .map_err(|e| Failure::usage(format!("cannot read standard input: {e}")))?,
        Some(p) => {
            let file = File::open(p).map_err(|e| {
                Failure::usage(format!("cannot read {}: {}", p.display(), io_reason(&e)))
            })?;
            reserve_for(&file, cap, &mut buf);
            read_bounded(file, cap, &mut buf).map_err(|e| {
                Failure::usage(format!("cannot read {}: {}", p.display(), io_reason(&e)))
            })?
        }
    }
    Ok(buf)
}

/// Reserves room for a regular file's whole contents (at most `cap` bytes)
/// plus the one byte of the end-of-file probe, so that reading it does not
/// grow the buffer step by step (`take` hides the file's size from
/// `read_to_end`), on huge pages where the kernel gives them and mapped in
/// one call (`contractpin::mem`). A FIFO or device reports no useful size:
/// no reservation.
fn reserve_for(file: &File, cap: u64, buf: &mut Vec<u8>) {
    if let Ok(meta) = file.metadata() {
        if meta.is_file() {
            let want = meta.len().saturating_add(1).min(cap);
            let want = usize::try_from(want).unwrap_or(0);
            buf.reserve_exact(want);
            contractpin::mem::advise_huge_pages(buf);
            contractpin::mem::prefault(buf, want);
        }
    }
}

fn read_bounded<R: Read>(reader: R, cap: u64, buf: &mut Vec<u8>) -> std::io::Result<()> {
    reader.take(cap).read_to_end(buf).map(|_| ())
}

/// Reads a configuration or lock named on the command line: a regular file
/// of at most [`MAX_LOCK_BYTES`], never a FIFO or device (exit 2 otherwise).
pub fn read_file(path: &Path, shown: &str) -> Result<Vec<u8>, Failure> {
    contractpin::fs::read_regular_file(path, MAX_LOCK_BYTES).map_err(|e| read_failure(&e, shown))
}

/// Exit 2 for a file that could not be read: `cannot read SHOWN: reason`.
pub fn read_failure(e: &ReadFileError, shown: &str) -> Failure {
    let reason = match e {
        ReadFileError::Io(io) => io_reason(io),
        other => other.to_string(),
    };
    Failure::usage(format!("cannot read {shown}: {reason}"))
}

/// An I/O error without the "(os error N)" noise.
pub fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => {
            let text = e.to_string();
            match text.find(" (os error") {
                Some(i) => text[..i].to_string(),
                None => text,
            }
        }
    }
}
