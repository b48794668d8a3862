//! The MCP client (std): fetches a server's complete `tools/list` over stdio,
//! Streamable HTTP (with fallback to the legacy HTTP+SSE transport), or from
//! a saved file, ready for [`digest_tools_list`](crate::digest_tools_list).
//!
//! ```no_run
//! use contractpin::mcp::{fetch_tools_list, ClientOptions, ServerSpec};
//! let spec = ServerSpec::Stdio {
//!     command: vec!["node".into(), "server.js".into()],
//!     env: Default::default(),
//!     cwd: None,
//! };
//! let fetched = fetch_tools_list(&spec, &ClientOptions::default())?;
//! let digest = contractpin::digest_tools_list(&fetched.pages).expect("valid tools/list");
//! println!("{} ({} tools, {} pages)", digest.digest, digest.tools.len(), fetched.page_count);
//! # Ok::<(), contractpin::mcp::McpError>(())
//! ```
//!
//! What goes over the wire:
//! - handshake: a `server/discover` probe (protocol 2026-07-28); on a
//!   JSON-RPC error or an HTTP 4xx, `initialize` offering 2025-11-25 and
//!   accepting 2024-11-05, 2025-03-26, 2025-06-18 or 2025-11-25, then
//!   `notifications/initialized`; both declare
//!   [`ClientOptions::client_capabilities`] (default `{}`);
//! - pagination: `nextCursor` is followed until absent or null, with the
//!   rules of DESIGN.md for `""`, repeated cursors and duplicate tools;
//! - results are parsed with this crate's strict parser and re-serialized
//!   canonically from its tape (no SDK model, no serde), so nothing a
//!   server sends is dropped or reinterpreted.
//!
//! Secrets: `${VAR}` references in env values, header values and the URL
//! are expanded at connection time. Every env value, header value, URL
//! reference value and URL user information (and their JSON-escaped,
//! percent-encoded and, for user information, base64 forms) is redacted
//! from errors and warnings ([`Secrets`] masks the same values in what the
//! server sent, for reports and lock snapshots). Credentials are never sent
//! over plain `http://` to a host that is not loopback. A stdio server does not
//! inherit our environment: it gets [`DEFAULT_INHERITED_ENV_VARS`] and its
//! `env` (unless [`ClientOptions::inherit_env`]).
//!
//! Processes: a stdio server runs in its own process group, which is
//! signalled at the end however the server ended; [`reap_orphans`] kills
//! what escaped the group, in a process that is a child subreaper.

pub(crate) mod byte_queue;
pub(crate) mod credentials;
pub(crate) mod error;
mod handshake;
pub(crate) mod jsonrpc;
mod listing;
pub(crate) mod options;
mod paginate;
mod reaper;
mod session;
mod spec;
mod stderr_ring;
pub(crate) mod stdio;
pub(crate) mod transport;

#[cfg(feature = "mcp-http")]
pub(crate) mod http;
#[cfg(feature = "mcp-http")]
pub(crate) mod legacy_sse;
#[cfg(feature = "mcp-http")]
mod remote;
#[cfg(feature = "mcp-http")]
pub(crate) mod sse;

use std::collections::BTreeMap;
use std::path::Path;
use std::string::String;
use std::vec::Vec;

pub use credentials::Secrets;
pub use error::{McpError, McpErrorKind};
pub use options::{
    is_supported_protocol_version, ClientOptions, DEFAULT_INHERITED_ENV_VARS,
    LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION,
};
pub use reaper::{become_child_subreaper, reap_orphans, stop_all_servers};
pub use spec::{expand_env, ServerSpec};

use error::redact;
use session::Session;

/// A server's complete `tools/list`, as fetched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fetched {
    /// A JSON array of the page result objects (`[{"tools":[...],...},...]`),
    /// each the canonical JSON of the result as received: the "page
    /// sequence" shape [`digest_tools_list`](crate::digest_tools_list)
    /// accepts. For [`ServerSpec::File`], the file's bytes untouched.
    pub pages: Vec<u8>,
    /// Number of pages fetched (0 for a file).
    pub page_count: usize,
    /// Distinct tool names seen over all pages (0 for a file).
    pub tool_names_seen: usize,
    /// The protocol version used (empty for a file).
    pub protocol_version: String,
    /// `"discover"` (2026-07-28) or `"initialize"` (older versions); `"file"`
    /// for a file.
    pub handshake: &'static str,
    /// Things the user should know that did not prevent the listing (for
    /// example an empty cursor taken to mean "the end").
    pub warnings: Vec<String>,
    /// Lines on a stdio server's stdout that were not JSON-RPC messages.
    pub skipped_stdout_lines: usize,
    /// The transport actually used: `"stdio"`, `"streamable-http"`,
    /// `"legacy-sse"` or `"file"`.
    pub transport: &'static str,
    /// The handshake's `serverInfo` (string `name` and `version`; `None`
    /// for a file, or when the server sent none).
    pub server_info: Option<crate::lock::ServerInfo>,
    /// The handshake's `instructions` text (`None` for a file, or when the
    /// server sent none or not a string).
    pub instructions: Option<String>,
}

impl Fetched {
    /// The handshake facts a lock entry records and `verify` compares
    /// (none for a file).
    pub fn facts(&self) -> crate::lock::ServerFacts {
        crate::lock::ServerFacts {
            server_info: self.server_info.clone(),
            protocol_version: Some(self.protocol_version.clone()).filter(|v| !v.is_empty()),
            instructions: self.instructions.clone(),
        }
    }
}

/// Fetches the complete `tools/list` of a server.
///
/// Every failure is an [`McpError`]; only [`McpErrorKind::EnvVar`] and
/// [`McpErrorKind::Spec`] are usage problems ([`McpError::is_usage`]), all
/// others mean "the server could not be checked". A stdio server is always
/// shut down before this returns.
pub fn fetch_tools_list(spec: &ServerSpec, opts: &ClientOptions) -> Result<Fetched, McpError> {
    crate::lock::normalize_capabilities(&opts.client_capabilities)
        .map_err(|e| McpError::new(McpErrorKind::Spec, e))?;
    match spec {
        ServerSpec::File { path } => read_file(path, opts.max_response_bytes),
        ServerSpec::Stdio { command, env, cwd } => {
            let expanded = expand_stdio_env(env)?;
            let secrets = credentials::stdio_secrets(env, &expanded, opts.inherit_env);
            let mut fetched = fetch_stdio(command, &expanded, cwd.as_deref(), opts)
                .map_err(|e| e.redact(&secrets))?;
            redact_all(&mut fetched.warnings, &secrets);
            Ok(fetched)
        }
        #[cfg(feature = "mcp-http")]
        ServerSpec::Http { url, headers } => {
            let c = credentials::http(url, headers)?;
            let mut fetched =
                remote::fetch(&c.url, &c.headers, opts).map_err(|e| e.redact(&c.secrets))?;
            redact_all(&mut fetched.warnings, &c.secrets);
            Ok(fetched)
        }
        #[cfg(not(feature = "mcp-http"))]
        ServerSpec::Http { .. } => Err(McpError::new(
            McpErrorKind::Spec,
            "this build has no HTTP support (feature `mcp-http`)",
        )),
    }
}

/// Checks a spec without contacting the server: every `${VAR}` is set,
/// header names are valid, and credentials would not travel over plain
/// `http://` to another machine. [`fetch_tools_list`] does the same checks;
/// calling this first lets a caller with several servers refuse a usage
/// problem before it starts any of them. Only usage errors
/// ([`McpError::is_usage`]) are returned.
pub fn check_spec(spec: &ServerSpec) -> Result<(), McpError> {
    match spec {
        ServerSpec::File { .. } => Ok(()),
        ServerSpec::Stdio { env, .. } => expand_stdio_env(env).map(|_| ()),
        ServerSpec::Http { url, headers } => credentials::http(url, headers).map(|_| ()),
    }
}

/// Every `${VAR}` of a stdio server's env expanded (usage error otherwise).
pub(crate) fn expand_stdio_env(
    env: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>, McpError> {
    let mut expanded = BTreeMap::new();
    for (k, v) in env {
        let x =
            expand_env(v).map_err(|e| e.context(&std::format!("env {}", error::one_line(k))))?;
        expanded.insert(k.clone(), x);
    }
    Ok(expanded)
}

pub(crate) fn redact_all(warnings: &mut [String], secrets: &[String]) {
    for w in warnings {
        *w = redact(w, secrets);
    }
}

fn fetch_stdio(
    command: &[String],
    env: &BTreeMap<String, String>,
    cwd: Option<&Path>,
    opts: &ClientOptions,
) -> Result<Fetched, McpError> {
    let mut s = Session::new(opts);
    let cwd = cwd.map(Path::to_path_buf);
    let mut t = stdio::StdioTransport::spawn(command, env, cwd.as_ref(), opts)?;
    let listing = listing::run(&mut t, &mut s);
    let ended = t.shutdown();
    if ended == stdio::Ended::Killed {
        s.warnings.push(String::from(
            "the server ignored both the end of its stdin and SIGTERM, and was killed",
        ));
    }
    // Every failure shows what the server said on stderr.
    let listing = listing.map_err(|e| match e.stderr_tail() {
        Some(_) => e,
        None => e.with_stderr(t.stderr_tail()),
    })?;
    Ok(Fetched {
        pages: listing.pages,
        page_count: listing.page_count,
        tool_names_seen: listing.tool_names_seen,
        protocol_version: listing.protocol_version,
        handshake: listing.handshake,
        warnings: s.warnings,
        skipped_stdout_lines: transport::Transport::skipped_lines(&t),
        transport: "stdio",
        server_info: listing.server_info,
        instructions: listing.instructions,
    })
}

fn read_file(path: &Path, max: usize) -> Result<Fetched, McpError> {
    let io = |e: std::io::Error| {
        McpError::new(
            McpErrorKind::Io,
            std::format!("cannot read {}: {e}", path.display()),
        )
        .caused_by(e)
    };
    let pages = match crate::fs::read_regular_file(path, max as u64) {
        Ok(p) => p,
        Err(crate::fs::ReadFileError::Io(e)) => return Err(io(e)),
        Err(crate::fs::ReadFileError::TooLarge(_)) => {
            return Err(McpError::new(
                McpErrorKind::ResponseTooLarge,
                std::format!(
                    "{} is larger than {max} bytes (the response size limit)",
                    path.display()
                ),
            ))
        }
        Err(e) => {
            return Err(McpError::new(
                McpErrorKind::Io,
                std::format!("cannot read {}: {e}", path.display()),
            ))
        }
    };
    Ok(Fetched {
        pages,
        page_count: 0,
        tool_names_seen: 0,
        protocol_version: String::new(),
        handshake: "file",
        warnings: Vec::new(),
        skipped_stdout_lines: 0,
        transport: "file",
        server_info: None,
        instructions: None,
    })
}
