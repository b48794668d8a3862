//! The C ABI: the extern "C" functions called directly with random buffers,
//! lengths, NULL pointers, limits, indexes and flags; statuses, out-params
//! and buffer contents are checked against the Rust API (and against the
//! ABI documentation: outputs written only on success, never past a
//! capacity). Layout: op byte, 24 parameter bytes, payload.
#![no_main]

#[path = "../../tests/support/checks.rs"]
mod checks;
#[path = "../../tests/support/reference_jcs.rs"]
mod reference_jcs;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    checks::check_ffi(data);
});
