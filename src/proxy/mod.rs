//! The run-time proxy (feature `std`): `contractpin proxy` sits between an
//! MCP client (stdio, newline-delimited JSON-RPC) and the server pinned in a
//! lock, passes every message through, and checks each `tools/list` result
//! against the pins with [`crate::guard::guard_page`], the same decision the
//! C ABI and the bindings make.
//!
//! Why at run time: `verify` in CI sees what a server shows *contractpin*.
//! A hostile server can cloak (serve the pinned contracts when
//! `clientInfo.name` says contractpin, poisoned ones to the real client) or
//! swap a tool mid-session and send `notifications/tools/list_changed`. The
//! proxy forwards the client's own `initialize`, so the server sees the real
//! client, and checks every listing the client gets.
//!
//! What it does (the decisions on each message are the core's
//! [`crate::guard::session::Session`], `src/guard/session/`, which an
//! embedding client runs too through the C ABI's `contractpin_enforcer_*`;
//! `src/proxy/enforce.rs` shares one session between the two directions):
//!
//! - every message passes through untouched in both directions (requests,
//!   responses, notifications, the server's requests such as sampling,
//!   elicitation and roots and their answers, progress, cancellation),
//!   except what follows;
//! - each `tools/list` result page is guarded: in [`GuardMode::Enforce`]
//!   drifted and unpinned tools are removed from it ([`OnDrift::Hide`]) or
//!   the whole answer becomes a JSON-RPC error ([`OnDrift::Block`]); in
//!   [`GuardMode::Observe`] it is kept; each event is one JSON line in the
//!   log;
//! - a `tools/call` for a tool the latest checked listing did not pass
//!   (before any listing, and after `notifications/tools/list_changed`
//!   until the next one, no tool passes) is answered by the proxy with
//!   `-32602 Unknown tool: NAME` and never forwarded (enforce mode);
//! - the `instructions` of the server's handshake result (`initialize` or
//!   `server/discover`) are compared with the lock's `instructions_digest`:
//!   drifted or added ones are removed from the result in enforce mode
//!   (the whole answer becomes an error with [`OnDrift::Block`]), kept and
//!   logged in observe mode;
//! - a page the guard rejects is an error for the client (fail closed);
//!   a server line that is not a JSON-RPC message is dropped and logged.
//!
//! Threads and queues: `src/proxy/pump.rs`. The upstreams: `src/proxy/stdio.rs`,
//! `src/proxy/http.rs` (Streamable HTTP, falling back to legacy HTTP+SSE as
//! `verify` does) and `src/proxy/legacy_sse.rs`.
//! The event log format: `src/proxy/log.rs` (and `contractpin proxy --help`).

mod enforce;
/// The fuzz target's and the property test's check of whole sessions (not
/// part of the API: built only for them).
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod fuzzing;
#[cfg(feature = "mcp-http")]
pub(crate) mod http;
mod log;
mod pump;
mod signals;
mod stdio;
#[cfg(feature = "mcp-http")]
#[doc(hidden)]
pub use http::testing;
#[cfg(feature = "mcp-http")]
pub(crate) mod legacy_sse;
pub(crate) mod upstream;

use std::boxed::Box;
use std::io::{Read, Write};
use std::string::String;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::vec::Vec;

use crate::guard::GuardMode;
use crate::lock::LockServer;
use crate::mcp::{ClientOptions, McpError, McpErrorKind, ServerSpec};
use crate::Limits;

pub use signals::install_signal_handlers;

/// The signal (number and name, `"SIGINT"`) received since
/// [`install_signal_handlers`], if any: for a program other than the proxy
/// that installs them too (the CLI's `verify` and `init`, which stop their
/// servers and exit when interrupted).
pub fn received_signal() -> Option<(i32, &'static str)> {
    signals::received().map(|n| (n, signals::name(n)))
}

use upstream::Upstream;

pub use crate::guard::session::OnDrift;

/// How the proxy runs.
#[derive(Clone, Debug)]
pub struct ProxyOptions {
    /// The server's name in the lock (in log lines and messages).
    pub server_name: String,
    /// Enforce (the default) or observe.
    pub mode: GuardMode,
    /// With [`GuardMode::Enforce`]: hide (the default) or block.
    pub on_drift: OnDrift,
    /// Limits for checking one `tools/list` page (size, depth, tools).
    pub limits: Limits,
    /// Do not compare the handshake's `instructions` with the lock's
    /// `instructions_digest` (`--ignore-instructions`, as for verify). Without
    /// it, instructions from a server whose entry pins none are *added*
    /// and, in enforce mode, removed.
    pub ignore_instructions: bool,
    /// The connection to the server: `max_line_bytes` (also the limit on
    /// the client's lines), `request_timeout` (the longest wait for the
    /// server to take a message), `shutdown_grace`, `inherit_env`.
    pub client: ClientOptions,
}

impl ProxyOptions {
    /// Enforce and hide, default limits, for the server `name`.
    pub fn new(name: &str) -> ProxyOptions {
        ProxyOptions {
            server_name: String::from(name),
            mode: GuardMode::Enforce,
            on_drift: OnDrift::Hide,
            limits: Limits::DEFAULT,
            ignore_instructions: false,
            client: ClientOptions::default(),
        }
    }
}

/// How a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The client ended it: the end of the proxy's stdin, or its stdout
    /// closed. Exit code 0.
    ClientClosed,
    /// SIGTERM, SIGINT or SIGHUP (after [`install_signal_handlers`]). Exit 0.
    Signal(i32),
    /// The server could not be started. Exit 1.
    ServerNotStarted,
    /// The server ended or failed while the client was connected: it
    /// exited, closed its stdout, wrote a line over the limit, or stopped
    /// reading its stdin. Exit 1.
    ServerFailed,
    /// The client wrote a line over the limit, or its stdin failed. Exit 1.
    ClientFailed,
}

/// The end of a session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// How it ended.
    pub ending: Ending,
    /// Why, for the user (secrets masked).
    pub message: String,
    /// Server lines dropped because they were not JSON-RPC messages.
    pub skipped_server_lines: usize,
}

impl Outcome {
    /// 0 when the client ended the session, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self.ending {
            Ending::ClientClosed | Ending::Signal(_) => 0,
            _ => 1,
        }
    }
}

/// The chain of stdio servers the proxies above this process started:
/// each proxy passes to its server this variable with the identity of the
/// server's spec (a digest of its command and directory) added, and
/// refuses to start a spec already in it. A lock whose command for a server is `contractpin proxy` for that
/// same server (after `init --from` of a wrapped configuration, say), or a
/// longer cycle, would otherwise start proxies without end; a proxy
/// started by a proxy for another server (an agent served through a proxy
/// that runs its own) is fine.
pub const NESTED_ENV: &str = "CONTRACTPIN_PROXY_CHAIN";

/// Checks that `spec` can be proxied without starting anything: a stdio
/// server with every `${VAR}` of its env set, not already started by a
/// proxy above this one ([`NESTED_ENV`]). A usage error otherwise.
pub fn check(spec: &ServerSpec) -> Result<(), McpError> {
    refuse_nested(spec)?;
    connect(spec, &ClientOptions::default(), &Arc::default()).map(|_| ())
}

/// A short identity of a stdio server's spec (its command and directory):
/// hex of the first 8 bytes of their SHA-256.
fn spec_id(command: &[String], cwd: Option<&std::path::PathBuf>) -> String {
    let mut h = crate::sha256::Sha256::new();
    for part in command {
        h.update(part.as_bytes());
        h.update(&[0]);
    }
    if let Some(dir) = cwd {
        h.update(dir.to_string_lossy().as_bytes());
    }
    h.finalize()[..8]
        .iter()
        .map(|b| std::format!("{b:02x}"))
        .collect()
}

/// [`NESTED_ENV`] for the server of `spec`: the chain so far, then its id.
fn chain_for(command: &[String], cwd: Option<&std::path::PathBuf>) -> String {
    let id = spec_id(command, cwd);
    match std::env::var(NESTED_ENV) {
        Ok(chain) if !chain.is_empty() => std::format!("{chain}:{id}"),
        _ => id,
    }
}

fn refuse_nested(spec: &ServerSpec) -> Result<(), McpError> {
    let ServerSpec::Stdio { command, cwd, .. } = spec else {
        return Ok(());
    };
    let chain = std::env::var(NESTED_ENV).unwrap_or_default();
    let id = spec_id(command, cwd.as_ref());
    if !chain.split(':').any(|c| c == id) {
        return Ok(());
    }
    Err(McpError::new(
        McpErrorKind::Spawn,
        std::format!(
            "a contractpin proxy above this one already started this server ({NESTED_ENV} holds \
             its id {id}): the lock's command for it runs the proxy again, which would start \
             proxies without end; pin the server the proxy wraps (contractpin unwrap the \
             configuration, then init --from it)"
        ),
    ))
}

/// Runs one proxy session: starts the server of `spec`, relays the client's
/// messages from `client_in` to it and its messages to `client_out`,
/// enforcing `pinned`, with event lines to `log`. Returns when the session
/// ends; the server has been shut down by then.
///
/// `Err` is a usage problem found before anything started (see [`check`]).
pub fn run<R, W>(
    spec: &ServerSpec,
    pinned: &LockServer,
    opts: &ProxyOptions,
    client_in: R,
    client_out: W,
    log: Box<dyn Write + Send>,
) -> Result<Outcome, McpError>
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    refuse_nested(spec)?;
    // Set by the pump at the end of the session (see `pump::run`).
    let stop = Arc::new(AtomicBool::new(false));
    let (upstream, secrets) = connect(spec, &opts.client, &stop)?;
    let policy = enforce::Policy {
        server: opts.server_name.clone(),
        pinned: pinned.clone(),
        mode: opts.mode,
        on_drift: opts.on_drift,
        limits: opts.limits,
        check_instructions: !opts.ignore_instructions,
        // The reader already bounds each line (and each HTTP message).
        max_message: opts
            .client
            .max_line_bytes
            .max(opts.client.max_response_bytes),
    };
    let event_log = log::EventLog::new(log, secrets);
    let enforcer = Arc::new(enforce::Enforcer::new(policy, event_log));
    let max_line = opts.client.max_line_bytes;
    let (ending, message) = pump::run(
        upstream,
        enforcer.clone(),
        client_in,
        client_out,
        max_line,
        &stop,
    );
    enforcer.finish();
    Ok(Outcome {
        ending,
        message: enforcer.log().mask(&message),
        skipped_server_lines: enforcer.skipped(),
    })
}

/// The upstream for `spec` (not started) and the secrets to mask; `stop`
/// is the pump's end-of-session flag (for stdio).
fn connect(
    spec: &ServerSpec,
    opts: &ClientOptions,
    stop: &Arc<AtomicBool>,
) -> Result<(Box<dyn Upstream>, Vec<String>), McpError> {
    match spec {
        ServerSpec::Stdio { command, env, cwd } => {
            if command.is_empty() {
                return Err(McpError::new(
                    McpErrorKind::Spec,
                    "the stdio server command is empty",
                ));
            }
            let expanded = crate::mcp::expand_stdio_env(env)?;
            let secrets = crate::mcp::credentials::stdio_secrets(env, &expanded, opts.inherit_env);
            let mut expanded = expanded;
            expanded.insert(String::from(NESTED_ENV), chain_for(command, cwd.as_ref()));
            let up = stdio::StdioUpstream::new(
                command.clone(),
                expanded,
                cwd.clone(),
                opts.clone(),
                stop.clone(),
            );
            Ok((Box::new(up), secrets))
        }
        #[cfg(feature = "mcp-http")]
        ServerSpec::Http { url, headers } => {
            // The same expansion, plain-http rule and redaction list as verify.
            let creds = crate::mcp::credentials::http(url, headers)?;
            let secrets = creds.secrets.clone();
            Ok((http::connect_http(creds, opts)?, secrets))
        }
        #[cfg(not(feature = "mcp-http"))]
        ServerSpec::Http { .. } => Err(McpError::new(
            McpErrorKind::Spec,
            "this build has no HTTP support (feature `mcp-http`)",
        )),
        ServerSpec::File { .. } => Err(McpError::new(
            McpErrorKind::Spec,
            "a file entry is a saved tools/list, not a server: there is nothing to proxy",
        )),
    }
}
