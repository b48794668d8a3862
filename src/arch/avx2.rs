//! The AVX2 block classifier (32-byte lanes), which also validates UTF-8
//! (the lookup-table method of Keiser and Lemire, as in simdjson). Used when
//! CPUID reports AVX2 and the operating system saves the YMM registers;
//! detected once without `std` and cached, as `sha256::shani` does for SHA-NI.

use super::tables::{BYTE_1_HIGH, BYTE_1_LOW, BYTE_2_HIGH, OP, WS};
use super::{Block, Masks};
use crate::cpu::Detected;
use core::arch::x86_64::{
    __m256i, _mm256_alignr_epi8, _mm256_and_si256, _mm256_andnot_si256, _mm256_cmpeq_epi8,
    _mm256_loadu_si256, _mm256_min_epu8, _mm256_movemask_epi8, _mm256_or_si256,
    _mm256_permute2x128_si256, _mm256_set1_epi8, _mm256_setr_epi8, _mm256_setzero_si256,
    _mm256_shuffle_epi8, _mm256_srli_epi16, _mm256_subs_epu8, _mm256_testz_si256, _mm256_xor_si256,
};

/// AVX2 (CPUID leaf 7 EBX bit 5) with AVX (leaf 1 ECX bit 28), and the OS
/// saves the XMM and YMM state.
static AVX2: Detected = Detected::new();

/// Whether this CPU supports the AVX2 path (detected once, then cached).
#[inline]
pub(super) fn available() -> bool {
    AVX2.get(|f| f.has(1 << 28, 1 << 5) && f.os_saves(0b110))
}

/// The 32 bytes of `bytes` at `at`.
#[target_feature(enable = "avx2")]
#[inline]
fn load(bytes: &[u8; 64], at: usize) -> __m256i {
    let lane = &bytes[at..at + 32];
    // SAFETY: `lane` holds exactly 32 readable bytes and `_mm256_loadu_si256`
    // has no alignment requirement; AVX2 is enabled for this function.
    unsafe { _mm256_loadu_si256(lane.as_ptr().cast::<__m256i>()) }
}

/// The five class vectors of one 32-byte lane (0xff where a byte is in the
/// class): quote, backslash, op, ws, ctrl. `ws` and `op` by table lookup
/// ([`WS`], [`OP`]).
#[target_feature(enable = "avx2")]
#[inline]
fn classes(v: __m256i, ws_table: __m256i, op_table: __m256i) -> [__m256i; 5] {
    let eq = |c: u8| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8));
    // Unsigned v <= 0x1f: min(v, 0x1f) == v.
    let ctrl = _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0x1f)), v);
    let ws = _mm256_cmpeq_epi8(v, _mm256_shuffle_epi8(ws_table, v));
    let folded = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
    let op = _mm256_cmpeq_epi8(folded, _mm256_shuffle_epi8(op_table, v));
    [eq(b'"'), eq(b'\\'), _mm256_andnot_si256(ctrl, op), ws, ctrl]
}

/// One 64-bit mask from the class vectors of the low and high lanes.
#[target_feature(enable = "avx2")]
#[inline]
fn mask(lo: __m256i, hi: __m256i) -> u64 {
    let lo = _mm256_movemask_epi8(lo) as u32 as u64;
    let hi = _mm256_movemask_epi8(hi) as u32 as u64;
    lo | hi << 32
}

/// A 16-entry table in both 128-bit halves, for `_mm256_shuffle_epi8`.
#[target_feature(enable = "avx2")]
#[inline]
fn table(t: [u8; 16]) -> __m256i {
    let t = t.map(|b| b as i8);
    _mm256_setr_epi8(
        t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11], t[12], t[13],
        t[14], t[15], t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11],
        t[12], t[13], t[14], t[15],
    )
}

/// Nonzero bytes where `v` (with the 32 bytes before it in `prev`) is not
/// valid UTF-8: a wrong byte pair, or a multi-byte sequence of the wrong
/// length. A sequence cut off by the end of `v` is judged with the next lane.
#[target_feature(enable = "avx2")]
#[inline]
fn utf8_errors(v: __m256i, prev: __m256i) -> __m256i {
    let shifted = _mm256_permute2x128_si256::<0x21>(prev, v);
    let prev1 = _mm256_alignr_epi8::<15>(v, shifted);
    let prev2 = _mm256_alignr_epi8::<14>(v, shifted);
    let prev3 = _mm256_alignr_epi8::<13>(v, shifted);
    let low = _mm256_set1_epi8(0x0f);
    let high_nibble = |x: __m256i| _mm256_and_si256(_mm256_srli_epi16::<4>(x), low);
    let byte_1_high = _mm256_shuffle_epi8(table(BYTE_1_HIGH), high_nibble(prev1));
    let byte_1_low = _mm256_shuffle_epi8(table(BYTE_1_LOW), _mm256_and_si256(prev1, low));
    let byte_2_high = _mm256_shuffle_epi8(table(BYTE_2_HIGH), high_nibble(v));
    let special = _mm256_and_si256(_mm256_and_si256(byte_1_high, byte_1_low), byte_2_high);
    // Third and fourth bytes of a sequence must be continuations (0x80 set
    // in `special` for them), and nothing else may be one after the second.
    let third = _mm256_subs_epu8(prev2, _mm256_set1_epi8((0xe0u8 - 0x80) as i8));
    let fourth = _mm256_subs_epu8(prev3, _mm256_set1_epi8((0xf0u8 - 0x80) as i8));
    let must_be_2_3_continuation = _mm256_and_si256(
        _mm256_or_si256(third, fourth),
        _mm256_set1_epi8(0x80u8 as i8),
    );
    _mm256_xor_si256(must_be_2_3_continuation, special)
}

/// [`super::Classifier`] with two 32-byte AVX2 lanes per block, with the
/// UTF-8 check. Each block's high lane is the look-back of the next.
///
/// # Safety
/// The CPU must support AVX2 ([`available`]).
#[target_feature(enable = "avx2")]
pub(super) unsafe fn classify(blocks: &[Block], prev: &Block, out: &mut [Masks]) -> bool {
    let (ws, op) = (table(WS), table(OP));
    let mut prev = load(prev, 32);
    let mut errors = _mm256_setzero_si256();
    for (block, m) in blocks.iter().zip(out) {
        let (lo, hi) = (load(block, 0), load(block, 32));
        let ([q0, b0, o0, w0, c0], [q1, b1, o1, w1, c1]) =
            (classes(lo, ws, op), classes(hi, ws, op));
        *m = Masks {
            quote: mask(q0, q1),
            backslash: mask(b0, b1),
            op: mask(o0, o1),
            ws: mask(w0, w1),
            ctrl: mask(c0, c1),
        };
        // All ASCII, and the previous block ended in ASCII: nothing to check.
        let high = _mm256_movemask_epi8(_mm256_or_si256(lo, hi)) != 0;
        if high || (_mm256_movemask_epi8(prev) as u32) >> 29 != 0 {
            errors = _mm256_or_si256(errors, utf8_errors(lo, prev));
            errors = _mm256_or_si256(errors, utf8_errors(hi, lo));
        }
        prev = hi;
    }
    _mm256_testz_si256(errors, errors) == 0
}
