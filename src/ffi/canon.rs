//! Canonical bytes and single-tool digests.

use alloc::vec::Vec;
use core::ffi::c_char;

use super::boundary::{copy_out, finish, guarded, input, non_null, out_buffer};
use super::digest_text::{write_bytes, write_text};
use super::limits::{contractpin_limits, resolve};
use super::status::contractpin_status;
use crate::owned::Context;

/// Canonicalizes any JSON document (RFC 8785 / `contractpin-canonical-json/1`)
/// into a caller buffer, with the default limits.
///
/// Same as `contractpin_canonicalize_with_limits(input, input_len, NULL, out,
/// out_cap, out_len, error_offset)`; see there.
///
/// # Safety
/// As for `contractpin_canonicalize_with_limits`.
#[no_mangle]
pub unsafe extern "C" fn contractpin_canonicalize(
    input: *const u8,
    input_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
    error_offset: *mut usize,
) -> contractpin_status {
    // SAFETY: forwarded contract; NULL limits are the defaults.
    unsafe {
        contractpin_canonicalize_with_limits(
            input,
            input_len,
            core::ptr::null(),
            out,
            out_cap,
            out_len,
            error_offset,
        )
    }
}

/// Canonicalizes any JSON document (RFC 8785 / `contractpin-canonical-json/1`)
/// into a caller buffer.
///
/// - `input`, `input_len`: the document (UTF-8 JSON). NULL with length 0 is
///   the empty input (status `CONTRACTPIN_STATUS_UNEXPECTED_END`).
/// - `limits`: NULL for the defaults, or limits to apply.
/// - `out`, `out_cap`: a caller-owned buffer; `out` may be NULL when
///   `out_cap` is 0 (a size query). No NUL is appended.
/// - `out_len` (required): on success the number of bytes written; on
///   `CONTRACTPIN_STATUS_OUTPUT_TOO_SMALL` the size needed (call again with a
///   buffer that large). Not written on any other status.
/// - `error_offset` (optional, may be NULL): on an input error (statuses
///   1-13), the byte offset in `input` where it was found.
///
/// `out` is written only on success. The library keeps no pointer after the
/// call returns. Thread-safe: no shared state.
///
/// # Safety
/// `input` must be NULL or valid for reading `input_len` bytes; `limits` NULL
/// or valid for reading; `out` NULL or valid for writing `out_cap` bytes;
/// `out_len` and `error_offset` NULL or valid for writing a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn contractpin_canonicalize_with_limits(
    input: *const u8,
    input_len: usize,
    limits: *const contractpin_limits,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
    error_offset: *mut usize,
) -> contractpin_status {
    let result = guarded(|| {
        non_null(out_len)?;
        out_buffer(out, out_cap)?;
        // SAFETY: `limits` is NULL or readable by the caller's contract.
        let limits = unsafe { resolve(limits) };
        let canonical = {
            // SAFETY: `input` is NULL or readable for `input_len` bytes; the
            // slice is dropped before `out` is written.
            let doc = unsafe { self::input(input, input_len) }?;
            let mut canonical = Vec::with_capacity(crate::owned::presize_for(doc, &limits));
            Context::with_limits(limits).canonicalize_to(doc, &mut canonical)?;
            canonical
        };
        // SAFETY: `out` writable for `out_cap` bytes, `out_len` non-null and
        // writable, by the caller's contract.
        unsafe { copy_out(&canonical, out, out_cap, out_len) }
    });
    // SAFETY: `error_offset` is NULL or writable by the caller's contract.
    unsafe { finish(result, error_offset) }
}

/// Writes the canonical bytes of one tool's *contract* (spec section 2: the
/// projection onto name, description, inputSchema, outputSchema, annotations)
/// into a caller buffer. This is exactly what the tool digest hashes.
///
/// - `tool`, `tool_len`: one tool object (JSON). NULL with length 0 is the
///   empty input.
/// - `out`, `out_cap`, `out_len`, `error_offset`: as for
///   `contractpin_canonicalize_with_limits` (contract errors such as
///   `CONTRACTPIN_STATUS_TOOL_NOT_OBJECT` also report an offset).
///
/// Uses the default limits. `out` is written only on success. Thread-safe.
///
/// # Safety
/// `tool` must be NULL or valid for reading `tool_len` bytes; `out` NULL or
/// valid for writing `out_cap` bytes; `out_len` and `error_offset` NULL or
/// valid for writing a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn contractpin_tool_contract(
    tool: *const u8,
    tool_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
    error_offset: *mut usize,
) -> contractpin_status {
    let result = guarded(|| {
        non_null(out_len)?;
        out_buffer(out, out_cap)?;
        let contract = {
            // SAFETY: `tool` is NULL or readable for `tool_len` bytes; the
            // slice is dropped before `out` is written.
            let doc = unsafe { input(tool, tool_len) }?;
            crate::owned::tool_contract(doc)?
        };
        // SAFETY: `out` writable for `out_cap` bytes, `out_len` non-null and
        // writable, by the caller's contract.
        unsafe { copy_out(&contract, out, out_cap, out_len) }
    });
    // SAFETY: `error_offset` is NULL or writable by the caller's contract.
    unsafe { finish(result, error_offset) }
}

/// The tool digest (spec section 4.1) of one tool object, as text:
/// `sha256:` + 64 lowercase hex digits + NUL.
///
/// - `tool`, `tool_len`: one tool object (JSON). NULL with length 0 is the
///   empty input.
/// - `out`: a caller-owned buffer of at least 72 bytes
///   (`CONTRACTPIN_DIGEST_TEXT_SIZE`): 71 characters
///   (`CONTRACTPIN_DIGEST_TEXT_LEN`) and a terminating NUL. Written only on
///   success.
/// - `error_offset` (optional): the byte offset of an input error.
///
/// Uses the default limits. Thread-safe.
///
/// # Safety
/// `tool` must be NULL or valid for reading `tool_len` bytes; `out` NULL or
/// valid for writing 72 bytes; `error_offset` NULL or valid for writing a
/// `size_t`.
#[no_mangle]
pub unsafe extern "C" fn contractpin_tool_digest(
    tool: *const u8,
    tool_len: usize,
    out: *mut c_char,
    error_offset: *mut usize,
) -> contractpin_status {
    let result = guarded(|| {
        non_null(out)?;
        let digest = {
            // SAFETY: `tool` is NULL or readable for `tool_len` bytes.
            let doc = unsafe { input(tool, tool_len) }?;
            crate::owned::tool_digest(doc)?
        };
        // SAFETY: `out` is non-null and writable for 72 bytes by the contract.
        unsafe { write_text(&digest, out) };
        Ok(())
    });
    // SAFETY: `error_offset` is NULL or writable by the caller's contract.
    unsafe { finish(result, error_offset) }
}

/// The tool digest (spec section 4.1) of one tool object, as the 32 raw
/// SHA-256 bytes.
///
/// - `tool`, `tool_len`: one tool object (JSON). NULL with length 0 is the
///   empty input.
/// - `out`: a caller-owned buffer of at least 32 bytes
///   (`CONTRACTPIN_DIGEST_SIZE`). Written only on success.
/// - `error_offset` (optional): the byte offset of an input error.
///
/// Uses the default limits. Thread-safe.
///
/// # Safety
/// `tool` must be NULL or valid for reading `tool_len` bytes; `out` NULL or
/// valid for writing 32 bytes; `error_offset` NULL or valid for writing a
/// `size_t`.
#[no_mangle]
pub unsafe extern "C" fn contractpin_tool_digest_bytes(
    tool: *const u8,
    tool_len: usize,
    out: *mut u8,
    error_offset: *mut usize,
) -> contractpin_status {
    let result = guarded(|| {
        non_null(out)?;
        let digest = {
            // SAFETY: `tool` is NULL or readable for `tool_len` bytes.
            let doc = unsafe { input(tool, tool_len) }?;
            crate::owned::tool_digest(doc)?
        };
        // SAFETY: `out` is non-null and writable for 32 bytes by the contract.
        unsafe { write_bytes(&digest, out) };
        Ok(())
    });
    // SAFETY: `error_offset` is NULL or writable by the caller's contract.
    unsafe { finish(result, error_offset) }
}
