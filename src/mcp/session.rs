//! The state of one exchange with a server: request ids, the clock, the
//! warnings. (The exchange itself, handshake then every page, is
//! `listing::run`; the handshake and the pagination use this state.)

use std::string::String;
use std::vec::Vec;

use super::error::McpError;
use super::jsonrpc;
use super::options::ClientOptions;
use super::transport::{Clock, Transport};

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
