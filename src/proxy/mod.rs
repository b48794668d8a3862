//! The run-time proxy (feature `std`): `contractpin proxy` sits between an
//! MCP client (stdio, newline-delimited JSON-RPC) and the server pinned in a
//! lock, passes every message through, and checks each `tools/list` result
//! against the pins with [`crate::guard::guard_page`], the same decision the
//! C ABI and the bindings make.
//!
//! Under construction: `upstream` is the interface between the message
//! pump and the transports.

#[cfg(feature = "mcp-http")]
pub(crate) mod http;
#[cfg(feature = "mcp-http")]
#[doc(hidden)]
pub use http::testing;
#[cfg(feature = "mcp-http")]
pub(crate) mod legacy_sse;
#[allow(dead_code)] // until the pump and the transports land
pub(crate) mod upstream;
