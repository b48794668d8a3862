//! `contractpin_guard_page`: the run-time decision of `contractpin proxy`
//! for an embedding MCP client. One `tools/list` page is decided against
//! one server of a parsed lock ([`contractpin_lock`]) by the same
//! [`crate::guard::guard_page`] the proxy calls; the verdict is an opaque
//! [`contractpin_guard_result`]: the page to hand on (drifted and unpinned
//! tools removed, or kept in observe mode), the passing tools, one event per
//! tool that did not match (with the proxy's JSON log line), and whether a
//! given tool may be called.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use super::boundary::{finish, guarded, input, non_null, status_of, write_opt, Failure};
use super::digest_text::write_bytes;
use super::limits::{contractpin_limits, resolve};
use super::lock::{borrow_lock, contractpin_lock};
use super::server::contractpin_field;
use super::status::contractpin_status;
use crate::guard::{guard_page, GuardDecision, GuardMode, GuardStatus};
use crate::lock::cmp_utf16;

/// `flags` bit of `contractpin_guard_page`: observe mode. Tools that do not
/// match their pins are kept in the result (and still reported as events)
/// and stay callable. Without it (enforce mode, the default, as
/// `contractpin proxy`) they are removed and refused.
pub const CONTRACTPIN_GUARD_OBSERVE: u32 = 1;

/// Why a tool of a page did not pass (the status of a guard event). Stable
/// numbers, the same as `CONTRACTPIN_TOOL_STATUS_DRIFTED` and
/// `CONTRACTPIN_TOOL_STATUS_ADDED`; 0 is never an event's status.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum contractpin_guard_status {
    /// Pinned under this name, but its tool digest differs from the pin.
    Drifted = 1,
    /// Not pinned at all (added to the server since the lock was written).
    Unpinned = 2,
}

impl From<GuardStatus> for contractpin_guard_status {
    fn from(s: GuardStatus) -> contractpin_guard_status {
        match s {
            GuardStatus::Drifted => contractpin_guard_status::Drifted,
            GuardStatus::Unpinned => contractpin_guard_status::Unpinned,
        }
    }
}

/// UTF-8 strings stored back to back, each followed by a NUL byte.
struct Strings {
    bytes: Vec<u8>,
    /// (start, length) of each string in `bytes`.
    spans: Vec<(usize, usize)>,
}

impl Strings {
    fn new<'a>(items: impl Iterator<Item = &'a [u8]>) -> Strings {
        let mut bytes = Vec::new();
        let mut spans = Vec::new();
        for s in items {
            spans.push((bytes.len(), s.len()));
            bytes.extend_from_slice(s);
            bytes.push(0);
        }
        Strings { bytes, spans }
    }

    /// The string at `index` as (pointer, length), the pointer owned by self.
    fn get(&self, index: usize) -> Result<(*const u8, usize), Failure> {
        let &(start, len) = self
            .spans
            .get(index)
            .ok_or(contractpin_status::IndexOutOfRange)?;
        Ok((self.bytes[start..].as_ptr(), len))
    }
}

/// The decision of `contractpin_guard_page` for one page (an opaque,
/// library-allocated object): the result bytes, the passing tools (page
/// order), the events (page order) and the callable tools.
///
/// Released by `contractpin_guard_result_free`. Immutable after creation:
/// the accessors may be called from several threads at once. Independent of
/// the lock it was made from (the lock may be freed first).
pub struct contractpin_guard_result {
    decision: GuardDecision,
    /// The result bytes followed by a NUL byte.
    result: Vec<u8>,
    passed: Strings,
    tools: Strings,
    /// `GuardEvent::to_json` of every event, each followed by a NUL byte.
    json: Strings,
    /// Changed-fields bit mask of every event.
    changed: Vec<u32>,
    /// The names the client may call, sorted by UTF-16 code units.
    callable: Vec<String>,
}

impl contractpin_guard_result {
    fn new(decision: GuardDecision, server: &str, mode: GuardMode) -> contractpin_guard_result {
        let mut result = Vec::with_capacity(decision.result.len() + 1);
        result.extend_from_slice(&decision.result);
        result.push(0);
        let passed = Strings::new(decision.passed.iter().map(|s| s.as_bytes()));
        let tools = Strings::new(decision.events.iter().map(|e| e.tool.as_bytes()));
        let lines: Vec<Vec<u8>> = decision.events.iter().map(|e| e.to_json(server)).collect();
        let json = Strings::new(lines.iter().map(Vec::as_slice));
        let changed = decision
            .events
            .iter()
            .map(|e| {
                e.changed
                    .iter()
                    .fold(0, |m, f| m | contractpin_field::from_field(*f).bit())
            })
            .collect();
        let mut callable: Vec<String> = decision.callable(mode).map(String::from).collect();
        callable.sort_by(|a, b| cmp_utf16(a, b));
        contractpin_guard_result {
            decision,
            result,
            passed,
            tools,
            json,
            changed,
            callable,
        }
    }

    fn event(&self, index: usize) -> Result<&crate::guard::GuardEvent, Failure> {
        self.decision
            .events
            .get(index)
            .ok_or_else(|| contractpin_status::IndexOutOfRange.into())
    }
}

/// Borrows a guard result from a possibly NULL pointer.
///
/// # Safety
/// `res` is NULL or a live pointer from `contractpin_guard_page`.
unsafe fn borrow<'a>(
    res: *const contractpin_guard_result,
) -> Result<&'a contractpin_guard_result, Failure> {
    non_null(res)?;
    // SAFETY: non-null, and live and immutable by the caller's contract.
    Ok(unsafe { &*res })
}

/// Writes a (pointer, length) pair to two required out-parameters.
///
/// # Safety
/// `ptr_out` and `len_out` are NULL or writable.
unsafe fn write_span(
    (ptr, len): (*const u8, usize),
    ptr_out: *mut *const u8,
    len_out: *mut usize,
) -> Result<(), Failure> {
    non_null(ptr_out)?;
    non_null(len_out)?;
    // SAFETY: both are non-null, and writable by the caller's contract.
    unsafe {
        ptr_out.write(ptr);
        len_out.write(len);
    }
    Ok(())
}

/// Decides one `tools/list` page against the pins of server `server_name`
/// of a parsed lock: exactly the decision of `contractpin proxy` (both call
/// the library's `guard_page`).
///
/// A tool passes when its tool digest equals its pin. A tool pinned under
/// its name with another digest is drifted, a tool not in the lock is
/// unpinned; each is an event. In enforce mode (`flags` 0) they are removed
/// from the result and are not callable; in observe mode
/// (`CONTRACTPIN_GUARD_OBSERVE`) they are kept and callable, and still
/// reported. Tools pinned but absent from this page are not events (a page
/// may be one of several).
///
/// - `lock` (required): from `contractpin_lock_parse`.
/// - `server_name`, `server_name_len`: the server's key in the lock (UTF-8,
///   not NUL-terminated; `CONTRACTPIN_STATUS_INVALID_ARGUMENT` if not UTF-8,
///   `CONTRACTPIN_STATUS_LOCK_UNKNOWN_SERVER` if absent).
/// - `page`, `page_len`: one `tools/list` result object as the server sent
///   it, `{"tools": [...], ...}` (the `result` member of the JSON-RPC
///   response, not the response itself). Fails closed: a page the digest
///   core rejects is statuses 1-13 or 32-37 with `error_offset` into these
///   bytes (invalid JSON, a tool without a string name, duplicate names, a
///   limit; a JSON-RPC response or a bare array is
///   `CONTRACTPIN_STATUS_NOT_TOOLS_LIST`), and the page must not be passed on.
/// - `flags`: 0 or `CONTRACTPIN_GUARD_OBSERVE`; other bits are
///   `CONTRACTPIN_STATUS_INVALID_ARGUMENT`.
/// - `limits`: NULL for the defaults; applies to the page.
/// - `out` (required): on success a new `contractpin_guard_result *` owned
///   by the caller, released with `contractpin_guard_result_free`. Not
///   written on failure.
/// - `error_offset` (optional): see above.
///
/// Checked in this order: `out`, `flags`, `lock`, the buffers, the name's
/// UTF-8, the server, then the page. Thread-safe: the lock is only read.
///
/// # Safety
/// `lock` NULL or live; each buffer NULL or readable for its length;
/// `limits` NULL or readable; `out` NULL or writable for a pointer;
/// `error_offset` NULL or writable for a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn contractpin_guard_page(
    lock: *const contractpin_lock,
    server_name: *const u8,
    server_name_len: usize,
    page: *const u8,
    page_len: usize,
    flags: u32,
    limits: *const contractpin_limits,
    out: *mut *mut contractpin_guard_result,
    error_offset: *mut usize,
) -> contractpin_status {
    let result = guarded(|| {
        non_null(out)?;
        if flags & !CONTRACTPIN_GUARD_OBSERVE != 0 {
            return Err(contractpin_status::InvalidArgument.into());
        }
        // SAFETY: each pointer is NULL or valid by the caller's contract.
        let (l, name, page, limits) = unsafe {
            (
                borrow_lock(lock)?,
                input(server_name, server_name_len)?,
                input(page, page_len)?,
                resolve(limits),
            )
        };
        let name = core::str::from_utf8(name).map_err(|_| contractpin_status::InvalidArgument)?;
        let pinned = l
            .servers
            .get(name)
            .ok_or(contractpin_status::LockUnknownServer)?;
        let mode = if flags & CONTRACTPIN_GUARD_OBSERVE != 0 {
            GuardMode::Observe
        } else {
            GuardMode::Enforce
        };
        let decision = guard_page(pinned, page, mode, &limits)?;
        let res = Box::into_raw(Box::new(contractpin_guard_result::new(
            decision, name, mode,
        )));
        // SAFETY: `out` is non-null and writable by the caller's contract.
        unsafe { out.write(res) };
        Ok(())
    });
    // SAFETY: `error_offset` is NULL or writable by the caller's contract.
    unsafe { finish(result, error_offset) }
}

/// Releases a `contractpin_guard_result`. NULL is a no-op. Every pointer
/// obtained from its accessors becomes invalid.
///
/// # Safety
/// `res` NULL or a pointer from `contractpin_guard_page`, not yet freed; not
/// used afterwards.
#[no_mangle]
pub unsafe extern "C" fn contractpin_guard_result_free(res: *mut contractpin_guard_result) {
    if res.is_null() {
        return;
    }
    // SAFETY: by the caller's contract `res` came from `Box::into_raw` in
    // `contractpin_guard_page` and is freed only once.
    super::boundary::catch((), || drop(unsafe { Box::from_raw(res) }));
}

/// The result object to hand to the client in place of the page: in
/// enforce mode the page with every event's tool removed from `tools`, in
/// observe mode (or when every tool passed) the page itself. Every other
/// byte is the server's: the kept tool objects, `nextCursor`, `_meta` and
/// any other member, with their whitespace and escapes.
///
/// `*bytes` (required) receives a pointer owned by `res` (followed by a NUL
/// byte that `*bytes_len` does not count, so it is also a C string),
/// `*bytes_len` (required) its length. Written only on success.
///
/// # Safety
/// `res` NULL or live; `bytes`, `bytes_len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn contractpin_guard_result_bytes(
    res: *const contractpin_guard_result,
    bytes: *mut *const u8,
    bytes_len: *mut usize,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: NULL or live by the caller's contract.
        let r = unsafe { borrow(res)? };
        let span = (r.result.as_ptr(), r.result.len() - 1);
        // SAFETY: NULL or writable by the caller's contract.
        unsafe { write_span(span, bytes, bytes_len) }
    })
}

/// The number of tools of the page that matched their pins (0 for NULL).
///
/// # Safety
/// `res` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn contractpin_guard_result_passed_count(
    res: *const contractpin_guard_result,
) -> usize {
    // SAFETY: NULL or live by the caller's contract.
    unsafe { borrow(res) }.map_or(0, |r| r.decision.passed.len())
}

/// The name of passing tool `index` (page order), as UTF-8 owned by `res`
/// (followed by a NUL byte not counted in `*name_len`; a name may contain
/// NULs itself). Both out-parameters required, written only on success.
/// `CONTRACTPIN_STATUS_INDEX_OUT_OF_RANGE` when `index` is not below the
/// count.
///
/// # Safety
/// `res` NULL or live; `name`, `name_len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn contractpin_guard_result_passed_name(
    res: *const contractpin_guard_result,
    index: usize,
    name: *mut *const u8,
    name_len: *mut usize,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: NULL or live by the caller's contract.
        let r = unsafe { borrow(res)? };
        let span = r.passed.get(index)?;
        // SAFETY: NULL or writable by the caller's contract.
        unsafe { write_span(span, name, name_len) }
    })
}

/// The number of events: tools of the page that did not match their pins
/// (0 for NULL). A page passes untouched when this is 0.
///
/// # Safety
/// `res` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn contractpin_guard_result_event_count(
    res: *const contractpin_guard_result,
) -> usize {
    // SAFETY: NULL or live by the caller's contract.
    unsafe { borrow(res) }.map_or(0, |r| r.decision.events.len())
}

/// Event `index` (page order). Each out-parameter is optional (NULL to
/// skip); all are written only on success:
///
/// - `*tool`, `*tool_len`: the tool's name, UTF-8 owned by `res` (followed
///   by a NUL byte not counted in the length);
/// - `*status`: `CONTRACTPIN_GUARD_STATUS_DRIFTED` or
///   `CONTRACTPIN_GUARD_STATUS_UNPINNED`;
/// - `*changed_fields`: for a drifted tool, the bit mask (`1u <<
///   CONTRACTPIN_FIELD_*`) of the contract members whose digests differ from
///   the pinned field digests (a member pinned or live on one side only
///   counts; 0 when the lock has no field digests, which are advisory: the
///   same rule as `contractpin_report_tool`); 0 for an unpinned tool;
/// - `live_digest`: the live tool digest, 32 raw bytes.
///
/// `CONTRACTPIN_STATUS_INDEX_OUT_OF_RANGE` when `index` is not below the
/// count.
///
/// # Safety
/// `res` NULL or live; `tool`, `tool_len`, `status`, `changed_fields` NULL
/// or writable for their type; `live_digest` NULL or writable for 32 bytes.
#[no_mangle]
pub unsafe extern "C" fn contractpin_guard_result_event(
    res: *const contractpin_guard_result,
    index: usize,
    tool: *mut *const u8,
    tool_len: *mut usize,
    status: *mut contractpin_guard_status,
    changed_fields: *mut u32,
    live_digest: *mut u8,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: NULL or live by the caller's contract.
        let r = unsafe { borrow(res)? };
        let event = r.event(index)?;
        let (ptr, len) = r.tools.get(index)?;
        // SAFETY: each pointer is NULL or writable for its type by the
        // caller's contract (`live_digest` for 32 bytes).
        unsafe {
            write_opt(tool, ptr);
            write_opt(tool_len, len);
            write_opt(status, contractpin_guard_status::from(event.status));
            write_opt(changed_fields, r.changed[index]);
            if !live_digest.is_null() {
                write_bytes(&event.live_digest, live_digest);
            }
        }
        Ok(())
    })
}

/// Event `index` as one line of JSON, the log format of `contractpin proxy
/// --log` (no newline; keys in canonical order):
/// `{"changed":["description"],"live":"sha256:...","server":"...","status":"drifted","tool":"..."}`
/// with `server` the name given to `contractpin_guard_page` and `status`
/// `"drifted"` or `"unpinned"`.
///
/// `*json` (required) receives a pointer owned by `res` (followed by a NUL
/// byte not counted in `*json_len`), `*json_len` (required) its length.
/// Written only on success; `CONTRACTPIN_STATUS_INDEX_OUT_OF_RANGE` when
/// `index` is not below the count.
///
/// # Safety
/// `res` NULL or live; `json`, `json_len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn contractpin_guard_result_event_json(
    res: *const contractpin_guard_result,
    index: usize,
    json: *mut *const u8,
    json_len: *mut usize,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: NULL or live by the caller's contract.
        let r = unsafe { borrow(res)? };
        let span = r.json.get(index)?;
        // SAFETY: NULL or writable by the caller's contract.
        unsafe { write_span(span, json, json_len) }
    })
}

/// Whether the client may call tool `name` (UTF-8, not NUL-terminated)
/// under the decision `res`: 1 for a tool of the page that passed, and in
/// observe mode for a reported one too; 0 otherwise, including a name that
/// is not on this page, a name that is not UTF-8, a NULL `res` and a NULL
/// `name` with a non-zero length. Fail closed: call only on 1.
///
/// # Safety
/// `res` NULL or live; `name` NULL or readable for `name_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn contractpin_guard_result_callable(
    res: *const contractpin_guard_result,
    name: *const u8,
    name_len: usize,
) -> i32 {
    let found = guarded(|| {
        // SAFETY: NULL or live, and NULL or readable for `name_len` bytes,
        // by the caller's contract.
        let (r, name) = unsafe { (borrow(res)?, input(name, name_len)?) };
        let name = core::str::from_utf8(name).map_err(|_| contractpin_status::InvalidArgument)?;
        r.callable
            .binary_search_by(|c| cmp_utf16(c, name))
            .map(|_| ())
            .map_err(|_| contractpin_status::NotFound.into())
    });
    i32::from(found.is_ok())
}
