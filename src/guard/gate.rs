//! Which tools a client may call right now (feature `alloc`): the state
//! kept between the checked pages of a `tools/list` and the `tools/call`
//! requests that follow. One home for this policy: `contractpin proxy`
//! keeps one [`Gate`] per session, and an embedding client keeps one per
//! session through the C ABI (`contractpin_gate_*`) and the bindings.
//!
//! The policy (docs: `contractpin proxy --help`, docs/SECURITY.md):
//!
//! - a **listing** starts with the answer to a `tools/list` request without
//!   a cursor ([`Page::First`]); the tools that passed the guard on its
//!   pages (accumulated over the cursor pages that follow, [`Page::Next`])
//!   are the callable ones;
//! - before the first listing, no tool is callable;
//! - after `notifications/tools/list_changed`, no tool is callable until a
//!   new listing starts (the server has said that the contracts the client
//!   knows are no longer the ones it serves); cursor pages of a listing that
//!   began before the notification do not make it callable again;
//! - a listing that was refused (a rejected page, or any drift with
//!   `--on-drift block`) leaves nothing callable, and its later cursor pages
//!   do not make anything callable again;
//! - a `tools` result that answers no `tools/list` request
//!   ([`Page::Unmatched`]: a hostile server can make an SDK client accept
//!   one under an id such as `"0x5"`) is still guarded, and its reported
//!   tools become uncallable, but it makes nothing callable.
//!
//! Bounded: the names kept only to say why a call is refused total at most
//! [`MAX_REPORTED_BYTES`] (past it a refusal says `not-listed`); a page that
//! only takes tools away keeps the reason for the tools it took away, so a
//! server's unrequested pages cannot grow the state.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;

use super::{GuardDecision, GuardStatus};

/// The bytes of drifted and unpinned names remembered at most, for the
/// refusal reasons of one listing.
pub const MAX_REPORTED_BYTES: usize = 1 << 20;

/// Where the listing stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Listing {
    /// No listing seen yet.
    None,
    /// The latest listing is in force.
    Current,
    /// `notifications/tools/list_changed` came after it.
    Stale,
    /// The latest listing (or a page of it) was refused.
    Refused,
}

/// Why a call is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No listing has started yet (no first page given).
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
    /// Every refusal, in the order of the C ABI's numbers (1, 2, ...).
    pub const ALL: [Refusal; 6] = [
        Refusal::NoListing,
        Refusal::ListChanged,
        Refusal::Drifted,
        Refusal::Unpinned,
        Refusal::NotListed,
        Refusal::NoName,
    ];

    /// A stable word (the proxy's log, the C ABI's `contractpin_refusal_name`).
    pub fn code(self) -> &'static str {
        without_nul(self.texts().0)
    }

    /// A sentence for the client (after the proxy's `contractpin proxy: `
    /// in its error's `data`; an embedding client's own error).
    pub fn reason(self) -> &'static str {
        without_nul(self.texts().1)
    }

    /// [`Refusal::code`] and [`Refusal::reason`], each followed by a NUL
    /// byte (the C ABI hands them out as static C strings).
    pub(crate) fn texts(self) -> (&'static str, &'static str) {
        match self {
            Refusal::NoListing => (
                "no-listing\0",
                "no tools/list answer has been checked yet; list the tools first\0",
            ),
            Refusal::ListChanged => (
                "list-changed\0",
                "the server announced that its tools changed \
                 (notifications/tools/list_changed); list the tools again\0",
            ),
            Refusal::Drifted => (
                "drifted\0",
                "the tool's contract differs from the one pinned in contractpin.lock\0",
            ),
            Refusal::Unpinned => ("unpinned\0", "the tool is not pinned in contractpin.lock\0"),
            Refusal::NotListed => (
                "not-listed\0",
                "the tool was not in the latest checked tools/list\0",
            ),
            Refusal::NoName => ("no-name\0", "the request has no tool name\0"),
        }
    }
}

/// A static text without its final NUL byte.
fn without_nul(text: &'static str) -> &'static str {
    &text[..text.len() - 1]
}

/// How a checked page relates to the listing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Page {
    /// The answer to a `tools/list` without a cursor.
    First,
    /// The answer to a `tools/list` with a cursor.
    Next,
    /// A `tools` result no `tools/list` request of the client matches.
    Unmatched,
}

/// The callable tools of one session.
#[derive(Debug)]
pub struct Gate {
    listing: Listing,
    callable: BTreeSet<String>,
    reported: Reported,
}

impl Default for Gate {
    fn default() -> Self {
        Gate {
            listing: Listing::None,
            callable: BTreeSet::new(),
            reported: Reported::default(),
        }
    }
}

impl Gate {
    /// A session's gate: nothing callable before the first listing.
    pub fn new() -> Gate {
        Gate::default()
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
                // Built before anything changes: the gate is the old one or
                // the new one, never a mix.
                let now: BTreeSet<String> = callable.map(String::from).collect();
                let mut why = Reported::default();
                for (n, s) in reported {
                    why.insert(n, s);
                }
                (self.listing, self.callable, self.reported) = (Listing::Current, now, why);
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

    /// A page's [`GuardDecision`]: its passing tools and its events, in
    /// either mode (the proxy's verdicts; in observe mode the caller sends a
    /// refused call anyway, and logs the refusal, as the proxy does).
    pub fn decided(&mut self, page: Page, decision: &GuardDecision) {
        let reported = decision.events.iter().map(|e| (e.tool.as_str(), e.status));
        self.page(page, decision.passed.iter().map(String::as_str), reported);
    }

    /// A listing (or a page of it) that was refused, not passed on: nothing
    /// is callable until a new listing. A cursor or unmatched page refused
    /// before any listing, or after a changed list, leaves that state.
    pub fn refused(&mut self, page: Page) {
        self.callable.clear();
        if page == Page::First || self.listing == Listing::Current {
            self.listing = Listing::Refused;
        }
    }

    /// Whether `name` may be called, and why not (`None`: the request names
    /// no tool).
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
    use alloc::vec::Vec;

    #[test]
    fn the_listing_lifecycle() {
        let mut g = Gate::new();
        assert_eq!(g.check(Some("a")), Err(Refusal::NoListing));
        g.page(
            Page::First,
            ["a"].into_iter(),
            [("b", GuardStatus::Drifted)].into_iter(),
        );
        assert_eq!(g.check(Some("a")), Ok(()));
        assert_eq!(g.check(Some("b")), Err(Refusal::Drifted));
        assert_eq!(g.check(Some("c")), Err(Refusal::NotListed));
        assert_eq!(g.check(None), Err(Refusal::NoName));
        // Page 2 adds.
        g.page(Page::Next, ["c"].into_iter(), [].into_iter());
        assert_eq!(g.check(Some("c")), Ok(()));
        // list_changed: nothing until a new listing, not even by a late page.
        g.list_changed();
        assert_eq!(g.check(Some("a")), Err(Refusal::ListChanged));
        g.page(Page::Next, ["a"].into_iter(), [].into_iter());
        assert_eq!(g.check(Some("a")), Err(Refusal::ListChanged));
        g.page(
            Page::First,
            ["c"].into_iter(),
            [("a", GuardStatus::Unpinned)].into_iter(),
        );
        assert_eq!(g.check(Some("c")), Ok(()));
        assert_eq!(g.check(Some("a")), Err(Refusal::Unpinned));
    }

    #[test]
    fn unmatched_pages_only_take_away_and_refusals_clear() {
        let mut g = Gate::new();
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
        let mut g = Gate::new();
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
        let mut g = Gate::new();
        g.refused(Page::Next);
        g.page(Page::Next, ["a"].into_iter(), [].into_iter());
        assert_eq!(g.check(Some("a")), Err(Refusal::NoListing));
    }

    /// Unrequested pages keep no name they did not take away, and the
    /// reasons of one listing are bounded in bytes.
    #[test]
    fn the_refusal_reasons_are_bounded() {
        let mut g = Gate::new();
        g.page(
            Page::First,
            ["a"].into_iter(),
            [("d", GuardStatus::Drifted)].into_iter(),
        );
        let names: Vec<String> = (0..1000).map(|i| alloc::format!("{i:0>2000}")).collect();
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

    /// A decision gives its passing tools and its events, whatever the mode
    /// it was made in (observe mode keeps the reported tools in the page,
    /// not in the gate: the proxy forwards and logs their calls).
    #[test]
    fn a_decision_gives_its_passing_tools() {
        use crate::digest::Digest;
        use crate::guard::GuardEvent;
        use alloc::vec;
        let event = |tool: &str, status| GuardEvent {
            tool: String::from(tool),
            status,
            changed: Vec::new(),
            live_digest: Digest([7; 32]),
        };
        let decision = GuardDecision {
            result: Vec::new(),
            passed: vec![String::from("a")],
            events: vec![
                event("b", GuardStatus::Drifted),
                event("c", GuardStatus::Unpinned),
            ],
        };
        let mut g = Gate::new();
        g.decided(Page::First, &decision);
        assert_eq!(g.check(Some("a")), Ok(()));
        assert_eq!(g.check(Some("b")), Err(Refusal::Drifted));
        assert_eq!(g.check(Some("c")), Err(Refusal::Unpinned));
        g.decided(Page::Next, &decision);
        assert_eq!(g.check(Some("b")), Err(Refusal::Drifted));
    }

    #[test]
    fn codes_are_distinct_and_reasons_say_something() {
        for (i, a) in Refusal::ALL.iter().enumerate() {
            let (code, reason) = a.texts();
            assert!(code.ends_with('\0') && reason.ends_with('\0'));
            assert!(!a.code().contains('\0') && !a.reason().contains('\0'));
            assert!(a.reason().len() > 20, "{a:?}");
            for b in &Refusal::ALL[i + 1..] {
                assert_ne!(a.code(), b.code());
            }
        }
    }
}
