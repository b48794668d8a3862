//! Lock reader: no panic on any bytes; what it accepts is consistent (tool
//! counts, server digests) and survives `to_pretty` -> `parse` unchanged.
#![no_main]

#[path = "../../tests/support/checks.rs"]
mod checks;
#[path = "../../tests/support/reference_jcs.rs"]
mod reference_jcs;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    checks::check_lock(data);
});
