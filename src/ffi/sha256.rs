//! Streaming SHA-256 over a caller-allocated state.

use core::ffi::c_char;
use core::mem::{align_of, size_of, MaybeUninit};

use super::boundary::{input, non_null, status_of};
use super::status::contractpin_status;
use crate::sha256::{detected_backend, Backend, Sha256};

/// Size in bytes of `contractpin_sha256` (128).
pub const CONTRACTPIN_SHA256_STATE_SIZE: usize = 128;

/// A streaming SHA-256 state, allocated by the caller (on the stack, in a
/// struct, anywhere): 128 bytes (`CONTRACTPIN_SHA256_STATE_SIZE`), aligned
/// like `uint64_t`. Its contents are private.
///
/// Use: `contractpin_sha256_init`, then any number of
/// `contractpin_sha256_update`, then `contractpin_sha256_final` (which
/// leaves the state initialised and empty, ready for the next message). The
/// state holds no pointers and owns nothing: it needs no cleanup, and a
/// byte copy (`memcpy`, struct assignment) of an initialised state is an
/// independent state with the same contents (to hash several messages that
/// share a prefix). One state must not be used by two threads at once.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct contractpin_sha256 {
    /// Private. The first word marks an initialised state; the rest holds
    /// the hasher, whose padding bytes may be uninitialised (hence
    /// `MaybeUninit`, which C sees as plain `uint64_t`).
    pub opaque: [MaybeUninit<u64>; 16],
}

impl Default for contractpin_sha256 {
    /// A zeroed (not yet initialised) state, for Rust callers.
    fn default() -> Self {
        contractpin_sha256 {
            opaque: [MaybeUninit::new(0); 16],
        }
    }
}

/// Marks an initialised state ("cpsha256").
const MAGIC: u64 = 0x6370_7368_6132_3536;

const _: () = assert!(size_of::<contractpin_sha256>() == CONTRACTPIN_SHA256_STATE_SIZE);
const _: () = assert!(size_of::<Sha256>() <= CONTRACTPIN_SHA256_STATE_SIZE - 8);
const _: () = assert!(align_of::<Sha256>() <= align_of::<u64>());

impl contractpin_sha256 {
    fn hasher_ptr(&mut self) -> *mut Sha256 {
        self.opaque[1..].as_mut_ptr().cast()
    }

    fn init(&mut self) {
        // SAFETY: `opaque[1..]` is 120 bytes aligned to 8, enough for a
        // `Sha256` (checked at compile time above); `write` does not read
        // or drop the old (possibly garbage) bytes.
        unsafe { self.hasher_ptr().write(Sha256::new()) };
        self.opaque[0] = MaybeUninit::new(MAGIC);
    }

    fn hasher(&mut self) -> Option<&mut Sha256> {
        // SAFETY: the caller's contract: the state is initialised memory
        // (any bytes), so the first word is an integer; only `init` stores
        // the magic value in it.
        if unsafe { self.opaque[0].assume_init() } != MAGIC {
            return None;
        }
        // SAFETY: the magic word is only set by `init`, right after a valid
        // `Sha256` was written at this place; `Sha256` is plain data, so a
        // byte copy of the whole state (which `MaybeUninit` words keep
        // intact, padding included) is valid too.
        Some(unsafe { &mut *self.hasher_ptr() })
    }
}

/// Borrows a caller state.
///
/// # Safety
/// `state` is NULL or valid for reads and writes of a `contractpin_sha256`
/// not used concurrently.
unsafe fn state_mut<'a>(state: *mut contractpin_sha256) -> Option<&'a mut contractpin_sha256> {
    // SAFETY: NULL or valid and exclusive by the caller's contract.
    unsafe { state.as_mut() }
}

/// Initialises (or resets) a caller-allocated SHA-256 state. Any previous
/// contents are discarded. Returns `CONTRACTPIN_STATUS_NULL_ARGUMENT` for
/// NULL.
///
/// # Safety
/// `state` must be NULL or valid for writing a `contractpin_sha256` (128
/// bytes, 8-byte aligned) and not in use by another thread.
#[no_mangle]
pub unsafe extern "C" fn contractpin_sha256_init(
    state: *mut contractpin_sha256,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: NULL or valid and exclusive by the caller's contract.
        let state = unsafe { state_mut(state) }.ok_or(contractpin_status::NullArgument)?;
        state.init();
        Ok(())
    })
}

/// Absorbs `len` bytes at `data` into an initialised state. NULL `data`
/// with `len` 0 is a no-op. Returns `CONTRACTPIN_STATUS_INVALID_ARGUMENT`
/// if the state was never initialised (nothing is absorbed).
///
/// # Safety
/// `state` must be NULL or valid for reading and writing a
/// `contractpin_sha256` not in use by another thread, whose memory has been
/// written (by `contractpin_sha256_init`, or at least zeroed: a state that
/// was never written at all must not be passed); `data` NULL or valid for
/// reading `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn contractpin_sha256_update(
    state: *mut contractpin_sha256,
    data: *const u8,
    len: usize,
) -> contractpin_status {
    status_of(|| {
        // SAFETY: NULL or valid and exclusive by the caller's contract.
        let state = unsafe { state_mut(state) }.ok_or(contractpin_status::NullArgument)?;
        // SAFETY: `data` is NULL or readable for `len` bytes.
        let data = unsafe { input(data, len) }?;
        let hasher = state.hasher().ok_or(contractpin_status::InvalidArgument)?;
        hasher.update(data);
        Ok(())
    })
}

/// Writes the SHA-256 digest of everything absorbed since init (or the last
/// final) to `out` (32 raw bytes), then resets the state for a new message.
/// Returns `CONTRACTPIN_STATUS_NULL_ARGUMENT` for NULL arguments and
/// `CONTRACTPIN_STATUS_INVALID_ARGUMENT` for a state that was never
/// initialised; in both cases nothing is written.
///
/// # Safety
/// `state` must be NULL or valid for reading and writing a
/// `contractpin_sha256` not in use by another thread, whose memory has been
/// written (as for `contractpin_sha256_update`); `out` NULL or valid for
/// writing 32 bytes.
#[no_mangle]
pub unsafe extern "C" fn contractpin_sha256_final(
    state: *mut contractpin_sha256,
    out: *mut u8,
) -> contractpin_status {
    status_of(|| {
        non_null(out)?;
        // SAFETY: NULL or valid and exclusive by the caller's contract.
        let state = unsafe { state_mut(state) }.ok_or(contractpin_status::NullArgument)?;
        let hasher = state.hasher().ok_or(contractpin_status::InvalidArgument)?;
        let digest = hasher.finalize_reset();
        // SAFETY: `out` is non-null and writable for 32 bytes; `digest` is a
        // local array.
        unsafe { core::ptr::copy_nonoverlapping(digest.as_ptr(), out, digest.len()) };
        Ok(())
    })
}

/// SHA-256 of one buffer in one call: writes 32 raw bytes to `out` on
/// success. NULL `data` with `len` 0 is the empty message.
///
/// # Safety
/// `data` must be NULL or valid for reading `len` bytes; `out` NULL or valid
/// for writing 32 bytes.
#[no_mangle]
pub unsafe extern "C" fn contractpin_sha256_digest(
    data: *const u8,
    len: usize,
    out: *mut u8,
) -> contractpin_status {
    status_of(|| {
        non_null(out)?;
        // SAFETY: `data` is NULL or readable for `len` bytes.
        let data = unsafe { input(data, len) }?;
        let digest = crate::sha256::digest(data);
        // SAFETY: `out` is non-null and writable for 32 bytes; the source is
        // a local array.
        unsafe { core::ptr::copy_nonoverlapping(digest.as_ptr(), out, digest.len()) };
        Ok(())
    })
}

/// The SHA-256 implementation this library uses on this CPU: `"sha-ni"` or
/// `"portable"` (static NUL-terminated string; never NULL; do not free).
#[no_mangle]
pub extern "C" fn contractpin_sha256_backend() -> *const c_char {
    let name: &'static str = match detected_backend() {
        Backend::ShaNi => "sha-ni\0",
        Backend::Portable => "portable\0",
    };
    name.as_ptr().cast()
}
