//! One exchange with a server over any transport: handshake, then every page
//! of `tools/list`.

use std::string::String;
use std::vec::Vec;

use super::error::McpError;
use super::jsonrpc;
use super::options::ClientOptions;
use super::transport::{Clock, Transport};
use super::{handshake, paginate};

/// Request ids, the clock and the warnings of one exchange.
pub(crate) struct Session<'o> {
    /// The caller's options.
    pub opts: &'o ClientOptions,
    /// The timeouts.
    pub clock: Clock,
    /// Warnings collected so far.
    pub warnings: Vec<String>,
    next_id: u64,
}

impl<'o> Session<'o> {
    /// A new session; the total timeout starts now.
    pub fn new(opts: &'o ClientOptions) -> Session<'o> {
        Session {
            opts,
            clock: Clock::start(opts),
            warnings: Vec::new(),
            next_id: 1,
        }
    }

    /// Sends one request and waits for its result (canonical JSON).
    pub fn call(
        &mut self,
        t: &mut dyn Transport,
        method: &str,
        params: Option<&[u8]>,
    ) -> Result<Vec<u8>, McpError> {
        let id = self.next_id;
        self.next_id += 1;
        let msg = jsonrpc::request(id, method, params);
        let deadline = self.clock.request();
        if deadline.passed() {
            return Err(deadline.error(&std::format!("time left to send {method}")));
        }
        t.request(id, method, &msg, &deadline)
    }

    /// Sends one notification.
    pub fn notify(&mut self, t: &mut dyn Transport, method: &str) -> Result<(), McpError> {
        let msg = jsonrpc::notification(method);
        let deadline = self.clock.request();
        t.notify(method, &msg, &deadline)
    }
}

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
    })
}
