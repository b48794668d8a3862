//! Which tools the client may call right now: the state the proxy keeps
//! between a `tools/list` answer and the `tools/call` requests that follow.
//!
//! The policy (docs: `contractpin proxy --help`, SECURITY.md):
//!
//! - a **listing** starts with the answer to a `tools/list` request without
//!   a cursor; the tools that passed the guard on its pages (accumulated over
//!   the cursor pages that follow) are the callable ones;
//! - before the first listing, no tool is callable;
//! - after `notifications/tools/list_changed`, no tool is callable until a
//!   new listing starts (the server has said that the contracts the client
//!   knows are no longer the ones it serves); cursor pages of a listing that
//!   began before the notification do not make it callable again;
//! - a listing the proxy refused (a rejected page, or any drift with
//!   `--on-drift block`) leaves nothing callable, and its later cursor pages
//!   do not make anything callable again;
//! - a `tools` result the proxy cannot match to a `tools/list` request it
//!   forwarded (a hostile server can make an SDK client accept one under an
//!   id such as `"0x5"`) is still guarded, and its reported tools become
//!   uncallable, but it makes nothing callable.
//!
//! Bounded: at most [`MAX_PENDING`] `tools/list` requests are remembered
//! (the oldest is forgotten; its answer is then treated as unmatched), and
//! the names kept only to say why a call is refused total at most
//! [`MAX_REPORTED_BYTES`] (past it a refusal says `not-listed`); a page that
//! only takes tools away keeps the reason for the tools it took away, so a
//! server's unrequested pages cannot grow the state.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::string::String;

use crate::guard::GuardStatus;

use super::message::IdKey;

/// Outstanding `tools/list` requests remembered at most.
pub(crate) const MAX_PENDING: usize = 1024;

/// The bytes of drifted and unpinned names remembered at most, for the
/// refusal reasons of one listing.
pub(crate) const MAX_REPORTED_BYTES: usize = 1 << 20;

/// Where the listing stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Listing {
    /// No listing seen yet.
    None,
    /// The latest listing is in force.
    Current,
    /// `notifications/tools/list_changed` came after it.
    Stale,
    /// The proxy refused the latest listing (or a page of it).
    Refused,
}

/// Why a call is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// No listing seen yet.
    NoListing,
    /// The tool list changed since the latest listing.
    ListChanged,
    /// The latest listing reported the tool as drifted.
    Drifted,
    /// The latest listing reported the tool as not pinned.
    Unpinned,
    /// The latest listing did not hold the tool (or was refused).
    NotListed,
    /// The request has no string `params.name`.
    NoName,
}

impl Refusal {
    /// A stable word for the log.
    pub fn code(self) -> &'static str {
        match self {
            Refusal::NoListing => "no-listing",
            Refusal::ListChanged => "list-changed",
            Refusal::Drifted => "drifted",
            Refusal::Unpinned => "unpinned",
            Refusal::NotListed => "not-listed",
            Refusal::NoName => "no-name",
        }
    }

    /// A sentence for the client (the error's `data`).
    pub fn explain(self) -> &'static str {
        match self {
            Refusal::NoListing => "contractpin proxy: no tools/list answer has been checked yet; list the tools first",
            Refusal::ListChanged => "contractpin proxy: the server announced that its tools changed (notifications/tools/list_changed); list the tools again",
            Refusal::Drifted => "contractpin proxy: the tool's contract differs from the one pinned in contractpin.lock",
            Refusal::Unpinned => "contractpin proxy: the tool is not pinned in contractpin.lock",
            Refusal::NotListed => "contractpin proxy: the tool was not in the latest checked tools/list",
            Refusal::NoName => "contractpin proxy: the request has no tool name",
        }
    }
}

/// How a checked page relates to the listing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Page {
    /// The answer to a `tools/list` without a cursor.
    First,
    /// The answer to a `tools/list` with a cursor.
    Next,
    /// A `tools` result no forwarded `tools/list` matches.
    Unmatched,
}

/// The gate.
#[derive(Debug)]
pub(crate) struct Gate {
    pending: VecDeque<(IdKey, bool)>,
    listing: Listing,
    callable: BTreeSet<String>,
    reported: Reported,
}

impl Default for Gate {
    fn default() -> Self {
        Gate {
            pending: VecDeque::new(),
            listing: Listing::None,
            callable: BTreeSet::new(),
            reported: Reported::default(),
        }
    }
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
        if matches!(self.listing, Listing::Current | Listing::Refused) {
            self.listing = Listing::Stale;
        }
    }

    /// A checked page: `callable` passed (or, in observe mode, were kept),
    /// `reported` did not match their pins.
    pub fn page<'a>(
        &mut self,
        page: Page,
        callable: impl Iterator<Item = &'a str>,
        reported: impl Iterator<Item = (&'a str, GuardStatus)>,
    ) {
        match page {
            Page::First => {
                self.listing = Listing::Current;
                self.callable = callable.map(String::from).collect();
                self.reported = Reported::default();
                for (n, s) in reported {
                    self.reported.insert(n, s);
                }
            }
            Page::Next if self.listing == Listing::Current => {
                self.callable.extend(callable.map(String::from));
                for (n, s) in reported {
                    self.callable.remove(n);
                    self.reported.insert(n, s);
                }
            }
            // It only takes away, and keeps the reason for what it took.
            Page::Next | Page::Unmatched => {
                for (n, s) in reported {
                    if self.callable.remove(n) {
                        self.reported.insert(n, s);
                    }
                }
            }
        }
    }

    /// A listing (or a page of it) the proxy refused to pass on: nothing
    /// is callable until a new listing. A cursor or unmatched page refused
    /// before any listing, or after a changed list, leaves that state.
    pub fn refused(&mut self, page: Page) {
        self.callable.clear();
        if page == Page::First || self.listing == Listing::Current {
            self.listing = Listing::Refused;
        }
    }

    /// Whether `name` may be called, and why not.
    pub fn check(&self, name: Option<&str>) -> Result<(), Refusal> {
        let Some(name) = name else {
            return Err(Refusal::NoName);
        };
        match self.listing {
            Listing::None => return Err(Refusal::NoListing),
            Listing::Stale => return Err(Refusal::ListChanged),
            Listing::Current | Listing::Refused => {}
        }
        if self.listing == Listing::Current && self.callable.contains(name) {
            return Ok(());
        }
        Err(match self.reported.names.get(name) {
            Some(GuardStatus::Drifted) => Refusal::Drifted,
            Some(GuardStatus::Unpinned) => Refusal::Unpinned,
            None => Refusal::NotListed,
        })
    }
}

/// Why the latest listing's drifted and unpinned tools were kept back, for
/// the refusal reasons; at most [`MAX_REPORTED_BYTES`] of names.
#[derive(Debug, Default)]
struct Reported {
    names: BTreeMap<String, GuardStatus>,
    bytes: usize,
}

impl Reported {
    fn insert(&mut self, name: &str, status: GuardStatus) {
        if let Some(s) = self.names.get_mut(name) {
            *s = status;
        } else if self.bytes + name.len() <= MAX_REPORTED_BYTES {
            self.bytes += name.len();
            self.names.insert(String::from(name), status);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u64) -> IdKey {
        IdKey::Num((n as f64).to_bits())
    }

    #[test]
    fn the_listing_lifecycle() {
        let mut g = Gate::default();
        assert_eq!(g.check(Some("a")), Err(Refusal::NoListing));
        g.listed(id(1), true);
        let page = g.answered(Some(&id(1))).unwrap();
        assert_eq!(page, Page::First);
        g.page(
            page,
            ["a"].into_iter(),
            [("b", GuardStatus::Drifted)].into_iter(),
        );
        assert_eq!(g.check(Some("a")), Ok(()));
        assert_eq!(g.check(Some("b")), Err(Refusal::Drifted));
        assert_eq!(g.check(Some("c")), Err(Refusal::NotListed));
        assert_eq!(g.check(None), Err(Refusal::NoName));
        // Page 2 adds.
        g.listed(id(2), false);
        let p2 = g.answered(Some(&id(2))).unwrap();
        g.page(p2, ["c"].into_iter(), [].into_iter());
        assert_eq!(g.check(Some("c")), Ok(()));
        // list_changed: nothing until a new listing, not even by a late page.
        g.listed(id(3), false);
        g.list_changed();
        assert_eq!(g.check(Some("a")), Err(Refusal::ListChanged));
        let p3 = g.answered(Some(&id(3))).unwrap();
        g.page(p3, ["a"].into_iter(), [].into_iter());
        assert_eq!(g.check(Some("a")), Err(Refusal::ListChanged));
        g.listed(id(4), true);
        let p4 = g.answered(Some(&id(4))).unwrap();
        g.page(
            p4,
            ["c"].into_iter(),
            [("a", GuardStatus::Unpinned)].into_iter(),
        );
        assert_eq!(g.check(Some("c")), Ok(()));
        assert_eq!(g.check(Some("a")), Err(Refusal::Unpinned));
        // An answer is matched once.
        assert_eq!(g.answered(Some(&id(4))), None);
    }

    #[test]
    fn unmatched_pages_only_take_away_and_refusals_clear() {
        let mut g = Gate::default();
        g.page(Page::Unmatched, ["a"].into_iter(), [].into_iter());
        assert_eq!(g.check(Some("a")), Err(Refusal::NoListing));
        g.page(Page::First, ["a", "b"].into_iter(), [].into_iter());
        g.page(
            Page::Unmatched,
            ["c"].into_iter(),
            [("a", GuardStatus::Drifted)].into_iter(),
        );
        assert_eq!(g.check(Some("a")), Err(Refusal::Drifted));
        assert_eq!(g.check(Some("c")), Err(Refusal::NotListed));
        assert_eq!(g.check(Some("b")), Ok(()));
        g.refused(Page::First);
        assert_eq!(g.check(Some("b")), Err(Refusal::NotListed));
    }

    /// A refused cursor page after `list_changed` keeps the listing stale,
    /// and a refused page keeps its listing's later pages from adding
    /// (the review of 2026-12-07 found both made tools callable again).
    #[test]
    fn a_refused_page_adds_nothing_until_a_new_listing() {
        let mut g = Gate::default();
        g.page(Page::First, ["a"].into_iter(), [].into_iter());
        g.list_changed();
        g.refused(Page::Next);
        assert_eq!(g.check(Some("a")), Err(Refusal::ListChanged));
        g.page(Page::Next, ["b"].into_iter(), [].into_iter());
        assert_eq!(g.check(Some("b")), Err(Refusal::ListChanged));
        // A listing refused on its second page.
        g.page(Page::First, ["a"].into_iter(), [].into_iter());
        g.refused(Page::Next);
        g.page(Page::Next, ["b"].into_iter(), [].into_iter());
        assert_eq!(g.check(Some("a")), Err(Refusal::NotListed));
        assert_eq!(g.check(Some("b")), Err(Refusal::NotListed));
        // Refused, then changed: the change is what the client hears.
        g.list_changed();
        assert_eq!(g.check(Some("a")), Err(Refusal::ListChanged));
        g.page(Page::First, ["b"].into_iter(), [].into_iter());
        assert_eq!(g.check(Some("b")), Ok(()));
        // A refused cursor page before any listing leaves none.
        let mut g = Gate::default();
        g.refused(Page::Next);
        g.page(Page::Next, ["a"].into_iter(), [].into_iter());
        assert_eq!(g.check(Some("a")), Err(Refusal::NoListing));
    }

    /// Unrequested pages keep no name they did not take away, and the
    /// reasons of one listing are bounded in bytes.
    #[test]
    fn the_refusal_reasons_are_bounded() {
        let mut g = Gate::default();
        g.page(
            Page::First,
            ["a"].into_iter(),
            [("d", GuardStatus::Drifted)].into_iter(),
        );
        let names: std::vec::Vec<String> = (0..1000).map(|i| std::format!("{i:0>2000}")).collect();
        for _ in 0..3 {
            let flood = names.iter().map(|n| (n.as_str(), GuardStatus::Unpinned));
            g.page(Page::Unmatched, [].into_iter(), flood);
        }
        g.page(
            Page::Unmatched,
            [].into_iter(),
            [("a", GuardStatus::Drifted)].into_iter(),
        );
        assert_eq!(g.reported.names.len(), 2, "only d and a");
        assert_eq!(g.check(Some("a")), Err(Refusal::Drifted));
        // Cursor pages of the current listing are the client's to ask for;
        // their names stop being kept at the bound.
        for _ in 0..3 {
            let flood = names.iter().map(|n| (n.as_str(), GuardStatus::Unpinned));
            g.page(Page::Next, [].into_iter(), flood);
        }
        assert!(g.reported.bytes <= MAX_REPORTED_BYTES);
        assert_eq!(g.reported.names.len(), 2 + MAX_REPORTED_BYTES / 2000);
        assert_eq!(g.check(Some(&names[999])), Err(Refusal::NotListed));
        assert_eq!(g.check(Some(&names[0])), Err(Refusal::Unpinned));
        assert_eq!(g.check(Some("d")), Err(Refusal::Drifted));
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
