//! Fetching servers' tools/lists (through `contractpin::mcp`), several at
//! a time.
//!
//! [`fetch_all`] runs up to `--jobs` fetches at once (default: one per
//! server, at most [`DEFAULT_JOBS`]), each on a thread of its own, and
//! returns the results in the order it was given them, so that what the
//! commands print (warnings included) does not depend on which server
//! answered first. While they run, SIGINT, SIGTERM and SIGHUP stop every
//! server (SIGTERM to its process group, SIGKILL 1 s later), kill what they
//! left, remove the empty directories made for them (`neutral_dir`), and
//! exit with 128 + the signal's number, writing nothing.
//!
//! Orphans (descendants of a stdio server that escaped its process group)
//! are killed after each server when one server runs at a time, and after
//! the last one otherwise: while other servers are still being fetched, an
//! orphan cannot be told apart from one of theirs.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use contractpin::lock::{ServerFacts, Source};
use contractpin::mcp::{
    check_spec, fetch_tools_list, reap_orphans, stop_all_servers, ClientOptions, ServerSpec,
};

use crate::args::FetchLimitArgs;
use crate::fail::Failure;
use crate::limits;
use crate::neutral_dir;
use crate::output;

/// Servers fetched at once when `--jobs` is not given (fewer when there
/// are fewer servers).
pub const DEFAULT_JOBS: usize = 8;
/// The longest `--grace-ms`.
const MAX_GRACE_MS: u64 = 60_000;
/// How often the waiting thread checks for a signal.
const SIGNAL_POLL: Duration = Duration::from_millis(50);
/// After SIGTERM on an interrupt, how long the servers get before SIGKILL.
const INTERRUPT_GRACE: Duration = Duration::from_secs(1);

/// A fetched tools/list, ready for the digest.
#[derive(Debug)]
pub struct Fetched {
    /// A tools/list document in a shape the core accepts.
    pub document: Vec<u8>,
    /// Warnings from the client (skipped junk lines, a legacy end cursor, ...).
    pub warnings: Vec<String>,
    /// The handshake facts (serverInfo, protocol version, instructions).
    pub facts: ServerFacts,
}

/// Why a fetch failed.
#[derive(Debug)]
pub struct FetchError {
    /// A usage problem (unset `${VAR}`, unusable spec): exit 2, not 1.
    pub usage: bool,
    /// The message (never holds a secret).
    pub message: String,
}

/// Client options derived from the flags.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// Per-request timeout.
    pub timeout: Option<Duration>,
    /// Total timeout.
    pub total_timeout: Option<Duration>,
    /// Page cap.
    pub max_pages: Option<usize>,
    /// stdout line cap.
    pub max_line_bytes: Option<usize>,
    /// HTTP body cap.
    pub max_response_bytes: Option<usize>,
    /// Cap on the tools/list assembled from all pages (`--max-input-bytes`).
    pub max_input_bytes: Option<usize>,
    /// Whether stdio servers inherit our whole environment.
    pub inherit_env: bool,
    /// Client capabilities declared in the handshake (normal form).
    pub client_capabilities: Vec<String>,
    /// Servers fetched at once (`--jobs`).
    pub jobs: Option<usize>,
    /// Time a stdio server gets to exit by itself after its stdin is closed.
    pub grace: Option<Duration>,
}

impl FetchOptions {
    /// Validates the limit flags.
    pub fn from_args(a: &FetchLimitArgs) -> Result<FetchOptions, Failure> {
        limits::at_least_one(&[
            ("--max-pages", a.max_pages),
            ("--max-line-bytes", a.max_line_bytes),
            ("--max-response-bytes", a.max_response_bytes),
            ("--max-tools", a.max_tools),
            ("--jobs", a.jobs),
        ])?;
        if let Some(ms) = a.grace_ms.filter(|&ms| ms > MAX_GRACE_MS) {
            return Err(Failure::usage(format!(
                "--grace-ms {ms} is too long (at most {MAX_GRACE_MS})"
            )));
        }
        Ok(FetchOptions {
            timeout: limits::seconds("--timeout", a.timeout)?,
            total_timeout: limits::seconds("--total-timeout", a.total_timeout)?,
            max_pages: a.max_pages,
            max_line_bytes: a.max_line_bytes,
            max_response_bytes: a.max_response_bytes,
            max_input_bytes: a.max_input_bytes,
            inherit_env: a.inherit_env,
            client_capabilities: Vec::new(),
            jobs: a.jobs,
            grace: a.grace_ms.map(Duration::from_millis),
        })
    }
}

impl FetchOptions {
    /// The MCP client options.
    fn client(&self) -> ClientOptions {
        let mut o = ClientOptions::default();
        if let Some(t) = self.timeout {
            o.request_timeout = t;
        }
        if let Some(t) = self.total_timeout {
            o.total_timeout = t;
        }
        if let Some(n) = self.max_pages {
            o.max_pages = n;
        }
        if let Some(n) = self.max_line_bytes {
            o.max_line_bytes = n;
        }
        if let Some(n) = self.max_response_bytes {
            o.max_response_bytes = n;
        }
        if let Some(n) = self.max_input_bytes {
            o.max_input_bytes = n;
        }
        if let Some(g) = self.grace {
            o.shutdown_grace = g;
        }
        o.inherit_env = self.inherit_env;
        o.client_capabilities = self.client_capabilities.clone();
        o
    }
}

/// Parses `--client-capabilities LIST` (exit 2 on an unknown name).
pub fn client_capabilities(list: Option<&str>) -> Result<Option<Vec<String>>, Failure> {
    list.map(|l| {
        contractpin::lock::parse_client_capabilities(l)
            .map_err(|e| Failure::usage(format!("--client-capabilities: {e}")))
    })
    .transpose()
}

/// Checks a source before anything is fetched (every `${VAR}` set, header
/// names valid, no credentials over plain http to another machine), so a
/// usage problem exits 2 before any server is started.
pub fn check(spec: &ServerSpec) -> Result<(), FetchError> {
    check_spec(spec).map_err(|e| FetchError {
        usage: true,
        message: e.to_string(),
    })
}

/// The spec of a lock entry's source (`ServerSpec::from_source`, the one
/// conversion), with a refused path as a usage error.
pub fn spec(source: &Source, lock: &Path, allow_outside: bool) -> Result<ServerSpec, String> {
    ServerSpec::from_source(source, lock, allow_outside).map_err(|e| e.to_string())
}

/// The result of one fetch.
pub type FetchResult = Result<Fetched, FetchError>;

/// Fetches the tools/list of every `(spec, options)`, up to `jobs` at once
/// (default: one per server, at most [`DEFAULT_JOBS`]), and returns one
/// result per server, in the order given. Exits (128 + its number) on
/// SIGINT, SIGTERM or SIGHUP, after stopping every server.
pub fn fetch_all(list: Vec<(ServerSpec, FetchOptions)>, jobs: Option<usize>) -> Vec<FetchResult> {
    let n = list.len();
    let workers = jobs.unwrap_or(DEFAULT_JOBS).clamp(1, n.max(1));
    let alone = workers == 1;
    contractpin::proxy::install_signal_handlers();
    let queue = Arc::new(Mutex::new(
        list.into_iter().enumerate().collect::<VecDeque<_>>(),
    ));
    let (tx, rx) = mpsc::channel();
    let mut started = 0;
    for _ in 0..workers {
        let (queue, tx) = (Arc::clone(&queue), tx.clone());
        let worker = move || {
            while let Some((i, (spec, opts))) = next_job(&queue) {
                if tx.send((i, fetch(&spec, &opts, alone))).is_err() {
                    return;
                }
            }
        };
        if std::thread::Builder::new()
            .name("fetch".into())
            .spawn(worker)
            .is_ok()
        {
            started += 1;
        }
    }
    drop(tx);
    let mut results: Vec<Option<FetchResult>> = (0..n).map(|_| None).collect();
    if started == 0 {
        // No thread could be started: one after the other, here.
        while let Some((i, (spec, opts))) = next_job(&queue) {
            results[i] = Some(fetch(&spec, &opts, true));
        }
    }
    loop {
        if let Some((signo, name)) = contractpin::proxy::received_signal() {
            interrupted(signo, name);
        }
        match rx.recv_timeout(SIGNAL_POLL) {
            Ok((i, r)) => results[i] = Some(r),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    if !alone {
        let killed = reap_orphans();
        if let Some(w) = orphan_warning(killed, "the stdio servers", "their process groups") {
            output::warning_line(&w);
        }
    }
    results
        .into_iter()
        .map(|r| {
            r.unwrap_or_else(|| {
                Err(FetchError {
                    usage: false,
                    message: "internal error: the fetch ended without a result".into(),
                })
            })
        })
        .collect()
}

fn next_job(
    queue: &Mutex<VecDeque<(usize, (ServerSpec, FetchOptions))>>,
) -> Option<(usize, (ServerSpec, FetchOptions))> {
    queue.lock().unwrap_or_else(|p| p.into_inner()).pop_front()
}

/// Interrupted: stop every server, kill what they left, remove the empty
/// directories made for them ([`neutral_dir::remove_all`]: no destructor
/// runs after `exit`), exit 128 + `signo`.
fn interrupted(signo: i32, name: &str) -> ! {
    let running = stop_all_servers(INTERRUPT_GRACE);
    reap_orphans();
    neutral_dir::remove_all();
    output::error_line(&format!(
        "interrupted by {name}: stopped {running} running server(s); nothing was written"
    ));
    std::process::exit(128 + signo)
}

/// The warning for `n` killed orphans of `whose`, outside `groups`.
fn orphan_warning(n: usize, whose: &str, groups: &str) -> Option<String> {
    (n > 0).then(|| format!("killed {n} process(es) {whose} left running outside {groups}"))
}

/// Fetches the tools/list of `spec`; with `reap`, then kills what a stdio
/// server left outside its process group (attributed to it in a warning).
fn fetch(spec: &ServerSpec, opts: &FetchOptions, reap: bool) -> FetchResult {
    let fetched = fetch_tools_list(spec, &opts.client());
    // Whatever the stdio server left behind outside its process group was
    // re-parented to us (main.rs makes this process a child subreaper).
    let orphans = match spec {
        ServerSpec::Stdio { .. } if reap => reap_orphans(),
        _ => 0,
    };
    match fetched {
        Ok(f) => {
            // The library has redacted its errors and warnings already.
            let facts = f.facts();
            let mut warnings = f.warnings;
            warnings.extend(orphan_warning(orphans, "the server", "its process group"));
            if f.skipped_stdout_lines > 0 {
                warnings.push(format!(
                    "skipped {} non-JSON line{} on the server's stdout",
                    f.skipped_stdout_lines,
                    if f.skipped_stdout_lines == 1 { "" } else { "s" }
                ));
            }
            Ok(Fetched {
                facts,
                document: f.pages,
                warnings,
            })
        }
        Err(e) => Err(FetchError {
            usage: e.is_usage(),
            message: e.to_string(),
        }),
    }
}
