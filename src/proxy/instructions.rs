//! The server's `instructions` at run time: the text of the handshake result
//! (`initialize`, or `server/discover` of 2026-07-28) that reaches the model
//! like a tool description, compared with the lock's
//! `instructions_digest` (spec section 13) as it passes through the proxy.
//!
//! Which responses are handshake results: the answer to an `initialize` or
//! `server/discover` request the proxy forwarded (matched by id as
//! [`id_key`](super::message::id_key) matches), and any other response whose
//! `result` has both `instructions` and `capabilities` members (every
//! handshake result the SDK clients accept declares `capabilities`; a hostile
//! server can make the TypeScript SDK take an id such as `"0x0"` for `0`).
//!
//! The classification is verify's ([`InstructionsVerdict::of`]), with one
//! difference: an `instructions` member that is neither a string nor `null`
//! is drift here (verify ignores it as no text; the proxy does not let it
//! reach a client that might show it). A `null` one is no instructions.
//!
//! What happens (in [`Enforcer`](super::enforce::Enforcer)): unchanged
//! passes byte-identical; drifted or added instructions are removed from
//! the result in enforce mode (`--on-drift block`: the whole answer becomes
//! a `-32603` error, so the client's handshake fails), kept in observe mode;
//! removed instructions are only logged. `--ignore-instructions` skips all
//! of it.

use std::collections::VecDeque;
use std::ops::Range;
use std::vec::Vec;

use crate::digest::Digest;
use crate::json::{Tag, Value};
use crate::verify::{InstructionsStatus, InstructionsVerdict};

use super::message::{self, span, IdKey};

/// Outstanding handshake requests remembered at most (a client sends one).
pub(crate) const MAX_PENDING: usize = 16;

/// The ids of the handshake requests the client sent, not yet answered.
#[derive(Debug, Default)]
pub(crate) struct Handshakes {
    pending: VecDeque<IdKey>,
}

impl Handshakes {
    /// The client sent `initialize` or `server/discover` with this id.
    pub fn asked(&mut self, id: IdKey) {
        self.pending.retain(|k| *k != id);
        if self.pending.len() >= MAX_PENDING {
            self.pending.pop_front();
        }
        self.pending.push_back(id);
    }

    /// Whether a response with this id answers one (forgetting it).
    pub fn answered(&mut self, id: Option<&IdKey>) -> bool {
        let Some(at) = id.and_then(|id| self.pending.iter().position(|k| k == id)) else {
            return false;
        };
        self.pending.remove(at);
        true
    }
}

/// Whether `result` looks like a handshake result although its id matched
/// no forwarded handshake request.
pub(crate) fn looks_like_handshake(result: Value<'_>) -> bool {
    result.tag() == Tag::Object
        && result.get("instructions").is_some()
        && result.get("capabilities").is_some()
}

/// The instructions of a handshake result that do not match their pin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Finding {
    /// Drifted, added or removed (never unchanged).
    pub status: InstructionsStatus,
    /// The pinned digest.
    pub pinned: Option<Digest>,
    /// The live digest (`None`: removed, or not a string).
    pub live: Option<Digest>,
    /// The live member is not a string.
    pub not_a_string: bool,
    /// The byte range of the whole `instructions` member in the input,
    /// with one separating comma, to cut it out (`None` when removed).
    pub cut: Option<Range<usize>>,
}

/// Compares the `instructions` of handshake result `result` (a value of
/// `input`) with `pinned`; `None` when they match (or neither has any).
pub(crate) fn check(input: &[u8], result: Value<'_>, pinned: Option<Digest>) -> Option<Finding> {
    let member = result
        .members()
        .enumerate()
        .find(|(_, (k, v))| k.str_eq("instructions") && !v.is_null());
    let Some((index, (_, value))) = member else {
        let v = InstructionsVerdict::of(pinned, None)?;
        return Some(finding(v.status, pinned, None, false, None));
    };
    let cut = Some(member_range(input, result, index));
    let text = (value.tag() == Tag::String)
        .then(|| message::decode(value))
        .flatten();
    let Some(text) = text else {
        let status = match pinned {
            Some(_) => InstructionsStatus::Drifted,
            None => InstructionsStatus::Added,
        };
        return Some(finding(status, pinned, None, true, cut));
    };
    let v = InstructionsVerdict::of(pinned, Some(&text))?;
    match v.status {
        InstructionsStatus::Unchanged => None,
        s => Some(finding(s, pinned, v.live, false, cut)),
    }
}

fn finding(
    status: InstructionsStatus,
    pinned: Option<Digest>,
    live: Option<Digest>,
    not_a_string: bool,
    cut: Option<Range<usize>>,
) -> Finding {
    Finding {
        status,
        pinned,
        live,
        not_a_string,
        cut,
    }
}

/// The bytes to cut to remove member `index` of object `obj`: from its key
/// to the next member's key (`{"i":1, "b":2}` → `{"b":2}`), or, for the last
/// member, from the end of the previous value (`{"a":1,"i":2}` → `{"a":1}`),
/// or the member alone when it is the only one (`{ "i":1 }` → `{  }`).
/// Every other byte is kept.
pub(crate) fn member_range(input: &[u8], obj: Value<'_>, index: usize) -> Range<usize> {
    let members: Vec<(Value<'_>, Value<'_>)> = obj.members().collect();
    let (key, value) = members[index];
    let start = key.offset();
    if let Some((next, _)) = members.get(index + 1) {
        return start..next.offset();
    }
    match index.checked_sub(1).map(|i| members[i].1) {
        Some(prev) => span(input, prev).end..span(input, value).end,
        None => start..span(input, value).end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proxy::message::Scratch;
    use std::string::String;

    fn cut(doc: &str, key: &str) -> String {
        Scratch::default().with(doc.as_bytes(), |t| {
            let root = t.unwrap().root();
            let i = root.members().position(|(k, _)| k.str_eq(key)).unwrap();
            let r = member_range(doc.as_bytes(), root, i);
            String::from_utf8(message::splice(doc.as_bytes(), r, b"")).unwrap()
        })
    }

    #[test]
    fn a_member_is_cut_with_one_comma() {
        assert_eq!(cut(r#"{"i":"x", "b":2}"#, "i"), r#"{"b":2}"#);
        assert_eq!(cut(r#"{"a":1,"i":"x","b":2}"#, "i"), r#"{"a":1,"b":2}"#);
        assert_eq!(
            cut(r#"{"a":[1,"}"] , "i" : {"x":"\""} }"#, "i"),
            r#"{"a":[1,"}"] }"#
        );
        assert_eq!(cut(r#"{ "i":1 }"#, "i"), r#"{  }"#);
        assert_eq!(cut(r#"{"\u0069":true,"c":{}}"#, "i"), r#"{"c":{}}"#);
        assert_eq!(cut(r#"{"c":{},"i":-1.5e3}"#, "i"), r#"{"c":{}}"#);
    }

    #[test]
    fn handshake_ids_are_bounded_and_answered_once() {
        let id = |n: u64| IdKey::Num((n as f64).to_bits());
        let mut h = Handshakes::default();
        for n in 0..(MAX_PENDING as u64 + 3) {
            h.asked(id(n));
        }
        assert!(!h.answered(Some(&id(0))), "the oldest was forgotten");
        assert!(h.answered(Some(&id(5))));
        assert!(!h.answered(Some(&id(5))), "answered once");
        assert!(!h.answered(None));
    }
}
