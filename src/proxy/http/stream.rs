//! The HTTP exchanges of a Streamable HTTP upstream: a request's POST and
//! its answer (JSON or an event stream, resumed with `Last-Event-ID` when
//! it ends early), the POST of a notification or response, the GET stream
//! of the server's own messages, and the final DELETE.

use std::io::Read;
use std::string::{String, ToString};
use std::sync::atomic::Ordering;
use std::sync::mpsc::SyncSender;
use std::sync::Arc;
use std::time::Duration;
use std::vec::Vec;

use crate::mcp::error::{one_line, McpError, McpErrorKind};
use crate::mcp::http::{
    io_error, is_visible_ascii, read_body, status_error, transport_error, with_session_headers,
    POST_ACCEPT,
};
use crate::mcp::sse::SseParser;
use crate::mcp::transport::Deadline;
use crate::mcp::MODERN_PROTOCOL_VERSION;

use super::message::{incoming_shared, Incoming, Outgoing};
use super::{lock, spawn, Head, Shared, MAX_RECONNECTS};

type Answer = ureq::http::Response<ureq::Body>;

/// Bodies of error statuses and of 202s are read up to this much.
const SMALL_BODY: usize = 64 * 1024;

/// The requests of one POST whose responses have not come yet.
struct Pending {
    ids: Vec<Vec<u8>>,
    initialize: Option<Vec<u8>>,
    what: String,
}

impl Pending {
    /// Takes `id` off the list; whether it was there.
    fn take(&mut self, id: &[u8]) -> bool {
        match self.ids.iter().position(|p| p == id) {
            Some(i) => {
                self.ids.swap_remove(i);
                true
            }
            None => false,
        }
    }
}

/// The session id and protocol version headers a message carries, and
/// whether it names its method (the 2026-07-28 generation).
fn session_of(sh: &Shared, out: Option<&Outgoing>) -> (Option<String>, Option<String>, bool) {
    let s = lock(&sh.session);
    let own = out
        .and_then(|o| o.version.clone())
        .filter(|v| is_visible_ascii(v));
    let modern = own.as_deref() == Some(MODERN_PROTOCOL_VERSION);
    (s.id.clone(), own.or_else(|| s.version.clone()), modern)
}

/// POSTs `out`; the answer's head must come within `wait`. Returns the
/// answer and whether the POST carried our session id.
fn send_post(sh: &Shared, out: &Outgoing, wait: Duration) -> Result<(Answer, bool), McpError> {
    let (sid, version, modern) = session_of(sh, Some(out));
    let method = out.method.as_deref().filter(|_| modern);
    let req = sh
        .agent
        .post(&sh.url)
        .header("Accept", POST_ACCEPT)
        .header("Content-Type", "application/json");
    let req = with_session_headers(req, &sh.headers, sid.as_deref(), version.as_deref(), method);
    let request = sh.opts.request_timeout;
    let what = std::format!("answer to {}", out.what());
    req.config()
        .timeout_connect(Some(request))
        .timeout_send_request(Some(request))
        .timeout_send_body(Some(request))
        .timeout_recv_response(Some(wait))
        .timeout_per_read(Some(wait))
        .build()
        .send(&out.bytes[..])
        .map(|a| (a, sid.is_some()))
        .map_err(|e| {
            let waited = matches!(
                e,
                ureq::Error::Timeout(ureq::Timeout::RecvResponse | ureq::Timeout::PerRead)
            );
            let d = if waited {
                Deadline::after(wait, wait != request)
            } else {
                Deadline::after(request, false)
            };
            transport_error(e, &sh.url, &d, &what)
        })
}

fn header(a: &Answer, name: &str) -> Option<String> {
    a.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(String::from)
}

/// Takes the session id of an answer when we have none yet.
fn adopt_session(sh: &Shared, a: &Answer) -> Result<(), McpError> {
    let Some(sid) = header(a, "mcp-session-id") else {
        return Ok(());
    };
    let mut s = lock(&sh.session);
    if s.id.is_some() {
        return Ok(());
    }
    if !is_visible_ascii(&sid) {
        return Err(McpError::new(
            McpErrorKind::Protocol,
            "the server sent an Mcp-Session-Id that is not visible ASCII",
        ));
    }
    s.id = Some(sid);
    Ok(())
}

/// The error for an answer that is not a success, its body read (a little).
fn refusal(sh: &Shared, a: Answer, with_session: bool, what: &str) -> McpError {
    let status = a.status().as_u16();
    let location = header(&a, "location");
    let d = Deadline::after(sh.opts.request_timeout, false);
    let text = read_body(a.into_body(), SMALL_BODY, &sh.url, &d, what).unwrap_or_default();
    if (300..400).contains(&status) {
        let to = location.map_or_else(|| String::from("?"), |l| one_line(&l));
        return McpError::new(
            McpErrorKind::Http { status },
            std::format!(
                "{} redirects to {to}; redirects are not followed, use that URL",
                sh.url
            ),
        );
    }
    status_error(status, &text, &sh.url, with_session)
}

/// Whether a refusal of the probe means "try the legacy transport".
fn legacy_hint(sh: &Shared, status: u16, with_session: bool) -> bool {
    matches!(status, 404 | 405) && !with_session && !sh.answered.load(Ordering::Acquire)
}

/// POSTs a notification or response and waits for its acceptance (202).
/// Failures are dropped (there is nobody to answer), except a lost session.
pub(super) fn post_quiet(sh: &Shared, out: &Outgoing, probe: bool) -> Head {
    let (a, with_session) = match send_post(sh, out, sh.opts.request_timeout) {
        Ok(x) => x,
        Err(_) => return Head::Failed,
    };
    let status = a.status().as_u16();
    if !(200..300).contains(&status) {
        let e = refusal(sh, a, with_session, &out.what());
        if probe && legacy_hint(sh, status, with_session) {
            return Head::Refused(e);
        }
        if status == 404 && with_session {
            sh.end_session(&e);
        }
        return Head::Failed;
    }
    let _ = adopt_session(sh, &a);
    sh.answered.store(true, Ordering::Release);
    let d = Deadline::after(sh.opts.request_timeout, false);
    let _ = read_body(a.into_body(), SMALL_BODY, &sh.url, &d, "acceptance");
    Head::Taken
}

fn report(head: &Option<SyncSender<Head>>, h: Head) {
    if let Some(tx) = head {
        let _ = tx.send(h);
    }
}

/// A worker: POSTs a request and delivers its answer.
pub(super) fn exchange(sh: &Arc<Shared>, out: Outgoing, head: Option<SyncSender<Head>>) {
    let ids = out.ids.clone();
    lock(&sh.in_flight).extend(ids.iter().map(|id| (id.clone(), false)));
    exchange_in_flight(sh, out, head);
    lock(&sh.in_flight).retain(|(i, _)| !ids.contains(i));
}

fn exchange_in_flight(sh: &Arc<Shared>, out: Outgoing, head: Option<SyncSender<Head>>) {
    let mut pending = Pending {
        ids: out.ids.clone(),
        initialize: out.initialize.clone(),
        what: out.what(),
    };
    let (a, with_session) = match send_post(sh, &out, sh.opts.total_timeout) {
        Ok(x) => x,
        Err(e) => {
            report(&head, Head::Failed);
            return sh.fail(&pending.ids, &e);
        }
    };
    drop(out);
    let status = a.status().as_u16();
    if !(200..300).contains(&status) {
        let e = refusal(sh, a, with_session, &pending.what);
        if head.is_some() && legacy_hint(sh, status, with_session) {
            return report(&head, Head::Refused(e));
        }
        report(&head, Head::Failed);
        sh.fail(&pending.ids, &e);
        if status == 404 && with_session {
            sh.end_session(&e);
        }
        return;
    }
    if let Err(e) = adopt_session(sh, &a) {
        report(&head, Head::Failed);
        return sh.fail(&pending.ids, &e);
    }
    sh.answered.store(true, Ordering::Release);
    report(&head, Head::Taken);
    let result = read_answer(sh, a, &mut pending);
    // A cancelled request gets no answer (the client expects none).
    pending
        .ids
        .retain(|id| !sh.all_cancelled(core::slice::from_ref(id)));
    let left = match result {
        Err(e) => Some(e),
        Ok(()) if !pending.ids.is_empty() && !sh.sink.is_closed() => Some(McpError::new(
            McpErrorKind::Protocol,
            std::format!(
                "the answer of {} to {} holds no response to the request",
                sh.url,
                pending.what
            ),
        )),
        Ok(()) => None,
    };
    if let Some(e) = left {
        sh.fail(&pending.ids, &e);
    }
}

/// Reads a successful answer: JSON, or an event stream.
fn read_answer(sh: &Arc<Shared>, a: Answer, pending: &mut Pending) -> Result<(), McpError> {
    let status = a.status().as_u16();
    let ctype = header(&a, "content-type")
        .unwrap_or_default()
        .to_ascii_lowercase();
    let body = a.into_body();
    if ctype.starts_with("text/event-stream") {
        return read_answer_stream(sh, body, pending);
    }
    if ctype.starts_with("application/json") {
        let what = std::format!("answer to {}", pending.what);
        let d = Deadline::after(sh.opts.total_timeout, true);
        let text = read_body(body, sh.opts.max_response_bytes, &sh.url, &d, &what)?;
        deliver_all(sh, &text, pending);
        return Ok(());
    }
    let why = if status == 202 {
        std::format!(
            "{} accepted {} (HTTP 202) but sent no answer",
            sh.url,
            pending.what
        )
    } else {
        std::format!(
            "{} answered {} with content type `{}`, neither JSON nor an event stream",
            sh.url,
            pending.what,
            one_line(&ctype)
        )
    };
    Err(McpError::new(McpErrorKind::Protocol, why))
}

/// Delivers the messages of a body or event of an answer; `false` once
/// the pump is gone.
fn deliver_all(sh: &Arc<Shared>, data: &[u8], pending: &mut Pending) -> bool {
    incoming_shared(data, &sh.scratch)
        .into_iter()
        .all(|m| on_message(sh, m, pending))
}

/// Delivers one message of an answer, noting the responses that came; the
/// response to `initialize` first sets the session up (protocol version,
/// GET stream). `false` once the pump is gone.
fn on_message(sh: &Arc<Shared>, m: Incoming, pending: &mut Pending) -> bool {
    if let Some(id) = &m.response_to {
        if pending.take(id) && pending.initialize.as_deref() == Some(id) {
            if let Some(v) = &m.protocol_version {
                initialized(sh, v);
            }
        }
    }
    sh.sink.message(m.bytes)
}

/// The `initialize` result arrived: the version for later requests, and
/// the GET stream (once per upstream).
fn initialized(sh: &Arc<Shared>, version: &str) {
    {
        let mut s = lock(&sh.session);
        if is_visible_ascii(version) {
            s.version = Some(String::from(version));
        }
        if core::mem::replace(&mut s.get_opened, true) {
            return;
        }
    }
    if let Ok(Some(body)) = open_get(sh, None) {
        let listener = sh.clone();
        let _ = spawn("contractpin-proxy-get", move || listen(&listener, body));
    }
}

/// How an event stream ended.
enum StreamEnd {
    /// The handler asked to stop (everything awaited came, or the pump is gone).
    Stopped,
    /// The server closed it, or reading failed.
    Ended(Option<std::io::Error>),
    /// An event larger than `max_response_bytes`.
    TooLarge,
}

/// Reads event streams, one after the other when resumed, keeping the
/// last event id and the server's `retry` across them.
struct EventReader {
    max: usize,
    last_id: Option<String>,
    retry: Option<Duration>,
    /// Events dispatched by the current stream (priming ones included).
    events: usize,
}

impl EventReader {
    fn new(max: usize) -> EventReader {
        EventReader {
            max,
            last_id: None,
            retry: None,
            events: 0,
        }
    }

    /// Reads `body` to its end, handing the data of each `message` event
    /// to `on` (which returns `false` to stop); stops too as soon as
    /// `wanted` says so, checked after every read (keep-alive comments
    /// included).
    fn read(
        &mut self,
        body: ureq::Body,
        mut on: impl FnMut(&[u8]) -> bool,
        wanted: impl Fn() -> bool,
    ) -> StreamEnd {
        let mut reader = body.into_with_config().reader();
        let mut parser = SseParser::new(self.max);
        let mut events = Vec::new();
        let mut buf = std::vec![0u8; 16 * 1024];
        self.events = 0;
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => return StreamEnd::Ended(None),
                Ok(n) => n,
                Err(e) => return StreamEnd::Ended(Some(e)),
            };
            if !wanted() {
                return StreamEnd::Stopped;
            }
            if parser.feed(&buf[..n], &mut events).is_err() {
                return StreamEnd::TooLarge;
            }
            self.note(&parser);
            for ev in events.drain(..) {
                self.events += 1;
                if ev.event.as_deref().is_some_and(|e| e != "message") {
                    continue;
                }
                if !on(&ev.data) {
                    return StreamEnd::Stopped;
                }
            }
        }
    }

    fn note(&mut self, parser: &SseParser) {
        if let Some(id) = parser.last_event_id() {
            if self.last_id.as_deref() != Some(id) {
                self.last_id = Some(id.to_string());
            }
        }
        if let Some(r) = parser.retry() {
            self.retry = Some(r);
        }
    }

    /// The wait before a reconnection: the server's `retry` or 1 s, at
    /// least 100 ms and at most `cap`.
    fn delay(&self, cap: Duration) -> Duration {
        self.retry
            .unwrap_or(Duration::from_secs(1))
            .max(Duration::from_millis(100))
            .min(cap)
    }
}

/// Reads an answer stream until its responses came, resuming it with
/// `Last-Event-ID` when the server closes it early.
fn read_answer_stream(
    sh: &Arc<Shared>,
    body: ureq::Body,
    pending: &mut Pending,
) -> Result<(), McpError> {
    let mut rd = EventReader::new(sh.opts.max_response_bytes);
    let mut body = body;
    let mut empty = 0;
    loop {
        let ids = pending.ids.clone();
        let end = rd.read(
            body,
            |data| deliver_all(sh, data, pending) && !pending.ids.is_empty(),
            || !sh.stop.is_set() && !sh.sink.is_closed() && !sh.all_cancelled(&ids),
        );
        let ended = match end {
            StreamEnd::Stopped => return Ok(()),
            StreamEnd::TooLarge => return Err(too_large(sh, &pending.what)),
            StreamEnd::Ended(e) => stream_error(sh, e, &pending.what),
        };
        empty = if rd.events == 0 { empty + 1 } else { 0 };
        if sh.stop.is_set() || rd.last_id.is_none() || empty >= MAX_RECONNECTS {
            return Err(ended);
        }
        body = match reopen(sh, &rd) {
            Some(b) => b,
            None => return Err(ended),
        };
    }
}

fn too_large(sh: &Shared, what: &str) -> McpError {
    McpError::new(
        McpErrorKind::ResponseTooLarge,
        std::format!(
            "an event of the answer of {} to {what} is larger than {} bytes (the response size limit)",
            sh.url, sh.opts.max_response_bytes
        ),
    )
}

fn stream_error(sh: &Shared, e: Option<std::io::Error>, what: &str) -> McpError {
    match e {
        None => McpError::new(
            McpErrorKind::Protocol,
            std::format!(
                "the event stream from {} ended without an answer to {what}",
                sh.url
            ),
        ),
        Some(e) => {
            let d = Deadline::after(sh.opts.total_timeout, true);
            io_error(
                e,
                &sh.url,
                &d,
                &std::format!("event on the answer stream of {what}"),
            )
        }
    }
}

/// Reopens an event stream with a GET (and the last event id), after the
/// reconnection delay; at most [`MAX_RECONNECTS`] attempts.
fn reopen(sh: &Shared, rd: &EventReader) -> Option<ureq::Body> {
    for _ in 0..MAX_RECONNECTS {
        if !sh.stop.sleep(rd.delay(sh.opts.request_timeout)) {
            return None;
        }
        match open_get(sh, rd.last_id.as_deref()) {
            Ok(Some(b)) => return Some(b),
            Ok(None) => return None,
            Err(_) if sh.stop.is_set() => return None,
            Err(_) => {}
        }
    }
    None
}

/// GETs an event stream: the server's own (`last_id` `None`), or the rest
/// of a stream after `last_id`. `None` when the server offers none (405,
/// or any other refusal).
fn open_get(sh: &Shared, last_id: Option<&str>) -> Result<Option<ureq::Body>, McpError> {
    let (sid, version, _) = session_of(sh, None);
    let mut req = sh.agent.get(&sh.url).header("Accept", "text/event-stream");
    req = with_session_headers(req, &sh.headers, sid.as_deref(), version.as_deref(), None);
    if let Some(id) = last_id.filter(|id| is_visible_ascii(id)) {
        req = req.header("Last-Event-ID", id);
    }
    let request = sh.opts.request_timeout;
    let d = Deadline::after(request, false);
    let what = "answer to GET (the server's event stream)";
    let a = req
        .config()
        .timeout_connect(Some(request))
        .timeout_send_request(Some(request))
        .timeout_recv_response(Some(request))
        .build()
        .call()
        .map_err(|e| transport_error(e, &sh.url, &d, what))?;
    let status = a.status().as_u16();
    let ctype = header(&a, "content-type").unwrap_or_default();
    if !(200..300).contains(&status) {
        // Even a 404 only means "no stream here": many servers route no
        // GET at all (a lost session shows on the next POST).
        let _ = refusal(sh, a, sid.is_some(), what);
        return Ok(None);
    }
    if !ctype.to_ascii_lowercase().starts_with("text/event-stream") {
        return Ok(None);
    }
    Ok(Some(a.into_body()))
}

/// The GET stream's thread: delivers what the server starts on its own,
/// reopening the stream while the session lives (see the module docs).
fn listen(sh: &Arc<Shared>, body: ureq::Body) {
    let mut rd = EventReader::new(sh.opts.max_response_bytes);
    let mut body = body;
    let mut empty = 0;
    loop {
        let end = rd.read(
            body,
            |data| {
                incoming_shared(data, &sh.scratch)
                    .into_iter()
                    .all(|m| sh.sink.message(m.bytes))
            },
            || !sh.stop.is_set() && !sh.sink.is_closed(),
        );
        if sh.stop.is_set() || sh.sink.is_closed() {
            return;
        }
        if !matches!(end, StreamEnd::Ended(_)) {
            return; // too large: reopening would replay the same event
        }
        empty = if rd.events == 0 { empty + 1 } else { 0 };
        if empty >= MAX_RECONNECTS {
            return;
        }
        body = match reopen(sh, &rd) {
            Some(b) => b,
            None => return,
        };
    }
}

/// Ends the session (DELETE), ignoring the outcome (405: not supported).
pub(super) fn delete_session(sh: &Shared, sid: &str, version: Option<&str>) {
    let wait = sh.opts.request_timeout.min(Duration::from_secs(2));
    let req = with_session_headers(
        sh.agent.delete(&sh.url),
        &sh.headers,
        Some(sid),
        version,
        None,
    );
    let _ = req.config().timeout_global(Some(wait)).build().call();
}
