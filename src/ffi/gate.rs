//! `contractpin_gate_*`: which tools an embedding MCP client may call right
//! now, across the pages, notifications and refusals of one session. The
//! state is the core's [`crate::guard::gate::Gate`], the one `contractpin
//! proxy` keeps per session, so a client that embeds the guard refuses
//! exactly the calls the proxy refuses.
//!
//! The client feeds it what it sees: each page's decision
//! ([`contractpin_gate_page`], with the page's kind: the first page of a
//! listing, a cursor page, or any other response with a `tools` result),
//! each page it did not pass on ([`contractpin_gate_refused`]) and each
//! `notifications/tools/list_changed` ([`contractpin_gate_list_changed`]);
//! before sending a `tools/call` it asks [`contractpin_gate_check`] with the
//! request's decoded name (its byte length: a JSON name may hold a NUL).
//! Every failure with a gate leaves it refusing (fail closed).

use alloc::boxed::Box;
use core::ffi::c_char;

use super::boundary::{borrow, catch, input, non_null, status_of, Failure};
use super::guard::{borrow as borrow_result, contractpin_guard_result};
use super::status::contractpin_status;
use crate::guard::gate::{Gate, Page, Refusal};

/// `page` of `contractpin_gate_page` and `contractpin_gate_refused`: the
/// answer to the client's `tools/list` request without a cursor (it starts
/// a new listing).
pub const CONTRACTPIN_PAGE_FIRST: u32 = 0;
/// The answer to the client's `tools/list` request with a cursor (a later
/// page of the current listing).
pub const CONTRACTPIN_PAGE_NEXT: u32 = 1;
/// Any other response whose `result` has a `tools` member: one that
/// answers none of the client's `tools/list` requests (an unrequested id,
/// or the answer to another request); it can only take tools away.
pub const CONTRACTPIN_PAGE_UNMATCHED: u32 = 2;

/// The verdict of `contractpin_gate_check`: 0 lets the call through, every
/// other value refuses it. Stable numbers; `contractpin_refusal_name` and
/// `contractpin_refusal_message` describe each.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum contractpin_refusal {
    /// The tool passed on the current listing: send the call.
    Callable = 0,
    /// No listing has started yet (no `CONTRACTPIN_PAGE_FIRST` page given):
    /// list the tools first.
    NoListing = 1,
    /// `notifications/tools/list_changed` came after the latest listing.
    ListChanged = 2,
    /// The latest listing reported the tool as drifted.
    Drifted = 3,
    /// The latest listing reported the tool as not pinned.
    Unpinned = 4,
    /// The latest listing did not hold the tool, or was refused (a tool it
    /// reported before the refusal keeps `DRIFTED` or `UNPINNED`).
    NotListed = 5,

    /// The request names no tool. The gate never returns it: a client whose
    /// `tools/call` has no string `params.name` refuses it itself, with this
    /// value's name and message.
    NoName = 6,
    /// A NULL gate, a NULL name with a non-zero length, or a name that is
    /// not UTF-8: refused.
    InvalidArgument = 7,
}

impl From<Refusal> for contractpin_refusal {
    fn from(r: Refusal) -> contractpin_refusal {
        match r {
            Refusal::NoListing => contractpin_refusal::NoListing,
            Refusal::ListChanged => contractpin_refusal::ListChanged,
            Refusal::Drifted => contractpin_refusal::Drifted,
            Refusal::Unpinned => contractpin_refusal::Unpinned,
            Refusal::NotListed => contractpin_refusal::NotListed,
            Refusal::NoName => contractpin_refusal::NoName,
        }
    }
}

/// The names and sentences of the values that are not a [`Refusal`].
const CALLABLE_TEXTS: (&str, &str) = ("callable\0", "the tool may be called\0");
const INVALID_TEXTS: (&str, &str) = (
    "invalid-argument\0",
    "the gate or the tool name is missing or the name is not UTF-8\0",
);
const UNKNOWN_TEXTS: (&str, &str) = ("unknown-refusal\0", "unknown refusal code\0");

/// The texts of refusal number `code`, each ending in a NUL byte.
fn texts(code: u32) -> (&'static str, &'static str) {
    match code {
        0 => CALLABLE_TEXTS,
        7 => INVALID_TEXTS,
        n => Refusal::ALL
            .iter()
            .find(|r| contractpin_refusal::from(**r) as u32 == n)
            .map_or(UNKNOWN_TEXTS, |r| r.texts()),
    }
}

/// The tool-call state of one session (an opaque, library-allocated
/// object). Made by `contractpin_gate_new`, released by
/// `contractpin_gate_free`. A call that changes a gate (`_page`,
/// `_refused`, `_list_changed`, `_free`) must not overlap any other call on
/// it; `contractpin_gate_check` calls may overlap each other (a client
/// keeps one gate per session and updates it in the order the session's
/// messages arrive).
pub struct contractpin_gate {
    gate: Gate,
}

/// Borrows a gate mutably from a possibly NULL pointer.
///
/// # Safety
/// `gate` is NULL or a live pointer from `contractpin_gate_new`, not used
/// by any other call meanwhile.
unsafe fn borrow_mut<'a>(gate: *mut contractpin_gate) -> Result<&'a mut Gate, Failure> {
    non_null(gate)?;
    // SAFETY: non-null, live, and not aliased, by the caller's contract.
    Ok(unsafe { &mut (*gate).gate })
}

/// The page kind `page`, or `CONTRACTPIN_STATUS_INVALID_ARGUMENT`.
fn page_of(page: u32) -> Result<Page, Failure> {
    match page {
        CONTRACTPIN_PAGE_FIRST => Ok(Page::First),
        CONTRACTPIN_PAGE_NEXT => Ok(Page::Next),
        CONTRACTPIN_PAGE_UNMATCHED => Ok(Page::Unmatched),
        _ => Err(contractpin_status::InvalidArgument.into()),
    }
}

/// A new gate for one session: nothing is callable until the first page
/// of a listing is given.
///
/// - `out` (required): on success a new `contractpin_gate *` owned by the
///   caller, released with `contractpin_gate_free`. Not written on failure.
///
/// # Safety
/// `out` NULL or writable for a pointer.
#[no_mangle]
pub unsafe extern "C" fn contractpin_gate_new(
    out: *mut *mut contractpin_gate,
) -> contractpin_status {
    status_of(|| {
        non_null(out)?;
        let gate = Box::into_raw(Box::new(contractpin_gate { gate: Gate::new() }));
        // SAFETY: `out` is non-null and writable by the caller's contract.
        unsafe { out.write(gate) };
        Ok(())
    })
}

/// Releases a gate. NULL is a no-op.
///
/// # Safety
/// `gate` NULL or a pointer from `contractpin_gate_new`, not yet freed; not
/// used afterwards.
#[no_mangle]
pub unsafe extern "C" fn contractpin_gate_free(gate: *mut contractpin_gate) {
    // SAFETY: by the caller's contract `gate` is NULL or came from this
    // library and is freed only once.
    unsafe { super::boundary::free_boxed(gate) }
}

/// Gives the gate the decision `res` of one page (`contractpin_guard_page`)
/// that the client passed on:
///
/// - `CONTRACTPIN_PAGE_FIRST` (the answer to the client's `tools/list`
///   without a cursor): a new listing, whose callable tools are this page's
///   passing tools;
/// - `CONTRACTPIN_PAGE_NEXT` (the answer to one with a cursor): adds this
///   page's passing tools to the current listing; after
///   `contractpin_gate_list_changed` or a refused page it adds nothing;
/// - `CONTRACTPIN_PAGE_UNMATCHED`: any other response whose `result` is an
///   object with a `tools` member (one that answers none of the client's
///   `tools/list` requests: an unrequested id, the answer to `initialize`,
///   `resources/list` or any other request): its reported tools become
///   uncallable; it adds nothing.
///
/// The gate takes the page's passing tools in either mode: in observe mode
/// (`CONTRACTPIN_GUARD_OBSERVE`) its verdicts are still the proxy's, and
/// the client sends a refused call anyway and logs the refusal, as
/// `contractpin proxy --mode observe` does.
///
/// Fails closed. A NULL `gate` is `CONTRACTPIN_STATUS_NULL_ARGUMENT`;
/// otherwise a NULL `res` (`CONTRACTPIN_STATUS_NULL_ARGUMENT`) or another
/// `page` value (`CONTRACTPIN_STATUS_INVALID_ARGUMENT`) leaves the gate as
/// `contractpin_gate_refused` with this `page` does (an unknown `page` as
/// `CONTRACTPIN_PAGE_FIRST`): nothing callable until a new listing. `res`
/// is only read, and may be freed afterwards.
///
/// # Safety
/// `gate` NULL or live and not in use by another call; `res` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn contractpin_gate_page(
    gate: *mut contractpin_gate,
    res: *const contractpin_guard_result,
    page: u32,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: NULL or live and unaliased by the caller's contract.
        let g = unsafe { borrow_mut(gate)? };
        // SAFETY: NULL or live by the caller's contract.
        let given = unsafe { borrow_result(res) }.and_then(|r| Ok((r, page_of(page)?)));
        match given {
            Ok((r, kind)) => {
                g.decided(kind, &r.decision);
                Ok(())
            }
            Err(failure) => {
                g.refused(page_of(page).unwrap_or(Page::First));
                Err(failure)
            }
        }
    })
}

/// Tells the gate that a page of kind `page` was not passed on (the guard
/// rejected it, the client blocked the listing, or reading it failed):
/// nothing is callable until a new listing, and the refused listing's
/// later cursor pages add nothing.
///
/// A NULL `gate` is `CONTRACTPIN_STATUS_NULL_ARGUMENT`. Another `page`
/// value is `CONTRACTPIN_STATUS_INVALID_ARGUMENT`, and is refused as
/// `CONTRACTPIN_PAGE_FIRST` (fail closed).
///
/// # Safety
/// `gate` NULL or live and not in use by another call.
#[no_mangle]
pub unsafe extern "C" fn contractpin_gate_refused(
    gate: *mut contractpin_gate,
    page: u32,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: NULL or live and unaliased by the caller's contract.
        let g = unsafe { borrow_mut(gate)? };
        let kind = page_of(page);
        g.refused(*kind.as_ref().unwrap_or(&Page::First));
        kind.map(|_| ())
    })
}

/// Tells the gate that the server sent `notifications/tools/list_changed`:
/// nothing is callable until the tools are listed again. A NULL `gate` is
/// `CONTRACTPIN_STATUS_NULL_ARGUMENT`.
///
/// # Safety
/// `gate` NULL or live and not in use by another call.
#[no_mangle]
pub unsafe extern "C" fn contractpin_gate_list_changed(
    gate: *mut contractpin_gate,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: NULL or live and unaliased by the caller's contract.
        unsafe { borrow_mut(gate)? }.list_changed();
        Ok(())
    })
}

/// Whether the client may send a `tools/call` for `name` (UTF-8, not
/// NUL-terminated) now: `CONTRACTPIN_REFUSAL_CALLABLE` (0) for a tool that
/// passed on the current listing, a refusal otherwise. A NULL `gate`, a
/// NULL `name` with a non-zero length or a name that is not UTF-8 is
/// `CONTRACTPIN_REFUSAL_INVALID_ARGUMENT`. Fail closed: send only on 0.
///
/// # Safety
/// `gate` NULL or live and not in use by a call that changes it; `name`
/// NULL or readable for `name_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn contractpin_gate_check(
    gate: *const contractpin_gate,
    name: *const u8,
    name_len: usize,
) -> contractpin_refusal {
    catch(contractpin_refusal::InvalidArgument, || {
        // SAFETY: NULL or live, and NULL or readable for `name_len` bytes,
        // by the caller's contract.
        let (g, name) = unsafe { (borrow(gate), input(name, name_len)) };
        let (Ok(g), Ok(Ok(name))) = (g, name.map(core::str::from_utf8)) else {
            return contractpin_refusal::InvalidArgument;
        };
        match g.gate.check(Some(name)) {
            Ok(()) => contractpin_refusal::Callable,
            Err(why) => why.into(),
        }
    })
}

/// The stable name of a refusal (`"callable"`, `"no-listing"`,
/// `"list-changed"`, `"drifted"`, `"unpinned"`, `"not-listed"`,
/// `"no-name"`, `"invalid-argument"`; the words of `contractpin proxy
/// --log`), as a static NUL-terminated ASCII string. Unknown numbers give
/// `"unknown-refusal"`. Never NULL; never freed. Thread-safe.
#[no_mangle]
pub extern "C" fn contractpin_refusal_name(refusal: u32) -> *const c_char {
    texts(refusal).0.as_ptr().cast()
}

/// A one-line English reason for a refusal, the one `contractpin proxy`
/// gives the client after `contractpin proxy: `, as a static
/// NUL-terminated ASCII string. Unknown numbers give `"unknown refusal
/// code"`. Never NULL; never freed. Thread-safe.
#[no_mangle]
pub extern "C" fn contractpin_refusal_message(refusal: u32) -> *const c_char {
    texts(refusal).1.as_ptr().cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_refusal_has_its_number_and_texts() {
        for r in Refusal::ALL {
            let code = contractpin_refusal::from(r) as u32;
            assert_eq!(texts(code), r.texts());
        }
        let numbers: alloc::vec::Vec<u32> = Refusal::ALL
            .iter()
            .map(|r| contractpin_refusal::from(*r) as u32)
            .collect();
        assert_eq!(numbers, [1, 2, 3, 4, 5, 6]);
        for (code, want) in [(0, CALLABLE_TEXTS), (7, INVALID_TEXTS), (8, UNKNOWN_TEXTS)] {
            assert_eq!(texts(code), want);
        }
        for code in 0..9 {
            let (name, message) = texts(code);
            assert!(name.ends_with('\0') && message.ends_with('\0'));
        }
    }
}
