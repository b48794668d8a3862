//! `contractpin_verify_server_with_limits` and
//! `contractpin_lock_verify_server`: `contractpin verify` of one server in
//! one call, the tools/list and the handshake (`initialize` result)
//! together, so the report carries the server facts of the CLI's report
//! (the instructions verdict, `server_info`, `protocol_version`) and its
//! verdict includes the instructions. The accessors of those facts on a
//! `contractpin_report` are here too.
//!
//! Nothing is decided here: the handshake is read by
//! [`crate::guard::handshake_facts`] (the reader of
//! `contractpin_guard_instructions`), the facts are compared by
//! `ServerReport::check_facts` and the verdict is `ServerReport::exit_code`,
//! exactly as the CLI does.

use alloc::boxed::Box;

use super::boundary::{borrow, finish, guarded, input, non_null, status_of, write_opt, Failure};
use super::digest_text::write_bytes;
use super::guard::contractpin_instructions_status;
use super::limits::{contractpin_limits, resolve};
use super::lock::{borrow_lock, contractpin_lock};
use super::status::contractpin_status;
use super::verify::{check_flags, contractpin_report, lock_failure, verify_in};
use crate::digest::Digest;
use crate::lock::Lock;

/// Which input of a `*_verify_server` call an error offset is into (written
/// to `*error_input` together with `*error_offset`). Stable numbers.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum contractpin_input {
    /// The lock bytes (`CONTRACTPIN_STATUS_LOCK_SYNTAX`).
    Lock = 0,
    /// The live tools/list.
    ToolsList = 1,
    /// The `initialize` result.
    InitializeResult = 2,
}

/// Runs one `*_verify_server` body and turns its result into a status,
/// writing the offset and the input it is into.
///
/// # Safety
/// `out` NULL or writable for a pointer; `error_offset`, `error_input` NULL
/// or writable.
unsafe fn run(
    out: *mut *mut contractpin_report,
    error_offset: *mut usize,
    error_input: *mut contractpin_input,
    body: impl FnOnce(&mut contractpin_input) -> Result<Box<contractpin_report>, Failure>,
) -> contractpin_status {
    let mut at = contractpin_input::Lock;
    let result = guarded(|| {
        non_null(out)?;
        let report = body(&mut at)?;
        // SAFETY: `out` is non-null and writable by the caller's contract.
        unsafe { out.write(Box::into_raw(report)) };
        Ok(())
    });
    if let Err(Failure {
        offset: Some(_), ..
    }) = result
    {
        // SAFETY: NULL or writable by the caller's contract.
        unsafe { write_opt(error_input, at) };
    }
    // SAFETY: `error_offset` is NULL or writable by the caller's contract.
    unsafe { finish(result, error_offset) }
}

/// `contractpin verify --format json` of one server in one call: compares
/// the live tools/list and the handshake of a server with its entry in a
/// lock file, and returns the report the CLI would write for it.
///
/// The verdict (`contractpin_report_exit_code`) is the CLI's: 1 when a tool
/// drifted, was removed or was added (without
/// `CONTRACTPIN_VERIFY_ALLOW_NEW`), or when the instructions drifted, were
/// removed, or were added (live, none pinned) without
/// `CONTRACTPIN_VERIFY_ALLOW_NEW`. `contractpin_report_json` is the CLI's
/// document byte for byte, with `instructions`, `server_info` and
/// `protocol_version` filled in. `serverInfo` and the protocol version are
/// informational: they never fail a server.
///
/// - `lock`, `lock_len`, `server_name`, `server_name_len`, `tools_list`,
///   `tools_list_len`, `limits`, `out`: as for
///   `contractpin_verify_with_limits` (`limits` applies to both inputs).
/// - `initialize_result`, `initialize_result_len`: the `result` member of
///   the server's `initialize` (or `server/discover`) response as the server
///   sent it, a JSON object: the input `contractpin_guard_instructions`
///   takes, read by the same parser. Fails closed with `*error_offset` into
///   these bytes and `*error_input` `CONTRACTPIN_INPUT_INITIALIZE_RESULT`:
///   input the strict parser rejects or over `limits` (statuses 1-13), a
///   result that is not an object (`CONTRACTPIN_STATUS_UNEXPECTED_BYTE` at
///   its first byte), an error response (`CONTRACTPIN_STATUS_JSON_RPC_ERROR`
///   at its `error`) or a whole JSON-RPC response (an object with a
///   `result` member: `CONTRACTPIN_STATUS_UNEXPECTED_BYTE` at that key).
///   Read as the CLI reads a handshake: `serverInfo` (or `_meta`
///   `io.modelcontextprotocol/serverInfo`) with a string `name` and
///   `version`, the `protocolVersion` string (a `server/discover` result has
///   none: `protocol_version.live` is then null), and `instructions` when a
///   string (any other value counts as none, as in the CLI; the guard,
///   which hands the result on, treats it as drift instead).
/// - `flags`: any of `CONTRACTPIN_VERIFY_ALLOW_NEW` and
///   `CONTRACTPIN_VERIFY_IGNORE_INSTRUCTIONS` (the CLI's `--allow-new` and
///   `--ignore-instructions`); other bits are
///   `CONTRACTPIN_STATUS_INVALID_ARGUMENT`.
/// - `error_offset` (optional): the byte offset of an input error.
/// - `error_input` (optional): written whenever `*error_offset` is: which
///   input the offset is into (`CONTRACTPIN_INPUT_LOCK`,
///   `CONTRACTPIN_INPUT_TOOLS_LIST` or `CONTRACTPIN_INPUT_INITIALIZE_RESULT`).
///
/// Checked in this order: `out` and the buffers, `flags`, the name's UTF-8,
/// the lock, the server, the `initialize` result, then the tools/list. Success means a
/// verdict was reached, not that the server matches. Thread-safe: no shared
/// state.
///
/// # Safety
/// Each buffer pointer must be NULL or valid for reading its length in
/// bytes; `limits` NULL or valid for reading; `out` NULL or valid for writing
/// a pointer; `error_offset` NULL or valid for writing a `size_t`;
/// `error_input` NULL or valid for writing a `contractpin_input`.
#[no_mangle]
pub unsafe extern "C" fn contractpin_verify_server_with_limits(
    lock: *const u8,
    lock_len: usize,
    server_name: *const u8,
    server_name_len: usize,
    initialize_result: *const u8,
    initialize_result_len: usize,
    tools_list: *const u8,
    tools_list_len: usize,
    flags: u32,
    limits: *const contractpin_limits,
    out: *mut *mut contractpin_report,
    error_offset: *mut usize,
    error_input: *mut contractpin_input,
) -> contractpin_status {
    let body = |at: &mut contractpin_input| {
        // SAFETY: each pointer is NULL or readable for its length by the
        // caller's contract; `limits` is NULL or readable.
        let (lock, name, init, list, limits) = unsafe {
            (
                input(lock, lock_len)?,
                input(server_name, server_name_len)?,
                input(initialize_result, initialize_result_len)?,
                input(tools_list, tools_list_len)?,
                resolve(limits),
            )
        };
        check_flags(flags)?;
        core::str::from_utf8(name).map_err(|_| contractpin_status::InvalidArgument)?;
        let lock = Lock::parse(lock).map_err(|e| lock_failure(&e))?;
        verify_in(&lock, name, list, Some(init), flags, limits, at)
    };
    // SAFETY: forwarded contract.
    unsafe { run(out, error_offset, error_input, body) }
}

/// `contractpin_verify_server_with_limits` against a parsed lock. Arguments,
/// statuses, `out`, `error_offset` and `error_input` as there (no lock
/// statuses but `CONTRACTPIN_STATUS_LOCK_UNKNOWN_SERVER`: the lock is
/// already valid). Checked in this order: `out`, the handles and buffers,
/// `flags`, the name's UTF-8, the server, the `initialize` result, then the
/// tools/list. Thread-safe: the lock is only read.
///
/// # Safety
/// `lock` NULL or live; buffers NULL or readable for their lengths;
/// `limits` NULL or readable; `out`, `error_offset`, `error_input` NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn contractpin_lock_verify_server(
    lock: *const contractpin_lock,
    server_name: *const u8,
    server_name_len: usize,
    initialize_result: *const u8,
    initialize_result_len: usize,
    tools_list: *const u8,
    tools_list_len: usize,
    flags: u32,
    limits: *const contractpin_limits,
    out: *mut *mut contractpin_report,
    error_offset: *mut usize,
    error_input: *mut contractpin_input,
) -> contractpin_status {
    let body = |at: &mut contractpin_input| {
        // SAFETY: each pointer is NULL or valid by the caller's contract.
        let (l, name, init, list, limits) = unsafe {
            (
                borrow_lock(lock)?,
                input(server_name, server_name_len)?,
                input(initialize_result, initialize_result_len)?,
                input(tools_list, tools_list_len)?,
                resolve(limits),
            )
        };
        verify_in(l, name, list, Some(init), flags, limits, at)
    };
    // SAFETY: forwarded contract.
    unsafe { run(out, error_offset, error_input, body) }
}

/// The instructions verdict of the report: `*status` (required, written
/// only on success) receives a `CONTRACTPIN_INSTRUCTIONS_STATUS_*`:
/// unchanged, drifted, added, removed, `NONE` (neither the lock nor the
/// handshake has instructions) or `NOT_CHECKED` (a report of a call that
/// takes no handshake, or made with
/// `CONTRACTPIN_VERIFY_IGNORE_INSTRUCTIONS`). Drifted and removed fail the
/// server, added fails it without `CONTRACTPIN_VERIFY_ALLOW_NEW`.
///
/// # Safety
/// `report` NULL or a live `contractpin_report`; `status` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn contractpin_report_instructions(
    report: *const contractpin_report,
    status: *mut contractpin_instructions_status,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: `report` is NULL or live by the caller's contract.
        let r = unsafe { borrow(report) }?;
        non_null(status)?;
        let s = if r.instructions_checked {
            let verdict = r.as_server_report().instructions;
            contractpin_instructions_status::from(verdict.map(|v| v.status))
        } else {
            contractpin_instructions_status::NotChecked
        };
        // SAFETY: non-null and writable by the caller's contract.
        unsafe { status.write(s) };
        Ok(())
    })
}

/// Writes one digest of the instructions verdict (32 raw bytes) to `out`;
/// `NOT_FOUND` when there is none.
///
/// # Safety
/// `report` NULL or live; `out` NULL or writable for 32 bytes.
unsafe fn instructions_digest(
    report: *const contractpin_report,
    pick: fn(&crate::verify::InstructionsVerdict) -> Option<Digest>,
    out: *mut u8,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: `report` is NULL or live by the caller's contract.
        let r = unsafe { borrow(report) }?;
        non_null(out)?;
        let verdict = r.as_server_report().instructions.as_ref();
        let digest = verdict.and_then(pick).ok_or(contractpin_status::NotFound)?;
        // SAFETY: non-null and writable for 32 bytes by the caller's contract.
        unsafe { write_bytes(&digest, out) };
        Ok(())
    })
}

/// The pinned instructions digest of the verdict (the lock's
/// `instructions_digest`, 32 raw bytes, `out` required, written only on
/// success); `CONTRACTPIN_STATUS_NOT_FOUND` when the lock pins none, and
/// when the instructions were not compared.
///
/// # Safety
/// `report` NULL or a live `contractpin_report`; `out` NULL or writable for
/// 32 bytes.
#[no_mangle]
pub unsafe extern "C" fn contractpin_report_instructions_pinned_digest(
    report: *const contractpin_report,
    out: *mut u8,
) -> contractpin_status {
    // SAFETY: forwarded contract.
    unsafe { instructions_digest(report, |v| v.pinned, out) }
}

/// The live instructions digest of the verdict (of the handshake's
/// `instructions` string, 32 raw bytes, `out` required, written only on
/// success); `CONTRACTPIN_STATUS_NOT_FOUND` when the handshake has none, and
/// when the instructions were not compared.
///
/// # Safety
/// `report` NULL or a live `contractpin_report`; `out` NULL or writable for
/// 32 bytes.
#[no_mangle]
pub unsafe extern "C" fn contractpin_report_instructions_live_digest(
    report: *const contractpin_report,
    out: *mut u8,
) -> contractpin_status {
    // SAFETY: forwarded contract.
    unsafe { instructions_digest(report, |v| v.live, out) }
}

/// Whether `serverInfo.version` differs between the lock entry and the
/// handshake (the report's `server_info.version_changed`): `*changed`
/// (required, written only on success) is 1 when it moved, 0 when not.
/// `CONTRACTPIN_STATUS_NOT_FOUND` ("unknown", nothing written) when either
/// side has no `serverInfo`, which includes every report of a call that
/// takes no handshake. Informational: it never fails a server.
///
/// # Safety
/// `report` NULL or a live `contractpin_report`; `changed` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn contractpin_report_version_changed(
    report: *const contractpin_report,
    changed: *mut i32,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: `report` is NULL or live by the caller's contract.
        let r = unsafe { borrow(report) }?;
        non_null(changed)?;
        let moved = r
            .as_server_report()
            .version_changed()
            .ok_or(contractpin_status::NotFound)?;
        // SAFETY: non-null and writable by the caller's contract.
        unsafe { changed.write(i32::from(moved)) };
        Ok(())
    })
}
