//! Fetching a server's tools/list (through `contractpin::mcp`).

use std::path::Path;
use std::time::Duration;

use contractpin::lock::{ServerFacts, Source};
use contractpin::mcp::{check_spec, fetch_tools_list, reap_orphans, ClientOptions, ServerSpec};

use crate::args::FetchLimitArgs;
use crate::fail::Failure;

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
}

fn seconds(flag: &str, v: Option<f64>) -> Result<Option<Duration>, Failure> {
    match v {
        None => Ok(None),
        Some(s) if s.is_finite() && s > 0.0 => Duration::try_from_secs_f64(s)
            .map(Some)
            .map_err(|_| Failure::usage(format!("{flag} {s} is out of range"))),
        Some(s) => Err(Failure::usage(format!(
            "{flag} must be a positive number of seconds (got {s})"
        ))),
    }
}

impl FetchOptions {
    /// Validates the limit flags.
    pub fn from_args(a: &FetchLimitArgs) -> Result<FetchOptions, Failure> {
        for (flag, v) in [
            ("--max-pages", a.max_pages),
            ("--max-line-bytes", a.max_line_bytes),
            ("--max-response-bytes", a.max_response_bytes),
            ("--max-tools", a.max_tools),
        ] {
            if v == Some(0) {
                return Err(Failure::usage(format!("{flag} must be at least 1")));
            }
        }
        Ok(FetchOptions {
            timeout: seconds("--timeout", a.timeout)?,
            total_timeout: seconds("--total-timeout", a.total_timeout)?,
            max_pages: a.max_pages,
            max_line_bytes: a.max_line_bytes,
            max_response_bytes: a.max_response_bytes,
            max_input_bytes: a.max_input_bytes,
            inherit_env: a.inherit_env,
            client_capabilities: Vec::new(),
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

/// Fetches the tools/list of `spec`.
pub fn fetch(spec: &ServerSpec, opts: &FetchOptions) -> Result<Fetched, FetchError> {
    let fetched = fetch_tools_list(spec, &opts.client());
    // Whatever the stdio server left behind outside its process group was
    // re-parented to us (main.rs makes this process a child subreaper).
    let orphans = match spec {
        ServerSpec::Stdio { .. } => reap_orphans(),
        _ => 0,
    };
    match fetched {
        Ok(f) => {
            // The library has redacted its errors and warnings already.
            let facts = f.facts();
            let mut warnings = f.warnings;
            if orphans > 0 {
                warnings.push(format!(
                    "killed {orphans} process(es) the server left running outside its process group"
                ));
            }
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
