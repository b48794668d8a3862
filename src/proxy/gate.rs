//! Which `tools/list` requests the proxy forwarded, so that each `tools`
//! result is read as the first page of a listing, a cursor page or an
//! unmatched one; the callable tools themselves are the core's
//! [`crate::guard::gate::Gate`] (one home for that policy: the proxy, the C
//! ABI and the bindings keep the same one).
//!
//! Bounded: at most [`MAX_PENDING`] `tools/list` requests are remembered
//! (the oldest is forgotten; its answer is then treated as unmatched).

use std::collections::VecDeque;

use crate::guard::gate::Gate as Calls;
pub(crate) use crate::guard::gate::{Page, Refusal};
use crate::guard::GuardDecision;

use super::message::IdKey;

/// Outstanding `tools/list` requests remembered at most.
pub(crate) const MAX_PENDING: usize = 1024;

/// The proxy's gate: the requests it is waiting on, and the callable tools.
#[derive(Debug, Default)]
pub(crate) struct Gate {
    pending: VecDeque<(IdKey, bool)>,
    calls: Calls,
}

impl Gate {
    /// The client sent `tools/list` with this id (`first`: without a cursor).
    pub fn listed(&mut self, id: IdKey, first: bool) {
        self.pending.retain(|(k, _)| *k != id);
        if self.pending.len() >= MAX_PENDING {
            self.pending.pop_front();
        }
        self.pending.push_back((id, first));
    }

    /// The page kind of a response with this id, forgetting the request.
    pub fn answered(&mut self, id: Option<&IdKey>) -> Option<Page> {
        let id = id?;
        let at = self.pending.iter().position(|(k, _)| k == id)?;
        let (_, first) = self.pending.remove(at)?;
        Some(if first { Page::First } else { Page::Next })
    }

    /// `notifications/tools/list_changed` from the server.
    pub fn list_changed(&mut self) {
        self.calls.list_changed();
    }

    /// A checked page's decision (see [`Calls::decided`]).
    pub fn decided(&mut self, page: Page, decision: &GuardDecision) {
        self.calls.decided(page, decision);
    }

    /// A checked page (see [`Calls::page`]).
    #[cfg(test)]
    pub fn page<'a>(
        &mut self,
        page: Page,
        callable: impl Iterator<Item = &'a str>,
        reported: impl Iterator<Item = (&'a str, crate::guard::GuardStatus)>,
    ) {
        self.calls.page(page, callable, reported);
    }

    /// A listing (or a page of it) the proxy refused to pass on.
    pub fn refused(&mut self, page: Page) {
        self.calls.refused(page);
    }

    /// Whether `name` may be called, and why not.
    pub fn check(&self, name: Option<&str>) -> Result<(), Refusal> {
        self.calls.check(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u64) -> IdKey {
        IdKey::Num((n as f64).to_bits())
    }

    /// Requests and answers make the page kinds the core's gate reads.
    #[test]
    fn answers_are_matched_to_their_requests() {
        let mut g = Gate::default();
        assert_eq!(g.check(Some("a")), Err(Refusal::NoListing));
        g.listed(id(1), true);
        let page = g.answered(Some(&id(1))).unwrap();
        assert_eq!(page, Page::First);
        g.page(page, ["a"].into_iter(), [].into_iter());
        assert_eq!(g.check(Some("a")), Ok(()));
        g.listed(id(2), false);
        assert_eq!(g.answered(Some(&id(2))), Some(Page::Next));
        // An answer is matched once; an id never sent matches nothing.
        assert_eq!(g.answered(Some(&id(1))), None);
        assert_eq!(g.answered(Some(&id(7))), None);
        assert_eq!(g.answered(None), None);
        // A repeated id is the latest request's.
        g.listed(id(3), true);
        g.listed(id(3), false);
        assert_eq!(g.answered(Some(&id(3))), Some(Page::Next));
    }

    #[test]
    fn pending_requests_are_bounded() {
        let mut g = Gate::default();
        for n in 0..(MAX_PENDING as u64 + 10) {
            g.listed(id(n), true);
        }
        assert_eq!(g.pending.len(), MAX_PENDING);
        assert_eq!(g.answered(Some(&id(0))), None);
        assert_eq!(
            g.answered(Some(&id(MAX_PENDING as u64 + 9))),
            Some(Page::First)
        );
    }
}
