//! tools/list reader: differential against the reference (server, tool and
//! field digests, or the same error kind) under default or small limits;
//! accepted documents digest the same in every equivalent shape.
//! The first byte picks default limits, small limits, or a generated list.
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
        checks::check_tools_list(data, Limits::DEFAULT);
        return;
    };
    match mode % 4 {
        0 => {
            let mut b = checks::Bytes::new(rest);
            let limits = Limits {
                max_depth: b.u8() as u32 % 12,
                max_input: 64 << 20,
                max_tools: b.u8() as usize % 6,
            };
            checks::check_tools_list(b.rest(), limits);
        }
        1 => {
            let mut b = checks::Bytes::new(rest);
            let mut rng = checks::Rng(b.u64());
            let mut list = gen::tools_list(&mut rng);
            if b.u8() % 2 == 1 {
                gen::mutate(&mut rng, &mut list);
            }
            checks::check_tools_list(&list, Limits::DEFAULT);
        }
        _ => checks::check_tools_list(data, Limits::DEFAULT),
    }
});
