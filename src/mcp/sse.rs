//! An incremental `text/event-stream` parser (the WHATWG rules that matter
//! for MCP): CRLF, LF or CR line ends; `:` comments; `data:` lines joined
//! with `\n`; one optional space after the colon; an empty line dispatches;
//! unknown fields ignored; a leading BOM skipped. `id` and `retry` do not
//! change the events but are kept for reconnection: [`SseParser::last_event_id`]
//! (what a `Last-Event-ID` header sends back) and [`SseParser::retry`].

use std::string::String;
use std::vec::Vec;

/// One dispatched event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field, if any (`None` means the default, `message`).
    pub event: Option<String>,
    /// The data lines joined with `\n`.
    pub data: Vec<u8>,
}

/// The parser state between chunks.
#[derive(Debug)]
pub(crate) struct SseParser {
    line: Vec<u8>,
    data: Vec<u8>,
    has_data: bool,
    event: Option<String>,
    after_cr: bool,
    first_line: bool,
    max: usize,
    /// The `id` field's buffer (WHATWG "last event ID buffer").
    id_buffer: Option<String>,
    /// The buffer as of the last dispatch (an empty line), even of an event
    /// without data: the "last event ID string".
    last_id: Option<String>,
    retry_ms: Option<u64>,
}

/// A line or an event's data grew beyond the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TooLarge;

impl SseParser {
    /// A parser that refuses lines and event data longer than `max` bytes.
    pub fn new(max: usize) -> SseParser {
        SseParser {
            line: Vec::new(),
            data: Vec::new(),
            has_data: false,
            event: None,
            after_cr: false,
            first_line: true,
            max,
            id_buffer: None,
            last_id: None,
            retry_ms: None,
        }
    }

    /// The id of the last dispatched event (`None` before any `id` field, and
    /// after an empty one): the value for a reconnection's `Last-Event-ID`.
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_id.as_deref()
    }

    /// The reconnection time the stream asked for (`retry:`), if any.
    pub fn retry(&self) -> Option<core::time::Duration> {
        self.retry_ms.map(core::time::Duration::from_millis)
    }

    /// Feeds the next chunk of the stream; complete events are appended to `out`.
    pub fn feed(&mut self, mut chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), TooLarge> {
        while !chunk.is_empty() {
            if self.after_cr {
                self.after_cr = false;
                if chunk[0] == b'\n' {
                    chunk = &chunk[1..];
                    continue;
                }
            }
            match chunk.iter().position(|&b| b == b'\n' || b == b'\r') {
                Some(i) => {
                    self.push(&chunk[..i])?;
                    self.after_cr = chunk[i] == b'\r';
                    chunk = &chunk[i + 1..];
                    self.end_line(out)?;
                }
                None => {
                    self.push(chunk)?;
                    chunk = &[];
                }
            }
        }
        Ok(())
    }

    fn push(&mut self, bytes: &[u8]) -> Result<(), TooLarge> {
        if self.line.len() + bytes.len() > self.max {
            return Err(TooLarge);
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn end_line(&mut self, out: &mut Vec<SseEvent>) -> Result<(), TooLarge> {
        let mut line = &self.line[..];
        if self.first_line {
            self.first_line = false;
            if let Some(rest) = line.strip_prefix(b"\xEF\xBB\xBF") {
                line = rest;
            }
        }
        if line.is_empty() {
            if self.last_id != self.id_buffer {
                self.last_id.clone_from(&self.id_buffer);
            }
            if self.has_data {
                if self.data.last() == Some(&b'\n') {
                    self.data.pop();
                }
                out.push(SseEvent {
                    event: self.event.take(),
                    data: core::mem::take(&mut self.data),
                });
            }
            self.data.clear();
            self.has_data = false;
            self.event = None;
        } else if line[0] != b':' {
            let (field, value) = match line.iter().position(|&b| b == b':') {
                Some(i) => {
                    let v = &line[i + 1..];
                    (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
                }
                None => (line, &b""[..]),
            };
            match field {
                b"data" => {
                    if self.data.len() + value.len() + 1 > self.max {
                        return Err(TooLarge);
                    }
                    self.data.extend_from_slice(value);
                    self.data.push(b'\n');
                    self.has_data = true;
                }
                b"event" => self.event = Some(String::from_utf8_lossy(value).into_owned()),
                b"id" if !value.contains(&0) => {
                    self.id_buffer =
                        (!value.is_empty()).then(|| String::from_utf8_lossy(value).into_owned());
                }
                b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                    self.retry_ms = core::str::from_utf8(value)
                        .ok()
                        .and_then(|v| v.parse().ok());
                }
                _ => {}
            }
        }
        self.line.clear();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_in_pieces(stream: &[u8], piece: usize) -> Vec<SseEvent> {
        let mut p = SseParser::new(1 << 20);
        let mut out = Vec::new();
        for c in stream.chunks(piece) {
            p.feed(c, &mut out).unwrap();
        }
        out
    }

    fn ev(event: Option<&str>, data: &str) -> SseEvent {
        SseEvent {
            event: event.map(String::from),
            data: data.as_bytes().to_vec(),
        }
    }

    #[test]
    fn events_in_any_chunking() {
        let stream: &[u8] = b"\xEF\xBB\xBFretry: 1500\r\n\r\n: comment\r\nid: 1\r\ndata:\r\n\r\nevent: message\r\nid: 2\r\ndata: {\"a\":\r\ndata:1}\r\n\r\nevent: endpoint\rdata: /messages?x=1\r\rdata: last\n\ndata: no dispatch at EOF";
        let want = std::vec![
            ev(None, ""),
            ev(Some("message"), "{\"a\":\n1}"),
            ev(Some("endpoint"), "/messages?x=1"),
            ev(None, "last"),
        ];
        for piece in [1, 2, 3, 5, 7, 64, 4096] {
            assert_eq!(parse_in_pieces(stream, piece), want, "piece size {piece}");
        }
    }

    #[test]
    fn field_without_colon_and_spaces() {
        let got = parse_in_pieces(b"data\ndata:  two spaces\nevent\n\n", 4);
        assert_eq!(got, std::vec![ev(Some(""), "\n two spaces")]);
    }

    #[test]
    fn event_ids_and_retry() {
        let mut p = SseParser::new(1 << 10);
        let mut out = Vec::new();
        assert_eq!((p.last_event_id(), p.retry()), (None, None));
        p.feed(b"retry: 1500\nid: a1\ndata: x\n", &mut out).unwrap();
        // Not dispatched yet: the id counts from the empty line on.
        assert_eq!(p.last_event_id(), None);
        p.feed(b"\nid: p2\n\n", &mut out).unwrap();
        // A priming event without data still moves the id.
        assert_eq!(p.last_event_id(), Some("p2"));
        assert_eq!(p.retry(), Some(core::time::Duration::from_millis(1500)));
        p.feed(b"retry: soon\ndata: y\n\nid: bad\0\n\n", &mut out)
            .unwrap();
        assert_eq!(p.last_event_id(), Some("p2"));
        assert_eq!(p.retry(), Some(core::time::Duration::from_millis(1500)));
        p.feed(b"id\n\n", &mut out).unwrap();
        assert_eq!(p.last_event_id(), None);
        assert_eq!(out.len(), 2);
    }

    #[test]
    fn limits() {
        let mut p = SseParser::new(10);
        let mut out = Vec::new();
        assert_eq!(p.feed(b"data: 1234", &mut out), Ok(()));
        assert_eq!(p.feed(b"56789\n", &mut out), Err(TooLarge));
        let mut p = SseParser::new(12);
        p.feed(b"data: 12345\ndata: 12345\n", &mut out).unwrap();
        assert_eq!(p.feed(b"data: 1\n", &mut out), Err(TooLarge));
    }
}
