//! The decisions on each message, without threads or I/O: what the proxy
//! forwards, replaces, answers itself or drops, in each direction.
//!
//! Client → server: everything is forwarded as received, except
//! - a `tools/call` for a tool that is not callable ([`Gate::check`]): in
//!   enforce mode answered by the proxy with `-32602 Unknown tool: NAME`
//!   (the error MCP specifies) and never forwarded; in observe mode
//!   forwarded and logged;
//! - a line that is not JSON (or that the strict parser refuses: duplicate
//!   keys, invalid UTF-8, ...) or not a JSON-RPC message: answered with
//!   `-32700` / `-32600` and not forwarded, so the server can never read a
//!   message the proxy read differently.
//!
//! Server → client: everything is forwarded as received, except
//! - every `tools` result (the answer to a forwarded `tools/list`, or any
//!   response whose `result` has a `tools` member) goes through
//!   [`guard_page`]; in enforce mode its `result` is replaced by the
//!   decision's (non-matching tools removed, every other byte kept), or the
//!   whole response by a `-32603` error (`--on-drift block`, or a page the
//!   guard rejects);
//! - every handshake result (the answer to a forwarded `initialize` or
//!   `server/discover`, or any response whose `result` has `instructions`
//!   and `capabilities`) has its `instructions` compared with the pin
//!   (`src/proxy/instructions.rs`); in enforce mode drifted or added ones
//!   are cut out of the result (every other byte kept), or the whole
//!   response becomes a `-32603` error (`--on-drift block`);
//! - a line that is not a JSON-RPC message is dropped and logged.
//!
//! Batches (JSON arrays) are decided element by element; a batch is
//! forwarded as received unless an element changes, then rebuilt from the
//! other elements' own bytes.

use std::string::String;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::vec::Vec;

use crate::guard::{guard_page, GuardMode, GuardStatus};
use crate::json::{Tag, Value};
use crate::lock::LockServer;
use crate::Limits;

use super::gate::{Gate, Page};
use super::instructions::{self, has_member, Finding, Handshakes};
use super::log::{Dropped, EventLog};
use super::message::{
    self, error_response, id_key, kind, looks_like_message, span, splice, Kind, Scratch,
    NOT_A_MESSAGE,
};
use super::OnDrift;

/// JSON-RPC: invalid parameters (and MCP's "Unknown tool").
pub(crate) const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC: internal error.
pub(crate) const INTERNAL_ERROR: i64 = -32603;
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
/// Tool names named at most in a `--on-drift block` error.
const NAMED_IN_ERROR: usize = 20;

/// What the proxy enforces, for one server.
pub(crate) struct Policy {
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
    /// Compare the handshake's `instructions` with the pin (not with
    /// `--ignore-instructions`).
    pub check_instructions: bool,
}

/// What to send the server for one client line.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ToServer {
    /// The line as received.
    Same,
    /// A rebuilt batch.
    Rebuilt(Vec<u8>),
    /// Nothing.
    Nothing,
}

/// The decision on one client line.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct FromClient {
    /// What goes to the server.
    pub forward: ToServer,
    /// The proxy's own answer to the client (a whole line, with newline).
    pub reply: Option<Vec<u8>>,
}

/// The decision on one element.
enum Elem {
    Keep,
    Replace(Vec<u8>),
    Drop(Skip),
}

/// Why an element is dropped, and of which kind for the log's limits.
struct Skip {
    kind: Dropped,
    reason: String,
}

impl Skip {
    /// Stray output: not JSON, or JSON that is not a JSON-RPC message.
    fn junk(reason: impl Into<String>) -> Elem {
        Elem::Drop(Skip {
            kind: Dropped::Junk,
            reason: reason.into(),
        })
    }

    /// A message the proxy refuses to forward.
    fn refused(reason: impl Into<String>) -> Elem {
        Elem::Drop(Skip {
            kind: Dropped::Refused,
            reason: reason.into(),
        })
    }
}

/// The enforcement state shared by the proxy's threads.
pub(crate) struct Enforcer {
    policy: Policy,
    gate: Mutex<Gate>,
    handshakes: Mutex<Handshakes>,
    log: EventLog,
    skipped: AtomicUsize,
}

impl Enforcer {
    /// A new session's enforcer.
    pub fn new(policy: Policy, log: EventLog) -> Enforcer {
        Enforcer {
            policy,
            gate: Mutex::new(Gate::default()),
            handshakes: Mutex::new(Handshakes::default()),
            log,
            skipped: AtomicUsize::new(0),
        }
    }

    /// The log (for the pump's own messages).
    pub fn log(&self) -> &EventLog {
        &self.log
    }

    /// Lines from the server dropped so far.
    pub fn skipped(&self) -> usize {
        self.skipped.load(Ordering::Relaxed)
    }

    fn gate(&self) -> MutexGuard<'_, Gate> {
        // Every update is a few map operations: valid after any panic.
        self.gate.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn handshakes(&self) -> MutexGuard<'_, Handshakes> {
        self.handshakes.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn enforcing(&self) -> bool {
        self.policy.mode == GuardMode::Enforce
    }

    /// Decides one line from the client (no newline).
    pub fn client(&self, line: &[u8], scratch: &mut Scratch) -> FromClient {
        if is_blank(line) {
            return FromClient {
                forward: ToServer::Nothing,
                reply: None,
            };
        }
        scratch.with(line, |tape| {
            let Ok(tape) = tape else {
                return answer_only(error_response(b"null", PARSE_ERROR, "Parse error", None));
            };
            let root = tape.root();
            match root.tag() {
                Tag::Object => match self.client_elem(line, root) {
                    Elem::Keep => FromClient {
                        forward: ToServer::Same,
                        reply: None,
                    },
                    Elem::Replace(answer) => answer_only(answer),
                    Elem::Drop(_) => FromClient {
                        forward: ToServer::Nothing,
                        reply: None,
                    },
                },
                Tag::Array if root.elements().next().is_some() => self.client_batch(line, root),
                _ => answer_only(error_response(
                    b"null",
                    INVALID_REQUEST,
                    "Invalid Request",
                    None,
                )),
            }
        })
    }

    fn client_batch(&self, line: &[u8], root: Value<'_>) -> FromClient {
        let mut kept = Vec::new();
        let mut answers = Vec::new();
        let mut changed = false;
        for el in root.elements() {
            match self.client_elem(line, el) {
                Elem::Keep => kept.push(line[span(line, el)].to_vec()),
                Elem::Replace(a) => {
                    answers.push(a);
                    changed = true;
                }
                Elem::Drop(_) => changed = true,
            }
        }
        let forward = match (changed, kept.is_empty()) {
            (false, _) => ToServer::Same,
            (true, true) => ToServer::Nothing,
            (true, false) => ToServer::Rebuilt(message::array_of(&kept)),
        };
        let reply = (!answers.is_empty()).then(|| with_newline(message::array_of(&answers)));
        FromClient { forward, reply }
    }

    /// One client message: `Replace` carries the proxy's answer.
    fn client_elem(&self, input: &[u8], m: Value<'_>) -> Elem {
        match kind(m) {
            Kind::Request { method, id } if method.str_eq("tools/list") => {
                if let Some(key) = id_key(id) {
                    let cursor = m.get("params").and_then(|p| p.get("cursor"));
                    let first = cursor.is_none_or(|c| c.is_null());
                    self.gate().listed(key, first);
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
                    self.handshakes().asked(key);
                }
                self.declared(input, m);
                Elem::Keep
            }
            Kind::Notification { method } if method.str_eq("tools/call") => self.call(m, None),
            Kind::Request { .. } | Kind::Notification { .. } | Kind::Response { .. } => Elem::Keep,
            Kind::Invalid(_) => Elem::Replace(error_response(
                b"null",
                INVALID_REQUEST,
                "Invalid Request",
                None,
            )),
        }
    }

    /// Logs who the real client is and what it declared, and warns when its
    /// capabilities differ from those the lock entry was pinned with (a
    /// server may list other tools to it). The message itself passes on.
    fn declared(&self, input: &[u8], m: Value<'_>) {
        let Some(params) = m.get("params") else {
            return;
        };
        let raw = &input[span(input, params)];
        let declared = crate::lock::capabilities_of_initialize(raw).unwrap_or_default();
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
        let list = |v: &[String]| {
            if v.is_empty() {
                String::from("none")
            } else {
                v.join(",")
            }
        };
        let pinned = self
            .policy
            .pinned
            .client_capabilities
            .clone()
            .unwrap_or_default();
        self.log.event(
            "client",
            None,
            Some(&std::format!(
                "{} {} declared capabilities {}; pinned with {}",
                text("name"),
                text("version"),
                list(&declared),
                list(&pinned)
            )),
        );
        let (missing, extra) = crate::lock::capability_difference(&pinned, &declared);
        if !missing.is_empty() || !extra.is_empty() {
            self.log.event(
                "capabilities-differ",
                None,
                Some(&std::format!(
                    "the client declares {} but the lock was pinned with {}: the server may list \
                     other tools to it; pin for this client (init --client-capabilities {})",
                    list(&declared),
                    list(&pinned),
                    list(&declared)
                )),
            );
        }
    }

    /// A `tools/call` (`id`: the raw id, `None` for a notification).
    fn call(&self, m: Value<'_>, id: Option<&[u8]>) -> Elem {
        let name = m
            .get("params")
            .and_then(|p| p.get("name"))
            .filter(|n| n.tag() == Tag::String)
            .and_then(message::decode);
        let Err(why) = self.gate().check(name.as_deref()) else {
            return Elem::Keep;
        };
        let shown = name.as_deref().unwrap_or("");
        if !self.enforcing() {
            self.log
                .event("call-unverified", Some(shown), Some(why.code()));
            return Elem::Keep;
        }
        self.log
            .event("call-refused", Some(shown), Some(why.code()));
        let Some(id) = id else {
            return Skip::refused("a tools/call notification");
        };
        let why_text = std::format!("contractpin proxy: {}", why.reason());
        let data = message::string_object(&[("contractpin", &why_text)]);
        Elem::Replace(error_response(
            id,
            INVALID_PARAMS,
            &std::format!("Unknown tool: {shown}"),
            Some(&data),
        ))
    }

    /// Decides one line from the server (no newline): the line to write
    /// to the client (with newline), or `None` when it is dropped.
    pub fn server(&self, mut line: Vec<u8>, scratch: &mut Scratch) -> Option<Vec<u8>> {
        if is_blank(&line) {
            return None;
        }
        let verdict = scratch.with(&line, |tape| {
            let tape = match tape {
                Ok(t) => t,
                // A line that looks like a message (a duplicate key, a
                // lone surrogate) is refused; anything else is junk.
                Err(e) if looks_like_message(&line) => {
                    return Skip::refused(std::format!("not valid JSON ({e})"))
                }
                Err(e) => return Skip::junk(std::format!("not valid JSON ({e})")),
            };
            let root = tape.root();
            match root.tag() {
                Tag::Object => self.server_elem(&line, root),
                Tag::Array if root.elements().next().is_some() => self.server_batch(&line, root),
                _ => Skip::junk(NOT_A_MESSAGE),
            }
        });
        match verdict {
            Elem::Keep => Some(with_newline(core::mem::take(&mut line))),
            Elem::Replace(b) => Some(with_newline(b)),
            Elem::Drop(why) => {
                self.skip(&line, &why);
                None
            }
        }
    }

    fn server_batch(&self, line: &[u8], root: Value<'_>) -> Elem {
        let mut parts = Vec::new();
        let mut changed = false;
        for el in root.elements() {
            match self.server_elem(line, el) {
                Elem::Keep => parts.push(line[span(line, el)].to_vec()),
                Elem::Replace(b) => {
                    parts.push(b);
                    changed = true;
                }
                Elem::Drop(why) => {
                    let why = Skip {
                        kind: why.kind,
                        reason: std::format!("in a batch: {}", why.reason),
                    };
                    self.skip(&line[span(line, el)], &why);
                    changed = true;
                }
            }
        }
        match (changed, parts.is_empty()) {
            (false, _) => Elem::Keep,
            (true, true) => Skip::refused("a batch with nothing left to forward"),
            (true, false) => Elem::Replace(message::array_of(&parts)),
        }
    }

    fn server_elem(&self, input: &[u8], m: Value<'_>) -> Elem {
        match kind(m) {
            Kind::Notification { method } => {
                if method.str_eq("notifications/tools/list_changed") {
                    self.gate().list_changed();
                }
                Elem::Keep
            }
            Kind::Request { .. } => Elem::Keep,
            Kind::Response { id, result } => {
                let key = id_key(id);
                let page = self.gate().answered(key.as_ref());
                let asked = self.handshakes().answered(key.as_ref());
                let Some(r) = result else {
                    return Elem::Keep;
                };
                let tools = r.tag() == Tag::Object && has_member(r, "tools");
                let page = page.or(tools.then_some(Page::Unmatched));
                let handshake = asked || instructions::looks_like_handshake(r);
                match (handshake && self.policy.check_instructions, page) {
                    (true, page) => self.check_handshake(input, m, id, r, page),
                    (false, Some(p)) => self.check_page(input, m, id, r, p),
                    (false, None) => Elem::Keep,
                }
            }
            Kind::Invalid(why) if why == NOT_A_MESSAGE => Skip::junk(why),
            Kind::Invalid(why) => Skip::refused(why),
        }
    }

    /// A `tools` result of response `m`: guarded, the gate updated; a
    /// replacement is the response `m` alone.
    fn check_page(
        &self,
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
            Err(e) => return self.unchecked_page(id_raw, page, &std::format!("{e}")),
        };
        for e in &decision.events {
            self.log.guard(e);
        }
        let enforcing = self.enforcing();
        if enforcing && p.on_drift == OnDrift::Block && !decision.events.is_empty() {
            self.gate().refused(page);
            let names = drift_list(&decision.events);
            self.log.event("listing-blocked", None, Some(&names));
            let msg = std::format!(
                "contractpin proxy: the tools of server {:?} differ from contractpin.lock ({names}); \
                 the listing is blocked (--on-drift block)",
                p.server
            );
            return Elem::Replace(error_response(id_raw, INTERNAL_ERROR, &msg, None));
        }
        self.gate().decided(page, &decision);
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
        &self,
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
                        self.gate().refused(p);
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

    /// Logs instructions that do not match; the range to cut out of the
    /// input (`Ok(None)`: nothing), or the error answer (`--on-drift block`,
    /// and instructions under a case-variant key, which cannot be cut).
    fn on_instructions(
        &self,
        id_raw: &[u8],
        f: &Finding,
    ) -> Result<Option<core::ops::Range<usize>>, Elem> {
        let enforcing = self.enforcing();
        if f.variant && enforcing {
            return Err(self.block_handshake(id_raw, f, "a case-variant key cannot be cut"));
        }
        if f.cut.is_none() || !enforcing {
            self.log.instructions(f, &f.reason(false));
            return Ok(None);
        }
        if self.policy.on_drift == OnDrift::Block {
            return Err(self.block_handshake(id_raw, f, "--on-drift block"));
        }
        self.log.instructions(f, &f.reason(true));
        Ok(f.cut.clone())
    }

    /// Logs instructions that do not match and answers the handshake with
    /// an error instead (`why`: the block's cause, for the message).
    fn block_handshake(&self, id_raw: &[u8], f: &Finding, why: &str) -> Elem {
        let what = f.what();
        self.log.instructions(
            f,
            &std::format!(
                "the server's instructions {what}; the handshake answer is blocked ({why})"
            ),
        );
        let msg = std::format!(
            "contractpin proxy: the instructions of server {:?} do not match contractpin.lock \
             ({}: they {what}); the handshake is blocked ({why})",
            self.policy.server,
            f.status.name()
        );
        Elem::Replace(error_response(id_raw, INTERNAL_ERROR, &msg, None))
    }

    /// Message `bytes` (a handshake result the proxy changed) checked as a
    /// `tools` result too.
    fn then_page(&self, bytes: Vec<u8>, page: Page) -> Elem {
        let mut scratch = Scratch::default();
        let checked = scratch.with(&bytes, |tape| {
            let m = tape.ok()?.root();
            let Kind::Response {
                id,
                result: Some(r),
            } = kind(m)
            else {
                return None;
            };
            Some(self.check_page(&bytes, m, id, r, page))
        });
        match checked {
            Some(Elem::Keep) | None => Elem::Replace(bytes),
            Some(other) => other,
        }
    }

    /// A page the guard rejected: an error (enforce) or passed on (observe).
    fn unchecked_page(&self, id_raw: &[u8], page: Page, why: &str) -> Elem {
        if !self.enforcing() {
            self.log.event("page-unchecked", None, Some(why));
            return Elem::Keep;
        }
        self.log.event("page-rejected", None, Some(why));
        self.gate().refused(page);
        let msg = std::format!(
            "contractpin proxy: the server's tools/list answer was rejected ({why}); \
             no tool of it reaches the client"
        );
        Elem::Replace(error_response(id_raw, INTERNAL_ERROR, &msg, None))
    }

    fn skip(&self, line: &[u8], why: &Skip) {
        self.skipped.fetch_add(1, Ordering::Relaxed);
        let head = String::from_utf8_lossy(&line[..line.len().min(80)]);
        let reason = std::format!(
            "{}; not forwarded: `{}`",
            why.reason,
            crate::mcp::error::one_line(&head)
        );
        self.log.skipped(why.kind, &reason);
    }
}

/// `send_email (drifted: description), x (unpinned)`, at most
/// [`NAMED_IN_ERROR`] names.
fn drift_list(events: &[crate::guard::GuardEvent]) -> String {
    let mut out = String::new();
    for (i, e) in events.iter().take(NAMED_IN_ERROR).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&crate::mcp::error::one_line(&e.tool));
        match e.status {
            GuardStatus::Unpinned => out.push_str(" (unpinned)"),
            GuardStatus::Drifted => {
                let fields: Vec<&str> = e.changed.iter().map(|f| f.name()).collect();
                out.push_str(&std::format!(" (drifted: {})", fields.join(", ")));
            }
        }
    }
    if events.len() > NAMED_IN_ERROR {
        out.push_str(&std::format!(" and {} more", events.len() - NAMED_IN_ERROR));
    }
    out
}

fn answer_only(answer: Vec<u8>) -> FromClient {
    FromClient {
        forward: ToServer::Nothing,
        reply: Some(with_newline(answer)),
    }
}

fn with_newline(mut v: Vec<u8>) -> Vec<u8> {
    v.push(b'\n');
    v
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| b" \t\r\n".contains(b))
}

#[cfg(test)]
#[path = "enforce_tests.rs"]
mod tests;
