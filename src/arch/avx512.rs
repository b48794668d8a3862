//! The AVX-512 block classifier (F and BW: one 64-byte register per block,
//! each class straight into a mask register), which also validates UTF-8
//! (Keiser and Lemire's lookup tables, as simdjson's "icelake" kernel does
//! it). Used when CPUID reports AVX-512 F and BW and the operating system
//! saves the opmask and ZMM state ([`crate::cpu::avx512_bw`]); detected once
//! and cached, as [`super::avx2`] is.
//!
//! Each block is the UTF-8 look-back of the next, held in a register
//! across the run of blocks of one call.
//!
//! With VBMI2 as well, [`flatten`] turns a block's structural bits into
//! positions for the structural index (`json::index`) without a branch.

use super::tables::{BYTE_1_HIGH, BYTE_1_LOW, BYTE_2_HIGH, OP, WS};
use super::{Block, Masks};
use crate::cpu::Detected;
use core::arch::x86_64::{
    __m512i, _mm512_add_epi32, _mm512_alignr_epi64, _mm512_alignr_epi8, _mm512_and_si512,
    _mm512_castsi512_si128, _mm512_cmpeq_epi8_mask, _mm512_cmple_epu8_mask, _mm512_cvtepu8_epi32,
    _mm512_extracti32x4_epi32, _mm512_loadu_si512, _mm512_mask_cmpeq_epi8_mask,
    _mm512_maskz_compress_epi8, _mm512_or_si512, _mm512_set1_epi32, _mm512_set1_epi8,
    _mm512_setzero_si512, _mm512_shuffle_epi8, _mm512_srli_epi16, _mm512_storeu_si512,
    _mm512_subs_epu8, _mm512_test_epi8_mask, _mm512_xor_si512,
};

/// AVX-512 F and BW with OS support, detected once.
static AVX512: Detected = Detected::new();

/// Whether this CPU supports the AVX-512 path (detected once, then cached).
#[inline]
pub(super) fn available() -> bool {
    AVX512.get(crate::cpu::avx512_bw)
}

/// AVX-512 F, BW and VBMI2 with OS support, and POPCNT and BMI1, detected once.
static VBMI2: Detected = Detected::new();

/// Whether this CPU supports [`flatten`] (detected once, then cached).
#[inline]
pub(super) fn flatten_available() -> bool {
    VBMI2.get(crate::cpu::avx512_vbmi2)
}

/// The 64 bytes of `bytes`.
#[target_feature(enable = "avx512f")]
#[inline]
fn load(bytes: &[u8; 64]) -> __m512i {
    // SAFETY: `bytes` holds exactly 64 readable bytes and
    // `_mm512_loadu_si512` has no alignment requirement; AVX-512 F is
    // enabled for this function.
    unsafe { _mm512_loadu_si512(bytes.as_ptr().cast::<__m512i>()) }
}

/// A 16-entry table in all four 128-bit lanes, for `_mm512_shuffle_epi8`
/// (built at compile time: a loop here would run on every call).
const fn four_lanes(t: [u8; 16]) -> [u8; 64] {
    let mut all = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        all[i] = t[i % 16];
        i += 1;
    }
    all
}

/// Byte `i` is `i`: what [`flatten`] compresses.
const IOTA: [u8; 64] = {
    let mut iota = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        iota[i] = i as u8;
        i += 1;
    }
    iota
};

/// The tables of one call, loaded once.
#[derive(Clone, Copy)]
struct Tables {
    ws: __m512i,
    op: __m512i,
    byte_1_high: __m512i,
    byte_1_low: __m512i,
    byte_2_high: __m512i,
}

impl Tables {
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn new() -> Tables {
        Tables {
            ws: load(&const { four_lanes(WS) }),
            op: load(&const { four_lanes(OP) }),
            byte_1_high: load(&const { four_lanes(BYTE_1_HIGH) }),
            byte_1_low: load(&const { four_lanes(BYTE_1_LOW) }),
            byte_2_high: load(&const { four_lanes(BYTE_2_HIGH) }),
        }
    }
}

/// The five class masks of the block `v`.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn masks(v: __m512i, t: &Tables) -> Masks {
    let ctrl = _mm512_cmple_epu8_mask(v, _mm512_set1_epi8(0x1f));
    let folded = _mm512_or_si512(v, _mm512_set1_epi8(0x20));
    let op_of_nibble = _mm512_shuffle_epi8(t.op, v);
    Masks {
        quote: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'"' as i8)),
        backslash: _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b'\\' as i8)),
        op: _mm512_mask_cmpeq_epi8_mask(!ctrl, folded, op_of_nibble),
        ws: _mm512_cmpeq_epi8_mask(v, _mm512_shuffle_epi8(t.ws, v)),
        ctrl,
    }
}

/// Nonzero bytes where `v` (with the 64 bytes before it in `prev`) is not
/// valid UTF-8: a wrong byte pair, or a multi-byte sequence of the wrong
/// length. A sequence cut off by the end of `v` is judged with the next block.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn utf8_errors(v: __m512i, prev: __m512i, t: &Tables) -> __m512i {
    // Lane i of `shifted` is lane i - 1 of `v` (lane 3 of `prev` for lane 0).
    let shifted = _mm512_alignr_epi64::<6>(v, prev);
    let prev1 = _mm512_alignr_epi8::<15>(v, shifted);
    let prev2 = _mm512_alignr_epi8::<14>(v, shifted);
    let prev3 = _mm512_alignr_epi8::<13>(v, shifted);
    let low = _mm512_set1_epi8(0x0f);
    let high_nibble = |x: __m512i| _mm512_and_si512(_mm512_srli_epi16::<4>(x), low);
    let byte_1_high = _mm512_shuffle_epi8(t.byte_1_high, high_nibble(prev1));
    let byte_1_low = _mm512_shuffle_epi8(t.byte_1_low, _mm512_and_si512(prev1, low));
    let byte_2_high = _mm512_shuffle_epi8(t.byte_2_high, high_nibble(v));
    let special = _mm512_and_si512(_mm512_and_si512(byte_1_high, byte_1_low), byte_2_high);
    // Third and fourth bytes of a sequence must be continuations (0x80 set
    // in `special` for them), and nothing else may be one after the second.
    let third = _mm512_subs_epu8(prev2, _mm512_set1_epi8((0xe0u8 - 0x80) as i8));
    let fourth = _mm512_subs_epu8(prev3, _mm512_set1_epi8((0xf0u8 - 0x80) as i8));
    let must_be_2_3_continuation = _mm512_and_si512(
        _mm512_or_si512(third, fourth),
        _mm512_set1_epi8(0x80u8 as i8),
    );
    _mm512_xor_si512(must_be_2_3_continuation, special)
}

/// [`super::Classifier`] with one 64-byte register per block, with the
/// UTF-8 check (on every block: a test for all-ASCII blocks costs about as
/// much as it saves on Unicode-heavy input, and mispredicts on it).
///
/// # Safety
/// The CPU must support AVX-512 F and BW ([`available`]).
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn classify(blocks: &[Block], prev: &Block, out: &mut [Masks]) -> bool {
    let t = Tables::new();
    let mut prev = load(prev);
    let mut errors = _mm512_setzero_si512();
    for (block, m) in blocks.iter().zip(out) {
        let v = load(block);
        *m = masks(v, &t);
        errors = _mm512_or_si512(errors, utf8_errors(v, prev, &t));
        prev = v;
    }
    _mm512_test_epi8_mask(errors, errors) != 0
}

/// Writes the positions of the set bits of `bits` (`offset` plus the bit's
/// index), in increasing order, to the start of `window`; the rest of it
/// gets unspecified values. One `vpcompressb` packs the indices of the set
/// bits, four zero-extensions widen them, without a branch on the count.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI2 ([`flatten_available`]).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
#[inline]
pub(super) unsafe fn flatten(window: &mut [u32; 64], offset: u32, bits: u64) {
    let packed = _mm512_maskz_compress_epi8(bits, load(&IOTA));
    let offset = _mm512_set1_epi32(offset as i32);
    let quarters = [
        _mm512_castsi512_si128(packed),
        _mm512_extracti32x4_epi32::<1>(packed),
        _mm512_extracti32x4_epi32::<2>(packed),
        _mm512_extracti32x4_epi32::<3>(packed),
    ];
    for (quarter, out) in quarters.into_iter().zip(window.chunks_exact_mut(16)) {
        let positions = _mm512_add_epi32(_mm512_cvtepu8_epi32(quarter), offset);
        // SAFETY: `out` holds exactly 16 writable `u32`s (64 bytes) and
        // `_mm512_storeu_si512` has no alignment requirement; AVX-512 F is
        // enabled for this function.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast::<__m512i>(), positions) };
    }
}
