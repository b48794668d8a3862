//! Reading a JSON document from a file or standard input, bounded in size,
//! and the lock or configuration files named on the command line.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use contractpin::fs::ReadFileError;
use contractpin::lock::MAX_LOCK_BYTES;
use contractpin::mem::FreshBuf;

use crate::fail::Failure;

/// Reads `path` (`None` or `-` = stdin), at most `max + 1` bytes, so that an
/// oversized input reaches the core's size limit (and its error) without
/// reading all of it.
pub fn read_document(path: Option<&Path>, max: usize) -> Result<FreshBuf, Failure> {
    let cap = (max as u64).saturating_add(1);
    let stdin = || {
        let mut buf = Vec::new();
        read_bounded(std::io::stdin().lock(), cap, &mut buf)
            .map(|()| FreshBuf::from(buf))
            .map_err(|e| Failure::usage(format!("cannot read standard input: {e}")))
    };
    match path {
        None => stdin(),
        Some(p) if p.as_os_str() == "-" => stdin(),
        Some(p) => {
            let failure = |e: &std::io::Error| {
                Failure::usage(format!("cannot read {}: {}", p.display(), io_reason(e)))
            };
            let file = File::open(p).map_err(|e| failure(&e))?;
            let size = regular_file_size(&file);
            read_sized(file, size, cap).map_err(|e| failure(&e))
        }
    }
}

/// A regular file's size as `fstat` reports it; `None` for a FIFO or
/// device, which report no useful size.
fn regular_file_size(file: &File) -> Option<u64> {
    file.metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len())
}

/// Reads at most `cap` bytes of `reader`. With the size known (a regular
/// file) they go into one fresh buffer of that size plus the one byte of
/// the end-of-file probe (at most `cap`), on huge pages where the kernel
/// gives them (`contractpin::mem::FreshBuf`), so that reading neither grows
/// a buffer step by step nor takes a fault per page. A file that turns out
/// longer than its size said is read on into a growing buffer, still
/// bounded by `cap`; without a size, only the growing buffer.
fn read_sized<R: Read>(mut reader: R, size: Option<u64>, cap: u64) -> std::io::Result<FreshBuf> {
    let Some(size) = size else {
        let mut buf = Vec::new();
        read_bounded(reader, cap, &mut buf)?;
        return Ok(FreshBuf::from(buf));
    };
    let room = usize::try_from(size.saturating_add(1).min(cap)).unwrap_or(0);
    let mut buf = FreshBuf::zeroed(room);
    let mut filled = 0;
    while filled < room {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(filled);
    if filled < room || room as u64 >= cap {
        return Ok(buf);
    }
    // Longer than its size said: the rest into a growing buffer.
    let mut more = buf.to_vec();
    read_bounded(reader, cap - room as u64, &mut more)?;
    Ok(FreshBuf::from(more))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader of `data` in pieces of at most `step` bytes that is
    /// interrupted once before its first piece.
    struct Pieces<'a> {
        data: &'a [u8],
        step: usize,
        interrupted: bool,
    }

    impl Read for Pieces<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            if !self.interrupted {
                self.interrupted = true;
                return Err(std::io::ErrorKind::Interrupted.into());
            }
            let n = self.data.len().min(self.step).min(out.len());
            out[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn read(data: &[u8], size: Option<u64>, cap: u64) -> FreshBuf {
        let reader = Pieces {
            data,
            step: 100_003,
            interrupted: false,
        };
        read_sized(reader, size, cap).unwrap()
    }

    #[test]
    fn reads_every_byte_whatever_the_size_said_up_to_the_cap() {
        // Past a huge page, so the fresh mapping is used.
        let data: Vec<u8> = (0..5_000_000u32).map(|i| (i % 253) as u8).collect();
        let n = data.len() as u64;
        let big = u64::MAX;
        // The size as it is, the file grown since (read on), shrunk since,
        // unknown (a FIFO), and the cap below the size.
        for size in [Some(n), Some(n / 3), Some(n + 4096), Some(0), None] {
            assert_eq!(&read(&data, size, big)[..], &data[..], "{size:?}");
            assert_eq!(&read(&data, size, 1_000)[..], &data[..1_000], "{size:?}");
            assert_eq!(&read(&data, size, n)[..], &data[..], "{size:?}");
        }
        // (A mapping of its own on Linux; elsewhere an ordinary allocation.)
        #[cfg(target_os = "linux")]
        assert!(read(&data, Some(n), big).is_mapped());
        assert_eq!(read(&[], Some(0), big).len(), 0);
        assert_eq!(&read(b"{}", Some(2), big)[..], b"{}");
    }
}
