//! The library version.

use core::ffi::c_char;

const VERSION_NUL: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");

/// Parses a decimal version component at compile time.
const fn parse(text: &str) -> u32 {
    let bytes = text.as_bytes();
    let mut value = 0u32;
    let mut i = 0;
    while i < bytes.len() {
        value = value * 10 + (bytes[i] - b'0') as u32;
        i += 1;
    }
    value
}

const MAJOR: u32 = parse(env!("CARGO_PKG_VERSION_MAJOR"));
const MINOR: u32 = parse(env!("CARGO_PKG_VERSION_MINOR"));
const PATCH: u32 = parse(env!("CARGO_PKG_VERSION_PATCH"));

/// The library version as a static NUL-terminated string, such as `"0.1.0"`
/// (equal to `CONTRACTPIN_VERSION_STRING` of the header the library was built
/// with). Never NULL; do not free. Thread-safe.
#[no_mangle]
pub extern "C" fn contractpin_version() -> *const c_char {
    VERSION_NUL.as_ptr().cast()
}

/// The major version number of the library (compare with
/// `CONTRACTPIN_VERSION_MAJOR` to detect a header/library mismatch).
#[no_mangle]
pub extern "C" fn contractpin_version_major() -> u32 {
    MAJOR
}

/// The minor version number of the library.
#[no_mangle]
pub extern "C" fn contractpin_version_minor() -> u32 {
    MINOR
}

/// The patch version number of the library.
#[no_mangle]
pub extern "C" fn contractpin_version_patch() -> u32 {
    PATCH
}
