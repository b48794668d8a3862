//! The legacy HTTP+SSE transport (protocol 2024-11-05, deprecated but
//! alive): a long-lived GET event stream announces an `endpoint`; requests
//! are POSTed there and their answers arrive as `message` events on the
//! stream. The stream is read on its own thread, which hands the events over
//! through a queue bounded in bytes (`max_response_bytes`, the one-event
//! limit): a server that floods the stream faster than we parse stops being
//! read (TCP back-pressure) instead of filling our memory.

use std::io::Read;
use std::string::{String, ToString};
use std::sync::mpsc::RecvTimeoutError;
use std::vec::Vec;

use super::byte_queue::{byte_queue, Receiver, Sender};
use super::error::{one_line, McpError, McpErrorKind};
use super::http::{agent, read_body, status_error, transport_error};
use super::jsonrpc;
use super::options::ClientOptions;
use super::sse::{SseEvent, SseParser};
use super::transport::{Clock, Deadline, Transport};

/// What the stream thread reports.
enum StreamEvent {
    Event(SseEvent),
    TooLarge,
    End(String),
}

/// A connected legacy SSE session.
pub(crate) struct LegacySse {
    agent: ureq::Agent,
    stream_agent: Option<ureq::Agent>,
    stream_url: String,
    endpoint: String,
    headers: Vec<(String, String)>,
    events: Receiver<StreamEvent>,
    max_body: usize,
}

impl LegacySse {
    /// Opens the event stream at `url` (or, failing that, at `/sse` on the
    /// same origin) and waits for the `endpoint` event.
    pub fn connect(
        url: &str,
        headers: &[(String, String)],
        clock: &Clock,
        opts: &ClientOptions,
    ) -> Result<LegacySse, McpError> {
        let mut candidates = std::vec![String::from(url)];
        let alt = std::format!("{}/sse", origin(url));
        if alt != url {
            candidates.push(alt);
        }
        let mut last = None;
        for c in candidates {
            match Self::connect_one(&c, headers, clock, opts) {
                Ok(l) => return Ok(l),
                Err(e) => {
                    let fatal =
                        !matches!(e.kind(), McpErrorKind::Http { .. } | McpErrorKind::Protocol);
                    last = Some(e);
                    if fatal {
                        break;
                    }
                }
            }
        }
        Err(last.unwrap_or_else(|| McpError::new(McpErrorKind::Protocol, "no legacy SSE endpoint")))
    }

    fn connect_one(
        url: &str,
        headers: &[(String, String)],
        clock: &Clock,
        opts: &ClientOptions,
    ) -> Result<LegacySse, McpError> {
        let stream_agent = agent(url)?;
        let total = clock.total();
        let mut req = stream_agent.get(url).header("Accept", "text/event-stream");
        for (k, v) in headers {
            req = req.header(k.as_str(), v.as_str());
        }
        let what = "answer to GET (legacy SSE stream)";
        let left = total.remaining();
        if left.is_zero() {
            return Err(total.error(what));
        }
        let resp = req
            .config()
            .timeout_global(Some(left))
            .build()
            .call()
            .map_err(|e| transport_error(e, url, &total, what))?;
        let status = resp.status().as_u16();
        let ctype = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let body = resp.into_body();
        if !(200..300).contains(&status) {
            let text = read_body(body, 64 * 1024, url, &total, what).unwrap_or_default();
            return Err(status_error(
                status,
                &text,
                &std::format!("GET {url}"),
                false,
            ));
        }
        if !ctype.starts_with("text/event-stream") {
            return Err(McpError::new(
                McpErrorKind::Protocol,
                std::format!(
                    "GET {url} is not an event stream (content type `{}`)",
                    one_line(&ctype)
                ),
            ));
        }
        let max = opts.max_response_bytes;
        let (tx, events) = byte_queue(max);
        std::thread::Builder::new()
            .name(String::from("mcp-legacy-sse"))
            .spawn(move || pump(body, max, tx))
            .map_err(|e| {
                McpError::new(
                    McpErrorKind::Io,
                    std::format!("could not start a thread: {e}"),
                )
            })?;
        let mut l = LegacySse {
            agent: agent(url)?,
            stream_agent: Some(stream_agent),
            stream_url: String::from(url),
            endpoint: String::new(),
            headers: headers.to_vec(),
            events,
            max_body: max,
        };
        let deadline = clock.request();
        loop {
            let ev = l.next_event(&deadline, "endpoint event on the legacy SSE stream")?;
            if ev.event.as_deref() == Some("endpoint") {
                let data = String::from_utf8_lossy(&ev.data).trim().to_string();
                l.endpoint = resolve(url, &data)?;
                return Ok(l);
            }
        }
    }

    /// The next event of the stream, waiting until `deadline`: a timeout is
    /// [`McpErrorKind::Timeout`], the end of the stream [`McpErrorKind::Io`].
    pub(crate) fn next_event(
        &mut self,
        deadline: &Deadline,
        what: &str,
    ) -> Result<SseEvent, McpError> {
        let left = deadline.remaining();
        if left.is_zero() {
            return Err(deadline.error(what));
        }
        match self.events.recv_timeout(left) {
            Ok(StreamEvent::Event(ev)) => Ok(ev),
            Ok(StreamEvent::TooLarge) => Err(McpError::new(
                McpErrorKind::ResponseTooLarge,
                std::format!(
                    "an event on the SSE stream of {} is larger than {} bytes (the response size limit)",
                    self.stream_url, self.max_body
                ),
            )),
            Ok(StreamEvent::End(why)) => Err(McpError::new(
                McpErrorKind::Io,
                std::format!("the SSE stream of {} ended ({why}) before the {what}", self.stream_url),
            )),
            Err(RecvTimeoutError::Disconnected) => Err(McpError::new(
                McpErrorKind::Io,
                std::format!("the SSE stream of {} ended before the {what}", self.stream_url),
            )),
            Err(RecvTimeoutError::Timeout) => Err(deadline.error(what)),
        }
    }

    fn post(&mut self, message: &[u8], deadline: &Deadline, what: &str) -> Result<(), McpError> {
        post_message(
            &self.agent,
            &self.endpoint,
            &self.headers,
            message,
            deadline,
            what,
        )
    }

    /// The URL that takes our messages (announced by the `endpoint` event).
    pub(crate) fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// A handle on the stream's connection: [`ureq::Agent::shutdown`] on it
    /// ends the stream (as [`close`](Self::close) does) from another thread.
    pub(crate) fn stream_handle(&self) -> Option<ureq::Agent> {
        self.stream_agent.clone()
    }

    /// Closes the stream (unblocking its thread).
    pub fn close(&mut self) {
        if let Some(a) = self.stream_agent.take() {
            a.shutdown();
        }
    }
}

impl Drop for LegacySse {
    fn drop(&mut self) {
        self.close();
    }
}

impl Transport for LegacySse {
    fn request(
        &mut self,
        id: u64,
        method: &str,
        message: &[u8],
        deadline: &Deadline,
    ) -> Result<Vec<u8>, McpError> {
        let what = std::format!("answer to {method}");
        self.post(message, deadline, &what)?;
        loop {
            let ev = self.next_event(deadline, &what)?;
            if ev.event.as_deref().is_some_and(|e| e != "message")
                || ev.data.iter().all(u8::is_ascii_whitespace)
            {
                continue;
            }
            let scan = jsonrpc::classify(&ev.data, id)?;
            for reply in scan.replies {
                self.post(&reply, deadline, &what)?;
            }
            if let Some(answer) = scan.ours {
                return answer;
            }
        }
    }

    fn notify(
        &mut self,
        method: &str,
        message: &[u8],
        deadline: &Deadline,
    ) -> Result<(), McpError> {
        self.post(message, deadline, &std::format!("acceptance of {method}"))
    }
}

/// POSTs one message to the legacy endpoint; any success status will do
/// (202 normally), its body is ignored.
pub(crate) fn post_message(
    agent: &ureq::Agent,
    endpoint: &str,
    headers: &[(String, String)],
    message: &[u8],
    deadline: &Deadline,
    what: &str,
) -> Result<(), McpError> {
    let mut req = agent
        .post(endpoint)
        .header("Accept", super::http::POST_ACCEPT)
        .header("Content-Type", "application/json");
    for (k, v) in headers {
        req = req.header(k.as_str(), v.as_str());
    }
    let left = deadline.remaining();
    if left.is_zero() {
        return Err(deadline.error(what));
    }
    let resp = req
        .config()
        .timeout_global(Some(left))
        .build()
        .send(message)
        .map_err(|e| transport_error(e, endpoint, deadline, what))?;
    let status = resp.status().as_u16();
    let text = read_body(resp.into_body(), 64 * 1024, endpoint, deadline, what).unwrap_or_default();
    if !(200..300).contains(&status) {
        return Err(status_error(
            status,
            &text,
            &std::format!("POST {endpoint}"),
            false,
        ));
    }
    Ok(())
}

/// The stream thread. Each event is queued at the cost of the memory it
/// holds, so this thread stops reading while the queue is full.
fn pump(body: ureq::Body, max: usize, tx: Sender<StreamEvent>) {
    let mut reader = body.into_with_config().reader();
    let mut parser = SseParser::new(max);
    let mut events = Vec::new();
    let mut buf = std::vec![0u8; 16 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => {
                let _ = tx.send(StreamEvent::End(String::from("closed by the server")), 0);
                return;
            }
            Ok(n) => n,
            Err(e) => {
                let _ = tx.send(StreamEvent::End(e.to_string()), 0);
                return;
            }
        };
        if parser.feed(&buf[..n], &mut events).is_err() {
            let _ = tx.send(StreamEvent::TooLarge, 0);
            return;
        }
        for ev in events.drain(..) {
            let cost = ev.data.capacity() + ev.event.as_ref().map_or(0, String::capacity);
            if tx.send(StreamEvent::Event(ev), cost).is_err() {
                return;
            }
        }
    }
}

/// `scheme://authority` of an absolute URL.
fn origin(url: &str) -> &str {
    let after = url.find("://").map_or(0, |i| i + 3);
    let end = url[after..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| after + i);
    &url[..end]
}

/// Resolves the `endpoint` event's data against the stream URL. Another
/// origin is refused: our headers may carry credentials.
fn resolve(base: &str, data: &str) -> Result<String, McpError> {
    let o = origin(base);
    let url = if data.starts_with("http://") || data.starts_with("https://") {
        if origin(data) != o {
            return Err(McpError::new(
                McpErrorKind::Protocol,
                std::format!(
                    "the legacy SSE endpoint `{}` is on another origin; refused",
                    one_line(data)
                ),
            ));
        }
        String::from(data)
    } else if data.starts_with("//") || data.is_empty() {
        return Err(McpError::new(
            McpErrorKind::Protocol,
            std::format!("unusable legacy SSE endpoint `{}`", one_line(data)),
        ));
    } else if data.starts_with('/') {
        std::format!("{o}{data}")
    } else {
        let path_end = base[o.len()..]
            .find(['?', '#'])
            .map_or(base.len(), |i| o.len() + i);
        let dir_end = base[..path_end]
            .rfind('/')
            .filter(|&i| i >= o.len())
            .map_or(o.len(), |i| i);
        std::format!("{}/{data}", &base[..dir_end])
    };
    super::http::check_url(&url).map_err(|_| {
        McpError::new(
            McpErrorKind::Protocol,
            std::format!("unusable legacy SSE endpoint `{}`", one_line(data)),
        )
    })?;
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_endpoints() {
        let b = "http://127.0.0.1:8000/sse";
        assert_eq!(
            resolve(b, "/messages?session_id=1").unwrap(),
            "http://127.0.0.1:8000/messages?session_id=1"
        );
        assert_eq!(
            resolve(b, "messages/?s=1").unwrap(),
            "http://127.0.0.1:8000/messages/?s=1"
        );
        assert_eq!(
            resolve("http://h:1/a/b/sse?x=1", "m?s=2").unwrap(),
            "http://h:1/a/b/m?s=2"
        );
        assert_eq!(
            resolve(b, "http://127.0.0.1:8000/m").unwrap(),
            "http://127.0.0.1:8000/m"
        );
        assert!(resolve(b, "http://evil.example/m").is_err());
        assert!(resolve(b, "//evil.example/m").is_err());
        assert!(resolve(b, "").is_err());
        assert_eq!(origin("http://h:1"), "http://h:1");
        assert_eq!(origin("http://h:1?q"), "http://h:1");
    }
}
