//! Bare-metal firmware for a Cortex-M4 (QEMU's `mps2-an386`): the contractpin
//! core, without allocator, digests every `tool` vector of vectors/vectors.tsv
//! and a 4 KB tool with scratch memory from the caller, and prints over
//! semihosting:
//!
//! ```text
//! vector NAME sha256:<hex> | vector NAME !error-kind
//! stack calibration-1024 BYTES
//! scratch tool-4k NODES BYTES
//! stack tool-4k BYTES
//! ```
//!
//! It never sees an expected digest: `run.sh` compares the printed lines with
//! the vector file. The inputs come from `embed.py`, through the file that the
//! `SMOKE_VECTORS` environment variable names at build time. The run ends
//! with semihosting exit status 0; a panic ends it with 101, a fault with 102.
#![no_std]
#![no_main]
#![deny(missing_docs)]

mod rt;

mod vectors {
    include!(env!("SMOKE_VECTORS"));
}

use contractpin::json::Node;
use contractpin::{tool_digest_with, Limits};
use rt::{decimal, print};

/// Scratch nodes for every digest: more than `tool-4k` needs.
const SCRATCH_NODES: usize = 1024;

/// One line, `vector NAME sha256:<hex>` or `vector NAME !kind`, per input.
fn digest_vectors(scratch: &mut [Node]) {
    for &(name, input) in vectors::VECTORS {
        match tool_digest_with(input, scratch, &Limits::DEFAULT) {
            Ok((digest, _)) => {
                print(&[b"vector ", name.as_bytes(), b" ", &digest.to_hex_prefixed()])
            }
            Err(e) => print(&[
                b"vector ",
                name.as_bytes(),
                b" !",
                e.kind().name().as_bytes(),
            ]),
        }
    }
}

/// The scratch `tool-4k` needs (asked of the core with an empty slice), and
/// the peak stack of digesting it with exactly that much.
fn measure_big(scratch: &mut [Node]) {
    let needed = match tool_digest_with(vectors::BIG, &mut [], &Limits::DEFAULT) {
        Err(e) => e.needed(),
        Ok(_) => 0,
    };
    let (mut a, mut b) = ([0; 20], [0; 20]);
    let bytes = needed * core::mem::size_of::<Node>();
    print(&[
        b"scratch tool-4k ",
        decimal(needed, &mut a),
        b" ",
        decimal(bytes, &mut b),
    ]);
    let exact = &mut scratch[..needed];
    let mut ok = false;
    let stack = rt::peak_stack(&mut || {
        ok = tool_digest_with(vectors::BIG, exact, &Limits::DEFAULT).is_ok();
    });
    if !ok {
        print(&[b"tool-4k failed with the scratch it asked for"]);
        rt::exit(1);
    }
    print(&[b"stack tool-4k ", decimal(stack, &mut a)]);
}

/// The measurement checked on a known use: a function that fills a
/// 1024-byte local array must measure at least 1024 bytes, and not much more.
fn calibrate() {
    let stack = rt::peak_stack(&mut || {
        let mut local = [0u8; 1024];
        for (i, b) in local.iter_mut().enumerate() {
            *b = i as u8;
        }
        core::hint::black_box(&mut local);
    });
    print(&[b"stack calibration-1024 ", decimal(stack, &mut [0; 20])]);
}

/// Entered from the reset handler.
#[no_mangle]
extern "C" fn firmware_main() -> ! {
    let mut scratch = [Node::EMPTY; SCRATCH_NODES];
    digest_vectors(&mut scratch);
    calibrate();
    measure_big(&mut scratch);
    rt::exit(0)
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    print(&[b"panic"]);
    rt::exit(101)
}
