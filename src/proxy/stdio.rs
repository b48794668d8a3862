//! The stdio upstream: the server as a child process, started exactly as
//! `verify` starts it ([`StdioTransport`]: the SDKs' minimal environment
//! plus the lock's env, or everything with `--inherit-env`; its own process
//! group; stdin written by its own thread through a 1 MiB queue; shutdown by
//! closing stdin, SIGTERM and SIGKILL to the group, reaping last).
//!
//! Differences from `verify`, all for a long-lived session: stdout lines go
//! straight to the pump from the stdout thread (no queue, no waiting for an
//! answer), the server's stderr is our stderr (as the SDK clients let a
//! server write to theirs), and a watcher thread notices a server that
//! exited while a process that escaped its group holds its stdout open (no
//! end of file ever comes): once the server and its whole group are gone
//! and stdout has been quiet for [`QUIET_AFTER_EXIT`], the connection is
//! closed.
//!
//! A message for a server that stopped reading its stdin waits for room at
//! most `--timeout` (none when that is too long for the clock), in slices
//! of [`SEND_SLICE`] that release the transport's lock and give up as soon
//! as the pump's stop flag is set: the session's end (a signal, the server
//! closing) never waits for it. On Linux the server gets SIGKILL if the
//! proxy's thread that started it dies (`PR_SET_PDEATHSIG`, see
//! `reaper::prepare_child`), so a proxy killed with SIGKILL leaves no server
//! running (what the server started is its own: only its group's signals
//! reach it).

use std::boxed::Box;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::string::String;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use std::vec::Vec;

use crate::mcp::stdio::{frame, Event, RawIo, StdioTransport};
use crate::mcp::transport::Deadline;
use crate::mcp::{ClientOptions, McpError};

use super::upstream::{Deliver, FromServer, Upstream};

/// How often the watcher looks at the server.
const WATCH_EVERY: Duration = Duration::from_millis(50);
/// After the server and its group are gone, how long stdout must be quiet.
const QUIET_AFTER_EXIT: Duration = Duration::from_millis(250);
/// After the end of stdout, how long we wait for the exit status.
const STATUS_WAIT: Duration = Duration::from_secs(1);
/// How long one wait for room on the server's stdin lasts before the
/// transport's lock is released and the stop flag looked at again.
const SEND_SLICE: Duration = Duration::from_millis(50);

/// `deliver`, shared by the stdout thread and the watcher, closed once.
struct Once {
    deliver: Deliver,
    closed: bool,
}

type Shared = Arc<Mutex<Once>>;

fn lock(s: &Shared) -> MutexGuard<'_, Once> {
    s.lock().unwrap_or_else(|p| p.into_inner())
}

/// Hands a message on; `false` once the pump is gone or the connection closed.
fn message(s: &Shared, m: Vec<u8>) -> bool {
    let mut o = lock(s);
    !o.closed && (o.deliver)(FromServer::Message(m))
}

/// Closes the connection (once).
fn close(s: &Shared, why: String) {
    let mut o = lock(s);
    if !o.closed {
        o.closed = true;
        (o.deliver)(FromServer::Closed(why));
    }
}

/// What the stdout thread tells the watcher.
#[derive(Default)]
struct Signals {
    /// Milliseconds since `epoch` of the latest stdout line.
    last_line_ms: AtomicU64,
    /// Stdout ended (end of file).
    eof: Mutex<bool>,
    wake: Condvar,
    /// Shutdown: the watcher stops.
    stop: AtomicBool,
}

/// A stdio server, not yet started until [`Upstream::start`].
pub(crate) struct StdioUpstream {
    command: Vec<String>,
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    opts: ClientOptions,
    transport: Option<Arc<Mutex<StdioTransport>>>,
    signals: Arc<Signals>,
    /// Set by the pump when the session ends, before it takes the lock to
    /// shut us down: a `send` waiting for room gives up at once.
    stop: Arc<AtomicBool>,
}

impl StdioUpstream {
    /// The server `command` with `env` (already expanded) in `cwd`; `stop`
    /// is the pump's flag for the end of the session.
    pub fn new(
        command: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: Option<PathBuf>,
        opts: ClientOptions,
        stop: Arc<AtomicBool>,
    ) -> StdioUpstream {
        StdioUpstream {
            command,
            env,
            cwd,
            opts,
            transport: None,
            signals: Arc::new(Signals::default()),
            stop,
        }
    }
}

fn transport(t: &Mutex<StdioTransport>) -> MutexGuard<'_, StdioTransport> {
    t.lock().unwrap_or_else(|p| p.into_inner())
}

impl Upstream for StdioUpstream {
    fn start(&mut self, deliver: Deliver) -> Result<(), McpError> {
        let shared: Shared = Arc::new(Mutex::new(Once {
            deliver,
            closed: false,
        }));
        let epoch = Instant::now();
        let sink = stdout_sink(shared.clone(), self.signals.clone(), epoch);
        let raw = RawIo {
            sink,
            inherit_stderr: true,
        };
        let t = StdioTransport::spawn_raw(
            &self.command,
            &self.env,
            self.cwd.as_ref(),
            &self.opts,
            raw,
        )?;
        let t = Arc::new(Mutex::new(t));
        self.transport = Some(t.clone());
        let signals = self.signals.clone();
        let w = std::thread::Builder::new()
            .name(String::from("proxy-watch"))
            .spawn(move || watch(&t, &signals, &shared, epoch));
        w.map(|_| ()).map_err(|_| {
            McpError::new(
                crate::mcp::McpErrorKind::Spawn,
                "could not start the thread that watches the server",
            )
        })
    }

    fn send(&mut self, message: &[u8]) -> Result<(), McpError> {
        let Some(t) = &self.transport else {
            return Err(McpError::new(
                crate::mcp::McpErrorKind::Io,
                "the server is not running",
            ));
        };
        let budget = self.opts.request_timeout;
        // A timeout too long for the clock (`--timeout 1e19`): no deadline.
        let deadline = Instant::now().checked_add(budget).map(|at| Deadline {
            at,
            total: false,
            budget,
        });
        let mut line = frame(message);
        // In slices, the transport's lock released between them: the
        // watcher keeps watching, and shutdown (`stop`) ends the wait.
        while !self.stop.load(Ordering::Acquire) {
            let slice = Instant::now() + SEND_SLICE;
            match transport(t).send_raw_until(line, slice, deadline.as_ref())? {
                None => return Ok(()),
                Some(back) => line = back,
            }
        }
        Err(McpError::new(
            crate::mcp::McpErrorKind::Io,
            "the proxy is shutting down",
        ))
    }

    fn shutdown(&mut self) {
        if let Some(t) = &self.transport {
            transport(t).shutdown();
        }
        // The watcher still reports the end of stdout if it came; it is not
        // joined: it may be waiting to hand that report to a pump that is
        // itself waiting for a client that stopped reading.
        self.signals.stop.store(true, Ordering::Release);
        self.signals.wake.notify_all();
    }
}

impl Drop for StdioUpstream {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The stdout thread's side: lines to the pump; the end to the watcher,
/// which knows the exit status (a line too long closes at once).
fn stdout_sink(
    shared: Shared,
    signals: Arc<Signals>,
    epoch: Instant,
) -> Box<dyn FnMut(Event) -> bool + Send> {
    Box::new(move |ev| match ev {
        Event::Line(line) => {
            let ms = epoch.elapsed().as_millis() as u64;
            signals.last_line_ms.store(ms, Ordering::Release);
            message(&shared, line)
        }
        Event::TooLong(n) => {
            close(
                &shared,
                std::format!(
                    "the server wrote a stdout line longer than {n} bytes (the line limit, --max-line-bytes)"
                ),
            );
            false
        }
        Event::Failed(why) => {
            close(
                &shared,
                std::format!("reading the server's stdout failed: {why}"),
            );
            false
        }
        Event::Eof => {
            *signals.eof.lock().unwrap_or_else(|p| p.into_inner()) = true;
            signals.wake.notify_all();
            false
        }
    })
}

/// The watcher: closes the connection when stdout ended (with the exit
/// status), or when the server is gone and stdout has been quiet.
fn watch(t: &Mutex<StdioTransport>, signals: &Signals, shared: &Shared, epoch: Instant) {
    let mut stopped: Option<Instant> = None;
    loop {
        let eof = {
            let g = signals.eof.lock().unwrap_or_else(|p| p.into_inner());
            let (g, _) = signals
                .wake
                .wait_timeout(g, WATCH_EVERY)
                .unwrap_or_else(|p| p.into_inner());
            *g
        };
        if eof {
            let why = transport(t).end_description(STATUS_WAIT);
            close(shared, std::format!("{why} (end of its stdout)"));
            return;
        }
        // After shutdown the end is near (the server is gone): it is still
        // reported, for at most STATUS_WAIT.
        if signals.stop.load(Ordering::Acquire) {
            let since = *stopped.get_or_insert_with(Instant::now);
            if since.elapsed() >= STATUS_WAIT {
                return;
            }
        }
        let last = Duration::from_millis(signals.last_line_ms.load(Ordering::Acquire));
        let quiet = epoch.elapsed().saturating_sub(last) >= QUIET_AFTER_EXIT;
        if quiet && transport(t).server_gone() {
            let why = transport(t).end_description(Duration::ZERO);
            close(
                shared,
                std::format!("{why}; a process it left behind still holds its stdout"),
            );
            return;
        }
    }
}
