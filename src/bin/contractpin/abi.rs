//! The only module that calls into the library's digest machinery, and it
//! does so through the C ABI (`contractpin::ffi`), exactly as a C, Go or
//! Python client would: caller buffers with a retry on
//! `OUTPUT_TOO_SMALL`, library-allocated results released with their
//! `*_free` function, statuses and byte offsets through out-parameters.
//! Every CLI run therefore exercises the ABI.

use std::fmt;
use std::ptr;

use contractpin::ffi::{
    contractpin_canonicalize_with_limits, contractpin_digest_tools_list_with_limits,
    contractpin_limits, contractpin_report, contractpin_report_free, contractpin_server,
    contractpin_server_free, contractpin_status, contractpin_verify_with_limits,
    CONTRACTPIN_VERIFY_ALLOW_NEW,
};
use contractpin::verify::ServerReport;
use contractpin::{Limits, ServerDigest};

/// A rejection from the core: stable kind name, byte offset, message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreError {
    /// Stable kebab-case kind name, e.g. `duplicate-key`.
    pub kind: &'static str,
    /// Byte offset in the input where the problem was found.
    pub offset: usize,
    /// One-line explanation.
    pub message: &'static str,
}

impl fmt::Display for CoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}: {}", self.kind, self.offset, self.message)
    }
}

impl CoreError {
    fn from_status(status: contractpin_status, offset: usize) -> CoreError {
        // Input errors carry the core's kind (same number, name and message);
        // anything else (a bug at the boundary) keeps the status's own text.
        match status.error_kind() {
            Some(kind) => CoreError {
                kind: kind.name(),
                offset,
                message: kind.message(),
            },
            None => CoreError {
                kind: status.name(),
                offset,
                message: status.message(),
            },
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
    fn ffi(&self) -> contractpin_limits {
        contractpin_limits {
            max_depth: self.max_depth,
            max_input: self.max_input.min(contractpin::MAX_INPUT),
            max_tools: self.max_tools,
        }
    }
}

/// Canonical bytes of any JSON document (`contractpin_canonicalize_with_limits`).
pub fn canonicalize(input: &[u8], limits: &DocLimits) -> Result<Vec<u8>, CoreError> {
    let lim = limits.ffi();
    // Canonical output is usually no longer than the input; a too-small
    // buffer reports the size needed and the call is repeated once.
    let mut cap = input.len() + 64;
    for _ in 0..2 {
        let mut out = vec![0u8; cap];
        let mut out_len = 0usize;
        let mut offset = 0usize;
        // SAFETY: `input` is valid for `input.len()` bytes, `lim` is a live
        // struct, `out` is valid for writing `cap` bytes, and both
        // out-parameters point to live `usize`s.
        let status = unsafe {
            contractpin_canonicalize_with_limits(
                input.as_ptr(),
                input.len(),
                &lim,
                out.as_mut_ptr(),
                cap,
                &mut out_len,
                &mut offset,
            )
        };
        match status {
            contractpin_status::Ok => {
                out.truncate(out_len);
                return Ok(out);
            }
            contractpin_status::OutputTooSmall if out_len > cap => cap = out_len,
            other => return Err(CoreError::from_status(other, offset)),
        }
    }
    Err(CoreError::from_status(contractpin_status::Panic, 0))
}

/// Server digest, tool digests and field digests of a tools/list document
/// (`contractpin_digest_tools_list_with_limits`).
pub fn digest_tools_list(input: &[u8], limits: &DocLimits) -> Result<ServerDigest, CoreError> {
    let lim = limits.ffi();
    let mut server: *mut contractpin_server = ptr::null_mut();
    let mut offset = 0usize;
    // SAFETY: `input` is valid for its length, `lim` is live, `server` and
    // `offset` are live out-parameters.
    let status = unsafe {
        contractpin_digest_tools_list_with_limits(
            input.as_ptr(),
            input.len(),
            &lim,
            &mut server,
            &mut offset,
        )
    };
    if status != contractpin_status::Ok || server.is_null() {
        return Err(CoreError::from_status(status, offset));
    }
    // SAFETY: on success `server` is a live object owned by us until freed.
    let digest = unsafe { (*server).as_server_digest().clone() };
    // SAFETY: `server` came from the call above and is freed exactly once.
    unsafe { contractpin_server_free(server) };
    Ok(digest)
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

/// Verifies the live tools list of `server` against the lock's bytes (spec
/// section 6), through `contractpin_verify_with_limits`.
pub fn verify(
    lock: &[u8],
    server: &str,
    tools_list: &[u8],
    allow_new: bool,
    limits: &DocLimits,
) -> Result<ServerReport, VerifyError> {
    let lim = limits.ffi();
    let flags = if allow_new {
        CONTRACTPIN_VERIFY_ALLOW_NEW
    } else {
        0
    };
    let mut report: *mut contractpin_report = ptr::null_mut();
    let mut offset = 0usize;
    // SAFETY: every buffer is valid for its length, `lim` is live, and
    // `report` and `offset` are live out-parameters.
    let status = unsafe {
        contractpin_verify_with_limits(
            lock.as_ptr(),
            lock.len(),
            server.as_ptr(),
            server.len(),
            tools_list.as_ptr(),
            tools_list.len(),
            flags,
            &lim,
            &mut report,
            &mut offset,
        )
    };
    if status == contractpin_status::Ok && !report.is_null() {
        // SAFETY: on success `report` is a live object owned by us until freed.
        let result = unsafe { (*report).as_server_report().clone() };
        // SAFETY: `report` came from the call above and is freed exactly once.
        unsafe { contractpin_report_free(report) };
        return Ok(result);
    }
    let code = status as u32;
    Err(match status {
        contractpin_status::LockUnknownServer => VerifyError::UnknownServer,
        _ if (64..100).contains(&code) => VerifyError::Lock(match status {
            contractpin_status::LockSyntax => {
                format!("{} at byte {offset}: {}", status.name(), status.message())
            }
            _ => format!("{}: {}", status.name(), status.message()),
        }),
        _ => VerifyError::Input(CoreError::from_status(status, offset)),
    })
}
