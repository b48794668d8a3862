//! Canonical writer: differential against the reference canonicalizer of
//! tests/support/reference_jcs.rs (same bytes, or the same error kind).
//!
//! The first byte picks the mode: raw bytes under the default limits, raw
//! bytes under small limits, or a document generated from a seed (so deep,
//! valid documents with awkward strings and numbers come up often).
#![no_main]

#[path = "../../tests/support/checks.rs"]
mod checks;
#[path = "../../tests/support/gen.rs"]
mod gen;
#[path = "../../tests/support/reference_jcs.rs"]
mod reference_jcs;

use contractpin::Limits;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        checks::check_writer(data, Limits::DEFAULT);
        return;
    };
    match mode % 4 {
        0 => {
            let mut b = checks::Bytes::new(rest);
            let limits = Limits {
                max_depth: b.u8() as u32 % 12,
                max_input: b.u32() as usize % 8192,
                max_tools: 100_000,
            };
            checks::check_writer(b.rest(), limits);
        }
        1 => {
            let mut b = checks::Bytes::new(rest);
            let mut rng = checks::Rng(b.u64());
            let mut doc = gen::document(&mut rng);
            if b.u8() % 2 == 1 {
                gen::mutate(&mut rng, &mut doc);
            }
            checks::check_writer(&doc, Limits::DEFAULT);
        }
        _ => checks::check_writer(data, Limits::DEFAULT),
    }
});
