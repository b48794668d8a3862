//! The client's requests a session waits on: which `tools/list` requests
//! went to the server (so that each `tools` result is read as the first
//! page of a listing, a cursor page or an unmatched one) and which
//! handshake requests (`initialize`, `server/discover`), so that their
//! answers have their `instructions` checked. Responses are matched to
//! requests by [`IdKey`], as both SDKs match them.
//!
//! Bounded: at most [`MAX_LISTINGS`] `tools/list` and [`MAX_HANDSHAKES`]
//! handshake requests are remembered (the oldest is forgotten; its answer
//! is then read as an unmatched one).

use alloc::collections::VecDeque;

use crate::guard::gate::Page;

use super::message::IdKey;

/// Outstanding `tools/list` requests remembered at most.
pub(crate) const MAX_LISTINGS: usize = 1024;
/// Outstanding handshake requests remembered at most (a client sends one).
pub(crate) const MAX_HANDSHAKES: usize = 16;

/// The requests of one session not answered yet.
#[derive(Debug, Default)]
pub(crate) struct Requests {
    /// `tools/list` ids, and whether each started a listing (no cursor).
    listings: VecDeque<(IdKey, bool)>,
    /// `initialize` and `server/discover` ids.
    handshakes: VecDeque<IdKey>,
}

impl Requests {
    /// The client sent `tools/list` with this id (`first`: without a cursor).
    pub fn listed(&mut self, id: IdKey, first: bool) {
        remember(&mut self.listings, (id, first), MAX_LISTINGS, |a, b| {
            a.0 == b.0
        });
    }

    /// The client sent `initialize` or `server/discover` with this id.
    pub fn asked(&mut self, id: IdKey) {
        remember(&mut self.handshakes, id, MAX_HANDSHAKES, |a, b| a == b);
    }

    /// The page kind of a response with this id, forgetting its request.
    pub fn page(&mut self, id: Option<&IdKey>) -> Option<Page> {
        let at = self.listings.iter().position(|(k, _)| Some(k) == id)?;
        let (_, first) = self.listings.remove(at)?;
        Some(if first { Page::First } else { Page::Next })
    }

    /// Whether a response with this id answers a handshake request
    /// (forgetting it).
    pub fn handshake(&mut self, id: Option<&IdKey>) -> bool {
        let Some(at) = self.handshakes.iter().position(|k| Some(k) == id) else {
            return false;
        };
        self.handshakes.remove(at);
        true
    }
}

/// Adds `item` to `queue` (replacing an equal one: a repeated id is the
/// latest request's), forgetting the oldest past `max`.
fn remember<T>(queue: &mut VecDeque<T>, item: T, max: usize, same: impl Fn(&T, &T) -> bool) {
    queue.retain(|k| !same(k, &item));
    if queue.len() >= max {
        queue.pop_front();
    }
    queue.push_back(item);
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
        let mut r = Requests::default();
        r.listed(id(1), true);
        assert_eq!(r.page(Some(&id(1))), Some(Page::First));
        r.listed(id(2), false);
        assert_eq!(r.page(Some(&id(2))), Some(Page::Next));
        // An answer is matched once; an id never sent matches nothing.
        assert_eq!(r.page(Some(&id(1))), None);
        assert_eq!(r.page(Some(&id(7))), None);
        assert_eq!(r.page(None), None);
        // A repeated id is the latest request's.
        r.listed(id(3), true);
        r.listed(id(3), false);
        assert_eq!(r.page(Some(&id(3))), Some(Page::Next));
        // The two kinds of request are kept apart.
        r.asked(id(4));
        assert_eq!(r.page(Some(&id(4))), None);
        assert!(r.handshake(Some(&id(4))));
    }

    #[test]
    fn pending_listings_are_bounded() {
        let mut r = Requests::default();
        for n in 0..(MAX_LISTINGS as u64 + 10) {
            r.listed(id(n), true);
        }
        assert_eq!(r.listings.len(), MAX_LISTINGS);
        assert_eq!(r.page(Some(&id(0))), None);
        assert_eq!(
            r.page(Some(&id(MAX_LISTINGS as u64 + 9))),
            Some(Page::First)
        );
    }

    #[test]
    fn handshake_ids_are_bounded_and_answered_once() {
        let mut r = Requests::default();
        for n in 0..(MAX_HANDSHAKES as u64 + 3) {
            r.asked(id(n));
        }
        assert!(!r.handshake(Some(&id(0))), "the oldest was forgotten");
        assert!(r.handshake(Some(&id(5))));
        assert!(!r.handshake(Some(&id(5))), "answered once");
        assert!(!r.handshake(None));
    }
}
