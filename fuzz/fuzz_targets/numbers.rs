//! Numbers: `format_f64` of any bit pattern reads back as the same double,
//! matches the reference layout of the shortest digits, and is its own
//! canonical form; other spellings of the same double canonicalize to it.
//! Longer inputs are also fed to the parser as number-ish text.
#![no_main]

#[path = "../../tests/support/checks.rs"]
mod checks;
#[path = "../../tests/support/reference_jcs.rs"]
mod reference_jcs;

use contractpin::Limits;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut bits = [0u8; 8];
    let n = data.len().min(8);
    bits[..n].copy_from_slice(&data[..n]);
    checks::check_number(u64::from_le_bytes(bits));
    if data.len() > 8 {
        // Arbitrary bytes through the number grammar and the reference.
        checks::check_writer(&data[8..], Limits::DEFAULT);
    }
});
