//! The NEON back end for (little-endian) `aarch64`, where NEON is part of
//! the baseline, so it needs no detection: 16-byte class searches and the
//! block classifier, the `aarch64` counterpart of `sse2`.
//!
//! NEON has no `movemask`. A 16-byte compare result becomes one nibble per
//! byte with a narrowing shift (`shrn`), enough to find the first match; a
//! 64-byte block's compare results become one bit per byte with an AND by
//! each bit's weight and three rounds of pairwise adds (`addp`), as simdjson
//! does on Arm.
//!
//! Every `unsafe` block here only calls NEON intrinsics, which are sound to
//! call on every `aarch64` CPU (the intrinsics are `unsafe` because their
//! feature could in principle be missing; for NEON on `aarch64` it cannot),
//! and loads through pointers into arrays of exactly the size loaded.

use super::{Class, Masks};
use core::arch::aarch64::{
    uint8x16_t, vandq_u8, vceqq_u8, vcltq_s8, vcltq_u8, vdupq_n_s8, vdupq_n_u8, vget_lane_u64,
    vgetq_lane_u64, vld1q_u8, vorrq_u8, vpaddq_u8, vreinterpret_u64_u8, vreinterpretq_s8_u8,
    vreinterpretq_u16_u8, vreinterpretq_u64_u8, vshrn_n_u16,
};

/// This back end's name in the tests' lists.
#[cfg(test)]
pub(super) const NAME: &str = "neon";

/// The bytes of `chunk` in `class`, as one nibble per byte (bits `4i..4i + 4`
/// are all ones when byte `i` is in it).
#[inline(always)]
fn class_nibbles(chunk: &[u8; 16], class: Class) -> u64 {
    // SAFETY: NEON intrinsics on an `aarch64` CPU (see the module doc); the
    // load reads the 16 bytes of `chunk`.
    unsafe {
        let v = vld1q_u8(chunk.as_ptr());
        let backslash = vceqq_u8(v, vdupq_n_u8(b'\\'));
        let hits = match class {
            Class::Backslash => backslash,
            Class::QuoteOrBackslash => vorrq_u8(backslash, vceqq_u8(v, vdupq_n_u8(b'"'))),
            Class::StringSpecial => {
                let quote = vceqq_u8(v, vdupq_n_u8(b'"'));
                // Signed compare: 0x00..0x1f and 0x80..0xff are both "below 0x20".
                let low_or_high = vcltq_s8(vreinterpretq_s8_u8(v), vdupq_n_s8(0x20));
                vorrq_u8(vorrq_u8(quote, backslash), low_or_high)
            }
        };
        vget_lane_u64::<0>(vreinterpret_u64_u8(vshrn_n_u16::<4>(vreinterpretq_u16_u8(
            hits,
        ))))
    }
}

/// [`super::skip_blocks`] with 16-byte NEON compares.
#[inline(always)]
pub(super) fn skip(input: &[u8], mut pos: usize, class: Class) -> usize {
    while let Some(chunk) = input.get(pos..).and_then(|rest| rest.first_chunk::<16>()) {
        let nibbles = class_nibbles(chunk, class);
        if nibbles != 0 {
            return pos + nibbles.trailing_zeros() as usize / 4;
        }
        pos += 16;
    }
    pos
}

/// One bit per byte of four 16-byte compare results (bit `i` is byte `i`
/// of the 64), each byte all ones or all zeros.
#[inline(always)]
fn bits(v: [uint8x16_t; 4]) -> u64 {
    const WEIGHTS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
    // SAFETY: NEON intrinsics on an `aarch64` CPU (see the module doc); the
    // load reads the 16 bytes of `WEIGHTS`.
    unsafe {
        let w = vld1q_u8(WEIGHTS.as_ptr());
        let [a, b, c, d] = v.map(|x| vandq_u8(x, w));
        // Each round adds neighbouring bytes: after three, byte j holds the
        // eight weighted bytes 8j..8j + 8, so the low eight bytes are the mask.
        let abcd = vpaddq_u8(vpaddq_u8(a, b), vpaddq_u8(c, d));
        vgetq_lane_u64::<0>(vreinterpretq_u64_u8(vpaddq_u8(abcd, abcd)))
    }
}

/// The [`Masks`] of one block (for [`super::Classifier`]), with four 16-byte lanes.
pub(super) fn classify(block: &[u8; 64]) -> Masks {
    let (lanes, _) = block.as_chunks::<16>();
    // SAFETY: NEON intrinsics on an `aarch64` CPU (see the module doc); each
    // load reads the 16 bytes of one lane of the block.
    unsafe {
        let v: [uint8x16_t; 4] = core::array::from_fn(|i| vld1q_u8(lanes[i].as_ptr()));
        let eq = |x: uint8x16_t, c: u8| vceqq_u8(x, vdupq_n_u8(c));
        Masks::from_array([
            bits(v.map(|x| eq(x, b'"'))),
            bits(v.map(|x| eq(x, b'\\'))),
            bits(v.map(|x| {
                // `[`/`{` and `]`/`}` differ only in bit 0x20.
                let folded = vorrq_u8(x, vdupq_n_u8(0x20));
                let brackets = vorrq_u8(eq(folded, b'{'), eq(folded, b'}'));
                vorrq_u8(brackets, vorrq_u8(eq(x, b','), eq(x, b':')))
            })),
            bits(v.map(|x| {
                vorrq_u8(
                    vorrq_u8(eq(x, b' '), eq(x, b'\t')),
                    vorrq_u8(eq(x, b'\n'), eq(x, b'\r')),
                )
            })),
            bits(v.map(|x| vcltq_u8(x, vdupq_n_u8(0x20)))),
        ])
    }
}
