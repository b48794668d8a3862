//! The Streamable HTTP upstream (MCP 2025-03-26 and later), and
//! [`connect_http`], which falls back to the legacy HTTP+SSE transport as
//! the verify client does.
//!
//! Threads and bounds:
//! - [`Upstream::send`] only queues the message (a queue bounded in bytes,
//!   `max_response_bytes`); it waits only while that queue is full, at most
//!   `request_timeout`, then fails.
//! - One dispatcher thread takes the queue in order. A notification or a
//!   response is POSTed there and then, and the next message waits for its
//!   HTTP answer (202): so `notifications/initialized` reaches the server
//!   before the `tools/list` after it, as with the SDK clients. A request
//!   goes to a worker thread of its own (at most [`MAX_IN_FLIGHT`] at once;
//!   the dispatcher waits for a free one), so a long `tools/call` never
//!   holds up a `ping`.
//! - A worker delivers every message of its answer (a JSON body, each
//!   element of a batch, or each `message` event of an SSE stream: requests
//!   and notifications of the server before the response) in the order the
//!   server sent them; it stops reading once the responses it waits for
//!   arrived, or once the client cancelled the request
//!   (`notifications/cancelled`, which is also forwarded): checked after
//!   every read, so a stream the server keeps open with keep-alive comments
//!   frees its worker too. Answers of different requests may interleave.
//! - Memory: each worker and the GET stream hold at most one body or
//!   event of `max_response_bytes` (the SSE parser's bound: its line and
//!   data buffers), and the messages of one event or body while they are
//!   delivered; the JSON tape they are read with is one for the whole
//!   upstream (parses take turns). Nothing else is buffered here (delivery
//!   is direct, under the sink's lock).
//!
//! Timeouts (every wait has one): connecting, sending, and the 202 of a
//! notification or response take at most `request_timeout`; the answer to
//! a request (a JSON body comes only when the server is done, so a long
//! tool call needs a long bound) and every silence on an answer stream at
//! most `total_timeout`. The GET stream has no read deadline: it carries
//! what the server starts on its own, whenever; it ends when the server
//! closes it, or at [`Upstream::shutdown`], which interrupts every
//! connection.
//!
//! The session: `Mcp-Session-Id` is taken from the first answer that
//! carries one (the `initialize` answer); the protocol version from the
//! `result.protocolVersion` of the response to the `initialize` request the
//! client sent through us. Both then go on every request, and a message
//! that names its protocol version in `params._meta` (the 2026-07-28
//! generation) sends that version instead, and its method in `Mcp-Method`.
//! When the initialize response arrives, the optional GET stream is opened
//! *before* the response is delivered, so what the server sends right after
//! `notifications/initialized` (a `roots/list`, a `list_changed`) is not
//! lost; a refusal (405, or any other status: many servers route no GET)
//! means the server offers none. A dropped GET stream is
//! reopened (with `Last-Event-ID` when its events had ids): after at least
//! the stream's `retry` time (default 1 s, at most `request_timeout`), at
//! most [`MAX_RECONNECTS`] failed attempts in a row, and not again after
//! [`MAX_RECONNECTS`] streams in a row that carried no event. An answer
//! stream that ends before its response (a 2025-11-25 server may close it
//! early) is resumed the same way with a GET and its `Last-Event-ID`.
//!
//! HTTP 404 on a request with our session id: the session is gone. The
//! upstream delivers `Closed("the server ended the session ...")`; the
//! client must start over (a new upstream). Re-initializing behind the
//! client's back is out of scope: the client's state (subscriptions,
//! negotiated capabilities) belongs to the old session.
//!
//! A request whose answer cannot come (the POST failed, the server
//! answered an error status, the stream ended without the response) gets a
//! JSON-RPC error response with its id made up here (code
//! [`UPSTREAM_ERROR_CODE`], message `contractpin proxy: <why>`), so the
//! client is never left waiting; a cancelled request gets none. A failed
//! notification or response is dropped (nobody waits for it), except that
//! a 404 for our session ends the session as above.
//!
//! [`Upstream::shutdown`] stops delivery at once (a delivery already in
//! the pump's callback finishes), DELETEs the session (outcome ignored,
//! 405 included; at most `request_timeout`, capped at 2 s), then shuts
//! every connection down, which ends the workers and the GET stream. When
//! `deliver` returns `false`, nothing more is delivered and the threads
//! stop at their next read; the pump still calls `shutdown`.
//!
//! Secrets: the URL and headers come from `credentials::http`; headers go
//! to this server's URL only (redirects are not followed), and every error,
//! made-up response and `Closed` text is redacted with its secrets.
//!
//! The legacy fallback ([`connect_http`]): the first client message is
//! the probe. The dispatcher POSTs it and waits for the HTTP status of the
//! answer before it takes the next message; 404 or 405 without a session,
//! before any success, means "no Streamable HTTP endpoint": the upstream
//! then opens the legacy event stream (the URL, or `/sse` on its origin)
//! and sends the same message there, and every later one.

use std::boxed::Box;
use std::string::String;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use std::vec::Vec;

use crate::mcp::byte_queue::{byte_queue, Receiver, SendError, Sender};
use crate::mcp::credentials::{self, HttpCredentials};
use crate::mcp::error::redact;
use crate::mcp::http::{agent, check_url};
use crate::mcp::{ClientOptions, McpError, McpErrorKind};

use super::legacy_sse::LegacySseUpstream;
use super::upstream::{Deliver, Upstream};

mod message;
mod sink;
mod stream;

pub(crate) use message::UPSTREAM_ERROR_CODE;
pub(in crate::proxy) use message::{incoming_shared, Outgoing};
use sink::lock;
pub(in crate::proxy) use sink::Sink;
use sink::{Slots, Stop};

/// Most requests whose answers are read at once.
pub(crate) const MAX_IN_FLIGHT: usize = 8;

/// Most failed reconnections of an event stream in a row.
pub(crate) const MAX_RECONNECTS: usize = 3;

/// Connects to an HTTP server of a lock entry as `verify` does: Streamable
/// HTTP, or the legacy HTTP+SSE transport when the endpoint refuses the
/// first POST (see the module docs). `creds` is the lock entry's url and
/// headers as `credentials::http` expanded and checked them (the caller
/// keeps their secrets for its own log).
pub(crate) fn connect_http(
    creds: credentials::HttpCredentials,
    opts: &ClientOptions,
) -> Result<Box<dyn Upstream>, McpError> {
    Ok(Box::new(StreamableHttpUpstream::build(creds, opts, true)?))
}

/// A Streamable HTTP connection (see the module docs).
pub(crate) struct StreamableHttpUpstream {
    shared: Arc<Shared>,
    out: Option<Sender<Vec<u8>>>,
    fallback: bool,
    started: bool,
}

/// What the dispatcher, the workers and the GET stream share.
struct Shared {
    agent: ureq::Agent,
    url: String,
    headers: Vec<(String, String)>,
    secrets: Vec<String>,
    opts: ClientOptions,
    session: Mutex<SessionState>,
    sink: Arc<Sink>,
    stop: Stop,
    slots: Slots,
    /// Whether any POST got a success status (after that, 404/405 mean
    /// something else than "no Streamable HTTP endpoint").
    answered: AtomicBool,
    /// The ids of the requests whose answers are being read, and whether
    /// the client cancelled them.
    in_flight: Mutex<Vec<(Vec<u8>, bool)>>,
    /// The one parse tape of the upstream (see `incoming_shared`).
    scratch: Mutex<Vec<crate::json::Node>>,
}

#[derive(Default)]
struct SessionState {
    id: Option<String>,
    version: Option<String>,
    get_opened: bool,
    /// After a fallback: the legacy stream, for shutdown.
    legacy_stream: Option<ureq::Agent>,
}

impl StreamableHttpUpstream {
    /// A connection to the lock entry's `url` with its `headers` (`${VAR}`
    /// references unexpanded), without the legacy fallback. Nothing is sent
    /// before the first message.
    pub(crate) fn new(
        url: &str,
        headers: &[(String, String)],
        opts: &ClientOptions,
    ) -> Result<StreamableHttpUpstream, McpError> {
        let creds = credentials::http(url, headers)?;
        Self::build(creds, opts, false)
    }

    fn build(
        c: HttpCredentials,
        opts: &ClientOptions,
        fallback: bool,
    ) -> Result<StreamableHttpUpstream, McpError> {
        check_url(&c.url).map_err(|e| e.redact(&c.secrets))?;
        let agent = agent(&c.url).map_err(|e| e.redact(&c.secrets))?;
        let shared = Shared {
            agent,
            url: c.url,
            headers: c.headers,
            secrets: c.secrets,
            opts: opts.clone(),
            session: Mutex::new(SessionState::default()),
            sink: Arc::new(Sink::new()),
            stop: Stop::new(),
            slots: Slots::new(MAX_IN_FLIGHT),
            answered: AtomicBool::new(false),
            in_flight: Mutex::new(Vec::new()),
            scratch: Mutex::new(Vec::new()),
        };
        Ok(StreamableHttpUpstream {
            shared: Arc::new(shared),
            out: None,
            fallback,
            started: false,
        })
    }
}

impl Upstream for StreamableHttpUpstream {
    fn start(&mut self, deliver: Deliver) -> Result<(), McpError> {
        if self.started {
            return Err(McpError::new(
                McpErrorKind::Spec,
                "the upstream was started twice",
            ));
        }
        self.started = true;
        self.shared.sink.set(deliver);
        let (tx, rx) = byte_queue(self.shared.opts.max_response_bytes);
        let sh = self.shared.clone();
        let fallback = self.fallback;
        spawn("contractpin-proxy-http", move || {
            dispatch(&sh, &rx, fallback)
        })?;
        self.out = Some(tx);
        Ok(())
    }

    fn send(&mut self, message: &[u8]) -> Result<(), McpError> {
        let sh = &self.shared;
        let Some(out) = &self.out else {
            return Err(sh.gone());
        };
        if sh.stop.is_set() || sh.sink.is_closed() {
            return Err(sh.gone());
        }
        let deadline = Instant::now().checked_add(sh.opts.request_timeout);
        match out.send_until(message.to_vec(), message.len(), deadline) {
            Ok(()) => Ok(()),
            Err(SendError::Closed(_)) => Err(sh.gone()),
            Err(SendError::Timeout(_)) => Err(sh.redacted(McpError::new(
                McpErrorKind::Timeout,
                std::format!(
                    "{} took no message within the request timeout of {} s ({} requests in flight)",
                    sh.url,
                    sh.opts.request_timeout.as_secs_f32(),
                    sh.slots.busy()
                ),
            ))),
        }
    }

    fn shutdown(&mut self) {
        let sh = &self.shared;
        sh.stop.set();
        sh.sink.silence();
        self.out = None; // the dispatcher ends
        let (sid, version, legacy) = {
            let mut s = lock(&sh.session);
            (s.id.take(), s.version.clone(), s.legacy_stream.take())
        };
        if let Some(sid) = sid {
            stream::delete_session(sh, &sid, version.as_deref());
        }
        if let Some(l) = legacy {
            l.shutdown();
        }
        sh.agent.clone().shutdown();
    }
}

impl Drop for StreamableHttpUpstream {
    fn drop(&mut self) {
        if !self.shared.stop.is_set() {
            self.shutdown();
        }
    }
}

impl Shared {
    fn redacted(&self, e: McpError) -> McpError {
        e.redact(&self.secrets)
    }

    /// The error of a `send` after the end.
    fn gone(&self) -> McpError {
        let why = self
            .sink
            .why()
            .unwrap_or_else(|| String::from("the upstream was not started"));
        McpError::new(
            McpErrorKind::Io,
            redact(
                &std::format!("the connection to {} is closed: {why}", self.url),
                &self.secrets,
            ),
        )
    }

    /// Answers each request of `ids` with a made-up error (the server's
    /// answer cannot come).
    fn fail(&self, ids: &[Vec<u8>], e: &McpError) {
        let why = redact(e.message(), &self.secrets);
        for id in ids {
            if !self.sink.message(message::error_response(id, &why)) {
                return;
            }
        }
    }

    /// Marks the request `id` cancelled by the client, if in flight.
    fn cancel(&self, id: &[u8]) {
        for (i, c) in lock(&self.in_flight).iter_mut() {
            if i == id {
                *c = true;
            }
        }
    }

    /// Whether every one of `ids` was cancelled by the client.
    fn all_cancelled(&self, ids: &[Vec<u8>]) -> bool {
        let f = lock(&self.in_flight);
        !ids.is_empty() && ids.iter().all(|id| f.iter().any(|(i, c)| *c && i == id))
    }

    /// The session is gone (HTTP 404 with our id): `Closed`, and the end.
    fn end_session(&self, e: &McpError) {
        lock(&self.session).id = None; // nothing to DELETE
        self.stop.set();
        let why = redact(
            &std::format!("the server ended the session ({})", e.message()),
            &self.secrets,
        );
        self.sink.close(why);
        self.agent.clone().shutdown();
    }
}

/// Starts a named thread.
fn spawn(name: &str, f: impl FnOnce() + Send + 'static) -> Result<(), McpError> {
    std::thread::Builder::new()
        .name(String::from(name))
        .spawn(f)
        .map(|_| ())
        .map_err(|e| {
            McpError::new(
                McpErrorKind::Io,
                std::format!("could not start a thread: {e}"),
            )
        })
}

/// The HTTP status of the answer to the probe, as the dispatcher learns it.
enum Head {
    /// A success: this is a Streamable HTTP endpoint.
    Taken,
    /// 404 or 405, no session, nothing answered before: maybe a legacy server.
    Refused(McpError),
    /// Anything else (the worker has answered the client).
    Failed,
}

/// The dispatcher thread: takes the client's messages in order.
fn dispatch(sh: &Arc<Shared>, rx: &Receiver<Vec<u8>>, mut probe: bool) {
    let mut legacy: Option<LegacySseUpstream> = None;
    while let Ok(bytes) = rx.recv() {
        if sh.stop.is_set() {
            break;
        }
        if let Some(l) = legacy.as_mut() {
            forward_legacy(sh, l, bytes);
            continue;
        }
        let out = Outgoing::parse(bytes);
        if core::mem::take(&mut probe) {
            legacy = probe_first(sh, out);
        } else {
            post(sh, out, None);
        }
    }
    if let Some(mut l) = legacy {
        l.shutdown();
    }
}

/// POSTs one message: a request on a worker, anything else here and now.
fn post(sh: &Arc<Shared>, out: Outgoing, head: Option<SyncSender<Head>>) {
    if !out.is_request() {
        if let Some(id) = &out.cancels {
            sh.cancel(id);
        }
        let h = stream::post_quiet(sh, &out, head.is_some());
        if let Some(tx) = head {
            let _ = tx.send(h);
        }
        return;
    }
    if !sh.slots.acquire(&sh.stop) {
        return;
    }
    let ids = out.ids.clone();
    let worker = sh.clone();
    let started = spawn("contractpin-proxy-post", move || {
        stream::exchange(&worker, out, head);
        worker.slots.release();
    });
    if let Err(e) = started {
        sh.slots.release();
        sh.fail(&ids, &e);
    }
}

/// Sends the first message and decides the transport on its answer.
fn probe_first(sh: &Arc<Shared>, out: Outgoing) -> Option<LegacySseUpstream> {
    let (tx, rx) = sync_channel(1);
    let held = out.bytes.clone();
    let ids = out.ids.clone();
    post(sh, out, Some(tx));
    // The worker's own timeouts end its wait well before this.
    let wait = sh
        .opts
        .total_timeout
        .saturating_add(sh.opts.request_timeout);
    match rx.recv_timeout(wait) {
        Ok(Head::Refused(e)) => fall_back(sh, &held, &ids, &e),
        _ => None,
    }
}

/// Switches to the legacy transport and sends it the held first message.
fn fall_back(
    sh: &Arc<Shared>,
    held: &[u8],
    ids: &[Vec<u8>],
    refused: &McpError,
) -> Option<LegacySseUpstream> {
    let creds = HttpCredentials {
        url: sh.url.clone(),
        headers: sh.headers.clone(),
        secrets: sh.secrets.clone(),
    };
    let mut l = LegacySseUpstream::with_credentials(creds, &sh.opts);
    let sink = sh.sink.clone();
    let deliver: Deliver = Box::new(move |m| match m {
        super::upstream::FromServer::Message(b) => sink.message(b),
        super::upstream::FromServer::Closed(why) => {
            sink.close(why);
            false
        }
    });
    if let Err(le) = l.start(deliver) {
        let e = McpError::new(
            refused.kind().clone(),
            std::format!(
                "{}; the legacy HTTP+SSE transport did not work either: {}",
                refused.message(),
                le.message()
            ),
        );
        sh.fail(ids, &e);
        sh.sink.close(redact(e.message(), &sh.secrets));
        sh.stop.set();
        return None;
    }
    lock(&sh.session).legacy_stream = l.stream_handle();
    if sh.stop.is_set() {
        // Shut down while we connected.
        l.shutdown();
        return None;
    }
    forward_legacy(sh, &mut l, held.to_vec());
    Some(l)
}

/// Sends one message over the legacy transport; a refused request is
/// answered with an error.
fn forward_legacy(sh: &Shared, l: &mut LegacySseUpstream, bytes: Vec<u8>) {
    if let Err(e) = l.send(&bytes) {
        let out = Outgoing::parse(bytes);
        sh.fail(&out.ids, &e);
    }
}

/// Hooks for the tests in `tests/proxy_http.rs` (the upstreams are internal
/// to the crate): hidden, no stable API.
#[doc(hidden)]
pub mod testing {
    use super::*;

    /// What an upstream delivered.
    #[derive(Debug, PartialEq, Eq)]
    pub enum Event {
        /// One server message.
        Message(Vec<u8>),
        /// The end, and why.
        Closed(String),
    }

    /// One upstream.
    pub struct Conn(Box<dyn Upstream>);

    /// `transport`: `"auto"` (`connect_http`), `"streamable"` or `"legacy"`.
    pub fn connect(
        url: &str,
        headers: &[(String, String)],
        opts: &ClientOptions,
        transport: &str,
    ) -> Result<Conn, McpError> {
        let up: Box<dyn Upstream> = match transport {
            "streamable" => Box::new(StreamableHttpUpstream::new(url, headers, opts)?),
            "legacy" => Box::new(LegacySseUpstream::new(url, headers, opts)?),
            _ => connect_http(credentials::http(url, headers)?, opts)?,
        };
        Ok(Conn(up))
    }

    impl Conn {
        /// `Upstream::start`.
        pub fn start(
            &mut self,
            mut deliver: impl FnMut(Event) -> bool + Send + 'static,
        ) -> Result<(), McpError> {
            self.0.start(Box::new(move |m| {
                deliver(match m {
                    super::super::upstream::FromServer::Message(b) => Event::Message(b),
                    super::super::upstream::FromServer::Closed(w) => Event::Closed(w),
                })
            }))
        }

        /// `Upstream::send`.
        pub fn send(&mut self, message: &[u8]) -> Result<(), McpError> {
            self.0.send(message)
        }

        /// `Upstream::shutdown`.
        pub fn shutdown(&mut self) {
            self.0.shutdown();
        }
    }

    /// The code of the error responses the upstream makes up.
    pub const UPSTREAM_ERROR_CODE: i64 = super::UPSTREAM_ERROR_CODE;

    /// `MAX_IN_FLIGHT`: most requests whose answers are read at once.
    pub const MAX_IN_FLIGHT: usize = super::MAX_IN_FLIGHT;
}
