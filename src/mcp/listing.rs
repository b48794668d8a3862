//! One exchange with a server over any transport: the handshake, then every
//! page of `tools/list`. It sits above `handshake` and `paginate`, which
//! share the exchange's state (`session::Session`) but not each other.

use std::string::String;
use std::vec::Vec;

use super::error::McpError;
use super::session::Session;
use super::transport::Transport;
use super::{handshake, paginate};
use crate::lock::ServerInfo;

/// What [`run`] produced.
pub(crate) struct Listing {
    /// A JSON array of the canonical page results.
    pub pages: Vec<u8>,
    /// Number of pages in `pages`.
    pub page_count: usize,
    /// Distinct tool names seen.
    pub tool_names_seen: usize,
    /// The protocol version in use.
    pub protocol_version: String,
    /// `"discover"` or `"initialize"`.
    pub handshake: &'static str,
    /// The handshake's `serverInfo`.
    pub server_info: Option<ServerInfo>,
    /// The handshake's `instructions`.
    pub instructions: Option<String>,
}

/// Handshake, then all pages of `tools/list`.
pub(crate) fn run(t: &mut dyn Transport, s: &mut Session<'_>) -> Result<Listing, McpError> {
    let neg = handshake::handshake(t, s)?;
    let pages = paginate::list_tools(t, s, &neg)?;
    Ok(Listing {
        pages: pages.json,
        page_count: pages.count,
        tool_names_seen: pages.names,
        protocol_version: neg.version,
        handshake: neg.handshake,
        server_info: neg.server_info,
        instructions: neg.instructions,
    })
}
