//! `contractpin_enforcer_*`: the whole run-time check of `contractpin proxy`
//! for an MCP client that embeds it at its own transport. The client hands
//! over every JSON-RPC message it sends and every one it receives, as raw
//! bytes; each comes back as a [`contractpin_decision`]: pass it on as
//! received, pass on other bytes instead (a page with tools removed, an
//! error in place of a blocked answer), or pass nothing on, plus the answer
//! to send back to the client itself (a refused `tools/call`) and the
//! proxy's event lines.
//!
//! The decisions are the core's [`Session`], the very code the proxy runs
//! on each line: which responses are `tools` pages (by request id, as both
//! SDKs match them), cursor pages, handshakes, `list_changed`, batches, the
//! strict parser's refusals. So a client that embeds this refuses exactly
//! the messages the proxy refuses, without a JSON-RPC layer of its own.

use alloc::boxed::Box;

use super::boundary::{input, non_null, status_of, Failure, NulStr};
use super::guard::{write_span, Strings, CONTRACTPIN_GUARD_OBSERVE};
use super::limits::{contractpin_limits, resolve};
use super::lock::{borrow_lock, contractpin_lock, pinned_server};
use super::status::contractpin_status;
use crate::guard::session::{Decision, Dropped, Forward, OnDrift, Policy, Session};
use crate::guard::GuardMode;

/// `flags` bit of `contractpin_enforcer_new`: answer a `tools/list` whose
/// page has a drifted or unpinned tool with a JSON-RPC error naming them
/// (and a handshake whose instructions drifted with one), as `contractpin
/// proxy --on-drift block`. Without it those tools are removed from the
/// page (and drifted instructions from the handshake result).
pub const CONTRACTPIN_ENFORCER_BLOCK: u32 = 2;
/// `flags` bit of `contractpin_enforcer_new`: do not compare the
/// handshake's `instructions` with the pin (`contractpin proxy
/// --ignore-instructions`).
pub const CONTRACTPIN_ENFORCER_IGNORE_INSTRUCTIONS: u32 = 4;

/// What to do with a message (`contractpin_decision_action`). Stable
/// numbers; 0 is `DROP`, so a zeroed value fails closed.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum contractpin_action {
    /// Pass nothing on (a NULL decision says this too).
    Drop = 0,
    /// Pass the message on as received.
    Forward = 1,
    /// Pass on `contractpin_decision_bytes` instead.
    Replace = 2,
}

/// The run-time check of one session with one server (an opaque,
/// library-allocated object): the server's pins and what the session has
/// seen. Made by `contractpin_enforcer_new`, released by
/// `contractpin_enforcer_free`. Calls on one enforcer must not overlap: a
/// client that reads and writes on two threads holds one mutex around each
/// `contractpin_enforcer_client`, `contractpin_enforcer_server` and
/// `contractpin_enforcer_summary` call, so that the messages are decided in
/// the order the session sees them.
pub struct contractpin_enforcer {
    session: Session,
}

/// The decision on one message (an opaque, library-allocated object),
/// released by `contractpin_decision_free`. Immutable: its accessors may be
/// called from several threads at once. Independent of the enforcer and of
/// the message bytes it was made from.
pub struct contractpin_decision {
    action: contractpin_action,
    /// The bytes to pass on instead (`Replace` only).
    bytes: Option<NulStr>,
    /// The answer to the sender.
    reply: Option<NulStr>,
    /// The event lines, each followed by a NUL byte.
    events: Strings,
    count: usize,
}

impl contractpin_decision {
    fn new(d: Decision) -> contractpin_decision {
        let (action, bytes) = match d.forward {
            Forward::Same => (contractpin_action::Forward, None),
            Forward::Replaced(b) => (contractpin_action::Replace, Some(NulStr::new(&b))),
            Forward::Nothing => (contractpin_action::Drop, None),
        };
        contractpin_decision {
            action,
            bytes,
            reply: d.reply.as_deref().map(NulStr::new),
            events: Strings::new(d.events.iter().map(|e| e.json())),
            count: d.events.len(),
        }
    }
}

/// Borrows a decision from a possibly NULL pointer.
///
/// # Safety
/// `d` is NULL or a live pointer from `contractpin_enforcer_client`,
/// `contractpin_enforcer_server` or `contractpin_enforcer_summary`.
unsafe fn borrow<'a>(d: *const contractpin_decision) -> Result<&'a contractpin_decision, Failure> {
    non_null(d)?;
    // SAFETY: non-null, and live and immutable by the caller's contract.
    Ok(unsafe { &*d })
}

/// The policy a `flags` argument asks for (unknown bits are an error).
fn policy_of(flags: u32) -> Result<(GuardMode, OnDrift, bool), Failure> {
    let observe_block = CONTRACTPIN_GUARD_OBSERVE | CONTRACTPIN_ENFORCER_BLOCK;
    let known = observe_block | CONTRACTPIN_ENFORCER_IGNORE_INSTRUCTIONS;
    if flags & !known != 0 || flags & observe_block == observe_block {
        return Err(contractpin_status::InvalidArgument.into());
    }
    let mode = match flags & CONTRACTPIN_GUARD_OBSERVE {
        0 => GuardMode::Enforce,
        _ => GuardMode::Observe,
    };
    let on_drift = match flags & CONTRACTPIN_ENFORCER_BLOCK {
        0 => OnDrift::Hide,
        _ => OnDrift::Block,
    };
    Ok((
        mode,
        on_drift,
        flags & CONTRACTPIN_ENFORCER_IGNORE_INSTRUCTIONS == 0,
    ))
}

/// A new enforcer for one session with server `server_name` of a parsed
/// lock: nothing is callable until a listing passed.
///
/// - `lock` (required): from `contractpin_lock_parse`; the server's pins
///   are copied, so the lock may be freed afterwards.
/// - `server_name`, `server_name_len`: the server's key in the lock (UTF-8;
///   `CONTRACTPIN_STATUS_INVALID_ARGUMENT` if not UTF-8,
///   `CONTRACTPIN_STATUS_LOCK_UNKNOWN_SERVER` if absent).
/// - `flags`: 0 (enforce, as `contractpin proxy`), or a combination of
///   `CONTRACTPIN_GUARD_OBSERVE` (report, never change or refuse),
///   `CONTRACTPIN_ENFORCER_BLOCK` (enforce mode only: observe with block is
///   `CONTRACTPIN_STATUS_INVALID_ARGUMENT`, as the proxy refuses it) and
///   `CONTRACTPIN_ENFORCER_IGNORE_INSTRUCTIONS`; other bits are
///   `CONTRACTPIN_STATUS_INVALID_ARGUMENT`.
/// - `limits`: NULL for the defaults; applies to each `tools` page.
/// - `out` (required): on success a new `contractpin_enforcer *` owned by
///   the caller, released with `contractpin_enforcer_free`. Not written on
///   failure.
///
/// # Safety
/// `lock` NULL or live; `server_name` NULL or readable for its length;
/// `limits` NULL or readable; `out` NULL or writable for a pointer.
#[no_mangle]
pub unsafe extern "C" fn contractpin_enforcer_new(
    lock: *const contractpin_lock,
    server_name: *const u8,
    server_name_len: usize,
    flags: u32,
    limits: *const contractpin_limits,
    out: *mut *mut contractpin_enforcer,
) -> contractpin_status {
    status_of(|| {
        non_null(out)?;
        let (mode, on_drift, check_instructions) = policy_of(flags)?;
        // SAFETY: each pointer is NULL or valid by the caller's contract.
        let (l, name, limits) = unsafe {
            (
                borrow_lock(lock)?,
                input(server_name, server_name_len)?,
                resolve(limits),
            )
        };
        let (name, pinned) = pinned_server(l, name)?;
        let session = Session::new(Policy {
            server: name.into(),
            pinned: pinned.clone(),
            mode,
            on_drift,
            max_message: limits.input_cap(),
            limits,
            check_instructions,
        });
        let e = Box::into_raw(Box::new(contractpin_enforcer { session }));
        // SAFETY: `out` is non-null and writable by the caller's contract.
        unsafe { out.write(e) };
        Ok(())
    })
}

/// Releases an enforcer. NULL is a no-op. Decisions made by it stay valid.
///
/// # Safety
/// `enforcer` NULL or a pointer from `contractpin_enforcer_new`, not yet
/// freed; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn contractpin_enforcer_free(enforcer: *mut contractpin_enforcer) {
    // SAFETY: by the caller's contract `enforcer` is NULL or came from this
    // library and is freed only once.
    unsafe { super::boundary::free_boxed(enforcer) }
}

/// Which side sent a message.
#[derive(Clone, Copy)]
enum Side {
    Client,
    Server,
}

/// Writes a new `contractpin_decision` of `d` to `out`.
///
/// # Safety
/// `out` non-null and writable.
unsafe fn hand_out(out: *mut *mut contractpin_decision, d: Decision) {
    let d = Box::into_raw(Box::new(contractpin_decision::new(d)));
    // SAFETY: non-null and writable by the caller's contract.
    unsafe { out.write(d) };
}

/// Decides one message of `side` and writes the decision to `out`.
///
/// # Safety
/// As [`contractpin_enforcer_client`].
unsafe fn decide(
    enforcer: *mut contractpin_enforcer,
    message: *const u8,
    message_len: usize,
    out: *mut *mut contractpin_decision,
    side: Side,
) -> contractpin_status {
    status_of(|| {
        non_null(out)?;
        non_null(enforcer)?;
        // SAFETY: NULL or readable for `message_len` bytes by the caller's
        // contract.
        let bytes = unsafe { input(message, message_len)? };
        // SAFETY: non-null, live and not used by another call, by the
        // caller's contract.
        let session = unsafe { &mut (*enforcer).session };
        let d = match side {
            Side::Client => session.client(bytes),
            Side::Server => session.server(bytes),
        };
        // SAFETY: `out` is non-null and writable by the caller's contract.
        unsafe { hand_out(out, d) };
        Ok(())
    })
}

/// Decides one message the client is about to send to the server: one
/// JSON-RPC message or batch, the exact bytes (a stdio line without its
/// newline, an HTTP request body). A `tools/call` for a tool the latest
/// listing did not pass is `CONTRACTPIN_ACTION_DROP` with a `-32602`
/// `Unknown tool` answer in `contractpin_decision_reply` (in enforce mode);
/// a message that is not JSON-RPC is dropped and answered with `-32700` or
/// `-32600` (a request by its own id when only a limit stopped the parser:
/// nested too deep, too long); every other message is `CONTRACTPIN_ACTION_FORWARD`. A batch
/// can be `CONTRACTPIN_ACTION_REPLACE` (the elements to send) with a reply
/// (the answers to the others).
///
/// - `enforcer` (required), `message`/`message_len` (NULL with length 0 is
///   an empty message: dropped), `out` (required: on success a new
///   `contractpin_decision *`, released with `contractpin_decision_free`;
///   not written on failure).
///
/// Never fails on the message's content; a failure status (a NULL
/// argument, a panic) means: send nothing (fail closed).
///
/// # Safety
/// `enforcer` NULL or live and not in use by another call; `message` NULL
/// or readable for `message_len` bytes; `out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn contractpin_enforcer_client(
    enforcer: *mut contractpin_enforcer,
    message: *const u8,
    message_len: usize,
    out: *mut *mut contractpin_decision,
) -> contractpin_status {
    // SAFETY: the caller's contract is `decide`'s.
    unsafe { decide(enforcer, message, message_len, out, Side::Client) }
}

/// Decides one message the server sent, before the client reads it (the
/// same conventions as `contractpin_enforcer_client`; never a reply). A
/// `tools` result with drifted or unpinned tools is
/// `CONTRACTPIN_ACTION_REPLACE` (those tools removed, every other byte
/// kept; with `CONTRACTPIN_ENFORCER_BLOCK` a `-32603` error instead), as is
/// a handshake result with drifted instructions; a message that is not
/// JSON-RPC (or that the strict parser refuses) is
/// `CONTRACTPIN_ACTION_DROP`. On a failure status the client must not read
/// the message (fail closed).
///
/// # Safety
/// As `contractpin_enforcer_client`.
#[no_mangle]
pub unsafe extern "C" fn contractpin_enforcer_server(
    enforcer: *mut contractpin_enforcer,
    message: *const u8,
    message_len: usize,
    out: *mut *mut contractpin_decision,
) -> contractpin_status {
    // SAFETY: the caller's contract is `decide`'s.
    unsafe { decide(enforcer, message, message_len, out, Side::Server) }
}

/// The `skipped-more` events of the session: how many more messages of
/// each kind (stray output, refused messages) were dropped without a
/// `skipped` event of their own since the last summary (only the first 100
/// of each kind in a session get one), as a decision that is
/// `CONTRACTPIN_ACTION_DROP` with no bytes and no reply, and one event per
/// kind with a count (none when nothing went unreported). The counts start
/// from zero again. `contractpin proxy` logs one at most once a minute
/// while such messages keep coming, and one at the end of the session: call
/// it as often as you log, and once when the session ends.
///
/// - `enforcer` (required), `out` (required: on success a new
///   `contractpin_decision *`, released with `contractpin_decision_free`;
///   not written on failure).
///
/// # Safety
/// `enforcer` NULL or live and not in use by another call; `out` NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn contractpin_enforcer_summary(
    enforcer: *mut contractpin_enforcer,
    out: *mut *mut contractpin_decision,
) -> contractpin_status {
    status_of(|| {
        non_null(out)?;
        non_null(enforcer)?;
        // SAFETY: non-null, live and not used by another call, by the
        // caller's contract.
        let session = unsafe { &mut (*enforcer).session };
        let events = Dropped::ALL
            .into_iter()
            .filter_map(|kind| session.summary(kind))
            .collect();
        let d = Decision {
            forward: Forward::Nothing,
            reply: None,
            events,
        };
        // SAFETY: `out` is non-null and writable by the caller's contract.
        unsafe { hand_out(out, d) };
        Ok(())
    })
}

/// Releases a decision. NULL is a no-op. Every pointer obtained from its
/// accessors becomes invalid.
///
/// # Safety
/// `d` NULL or a pointer from `contractpin_enforcer_client`,
/// `contractpin_enforcer_server` or `contractpin_enforcer_summary`, not yet
/// freed; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn contractpin_decision_free(d: *mut contractpin_decision) {
    // SAFETY: by the caller's contract `d` is NULL or came from this
    // library and is freed only once.
    unsafe { super::boundary::free_boxed(d) }
}

/// What to do with the message: `CONTRACTPIN_ACTION_FORWARD`,
/// `CONTRACTPIN_ACTION_REPLACE` or `CONTRACTPIN_ACTION_DROP`. A NULL
/// decision is `CONTRACTPIN_ACTION_DROP` (fail closed).
///
/// # Safety
/// `d` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn contractpin_decision_action(
    d: *const contractpin_decision,
) -> contractpin_action {
    // SAFETY: NULL or live by the caller's contract.
    unsafe { borrow(d) }.map_or(contractpin_action::Drop, |d| d.action)
}

/// The bytes to pass on instead of the message (a complete JSON-RPC
/// message or batch, no newline), owned by `d` and followed by a NUL byte
/// not counted in `*bytes_len`. Only for `CONTRACTPIN_ACTION_REPLACE`;
/// otherwise `CONTRACTPIN_STATUS_NOT_FOUND`. Both out-parameters are
/// required and written only on success.
///
/// # Safety
/// `d` NULL or live; `bytes` and `bytes_len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn contractpin_decision_bytes(
    d: *const contractpin_decision,
    bytes: *mut *const u8,
    bytes_len: *mut usize,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: NULL or live by the caller's contract.
        let d = unsafe { borrow(d)? };
        let b = d.bytes.as_ref().ok_or(contractpin_status::NotFound)?;
        // SAFETY: NULL or writable by the caller's contract.
        unsafe { write_span(b.span(), bytes, bytes_len) }
    })
}

/// The answer to send back to the sender (a client message's refused
/// `tools/call`, or the error for a message that is not JSON-RPC: a
/// complete JSON-RPC response or batch of them, no newline), owned by `d`
/// and followed by a NUL byte. `CONTRACTPIN_STATUS_NOT_FOUND` when there is
/// none. Both out-parameters are required and written only on success.
///
/// # Safety
/// `d` NULL or live; `reply` and `reply_len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn contractpin_decision_reply(
    d: *const contractpin_decision,
    reply: *mut *const u8,
    reply_len: *mut usize,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: NULL or live by the caller's contract.
        let d = unsafe { borrow(d)? };
        let r = d.reply.as_ref().ok_or(contractpin_status::NotFound)?;
        // SAFETY: NULL or writable by the caller's contract.
        unsafe { write_span(r.span(), reply, reply_len) }
    })
}

/// How many events the decision reported (0 for NULL).
///
/// # Safety
/// `d` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn contractpin_decision_event_count(d: *const contractpin_decision) -> usize {
    // SAFETY: NULL or live by the caller's contract.
    unsafe { borrow(d) }.map_or(0, |d| d.count)
}

/// Event `index` (in the order they happened) as one canonical JSON object:
/// the line `contractpin proxy --log` writes, without its `at` member (a
/// client adds its own time): `server`, `status` (`drifted`, `unpinned`,
/// `call-refused`, `call-unverified`, `listing-blocked`, `page-rejected`,
/// `page-unchecked`, `instructions-drifted`, `instructions-added`,
/// `instructions-removed`, `client`, `capabilities-differ`, `skipped`) and
/// what the status carries (`tool`, `reason`, `changed`, `live`,
/// `pinned`). Owned by `d`, followed by a NUL byte not counted in
/// `*json_len`. Both out-parameters are required; an index past the count
/// is `CONTRACTPIN_STATUS_INDEX_OUT_OF_RANGE`.
///
/// Server-controlled text in it (a tool name, a dropped message's head) is
/// JSON-escaped but otherwise as sent: escape it before showing it on a
/// terminal.
///
/// # Safety
/// `d` NULL or live; `json` and `json_len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn contractpin_decision_event_json(
    d: *const contractpin_decision,
    index: usize,
    json: *mut *const u8,
    json_len: *mut usize,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: NULL or live by the caller's contract.
        let d = unsafe { borrow(d)? };
        let span = d.events.get(index)?;
        // SAFETY: NULL or writable by the caller's contract.
        unsafe { write_span(span, json, json_len) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_follow_the_proxys_options() {
        let enforce = policy_of(0).unwrap();
        assert_eq!(enforce, (GuardMode::Enforce, OnDrift::Hide, true));
        let all = CONTRACTPIN_ENFORCER_BLOCK | CONTRACTPIN_ENFORCER_IGNORE_INSTRUCTIONS;
        assert_eq!(
            policy_of(all).unwrap(),
            (GuardMode::Enforce, OnDrift::Block, false)
        );
        let observe = policy_of(CONTRACTPIN_GUARD_OBSERVE).unwrap();
        assert_eq!(observe, (GuardMode::Observe, OnDrift::Hide, true));
        // Observe with block is refused, as the proxy refuses it; and
        // unknown bits.
        for bad in [
            CONTRACTPIN_GUARD_OBSERVE | CONTRACTPIN_ENFORCER_BLOCK,
            8,
            1 << 31,
        ] {
            assert!(policy_of(bad).is_err(), "{bad}");
        }
    }
}
