//! A guarded MCP session, message by message, without threads or I/O: what
//! passes on, what is replaced, answered or dropped, in each direction. The
//! decisions of `contractpin proxy` (which wraps a [`Session`] with its
//! transports and event log, `src/proxy/enforce.rs`) and of a client that
//! embeds the check at its transport (the C ABI's `contractpin_enforcer_*`
//! and the bindings): one home, so both refuse exactly the same messages.
//!
//! Client → server: everything passes on as received, except
//! - a `tools/call` for a tool that is not callable ([`Gate::check`]): in
//!   enforce mode answered with `-32602 Unknown tool: NAME` (the error MCP
//!   specifies) and never passed on; in observe mode passed on and
//!   reported;
//! - a message that is not JSON (or that the strict parser refuses:
//!   duplicate keys, invalid UTF-8, ...) or not a JSON-RPC message:
//!   answered with `-32700` / `-32600` and not passed on, so the server can
//!   never read a message the session read differently.
//!
//! Server → client: everything passes on as received, except
//! - every `tools` result (the answer to a `tools/list` the client sent, or
//!   any response whose `result` has a `tools` member) goes through
//!   [`guard_page`]; in enforce mode its `result` is replaced by the
//!   decision's (non-matching tools removed, every other byte kept), or the
//!   whole response by a `-32603` error ([`OnDrift::Block`], or a page the
//!   guard rejects);
//! - every handshake result (the answer to an `initialize` or
//!   `server/discover` the client sent, or any response whose `result` has
//!   `instructions` and `capabilities`) has its `instructions` compared with
//!   the pin ([`crate::guard::instructions`]); in enforce mode drifted or
//!   added ones are cut out of the result (every other byte kept), or the
//!   whole response becomes a `-32603` error ([`OnDrift::Block`]);
//! - a message that is not a JSON-RPC message is dropped and reported.
//!
//! Batches (JSON arrays) are decided element by element; a batch passes on
//! as received unless an element changes, then it is rebuilt from the other
//! elements' own bytes. Every decision comes with its [`Event`]s
//! ([`events`]).

pub mod events;
mod lenient;
pub(crate) mod message;
mod requests;

use alloc::string::String;
use alloc::vec::Vec;

use crate::guard::gate::{Gate, Page};
use crate::guard::instructions::{self, Finding};
use crate::guard::{guard_page, GuardMode, GuardStatus};
use crate::json::{Tag, Value};
use crate::lock::LockServer;
use crate::{jcs, Limits};

pub use events::{Dropped, Event};
use message::{
    error_response, id_key, kind, looks_like_message, span, splice, Kind, Scratch, NOT_A_MESSAGE,
};
use requests::Requests;

/// JSON-RPC: invalid parameters (and MCP's "Unknown tool").
pub(crate) const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC: internal error.
pub(crate) const INTERNAL_ERROR: i64 = -32603;
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
/// Tool names named at most in an [`OnDrift::Block`] error.
const NAMED_IN_ERROR: usize = 20;
/// Bytes of a dropped message shown in its `skipped` event.
const SHOWN_OF_DROPPED: usize = 80;
/// Dropped messages of each [`Dropped`] kind reported one by one in a
/// session (a `skipped` event each); the rest are only counted
/// ([`Session::summary`]). A server writing 2-byte junk lines made
/// the proxy's log ~89 times its output; a junk flood cannot hide the
/// refused messages after it (each kind has its own count).
pub const REPORTED_SKIPS: usize = 100;
/// Events one decision reports at most (a page of `max_tools` drifted
/// tools is 100,000 by default); past it they are counted into one
/// `events-cut` event, so that a hostile batch cannot make a decision hold
/// far more memory than its message.
pub const MAX_DECISION_EVENTS: usize = 100_000;

/// What enforce mode does with a listing that has drifted or unpinned tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnDrift {
    /// Remove those tools from the page (the default): the client sees the
    /// tools that match their pins.
    Hide,
    /// Answer the whole `tools/list` request with a JSON-RPC error
    /// (`-32603`) naming them: the client sees no tool of that listing.
    /// Drifted or added instructions make the answer to the client's
    /// `initialize` (or `server/discover`) such an error too: its
    /// handshake fails.
    Block,
}

/// What a session enforces, for one server.
#[derive(Clone, Debug)]
pub struct Policy {
    /// The server's name in the lock.
    pub server: String,
    /// Its pins.
    pub pinned: LockServer,
    /// Enforce or observe.
    pub mode: GuardMode,
    /// Hide drifted tools or block the listing.
    pub on_drift: OnDrift,
    /// Limits for checking a page.
    pub limits: Limits,
    /// Compare the handshake's `instructions` with the pin (`false`: the
    /// proxy's `--ignore-instructions`).
    pub check_instructions: bool,
    /// The longest message read (a longer one is not JSON the session can
    /// read: answered `-32700` from the client, dropped from the server);
    /// at most [`crate::MAX_INPUT`].
    pub max_message: usize,
}

/// What to pass on for one message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Forward {
    /// The message as received.
    Same,
    /// These bytes instead (a page with tools removed, a rebuilt batch, an
    /// error answer in place of a server's response).
    Replaced(Vec<u8>),
    /// Nothing.
    Nothing,
}

/// The decision on one message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// What goes on toward the other side.
    pub forward: Forward,
    /// The session's own answer to the sender (only for a client message:
    /// the error for a refused call or a message it could not read).
    pub reply: Option<Vec<u8>>,
    /// What happened, in order.
    pub events: Vec<Event>,
}

/// The decision on one element.
enum Elem {
    Keep,
    Replace(Vec<u8>),
    Drop(Dropped, String),
}

/// The state of one guarded session.
#[derive(Debug)]
pub struct Session {
    policy: Policy,
    gate: Gate,
    requests: Requests,
    scratch: Scratch,
    /// The events of the decision under way.
    events: Vec<Event>,
    /// Events of the decision under way past [`MAX_DECISION_EVENTS`].
    cut: usize,
    skipped: usize,
    /// Per [`Dropped`] kind: dropped messages reported one by one, and
    /// those only counted since the last [`Session::summary`].
    skips: [(usize, u64); 2],
}

impl Session {
    /// A new session: nothing is callable until a listing passed.
    pub fn new(policy: Policy) -> Session {
        Session {
            policy,
            gate: Gate::default(),
            requests: Requests::default(),
            scratch: Scratch::default(),
            events: Vec::new(),
            cut: 0,
            skipped: 0,
            skips: [(0, 0); 2],
        }
    }

    /// What the session enforces.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Messages from the server dropped so far.
    pub fn skipped(&self) -> usize {
        self.skipped
    }

    /// Dropped messages of `kind` past the first [`REPORTED_SKIPS`] of the
    /// session (which got an event each), not taken yet.
    pub fn unreported(&self, kind: Dropped) -> u64 {
        self.skips[kind as usize].1
    }

    /// The `skipped-more` event of the [`unreported`](Self::unreported)
    /// drops of `kind`, which are then counted from zero again; `None`
    /// when there are none. The proxy logs one at most once a minute while
    /// they keep coming, and one at the end of the session.
    pub fn summary(&mut self, kind: Dropped) -> Option<Event> {
        let n = core::mem::take(&mut self.skips[kind as usize].1);
        (n > 0).then(|| Event::skipped_more(&self.policy.server, kind, n))
    }

    /// Adds an event to the decision under way (counted past
    /// [`MAX_DECISION_EVENTS`]).
    fn push(&mut self, e: Event) {
        if self.events.len() < MAX_DECISION_EVENTS {
            self.events.push(e);
        } else {
            self.cut += 1;
        }
    }

    /// Starts a decision: nothing carried over from one a panic cut short.
    fn begin(&mut self) {
        self.events.clear();
        self.cut = 0;
    }

    /// Ends a decision: its events, with the count of those cut.
    fn decided(&mut self, forward: Forward, reply: Option<Vec<u8>>) -> Decision {
        let mut events = core::mem::take(&mut self.events);
        if self.cut > 0 {
            events.push(Event::cut(&self.policy.server, self.cut));
        }
        Decision {
            forward,
            reply,
            events,
        }
    }

    fn enforcing(&self) -> bool {
        self.policy.mode == GuardMode::Enforce
    }

    fn event(&mut self, status: &str, tool: Option<&str>, reason: Option<&str>) {
        let e = Event::new(&self.policy.server, status, tool, reason);
        self.push(e);
    }

    /// Parses `message` with the session's scratch and hands the root (or
    /// the error) to `f`.
    fn parsed<R>(
        &mut self,
        message: &[u8],
        f: impl FnOnce(&mut Self, Result<Value<'_>, crate::Error>) -> R,
    ) -> R {
        let mut scratch = core::mem::take(&mut self.scratch);
        let max = self.policy.max_message;
        let r = scratch.with(message, max, |tape| f(self, tape.map(|t| t.root())));
        self.scratch = scratch;
        r
    }

    /// Decides one message the client sends (one JSON-RPC message or batch,
    /// without a trailing newline).
    pub fn client(&mut self, message: &[u8]) -> Decision {
        self.begin();
        let (forward, reply) = if is_blank(message) {
            (Forward::Nothing, None)
        } else {
            self.parsed(message, |s, root| s.client_root(message, root))
        };
        self.decided(forward, reply)
    }

    fn client_root(
        &mut self,
        input: &[u8],
        root: Result<Value<'_>, crate::Error>,
    ) -> (Forward, Option<Vec<u8>>) {
        let root = match root {
            Ok(root) => root,
            Err(e) => return answer_only(unreadable(input, e)),
        };
        match root.tag() {
            Tag::Object => match self.client_elem(input, root) {
                Elem::Keep => (Forward::Same, None),
                Elem::Replace(answer) => answer_only(answer),
                Elem::Drop(..) => (Forward::Nothing, None),
            },
            Tag::Array if root.elements().next().is_some() => self.client_batch(input, root),
            _ => answer_only(error_response(
                b"null",
                INVALID_REQUEST,
                "Invalid Request",
                None,
            )),
        }
    }

    fn client_batch(&mut self, input: &[u8], root: Value<'_>) -> (Forward, Option<Vec<u8>>) {
        let mut kept = Vec::new();
        let mut answers = Vec::new();
        let mut changed = false;
        for el in root.elements() {
            match self.client_elem(input, el) {
                Elem::Keep => kept.push(input[span(input, el)].to_vec()),
                Elem::Replace(a) => {
                    answers.push(a);
                    changed = true;
                }
                Elem::Drop(..) => changed = true,
            }
        }
        let forward = match (changed, kept.is_empty()) {
            (false, _) => Forward::Same,
            (true, true) => Forward::Nothing,
            (true, false) => Forward::Replaced(message::array_of(&kept)),
        };
        let reply = (!answers.is_empty()).then(|| message::array_of(&answers));
        (forward, reply)
    }

    /// One client message: `Replace` carries the session's answer.
    fn client_elem(&mut self, input: &[u8], m: Value<'_>) -> Elem {
        match kind(m) {
            Kind::Request { method, id } if method.str_eq("tools/list") => {
                if let Some(key) = id_key(id) {
                    let cursor = m.get("params").and_then(|p| p.get("cursor"));
                    self.requests
                        .listed(key, cursor.is_none_or(|c| c.is_null()));
                }
                Elem::Keep
            }
            Kind::Request { method, id } if method.str_eq("tools/call") => {
                self.call(m, Some(&input[span(input, id)]))
            }
            Kind::Request { method, id }
                if method.str_eq("initialize") || method.str_eq("server/discover") =>
            {
                if let Some(key) = id_key(id) {
                    self.requests.asked(key);
                }
                self.declared(input, m);
                Elem::Keep
            }
            Kind::Notification { method } if method.str_eq("tools/call") => self.call(m, None),
            Kind::Request { .. } | Kind::Notification { .. } | Kind::Response { .. } => Elem::Keep,
            Kind::Invalid(_) => Elem::Replace(error_response(
                answer_id(input, m),
                INVALID_REQUEST,
                "Invalid Request",
                None,
            )),
        }
    }

    /// Reports who the client is and what it declared, and warns when its
    /// capabilities differ from those the lock entry was pinned with (a
    /// server may list other tools to it). The message itself passes on.
    fn declared(&mut self, input: &[u8], m: Value<'_>) {
        let Some(params) = m.get("params") else {
            return;
        };
        let raw = &input[span(input, params)];
        let declared = crate::lock::capabilities_of_initialize(raw).unwrap_or_default();
        let who = client_info(params);
        let pinned = self
            .policy
            .pinned
            .client_capabilities
            .clone()
            .unwrap_or_default();
        let said = alloc::format!(
            "{who} declared capabilities {}; pinned with {}",
            listed(&declared),
            listed(&pinned)
        );
        self.event("client", None, Some(&said));
        let (missing, extra) = crate::lock::capability_difference(&pinned, &declared);
        if missing.is_empty() && extra.is_empty() {
            return;
        }
        let warning = alloc::format!(
            "the client declares {} but the lock was pinned with {}: the server may list \
             other tools to it; pin for this client (init --client-capabilities {})",
            listed(&declared),
            listed(&pinned),
            listed(&declared)
        );
        self.event("capabilities-differ", None, Some(&warning));
    }

    /// A `tools/call` (`id`: the raw id, `None` for a notification).
    fn call(&mut self, m: Value<'_>, id: Option<&[u8]>) -> Elem {
        let name = m
            .get("params")
            .and_then(|p| p.get("name"))
            .filter(|n| n.tag() == Tag::String)
            .and_then(message::decode);
        let Err(why) = self.gate.check(name.as_deref()) else {
            return Elem::Keep;
        };
        let shown = name.as_deref().unwrap_or("");
        if !self.enforcing() {
            self.event("call-unverified", Some(shown), Some(why.code()));
            return Elem::Keep;
        }
        self.event("call-refused", Some(shown), Some(why.code()));
        let Some(id) = id else {
            return Elem::Drop(Dropped::Refused, "a tools/call notification".into());
        };
        let why_text = alloc::format!("contractpin proxy: {}", why.reason());
        let data = message::string_object(&[("contractpin", &why_text)]);
        Elem::Replace(error_response(
            id,
            INVALID_PARAMS,
            &alloc::format!("Unknown tool: {shown}"),
            Some(&data),
        ))
    }

    /// Decides one message from the server (one JSON-RPC message or batch,
    /// without a trailing newline).
    pub fn server(&mut self, message: &[u8]) -> Decision {
        self.begin();
        let forward = if is_blank(message) {
            Forward::Nothing
        } else {
            match self.parsed(message, |s, root| s.server_root(message, root)) {
                Elem::Keep => Forward::Same,
                Elem::Replace(b) => Forward::Replaced(b),
                Elem::Drop(kind, why) => {
                    self.skip(message, kind, &why);
                    Forward::Nothing
                }
            }
        };
        self.decided(forward, None)
    }

    fn server_root(&mut self, input: &[u8], root: Result<Value<'_>, crate::Error>) -> Elem {
        let root = match root {
            Ok(r) => r,
            // A message that looks like one (a duplicate key, a lone
            // surrogate) is refused; anything else is junk.
            Err(e) if looks_like_message(input) => {
                return Elem::Drop(Dropped::Refused, alloc::format!("not valid JSON ({e})"))
            }
            Err(e) => return Elem::Drop(Dropped::Junk, alloc::format!("not valid JSON ({e})")),
        };
        match root.tag() {
            Tag::Object => self.server_elem(input, root),
            Tag::Array if root.elements().next().is_some() => self.server_batch(input, root),
            _ => Elem::Drop(Dropped::Junk, NOT_A_MESSAGE.into()),
        }
    }

    fn server_batch(&mut self, input: &[u8], root: Value<'_>) -> Elem {
        let mut parts = Vec::new();
        let mut changed = false;
        for el in root.elements() {
            match self.server_elem(input, el) {
                Elem::Keep => parts.push(input[span(input, el)].to_vec()),
                Elem::Replace(b) => {
                    parts.push(b);
                    changed = true;
                }
                Elem::Drop(kind, why) => {
                    let why = alloc::format!("in a batch: {why}");
                    self.skip(&input[span(input, el)], kind, &why);
                    changed = true;
                }
            }
        }
        match (changed, parts.is_empty()) {
            (false, _) => Elem::Keep,
            (true, true) => Elem::Drop(
                Dropped::Refused,
                "a batch with nothing left to forward".into(),
            ),
            (true, false) => Elem::Replace(message::array_of(&parts)),
        }
    }

    fn server_elem(&mut self, input: &[u8], m: Value<'_>) -> Elem {
        match kind(m) {
            Kind::Notification { method } => {
                if method.str_eq("notifications/tools/list_changed") {
                    self.gate.list_changed();
                }
                Elem::Keep
            }
            Kind::Request { .. } => Elem::Keep,
            Kind::Response { id, result } => {
                let key = id_key(id);
                let page = self.requests.page(key.as_ref());
                let asked = self.requests.handshake(key.as_ref());
                let Some(r) = result else {
                    return Elem::Keep;
                };
                let tools = r.tag() == Tag::Object && has_member(r, "tools");
                let page = page.or(tools.then_some(Page::Unmatched));
                let handshake = asked || looks_like_handshake(r);
                match (handshake && self.policy.check_instructions, page) {
                    (true, page) => self.check_handshake(input, m, id, r, page),
                    (false, Some(p)) => self.check_page(input, m, id, r, p),
                    (false, None) => Elem::Keep,
                }
            }
            Kind::Invalid(why) if why == NOT_A_MESSAGE => Elem::Drop(Dropped::Junk, why.into()),
            Kind::Invalid(why) => Elem::Drop(Dropped::Refused, why.into()),
        }
    }

    /// A `tools` result of response `m`: guarded, the gate updated; a
    /// replacement is the response `m` alone.
    fn check_page(
        &mut self,
        input: &[u8],
        m: Value<'_>,
        id: Value<'_>,
        result: Value<'_>,
        page: Page,
    ) -> Elem {
        let p = &self.policy;
        let range = span(input, result);
        let id_raw = &input[span(input, id)];
        let decision = match guard_page(&p.pinned, &input[range.clone()], p.mode, &p.limits) {
            Ok(d) => d,
            Err(e) => return self.unchecked_page(id_raw, page, &alloc::format!("{e}")),
        };
        for e in &decision.events {
            let e = Event::guard(&self.policy.server, e);
            self.push(e);
        }
        let enforcing = self.enforcing();
        if enforcing && self.policy.on_drift == OnDrift::Block && !decision.events.is_empty() {
            self.gate.refused(page);
            let names = drift_list(&decision.events);
            self.event("listing-blocked", None, Some(&names));
            let msg = alloc::format!(
                "contractpin proxy: the tools of server {:?} differ from contractpin.lock ({names}); \
                 the listing is blocked (--on-drift block)",
                self.policy.server
            );
            return Elem::Replace(error_response(id_raw, INTERNAL_ERROR, &msg, None));
        }
        self.gate.decided(page, &decision);
        if decision.events.is_empty() || !enforcing {
            return Elem::Keep;
        }
        let whole = span(input, m);
        let inner = range.start - whole.start..range.end - whole.start;
        Elem::Replace(splice(&input[whole], inner, &decision.result))
    }

    /// A handshake result of response `m`: its instructions checked, then,
    /// when it is a `tools` result too (`page`), its tools.
    fn check_handshake(
        &mut self,
        input: &[u8],
        m: Value<'_>,
        id: Value<'_>,
        result: Value<'_>,
        page: Option<Page>,
    ) -> Elem {
        let finding = instructions::check(input, result, self.policy.pinned.instructions_digest)
            .filter(|f| f.status != crate::verify::InstructionsStatus::Unchanged);
        let cut = match finding {
            None => None,
            Some(f) => match self.on_instructions(&input[span(input, id)], &f) {
                Err(blocked) => {
                    if let Some(p) = page {
                        self.gate.refused(p);
                    }
                    return blocked;
                }
                Ok(cut) => cut,
            },
        };
        let Some(cut) = cut else {
            return match page {
                Some(p) => self.check_page(input, m, id, result, p),
                None => Elem::Keep,
            };
        };
        let whole = span(input, m);
        let inner = cut.start - whole.start..cut.end - whole.start;
        let stripped = splice(&input[whole], inner, b"");
        match page {
            None => Elem::Replace(stripped),
            // A handshake result with tools too (a hostile server's): its
            // tools are guarded as well, in the stripped message.
            Some(p) => self.then_page(stripped, p),
        }
    }

    /// Reports instructions that do not match; the range to cut out of the
    /// input (`Ok(None)`: nothing), or the error answer
    /// ([`OnDrift::Block`], and instructions under a case-variant key,
    /// which cannot be cut).
    fn on_instructions(
        &mut self,
        id_raw: &[u8],
        f: &Finding,
    ) -> Result<Option<core::ops::Range<usize>>, Elem> {
        let enforcing = self.enforcing();
        if f.variant && enforcing {
            return Err(self.block_handshake(id_raw, f, "a case-variant key cannot be cut"));
        }
        if f.cut.is_none() || !enforcing {
            self.instructions_event(f, &f.reason(false));
            return Ok(None);
        }
        if self.policy.on_drift == OnDrift::Block {
            return Err(self.block_handshake(id_raw, f, "--on-drift block"));
        }
        self.instructions_event(f, &f.reason(true));
        Ok(f.cut.clone())
    }

    fn instructions_event(&mut self, f: &Finding, reason: &str) {
        let e = Event::instructions(&self.policy.server, f, reason);
        self.push(e);
    }

    /// Reports instructions that do not match and answers the handshake
    /// with an error instead (`why`: the block's cause, for the message).
    fn block_handshake(&mut self, id_raw: &[u8], f: &Finding, why: &str) -> Elem {
        let what = f.what();
        let reason = alloc::format!(
            "the server's instructions {what}; the handshake answer is blocked ({why})"
        );
        self.instructions_event(f, &reason);
        let msg = alloc::format!(
            "contractpin proxy: the instructions of server {:?} do not match contractpin.lock \
             ({}: they {what}); the handshake is blocked ({why})",
            self.policy.server,
            f.status.name()
        );
        Elem::Replace(error_response(id_raw, INTERNAL_ERROR, &msg, None))
    }

    /// Message `bytes` (a handshake result the session changed) checked as
    /// a `tools` result too.
    fn then_page(&mut self, bytes: Vec<u8>, page: Page) -> Elem {
        let checked = self.parsed(&bytes, |s, root| {
            let Kind::Response {
                id,
                result: Some(r),
            } = kind(root.ok()?)
            else {
                return None;
            };
            Some(s.check_page(&bytes, root.ok()?, id, r, page))
        });
        match checked {
            Some(Elem::Keep) | None => Elem::Replace(bytes),
            Some(other) => other,
        }
    }

    /// A page the guard rejected: an error (enforce) or passed on (observe).
    fn unchecked_page(&mut self, id_raw: &[u8], page: Page, why: &str) -> Elem {
        if !self.enforcing() {
            self.event("page-unchecked", None, Some(why));
            return Elem::Keep;
        }
        self.event("page-rejected", None, Some(why));
        self.gate.refused(page);
        let msg = alloc::format!(
            "contractpin proxy: the server's tools/list answer was rejected ({why}); \
             no tool of it reaches the client"
        );
        Elem::Replace(error_response(id_raw, INTERNAL_ERROR, &msg, None))
    }

    /// Counts a dropped message; the first [`REPORTED_SKIPS`] of its kind
    /// get a `skipped` event.
    fn skip(&mut self, message: &[u8], kind: Dropped, why: &str) {
        self.skipped += 1;
        let (reported, unreported) = &mut self.skips[kind as usize];
        if *reported >= REPORTED_SKIPS {
            *unreported += 1;
            return;
        }
        *reported += 1;
        let head = String::from_utf8_lossy(&message[..message.len().min(SHOWN_OF_DROPPED)]);
        let reason = alloc::format!("{why}; not forwarded: `{}`", crate::escape::one_line(&head));
        let e = Event::skipped(&self.policy.server, kind, &reason);
        self.push(e);
    }
}

/// `NAME VERSION` of the client's `clientInfo` (`?` for what is missing),
/// escaped.
fn client_info(params: Value<'_>) -> String {
    let info = params.get("clientInfo").or_else(|| {
        params
            .get("_meta")
            .and_then(|x| x.get("io.modelcontextprotocol/clientInfo"))
    });
    let text = |key: &str| {
        info.and_then(|i| i.get(key))
            .and_then(|v| v.as_plain_str())
            .map(crate::escape::escape)
            .unwrap_or_else(|| String::from("?"))
    };
    alloc::format!("{} {}", text("name"), text("version"))
}

/// The id to answer message `m` with when the session cannot take it: its
/// own when it is a string or a number (JSON-RPC answers with `null` only
/// when the id cannot be determined), else `null`.
fn answer_id<'a>(input: &'a [u8], m: Value<'_>) -> &'a [u8] {
    match m.get("id") {
        Some(id) if matches!(id.tag(), Tag::String | Tag::Number) => &input[span(input, id)],
        _ => b"null",
    }
}

/// The answer to a client message the strict parser refused: a request
/// stopped at a limit (depth, size) is answered by its id when a lenient
/// scan finds one (`-32600`); anything else (a response, a notification,
/// a syntax error) is `-32700` with a `null` id.
fn unreadable(input: &[u8], e: crate::Error) -> Vec<u8> {
    let limit = matches!(
        e.kind(),
        crate::ErrorKind::DepthLimit | crate::ErrorKind::SizeLimit
    );
    match limit.then(|| lenient::top_level_id(input)).flatten() {
        Some(id) => {
            let reason = alloc::format!("contractpin proxy: the message cannot be checked ({e})");
            let mut data = Vec::with_capacity(reason.len() + 2);
            jcs::write_str(&mut data, &reason);
            error_response(id, INVALID_REQUEST, "Invalid Request", Some(&data))
        }
        None => error_response(b"null", PARSE_ERROR, "Parse error", None),
    }
}

/// `a,b`, or `none`.
fn listed(v: &[String]) -> String {
    if v.is_empty() {
        String::from("none")
    } else {
        v.join(",")
    }
}

/// Whether `result` looks like a handshake result although its id matched
/// no handshake request the client sent (its keys compared under case
/// folding: a case-insensitive client would take `Instructions` for one).
/// Every handshake result the SDK clients accept declares `capabilities`;
/// a hostile server can make the TypeScript SDK take an id such as `"0x0"`
/// for `0`.
fn looks_like_handshake(result: Value<'_>) -> bool {
    result.tag() == Tag::Object
        && has_member(result, "instructions")
        && has_member(result, "capabilities")
}

/// Whether object `obj` has a member `name`, exactly or as a case variant
/// ([`crate::contract::variant`]).
fn has_member(obj: Value<'_>, name: &str) -> bool {
    obj.get(name).is_some() || crate::contract::variant::variant_member(obj, &[name]).is_some()
}

/// `send_email (drifted: description), x (unpinned)`, at most
/// [`NAMED_IN_ERROR`] names.
fn drift_list(events: &[crate::guard::GuardEvent]) -> String {
    let mut out = String::new();
    for (i, e) in events.iter().take(NAMED_IN_ERROR).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&crate::escape::one_line(&e.tool));
        match e.status {
            GuardStatus::Unpinned => out.push_str(" (unpinned)"),
            GuardStatus::Drifted => {
                let fields: Vec<&str> = e.changed.iter().map(|f| f.name()).collect();
                out.push_str(&alloc::format!(" (drifted: {})", fields.join(", ")));
            }
        }
    }
    if events.len() > NAMED_IN_ERROR {
        out.push_str(&alloc::format!(
            " and {} more",
            events.len() - NAMED_IN_ERROR
        ));
    }
    out
}

fn answer_only(answer: Vec<u8>) -> (Forward, Option<Vec<u8>>) {
    (Forward::Nothing, Some(answer))
}

fn is_blank(message: &[u8]) -> bool {
    message.iter().all(|b| b" \t\r\n".contains(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lock::Source;

    fn session() -> Session {
        let digests = crate::digest_tools_list(br#"{"tools":[]}"#).unwrap();
        Session::new(Policy {
            server: "srv".into(),
            pinned: LockServer::from_server_digest(Source::File { path: "x".into() }, &digests),
            mode: GuardMode::Enforce,
            on_drift: OnDrift::Hide,
            limits: Limits::DEFAULT,
            check_instructions: true,
            max_message: 1 << 20,
        })
    }

    /// A client message the parser stops reading at a limit is answered by
    /// its own id (the Go SDK ends the session on a null-id error); any
    /// other it cannot read gets JSON-RPC's parse error, id null. Nothing
    /// is sent on either way.
    #[test]
    fn a_client_message_over_a_limit_is_answered_by_its_id() {
        let mut s = session();
        let deep = "[".repeat(300) + &"]".repeat(300);
        let call = alloc::format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"x","arguments":{{"a":{deep}}}}}}}"#
        );
        let d = s.client(call.as_bytes());
        assert_eq!(d.forward, Forward::Nothing);
        let reply = String::from_utf8(d.reply.unwrap()).unwrap();
        let head = r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request","data":"contractpin proxy: the message cannot be checked (depth-limit at byte "#;
        assert!(reply.starts_with(head), "{reply}");
        let long = alloc::format!(
            r#"{{"jsonrpc":"2.0","id":"q","method":"ping","params":{{"pad":"{}"}}}}"#,
            "a".repeat(2 << 20)
        );
        let d = s.client(long.as_bytes());
        assert_eq!(d.forward, Forward::Nothing);
        let reply = String::from_utf8(d.reply.unwrap()).unwrap();
        assert!(
            reply.starts_with(r#"{"jsonrpc":"2.0","id":"q","error":{"code":-32600,"#)
                && reply.contains("size-limit"),
            "{reply}"
        );
        // A response of the client (to a server's request) over a limit is
        // not answered by its id: that id numbers the server's request.
        let response = alloc::format!(r#"{{"jsonrpc":"2.0","id":7,"result":{{"a":{deep}}}}}"#);
        let d = s.client(response.as_bytes());
        assert_eq!(d.forward, Forward::Nothing);
        assert_eq!(
            d.reply.unwrap(),
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#
        );
        let d = s.client(br#"{"jsonrpc":"2.0","id":8,"method":"ping""#);
        assert_eq!(d.forward, Forward::Nothing);
        assert_eq!(
            d.reply.unwrap(),
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#
        );
    }

    /// The first REPORTED_SKIPS drops of each kind get an event each; the
    /// rest are counted, per kind, until taken.
    #[test]
    fn drops_past_the_first_are_counted_not_reported() {
        let mut s = session();
        for _ in 0..REPORTED_SKIPS + 3 {
            let d = s.server(b"junk");
            assert_eq!(d.forward, Forward::Nothing);
        }
        // A refused message after the junk flood still gets its event.
        let d = s.server(br#"{"jsonrpc":"2.0","id":1,"result":{},"Result":{}}"#);
        assert_eq!(d.events.len(), 1);
        assert_eq!(d.events[0].dropped(), Some(Dropped::Refused));
        assert!(s.server(b"junk").events.is_empty());
        assert_eq!(s.skipped(), REPORTED_SKIPS + 5);
        assert_eq!(s.unreported(Dropped::Junk), 4);
        let summary = s.summary(Dropped::Junk).expect("a summary of the junk");
        assert_eq!(
            core::str::from_utf8(summary.json()).unwrap(),
            r#"{"count":4,"reason":"4 more server line(s) that are not JSON-RPC messages were dropped; only the first 100 of a session are logged one by one","server":"srv","status":"skipped-more"}"#
        );
        assert_eq!(s.unreported(Dropped::Junk), 0);
        assert!(s.summary(Dropped::Junk).is_none());
        assert!(s.summary(Dropped::Refused).is_none());
        // A batch of junk elements is bounded the same way, within one
        // decision: memory does not grow with the elements (the batch
        // itself, left empty, is a refused message).
        let d = s.server(b"[1,2,3]");
        assert_eq!(d.events.len(), 1);
        assert_eq!(d.events[0].dropped(), Some(Dropped::Refused));
        assert_eq!(s.unreported(Dropped::Junk), 3);
    }

    /// One decision holds at most MAX_DECISION_EVENTS events, then one that
    /// counts the rest; a decision starts with none (not even those of one a
    /// panic cut short).
    #[test]
    fn a_decision_reports_a_bounded_number_of_events() {
        let mut s = session();
        for _ in 0..MAX_DECISION_EVENTS + 5 {
            s.event("x", None, None);
        }
        let d = s.decided(Forward::Nothing, None);
        assert_eq!(d.events.len(), MAX_DECISION_EVENTS + 1);
        let last = core::str::from_utf8(d.events[MAX_DECISION_EVENTS].json()).unwrap();
        assert!(last.starts_with(r#"{"count":5,"#) && last.ends_with(r#""status":"events-cut"}"#));
        s.event("left-over", None, None);
        let d = s.client(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        assert_eq!((d.forward, d.events.len()), (Forward::Same, 0));
    }
}
