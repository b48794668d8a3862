//! Client options: timeouts, limits, identity, and what a stdio server inherits.

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

/// The variables of our environment a stdio server gets by default (plus
/// its spec's `env`): exactly those the official MCP SDK clients pass on,
/// TypeScript's `getDefaultEnvironment()` and Python's
/// `get_default_environment()` (SDK 1.32.2 / mcp 1.30.0 and 2.3.0). As there,
/// a variable that is unset, or whose value starts with `()` (an exported
/// shell function), is left out. [`ClientOptions::inherit_env`] passes on
/// everything instead.
#[cfg(not(windows))]
pub const DEFAULT_INHERITED_ENV_VARS: &[&str] =
    &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/// The variables of our environment a stdio server gets by default (plus
/// its spec's `env`): on Windows, the list of the official Python MCP SDK's
/// `get_default_environment()` (the TypeScript SDK's lacks `PATHEXT`).
/// [`ClientOptions::inherit_env`] passes on everything instead.
#[cfg(windows)]
pub const DEFAULT_INHERITED_ENV_VARS: &[&str] = &[
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PATHEXT",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
];

/// How [`fetch_tools_list`](super::fetch_tools_list) talks to a server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientOptions {
    /// Longest wait for the answer to one request. Default 30 s.
    pub request_timeout: Duration,
    /// Longest time for the whole exchange, from start to the last page
    /// (shutting a stdio server down comes on top: at most
    /// [`shutdown_grace`](Self::shutdown_grace) plus 7 s for a server that
    /// ignores SIGTERM and then dies slowly of SIGKILL). Default 120 s.
    pub total_timeout: Duration,
    /// Most `tools/list` pages followed before giving up. Default 1000.
    pub max_pages: usize,
    /// Largest `tools/list` document assembled from all pages (the JSON
    /// array of the page results that [`Fetched::pages`] holds), checked as
    /// each page arrives, so that a server cannot make the client hold more
    /// before it gives up ([`McpErrorKind::SizeLimit`]). The same limit as
    /// [`Limits::max_input`](crate::Limits::max_input) and the same default,
    /// 64 MiB; at most [`MAX_INPUT`](crate::MAX_INPUT) whatever the setting.
    ///
    /// [`Fetched::pages`]: super::Fetched::pages
    /// [`McpErrorKind::SizeLimit`]: super::McpErrorKind::SizeLimit
    pub max_input_bytes: usize,
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
    /// How long a stdio server gets to exit by itself once its answer is
    /// complete and its stdin closed, before its process group gets SIGTERM
    /// (and SIGKILL 1 s after that). Default 200 ms: servers that exit on
    /// the end of their stdin do so well within it (the MCP SDK servers in
    /// 90-300 ms, see docs/PERFORMANCE.md), and one that a timer keeps alive
    /// is not waited for.
    pub shutdown_grace: Duration,
    /// Whether a stdio server inherits our whole environment (CI secrets
    /// included) instead of only [`DEFAULT_INHERITED_ENV_VARS`]; its spec's
    /// `env` is added either way. Default `false`, as the official SDK
    /// clients do.
    pub inherit_env: bool,
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
            max_input_bytes: crate::Limits::DEFAULT.max_input,
            max_line_bytes: 16 << 20,
            max_response_bytes: 64 << 20,
            protocol_version: None,
            client_name: String::from("contractpin"),
            client_version: String::from(crate::VERSION),
            shutdown_grace: Duration::from_millis(200),
            inherit_env: false,
            client_capabilities: Vec::new(),
        }
    }
}
