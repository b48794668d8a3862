//! The proxy's event log: one JSON object per line, keys in canonical order,
//! to `--log FILE` (appended) or stderr.
//!
//! Every line is one event of the session
//! ([`crate::guard::session::events`]: `server`, `status` and what the
//! status carries) with `at` (UTC, milliseconds) first, except:
//!
//! - `skipped` lines: only the first [`LOGGED_SKIPS`] of each kind
//!   ([`Dropped`]: junk, or a refused message) in a session get a line each
//!   (a server writing 2-byte junk lines made a log ~89 times its output; a
//!   junk flood cannot hide the refused messages after it);
//! - `skipped-more`: how many more lines were dropped without a line of
//!   their own (`count`), at most one every [`SKIP_SUMMARY_EVERY`] while
//!   they keep coming and one at the end of the session for the rest.
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

/// Skipped server lines logged one by one per session; the rest are counted.
pub(crate) const LOGGED_SKIPS: usize = 100;
/// At most one `skipped-more` line this often while junk keeps coming.
pub(crate) const SKIP_SUMMARY_EVERY: Duration = Duration::from_secs(60);

/// The skipped lines past [`LOGGED_SKIPS`].
#[derive(Default)]
struct Skips {
    /// Lines logged one by one so far.
    logged: usize,
    /// Lines dropped since the last `skipped-more` line, not logged yet.
    unlogged: u64,
    /// When the first of `unlogged` came (or the last summary was written).
    since: Option<Instant>,
}

/// The bound of each kind of dropped line.
fn index(kind: Dropped) -> usize {
    kind as usize
}

/// The `skipped-more` line's words for `n` lines of `kind`.
fn summary(kind: Dropped, n: u64) -> String {
    let what = match kind {
        Dropped::Junk => "server line(s) that are not JSON-RPC messages were dropped",
        Dropped::Refused => "JSON-RPC message(s) from the server were refused",
    };
    std::format!(
        "{n} more {what}; only the first {LOGGED_SKIPS} of a session are logged one by one"
    )
}

/// Where the lines go, shared by the proxy's threads.
pub(crate) struct EventLog {
    sink: Mutex<Box<dyn Write + Send>>,
    server: String,
    secrets: Vec<String>,
    broken: AtomicBool,
    skips: [Mutex<Skips>; 2],
}

impl EventLog {
    /// A log of `server`'s events into `sink`, masking `secrets`.
    pub fn new(sink: Box<dyn Write + Send>, server: &str, secrets: Vec<String>) -> EventLog {
        EventLog {
            sink: Mutex::new(sink),
            server: String::from(server),
            secrets,
            broken: AtomicBool::new(false),
            skips: Default::default(),
        }
    }

    /// An event of the session; a `skipped` one counts against its kind's
    /// bound ([`LOGGED_SKIPS`], then a `skipped-more` line at most every
    /// [`SKIP_SUMMARY_EVERY`] and at [`finish`](Self::finish)).
    pub fn session_event(&self, e: &Event) {
        match e.dropped() {
            None => self.write(with_at(e.json())),
            Some(kind) => self.skipped(kind, e),
        }
    }

    fn skipped(&self, kind: Dropped, e: &Event) {
        let mut s = self.skips[index(kind)]
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if s.logged < LOGGED_SKIPS {
            s.logged += 1;
            drop(s);
            self.write(with_at(e.json()));
            return;
        }
        s.unlogged += 1;
        let since = *s.since.get_or_insert_with(Instant::now);
        if since.elapsed() >= SKIP_SUMMARY_EVERY {
            let n = core::mem::take(&mut s.unlogged);
            s.since = Some(Instant::now());
            drop(s);
            self.skipped_more(kind, n);
        }
    }

    /// The end of the session: the `skipped-more` lines of the lines not
    /// logged yet, if any.
    pub fn finish(&self) {
        for kind in [Dropped::Junk, Dropped::Refused] {
            let n = {
                let mut s = self.skips[index(kind)]
                    .lock()
                    .unwrap_or_else(|p| p.into_inner());
                core::mem::take(&mut s.unlogged)
            };
            if n > 0 {
                self.skipped_more(kind, n);
            }
        }
    }

    fn skipped_more(&self, kind: Dropped, n: u64) {
        let mut line = Vec::with_capacity(256);
        line.extend_from_slice(b"{\"at\":");
        jcs::write_str(&mut line, &now());
        line.extend_from_slice(std::format!(",\"count\":{n},\"reason\":").as_bytes());
        jcs::write_str(&mut line, &summary(kind, n));
        line.extend_from_slice(b",\"server\":");
        jcs::write_str(&mut line, &self.server);
        line.extend_from_slice(b",\"status\":\"skipped-more\"}");
        self.write(line);
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
    fn only_the_first_skips_get_a_line_each() {
        let out = Shared::default();
        let log = EventLog::new(Box::new(out.clone()), "srv", Vec::new());
        for _ in 0..LOGGED_SKIPS + 5000 {
            log.session_event(&Event::skipped("srv", Dropped::Junk, "junk"));
        }
        // A refused message after the junk flood still gets its line.
        log.session_event(&Event::skipped(
            "srv",
            Dropped::Refused,
            "a case-variant key",
        ));
        log.finish();
        log.finish(); // nothing more to say
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), LOGGED_SKIPS + 2, "{text}");
        assert!(lines[LOGGED_SKIPS].contains("a case-variant key"), "{text}");
        let last = lines[LOGGED_SKIPS + 1];
        assert!(
            last.contains(r#","count":5000,"reason":"5000 more"#),
            "{last}"
        );
        assert!(last.ends_with(r#""server":"srv","status":"skipped-more"}"#));
        assert_eq!(
            crate::canonicalize(last.as_bytes()).unwrap(),
            last.as_bytes()
        );
    }

    #[test]
    fn lines_are_canonical_json_and_masked() {
        let out = Shared::default();
        let log = EventLog::new(
            Box::new(out.clone()),
            "srv",
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
