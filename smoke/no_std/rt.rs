//! The firmware's own minimal Cortex-M runtime: the vector table, the reset
//! handler (FPU on, `.data` copied, `.bss` zeroed, then `firmware_main`), a
//! fault handler, ARM semihosting output and exit, and stack painting for
//! the peak stack measurement. The symbols it uses come from `link.x`.

use core::arch::{asm, global_asm};

// The vector table (initial stack pointer, reset, then the 14 system
// exceptions, every one a fault here: the firmware enables no interrupt) and
// the reset handler. In assembly, because nothing may run before `.data` and
// `.bss` are in place, and because the FPU must be on before any code that
// the compiler may give floating-point instructions (`thumbv7em-none-eabihf`).
global_asm!(
    ".section .vector_table, \"a\"",
    ".global __vectors",
    "__vectors:",
    ".word _stack_top",
    ".word reset_handler",
    ".rept 14",
    ".word fault_handler",
    ".endr",
    "",
    ".section .text.reset_handler, \"ax\"",
    ".global reset_handler",
    ".type reset_handler, %function",
    ".thumb_func",
    "reset_handler:",
    // CPACR: full access to coprocessors 10 and 11 (the FPU).
    "ldr r0, =0xE000ED88",
    "ldr r1, [r0]",
    "orr r1, r1, #0x00F00000",
    "str r1, [r0]",
    "dsb",
    "isb",
    // Copy .data from its image in flash.
    "ldr r0, =__sdata",
    "ldr r1, =__edata",
    "ldr r2, =__sidata",
    "1:",
    "cmp r0, r1",
    "bhs 2f",
    "ldr r3, [r2], #4",
    "str r3, [r0], #4",
    "b 1b",
    "2:",
    // Zero .bss.
    "ldr r0, =__sbss",
    "ldr r1, =__ebss",
    "movs r3, #0",
    "3:",
    "cmp r0, r1",
    "bhs 4f",
    "str r3, [r0], #4",
    "b 3b",
    "4:",
    "bl firmware_main",
    "b .",
    ".size reset_handler, . - reset_handler",
);

extern "C" {
    static _stack_bottom: u32;
}

/// Any exception: report it and end the run with status 102.
#[no_mangle]
extern "C" fn fault_handler() -> ! {
    print(&[b"fault: an exception was taken"]);
    exit(102)
}

const SYS_WRITE0: usize = 0x04;
const SYS_EXIT: usize = 0x18;
const SYS_EXIT_EXTENDED: usize = 0x20;
const ADP_STOPPED_APPLICATION_EXIT: usize = 0x20026;

/// One semihosting call: operation `op` with parameter `arg` (ARM's
/// "Semihosting for AArch32 and AArch64", `BKPT 0xAB` on M-profile).
fn semihost(op: usize, arg: usize) -> usize {
    let ret;
    // SAFETY: BKPT 0xAB is the semihosting trap; QEMU (run with
    // `-semihosting-config enable=on`) serves it and returns in r0. Every
    // `arg` passed below points to memory that lives across the call.
    unsafe {
        asm!("bkpt #0xab", inout("r0") op => ret, in("r1") arg, options(nostack));
    }
    ret
}

/// Writes the concatenation of `parts` and a newline to the host's stdout.
/// A line longer than the buffer is cut.
pub fn print(parts: &[&[u8]]) {
    let mut line = [0u8; 128];
    let mut n = 0;
    for &byte in parts.iter().flat_map(|p| p.iter()) {
        if n == line.len() - 2 {
            break;
        }
        line[n] = byte;
        n += 1;
    }
    line[n] = b'\n';
    // line[n + 1] is already the 0 that SYS_WRITE0 stops at.
    semihost(SYS_WRITE0, line.as_ptr() as usize);
}

/// The decimal text of `value`, in `buf`.
pub fn decimal(mut value: usize, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            return &buf[i..];
        }
    }
}

/// Ends the QEMU run with `status` (SYS_EXIT_EXTENDED; plain SYS_EXIT, which
/// can only tell success from failure, if the host does not know it).
pub fn exit(status: u32) -> ! {
    let block = [ADP_STOPPED_APPLICATION_EXIT as u32, status];
    semihost(SYS_EXIT_EXTENDED, block.as_ptr() as usize);
    let reason = if status == 0 {
        ADP_STOPPED_APPLICATION_EXIT
    } else {
        0
    };
    semihost(SYS_EXIT, reason);
    loop {
        // SAFETY: WFI only waits for an interrupt; with none enabled, forever.
        unsafe { asm!("wfi", options(nomem, nostack)) };
    }
}

const PAINT: u32 = 0x5A5A_C3C3;

/// Runs `f` and returns its peak stack use in bytes: the free stack (from
/// `_stack_bottom` up to the stack pointer) is painted with a pattern before
/// the call, and the lowest word that changed is found after it. `f` is
/// called through an opaque pointer, so none of it is inlined into this
/// frame: everything it uses is below the painted stack pointer.
#[inline(never)]
pub fn peak_stack(f: &mut dyn FnMut()) -> usize {
    // Only the address of the linker symbol is taken (no unsafe needed).
    let bottom = core::ptr::addr_of!(_stack_bottom) as usize;
    let sp: usize;
    // SAFETY: writes only the words in [bottom, sp), which are below the
    // stack pointer and so belong to no live frame; uses no stack itself.
    unsafe {
        asm!(
            "mov {sp}, sp",
            "1:",
            "cmp {p}, {sp}",
            "bhs 2f",
            "str {pat}, [{p}], #4",
            "b 1b",
            "2:",
            sp = out(reg) sp,
            p = inout(reg) bottom => _,
            pat = in(reg) PAINT,
            options(nostack),
        );
    }
    core::hint::black_box(f)();
    let mut lowest = bottom;
    // SAFETY: reads words of the stack region between `bottom` and the
    // stack pointer of this frame, all inside RAM.
    while lowest < sp && unsafe { core::ptr::read_volatile(lowest as *const u32) } == PAINT {
        lowest += 4;
    }
    sp - lowest
}
