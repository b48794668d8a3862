//! The Streamable HTTP transport (ureq), and the HTTP client pieces both
//! HTTP transports share (the agent, TLS trust and proxies, status and I/O
//! errors, body reading). The fallback to the legacy HTTP+SSE transport is
//! `remote`, above both, so neither transport imports the other.
//!
//! Every POST carries `Accept: application/json, text/event-stream`; the
//! answer is a JSON body or an SSE stream, in which priming events,
//! comments, notifications and responses to other ids are skipped until
//! ours arrives. `Mcp-Session-Id` from the `initialize` answer and the
//! negotiated `MCP-Protocol-Version` go on every later request (2026-07-28
//! requests also name their method in `Mcp-Method`); the session is
//! DELETEd at the end. Redirects are not followed (headers may carry
//! credentials).
//!
//! Every agent (here and in the legacy transport) comes from [`agent`]:
//! https trusts what [`trust`] says (the platform's verifier, or exactly the
//! certificates `SSL_CERT_FILE` / `SSL_CERT_DIR` name; nothing turns
//! verification off), and traffic goes through the proxy [`proxy`] picks
//! from the environment, as curl does. TLS failures are reported by name
//! ("TLS: certificate expired (not valid after ...)").

use std::io::Read;
use std::string::{String, ToString};
use std::time::Duration;
use std::vec::Vec;

use super::error::{one_line, McpError, McpErrorKind};
use super::jsonrpc;
use super::options::ClientOptions;
use super::session::Session;
use super::sse::{SseEvent, SseParser};
use super::transport::{Deadline, Transport};

mod proxy;
#[cfg(feature = "https")]
mod trust;

/// An unusable URL as an error shows it: user information can hide before
/// any `@` of a malformed URL (`user:pass@host`, `http:/user:pass@host`), so
/// everything up to the last `@` is masked.
fn shown_invalid_url(url: &str) -> String {
    match url.rsplit_once('@') {
        Some((_, after)) => std::format!("***@{}", one_line(after)),
        None => one_line(url),
    }
}

/// Checks the scheme (and that the URL parses).
pub(crate) fn check_url(url: &str) -> Result<(), McpError> {
    let scheme_ok = url.starts_with("http://") || url.starts_with("https://");
    if !scheme_ok || url.parse::<ureq::http::Uri>().is_err() {
        return Err(McpError::new(
            McpErrorKind::Spec,
            std::format!(
                "`{}` is not an http:// or https:// URL",
                shown_invalid_url(url)
            ),
        ));
    }
    if url.starts_with("https://") && !cfg!(feature = "https") {
        return Err(McpError::new(
            McpErrorKind::Spec,
            "this build has no https support (feature `https`)",
        ));
    }
    Ok(())
}

/// An agent for `url`'s origin that reports every status as a response,
/// follows no redirect, connects through the environment's proxy for that
/// URL (if any) and, for https, verifies certificates (see [`trust`]).
pub(crate) fn agent(url: &str) -> Result<ureq::Agent, McpError> {
    let proxy = proxy::for_url(url)?;
    #[cfg(feature = "https")]
    let tls = if url.starts_with("https://") || proxy.as_ref().is_some_and(proxy::Chosen::tls) {
        trust::tls_config()?
    } else {
        trust::trust_nothing()
    };
    let builder = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .user_agent(std::format!("contractpin/{}", crate::VERSION))
        // Never ureq's own reading of the environment (see `proxy`).
        .proxy(proxy.map(|p| p.proxy));
    #[cfg(feature = "https")]
    let builder = builder.tls_config(tls);
    Ok(ureq::Agent::new_with_config(builder.build()))
}

/// Maps a ureq error to ours.
pub(crate) fn transport_error(
    e: ureq::Error,
    url: &str,
    deadline: &Deadline,
    what: &str,
) -> McpError {
    match e {
        ureq::Error::Timeout(_) => deadline.error(what),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => deadline.error(what),
        ureq::Error::BodyExceedsLimit(n) => McpError::new(
            McpErrorKind::ResponseTooLarge,
            std::format!(
                "the response from {url} is larger than {n} bytes (the response size limit)"
            ),
        ),
        other => McpError::new(McpErrorKind::Io, unreachable(url, &other)),
    }
}

/// "could not talk to URL [through the proxy P (from VAR)]: what happened",
/// naming a TLS failure as such.
fn unreachable(url: &str, e: &ureq::Error) -> String {
    let via = proxy::shown_for(url)
        .map(|p| std::format!(" through the proxy {p}"))
        .unwrap_or_default();
    let what = match e {
        ureq::Error::ConnectProxyFailed(m) => std::format!("the proxy refused the tunnel: {m}"),
        other => tls_failure(other).unwrap_or_else(|| other.to_string()),
    };
    std::format!("could not talk to {url}{via}: {what}")
}

#[cfg(feature = "https")]
fn tls_failure(e: &ureq::Error) -> Option<String> {
    trust::tls_failure(e)
}

#[cfg(not(feature = "https"))]
fn tls_failure(_: &ureq::Error) -> Option<String> {
    None
}

/// Reads a whole body, at most `max` bytes.
pub(crate) fn read_body(
    body: ureq::Body,
    max: usize,
    url: &str,
    deadline: &Deadline,
    what: &str,
) -> Result<Vec<u8>, McpError> {
    let mut reader = body.into_with_config().reader();
    let mut out = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => return Ok(out),
            Ok(n) => n,
            Err(e) => return Err(io_error(e, url, deadline, what)),
        };
        if out.len() + n > max {
            return Err(McpError::new(
                McpErrorKind::ResponseTooLarge,
                std::format!(
                    "the response from {url} is larger than {max} bytes (the response size limit)"
                ),
            ));
        }
        out.extend_from_slice(&buf[..n]);
    }
}

/// Maps an error from reading a body.
pub(crate) fn io_error(e: std::io::Error, url: &str, deadline: &Deadline, what: &str) -> McpError {
    if e.kind() == std::io::ErrorKind::TimedOut || deadline.passed() {
        return deadline.error(what);
    }
    #[cfg(feature = "https")]
    if let Some(tls) = trust::io_tls_failure(&e) {
        return McpError::new(
            McpErrorKind::Io,
            std::format!("reading from {url} failed: {tls}"),
        );
    }
    // ureq wraps its own errors (timeouts among them) in io::Error.
    match e.into_inner().map(|inner| inner.downcast::<ureq::Error>()) {
        Some(Ok(ue)) => transport_error(*ue, url, deadline, what),
        Some(Err(other)) => McpError::new(
            McpErrorKind::Io,
            std::format!("reading from {url} failed: {other}"),
        ),
        None => McpError::new(McpErrorKind::Io, std::format!("reading from {url} failed")),
    }
}

/// The error for a status that is not a success, with the server's
/// JSON-RPC error message or the start of its text when there is one.
pub(crate) fn status_error(status: u16, body: &[u8], url: &str, session: bool) -> McpError {
    let mut detail = String::new();
    let mut nodes = Vec::new();
    if let Ok(tape) = jsonrpc::parse(body, &mut nodes) {
        if let Some(msg) = tape
            .root()
            .get("error")
            .and_then(|e| e.get("message"))
            .and_then(jsonrpc::decode)
        {
            detail = msg;
        }
    } else if !body.is_empty() && body.len() < 2000 && !body.starts_with(b"<") {
        detail = String::from_utf8_lossy(body).into_owned();
    }
    let mut msg = std::format!("{url} answered HTTP {status}");
    if status == 404 && session {
        msg.push_str(" (the server no longer knows our session: expired or deleted)");
    }
    if !detail.trim().is_empty() {
        msg.push_str(": ");
        msg.push_str(&one_line(detail.trim()));
    }
    McpError::new(McpErrorKind::Http { status }, msg)
}

/// The `Accept` header of every POST: the answer may be JSON or an event stream.
pub(crate) const POST_ACCEPT: &str = "application/json, text/event-stream";

/// Adds what every request of a Streamable HTTP session carries: the server
/// spec's headers, then `Mcp-Session-Id` and `MCP-Protocol-Version` once
/// known, and for a message of the 2026-07-28 generation its method in
/// `Mcp-Method`.
pub(crate) fn with_session_headers<B>(
    mut req: ureq::RequestBuilder<B>,
    headers: &[(String, String)],
    session: Option<&str>,
    version: Option<&str>,
    method: Option<&str>,
) -> ureq::RequestBuilder<B> {
    for (k, v) in headers {
        req = req.header(k.as_str(), v.as_str());
    }
    if let Some(sid) = session {
        req = req.header("Mcp-Session-Id", sid);
    }
    if let Some(v) = version {
        req = req.header("MCP-Protocol-Version", v);
    }
    if let Some(m) = method {
        req = req.header("Mcp-Method", m);
    }
    req
}

/// Whether a header value from the server (a session id, a protocol
/// version) may be sent back as is.
pub(crate) fn is_visible_ascii(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| (0x21..=0x7e).contains(&b))
}

/// One Streamable HTTP session.
pub(crate) struct StreamableHttp {
    agent: ureq::Agent,
    url: String,
    headers: Vec<(String, String)>,
    session: Option<String>,
    version: Option<String>,
    modern: bool,
    max_body: usize,
    /// Whether any POST got a success status (then 404/405 mean something else
    /// than "this is no Streamable HTTP endpoint").
    pub(crate) answered: bool,
    /// Whether a request with our session id got 404 (the session is gone).
    pub(crate) session_lost: bool,
}

impl StreamableHttp {
    /// A session on `url` (nothing is sent yet).
    pub(crate) fn new(
        url: &str,
        headers: &[(String, String)],
        opts: &ClientOptions,
    ) -> Result<StreamableHttp, McpError> {
        Ok(StreamableHttp {
            agent: agent(url)?,
            url: String::from(url),
            headers: headers.to_vec(),
            session: None,
            version: None,
            modern: false,
            max_body: opts.max_response_bytes,
            answered: false,
            session_lost: false,
        })
    }

    /// POSTs one message; for a request (`want`), returns the answer.
    fn post(
        &mut self,
        method: &str,
        message: &[u8],
        want: Option<u64>,
        deadline: &Deadline,
    ) -> Result<Option<Vec<u8>>, McpError> {
        let what = std::format!("answer to {method}");
        let req = self
            .agent
            .post(&self.url)
            .header("Accept", POST_ACCEPT)
            .header("Content-Type", "application/json");
        let req = with_session_headers(
            req,
            &self.headers,
            self.session.as_deref(),
            self.version.as_deref(),
            self.modern.then_some(method),
        );
        let left = deadline.remaining();
        if left.is_zero() {
            return Err(deadline.error(&what));
        }
        let resp = req
            .config()
            .timeout_global(Some(left))
            .build()
            .send(message)
            .map_err(|e| transport_error(e, &self.url, deadline, &what))?;
        let status = resp.status().as_u16();
        let header = |name: &str| {
            resp.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(String::from)
        };
        let content_type = header("content-type")
            .unwrap_or_default()
            .to_ascii_lowercase();
        let new_session = header("mcp-session-id");
        let location = header("location");
        let body = resp.into_body();
        if !(200..300).contains(&status) {
            let text = read_body(body, 64 * 1024, &self.url, deadline, &what).unwrap_or_default();
            let mut e = status_error(status, &text, &self.url, self.session.is_some());
            if status == 404 && self.session.is_some() {
                self.session_lost = true;
                self.session = None; // gone: nothing to DELETE
            }
            if (300..400).contains(&status) {
                let to = location
                    .map(|l| one_line(&l))
                    .unwrap_or_else(|| String::from("?"));
                e = McpError::new(
                    McpErrorKind::Http { status },
                    std::format!(
                        "{} redirects to {to}; redirects are not followed, use that URL",
                        self.url
                    ),
                );
            }
            return Err(e);
        }
        self.answered = true;
        if self.session.is_none() {
            if let Some(sid) = new_session {
                if !is_visible_ascii(&sid) {
                    return Err(McpError::new(
                        McpErrorKind::Protocol,
                        "the server sent an Mcp-Session-Id that is not visible ASCII",
                    ));
                }
                self.session = Some(sid);
            }
        }
        let Some(id) = want else {
            // A notification: 202 with an empty body, normally.
            let _ = read_body(body, self.max_body, &self.url, deadline, &what);
            return Ok(None);
        };
        if content_type.starts_with("text/event-stream") {
            return self.read_stream(body, id, method, deadline).map(Some);
        }
        if content_type.starts_with("application/json") {
            let text = read_body(body, self.max_body, &self.url, deadline, &what)?;
            let scan = jsonrpc::classify(&text, id)?;
            return match scan.ours {
                Some(answer) => answer.map(Some),
                None => Err(McpError::new(
                    McpErrorKind::Protocol,
                    std::format!(
                        "the JSON answer of {} to {method} holds no response to our request",
                        self.url
                    ),
                )),
            };
        }
        if status == 202 {
            return Err(McpError::new(
                McpErrorKind::Protocol,
                std::format!(
                    "{} accepted {method} (HTTP 202) but sent no answer",
                    self.url
                ),
            ));
        }
        Err(McpError::new(
            McpErrorKind::Protocol,
            std::format!(
                "{} answered {method} with content type `{}`, neither JSON nor an event stream",
                self.url,
                one_line(&content_type)
            ),
        ))
    }

    /// Reads an SSE answer until the response to `id` arrives.
    fn read_stream(
        &mut self,
        body: ureq::Body,
        id: u64,
        method: &str,
        deadline: &Deadline,
    ) -> Result<Vec<u8>, McpError> {
        let what = std::format!("answer to {method}");
        let mut reader = body.into_with_config().reader();
        let mut parser = SseParser::new(self.max_body);
        let mut events: Vec<SseEvent> = Vec::new();
        let mut total = 0usize;
        let mut buf = std::vec![0u8; 16 * 1024];
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => {
                    return Err(McpError::new(
                        McpErrorKind::Protocol,
                        std::format!(
                            "the event stream from {} ended without an answer to {method}",
                            self.url
                        ),
                    ))
                }
                Ok(n) => n,
                Err(e) => return Err(io_error(e, &self.url, deadline, &what)),
            };
            total += n;
            if total > self.max_body || parser.feed(&buf[..n], &mut events).is_err() {
                return Err(McpError::new(
                    McpErrorKind::ResponseTooLarge,
                    std::format!(
                        "the event stream from {} grew beyond {} bytes (the response size limit) before answering {method}",
                        self.url, self.max_body
                    ),
                ));
            }
            for ev in events.drain(..) {
                if ev.event.as_deref().is_some_and(|e| e != "message")
                    || ev.data.iter().all(u8::is_ascii_whitespace)
                {
                    continue; // priming events, other event types
                }
                let scan = jsonrpc::classify(&ev.data, id)?;
                for reply in scan.replies {
                    // Requests from the server (ping, roots/list) are answered by POST.
                    let d = *deadline;
                    let _ = self.post("response", &reply, None, &d);
                }
                if let Some(answer) = scan.ours {
                    return answer;
                }
            }
        }
    }

    /// Ends the session (DELETE), ignoring every outcome (405 = not supported).
    pub(crate) fn delete_session(&mut self, s: &Session<'_>) {
        let Some(sid) = self.session.take() else {
            return;
        };
        let left = s.clock.total().remaining().min(Duration::from_secs(2));
        if left.is_zero() {
            return;
        }
        let req = with_session_headers(
            self.agent.delete(&self.url),
            &self.headers,
            Some(&sid),
            self.version.as_deref(),
            None,
        );
        let _ = req.config().timeout_global(Some(left)).build().call();
    }
}

impl Transport for StreamableHttp {
    fn request(
        &mut self,
        id: u64,
        method: &str,
        message: &[u8],
        deadline: &Deadline,
    ) -> Result<Vec<u8>, McpError> {
        match self.post(method, message, Some(id), deadline)? {
            Some(answer) => Ok(answer),
            None => Err(McpError::new(McpErrorKind::Protocol, "no answer")),
        }
    }

    fn notify(
        &mut self,
        method: &str,
        message: &[u8],
        deadline: &Deadline,
    ) -> Result<(), McpError> {
        self.post(method, message, None, deadline).map(|_| ())
    }

    fn set_version(&mut self, version: Option<&str>, modern: bool) {
        self.version = version.map(ToString::to_string);
        self.modern = modern;
    }
}
