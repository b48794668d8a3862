//! Fetching a server's tools/list (through `contractpin::mcp`).

use std::path::Path;
use std::time::Duration;

use crate::args::FetchLimitArgs;
use crate::fail::Failure;
use crate::source::CliSource;

/// A fetched tools/list, ready for the digest.
#[derive(Debug)]
pub struct Fetched {
    /// A tools/list document in a shape the core accepts.
    pub document: Vec<u8>,
    /// Warnings from the client (skipped junk lines, a legacy end cursor, ...).
    pub warnings: Vec<String>,
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
    /// Largest document accepted (file transport).
    pub max_input: usize,
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
    pub fn from_args(a: &FetchLimitArgs, max_input: usize) -> Result<FetchOptions, Failure> {
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
            max_input,
            timeout: seconds("--timeout", a.timeout)?,
            total_timeout: seconds("--total-timeout", a.total_timeout)?,
            max_pages: a.max_pages,
            max_line_bytes: a.max_line_bytes,
            max_response_bytes: a.max_response_bytes,
        })
    }
}

/// Fetches the tools/list of `source`. Relative paths are already resolved.
pub fn fetch(source: &CliSource, opts: &FetchOptions) -> Result<Fetched, FetchError> {
    match source {
        CliSource::File { path } => {
            let doc = crate::input::read_document(Some(Path::new(path)), opts.max_input).map_err(
                |f| FetchError {
                    usage: false,
                    message: f.message,
                },
            )?;
            Ok(Fetched {
                document: doc,
                warnings: Vec::new(),
            })
        }
        _ => Err(FetchError {
            usage: true,
            message: "only the file transport is available in this build yet".into(),
        }),
    }
}
