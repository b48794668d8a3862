//! The proxy's enforcer: one [`Session`] (the core's decisions on each
//! message, `src/guard/session/`) shared by the proxy's two directions,
//! with its events written to the event log (`src/proxy/log.rs`) as they
//! happen and each line that passes on ending in a newline.
//!
//! One lock over the session: a message is decided whole before the next
//! one in either direction, so a `tools/call` is always checked against
//! the listings decided before it.

use std::sync::{Mutex, MutexGuard};
use std::vec::Vec;

use crate::guard::session::{Decision, Dropped, Session};
pub(crate) use crate::guard::session::{Forward, Policy};

use super::log::EventLog;

/// The decision on one client line.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct FromClient {
    /// What goes to the server (no newline).
    pub forward: Forward,
    /// The proxy's own answer to the client (a whole line, with newline).
    pub reply: Option<Vec<u8>>,
}

/// The enforcement state shared by the proxy's threads.
pub(crate) struct Enforcer {
    session: Mutex<Session>,
    log: EventLog,
}

impl Enforcer {
    /// A new session's enforcer.
    pub fn new(policy: Policy, log: EventLog) -> Enforcer {
        Enforcer {
            session: Mutex::new(Session::new(policy)),
            log,
        }
    }

    /// The log (for the pump's own messages).
    pub fn log(&self) -> &EventLog {
        &self.log
    }

    /// Lines from the server dropped so far.
    pub fn skipped(&self) -> usize {
        self.session().skipped()
    }

    fn session(&self) -> MutexGuard<'_, Session> {
        // A decision leaves the session valid at every step (a few map
        // operations at a time): valid after any panic.
        self.session.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The `skipped-more` lines of the drops the session did not report
    /// one by one: when one is due (`all`: at the end, for every rest).
    fn summaries(&self, s: &mut Session, all: bool) {
        for kind in Dropped::ALL {
            if s.unreported(kind) > 0 && (all || self.log.summary_due(kind)) {
                if let Some(e) = s.summary(kind) {
                    self.log.session_event(&e);
                }
            }
        }
    }

    /// The end of the session: the summaries of the drops not logged yet.
    pub fn finish(&self) {
        self.summaries(&mut self.session(), true);
    }

    /// Writes a decision's events to the log.
    fn logged(&self, d: &Decision) {
        for e in &d.events {
            self.log.session_event(e);
        }
    }

    /// Decides one line from the client (no newline).
    pub fn client(&self, line: &[u8]) -> FromClient {
        let d = self.session().client(line);
        self.logged(&d);
        FromClient {
            forward: d.forward,
            reply: d.reply.map(with_newline),
        }
    }

    /// Decides one line from the server (no newline): the line to write
    /// to the client (with newline), or `None` when it is dropped.
    pub fn server(&self, line: Vec<u8>) -> Option<Vec<u8>> {
        let d = {
            let mut s = self.session();
            let d = s.server(&line);
            self.summaries(&mut s, false);
            d
        };
        self.logged(&d);
        match d.forward {
            Forward::Same => Some(with_newline(line)),
            Forward::Replaced(b) => Some(with_newline(b)),
            Forward::Nothing => None,
        }
    }
}

fn with_newline(mut v: Vec<u8>) -> Vec<u8> {
    v.push(b'\n');
    v
}

#[cfg(test)]
#[path = "enforce_tests.rs"]
mod tests;
