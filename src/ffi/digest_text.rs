//! Digest sizes and the `sha256:<hex>` text form.

use core::ffi::c_char;

use super::boundary::{non_null, status_of};
use super::status::contractpin_status;
use crate::digest::{Digest, DIGEST_TEXT_LEN};

/// Size in bytes of a raw SHA-256 digest.
pub const CONTRACTPIN_DIGEST_SIZE: usize = 32;

/// Length of the digest text `sha256:` + 64 lowercase hex digits, without
/// the terminating NUL.
pub const CONTRACTPIN_DIGEST_TEXT_LEN: usize = 71;

/// Size of a buffer for the digest text including its terminating NUL (72).
pub const CONTRACTPIN_DIGEST_TEXT_SIZE: usize = 72;

const _: () = assert!(CONTRACTPIN_DIGEST_TEXT_LEN == DIGEST_TEXT_LEN);
const _: () = assert!(CONTRACTPIN_DIGEST_TEXT_SIZE == DIGEST_TEXT_LEN + 1);

/// Reads 32 digest bytes.
///
/// # Safety
/// `digest` is valid for reading 32 bytes.
pub(crate) unsafe fn read_digest(digest: *const u8) -> Digest {
    let mut bytes = [0u8; CONTRACTPIN_DIGEST_SIZE];
    // SAFETY: `digest` is readable for 32 bytes by the caller's contract and
    // `bytes` is a distinct local array.
    unsafe { core::ptr::copy_nonoverlapping(digest, bytes.as_mut_ptr(), bytes.len()) };
    Digest(bytes)
}

/// Writes the 32 raw bytes of `digest` to `out`.
///
/// # Safety
/// `out` is valid for writing 32 bytes.
pub(crate) unsafe fn write_bytes(digest: &Digest, out: *mut u8) {
    // SAFETY: `out` is writable for 32 bytes by the caller's contract; the
    // source is a Rust value, so the regions cannot overlap.
    unsafe { core::ptr::copy_nonoverlapping(digest.0.as_ptr(), out, CONTRACTPIN_DIGEST_SIZE) };
}

/// Writes the 71-byte text of `digest` and a NUL to `out`.
///
/// # Safety
/// `out` is valid for writing 72 bytes.
pub(crate) unsafe fn write_text(digest: &Digest, out: *mut c_char) {
    let text = digest.to_hex_prefixed();
    let out = out.cast::<u8>();
    // SAFETY: `out` is writable for 72 bytes by the caller's contract; the
    // source is a local array, so the regions cannot overlap.
    unsafe {
        core::ptr::copy_nonoverlapping(text.as_ptr(), out, DIGEST_TEXT_LEN);
        out.add(DIGEST_TEXT_LEN).write(0);
    }
}

/// Formats 32 raw digest bytes as the text `sha256:<64 lowercase hex>`
/// followed by a NUL.
///
/// - `digest`: 32 readable bytes (`CONTRACTPIN_DIGEST_SIZE`).
/// - `out`: a caller-owned buffer of at least 72 bytes
///   (`CONTRACTPIN_DIGEST_TEXT_SIZE`); receives 71 characters and a NUL.
///
/// Returns `CONTRACTPIN_STATUS_NULL_ARGUMENT` if either pointer is NULL
/// (nothing is written). The buffers may overlap. Thread-safe.
///
/// # Safety
/// `digest` must be NULL or valid for reading 32 bytes; `out` must be NULL or
/// valid for writing 72 bytes.
#[no_mangle]
pub unsafe extern "C" fn contractpin_digest_to_text(
    digest: *const u8,
    out: *mut c_char,
) -> contractpin_status {
    status_of(|| {
        non_null(digest)?;
        non_null(out)?;
        // SAFETY: checked non-null; readable for 32 bytes by the caller's
        // contract. The digest is copied before anything is written.
        let d = unsafe { read_digest(digest) };
        // SAFETY: checked non-null; writable for 72 bytes by the contract.
        unsafe { write_text(&d, out) };
        Ok(())
    })
}
