//! A lock parsed once (`contractpin_lock`): verify any number of servers
//! against it at run time, list its servers, and learn why a lock was
//! refused (`contractpin_lock_error`: status, JSON path, detail, offset).
//!
//! `contractpin_verify` parses the lock on every call; an MCP client that
//! checks every `tools/list` of several servers parses it once here.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use super::boundary::{
    borrow, finish, guarded, input, non_null, status_of, write_opt, Failure, NulStr,
};
use super::limits::{contractpin_limits, resolve};
use super::status::contractpin_status;
use super::verify::{lock_failure, verify_parsed};
use crate::lock::{cmp_utf16, Lock, LockError, LockServer};

/// A parsed, validated lock. Immutable: safe to share between threads.
pub struct contractpin_lock {
    lock: Lock,
    /// Server names in the lock's (UTF-16) order, for index access.
    names: Vec<NulStr>,
}

/// Why `contractpin_lock_parse` refused a lock.
pub struct contractpin_lock_error {
    status: contractpin_status,
    offset: Option<usize>,
    path: NulStr,
    detail: NulStr,
}

impl contractpin_lock_error {
    fn new(e: &LockError) -> contractpin_lock_error {
        let f = lock_failure(e);
        contractpin_lock_error {
            status: f.status,
            offset: f.offset,
            path: NulStr::new(e.path().as_bytes()),
            detail: NulStr::new(e.detail().as_bytes()),
        }
    }
}

/// The parsed lock behind a possibly NULL handle (for the other modules of
/// the ABI that read a lock: `contractpin_guard_page`).
///
/// # Safety
/// `lock` is NULL or a live pointer from `contractpin_lock_parse`.
pub(super) unsafe fn borrow_lock<'a>(lock: *const contractpin_lock) -> Result<&'a Lock, Failure> {
    // SAFETY: NULL or live by the caller's contract.
    Ok(&unsafe { borrow(lock)? }.lock)
}

/// The server named `name` (UTF-8 bytes from the caller) in `lock`, with the
/// name as text: `INVALID_ARGUMENT` for a name that is not UTF-8,
/// `LOCK_UNKNOWN_SERVER` for one the lock does not pin. Shared by the
/// guard and verify functions that take a server name.
pub(super) fn pinned_server<'l, 'n>(
    lock: &'l Lock,
    name: &'n [u8],
) -> Result<(&'n str, &'l LockServer), Failure> {
    let name = core::str::from_utf8(name).map_err(|_| contractpin_status::InvalidArgument)?;
    let pinned = lock
        .servers
        .get(name)
        .ok_or(contractpin_status::LockUnknownServer)?;
    Ok((name, pinned))
}

/// Parses and validates the bytes of a `contractpin.lock`.
///
/// - `out` (required): on success a new `contractpin_lock *` owned by the
///   caller, released with `contractpin_lock_free`. Not written on failure.
/// - `out_error` (optional): on a lock error (statuses 64-68) a new
///   `contractpin_lock_error *` (release with `contractpin_lock_error_free`)
///   naming the JSON path and the problem; NULL on success and on other
///   failures.
/// - `error_offset` (optional): the byte offset of a syntax error
///   (`CONTRACTPIN_STATUS_LOCK_SYNTAX`).
///
/// # Safety
/// `lock` NULL or readable for `lock_len` bytes; `out`, `out_error` and
/// `error_offset` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn contractpin_lock_parse(
    lock: *const u8,
    lock_len: usize,
    out: *mut *mut contractpin_lock,
    out_error: *mut *mut contractpin_lock_error,
    error_offset: *mut usize,
) -> contractpin_status {
    // SAFETY: `out_error` is NULL or writable by the caller's contract.
    unsafe { write_opt(out_error, core::ptr::null_mut()) };
    let result = guarded(|| {
        non_null(out)?;
        // SAFETY: `lock` is NULL or readable for `lock_len` bytes.
        let bytes = unsafe { input(lock, lock_len)? };
        let parsed = Lock::parse(bytes).map_err(|e| {
            let error = Box::into_raw(Box::new(contractpin_lock_error::new(&e)));
            if out_error.is_null() {
                // SAFETY: just allocated above and not shared.
                drop(unsafe { Box::from_raw(error) });
            } else {
                // SAFETY: `out_error` is non-null and writable.
                unsafe { out_error.write(error) };
            }
            lock_failure(&e)
        })?;
        let mut names: Vec<&String> = parsed.servers.keys().collect();
        names.sort_by(|a, b| cmp_utf16(a, b));
        let names = names.iter().map(|n| NulStr::new(n.as_bytes())).collect();
        let handle = Box::into_raw(Box::new(contractpin_lock {
            lock: parsed,
            names,
        }));
        // SAFETY: `out` is non-null and writable by the caller's contract.
        unsafe { out.write(handle) };
        Ok(())
    });
    // SAFETY: `error_offset` is NULL or writable by the caller's contract.
    unsafe { finish(result, error_offset) }
}

/// Releases a `contractpin_lock`. NULL is a no-op. Names obtained from it
/// become invalid; reports made from it stay valid.
///
/// # Safety
/// `lock` NULL or a pointer from `contractpin_lock_parse`, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn contractpin_lock_free(lock: *mut contractpin_lock) {
    // SAFETY: by the caller's contract `lock` is NULL or came from this
    // library and is freed only once.
    unsafe { super::boundary::free_boxed(lock) }
}

/// The number of servers in the lock (0 for NULL).
///
/// # Safety
/// `lock` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn contractpin_lock_server_count(lock: *const contractpin_lock) -> usize {
    // SAFETY: NULL or live by the caller's contract.
    unsafe { borrow(lock) }.map_or(0, |l| l.names.len())
}

/// The name of server `index` (in the lock's UTF-16 key order): on success
/// `*name` points at its UTF-8 bytes, owned by the lock, and `*name_len`
/// holds their length. A NUL byte follows the name (not counted in
/// `*name_len`), so `*name` is never NULL or dangling, even for an empty
/// name, and a name without NULs of its own can be used as a C string. Both
/// out-parameters are required and written only on success. Statuses:
/// `CONTRACTPIN_STATUS_NULL_ARGUMENT`, `CONTRACTPIN_STATUS_INDEX_OUT_OF_RANGE`.
///
/// # Safety
/// `lock` NULL or live; `name` and `name_len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn contractpin_lock_server_name(
    lock: *const contractpin_lock,
    index: usize,
    name: *mut *const u8,
    name_len: *mut usize,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: NULL or live by the caller's contract.
        let l = unsafe { borrow(lock)? };
        non_null(name)?;
        non_null(name_len)?;
        let (ptr, len) = l
            .names
            .get(index)
            .ok_or(contractpin_status::IndexOutOfRange)?
            .span();
        // SAFETY: both out-parameters are non-null and writable.
        unsafe {
            name.write(ptr);
            name_len.write(len);
        }
        Ok(())
    })
}

/// `contractpin_verify_with_limits` against a parsed lock: compares the
/// live tools/list of server `server_name` with its pins. `flags`
/// (`CONTRACTPIN_VERIFY_ALLOW_NEW`, and `CONTRACTPIN_VERIFY_IGNORE_INSTRUCTIONS`
/// accepted without effect; other bits are
/// `CONTRACTPIN_STATUS_INVALID_ARGUMENT`), statuses, `out` and
/// `error_offset` as there (no lock statuses but
/// `CONTRACTPIN_STATUS_LOCK_UNKNOWN_SERVER`: the lock is already valid).
///
/// # Safety
/// `lock` NULL or live; buffers NULL or readable for their lengths;
/// `limits` NULL or readable; `out`, `error_offset` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn contractpin_lock_verify(
    lock: *const contractpin_lock,
    server_name: *const u8,
    server_name_len: usize,
    tools_list: *const u8,
    tools_list_len: usize,
    flags: u32,
    limits: *const contractpin_limits,
    out: *mut *mut super::verify::contractpin_report,
    error_offset: *mut usize,
) -> contractpin_status {
    let result = guarded(|| {
        // SAFETY: each pointer is NULL or valid by the caller's contract.
        let (l, name, list, limits) = unsafe {
            (
                borrow(lock)?,
                input(server_name, server_name_len)?,
                input(tools_list, tools_list_len)?,
                resolve(limits),
            )
        };
        // SAFETY: `out` is NULL or writable by the caller's contract.
        unsafe { verify_parsed(&l.lock, name, list, flags, limits, out) }
    });
    // SAFETY: `error_offset` is NULL or writable by the caller's contract.
    unsafe { finish(result, error_offset) }
}

/// The status of a lock error (64-68). `CONTRACTPIN_STATUS_NULL_ARGUMENT`
/// for NULL.
///
/// # Safety
/// `error` NULL or live.
#[no_mangle]
pub unsafe extern "C" fn contractpin_lock_error_status(
    error: *const contractpin_lock_error,
) -> contractpin_status {
    // SAFETY: NULL or live by the caller's contract.
    unsafe { borrow(error) }.map_or(contractpin_status::NullArgument, |e| e.status)
}

/// The byte offset of a syntax error in the lock, written to `offset`;
/// `CONTRACTPIN_STATUS_NOT_FOUND` (and nothing written) when the error is
/// not tied to one byte.
///
/// # Safety
/// `error` NULL or live; `offset` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn contractpin_lock_error_offset(
    error: *const contractpin_lock_error,
    offset: *mut usize,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: NULL or live by the caller's contract.
        let e = unsafe { borrow(error)? };
        non_null(offset)?;
        let at = e.offset.ok_or(contractpin_status::NotFound)?;
        // SAFETY: non-null and writable.
        unsafe { offset.write(at) };
        Ok(())
    })
}

/// Writes a string owned by `error` to the out-parameters.
///
/// # Safety
/// `error` NULL or live; `text`, `text_len` NULL or writable.
unsafe fn error_text(
    error: *const contractpin_lock_error,
    pick: fn(&contractpin_lock_error) -> &NulStr,
    text: *mut *const u8,
    text_len: *mut usize,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: NULL or live by the caller's contract.
        let e = unsafe { borrow(error)? };
        non_null(text)?;
        non_null(text_len)?;
        let (ptr, len) = pick(e).span();
        // SAFETY: both are non-null and writable.
        unsafe {
            text.write(ptr);
            text_len.write(len);
        }
        Ok(())
    })
}

/// The JSON path of the problem in the lock (for example
/// `servers.acme.tools.search.digest`; empty for the whole document and for
/// a `CONTRACTPIN_STATUS_LOCK_SYNTAX` error, located by its offset instead),
/// as UTF-8 bytes owned by `error`: `*path` and `*path_len` as for
/// `contractpin_lock_server_name` (followed by a NUL byte, never NULL or
/// dangling even when empty). Statuses: `CONTRACTPIN_STATUS_NULL_ARGUMENT`.
///
/// # Safety
/// `error` NULL or live; `path`, `path_len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn contractpin_lock_error_path(
    error: *const contractpin_lock_error,
    path: *mut *const u8,
    path_len: *mut usize,
) -> contractpin_status {
    // SAFETY: forwarded contract.
    unsafe { error_text(error, |e| &e.path, path, path_len) }
}

/// What is wrong there, in one line of UTF-8 owned by `error` (empty for a
/// `CONTRACTPIN_STATUS_LOCK_SYNTAX` error: its status and offset say it):
/// `*detail` and `*detail_len` as for `contractpin_lock_server_name`
/// (followed by a NUL byte, never NULL or dangling even when empty).
/// Statuses: `CONTRACTPIN_STATUS_NULL_ARGUMENT`.
///
/// # Safety
/// `error` NULL or live; `detail`, `detail_len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn contractpin_lock_error_detail(
    error: *const contractpin_lock_error,
    detail: *mut *const u8,
    detail_len: *mut usize,
) -> contractpin_status {
    // SAFETY: forwarded contract.
    unsafe { error_text(error, |e| &e.detail, detail, detail_len) }
}

/// Releases a `contractpin_lock_error`. NULL is a no-op.
///
/// # Safety
/// `error` NULL or a pointer from `contractpin_lock_parse`, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn contractpin_lock_error_free(error: *mut contractpin_lock_error) {
    // SAFETY: by the caller's contract `error` is NULL or came from this
    // library and is freed only once.
    unsafe { super::boundary::free_boxed(error) }
}
