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
//! The comparison itself is the guard's ([`crate::guard::instructions`]),
//! shared with the C ABI and the bindings: verify's classification, an
//! `instructions` member that is neither a string nor `null` being drift,
//! and the cut that removes the member with every other byte kept.
//!
//! What happens (in [`Enforcer`](super::enforce::Enforcer)): unchanged
//! passes byte-identical; drifted or added instructions are removed from
//! the result in enforce mode (`--on-drift block`: the whole answer becomes
//! a `-32603` error, so the client's handshake fails), kept in observe mode;
//! removed instructions are only logged. `--ignore-instructions` skips all
//! of it.

use std::collections::VecDeque;

use crate::json::{Tag, Value};

pub(crate) use crate::guard::instructions::{check, Finding};

use super::message::IdKey;

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
/// no forwarded handshake request (its keys compared under case folding:
/// a case-insensitive client would take `Instructions` for one).
pub(crate) fn looks_like_handshake(result: Value<'_>) -> bool {
    result.tag() == Tag::Object
        && has_member(result, "instructions")
        && has_member(result, "capabilities")
}

/// Whether object `obj` has a member `name`, exactly or as a case variant
/// ([`crate::contract::variant`]).
pub(crate) fn has_member(obj: Value<'_>, name: &str) -> bool {
    obj.get(name).is_some() || crate::contract::variant::variant_member(obj, &[name]).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

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
