//! The stdio transport: a child process speaking newline-delimited JSON-RPC.
//!
//! - the server gets a minimal environment, the variables the official MCP
//!   SDK clients pass on ([`DEFAULT_INHERITED_ENV_VARS`]) plus the spec's
//!   `env`, unless [`ClientOptions::inherit_env`] asks for all of ours;
//! - stdout is read on its own thread and split into lines (a line longer
//!   than the limit is an error); lines that are not JSON-RPC messages are
//!   skipped and counted. A server that exits is noticed while we wait for
//!   an answer even when a process that escaped its group holds stdout open
//!   (no end of file): once it and its whole group are gone (Linux) and
//!   stdout has been quiet for 250 ms, no answer can come. The lines travel
//!   to us through a queue bounded in
//!   bytes (`byte_queue`, `max(max_line_bytes, 64 KiB)`):
//!   a server that writes faster than we parse is back-pressured through
//!   its pipe instead of filling our memory;
//! - stdin is written on its own thread, so a server that stops reading can
//!   never block us: a message that does not fit in the (1 MiB) write queue
//!   before the request's deadline is a timeout;
//! - stderr goes into a bounded ring on a third thread and is shown (its
//!   tail) when something fails; it never mixes with our output;
//! - shutdown always happens, also on errors and panics (`Drop`), as soon
//!   as the answer is complete: close stdin, wait up to
//!   [`ClientOptions::shutdown_grace`] (default 200 ms) for the server to
//!   exit by itself, SIGTERM to its process group, wait up to
//!   [`TERM_GRACE`] (1 s), SIGKILL; then, however the server ended, the rest
//!   of its process group gets SIGTERM and, after [`TERM_GRACE`], SIGKILL;
//!   the server is reaped last (see `reaper`);
//! - a server that ends before answering is reported as such: `the server
//!   exited (exit status: 3) before answering server/discover` (or `signal:
//!   9 (SIGKILL)`), with the last lines of its stderr.
//!
//! [`DEFAULT_INHERITED_ENV_VARS`]: super::DEFAULT_INHERITED_ENV_VARS
//! [`ClientOptions::inherit_env`]: super::ClientOptions::inherit_env
//! [`ClientOptions::shutdown_grace`]: super::ClientOptions::shutdown_grace

use std::boxed::Box;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::string::{String, ToString};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use std::vec::Vec;

use super::byte_queue::{byte_queue, Receiver, SendError, Sender};
use super::error::{one_line, McpError, McpErrorKind};
use super::jsonrpc;
use super::options::{ClientOptions, DEFAULT_INHERITED_ENV_VARS};
use super::reaper::{self, Exit};
use super::stderr_ring::StderrRing;
use super::transport::{Deadline, Transport};

/// Bytes of our own messages queued for the server's stdin at most.
const WRITE_BUDGET: usize = 1 << 20;
/// The line queue holds at least this much, however small the line limit.
const MIN_LINE_BUDGET: usize = 64 * 1024;
/// How often a wait for an answer checks whether the server has exited.
const EXIT_POLL: Duration = Duration::from_millis(50);
/// After the server exited, how long its stdout must stay quiet before we
/// stop waiting for an answer (a child it left behind may hold the pipe
/// open, so there may never be an end of file).
const QUIET_AFTER_EXIT: Duration = Duration::from_millis(250);
/// After SIGTERM, how long the server (and then the rest of its process
/// group) gets before SIGKILL: a server that honours SIGTERM is never
/// killed.
pub(crate) const TERM_GRACE: Duration = Duration::from_secs(1);

/// What the stdout thread reports (to the transport's own queue, or to the
/// sink of [`StdioTransport::spawn_raw`]).
pub(crate) enum Event {
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
    writer: Option<Sender<Vec<u8>>>,
    write_error: Arc<Mutex<Option<String>>>,
    stderr: StderrRing,
    skipped: usize,
    last_junk: Option<String>,
    grace: Duration,
    /// The exit status, once known (the child may still be unreaped).
    status: Option<ExitStatus>,
    /// Whether the child has exited (learnt without reaping it).
    exited: bool,
    /// Whether the child has been reaped: from then on its pid means nothing.
    reaped: bool,
    /// Since when stdout has been quiet, once the server is known to have exited.
    quiet_since: Option<Instant>,
    ended: Option<Ended>,
    /// The job object holding the server and what it starts (Windows; `None`
    /// when Windows refused one).
    #[cfg(windows)]
    job: Option<crate::win32::Job>,
}

/// The environment a server starts with: only the variables of
/// [`DEFAULT_INHERITED_ENV_VARS`] that are set (a value starting with `()`,
/// a shell function, is left out), or all of ours with `inherit`; then
/// `env` on top.
fn set_environment(cmd: &mut Command, env: &BTreeMap<String, String>, inherit: bool) {
    if !inherit {
        cmd.env_clear();
        for (k, v) in default_environment() {
            cmd.env(k, v);
        }
    }
    cmd.envs(env);
}

/// The program to start for the command's first word: as given, except on
/// Windows, where a bare name that means a batch script (`npx` for
/// `npx.cmd`) becomes that script's path, found in the server's `PATH`
/// (its spec's, else ours), as the SDK clients find it.
fn program_path(program: &str, env: &BTreeMap<String, String>) -> PathBuf {
    #[cfg(windows)]
    {
        let path = env
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("PATH"))
            .map(|(_, v)| OsString::from(v))
            .or_else(|| std::env::var_os("PATH"))
            .unwrap_or_default();
        if let Some(script) = crate::win32::batch_script(program, &path) {
            return script;
        }
    }
    #[cfg(not(windows))]
    let _ = env;
    PathBuf::from(program)
}

/// What the official SDKs' `getDefaultEnvironment()` /
/// `get_default_environment()` return.
fn default_environment() -> Vec<(&'static str, OsString)> {
    DEFAULT_INHERITED_ENV_VARS
        .iter()
        .filter_map(|&k| {
            let v = std::env::var_os(k)?;
            // Bash exports functions as `() { ...`; the SDKs skip them.
            (!v.to_string_lossy().starts_with("()")).then_some((k, v))
        })
        .collect()
}

impl StdioTransport {
    /// Starts `command` in `cwd` with the environment of [`set_environment`].
    pub fn spawn(
        command: &[String],
        env: &BTreeMap<String, String>,
        cwd: Option<&PathBuf>,
        opts: &ClientOptions,
    ) -> Result<StdioTransport, McpError> {
        Self::spawn_inner(command, env, cwd, opts, None)
    }

    /// Like [`spawn`](Self::spawn), for the proxy, which forwards lines
    /// instead of waiting for answers: every stdout event goes to
    /// `raw.sink` on the stdout thread (`false` back: stop, and drain the
    /// rest of stdout), and with `raw.inherit_stderr` the server writes to
    /// our stderr (as the SDK clients let it) instead of the ring. The
    /// process, environment, group, writer and shutdown are the same.
    pub(crate) fn spawn_raw(
        command: &[String],
        env: &BTreeMap<String, String>,
        cwd: Option<&PathBuf>,
        opts: &ClientOptions,
        raw: RawIo,
    ) -> Result<StdioTransport, McpError> {
        Self::spawn_inner(command, env, cwd, opts, Some(raw))
    }

    fn spawn_inner(
        command: &[String],
        env: &BTreeMap<String, String>,
        cwd: Option<&PathBuf>,
        opts: &ClientOptions,
        raw: Option<RawIo>,
    ) -> Result<StdioTransport, McpError> {
        let Some(program) = command.first() else {
            return Err(McpError::new(
                McpErrorKind::Spec,
                "the stdio server command is empty",
            ));
        };
        let mut cmd = Command::new(program_path(program, env));
        cmd.args(&command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(match &raw {
                Some(r) if r.inherit_stderr => Stdio::inherit(),
                _ => Stdio::piped(),
            });
        set_environment(&mut cmd, env, opts.inherit_env);
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
        // Linux: no inherited descriptor beyond stderr reaches the server;
        // the proxy's server dies with the proxy (see `prepare_child`).
        reaper::prepare_child(&mut cmd, raw.is_some());
        #[cfg(windows)]
        {
            // Started suspended, to be put in a job object before it runs
            // (`win32::Job::contain`): the Windows counterpart of the group.
            use std::os::windows::process::CommandExt;
            cmd.creation_flags(crate::win32::CREATE_SUSPENDED);
        }
        let mut child = reaper::spawn_managed(&mut cmd).map_err(|e| {
            let where_ = cwd
                .map(|d| std::format!(" in {}", d.display()))
                .unwrap_or_default();
            McpError::new(
                McpErrorKind::Spawn,
                std::format!("could not start `{}`{where_}: {e}", one_line(program)),
            )
            .caused_by(e)
        })?;
        #[cfg(windows)]
        let job = match crate::win32::Job::contain(&child) {
            Ok(job) => job,
            Err(e) => {
                let _ = child.kill();
                reaper::reap_and_forget(&mut child);
                return Err(McpError::new(
                    McpErrorKind::Spawn,
                    std::format!("could not start `{}`: {e}", one_line(program)),
                ));
            }
        };
        let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (wtx, wrx) = byte_queue::<Vec<u8>>(WRITE_BUDGET);
        let (tx, lines) = byte_queue(opts.max_line_bytes.max(MIN_LINE_BUDGET));
        let mut t = StdioTransport {
            child,
            lines,
            writer: Some(wtx),
            write_error: Arc::new(Mutex::new(None)),
            stderr: StderrRing::default(),
            skipped: 0,
            last_junk: None,
            grace: opts.shutdown_grace,
            status: None,
            exited: false,
            reaped: false,
            quiet_since: None,
            ended: None,
            #[cfg(windows)]
            job,
        };
        // From here on, returning early drops `t`, which shuts the child down.
        let inherit = raw.as_ref().is_some_and(|r| r.inherit_stderr);
        let (Some(stdin), Some(stdout), true) = (pipes.0, pipes.1, inherit || pipes.2.is_some())
        else {
            return Err(McpError::new(
                McpErrorKind::Spawn,
                "the server's pipes could not be set up",
            ));
        };
        if let Some(stderr) = pipes.2 {
            t.stderr = StderrRing::spawn(stderr);
        }
        let max_line = opts.max_line_bytes;
        let r = std::thread::Builder::new()
            .name(String::from("mcp-stdout"))
            .spawn(move || match raw {
                None => read_lines(stdout, max_line, |ev, cost| tx.send(ev, cost).is_ok()),
                Some(mut raw) => read_lines(stdout, max_line, |ev, _| (raw.sink)(ev)),
            });
        let write_error = t.write_error.clone();
        let w = std::thread::Builder::new()
            .name(String::from("mcp-stdin"))
            .spawn(move || write_messages(stdin, wrx, write_error));
        if r.is_err() || w.is_err() {
            return Err(McpError::new(
                McpErrorKind::Spawn,
                "could not start the I/O threads",
            ));
        }
        Ok(t)
    }

    fn send(&mut self, msg: &[u8], deadline: &Deadline, method: &str) -> Result<(), McpError> {
        match self.queue_line(frame(msg), Some(deadline.at)) {
            Ok(None) => Ok(()),
            Ok(Some(_)) => Err(self.stdin_full(deadline, method)),
            Err(why) => Err(self.write_failed(method, &why)),
        }
    }

    /// Queues `line` (a framed message) for the server's stdin, waiting for
    /// room until `until` (`None`: as long as it takes). `Ok(Some(line))`
    /// gives it back when there was still no room then; `Err` says why stdin
    /// is closed.
    fn queue_line(&self, line: Vec<u8>, until: Option<Instant>) -> Result<Option<Vec<u8>>, String> {
        let cost = line.capacity();
        let sent = match &self.writer {
            Some(w) => w.send_until(line, cost, until),
            None => Err(SendError::Closed(line)),
        };
        match sent {
            Ok(()) => Ok(None),
            Err(SendError::Timeout(line)) => Ok(Some(line)),
            Err(SendError::Closed(_)) => Err(self
                .write_error
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone()
                .unwrap_or_else(|| String::from("stdin is closed"))),
        }
    }

    /// The timeout of a server that stopped reading its stdin.
    fn stdin_full(&self, deadline: &Deadline, method: &str) -> McpError {
        self.with_tail(deadline.error(&std::format!(
            "room on the server's stdin (it stopped reading it) while waiting for {method}"
        )))
    }

    /// The error of a write to a closed stdin.
    fn write_failed(&mut self, method: &str, why: &str) -> McpError {
        self.exited_error(
            method,
            Some(&std::format!("could not write to its stdin: {why}")),
        )
    }

    /// The error for a server that ended (its stdout did, or it exited)
    /// before answering `method`: `the server exited (exit status: 3)
    /// before answering initialize`, with the tail of its stderr. Waits
    /// briefly for the exit status and the rest of stderr.
    fn exited_error(&mut self, method: &str, detail: Option<&str>) -> McpError {
        if self.wait_exit(Duration::from_secs(1)) {
            let until = Instant::now() + Duration::from_millis(300);
            while !self.stderr.closed() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let mut msg = match (self.exited, self.status) {
            // `exit status: 3`, or `signal: 9 (SIGKILL)`.
            (true, Some(st)) => std::format!("the server exited ({st}) before answering {method}"),
            (true, None) => std::format!("the server exited before answering {method}"),
            (false, _) => std::format!("the server closed its stdout before answering {method}"),
        };
        if let Some(d) = detail {
            msg.push_str(&std::format!(" ({d})"));
        }
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

    /// Shuts the server down (idempotent): close stdin, wait the grace,
    /// SIGTERM, wait [`TERM_GRACE`], SIGKILL; then clear its process group;
    /// then reap it.
    pub fn shutdown(&mut self) -> Ended {
        if let Some(e) = self.ended {
            return e;
        }
        self.writer = None; // the writer thread drops stdin once its queue is written
        self.lines.close(); // the reader thread discards the rest of stdout
        let ended = self.stop_leader();
        self.clear_group();
        self.reap();
        self.ended = Some(ended);
        ended
    }

    /// Ends the server process itself, without reaping it.
    fn stop_leader(&mut self) -> Ended {
        if self.wait_exit(self.grace) {
            return Ended::ByItself;
        }
        self.signal(Signal::Term);
        if self.wait_exit(TERM_GRACE) {
            return Ended::Terminated;
        }
        self.signal(Signal::Kill);
        // SIGKILL cannot be ignored, but a process in an uninterruptible
        // sleep takes its time: bounded, never a hang.
        self.wait_exit(TERM_GRACE * 5);
        Ended::Killed
    }

    /// The server has ended (it is a zombie, so its pid still names its
    /// group): SIGTERM to what is left of the group, SIGKILL after
    /// [`TERM_GRACE`] if anything is still alive.
    fn clear_group(&mut self) {
        // Windows: what the server started is in its job; end it.
        #[cfg(windows)]
        if let Some(job) = &self.job {
            job.terminate();
        }
        #[cfg(unix)]
        {
            if self.reaped {
                return;
            }
            let pgid = self.child.id();
            self.signal(Signal::Term);
            let until = Instant::now() + TERM_GRACE;
            loop {
                if reaper::group_has_live_members(pgid) == Some(false) || !group_exists(pgid) {
                    return;
                }
                if Instant::now() >= until {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            self.signal(Signal::Kill);
        }
    }

    /// Reaps the server if it has exited (so it leaves no zombie), and
    /// forgets it: from then on no signal goes to its pid.
    fn reap(&mut self) {
        if self.reaped {
            return;
        }
        if let Some(st) = reaper::reap_and_forget(&mut self.child) {
            self.status.get_or_insert(st);
        }
        self.reaped = true;
    }

    /// Waits up to `d` for the server to exit, without reaping it.
    fn wait_exit(&mut self, d: Duration) -> bool {
        // A wait too long for the clock (a library caller's grace) is no limit.
        let until = Instant::now().checked_add(d);
        loop {
            if self.exited {
                return true;
            }
            match reaper::peek_exit(&mut self.child) {
                Exit::Running => {}
                Exit::Exited(st) => {
                    self.exited = true;
                    self.status = self.status.or(st);
                    return true;
                }
                Exit::Gone => {
                    self.exited = true;
                    self.reaped = true; // never signal that pid again
                    reaper::unmanage(self.child.id());
                    return true;
                }
            }
            if until.is_some_and(|u| Instant::now() >= u) {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn signal(&mut self, sig: Signal) {
        if self.reaped {
            return; // its pid may belong to someone else by now
        }
        #[cfg(unix)]
        {
            let signo = match sig {
                Signal::Term => libc::SIGTERM,
                Signal::Kill => libc::SIGKILL,
            };
            // The child is not reaped (checked above): its pid still names it.
            reaper::signal_group(self.child.id(), signo);
        }
        #[cfg(not(unix))]
        {
            // No SIGTERM: the job (or the server alone) ends at once.
            let _ = sig;
            #[cfg(windows)]
            if let Some(job) = &self.job {
                job.terminate();
                return;
            }
            let _ = self.child.kill();
        }
    }
}

/// Whether any process (a zombie counts) is in the group `pgid`.
#[cfg(unix)]
fn group_exists(pgid: u32) -> bool {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return false;
    };
    // SAFETY: kill(2) with signal 0 sends nothing and only checks existence.
    unsafe { libc::kill(-pgid, 0) == 0 }
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
        self.send(message, deadline, method)?;
        loop {
            let left = deadline.remaining();
            if left.is_zero() {
                return Err(self.timeout(deadline, method));
            }
            match self.lines.recv_timeout(left.min(EXIT_POLL)) {
                Ok(Event::Line(line)) => {
                    self.quiet_since = self.quiet_since.map(|_| Instant::now());
                    if let Some(answer) = self.on_line(&line, id, method, deadline)? {
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
                    return Err(self.exited_error(method, None))
                }
                Err(RecvTimeoutError::Timeout) => {
                    if self.exited_and_quiet() {
                        return Err(self.exited_error(method, None));
                    }
                }
            }
        }
    }

    fn notify(
        &mut self,
        method: &str,
        message: &[u8],
        deadline: &Deadline,
    ) -> Result<(), McpError> {
        self.send(message, deadline, method)
    }

    fn skipped_lines(&self) -> usize {
        self.skipped
    }
}

/// The answer to our request, when a line holds it.
type Answer = Option<Result<Vec<u8>, McpError>>;

impl StdioTransport {
    /// One stdout line: skipped (junk, notifications), answered (server
    /// requests), or the answer we wait for.
    fn on_line(
        &mut self,
        line: &[u8],
        id: u64,
        method: &str,
        deadline: &Deadline,
    ) -> Result<Answer, McpError> {
        if is_blank(line) {
            return Ok(None);
        }
        let scan = jsonrpc::classify(line, id).map_err(|e| self.with_tail(e))?;
        if let Some(j) = scan.junk {
            self.skipped += 1;
            let shown = String::from_utf8_lossy(&line[..line.len().min(80)]).into_owned();
            self.last_junk = Some(std::format!("{j}: `{}`", one_line(&shown)));
        }
        for reply in scan.replies {
            self.send(&reply, deadline, method)?;
        }
        Ok(scan.ours)
    }

    /// Whether the server has exited, nothing is left alive in its process
    /// group, and its stdout has been quiet since: then no answer can come,
    /// even if a process that escaped the group keeps the pipe open. (A
    /// wrapper that exits while a child in its group goes on serving, as
    /// `sh -c 'server &'`, is still waited for; where the group cannot be
    /// listed, only the end of stdout or the deadline ends the wait.)
    fn exited_and_quiet(&mut self) -> bool {
        if self.quiet_since.is_none()
            && self.wait_exit(Duration::ZERO)
            && (self.reaped || reaper::group_has_live_members(self.child.id()) == Some(false))
        {
            self.quiet_since = Some(Instant::now());
        }
        self.quiet_since
            .is_some_and(|t| t.elapsed() >= QUIET_AFTER_EXIT)
    }

    fn timeout(&self, deadline: &Deadline, method: &str) -> McpError {
        let e = deadline.error(&std::format!("answer to {method}"));
        let mut msg = String::from(e.message());
        self.note_skipped(&mut msg);
        self.with_tail(McpError::new(McpErrorKind::Timeout, msg))
    }
}

/// Where the stdout events of a server started by
/// [`StdioTransport::spawn_raw`] go.
pub(crate) struct RawIo {
    /// Called on the stdout thread with each event, in order.
    pub sink: Box<dyn FnMut(Event) -> bool + Send>,
    /// Whether the server writes to our stderr (else: the bounded ring).
    pub inherit_stderr: bool,
}

/// The proxy's access to a server started by [`StdioTransport::spawn_raw`].
impl StdioTransport {
    /// Queues `line` (a message framed by [`frame`]) for the server's
    /// stdin, waiting for room until `until` at most: the line comes back
    /// (`Ok(Some)`) when there was none by then, so that the proxy can wait
    /// again in short slices without holding a lock all along (a server that
    /// stopped reading must not keep the proxy from shutting down). After
    /// `deadline` (`None`: never), no room is a timeout error.
    pub(crate) fn send_raw_until(
        &mut self,
        line: Vec<u8>,
        until: Instant,
        deadline: Option<&Deadline>,
    ) -> Result<Option<Vec<u8>>, McpError> {
        const WHAT: &str = "the server to read its stdin";
        let until = deadline.map_or(until, |d| until.min(d.at));
        match self.queue_line(line, Some(until)) {
            Ok(None) => Ok(None),
            Err(why) => Err(self.write_failed(WHAT, &why)),
            Ok(Some(line)) => match deadline {
                Some(d) if Instant::now() >= d.at => Err(self.stdin_full(d, WHAT)),
                _ => Ok(Some(line)),
            },
        }
    }

    /// Whether the server has exited and nothing is left alive in its
    /// process group (where that can be known; elsewhere, whether it
    /// exited): then no more output can come from it, even if a process
    /// that escaped the group holds its stdout open.
    pub(crate) fn server_gone(&mut self) -> bool {
        self.wait_exit(Duration::ZERO)
            && (self.reaped || reaper::group_has_live_members(self.child.id()) != Some(true))
    }

    /// How the server ended, for a message, after waiting up to `wait` for
    /// it to exit: `the server exited (exit status: 3)`, or `the server
    /// closed its stdout` while it still runs.
    pub(crate) fn end_description(&mut self, wait: Duration) -> String {
        self.wait_exit(wait);
        match (self.exited, self.status) {
            (true, Some(st)) => std::format!("the server exited ({st})"),
            (true, None) => String::from("the server exited"),
            (false, _) => String::from("the server closed its stdout"),
        }
    }
}

/// Whether a line holds nothing but JSON whitespace: no message (the MCP
/// stdio transport delimits messages by newlines; a blank line carries none).
fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| b" \t\r".contains(b))
}

/// `msg` with its newline, as the stdin queue takes it.
pub(crate) fn frame(msg: &[u8]) -> Vec<u8> {
    let mut line = Vec::with_capacity(msg.len() + 1);
    line.extend_from_slice(msg);
    line.push(b'\n');
    line
}

/// The stdout thread: newline-delimited lines, each at most `max` bytes
/// (without the newline). Each complete line that is not blank is handed to
/// `emit` with the memory it holds (a queue blocks this thread while it is
/// full, so the server is back-pressured); blank lines are dropped here, as
/// every consumer would skip them. `emit` returning `false` means nobody
/// listens any more. Also the proxy's reader of its client's stdin.
pub(crate) fn read_lines(
    stdout: impl Read,
    max: usize,
    mut emit: impl FnMut(Event, usize) -> bool,
) {
    let mut r = BufReader::with_capacity(64 * 1024, stdout);
    let mut line: Vec<u8> = Vec::new();
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = emit(Event::Failed(e.to_string()), 0);
                return;
            }
        };
        if buf.is_empty() {
            if !is_blank(&line) {
                // A last line without a newline still counts as a message.
                let cost = line.capacity();
                let _ = emit(Event::Line(line), cost);
            }
            let _ = emit(Event::Eof, 0);
            return;
        }
        let (take, complete) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (buf.len(), false),
        };
        if line.len() + take > max {
            let _ = emit(Event::TooLong(max), 0);
            return;
        }
        line.extend_from_slice(&buf[..take]);
        r.consume(if complete { take + 1 } else { take });
        if complete {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if is_blank(&line) {
                // No message: not even a queue slot (a flood of them cost
                // nothing in the queue's budget and filled memory).
                line.clear();
                continue;
            }
            let full = core::mem::take(&mut line);
            let cost = full.capacity();
            if !emit(Event::Line(full), cost) {
                // Nobody listens any more (shutdown): keep draining the pipe
                // so that a server writing its last words does not block.
                let _ = std::io::copy(&mut r, &mut std::io::sink());
                return;
            }
        }
    }
}

/// The stdin thread: writes each queued message, and the ones queued behind
/// it in the same system call (flushed as soon as the queue is empty);
/// dropping the queue closes stdin.
fn write_messages(stdin: impl Write, rx: Receiver<Vec<u8>>, error: Arc<Mutex<Option<String>>>) {
    let mut stdin = std::io::BufWriter::with_capacity(64 * 1024, stdin);
    while let Ok(msg) = rx.recv() {
        let mut written = stdin.write_all(&msg);
        drop(msg);
        while written.is_ok() {
            match rx.recv_timeout(Duration::ZERO) {
                Ok(more) => written = stdin.write_all(&more),
                Err(_) => break,
            }
        }
        if let Err(e) = written.and_then(|()| stdin.flush()) {
            *error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e.to_string());
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The environment `env(1)` sees when started as a server would be.
    #[cfg(unix)]
    fn child_env(env: &BTreeMap<String, String>, inherit: bool) -> Vec<(String, String)> {
        let mut cmd = Command::new("env");
        set_environment(&mut cmd, env, inherit);
        let out = cmd.output().expect("env(1) runs");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[cfg(unix)]
    #[test]
    fn a_server_gets_the_default_variables_and_its_env_only() {
        // Some variable of ours outside the list (cargo sets several).
        let (ours, _) = std::env::vars()
            .find(|(k, _)| !DEFAULT_INHERITED_ENV_VARS.contains(&k.as_str()))
            .expect("the test runs with some variable outside the list");
        let mut env = BTreeMap::new();
        env.insert(String::from("DECLARED_FOR_THE_SERVER"), String::from("v"));
        let minimal = child_env(&env, false);
        let names: Vec<&str> = minimal.iter().map(|(k, _)| k.as_str()).collect();
        assert!(!names.contains(&ours.as_str()), "{names:?}");
        for (k, v) in &minimal {
            if k == "DECLARED_FOR_THE_SERVER" {
                assert_eq!(v, "v");
            } else {
                assert!(DEFAULT_INHERITED_ENV_VARS.contains(&k.as_str()), "{k}");
                assert_eq!(std::env::var(k).ok().as_deref(), Some(v.as_str()), "{k}");
            }
        }
        assert!(names.contains(&"DECLARED_FOR_THE_SERVER"));
        if std::env::var_os("PATH").is_some() {
            assert!(names.contains(&"PATH"), "{names:?}");
        }
        let all = child_env(&env, true);
        assert!(
            all.iter().any(|(k, _)| *k == ours),
            "inherit_env passes {ours} on"
        );
        assert!(all
            .iter()
            .any(|(k, v)| k == "DECLARED_FOR_THE_SERVER" && v == "v"));
    }

    #[test]
    fn blank_lines_never_reach_the_consumer() {
        let input: &[u8] = b"\n\n \t\r\n\r\n{\"a\":1}\r\n\n\n  ";
        let mut seen = Vec::new();
        read_lines(input, 100, |ev, cost| {
            match ev {
                Event::Line(l) => seen.push((String::from_utf8(l).unwrap(), cost)),
                Event::Eof => seen.push((String::from("EOF"), cost)),
                _ => panic!("unexpected event"),
            }
            true
        });
        let lines: Vec<&str> = seen.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(lines, ["{\"a\":1}", "EOF"]);
        assert!(seen[0].1 >= 7, "a line is charged its capacity");
    }

    #[test]
    fn the_default_environment_is_the_sdk_list_minus_functions() {
        let env = default_environment();
        for (k, v) in &env {
            assert!(DEFAULT_INHERITED_ENV_VARS.contains(k), "{k}");
            assert!(!v.to_string_lossy().starts_with("()"), "{k}");
        }
        #[cfg(unix)]
        assert_eq!(
            DEFAULT_INHERITED_ENV_VARS,
            ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"]
        );
    }
}
