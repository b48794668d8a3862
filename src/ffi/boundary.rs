//! The panic boundary and the pointer checks shared by every export.

use alloc::boxed::Box;
use core::ptr;

use super::status::contractpin_status;
use crate::error::{Error, ErrorKind};

/// Why a call failed: a status, and the byte offset in the input when the
/// status is an input error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Failure {
    pub(crate) status: contractpin_status,
    pub(crate) offset: Option<usize>,
}

impl Failure {
    /// A failure at `offset` of the input.
    pub(crate) fn at(status: contractpin_status, offset: usize) -> Failure {
        Failure {
            status,
            offset: Some(offset),
        }
    }
}

impl From<contractpin_status> for Failure {
    fn from(status: contractpin_status) -> Failure {
        Failure {
            status,
            offset: None,
        }
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        let status = contractpin_status::from(e.kind());
        match e.kind() {
            // Buffer errors carry no input offset.
            ErrorKind::OutputTooSmall | ErrorKind::ScratchTooSmall => Failure::from(status),
            _ => Failure::at(status, e.offset()),
        }
    }
}

/// Runs `f`, converting a panic into [`contractpin_status::Panic`] when `std`
/// is available (without `std` a panic aborts at the `extern "C"` boundary).
pub(crate) fn catch<T>(on_panic: T, f: impl FnOnce() -> T) -> T {
    #[cfg(feature = "std")]
    {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or(on_panic)
    }
    #[cfg(not(feature = "std"))]
    {
        let _ = on_panic;
        f()
    }
}

/// Frees an object the ABI handed out with `Box::into_raw`: NULL is a
/// no-op, and a panic in its destructor is caught rather than unwound into
/// C. Every `contractpin_*_free` function is this.
///
/// # Safety
/// `ptr` NULL, or a pointer from `Box::into_raw` of a `Box<T>` that is not
/// yet freed and is not used afterwards.
pub(crate) unsafe fn free_boxed<T>(ptr: *mut T) {
    if ptr.is_null() {
        return;
    }
    // SAFETY: by this function's contract `ptr` came from `Box::into_raw`
    // and is freed only once.
    catch((), || drop(unsafe { Box::from_raw(ptr) }));
}

/// Runs `f` behind the panic boundary.
pub(crate) fn guarded(f: impl FnOnce() -> Result<(), Failure>) -> Result<(), Failure> {
    catch(Err(Failure::from(contractpin_status::Panic)), f)
}

/// Turns a result into a status, writing the failure offset (if any) to
/// `error_offset`.
///
/// # Safety
/// `error_offset` is NULL or valid for writing one `usize`.
pub(crate) unsafe fn finish(
    result: Result<(), Failure>,
    error_offset: *mut usize,
) -> contractpin_status {
    match result {
        Ok(()) => contractpin_status::Ok,
        Err(failure) => {
            if let Some(offset) = failure.offset {
                // SAFETY: the caller guarantees `error_offset` is NULL or writable.
                unsafe { write_opt(error_offset, offset) };
            }
            failure.status
        }
    }
}

/// [`guarded`] then [`finish`] with no error offset: for calls without an
/// input to point into.
pub(crate) fn status_of(f: impl FnOnce() -> Result<(), Failure>) -> contractpin_status {
    match guarded(f) {
        Ok(()) => contractpin_status::Ok,
        Err(failure) => failure.status,
    }
}

/// Borrows an input buffer. NULL with length 0 is the empty input.
///
/// # Safety
/// If `ptr` is not NULL it must be valid for reading `len` bytes that are not
/// mutated for the lifetime `'a`.
pub(crate) unsafe fn input<'a>(ptr: *const u8, len: usize) -> Result<&'a [u8], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(contractpin_status::NullArgument.into());
    }
    if len > isize::MAX as usize {
        return Err(contractpin_status::InvalidArgument.into());
    }
    // SAFETY: `ptr` is non-null and, by the caller's contract, valid for
    // `len` bytes that stay unchanged for `'a`; `len <= isize::MAX`.
    Ok(unsafe { core::slice::from_raw_parts(ptr, len) })
}

/// Fails with [`contractpin_status::NullArgument`] if `ptr` is NULL.
/// Borrows a library-allocated object (a server, report, lock, ...) from a
/// pointer the caller may have left NULL.
///
/// # Safety
/// `p` is NULL or a live pointer returned by this library and not yet freed,
/// not written to by anyone during the borrow.
pub(crate) unsafe fn borrow<'a, T>(p: *const T) -> Result<&'a T, Failure> {
    non_null(p)?;
    // SAFETY: non-null, and live and immutable by the caller's contract.
    Ok(unsafe { &*p })
}

pub(crate) fn non_null<T>(ptr: *const T) -> Result<(), Failure> {
    if ptr.is_null() {
        Err(contractpin_status::NullArgument.into())
    } else {
        Ok(())
    }
}

/// Checks an output buffer: NULL is allowed only with capacity 0.
pub(crate) fn out_buffer(ptr: *mut u8, cap: usize) -> Result<(), Failure> {
    if ptr.is_null() && cap != 0 {
        Err(contractpin_status::NullArgument.into())
    } else {
        Ok(())
    }
}

/// Writes `value` through `ptr` when it is not NULL.
///
/// # Safety
/// `ptr` is NULL or valid and aligned for writing one `T`.
pub(crate) unsafe fn write_opt<T>(ptr: *mut T, value: T) {
    if !ptr.is_null() {
        // SAFETY: non-null, and valid for writes by the caller's contract.
        unsafe { ptr.write(value) };
    }
}

/// A string the ABI lends out as `(pointer, length)`: its bytes followed by
/// a NUL byte that the length does not count, so the pointer is never NULL
/// or dangling, not even for an empty string (it then points at the NUL),
/// and a string without NULs of its own can be read as a C string. That is
/// the convention of every `(pointer, length)` string the accessors return
/// (the server, report and guard objects pack theirs, NUL after each, in
/// one buffer); this is the type for a string stored on its own.
pub(crate) struct NulStr {
    /// The bytes, then the NUL: never empty.
    bytes: Box<[u8]>,
}

impl NulStr {
    /// Copies `text` and appends the NUL.
    pub(crate) fn new(text: &[u8]) -> NulStr {
        let mut bytes = alloc::vec::Vec::with_capacity(text.len() + 1);
        bytes.extend_from_slice(text);
        bytes.push(0);
        NulStr {
            bytes: bytes.into_boxed_slice(),
        }
    }

    /// The `(pointer, length)` to hand out: the pointer is owned by `self`,
    /// non-null, and valid for reading `length + 1` bytes, the last a NUL.
    pub(crate) fn span(&self) -> (*const u8, usize) {
        (self.bytes.as_ptr(), self.bytes.len() - 1)
    }
}

/// Copies `bytes` into the caller's buffer `(out, cap)` and stores the length
/// in `*out_len`; when `cap` is too small, stores the needed length and fails
/// with [`contractpin_status::OutputTooSmall`], leaving `out` untouched.
///
/// # Safety
/// `out` is valid for writing `cap` bytes (or NULL with `cap == 0`) and
/// `out_len` is valid for writing one `usize`. `out` may overlap `bytes`'
/// original input only if `bytes` is an owned copy (it always is here).
pub(crate) unsafe fn copy_out(
    bytes: &[u8],
    out: *mut u8,
    cap: usize,
    out_len: *mut usize,
) -> Result<(), Failure> {
    // SAFETY: `out_len` is valid for writes (checked non-null by the caller).
    unsafe { out_len.write(bytes.len()) };
    if bytes.len() > cap {
        return Err(contractpin_status::OutputTooSmall.into());
    }
    if !bytes.is_empty() {
        // SAFETY: `out` is valid for `cap >= bytes.len()` bytes; `ptr::copy`
        // tolerates overlap.
        unsafe { ptr::copy(bytes.as_ptr(), out, bytes.len()) };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::NulStr;

    #[test]
    fn nul_str_is_never_dangling() {
        for text in [&b""[..], b"servers.demo", b"a\0b"] {
            let s = NulStr::new(text);
            let (ptr, len) = s.span();
            assert!(!ptr.is_null());
            assert_eq!(len, text.len());
            // SAFETY: `span` promises `len + 1` readable bytes owned by `s`.
            let all = unsafe { core::slice::from_raw_parts(ptr, len + 1) };
            assert_eq!(&all[..len], text);
            assert_eq!(all[len], 0);
        }
    }
}
