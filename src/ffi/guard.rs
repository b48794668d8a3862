//! `contractpin_guard_page`: the run-time decision of `contractpin proxy`
//! for an embedding MCP client. One `tools/list` page is decided against
//! one server of a parsed lock ([`contractpin_lock`]) by the same
//! [`crate::guard::guard_page`] the proxy calls; the verdict is an opaque
//! [`contractpin_guard_result`]: the page to hand on (drifted and unpinned
//! tools removed, or kept in observe mode), the passing tools, one event per
//! tool that did not match (with the proxy's JSON log line), and whether a
//! given tool may be called.
//!
//! `contractpin_guard_instructions` does the same for the server's
//! `instructions` in the handshake result, by the same
//! [`crate::guard::guard_instructions`] the proxy calls: the verdict, the
//! live digest, the result to hand on (drifted or added instructions cut
//! out in enforce mode) and the proxy's event line, in an opaque
//! [`contractpin_guard_instructions_result`].

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use super::boundary::{finish, guarded, input, non_null, status_of, write_opt, Failure, NulStr};
use super::digest_text::write_bytes;
use super::limits::{contractpin_limits, resolve};
use super::lock::{borrow_lock, contractpin_lock, pinned_server};
use super::server::contractpin_field;
use super::status::contractpin_status;
use crate::guard::{
    guard_instructions, guard_page, GuardDecision, GuardMode, GuardStatus, InstructionsDecision,
};
use crate::lock::cmp_utf16;
use crate::verify::InstructionsStatus;

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
pub(super) struct Strings {
    bytes: Vec<u8>,
    /// (start, length) of each string in `bytes`.
    spans: Vec<(usize, usize)>,
}

impl Strings {
    pub(super) fn new<'a>(items: impl Iterator<Item = &'a [u8]>) -> Strings {
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
    pub(super) fn get(&self, index: usize) -> Result<(*const u8, usize), Failure> {
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
    pub(super) decision: GuardDecision,
    /// The result bytes (followed by a NUL byte).
    result: NulStr,
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
        let result = NulStr::new(&decision.result);
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
pub(super) unsafe fn borrow<'a>(
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
pub(super) unsafe fn write_span(
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
///   core rejects is statuses 1-13 or 32-38 with `error_offset` into these
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
        let mode = mode_of(flags)?;
        // SAFETY: each pointer is NULL or valid by the caller's contract.
        let (l, name, page, limits) = unsafe {
            (
                borrow_lock(lock)?,
                input(server_name, server_name_len)?,
                input(page, page_len)?,
                resolve(limits),
            )
        };
        let (name, pinned) = pinned_server(l, name)?;
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
    // SAFETY: by the caller's contract `res` is NULL or came from this
    // library and is freed only once.
    unsafe { super::boundary::free_boxed(res) }
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
        let span = r.result.span();
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

/// How the server's `instructions` compare with the lock's
/// `instructions_digest` (the verdict of `contractpin_guard_instructions`
/// and of `contractpin_report_instructions`). Stable numbers; 0 to 3 are
/// those of `contractpin_tool_status`.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum contractpin_instructions_status {
    /// Pinned and live with the same instructions digest.
    Unchanged = 0,
    /// Pinned, and the live instructions differ (or are not a string).
    Drifted = 1,
    /// Live instructions (or a non-string member), none pinned.
    Added = 2,
    /// Pinned, none live (absent or `null`).
    Removed = 3,
    /// Neither the lock nor the result has instructions.
    None = 4,
    /// Not compared: a `contractpin_report` of `contractpin_verify`,
    /// `contractpin_verify_with_limits` or `contractpin_lock_verify` (no
    /// handshake given), or of a `*_verify_server` call with
    /// `CONTRACTPIN_VERIFY_IGNORE_INSTRUCTIONS`. The guard never gives it.
    NotChecked = 5,
}

impl From<Option<InstructionsStatus>> for contractpin_instructions_status {
    fn from(s: Option<InstructionsStatus>) -> contractpin_instructions_status {
        use contractpin_instructions_status as C;
        match s {
            Some(InstructionsStatus::Unchanged) => C::Unchanged,
            Some(InstructionsStatus::Drifted) => C::Drifted,
            Some(InstructionsStatus::Added) => C::Added,
            Some(InstructionsStatus::Removed) => C::Removed,
            None => C::None,
        }
    }
}

/// The decision of `contractpin_guard_instructions` on one handshake result
/// (an opaque, library-allocated object): the verdict, the live digest, the
/// result bytes to hand on and the event line.
///
/// Released by `contractpin_guard_instructions_result_free`. Immutable after
/// creation: the accessors may be called from several threads at once.
/// Independent of the lock it was made from.
pub struct contractpin_guard_instructions_result {
    decision: InstructionsDecision,
    /// The result bytes (followed by a NUL byte).
    result: NulStr,
    /// The event line (followed by a NUL byte), when there is an event.
    json: Option<NulStr>,
}

/// Decides the `instructions` of one handshake result against the lock's
/// `instructions_digest` for server `server_name`: exactly the decision of
/// `contractpin proxy` (both call the library's `guard_instructions`).
///
/// The classification is `contractpin verify`'s: unchanged, drifted, added
/// (live, none pinned), removed (pinned, none live; `null` counts as none),
/// or none on either side; an `instructions` member that is neither a
/// string nor `null` is drifted (added when none is pinned). In enforce mode
/// (`flags` 0) drifted and added instructions are cut out of the result
/// (the member and one separating comma; every other byte is the server's);
/// in observe mode (`CONTRACTPIN_GUARD_OBSERVE`) they are kept, and still
/// reported. Removed instructions are only reported.
///
/// - `lock` (required): from `contractpin_lock_parse`.
/// - `server_name`, `server_name_len`: the server's key in the lock (UTF-8,
///   not NUL-terminated; `CONTRACTPIN_STATUS_INVALID_ARGUMENT` if not UTF-8,
///   `CONTRACTPIN_STATUS_LOCK_UNKNOWN_SERVER` if absent).
/// - `result`, `result_len`: the `result` member of the `initialize` (or
///   `server/discover`) response as the server sent it, a JSON object (not
///   the JSON-RPC response). Fails closed with `error_offset` into these
///   bytes: input the strict parser rejects (statuses 1-13), a result that
///   is not an object (`CONTRACTPIN_STATUS_UNEXPECTED_BYTE` at its first
///   byte), an error response (`CONTRACTPIN_STATUS_JSON_RPC_ERROR`) or a
///   whole response (an object with a `result` member:
///   `CONTRACTPIN_STATUS_UNEXPECTED_BYTE` at that key); the result must not
///   be passed on.
/// - `flags`: 0 or `CONTRACTPIN_GUARD_OBSERVE`; other bits are
///   `CONTRACTPIN_STATUS_INVALID_ARGUMENT`.
/// - `limits`: NULL for the defaults; `max_input` and `max_depth` apply.
/// - `out` (required): on success a new
///   `contractpin_guard_instructions_result *` owned by the caller, released
///   with `contractpin_guard_instructions_result_free`. Not written on
///   failure.
/// - `error_offset` (optional): see above.
///
/// Checked in this order: `out`, `flags`, `lock`, the buffers, the name's
/// UTF-8, the server, then the result. Thread-safe: the lock is only read.
///
/// # Safety
/// `lock` NULL or live; each buffer NULL or readable for its length;
/// `limits` NULL or readable; `out` NULL or writable for a pointer;
/// `error_offset` NULL or writable for a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn contractpin_guard_instructions(
    lock: *const contractpin_lock,
    server_name: *const u8,
    server_name_len: usize,
    result: *const u8,
    result_len: usize,
    flags: u32,
    limits: *const contractpin_limits,
    out: *mut *mut contractpin_guard_instructions_result,
    error_offset: *mut usize,
) -> contractpin_status {
    let outcome = guarded(|| {
        non_null(out)?;
        let mode = mode_of(flags)?;
        // SAFETY: each pointer is NULL or valid by the caller's contract.
        let (l, name, bytes, limits) = unsafe {
            (
                borrow_lock(lock)?,
                input(server_name, server_name_len)?,
                input(result, result_len)?,
                resolve(limits),
            )
        };
        let (name, pinned) = pinned_server(l, name)?;
        let decision = guard_instructions(pinned, bytes, mode, &limits)?;
        let json = decision.to_json(name).map(|j| NulStr::new(&j));
        let result = NulStr::new(&decision.result);
        let res = Box::into_raw(Box::new(contractpin_guard_instructions_result {
            decision,
            result,
            json,
        }));
        // SAFETY: `out` is non-null and writable by the caller's contract.
        unsafe { out.write(res) };
        Ok(())
    });
    // SAFETY: `error_offset` is NULL or writable by the caller's contract.
    unsafe { finish(outcome, error_offset) }
}

/// The mode of a `flags` argument (unknown bits are an error).
fn mode_of(flags: u32) -> Result<GuardMode, Failure> {
    if flags & !CONTRACTPIN_GUARD_OBSERVE != 0 {
        return Err(contractpin_status::InvalidArgument.into());
    }
    Ok(if flags & CONTRACTPIN_GUARD_OBSERVE != 0 {
        GuardMode::Observe
    } else {
        GuardMode::Enforce
    })
}

/// Releases a `contractpin_guard_instructions_result`. NULL is a no-op.
/// Every pointer obtained from its accessors becomes invalid.
///
/// # Safety
/// `res` NULL or a pointer from `contractpin_guard_instructions`, not yet
/// freed; not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn contractpin_guard_instructions_result_free(
    res: *mut contractpin_guard_instructions_result,
) {
    // SAFETY: by the caller's contract `res` is NULL or came from this
    // library and is freed only once.
    unsafe { super::boundary::free_boxed(res) }
}

/// The verdict. Each out-parameter is optional (NULL to skip); all are
/// written only on success:
///
/// - `*status`: a `CONTRACTPIN_INSTRUCTIONS_STATUS_*`;
/// - `*has_live`: 1 when there is a live instructions digest (the live
///   member is a string), else 0 (removed, none, or a member that is not a
///   string);
/// - `live_digest`: the live instructions digest, 32 raw bytes, written only
///   when `*has_live` would be 1;
/// - `*removed`: 1 when the instructions were cut out of the result bytes
///   (drifted or added, in enforce mode), else 0.
///
/// # Safety
/// `res` NULL or live; `status`, `has_live`, `removed` NULL or writable for
/// their type; `live_digest` NULL or writable for 32 bytes.
#[no_mangle]
pub unsafe extern "C" fn contractpin_guard_instructions_result_verdict(
    res: *const contractpin_guard_instructions_result,
    status: *mut contractpin_instructions_status,
    has_live: *mut i32,
    live_digest: *mut u8,
    removed: *mut i32,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: NULL or live by the caller's contract.
        let r = unsafe { super::boundary::borrow(res)? };
        let d = &r.decision;
        let live = d.verdict.and_then(|v| v.live);
        // SAFETY: each pointer is NULL or writable for its type by the
        // caller's contract (`live_digest` for 32 bytes).
        unsafe {
            write_opt(
                status,
                contractpin_instructions_status::from(d.verdict.map(|v| v.status)),
            );
            write_opt(has_live, i32::from(live.is_some()));
            write_opt(removed, i32::from(d.removed));
            if let (Some(l), false) = (live, live_digest.is_null()) {
                write_bytes(&l, live_digest);
            }
        }
        Ok(())
    })
}

/// The result object to hand to the client in place of the server's: in
/// enforce mode without drifted or added instructions, in observe mode (or
/// when they match) the input itself. Every other byte is the server's.
///
/// `*bytes` (required) receives a pointer owned by `res` (followed by a NUL
/// byte that `*bytes_len` does not count), `*bytes_len` (required) its
/// length. Written only on success.
///
/// # Safety
/// `res` NULL or live; `bytes`, `bytes_len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn contractpin_guard_instructions_result_bytes(
    res: *const contractpin_guard_instructions_result,
    bytes: *mut *const u8,
    bytes_len: *mut usize,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: NULL or live by the caller's contract.
        let r = unsafe { super::boundary::borrow(res)? };
        let span = r.result.span();
        // SAFETY: NULL or writable by the caller's contract.
        unsafe { write_span(span, bytes, bytes_len) }
    })
}

/// The event as one line of JSON, the log format of `contractpin proxy
/// --log` without its `at` (no newline; keys in canonical order):
/// `{"live":"sha256:...","pinned":"sha256:...","reason":"...","server":"...","status":"instructions-drifted"}`
/// with `live` and `pinned` each when there is one, `server` the name given
/// to `contractpin_guard_instructions`, `status` `"instructions-drifted"`,
/// `"instructions-added"` or `"instructions-removed"`, and `reason` what was
/// done (removed from the handshake result, kept in observe mode, or
/// nothing to hide).
///
/// `*json` (required) receives a pointer owned by `res` (followed by a NUL
/// byte not counted in `*json_len`), `*json_len` (required) its length.
/// Written only on success; `CONTRACTPIN_STATUS_NOT_FOUND` when there is no
/// event (unchanged, or no instructions on either side).
///
/// # Safety
/// `res` NULL or live; `json`, `json_len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn contractpin_guard_instructions_result_event_json(
    res: *const contractpin_guard_instructions_result,
    json: *mut *const u8,
    json_len: *mut usize,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: NULL or live by the caller's contract.
        let r = unsafe { super::boundary::borrow(res)? };
        let line = r.json.as_ref().ok_or(contractpin_status::NotFound)?;
        // SAFETY: NULL or writable by the caller's contract.
        unsafe { write_span(line.span(), json, json_len) }
    })
}
