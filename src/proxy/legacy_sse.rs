//! The legacy HTTP+SSE upstream (protocol 2024-11-05): [`Upstream::start`]
//! opens the event stream as the verify client does
//! ([`LegacySse::connect`]: the URL, or `/sse` on its origin; the `endpoint`
//! event resolved against it, another origin refused), then one thread
//! delivers every `message` event of the stream, in order, until it ends
//! (`Closed`). [`Upstream::send`] POSTs to the endpoint and waits for its
//! acceptance (202), at most `request_timeout`: the answers come on the
//! stream, so this never waits for one.
//!
//! The stream's events pass through the verify client's queue, bounded in
//! bytes (`max_response_bytes`): a server that floods it is back-pressured.
//! The stream has no read deadline (the server writes whenever it has
//! something); [`Upstream::shutdown`] ends it. Errors and the `Closed` text
//! are redacted with the credentials' secrets.

use std::string::String;
use std::sync::Arc;
use std::time::Duration;
use std::vec::Vec;

use crate::mcp::credentials::{self, HttpCredentials};
use crate::mcp::error::redact;
use crate::mcp::http::{agent, check_url};
use crate::mcp::legacy_sse::{post_message, LegacySse};
use crate::mcp::transport::{Clock, Deadline};
use crate::mcp::{ClientOptions, McpError, McpErrorKind};

use super::http::{incoming_shared, Outgoing, Sink};
use super::upstream::{Deliver, Upstream};

/// A legacy HTTP+SSE connection.
pub(crate) struct LegacySseUpstream {
    url: String,
    headers: Vec<(String, String)>,
    secrets: Vec<String>,
    opts: ClientOptions,
    /// Set by `start`: the POST agent and the endpoint.
    post: Option<(ureq::Agent, String)>,
    stream: Option<ureq::Agent>,
    sink: Arc<Sink>,
}

impl LegacySseUpstream {
    /// A connection to the lock entry's `url` with its `headers` (`${VAR}`
    /// references unexpanded); nothing happens before `start`.
    pub(crate) fn new(
        url: &str,
        headers: &[(String, String)],
        opts: &ClientOptions,
    ) -> Result<LegacySseUpstream, McpError> {
        let c = credentials::http(url, headers)?;
        check_url(&c.url).map_err(|e| e.redact(&c.secrets))?;
        Ok(Self::with_credentials(c, opts))
    }

    /// The same from credentials already expanded and checked.
    pub(crate) fn with_credentials(c: HttpCredentials, opts: &ClientOptions) -> LegacySseUpstream {
        LegacySseUpstream {
            url: c.url,
            headers: c.headers,
            secrets: c.secrets,
            opts: opts.clone(),
            post: None,
            stream: None,
            sink: Arc::new(Sink::new()),
        }
    }

    /// A handle that ends the stream ([`ureq::Agent::shutdown`]) once started.
    pub(crate) fn stream_handle(&self) -> Option<ureq::Agent> {
        self.stream.clone()
    }

    fn connect(&mut self) -> Result<LegacySse, McpError> {
        let clock = Clock::start(&self.opts);
        let conn = LegacySse::connect(&self.url, &self.headers, &clock, &self.opts)?;
        let endpoint = String::from(conn.endpoint());
        self.post = Some((agent(&endpoint)?, endpoint));
        self.stream = conn.stream_handle();
        Ok(conn)
    }
}

impl Upstream for LegacySseUpstream {
    fn start(&mut self, deliver: Deliver) -> Result<(), McpError> {
        if self.post.is_some() {
            return Err(McpError::new(
                McpErrorKind::Spec,
                "the upstream was started twice",
            ));
        }
        self.sink.set(deliver);
        let conn = self.connect().map_err(|e| e.redact(&self.secrets))?;
        let sink = self.sink.clone();
        let secrets = self.secrets.clone();
        let wait = self.opts.request_timeout;
        std::thread::Builder::new()
            .name(String::from("contractpin-proxy-legacy"))
            .spawn(move || read_stream(conn, &sink, &secrets, wait))
            .map(|_| ())
            .map_err(|e| {
                McpError::new(
                    McpErrorKind::Io,
                    std::format!("could not start a thread: {e}"),
                )
            })
    }

    fn send(&mut self, message: &[u8]) -> Result<(), McpError> {
        let Some((agent, endpoint)) = &self.post else {
            return Err(McpError::new(
                McpErrorKind::Io,
                "the upstream was not started",
            ));
        };
        if let Some(why) = self.sink.why() {
            let msg = std::format!("the connection to {} is closed: {why}", self.url);
            return Err(McpError::new(McpErrorKind::Io, redact(&msg, &self.secrets)));
        }
        let what = std::format!("acceptance of {}", Outgoing::parse(message.to_vec()).what());
        let d = Deadline::after(self.opts.request_timeout, false);
        post_message(agent, endpoint, &self.headers, message, &d, &what)
            .map_err(|e| e.redact(&self.secrets))
    }

    fn shutdown(&mut self) {
        self.sink.silence();
        if let Some(a) = self.stream.take() {
            a.shutdown();
        }
    }
}

impl Drop for LegacySseUpstream {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The stream's thread: every `message` event is delivered; the end of
/// the stream is `Closed`.
fn read_stream(mut conn: LegacySse, sink: &Sink, secrets: &[String], wait: Duration) {
    let scratch = std::sync::Mutex::new(Vec::new());
    loop {
        let d = Deadline::after(wait, false);
        let ev = match conn.next_event(&d, "next message") {
            Ok(ev) => ev,
            // Quiet for a while: normal. (Shutdown ends the stream itself.)
            Err(e) if *e.kind() == McpErrorKind::Timeout && !sink.is_closed() => continue,
            Err(e) => return sink.close(redact(e.message(), secrets)),
        };
        if ev.event.as_deref().is_some_and(|e| e != "message") {
            continue;
        }
        for m in incoming_shared(&ev.data, &scratch) {
            if !sink.message(m.bytes) {
                conn.close();
                return;
            }
        }
    }
}
