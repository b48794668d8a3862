//! The Armv8 SHA-256 instructions (FEAT_SHA256: `sha256h`, `sha256h2`,
//! `sha256su0`, `sha256su1`) for (little-endian) `aarch64`: Apple silicon,
//! AWS Graviton, Ampere and most other 64-bit Arm servers and laptops.
//!
//! The state is two vectors, ABCD and EFGH (A in lane 0), as [`super::IV`]
//! is laid out. `sha256h` and `sha256h2` run four rounds on them, and
//! `sha256su0` / `sha256su1` extend the message schedule four words at a time.
//!
//! [`compress`] hashes one message. [`compress2`] advances two independent
//! messages in one loop: each four-round step depends on the previous one,
//! and the two chains are independent, so the core overlaps them (the same
//! reason as for SHA-NI's two streams in `shani`).
//!
//! Detection: built for a CPU that has the instructions (`-C
//! target-feature=+sha2`, which Apple's `aarch64` targets enable by default),
//! they are always used; otherwise, with `std`, `std` asks the operating
//! system once (`is_aarch64_feature_detected!`, cached by `std`); a `no_std`
//! build without the target feature uses the portable back end.

use core::arch::aarch64::{
    uint32x4_t, vaddq_u32, vld1q_u32, vld1q_u8, vreinterpretq_u32_u8, vrev32q_u8, vsha256h2q_u32,
    vsha256hq_u32, vsha256su0q_u32, vsha256su1q_u32, vst1q_u32,
};

use super::{BLOCK_LEN, K};

/// Whether this CPU runs the Armv8 SHA-256 instructions (never on a
/// big-endian `aarch64`, where the loads below would need other byte swaps).
#[inline]
pub(super) fn available() -> bool {
    #[cfg(target_endian = "big")]
    {
        false
    }
    #[cfg(all(target_endian = "little", target_feature = "sha2"))]
    {
        true
    }
    #[cfg(all(
        target_endian = "little",
        not(target_feature = "sha2"),
        any(test, feature = "std")
    ))]
    {
        std::arch::is_aarch64_feature_detected!("sha2")
    }
    #[cfg(all(
        target_endian = "little",
        not(target_feature = "sha2"),
        not(any(test, feature = "std"))
    ))]
    {
        false
    }
}

/// The sixteen words of one block, as four vectors of big-endian words.
#[inline(always)]
fn load_block(block: &[u8]) -> [uint32x4_t; 4] {
    let block: &[u8; BLOCK_LEN] = block.try_into().expect("a whole block");
    // SAFETY: each load reads 16 bytes at offset 0, 16, 32 or 48 of a
    // 64-byte array; NEON is part of the `aarch64` baseline.
    core::array::from_fn(|i| unsafe {
        vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(block.as_ptr().add(16 * i))))
    })
}

/// Four rounds for each stream, then the next four schedule words of each.
macro_rules! rounds {
    ($(($abcd:ident, $efgh:ident, $w:ident)),+) => {
        for g in 0..16 {
            // SAFETY: `K` holds 64 words, and `4 * g + 4 <= 64`.
            let k = unsafe { vld1q_u32(K.as_ptr().add(4 * g)) };
            $(
                let wk = vaddq_u32($w[g % 4], k);
                let abcd = $abcd;
                $abcd = vsha256hq_u32($abcd, $efgh, wk);
                $efgh = vsha256h2q_u32($efgh, abcd, wk);
            )+
            if g < 12 {
                $(
                    // W[t + 16..t + 20] from W[t..t + 16] (t = 4g): the
                    // vector that held W[t..t + 4] is free now.
                    let next = vsha256su0q_u32($w[g % 4], $w[(g + 1) % 4]);
                    $w[g % 4] = vsha256su1q_u32(next, $w[(g + 2) % 4], $w[(g + 3) % 4]);
                )+
            }
        }
    };
}

/// Runs the compression function over every whole block of `blocks`.
///
/// # Safety
/// The CPU must support the SHA-256 instructions ([`available`]).
#[target_feature(enable = "sha2")]
pub(super) unsafe fn compress(state: &mut [u32; 8], blocks: &[u8]) {
    // SAFETY: the loads and stores touch the 32 bytes of `state`.
    let (mut abcd, mut efgh) =
        unsafe { (vld1q_u32(state.as_ptr()), vld1q_u32(state.as_ptr().add(4))) };
    for block in blocks.chunks_exact(BLOCK_LEN) {
        let (abcd0, efgh0) = (abcd, efgh);
        let mut w = load_block(block);
        rounds!((abcd, efgh, w));
        abcd = vaddq_u32(abcd, abcd0);
        efgh = vaddq_u32(efgh, efgh0);
    }
    // SAFETY: as for the loads above.
    unsafe {
        vst1q_u32(state.as_mut_ptr(), abcd);
        vst1q_u32(state.as_mut_ptr().add(4), efgh);
    }
}

/// Compresses the i-th whole block of `blocks_a` into `state_a` together with
/// the i-th whole block of `blocks_b` into `state_b`, for as many blocks as
/// the shorter slice has.
///
/// # Safety
/// The CPU must support the SHA-256 instructions ([`available`]).
#[target_feature(enable = "sha2")]
pub(super) unsafe fn compress2(
    state_a: &mut [u32; 8],
    blocks_a: &[u8],
    state_b: &mut [u32; 8],
    blocks_b: &[u8],
) {
    // SAFETY: the loads and stores touch the 32 bytes of each state.
    let (mut abcd_a, mut efgh_a, mut abcd_b, mut efgh_b) = unsafe {
        (
            vld1q_u32(state_a.as_ptr()),
            vld1q_u32(state_a.as_ptr().add(4)),
            vld1q_u32(state_b.as_ptr()),
            vld1q_u32(state_b.as_ptr().add(4)),
        )
    };
    let pairs = blocks_a
        .chunks_exact(BLOCK_LEN)
        .zip(blocks_b.chunks_exact(BLOCK_LEN));
    for (block_a, block_b) in pairs {
        let saved = [abcd_a, efgh_a, abcd_b, efgh_b];
        let (mut wa, mut wb) = (load_block(block_a), load_block(block_b));
        rounds!((abcd_a, efgh_a, wa), (abcd_b, efgh_b, wb));
        abcd_a = vaddq_u32(abcd_a, saved[0]);
        efgh_a = vaddq_u32(efgh_a, saved[1]);
        abcd_b = vaddq_u32(abcd_b, saved[2]);
        efgh_b = vaddq_u32(efgh_b, saved[3]);
    }
    // SAFETY: as for the loads above.
    unsafe {
        vst1q_u32(state_a.as_mut_ptr(), abcd_a);
        vst1q_u32(state_a.as_mut_ptr().add(4), efgh_a);
        vst1q_u32(state_b.as_mut_ptr(), abcd_b);
        vst1q_u32(state_b.as_mut_ptr().add(4), efgh_b);
    }
}
