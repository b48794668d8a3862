//! Parser: no panic on any bytes; an accepted document's canonical form is a
//! fixed point (`canon(canon(x)) == canon(x)`); the allocation-free entry
//! point and a reused context agree. See tests/support/checks.rs.
#![no_main]

#[path = "../../tests/support/checks.rs"]
mod checks;
#[path = "../../tests/support/reference_jcs.rs"]
mod reference_jcs;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    checks::check_parser(data);
});
