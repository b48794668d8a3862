//! Printing: stdout/stderr helpers, colour, GitHub Actions annotations.

use std::io::{IsTerminal, Write};

use crate::fail::Failure;

/// Prints `error: <message>` on stderr.
pub fn error_line(message: &str) {
    let _ = writeln!(std::io::stderr().lock(), "error: {message}");
}

/// Prints `warning: <message>` on stderr.
pub fn warning_line(message: &str) {
    let _ = writeln!(std::io::stderr().lock(), "warning: {message}");
}

/// Writes bytes to stdout and flushes. A closed pipe (e.g. `| head`) is not an error.
pub fn write_stdout(bytes: &[u8]) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::usage(format!(
            "cannot write to standard output: {e}"
        ))),
    }
}
