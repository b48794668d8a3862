//! The server side of the proxy: one connection to the MCP server that
//! carries whole JSON-RPC messages both ways, over the lock entry's own
//! transport (a stdio child process, Streamable HTTP, or legacy HTTP+SSE).
//!
//! The pump (`super`) owns the ordering and the enforcement; an upstream only
//! moves bytes. Every message the server sends is handed to the `deliver`
//! callback given to [`Upstream::start`], from the upstream's own threads, in
//! the order received; [`Upstream::send`] forwards one client message.

use std::boxed::Box;
use std::string::String;
use std::vec::Vec;

use crate::mcp::McpError;

/// What an upstream hands to the pump.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum FromServer {
    /// One complete JSON-RPC message from the server (a response, a
    /// request or a notification), exactly as received, without a newline.
    Message(Vec<u8>),
    /// The connection ended; nothing follows. The text says why (for the
    /// log and the client-facing error), never holding a secret.
    Closed(String),
}

/// Called with each server message; returns `false` once the pump is gone,
/// after which the upstream stops reading.
pub(crate) type Deliver = Box<dyn FnMut(FromServer) -> bool + Send>;

/// One connection to the MCP server.
pub(crate) trait Upstream: Send {
    /// Connects (starts the process, or checks the endpoint) and starts
    /// delivering server messages to `deliver`. Called once, before `send`.
    fn start(&mut self, deliver: Deliver) -> Result<(), McpError>;

    /// Forwards one client message (one complete JSON-RPC message, no
    /// trailing newline). It must not wait for the server's answer: answers
    /// arrive through `deliver`. Fails when the connection is gone or the
    /// server stopped taking input within the request timeout.
    fn send(&mut self, message: &[u8]) -> Result<(), McpError>;

    /// Ends the connection, idempotent: a stdio server gets its stdin
    /// closed, then its process group signalled and reaped (as the MCP
    /// client does); an HTTP session is deleted.
    fn shutdown(&mut self);
}
