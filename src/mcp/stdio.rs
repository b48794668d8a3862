//! The stdio transport: a child process speaking newline-delimited JSON-RPC.
//!
//! - stdout is read on its own thread and split into lines (a line longer
//!   than the limit is an error); lines that are not JSON-RPC messages are
//!   skipped and counted;
//! - stdin is written on its own thread, so a server that stops reading can
//!   never block us;
//! - stderr goes into a bounded ring on a third thread and is shown (its
//!   tail) when something fails; it never mixes with our output;
//! - shutdown always happens, also on errors and panics (`Drop`): close
//!   stdin, wait, SIGTERM to the server's process group, wait, SIGKILL, reap.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::string::{String, ToString};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use std::vec::Vec;

use super::error::{one_line, McpError, McpErrorKind};
use super::jsonrpc;
use super::stderr_ring::StderrRing;
use super::transport::{Deadline, Transport};

/// What the stdout thread reports.
enum Event {
    Line(Vec<u8>),
    TooLong(usize),
    Eof,
    Failed(String),
}

/// How the server ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ended {
    /// It exited by itself (after stdin was closed, or earlier).
    ByItself,
    /// It needed SIGTERM.
    Terminated,
    /// It ignored SIGTERM and was killed.
    Killed,
}

/// A running stdio server.
pub(crate) struct StdioTransport {
    child: Child,
    lines: Receiver<Event>,
    writer: Option<SyncSender<Vec<u8>>>,
    write_error: Arc<Mutex<Option<String>>>,
    stderr: StderrRing,
    skipped: usize,
    last_junk: Option<String>,
    grace: Duration,
    status: Option<ExitStatus>,
    ended: Option<Ended>,
}

impl StdioTransport {
    /// Starts `command` with `env` added to our environment and in `cwd`.
    pub fn spawn(
        command: &[String],
        env: &BTreeMap<String, String>,
        cwd: Option<&PathBuf>,
        max_line_bytes: usize,
        grace: Duration,
    ) -> Result<StdioTransport, McpError> {
        let Some(program) = command.first() else {
            return Err(McpError::new(
                McpErrorKind::Spec,
                "the stdio server command is empty",
            ));
        };
        let mut cmd = Command::new(program);
        cmd.args(&command[1..])
            .envs(env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = cwd {
            cmd.current_dir(dir);
        }
        #[cfg(unix)]
        {
            // Its own process group, so that shutdown reaches the server's
            // own children too (wrappers such as `npx` or `sh -c`).
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let mut child = cmd.spawn().map_err(|e| {
            let where_ = cwd
                .map(|d| std::format!(" in {}", d.display()))
                .unwrap_or_default();
            McpError::new(
                McpErrorKind::Spawn,
                std::format!("could not start `{}`{where_}: {e}", one_line(program)),
            )
        })?;
        let (stdin, stdout, stderr) =
            match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
                (Some(i), Some(o), Some(e)) => (i, o, e),
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(McpError::new(
                        McpErrorKind::Spawn,
                        "the server's pipes could not be set up",
                    ));
                }
            };
        let stderr = StderrRing::spawn(stderr);
        let (tx, lines) = mpsc::sync_channel(256);
        let (wtx, wrx) = mpsc::sync_channel::<Vec<u8>>(64);
        let write_error = Arc::new(Mutex::new(None));
        let t = StdioTransport {
            child,
            lines,
            writer: Some(wtx),
            write_error: write_error.clone(),
            stderr,
            skipped: 0,
            last_junk: None,
            grace,
            status: None,
            ended: None,
        };
        let r = std::thread::Builder::new()
            .name(String::from("mcp-stdout"))
            .spawn(move || read_lines(stdout, max_line_bytes, tx));
        let w = std::thread::Builder::new()
            .name(String::from("mcp-stdin"))
            .spawn(move || write_messages(stdin, wrx, write_error));
        if r.is_err() || w.is_err() {
            // `t` is dropped here, which shuts the child down.
            return Err(McpError::new(
                McpErrorKind::Spawn,
                "could not start the I/O threads",
            ));
        }
        Ok(t)
    }

    fn send(&mut self, msg: &[u8]) -> Result<(), McpError> {
        let mut line = Vec::with_capacity(msg.len() + 1);
        line.extend_from_slice(msg);
        line.push(b'\n');
        let sent = match &self.writer {
            Some(w) => w.send(line).is_ok(),
            None => false,
        };
        if !sent {
            let why = self
                .write_error
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone()
                .unwrap_or_else(|| String::from("stdin is closed"));
            return Err(self.exited_error(&std::format!(
                "could not write to the server's stdin ({why})"
            )));
        }
        Ok(())
    }

    /// The error for a server whose stdout ended: waits briefly for its exit
    /// status and the rest of its stderr.
    fn exited_error(&mut self, what: &str) -> McpError {
        let until = Instant::now() + Duration::from_secs(1);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(st)) => break Some(st),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(10)),
                _ => break None,
            }
        };
        if let Some(st) = status {
            self.status = Some(st);
            let until = Instant::now() + Duration::from_millis(300);
            while !self.stderr.closed() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let state = match status {
            Some(st) => std::format!("the server exited ({st})"),
            None => String::from("the server closed its stdout"),
        };
        let mut msg = std::format!("{state}: {what}");
        self.note_skipped(&mut msg);
        McpError::new(McpErrorKind::Exited, msg).with_stderr(self.stderr.tail())
    }

    fn note_skipped(&self, msg: &mut String) {
        if self.skipped > 0 {
            msg.push_str(&std::format!(
                " ({} stdout line(s) that were not JSON-RPC were skipped; the last: {})",
                self.skipped,
                self.last_junk.as_deref().unwrap_or("?")
            ));
        }
    }

    /// The last lines of the server's stderr.
    pub fn stderr_tail(&self) -> String {
        self.stderr.tail()
    }

    fn with_tail(&self, e: McpError) -> McpError {
        e.with_stderr(self.stderr.tail())
    }

    /// Shuts the server down (idempotent): close stdin, wait, SIGTERM, wait,
    /// SIGKILL, reap.
    pub fn shutdown(&mut self) -> Ended {
        if let Some(e) = self.ended {
            return e;
        }
        self.writer = None; // the writer thread drops stdin once its queue is written
        let ended = if self.wait_for(self.grace) {
            Ended::ByItself
        } else {
            self.signal(Signal::Term);
            if self.wait_for(self.grace) {
                Ended::Terminated
            } else {
                self.signal(Signal::Kill);
                if let Ok(st) = self.child.wait() {
                    self.status = Some(st);
                }
                Ended::Killed
            }
        };
        self.ended = Some(ended);
        ended
    }

    fn wait_for(&mut self, d: Duration) -> bool {
        if self.status.is_some() {
            return true;
        }
        let until = Instant::now() + d;
        loop {
            match self.child.try_wait() {
                Ok(Some(st)) => {
                    self.status = Some(st);
                    return true;
                }
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(10)),
                Ok(None) => return false,
                Err(_) => return false,
            }
        }
    }

    fn signal(&mut self, sig: Signal) {
        #[cfg(unix)]
        {
            let Ok(pid) = libc::pid_t::try_from(self.child.id()) else {
                let _ = self.child.kill();
                return;
            };
            let signo = match sig {
                Signal::Term => libc::SIGTERM,
                Signal::Kill => libc::SIGKILL,
            };
            // SAFETY: kill(2) has no memory-safety preconditions. The child
            // has not been reaped (status is None), so its pid, which is also
            // its process group id, still names it.
            let rc = unsafe { libc::kill(-pid, signo) };
            if rc != 0 {
                // SAFETY: as above, for the single process.
                unsafe { libc::kill(pid, signo) };
            }
        }
        #[cfg(not(unix))]
        {
            let _ = sig;
            let _ = self.child.kill();
        }
    }
}

#[derive(Clone, Copy)]
enum Signal {
    Term,
    Kill,
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        self.shutdown();
    }
}

impl Transport for StdioTransport {
    fn request(
        &mut self,
        id: u64,
        method: &str,
        message: &[u8],
        deadline: &Deadline,
    ) -> Result<Vec<u8>, McpError> {
        self.send(message)?;
        loop {
            let left = deadline.remaining();
            if left.is_zero() {
                return Err(self.timeout(deadline, method));
            }
            match self.lines.recv_timeout(left) {
                Ok(Event::Line(line)) => {
                    if line.iter().all(|b| b" \t\r".contains(b)) {
                        continue;
                    }
                    let scan = jsonrpc::classify(&line, id).map_err(|e| self.with_tail(e))?;
                    if let Some(j) = scan.junk {
                        self.skipped += 1;
                        let shown = String::from_utf8_lossy(&line[..line.len().min(80)]).into_owned();
                        self.last_junk = Some(std::format!("{j}: `{}`", one_line(&shown)));
                    }
                    for reply in scan.replies {
                        self.send(&reply)?;
                    }
                    if let Some(answer) = scan.ours {
                        return answer;
                    }
                }
                Ok(Event::TooLong(n)) => {
                    return Err(self.with_tail(McpError::new(
                        McpErrorKind::LineTooLong,
                        std::format!(
                            "the server wrote a stdout line longer than {n} bytes (the line limit) while we waited for {method}"
                        ),
                    )))
                }
                Ok(Event::Failed(why)) => {
                    return Err(self.with_tail(McpError::new(
                        McpErrorKind::Io,
                        std::format!("reading the server's stdout failed: {why}"),
                    )))
                }
                Ok(Event::Eof) | Err(RecvTimeoutError::Disconnected) => {
                    return Err(self.exited_error(&std::format!("no answer to {method}")))
                }
                Err(RecvTimeoutError::Timeout) => return Err(self.timeout(deadline, method)),
            }
        }
    }

    fn notify(
        &mut self,
        _method: &str,
        message: &[u8],
        _deadline: &Deadline,
    ) -> Result<(), McpError> {
        self.send(message)
    }

    fn skipped_lines(&self) -> usize {
        self.skipped
    }
}

impl StdioTransport {
    fn timeout(&self, deadline: &Deadline, method: &str) -> McpError {
        let e = deadline.error(&std::format!("answer to {method}"));
        let mut msg = String::from(e.message());
        self.note_skipped(&mut msg);
        self.with_tail(McpError::new(McpErrorKind::Timeout, msg))
    }
}

/// The stdout thread: newline-delimited lines, each at most `max` bytes
/// (without the newline).
fn read_lines(stdout: impl Read, max: usize, tx: SyncSender<Event>) {
    let mut r = BufReader::with_capacity(64 * 1024, stdout);
    let mut line: Vec<u8> = Vec::new();
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = tx.send(Event::Failed(e.to_string()));
                return;
            }
        };
        if buf.is_empty() {
            if !line.is_empty() {
                // A last line without a newline still counts as a message.
                let _ = tx.send(Event::Line(core::mem::take(&mut line)));
            }
            let _ = tx.send(Event::Eof);
            return;
        }
        let (take, complete) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (buf.len(), false),
        };
        if line.len() + take > max {
            let _ = tx.send(Event::TooLong(max));
            return;
        }
        line.extend_from_slice(&buf[..take]);
        r.consume(if complete { take + 1 } else { take });
        if complete {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if tx.send(Event::Line(core::mem::take(&mut line))).is_err() {
                return;
            }
        }
    }
}

/// The stdin thread: writes each queued message; dropping the queue closes stdin.
fn write_messages(mut stdin: impl Write, rx: Receiver<Vec<u8>>, error: Arc<Mutex<Option<String>>>) {
    for msg in rx {
        if let Err(e) = stdin.write_all(&msg).and_then(|_| stdin.flush()) {
            *error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.to_string());
            return;
        }
    }
}
