//! Client options: timeouts, limits, identity.

use std::string::String;
use std::time::Duration;
use std::vec::Vec;

/// The protocol version of the `server/discover` generation.
pub const MODERN_PROTOCOL_VERSION: &str = "2026-07-28";

/// The `initialize`-generation protocol versions this client accepts, oldest first.
pub const LEGACY_PROTOCOL_VERSIONS: [&str; 4] =
    ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// Whether `v` is a protocol version this client can speak.
pub fn is_supported_protocol_version(v: &str) -> bool {
    v == MODERN_PROTOCOL_VERSION || LEGACY_PROTOCOL_VERSIONS.contains(&v)
}

/// How [`fetch_tools_list`](super::fetch_tools_list) talks to a server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientOptions {
    /// Longest wait for the answer to one request. Default 30 s.
    pub request_timeout: Duration,
    /// Longest time for the whole exchange, from start to the last page
    /// (shutting a stdio server down comes on top, at most twice
    /// [`shutdown_grace`](Self::shutdown_grace)). Default 120 s.
    pub total_timeout: Duration,
    /// Most `tools/list` pages followed before giving up. Default 1000.
    pub max_pages: usize,
    /// Longest line accepted on a stdio server's stdout. Default 16 MiB.
    pub max_line_bytes: usize,
    /// Largest HTTP response body (or SSE event, or file) accepted. Default 64 MiB.
    pub max_response_bytes: usize,
    /// Force one protocol version instead of negotiating: `"2026-07-28"` uses
    /// only `server/discover`; an older version uses only `initialize` and
    /// requires the server to accept exactly that version. Default `None`.
    pub protocol_version: Option<String>,
    /// `clientInfo.name` sent to the server. Default `"contractpin"`.
    pub client_name: String,
    /// `clientInfo.version` sent to the server. Default: this crate's version.
    pub client_version: String,
    /// How long a stdio server gets after stdin is closed, and again after
    /// SIGTERM, before it is killed. Default 1 s.
    pub shutdown_grace: Duration,
    /// The client capabilities declared in the handshake (`initialize`
    /// `capabilities`, and the `_meta` key
    /// `io.modelcontextprotocol/clientCapabilities` of the 2026-07-28
    /// generation), by name ([`crate::lock::CLIENT_CAPABILITIES`],
    /// `experimental.NAME`). An unknown name is a usage error
    /// ([`McpErrorKind::Spec`](super::McpErrorKind::Spec)). Default: none (`{}`).
    pub client_capabilities: Vec<String>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            request_timeout: Duration::from_secs(30),
            total_timeout: Duration::from_secs(120),
            max_pages: 1000,
            max_line_bytes: 16 << 20,
            max_response_bytes: 64 << 20,
            protocol_version: None,
            client_name: String::from("contractpin"),
            client_version: String::from(crate::VERSION),
            shutdown_grace: Duration::from_secs(1),
            client_capabilities: Vec::new(),
        }
    }
}
