//! The only module that calls into the library's digest machinery.
//!
//! Every canonicalization, digest and verification the CLI performs goes
//! through here, so that swapping between the Rust API and the C ABI is a
//! local change.

use std::fmt;

use contractpin::{Context, Limits, ListOptions};

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

/// One tool of a digested tools/list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolEntry {
    /// Tool name.
    pub name: String,
    /// `sha256:<hex>` tool digest.
    pub digest: String,
    /// `(field name, sha256:<hex>)` in canonical order.
    pub fields: Vec<(String, String)>,
}

/// A digested tools/list: the lock's server entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerEntry {
    /// `sha256:<hex>` server digest.
    pub digest: String,
    /// Tools in canonical name order.
    pub tools: Vec<ToolEntry>,
}

/// Canonical bytes of any JSON document.
pub fn canonicalize(input: &[u8], limits: &DocLimits) -> Result<Vec<u8>, CoreError> {
    let mut ctx = Context::with_limits(limits.core());
    let mut out = Vec::with_capacity(input.len());
    ctx.canonicalize_to(input, &mut out)?;
    Ok(out)
}

/// Server digest, tool digests and field digests of a tools/list document.
pub fn digest_tools_list(input: &[u8], limits: &DocLimits) -> Result<ServerEntry, CoreError> {
    let mut ctx = Context::with_limits(limits.core());
    let server = ctx.digest_tools_list_owned(
        input,
        ListOptions {
            field_digests: true,
        },
    )?;
    Ok(ServerEntry {
        digest: server.digest.to_string(),
        tools: server
            .tools
            .into_iter()
            .map(|t| ToolEntry {
                name: t.name,
                digest: t.digest.to_string(),
                fields: t
                    .fields
                    .iter()
                    .map(|(f, d)| (f.name().to_string(), d.to_string()))
                    .collect(),
            })
            .collect(),
    })
}
