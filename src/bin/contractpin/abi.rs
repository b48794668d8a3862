//! The only module that calls into the library's digest machinery.
//!
//! Every canonicalization, digest and verification the CLI performs goes
//! through here, so that swapping between the Rust API and the C ABI is a
//! local change.

use std::fmt;

use contractpin::lock::Lock;
use contractpin::verify::ServerReport;
use contractpin::{Context, Limits, ListOptions, ServerDigest};

/// A rejection from the core: stable kind name, byte offset, message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreError {
    /// Stable kebab-case kind name, e.g. `duplicate-key`.
    pub kind: String,
    /// Byte offset in the input where the problem was found.
    pub offset: usize,
    /// One-line explanation.
    pub message: String,
}

impl fmt::Display for CoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}: {}", self.kind, self.offset, self.message)
    }
}

impl From<contractpin::Error> for CoreError {
    fn from(e: contractpin::Error) -> Self {
        CoreError {
            kind: e.kind().name().to_string(),
            offset: e.offset(),
            message: e.kind().message().to_string(),
        }
    }
}

/// Limits applied to one document.
#[derive(Debug, Clone, Copy)]
pub struct DocLimits {
    /// Largest input in bytes.
    pub max_input: usize,
    /// Deepest nesting.
    pub max_depth: u32,
    /// Most tools.
    pub max_tools: usize,
}

impl Default for DocLimits {
    fn default() -> Self {
        let d = Limits::DEFAULT;
        DocLimits {
            max_input: d.max_input,
            max_depth: d.max_depth,
            max_tools: d.max_tools,
        }
    }
}

impl DocLimits {
    fn core(&self) -> Limits {
        Limits {
            max_depth: self.max_depth,
            max_input: self.max_input.min(contractpin::MAX_INPUT),
            max_tools: self.max_tools,
        }
    }
}

/// Canonical bytes of any JSON document.
pub fn canonicalize(input: &[u8], limits: &DocLimits) -> Result<Vec<u8>, CoreError> {
    let mut ctx = Context::with_limits(limits.core());
    let mut out = Vec::with_capacity(input.len());
    ctx.canonicalize_to(input, &mut out)?;
    Ok(out)
}

/// Server digest, tool digests and field digests of a tools/list document.
pub fn digest_tools_list(input: &[u8], limits: &DocLimits) -> Result<ServerDigest, CoreError> {
    let mut ctx = Context::with_limits(limits.core());
    Ok(ctx.digest_tools_list_owned(
        input,
        ListOptions {
            field_digests: true,
        },
    )?)
}

/// Why [`verify`] produced no report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VerifyError {
    /// The lock is unusable (exit 2).
    Lock(String),
    /// The server is not in the lock (exit 2).
    UnknownServer,
    /// The live tools list was rejected (the server is unreachable: exit 1).
    Input(CoreError),
}

/// Verifies the live tools list of `server` against the lock's bytes (spec section 6).
pub fn verify(
    lock: &[u8],
    server: &str,
    tools_list: &[u8],
    allow_new: bool,
    limits: &DocLimits,
) -> Result<ServerReport, VerifyError> {
    let lock = Lock::parse(lock).map_err(|e| VerifyError::Lock(e.to_string()))?;
    let pinned = lock.servers.get(server).ok_or(VerifyError::UnknownServer)?;
    let live = digest_tools_list(tools_list, limits).map_err(VerifyError::Input)?;
    Ok(contractpin::verify::verify_server(
        server, pinned, &live, allow_new,
    ))
}
