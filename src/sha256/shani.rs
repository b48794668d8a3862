//! The SHA-NI compression function for `x86_64`, and CPUID detection without `std`.
//!
//! The SHA extensions keep the state as two vectors, ABEF and CDGH (A in the highest
//! lane). `sha256rnds2` runs two rounds, `sha256msg1` / `sha256msg2` extend the message
//! schedule four words at a time.

use core::arch::x86_64::{
    __cpuid, __cpuid_count, __m128i, _mm_add_epi32, _mm_alignr_epi8, _mm_blend_epi16,
    _mm_loadu_si128, _mm_set_epi64x, _mm_sha256msg1_epu32, _mm_sha256msg2_epu32,
    _mm_sha256rnds2_epu32, _mm_shuffle_epi32, _mm_shuffle_epi8, _mm_storeu_si128,
};
use core::sync::atomic::{AtomicU8, Ordering};

use super::{BLOCK_LEN, K};

/// Cached detection result: 0 = not yet known, 1 = absent, 2 = present.
static SHANI: AtomicU8 = AtomicU8::new(0);

/// Reads CPUID: leaf 7 EBX bit 29 (SHA), leaf 1 ECX bit 9 (SSSE3) and bit 19 (SSE4.1).
fn detect() -> bool {
    // `__cpuid` / `__cpuid_count` are `unsafe fn` on older toolchains and safe on newer
    // ones; the allow keeps both quiet.
    #[allow(unused_unsafe)]
    // SAFETY: CPUID exists on every x86_64 processor and only reads identification
    // registers; leaf 0 reports the highest leaf, and leaf 7 is read only if it exists.
    let (leaf1_ecx, leaf7_ebx) = unsafe {
        let max_leaf = __cpuid(0).eax;
        if max_leaf < 7 {
            return false;
        }
        (__cpuid(1).ecx, __cpuid_count(7, 0).ebx)
    };
    let ssse3 = leaf1_ecx & (1 << 9) != 0;
    let sse41 = leaf1_ecx & (1 << 19) != 0;
    let sha = leaf7_ebx & (1 << 29) != 0;
    ssse3 && sse41 && sha
}

/// Whether this CPU supports the SHA-NI path (detected once, then cached).
#[inline]
pub(super) fn available() -> bool {
    match SHANI.load(Ordering::Relaxed) {
        2 => true,
        1 => false,
        _ => {
            let present = detect();
            SHANI.store(if present { 2 } else { 1 }, Ordering::Relaxed);
            present
        }
    }
}

/// The round constants grouped by four, one vector load per group.
static K4: [[u32; 4]; 16] = {
    let mut out = [[0u32; 4]; 16];
    let mut i = 0;
    while i < 64 {
        out[i / 4][i % 4] = K[i];
        i += 1;
    }
    out
};

/// Compresses every whole 64-byte block of `blocks` into `state` (a trailing partial
/// block is ignored).
///
/// # Safety
///
/// The CPU must support SHA, SSE2, SSSE3 and SSE4.1 (see [`available`]).
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
pub(super) unsafe fn compress(state: &mut [u32; 8], blocks: &[u8]) {
    // Four rounds with the schedule words `$m` (W[t..t + 4]) and constant group `$k`.
    macro_rules! four_rounds {
        ($abef:ident, $cdgh:ident, $m:expr, $k:expr) => {
            let wk = _mm_add_epi32($m, _mm_loadu_si128(K4[$k].as_ptr().cast::<__m128i>()));
            $cdgh = _mm_sha256rnds2_epu32($cdgh, $abef, wk);
            $abef = _mm_sha256rnds2_epu32($abef, $cdgh, _mm_shuffle_epi32(wk, 0x0e));
        };
    }
    // W[t..t + 4] from the previous 16 words: `$m0` holds W[t - 16..t - 12] and is
    // overwritten, `$m1`, `$m2`, `$m3` the following groups.
    macro_rules! schedule {
        ($m0:ident, $m1:ident, $m2:ident, $m3:ident) => {
            let s0 = _mm_sha256msg1_epu32($m0, $m1);
            let w7 = _mm_alignr_epi8($m3, $m2, 4);
            $m0 = _mm_sha256msg2_epu32(_mm_add_epi32(s0, w7), $m3);
        };
    }
    // Sixteen rounds: extend the schedule by four groups, each just before it is used.
    macro_rules! sixteen_rounds {
        ($abef:ident, $cdgh:ident, $m0:ident, $m1:ident, $m2:ident, $m3:ident, $k:expr) => {
            schedule!($m0, $m1, $m2, $m3);
            four_rounds!($abef, $cdgh, $m0, $k);
            schedule!($m1, $m2, $m3, $m0);
            four_rounds!($abef, $cdgh, $m1, $k + 1);
            schedule!($m2, $m3, $m0, $m1);
            four_rounds!($abef, $cdgh, $m2, $k + 2);
            schedule!($m3, $m0, $m1, $m2);
            four_rounds!($abef, $cdgh, $m3, $k + 3);
        };
    }

    let state_ptr = state.as_mut_ptr().cast::<__m128i>();
    // SAFETY: the caller guarantees the CPU features this function is compiled for.
    // Every pointer read or written below is in bounds: `state` holds two 16-byte
    // vectors, `K4[k]` (k < 16) one, and each block is a whole 64-byte chunk of
    // `blocks` read as four 16-byte vectors. All accesses are unaligned loads/stores.
    unsafe {
        // Byte swap within each 32-bit lane (the message words are big-endian).
        let bswap = _mm_set_epi64x(0x0c0d_0e0f_0809_0a0b, 0x0405_0607_0001_0203);

        // [A, B, C, D] and [E, F, G, H] (lane 0 first) into ABEF and CDGH.
        let abcd = _mm_loadu_si128(state_ptr);
        let efgh = _mm_loadu_si128(state_ptr.add(1));
        let badc = _mm_shuffle_epi32(abcd, 0xb1);
        let hgfe = _mm_shuffle_epi32(efgh, 0x1b);
        let mut abef = _mm_alignr_epi8(badc, hgfe, 8); // lanes [F, E, B, A]
        let mut cdgh = _mm_blend_epi16(hgfe, badc, 0xf0); // lanes [H, G, D, C]

        for block in blocks.chunks_exact(BLOCK_LEN) {
            let p = block.as_ptr().cast::<__m128i>();
            let abef_in = abef;
            let cdgh_in = cdgh;

            let mut m0 = _mm_shuffle_epi8(_mm_loadu_si128(p), bswap);
            let mut m1 = _mm_shuffle_epi8(_mm_loadu_si128(p.add(1)), bswap);
            let mut m2 = _mm_shuffle_epi8(_mm_loadu_si128(p.add(2)), bswap);
            let mut m3 = _mm_shuffle_epi8(_mm_loadu_si128(p.add(3)), bswap);

            four_rounds!(abef, cdgh, m0, 0);
            four_rounds!(abef, cdgh, m1, 1);
            four_rounds!(abef, cdgh, m2, 2);
            four_rounds!(abef, cdgh, m3, 3);
            sixteen_rounds!(abef, cdgh, m0, m1, m2, m3, 4);
            sixteen_rounds!(abef, cdgh, m0, m1, m2, m3, 8);
            sixteen_rounds!(abef, cdgh, m0, m1, m2, m3, 12);

            abef = _mm_add_epi32(abef, abef_in);
            cdgh = _mm_add_epi32(cdgh, cdgh_in);
        }

        // Back to [A, B, C, D] and [E, F, G, H].
        let abef_r = _mm_shuffle_epi32(abef, 0x1b); // lanes [A, B, E, F]
        let ghcd = _mm_shuffle_epi32(cdgh, 0xb1); // lanes [G, H, C, D]
        _mm_storeu_si128(state_ptr, _mm_blend_epi16(abef_r, ghcd, 0xf0));
        _mm_storeu_si128(state_ptr.add(1), _mm_alignr_epi8(ghcd, abef_r, 8));
    }
}
