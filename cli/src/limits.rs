//! What the limit flags mean: the one place that turns `--max-input-bytes`,
//! `--max-depth` and `--max-tools` into [`contractpin::Limits`], and that
//! checks the flags that must be at least 1 and the ones given in seconds.
//! Every command (`digest`, `canon`, `init`, `verify`, `approve`, `proxy`)
//! goes through it, so a flag means the same under every command.

use std::time::Duration;

use contractpin::{Limits, MAX_INPUT};

use crate::args::{DocLimitArgs, FetchLimitArgs, ProxyArgs};
use crate::fail::Failure;

/// The document limits: the defaults, with each given flag applied
/// (`--max-input-bytes` capped at the library's `MAX_INPUT`).
pub fn document(
    max_input: Option<usize>,
    max_depth: Option<u32>,
    max_tools: Option<usize>,
) -> Limits {
    let mut l = Limits::DEFAULT;
    if let Some(n) = max_input {
        l.max_input = n.min(MAX_INPUT);
    }
    if let Some(n) = max_depth {
        l.max_depth = n;
    }
    if let Some(n) = max_tools {
        l.max_tools = n;
    }
    l
}

impl DocLimitArgs {
    /// The document limits, with `max_tools` from the command's own flag.
    pub fn limits(&self, max_tools: Option<usize>) -> Limits {
        document(self.max_input_bytes, self.max_depth, max_tools)
    }
}

impl FetchLimitArgs {
    /// The document limits of each fetched tools/list.
    pub fn limits(&self) -> Limits {
        document(self.max_input_bytes, self.max_depth, self.max_tools)
    }
}

impl ProxyArgs {
    /// The document limits of each tools/list page the proxy checks.
    pub fn limits(&self) -> Limits {
        document(self.max_input_bytes, self.max_depth, self.max_tools)
    }
}

/// A usage error (exit 2) for the first flag given as 0.
pub fn at_least_one(flags: &[(&str, Option<usize>)]) -> Result<(), Failure> {
    match flags.iter().find(|(_, v)| *v == Some(0)) {
        Some((flag, _)) => Err(Failure::usage(format!("{flag} must be at least 1"))),
        None => Ok(()),
    }
}

/// A flag given in seconds (fractions allowed): positive, finite and in range.
pub fn seconds(flag: &str, v: Option<f64>) -> Result<Option<Duration>, Failure> {
    match v {
        None => Ok(None),
        Some(s) if s.is_finite() && s > 0.0 => Duration::try_from_secs_f64(s)
            .map(Some)
            .map_err(|_| Failure::usage(format!("{flag} {s:e} is out of range"))),
        Some(s) => Err(Failure::usage(format!(
            "{flag} must be a positive number of seconds (got {s})"
        ))),
    }
}
