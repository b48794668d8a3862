//! Fetching a server's tools/list (through `contractpin::mcp`).

use std::path::PathBuf;
use std::time::Duration;

use contractpin::mcp::{expand_env, fetch_tools_list, ClientOptions, ServerSpec};

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
        o
    }
}

/// Checks every `${VAR}` reference of a source before anything is fetched,
/// so a missing variable is a usage error (exit 2) that names the variable.
pub fn check_references(source: &CliSource) -> Result<(), FetchError> {
    let values: Vec<(&str, &str)> = match source {
        CliSource::Stdio { env, .. } => env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect(),
        CliSource::Http { headers, .. } => headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect(),
        CliSource::File { .. } => Vec::new(),
    };
    for (key, value) in values {
        if let Err(e) = expand_env(value) {
            return Err(FetchError {
                usage: true,
                message: format!("{key}: {}", e.message()),
            });
        }
    }
    Ok(())
}

/// Every value that must never be printed: env values (literal or
/// expanded) and header values (expanded).
pub fn secrets_of(source: &CliSource) -> Vec<String> {
    let mut out = Vec::new();
    let raw: Vec<&String> = match source {
        CliSource::Stdio { env, .. } => env.values().collect(),
        CliSource::Http { headers, .. } => headers.iter().map(|(_, v)| v).collect(),
        CliSource::File { .. } => Vec::new(),
    };
    for v in raw {
        let expanded = expand_env(v).unwrap_or_else(|_| v.clone());
        for s in [expanded.clone(), v.clone()] {
            // Short values ("1", "debug") cannot be told apart from ordinary text.
            if s.len() >= 6 && !s.contains("${") {
                out.push(s);
            }
        }
        // A header such as "Bearer <token>": the token alone is secret too.
        for word in expanded.split_whitespace() {
            if word.len() >= 8 {
                out.push(word.to_string());
            }
        }
    }
    // User information in a URL (`https://user:password@host/`).
    if let CliSource::Http { url, .. } = source {
        if let Some(rest) = url.split_once("://").map(|(_, r)| r) {
            let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
            if let Some((userinfo, _)) = authority.rsplit_once('@') {
                if !userinfo.is_empty() {
                    out.push(userinfo.to_string());
                }
                if let Some((_, password)) = userinfo.split_once(':') {
                    if password.len() >= 4 {
                        out.push(password.to_string());
                    }
                }
            }
        }
    }
    out.sort_by_key(|s| std::cmp::Reverse(s.len()));
    out.dedup();
    out
}

/// Replaces every secret in `text` with `***`, in its literal and its
/// escaped form (server text is escaped before it gets here: a `\` in a
/// token shows as `\\`).
pub fn redact(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_string();
    for s in secrets {
        for form in [s.clone(), contractpin::escape::escape(s)] {
            if out.contains(form.as_str()) {
                out = out.replace(form.as_str(), "***");
            }
        }
    }
    out
}

/// Fetches the tools/list of `source`. Relative paths are already resolved.
pub fn fetch(source: &CliSource, opts: &FetchOptions) -> Result<Fetched, FetchError> {
    check_references(source)?;
    let secrets = secrets_of(source);
    let spec = match source {
        CliSource::Stdio { command, env, cwd } => ServerSpec::Stdio {
            command: command.clone(),
            env: env.clone(),
            cwd: cwd.as_ref().map(PathBuf::from),
        },
        CliSource::Http { url, headers } => ServerSpec::Http {
            url: url.clone(),
            headers: headers.clone(),
        },
        CliSource::File { path } => ServerSpec::File {
            path: PathBuf::from(path),
        },
    };
    match fetch_tools_list(&spec, &opts.client()) {
        Ok(f) => {
            let mut warnings: Vec<String> =
                f.warnings.iter().map(|w| redact(w, &secrets)).collect();
            if f.skipped_stdout_lines > 0 {
                warnings.push(format!(
                    "skipped {} non-JSON line{} on the server's stdout",
                    f.skipped_stdout_lines,
                    if f.skipped_stdout_lines == 1 { "" } else { "s" }
                ));
            }
            Ok(Fetched {
                document: f.pages,
                warnings,
            })
        }
        Err(e) => Err(FetchError {
            usage: e.is_usage(),
            message: redact(&e.to_string(), &secrets),
        }),
    }
}
