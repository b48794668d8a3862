//! A bounded buffer for a child's stderr: keeps the last bytes only.

use std::io::Read;
use std::string::String;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::vec::Vec;

use super::error::{printable_lines, CUT};

/// Bytes of stderr kept.
const CAPACITY: usize = 64 * 1024;
/// Bytes and lines shown in an error message.
const TAIL_BYTES: usize = 2048;
const TAIL_LINES: usize = 20;

/// The last [`CAPACITY`] bytes a child wrote to stderr, filled by a thread.
#[derive(Clone, Default)]
pub(crate) struct StderrRing {
    buf: Arc<Mutex<Vec<u8>>>,
    closed: Arc<AtomicBool>,
}

impl StderrRing {
    /// Starts a thread that drains `pipe` into a new ring until it closes.
    pub fn spawn(mut pipe: impl Read + Send + 'static) -> StderrRing {
        let ring = StderrRing::default();
        let r = ring.clone();
        let spawned = std::thread::Builder::new()
            .name(String::from("mcp-stderr"))
            .spawn(move || {
                let mut chunk = [0u8; 8192];
                loop {
                    match pipe.read(&mut chunk) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => r.push(&chunk[..n]),
                    }
                }
                r.closed.store(true, Ordering::Release);
            });
        if spawned.is_err() {
            ring.closed.store(true, Ordering::Release);
        }
        ring
    }

    fn push(&self, bytes: &[u8]) {
        let mut b = self.buf.lock().unwrap_or_else(|p| p.into_inner());
        b.extend_from_slice(bytes);
        if b.len() > CAPACITY {
            let cut = b.len() - CAPACITY;
            b.drain(..cut);
        }
    }

    /// Whether the pipe has been closed (the thread finished).
    pub fn closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// The last lines (at most 20, about 2 KiB), printable, for an error message.
    pub fn tail(&self) -> String {
        let b = self.buf.lock().unwrap_or_else(|p| p.into_inner());
        tail_of(&b)
    }
}

fn tail_of(b: &[u8]) -> String {
    let mut start = b.len().saturating_sub(TAIL_BYTES);
    let mut cut_mid_line = start > 0 && b[start - 1] != b'\n';
    if cut_mid_line {
        // Start on a line boundary when there is one in the window.
        if let Some(nl) = b[start..].iter().position(|&c| c == b'\n') {
            if start + nl + 1 < b.len() {
                start += nl + 1;
                cut_mid_line = false;
            }
        }
    }
    let mut text = printable_lines(&String::from_utf8_lossy(&b[start..]));
    if cut_mid_line {
        // Mark the cut, so that redaction can mask the end of a secret the cut split.
        text.insert_str(0, CUT);
    }
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let from = lines.len().saturating_sub(TAIL_LINES);
    lines[from..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_tail_only() {
        let ring = StderrRing::default();
        for i in 0..10_000 {
            ring.push(std::format!("line {i}\n").as_bytes());
        }
        assert!(ring.buf.lock().unwrap().len() <= CAPACITY);
        let t = ring.tail();
        assert_eq!(t.lines().count(), TAIL_LINES);
        assert!(t.ends_with("line 9999"), "{t}");
        assert!(t.starts_with("line 9980"), "{t}");
    }

    #[test]
    fn escapes_control_characters() {
        assert_eq!(tail_of(b"a\x1b[31mred\r\nb\n"), "a\\u{1b}[31mred\nb");
        assert_eq!(tail_of(b""), "");
    }
}
