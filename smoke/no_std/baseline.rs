//! The firmware's runtime alone (rt.rs, one line printed, exit), without the
//! contractpin core: its flash size, subtracted from the firmware's, is what
//! the core costs (see run.sh and docs/EMBEDDED.md).
#![no_std]
#![no_main]
#![deny(missing_docs)]

#[allow(dead_code)]
mod rt;

/// Entered from the reset handler.
#[no_mangle]
extern "C" fn firmware_main() -> ! {
    rt::print(&[b"baseline"]);
    rt::exit(0)
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    rt::exit(101)
}
