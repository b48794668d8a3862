//! `contractpin_verify`: run-time enforcement of a lock (spec section 6).

use alloc::boxed::Box;
use alloc::vec::Vec;

use super::boundary::{
    borrow, copy_out, finish, guarded, input, non_null, out_buffer, status_of, write_opt, Failure,
};
use super::digest_text::write_bytes;
use super::limits::{contractpin_limits, resolve};
use super::server::contractpin_field;
use super::status::contractpin_status;
use crate::contract::tools_list::ListOptions;
use crate::contract::Field;
use crate::digest::Digest;
use crate::lock::{Lock, LockError, LockErrorKind};
use crate::owned::Context;
use crate::verify::{add_changes_from_list, report_json, verify_server, ServerReport, ToolStatus};

use super::verify_server::contractpin_input;

/// `flags` bit of the `contractpin_verify*` and `contractpin_lock_verify*`
/// calls: accept tools that are live but not pinned (the CLI's
/// `--allow-new`). Without it an added tool is drift (exit code 1), as spec
/// section 6 requires by default.
pub const CONTRACTPIN_VERIFY_ALLOW_NEW: u32 = 1;

/// `flags` bit of the `*_verify_server` calls: do not compare the server's
/// instructions with the lock's `instructions_digest` (the CLI's
/// `--ignore-instructions`); the report's instructions are then
/// `CONTRACTPIN_INSTRUCTIONS_STATUS_NOT_CHECKED` and its JSON
/// `"instructions": null`. Accepted, and without effect, by the calls that
/// take no handshake (they never compare instructions).
pub const CONTRACTPIN_VERIFY_IGNORE_INSTRUCTIONS: u32 = 2;

/// How one tool compares with its pin (spec section 6). Stable numbers.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum contractpin_tool_status {
    /// Pinned and live with the same tool digest.
    Unchanged = 0,
    /// Pinned and live with different tool digests.
    Drifted = 1,
    /// Live but not pinned.
    Added = 2,
    /// Pinned but not live.
    Removed = 3,
}

/// The verdict of `contractpin_verify` for one server (an opaque,
/// library-allocated object): the exit-code equivalent and, for every tool
/// that is pinned or live (sorted by name in UTF-16 order), its status,
/// changed fields, digests and rename hint.
///
/// Released by `contractpin_report_free`. Immutable after creation: the
/// accessors may be called from several threads at once.
pub struct contractpin_report {
    report: ServerReport,
    /// Every tool name followed by a NUL byte, back to back.
    names: Vec<u8>,
    /// Where each tool's name starts in `names`.
    starts: Vec<usize>,
    /// Per tool: the index of its likely rename counterpart.
    renames: Vec<Option<usize>>,
    /// Per tool: the changed-fields bit mask.
    changed: Vec<u32>,
    /// Whether the instructions were compared (a `*_verify_server` call
    /// without `CONTRACTPIN_VERIFY_IGNORE_INSTRUCTIONS`).
    pub(super) instructions_checked: bool,
}

impl contractpin_report {
    /// Wraps a report.
    pub fn new(report: ServerReport) -> contractpin_report {
        let mut names = Vec::new();
        let mut starts = Vec::with_capacity(report.tools.len());
        for t in &report.tools {
            starts.push(names.len());
            names.extend_from_slice(t.name.as_bytes());
            names.push(0);
        }
        let find = |name: &str| report.tools.iter().position(|t| t.name == name);
        let renames = report
            .tools
            .iter()
            .map(|t| match &t.status {
                ToolStatus::Added {
                    renamed_from: Some(other),
                }
                | ToolStatus::Removed {
                    renamed_to: Some(other),
                } => find(other),
                _ => None,
            })
            .collect();
        let changed = report
            .tools
            .iter()
            .map(|t| match &t.status {
                ToolStatus::Drifted { changed_fields } => changed_fields
                    .iter()
                    .filter_map(|f| Field::from_name(f))
                    .fold(0, |m, f| m | contractpin_field::from_field(f).bit()),
                _ => 0,
            })
            .collect();
        contractpin_report {
            report,
            names,
            starts,
            renames,
            changed,
            instructions_checked: false,
        }
    }

    /// The report, for Rust callers (the CLI) that created this object
    /// through `contractpin_verify`.
    pub fn as_server_report(&self) -> &ServerReport {
        &self.report
    }

    fn check(&self, index: usize) -> Result<(), Failure> {
        if index < self.report.tools.len() {
            Ok(())
        } else {
            Err(contractpin_status::IndexOutOfRange.into())
        }
    }

    fn name(&self, index: usize) -> (*const u8, usize) {
        let start = self.starts[index];
        (
            self.names[start..].as_ptr(),
            self.report.tools[index].name.len(),
        )
    }
}

fn tool_status(status: &ToolStatus) -> contractpin_tool_status {
    match status {
        ToolStatus::Unchanged => contractpin_tool_status::Unchanged,
        ToolStatus::Drifted { .. } => contractpin_tool_status::Drifted,
        ToolStatus::Added { .. } => contractpin_tool_status::Added,
        ToolStatus::Removed { .. } => contractpin_tool_status::Removed,
    }
}

pub(super) fn lock_failure(e: &LockError) -> Failure {
    match e.kind() {
        LockErrorKind::Syntax => match e.json_error() {
            Some(json) => Failure::at(contractpin_status::LockSyntax, json.offset()),
            None => contractpin_status::LockSyntax.into(),
        },
        LockErrorKind::UnsupportedVersion => contractpin_status::LockUnsupportedVersion.into(),
        LockErrorKind::UnsupportedAlgorithm => contractpin_status::LockUnsupportedAlgorithm.into(),
        LockErrorKind::UnsupportedCanonicalization => {
            contractpin_status::LockUnsupportedCanonicalization.into()
        }
        _ => contractpin_status::LockInvalid.into(),
    }
}

/// Verifies a live tools/list against one server of a lock, with the
/// default limits.
///
/// Same as `contractpin_verify_with_limits(..., NULL, out, error_offset)`;
/// see there.
///
/// # Safety
/// As for `contractpin_verify_with_limits`.
#[no_mangle]
pub unsafe extern "C" fn contractpin_verify(
    lock: *const u8,
    lock_len: usize,
    server_name: *const u8,
    server_name_len: usize,
    tools_list: *const u8,
    tools_list_len: usize,
    flags: u32,
    out: *mut *mut contractpin_report,
    error_offset: *mut usize,
) -> contractpin_status {
    // SAFETY: forwarded contract; NULL limits are the defaults.
    unsafe {
        contractpin_verify_with_limits(
            lock,
            lock_len,
            server_name,
            server_name_len,
            tools_list,
            tools_list_len,
            flags,
            core::ptr::null(),
            out,
            error_offset,
        )
    }
}

/// Run-time enforcement in one call: compares the live tools/list of a
/// server with its entry in a lock file and returns the spec section 6
/// verdict.
///
/// - `lock`, `lock_len`: the bytes of a `contractpin.lock` (read strictly:
///   statuses 64-68 when it cannot be trusted; `error_offset` is then a
///   byte offset into the lock, reported for `CONTRACTPIN_STATUS_LOCK_SYNTAX`).
/// - `server_name`, `server_name_len`: the server's key in the lock's
///   `servers` (UTF-8, not NUL-terminated; `CONTRACTPIN_STATUS_INVALID_ARGUMENT`
///   if not UTF-8, `CONTRACTPIN_STATUS_LOCK_UNKNOWN_SERVER` if absent).
/// - `tools_list`, `tools_list_len`: the live tools/list in any shape
///   `contractpin_digest_tools_list` accepts (statuses 1-13 and 32-38
///   with `error_offset` into these bytes when it is rejected).
/// - `flags`: any of `CONTRACTPIN_VERIFY_ALLOW_NEW` and
///   `CONTRACTPIN_VERIFY_IGNORE_INSTRUCTIONS` (accepted, and without effect
///   here: this call compares no instructions); other bits are
///   `CONTRACTPIN_STATUS_INVALID_ARGUMENT`.
/// - `limits`: NULL for the defaults; applies to the tools/list.
/// - `out` (required): on success a new `contractpin_report *` owned by the
///   caller, released with `contractpin_report_free`. Not written on failure.
/// - `error_offset` (optional): see above.
///
/// Success (`CONTRACTPIN_STATUS_OK`) means a verdict was reached, not that
/// the server matches: read `contractpin_report_exit_code`. A client that
/// enforces pins must treat every other status as "refuse" too: spec
/// section 6 maps an invalid tools/list to exit code 1 and a lock error to
/// exit code 2. The lock is checked before the tools/list.
///
/// Thread-safe: no shared state.
///
/// # Safety
/// Each buffer pointer must be NULL or valid for reading its length in
/// bytes; `limits` NULL or valid for reading; `out` NULL or valid for writing
/// a pointer; `error_offset` NULL or valid for writing a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn contractpin_verify_with_limits(
    lock: *const u8,
    lock_len: usize,
    server_name: *const u8,
    server_name_len: usize,
    tools_list: *const u8,
    tools_list_len: usize,
    flags: u32,
    limits: *const contractpin_limits,
    out: *mut *mut contractpin_report,
    error_offset: *mut usize,
) -> contractpin_status {
    let result = guarded(|| {
        // SAFETY: each pointer is NULL or readable for its length by the
        // caller's contract; `limits` is NULL or readable.
        let (lock, name, list, limits) = unsafe {
            (
                input(lock, lock_len)?,
                input(server_name, server_name_len)?,
                input(tools_list, tools_list_len)?,
                resolve(limits),
            )
        };
        non_null(out)?;
        check_flags(flags)?;
        // The documented order: arguments (flags, the name's UTF-8), then the lock.
        core::str::from_utf8(name).map_err(|_| contractpin_status::InvalidArgument)?;
        let lock = Lock::parse(lock).map_err(|e| lock_failure(&e))?;
        // SAFETY: `out` is non-null and writable by the caller's contract.
        unsafe { verify_parsed(&lock, name, list, flags, limits, out) }
    });
    // SAFETY: `error_offset` is NULL or writable by the caller's contract.
    unsafe { finish(result, error_offset) }
}

pub(super) fn check_flags(flags: u32) -> Result<(), Failure> {
    if flags & !(CONTRACTPIN_VERIFY_ALLOW_NEW | CONTRACTPIN_VERIFY_IGNORE_INSTRUCTIONS) != 0 {
        return Err(contractpin_status::InvalidArgument.into());
    }
    Ok(())
}

/// [`verify_in`] without a handshake (the calls that compare only the
/// tools), writing the report to `out`.
///
/// # Safety
/// `out` is NULL or valid for writing a pointer.
pub(super) unsafe fn verify_parsed(
    lock: &Lock,
    name: &[u8],
    list: &[u8],
    flags: u32,
    limits: crate::Limits,
    out: *mut *mut contractpin_report,
) -> Result<(), Failure> {
    non_null(out)?;
    let report = verify_in(
        lock,
        name,
        list,
        None,
        flags,
        limits,
        &mut contractpin_input::ToolsList,
    )?;
    // SAFETY: `out` is non-null and writable by the caller's contract.
    unsafe { out.write(Box::into_raw(report)) };
    Ok(())
}

/// The verdict of `contractpin verify` for server `name` of a parsed lock:
/// the tools of `list` against their pins, then, when `handshake` (the
/// `initialize` result) is given, the server facts as the CLI compares them
/// (`ServerReport::check_facts`, instructions unless
/// `CONTRACTPIN_VERIFY_IGNORE_INSTRUCTIONS`). Checks the flags, the name, the
/// handshake, then the tools/list; `at` says which input a failure's offset
/// is into.
pub(super) fn verify_in(
    lock: &Lock,
    name: &[u8],
    list: &[u8],
    handshake: Option<&[u8]>,
    flags: u32,
    limits: crate::Limits,
    at: &mut contractpin_input,
) -> Result<Box<contractpin_report>, Failure> {
    check_flags(flags)?;
    let (name, pinned) = super::lock::pinned_server(lock, name)?;
    *at = contractpin_input::InitializeResult;
    let facts = match handshake {
        Some(h) => Some(crate::guard::handshake_facts(h, &limits)?),
        None => None,
    };
    *at = contractpin_input::ToolsList;
    let live = Context::with_limits(limits).digest_tools_list_owned(
        list,
        ListOptions {
            field_digests: true,
        },
    )?;
    let allow_new = flags & CONTRACTPIN_VERIFY_ALLOW_NEW != 0;
    let ignore = flags & CONTRACTPIN_VERIFY_IGNORE_INSTRUCTIONS != 0;
    let mut report = verify_server(name, pinned, &live, allow_new);
    add_changes_from_list(&mut report, pinned, list, &limits);
    if let Some(facts) = &facts {
        report.check_facts(pinned, facts, ignore);
    }
    let mut report = Box::new(contractpin_report::new(report));
    report.instructions_checked = facts.is_some() && !ignore;
    Ok(report)
}

/// Releases a `contractpin_report`. NULL is a no-op. Every pointer obtained
/// from its accessors (tool names) becomes invalid.
///
/// # Safety
/// `report` must be NULL or a pointer from `contractpin_verify*`,
/// `contractpin_lock_verify*` or `contractpin_verify_server_with_limits`
/// that has not been freed yet; it must not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn contractpin_report_free(report: *mut contractpin_report) {
    // SAFETY: by the caller's contract `report` is NULL or came from this
    // library and is freed only once.
    unsafe { super::boundary::free_boxed(report) }
}

/// The exit-code equivalent of spec section 6 for this server: `0` when
/// every tool is unchanged (added tools too, with
/// `CONTRACTPIN_VERIFY_ALLOW_NEW`), `1` when any tool drifted, was removed,
/// or was added without that flag, and (a report of a `*_verify_server`
/// call) when the instructions drifted, were removed, or were added
/// without that flag. Returns `2` ("could not run") for a NULL `report`.
///
/// # Safety
/// `report` must be NULL or a live `contractpin_report`.
#[no_mangle]
pub unsafe extern "C" fn contractpin_report_exit_code(report: *const contractpin_report) -> i32 {
    // SAFETY: `report` is NULL or live by the caller's contract.
    match unsafe { borrow(report) } {
        Ok(r) => r.report.exit_code(),
        Err(_) => 2,
    }
}

/// The number of tools in the report: every tool that is pinned or live
/// (0 for a NULL `report`).
///
/// # Safety
/// `report` must be NULL or a live `contractpin_report`.
#[no_mangle]
pub unsafe extern "C" fn contractpin_report_tool_count(report: *const contractpin_report) -> usize {
    // SAFETY: `report` is NULL or live by the caller's contract.
    match unsafe { borrow(report) } {
        Ok(r) => r.report.tools.len(),
        Err(_) => 0,
    }
}

/// The number of tools per status. Each out-parameter is optional (NULL to
/// skip) and is written only on success.
///
/// # Safety
/// `report` must be NULL or a live `contractpin_report`; each out-parameter
/// NULL or valid for writing a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn contractpin_report_counts(
    report: *const contractpin_report,
    unchanged: *mut usize,
    drifted: *mut usize,
    added: *mut usize,
    removed: *mut usize,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: `report` is NULL or live by the caller's contract.
        let r = unsafe { borrow(report) }?;
        let c = r.report.counts();
        // SAFETY: each pointer is NULL or writable by the caller's contract.
        unsafe {
            write_opt(unchanged, c.unchanged);
            write_opt(drifted, c.drifted);
            write_opt(added, c.added);
            write_opt(removed, c.removed);
        }
        Ok(())
    })
}

/// One tool of the report, by index (tools are sorted by name in UTF-16
/// order). Each out-parameter is optional (NULL to skip); all are written
/// only on success:
///
/// - `*name`, `*name_len`: the UTF-8 name (followed by a NUL byte, but it may
///   contain NULs itself), owned by `report` until `contractpin_report_free`;
/// - `*status`: a `contractpin_tool_status` value;
/// - `*changed_fields`: for a drifted tool, the bit mask (`1u <<
///   CONTRACTPIN_FIELD_*`) of contract fields whose digests differ or exist
///   on one side only; 0 for other statuses, and 0 when the lock has no field
///   digests for the tool (they are advisory).
///
/// Statuses: `CONTRACTPIN_STATUS_NULL_ARGUMENT` (NULL `report`),
/// `CONTRACTPIN_STATUS_INDEX_OUT_OF_RANGE`.
///
/// # Safety
/// `report` must be NULL or a live `contractpin_report`; each out-parameter
/// NULL or valid for writing its type.
#[no_mangle]
pub unsafe extern "C" fn contractpin_report_tool(
    report: *const contractpin_report,
    index: usize,
    name: *mut *const u8,
    name_len: *mut usize,
    status: *mut u32,
    changed_fields: *mut u32,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: `report` is NULL or live by the caller's contract.
        let r = unsafe { borrow(report) }?;
        r.check(index)?;
        let (ptr, len) = r.name(index);
        let s = tool_status(&r.report.tools[index].status) as u32;
        // SAFETY: each pointer is NULL or writable by the caller's contract.
        unsafe {
            write_opt(name, ptr);
            write_opt(name_len, len);
            write_opt(status, s);
            write_opt(changed_fields, r.changed[index]);
        }
        Ok(())
    })
}

/// The rename hint of the tool at `index`: for an added tool, the removed
/// tool it likely renames; for a removed tool, the added tool that likely
/// renames it (same `description` and `inputSchema` field digests). Both
/// still count as added and removed.
///
/// On success `*other_index` (optional) receives the other tool's index in
/// this report and `*name`, `*name_len` (optional) its name, owned by
/// `report`. Returns `CONTRACTPIN_STATUS_NOT_FOUND` when the tool has no
/// rename hint (nothing is written).
///
/// # Safety
/// `report` must be NULL or a live `contractpin_report`; each out-parameter
/// NULL or valid for writing its type.
#[no_mangle]
pub unsafe extern "C" fn contractpin_report_tool_rename(
    report: *const contractpin_report,
    index: usize,
    other_index: *mut usize,
    name: *mut *const u8,
    name_len: *mut usize,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: `report` is NULL or live by the caller's contract.
        let r = unsafe { borrow(report) }?;
        r.check(index)?;
        let other = r.renames[index].ok_or(contractpin_status::NotFound)?;
        let (ptr, len) = r.name(other);
        // SAFETY: each pointer is NULL or writable by the caller's contract.
        unsafe {
            write_opt(other_index, other);
            write_opt(name, ptr);
            write_opt(name_len, len);
        }
        Ok(())
    })
}

fn write_digest(digest: Option<Digest>, out: *mut u8) -> Result<(), Failure> {
    non_null(out)?;
    let digest = digest.ok_or(contractpin_status::NotFound)?;
    // SAFETY: `out` is non-null and, by the contract of every caller of this
    // helper, writable for 32 bytes.
    unsafe { write_bytes(&digest, out) };
    Ok(())
}

/// The pinned tool digest (32 raw bytes) of the tool at `index`; returns
/// `CONTRACTPIN_STATUS_NOT_FOUND` for an added tool (nothing pinned).
/// `out` (required, 32 bytes) is written only on success.
///
/// # Safety
/// `report` must be NULL or a live `contractpin_report`; `out` NULL or valid
/// for writing 32 bytes.
#[no_mangle]
pub unsafe extern "C" fn contractpin_report_tool_pinned_digest(
    report: *const contractpin_report,
    index: usize,
    out: *mut u8,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: `report` is NULL or live by the caller's contract.
        let r = unsafe { borrow(report) }?;
        r.check(index)?;
        write_digest(r.report.tools[index].pinned, out)
    })
}

/// The live tool digest (32 raw bytes) of the tool at `index`; returns
/// `CONTRACTPIN_STATUS_NOT_FOUND` for a removed tool (not live).
/// `out` (required, 32 bytes) is written only on success.
///
/// # Safety
/// `report` must be NULL or a live `contractpin_report`; `out` NULL or valid
/// for writing 32 bytes.
#[no_mangle]
pub unsafe extern "C" fn contractpin_report_tool_live_digest(
    report: *const contractpin_report,
    index: usize,
    out: *mut u8,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: `report` is NULL or live by the caller's contract.
        let r = unsafe { borrow(report) }?;
        r.check(index)?;
        write_digest(r.report.tools[index].live, out)
    })
}

/// The server digest pinned in the lock (32 raw bytes, `out` required,
/// written only on success).
///
/// # Safety
/// `report` must be NULL or a live `contractpin_report`; `out` NULL or valid
/// for writing 32 bytes.
#[no_mangle]
pub unsafe extern "C" fn contractpin_report_pinned_digest(
    report: *const contractpin_report,
    out: *mut u8,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: `report` is NULL or live by the caller's contract.
        let r = unsafe { borrow(report) }?;
        write_digest(r.report.pinned_digest, out)
    })
}

/// The server digest of the live tools/list (32 raw bytes, `out` required,
/// written only on success).
///
/// # Safety
/// `report` must be NULL or a live `contractpin_report`; `out` NULL or valid
/// for writing 32 bytes.
#[no_mangle]
pub unsafe extern "C" fn contractpin_report_live_digest(
    report: *const contractpin_report,
    out: *mut u8,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: `report` is NULL or live by the caller's contract.
        let r = unsafe { borrow(report) }?;
        write_digest(r.report.live_digest, out)
    })
}

/// Writes the stable JSON report (schema `contractpin_report` version 1, the
/// same document as `contractpin verify --format json` for this one server;
/// pretty-printed UTF-8 with a final newline, no NUL) into a caller buffer.
///
/// `out`, `out_cap`, `out_len` work as in `contractpin_canonicalize`: on
/// `CONTRACTPIN_STATUS_OUTPUT_TOO_SMALL`, `*out_len` is the size needed and
/// `out` is untouched; `out` may be NULL when `out_cap` is 0.
///
/// # Safety
/// `report` must be NULL or a live `contractpin_report`; `out` NULL or valid
/// for writing `out_cap` bytes; `out_len` NULL or valid for writing a
/// `size_t`.
#[no_mangle]
pub unsafe extern "C" fn contractpin_report_json(
    report: *const contractpin_report,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> contractpin_status {
    status_of(|| {
        non_null(out_len)?;
        out_buffer(out, out_cap)?;
        // SAFETY: `report` is NULL or live by the caller's contract.
        let r = unsafe { borrow(report) }?;
        let json = report_json(core::slice::from_ref(&r.report));
        // SAFETY: `out` writable for `out_cap` bytes and `out_len` non-null
        // and writable, by the caller's contract.
        unsafe { copy_out(&json, out, out_cap, out_len) }
    })
}
