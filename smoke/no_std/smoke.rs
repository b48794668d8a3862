//! A bare-metal smoke test for the contractpin core: `#![no_std]`, its own
//! panic handler, no global allocator. It digests a tool with scratch memory
//! that the caller provides, and reports how much scratch is needed when the
//! caller provides too little.
//!
//! `run.sh` beside this file builds it as a staticlib for a Cortex-M4F
//! (`thumbv7em-none-eabihf`), checks that it references no allocator, and
//! runs its tests on the host against the same `--no-default-features` core.
#![cfg_attr(not(test), no_std)]
#![deny(missing_docs)]

use contractpin::json::Node;
use contractpin::{tool_digest_with, ErrorKind, Limits, DIGEST_TEXT_LEN};

/// The tool digested by [`smoke_digest`].
pub const TOOL: &[u8] = br#"{"name":"read_file","title":"Read","description":"Reads a file \u2014 safely.","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]},"annotations":{"readOnlyHint":true}}"#;

/// Digests [`TOOL`] with `scratch` nodes. On success writes the 71-byte
/// `sha256:<hex>` text into `out` and returns 0; when `scratch` is too small
/// returns the number of nodes needed; any other failure returns -1.
pub fn digest_with_scratch(scratch: &mut [Node], out: &mut [u8; DIGEST_TEXT_LEN]) -> i32 {
    match tool_digest_with(TOOL, scratch, &Limits::DEFAULT) {
        Ok((digest, _fields)) => {
            *out = digest.to_hex_prefixed();
            0
        }
        Err(e) if e.kind() == ErrorKind::ScratchTooSmall => e.needed() as i32,
        Err(_) => -1,
    }
}

/// C entry point for firmware: digests [`TOOL`] with 32 scratch nodes on the stack.
///
/// # Safety
/// `out` must point to at least 71 writable bytes.
#[no_mangle]
pub unsafe extern "C" fn smoke_digest(out: *mut u8) -> i32 {
    let mut scratch = [Node::EMPTY; 32];
    let mut text = [0u8; DIGEST_TEXT_LEN];
    let status = digest_with_scratch(&mut scratch, &mut text);
    if status == 0 && !out.is_null() {
        // SAFETY: the caller guarantees `out` has room for 71 bytes, and
        // `text` is a distinct local array, so the ranges do not overlap.
        unsafe { core::ptr::copy_nonoverlapping(text.as_ptr(), out, DIGEST_TEXT_LEN) };
    }
    status
}

#[cfg(not(test))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The canonical contract of [`TOOL`], written by hand from spec
    /// sections 2 and 3; [`EXPECTED`] is its SHA-256 computed with Python's
    /// `hashlib`, outside this code.
    #[allow(dead_code)]
    const CONTRACT: &str = r#"{"annotations":{"readOnlyHint":true},"description":"Reads a file — safely.","inputSchema":{"properties":{"path":{"type":"string"}},"required":["path"],"type":"object"},"name":"read_file"}"#;

    #[test]
    fn digests_with_enough_scratch() {
        let mut scratch = [Node::EMPTY; 32];
        let mut out = [0u8; DIGEST_TEXT_LEN];
        assert_eq!(digest_with_scratch(&mut scratch, &mut out), 0);
        assert_eq!(core::str::from_utf8(&out).unwrap(), EXPECTED);
    }

    #[test]
    fn too_little_scratch_says_how_much() {
        let mut scratch = [Node::EMPTY; 4];
        let mut out = [0u8; DIGEST_TEXT_LEN];
        let needed = digest_with_scratch(&mut scratch, &mut out);
        // 24 nodes: one per value and per key of TOOL, counted by hand.
        assert_eq!(needed, 24);
        let mut exact = [Node::EMPTY; 24];
        assert_eq!(digest_with_scratch(&mut exact, &mut out), 0);
        let mut one_short = [Node::EMPTY; 23];
        assert_eq!(digest_with_scratch(&mut one_short, &mut out), 24);
    }

    const EXPECTED: &str =
        "sha256:201f78cc35371c47d0f9eac73d1dfdc35ae979cfb79007a73ab175b15b64bd2b";
}
