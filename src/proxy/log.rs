//! The proxy's event log: one JSON object per line, keys in canonical order,
//! to `--log FILE` (appended) or stderr.
//!
//! Every line is one event of the session
//! ([`crate::guard::session::events`]: `server`, `status` and what the
//! status carries) with `at` (UTC, milliseconds) first. The log decides
//! only when a `skipped-more` line is due: how many more lines were dropped
//! without a `skipped` line of their own (the session reports only the
//! first [`REPORTED_SKIPS`](crate::guard::session::REPORTED_SKIPS) of each
//! kind, [`Dropped`]: junk, or a refused message), at most one every
//! [`SKIP_SUMMARY_EVERY`] while they keep coming and one at the end of the
//! session for the rest.
//!
//! The values of the server's env (expanded `${VAR}`s included) are masked
//! in every line, as in every other contractpin message.

use std::boxed::Box;
use std::io::Write;
use std::string::String;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use std::vec::Vec;

use crate::guard::session::{Dropped, Event};
use crate::jcs;
use crate::mcp::error::redact;

/// At most one `skipped-more` line this often while junk keeps coming.
pub(crate) const SKIP_SUMMARY_EVERY: Duration = Duration::from_secs(60);

/// Where the lines go, shared by the proxy's threads.
pub(crate) struct EventLog {
    sink: Mutex<Box<dyn Write + Send>>,
    secrets: Vec<String>,
    broken: AtomicBool,
    /// Per [`Dropped`] kind: since when drops went without a summary (or
    /// when the last summary was written).
    since: [Mutex<Option<Instant>>; 2],
}

impl EventLog {
    /// A log of a session's events into `sink`, masking `secrets`.
    pub fn new(sink: Box<dyn Write + Send>, secrets: Vec<String>) -> EventLog {
        EventLog {
            sink: Mutex::new(sink),
            secrets,
            broken: AtomicBool::new(false),
            since: Default::default(),
        }
    }

    /// An event of the session.
    pub fn session_event(&self, e: &Event) {
        self.write(with_at(e.json()));
    }

    /// Whether a `skipped-more` line of `kind` is due, now that the session
    /// has uncounted drops of it: the first summary
    /// [`SKIP_SUMMARY_EVERY`] after the first of them, then at most one
    /// that often.
    pub fn summary_due(&self, kind: Dropped) -> bool {
        let mut since = self.since[kind as usize]
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let from = *since.get_or_insert_with(Instant::now);
        if from.elapsed() < SKIP_SUMMARY_EVERY {
            return false;
        }
        *since = Some(Instant::now());
        true
    }

    /// Masks the secrets in a text meant for the user (stderr messages).
    pub fn mask(&self, text: &str) -> String {
        redact(text, &self.secrets)
    }

    fn write(&self, line: Vec<u8>) {
        let text = String::from_utf8_lossy(&line);
        let mut text = self.mask(&text);
        text.push('\n');
        let mut sink = self.sink.lock().unwrap_or_else(|p| p.into_inner());
        let written = sink.write_all(text.as_bytes()).and_then(|()| sink.flush());
        if let Err(e) = written {
            if !self.broken.swap(true, Ordering::Relaxed) {
                let _ = writeln!(
                    std::io::stderr(),
                    "contractpin proxy: warning: cannot write the event log ({e}); events are lost from here on"
                );
            }
        }
    }
}

/// `{"changed":...` becomes `{"at":"...","changed":...`: `at` sorts first.
fn with_at(json: &[u8]) -> Vec<u8> {
    let mut line = Vec::with_capacity(json.len() + 40);
    line.extend_from_slice(b"{\"at\":");
    jcs::write_str(&mut line, &now());
    line.push(b',');
    line.extend_from_slice(&json[1..]);
    line
}

/// The current UTC time, `YYYY-MM-DDTHH:MM:SS.mmmZ`.
fn now() -> String {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    match crate::lock::format_timestamp(d.as_secs()) {
        Some(mut t) => {
            t.pop(); // the `Z`
            t.push_str(&std::format!(".{:03}Z", d.subsec_millis()));
            t
        }
        None => String::from("9999-12-31T23:59:59.999Z"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_summary_line_counts_the_unreported_drops() {
        let out = Shared::default();
        let log = EventLog::new(Box::new(out.clone()), Vec::new());
        // The first summary is due SKIP_SUMMARY_EVERY after the first drop.
        assert!(!log.summary_due(Dropped::Junk));
        log.session_event(&Event::skipped_more("srv", Dropped::Junk, 5000));
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        let line = text.trim_end();
        assert!(
            line.contains(r#","count":5000,"reason":"5000 more"#),
            "{line}"
        );
        assert!(line.ends_with(r#""server":"srv","status":"skipped-more"}"#));
        assert_eq!(
            crate::canonicalize(line.as_bytes()).unwrap(),
            line.as_bytes()
        );
    }

    #[test]
    fn lines_are_canonical_json_and_masked() {
        let out = Shared::default();
        let log = EventLog::new(
            Box::new(out.clone()),
            std::vec![String::from("s3cr3t-token")],
        );
        log.session_event(&Event::new(
            "srv",
            "call-refused",
            Some("x\"s3cr3t-token"),
            Some("not-listed"),
        ));
        let e = crate::guard::GuardEvent {
            tool: String::from("t"),
            status: crate::guard::GuardStatus::Unpinned,
            changed: Vec::new(),
            live_digest: crate::digest_tools_list(b"[]").unwrap().digest,
        };
        log.session_event(&Event::guard("srv", &e));
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(lines[0].starts_with("{\"at\":\"20"), "{text}");
        assert!(
            lines[0].ends_with(
                r#"Z","reason":"not-listed","server":"srv","status":"call-refused","tool":"x\"***"}"#
            ),
            "{text}"
        );
        assert!(
            lines[1].contains(r#"Z","changed":[],"live":"sha256:"#),
            "{text}"
        );
        assert!(lines[1].ends_with(r#""server":"srv","status":"unpinned","tool":"t"}"#));
        for l in lines {
            let c = crate::canonicalize(l.as_bytes()).unwrap();
            assert_eq!(c, l.as_bytes(), "canonical");
        }
    }
}
