//! What a guarded session reports: one canonical JSON object per event
//! (keys in RFC 8785 order), the lines of `contractpin proxy`'s event log
//! without their `at` time (the log adds it first, as `at` sorts first).
//!
//! Every event has `server` (the lock's name) and `status`:
//!
//! - `drifted` / `unpinned`: a tool of a `tools` page did not match its pin:
//!   exactly [`GuardEvent::to_json`] (`changed`, `live`, `tool`);
//! - `call-refused` (enforce) / `call-unverified` (observe): a `tools/call`
//!   for a tool that is not callable, with `tool` and `reason`
//!   ([`Refusal::code`](crate::guard::gate::Refusal::code));
//! - `listing-blocked`: [`OnDrift::Block`](super::OnDrift::Block) answered a
//!   `tools/list` with an error, `reason` naming the tools;
//! - `page-rejected` (enforce) / `page-unchecked` (observe): the guard could
//!   not check a page, `reason` says why;
//! - `instructions-drifted` / `instructions-added` / `instructions-removed`:
//!   the `instructions` of a handshake result do not match the lock's
//!   `instructions_digest`, with `live` and `pinned` (digests, each when
//!   there is one) and `reason` saying what was done (removed them, blocked
//!   the answer, or kept them): exactly the guard's line for the finding
//!   (`guard::instructions::event_json`);
//! - `client`: who the client is and the capabilities it declared
//!   (`reason`), from its `initialize`;
//! - `capabilities-differ`: those capabilities differ from the ones the lock
//!   entry was pinned with (the server may list other tools to it);
//! - `skipped`: a message from the server that is not a JSON-RPC message,
//!   never passed on; `reason` and its first 80 bytes, escaped; only the
//!   first [`REPORTED_SKIPS`](super::REPORTED_SKIPS) of each kind
//!   ([`Event::dropped`]) in a session, the rest are counted;
//! - `skipped-more`: how many more messages of one kind were dropped
//!   without a `skipped` event (`count`), since the last such event
//!   ([`Session::summary`](super::Session::summary));
//! - `events-cut`: one decision had more than
//!   [`MAX_DECISION_EVENTS`](super::MAX_DECISION_EVENTS) events; `count`
//!   says how many more were not reported.

use alloc::vec::Vec;

use crate::guard::instructions::{event_json, Finding};
use crate::guard::GuardEvent;
use crate::jcs;

/// What kind of server message was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dropped {
    /// Not JSON, or JSON that is not a JSON-RPC message (stray output).
    Junk,
    /// A JSON-RPC message refused (a case-variant key, a message that is
    /// both a request and a response, a batch left empty).
    Refused,
}

impl Dropped {
    /// Every kind, in the order summaries report them.
    pub const ALL: [Dropped; 2] = [Dropped::Junk, Dropped::Refused];
}

/// One event of a session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    json: Vec<u8>,
    dropped: Option<Dropped>,
}

impl Event {
    /// The event as one canonical JSON object (no newline, no `at`).
    pub fn json(&self) -> &[u8] {
        &self.json
    }

    /// For a `skipped` event, which kind of message was dropped.
    pub fn dropped(&self) -> Option<Dropped> {
        self.dropped
    }

    /// An event of `status` (`tool` and `reason` when they apply).
    pub(crate) fn new(
        server: &str,
        status: &str,
        tool: Option<&str>,
        reason: Option<&str>,
    ) -> Event {
        let mut json = Vec::with_capacity(96);
        json.push(b'{');
        if let Some(r) = reason {
            json.extend_from_slice(b"\"reason\":");
            jcs::write_str(&mut json, r);
            json.push(b',');
        }
        json.extend_from_slice(b"\"server\":");
        jcs::write_str(&mut json, server);
        json.extend_from_slice(b",\"status\":");
        jcs::write_str(&mut json, status);
        if let Some(t) = tool {
            json.extend_from_slice(b",\"tool\":");
            jcs::write_str(&mut json, t);
        }
        json.push(b'}');
        Event {
            json,
            dropped: None,
        }
    }

    /// A tool that did not match its pin.
    pub(crate) fn guard(server: &str, e: &GuardEvent) -> Event {
        Event {
            json: e.to_json(server),
            dropped: None,
        }
    }

    /// Instructions that do not match their pin, and what was done.
    pub(crate) fn instructions(server: &str, f: &Finding, reason: &str) -> Event {
        Event {
            json: event_json(f, server, reason),
            dropped: None,
        }
    }

    /// `count` events of one decision not reported.
    pub(crate) fn cut(server: &str, count: usize) -> Event {
        let reason = alloc::format!(
            "{count} more events of one message were not reported (at most {} per message)",
            super::MAX_DECISION_EVENTS
        );
        Event::counted(server, "events-cut", count as u64, &reason)
    }

    /// `count` more dropped messages of `kind` than got a `skipped` event
    /// (the proxy's `skipped-more` line).
    pub(crate) fn skipped_more(server: &str, kind: Dropped, count: u64) -> Event {
        let what = match kind {
            Dropped::Junk => "server line(s) that are not JSON-RPC messages were dropped",
            Dropped::Refused => "JSON-RPC message(s) from the server were refused",
        };
        let reason = alloc::format!(
            "{count} more {what}; only the first {} of a session are logged one by one",
            super::REPORTED_SKIPS
        );
        Event::counted(server, "skipped-more", count, &reason)
    }

    /// `{"count":count,"reason":reason,"server":server,"status":status}`.
    fn counted(server: &str, status: &str, count: u64, reason: &str) -> Event {
        let mut e = Event::new(server, status, None, Some(reason));
        // `count` sorts first: it goes right after the opening brace.
        let count = alloc::format!("\"count\":{count},");
        e.json.splice(1..1, count.bytes());
        e
    }

    /// A server message dropped, of `kind`: `reason` says why and shows it.
    pub(crate) fn skipped(server: &str, kind: Dropped, reason: &str) -> Event {
        Event {
            dropped: Some(kind),
            ..Event::new(server, "skipped", None, Some(reason))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_canonical_json() {
        let lines = [
            Event::new("srv", "call-refused", Some("x\"y"), Some("not-listed")),
            Event::new(
                "srv",
                "client",
                None,
                Some("a 1 declared capabilities none"),
            ),
            Event::skipped("srv", Dropped::Junk, "junk"),
            Event::cut("srv", 7),
        ];
        assert_eq!(
            lines[0].json(),
            br#"{"reason":"not-listed","server":"srv","status":"call-refused","tool":"x\"y"}"#
        );
        assert_eq!(lines[2].dropped(), Some(Dropped::Junk));
        assert_eq!(lines[0].dropped(), None);
        assert_eq!(
            lines[3].json(),
            br#"{"count":7,"reason":"7 more events of one message were not reported (at most 100000 per message)","server":"srv","status":"events-cut"}"#
        );
        for l in lines {
            assert_eq!(
                crate::canonicalize(l.json()).unwrap(),
                l.json(),
                "canonical"
            );
        }
    }
}
