//! The SHA-NI compression function for `x86_64` (detected by [`crate::cpu`]).
//!
//! The SHA extensions keep the state as two vectors, ABEF and CDGH (A in the highest
//! lane). `sha256rnds2` runs two rounds, `sha256msg1` / `sha256msg2` extend the message
//! schedule four words at a time.
//!
//! [`compress`] hashes one message; [`compress2`] advances two independent messages in
//! one loop (two message schedules, two states), [`compress4`] four. One stream is
//! bound by the latency of `sha256rnds2` (each depends on the previous); the streams'
//! chains are independent, so the core overlaps them and a pair of blocks costs little
//! more than one. Four streams keep an AMD Zen 4's SHA unit busier still (it starts a
//! `sha256rnds2` every cycle, with a latency of four); `sha256::many` uses them there.
//! The round code is written once ([`block_rounds!`]) for any number of streams, and
//! the multi-stream kernels are built twice, for SSE4.1 and with AVX-512 VL, whose
//! extra registers spare them the stack ([`two_builds!`]).

use crate::cpu::Detected;
use core::arch::x86_64::{
    __m128i, _mm_add_epi32, _mm_alignr_epi8, _mm_blend_epi16, _mm_loadu_si128, _mm_set_epi64x,
    _mm_sha256msg1_epu32, _mm_sha256msg2_epu32, _mm_sha256rnds2_epu32, _mm_shuffle_epi32,
    _mm_shuffle_epi8, _mm_storeu_si128,
};

use super::{BLOCK_LEN, K};

/// SHA (CPUID leaf 7 EBX bit 29), SSSE3 and SSE4.1 (leaf 1 ECX bits 9 and 19).
static SHANI: Detected = Detected::new();

/// Whether this CPU supports the SHA-NI path (detected once, then cached).
#[inline]
pub(super) fn available() -> bool {
    SHANI.get(|f| f.has(1 << 9 | 1 << 19, 1 << 29))
}

/// AVX-512 VL with the OS's support ([`crate::cpu::avx512_vl`]).
static WIDE_REGISTERS: Detected = Detected::new();

/// Whether the multi-stream kernels run in their AVX-512 VL build (see
/// [`two_builds!`]): detected once, then cached.
#[inline]
pub(super) fn wide_registers() -> bool {
    WIDE_REGISTERS.get(crate::cpu::avx512_vl)
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

/// Four rounds for each stream: schedule words `$m` (W[t..t + 4]), constant group `$k`.
/// The streams' first halves are issued before their second halves, so the independent
/// `sha256rnds2` chains interleave.
macro_rules! four_rounds {
    ($k:expr; $(($abef:ident, $cdgh:ident, $m:ident, $wk:ident)),+) => {
        let k = _mm_loadu_si128(K4[$k].as_ptr().cast::<__m128i>());
        $(
            let $wk = _mm_add_epi32($m, k);
            $cdgh = _mm_sha256rnds2_epu32($cdgh, $abef, $wk);
        )+
        $(
            $abef = _mm_sha256rnds2_epu32($abef, $cdgh, _mm_shuffle_epi32($wk, 0x0e));
        )+
    };
}

/// W[t..t + 4] from the previous 16 words, for each stream: `$m0` holds W[t - 16..t - 12]
/// and is overwritten, `$m1`, `$m2`, `$m3` the following groups.
macro_rules! schedule {
    ($(($m0:ident, $m1:ident, $m2:ident, $m3:ident)),+) => {
        $(
            let s0 = _mm_sha256msg1_epu32($m0, $m1);
            let w7 = _mm_alignr_epi8($m3, $m2, 4);
            $m0 = _mm_sha256msg2_epu32(_mm_add_epi32(s0, w7), $m3);
        )+
    };
}

/// Sixteen rounds for each stream `(abef, cdgh, m0, m1, m2, m3, wk)` from constant group
/// `$k`: the schedule is extended four words at a time, each group just before it is used.
macro_rules! sixteen_rounds {
    ($k:expr; $(($abef:ident, $cdgh:ident, $m0:ident, $m1:ident, $m2:ident, $m3:ident, $wk:ident)),+) => {
        schedule!($(($m0, $m1, $m2, $m3)),+);
        four_rounds!($k; $(($abef, $cdgh, $m0, $wk)),+);
        schedule!($(($m1, $m2, $m3, $m0)),+);
        four_rounds!($k + 1; $(($abef, $cdgh, $m1, $wk)),+);
        schedule!($(($m2, $m3, $m0, $m1)),+);
        four_rounds!($k + 2; $(($abef, $cdgh, $m2, $wk)),+);
        schedule!($(($m3, $m0, $m1, $m2)),+);
        four_rounds!($k + 3; $(($abef, $cdgh, $m3, $wk)),+);
    };
}

/// The 64 rounds of one block for each stream `(abef, cdgh, m0, m1, m2, m3, wk)`, where
/// `m0..m3` hold the block's byte-swapped words and `wk` is a scratch name. Fully
/// unrolled: every constant group index is a literal.
macro_rules! block_rounds {
    ($(($abef:ident, $cdgh:ident, $m0:ident, $m1:ident, $m2:ident, $m3:ident, $wk:ident)),+) => {
        four_rounds!(0; $(($abef, $cdgh, $m0, $wk)),+);
        four_rounds!(1; $(($abef, $cdgh, $m1, $wk)),+);
        four_rounds!(2; $(($abef, $cdgh, $m2, $wk)),+);
        four_rounds!(3; $(($abef, $cdgh, $m3, $wk)),+);
        sixteen_rounds!(4; $(($abef, $cdgh, $m0, $m1, $m2, $m3, $wk)),+);
        sixteen_rounds!(8; $(($abef, $cdgh, $m0, $m1, $m2, $m3, $wk)),+);
        sixteen_rounds!(12; $(($abef, $cdgh, $m0, $m1, $m2, $m3, $wk)),+);
    };
}

/// Loads `[A..D], [E..H]` from `$state` (a `*const __m128i` to eight words) as
/// `(ABEF, CDGH)`.
macro_rules! load_state {
    ($state:expr) => {{
        let abcd = _mm_loadu_si128($state);
        let efgh = _mm_loadu_si128($state.add(1));
        let badc = _mm_shuffle_epi32(abcd, 0xb1);
        let hgfe = _mm_shuffle_epi32(efgh, 0x1b);
        // lanes [F, E, B, A] and [H, G, D, C]
        (
            _mm_alignr_epi8(badc, hgfe, 8),
            _mm_blend_epi16(hgfe, badc, 0xf0),
        )
    }};
}

/// Stores `$abef`, `$cdgh` back to `$state` as `[A..D], [E..H]`.
macro_rules! store_state {
    ($state:expr, $abef:expr, $cdgh:expr) => {
        let abef_r = _mm_shuffle_epi32($abef, 0x1b); // lanes [A, B, E, F]
        let ghcd = _mm_shuffle_epi32($cdgh, 0xb1); // lanes [G, H, C, D]
        _mm_storeu_si128($state, _mm_blend_epi16(abef_r, ghcd, 0xf0));
        _mm_storeu_si128($state.add(1), _mm_alignr_epi8(ghcd, abef_r, 8));
    };
}

/// Byte swap within each 32-bit lane (the message words are big-endian).
macro_rules! bswap_mask {
    () => {
        _mm_set_epi64x(0x0c0d_0e0f_0809_0a0b, 0x0405_0607_0001_0203)
    };
}

/// The four byte-swapped message vectors of the 64-byte block at `$p`
/// (a `*const __m128i`).
macro_rules! load_block {
    ($p:expr, $bswap:expr) => {
        (
            _mm_shuffle_epi8(_mm_loadu_si128($p), $bswap),
            _mm_shuffle_epi8(_mm_loadu_si128($p.add(1)), $bswap),
            _mm_shuffle_epi8(_mm_loadu_si128($p.add(2)), $bswap),
            _mm_shuffle_epi8(_mm_loadu_si128($p.add(3)), $bswap),
        )
    };
}

/// Compresses every whole 64-byte block of `blocks` into `state` (a trailing partial
/// block is ignored).
///
/// # Safety
///
/// The CPU must support SHA, SSE2, SSSE3 and SSE4.1 (see [`available`]).
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
pub(super) unsafe fn compress(state: &mut [u32; 8], blocks: &[u8]) {
    let state_ptr = state.as_mut_ptr().cast::<__m128i>();
    // SAFETY: the caller guarantees the CPU features this function is compiled for.
    // Every pointer read or written below is in bounds: `state` holds two 16-byte
    // vectors, `K4[k]` (k < 16) one, and each block is a whole 64-byte chunk of
    // `blocks` read as four 16-byte vectors. All accesses are unaligned loads/stores.
    unsafe {
        let bswap = bswap_mask!();
        let (mut abef, mut cdgh) = load_state!(state_ptr);
        for block in blocks.chunks_exact(BLOCK_LEN) {
            let (abef_in, cdgh_in) = (abef, cdgh);
            let (mut m0, mut m1, mut m2, mut m3) =
                load_block!(block.as_ptr().cast::<__m128i>(), bswap);
            block_rounds!((abef, cdgh, m0, m1, m2, m3, wk));
            abef = _mm_add_epi32(abef, abef_in);
            cdgh = _mm_add_epi32(cdgh, cdgh_in);
        }
        store_state!(state_ptr, abef, cdgh);
    }
}

/// Defines a multi-stream kernel twice, from one body: `$sse` for the SSE4.1
/// baseline and `$vl` with AVX-512 VL as well, then `$name`, which runs the
/// second where [`wide_registers`] says the CPU can. The SHA instructions have
/// no VEX or EVEX form, so they reach only XMM0-15; two streams' state and
/// schedule (14 vectors, and the saved states) and four streams' (28) do not
/// fit there. With VL the compiler keeps the rest in XMM16-31 (the adds,
/// shuffles and moves between SHA instructions take EVEX forms) instead of
/// spilling to the stack: on Zen 4, four streams' loop went from 354 stack
/// accesses and 1,092 instructions per four blocks to 82 and 913, and hashes
/// about 13% faster (docs/PERFORMANCE.md, "Wide registers").
macro_rules! two_builds {
    (
        $(#[$doc:meta])*
        fn $name:ident / $sse:ident / $vl:ident ($($arg:ident: $ty:ty),* $(,)?) $body:block
    ) => {
        $(#[$doc])*
        ///
        /// # Safety
        ///
        /// The CPU must support SHA, SSE2, SSSE3 and SSE4.1 (see [`available`]).
        pub(super) unsafe fn $name($($arg: $ty),*) {
            if wide_registers() {
                // SAFETY: the caller guarantees SHA, SSE2, SSSE3 and SSE4.1;
                // `wide_registers` has just reported AVX-512 F and VL with the
                // OS's support, the rest of what `$vl` is compiled for.
                unsafe { $vl($($arg),*) }
            } else {
                // SAFETY: the caller guarantees the CPU features `$sse` is
                // compiled for.
                unsafe { $sse($($arg),*) }
            }
        }

        /// The SSE4.1 build of the kernel named in the macro call.
        ///
        /// # Safety
        ///
        /// The CPU must support SHA, SSE2, SSSE3 and SSE4.1.
        #[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
        pub(super) unsafe fn $sse($($arg: $ty),*) $body

        /// The AVX-512 VL build of the kernel named in the macro call.
        ///
        /// # Safety
        ///
        /// The CPU must support SHA, SSE2, SSSE3, SSE4.1, AVX-512 F and VL, and
        /// the OS must save the AVX-512 state (see [`wide_registers`]).
        #[target_feature(enable = "sha,sse2,ssse3,sse4.1,avx512f,avx512vl")]
        pub(super) unsafe fn $vl($($arg: $ty),*) $body
    };
}

two_builds! {
/// Compresses two independent messages side by side: the i-th whole block of `blocks_a`
/// into `state_a` together with the i-th whole block of `blocks_b` into `state_b`, for as
/// many blocks as the shorter slice has (the caller passes equal whole-block counts;
/// anything beyond the shorter one is ignored). Same result as [`compress`] on each.
fn compress2 / compress2_sse / compress2_vl(
    state_a: &mut [u32; 8],
    blocks_a: &[u8],
    state_b: &mut [u32; 8],
    blocks_b: &[u8],
) {
    let ptr_a = state_a.as_mut_ptr().cast::<__m128i>();
    let ptr_b = state_b.as_mut_ptr().cast::<__m128i>();
    // SAFETY: the caller guarantees the CPU features this function is compiled for.
    // `state_a` and `state_b` are distinct `&mut` arrays of two 16-byte vectors each;
    // `K4[k]` (k < 16) is one vector; each block is a whole 64-byte chunk of its slice,
    // read as four 16-byte vectors. All accesses are unaligned loads/stores in bounds.
    unsafe {
        let bswap = bswap_mask!();
        let (mut abef_a, mut cdgh_a) = load_state!(ptr_a);
        let (mut abef_b, mut cdgh_b) = load_state!(ptr_b);
        let pairs = blocks_a
            .chunks_exact(BLOCK_LEN)
            .zip(blocks_b.chunks_exact(BLOCK_LEN));
        for (block_a, block_b) in pairs {
            let (abef_a_in, cdgh_a_in) = (abef_a, cdgh_a);
            let (abef_b_in, cdgh_b_in) = (abef_b, cdgh_b);
            let (mut a0, mut a1, mut a2, mut a3) =
                load_block!(block_a.as_ptr().cast::<__m128i>(), bswap);
            let (mut b0, mut b1, mut b2, mut b3) =
                load_block!(block_b.as_ptr().cast::<__m128i>(), bswap);
            block_rounds!(
                (abef_a, cdgh_a, a0, a1, a2, a3, wka),
                (abef_b, cdgh_b, b0, b1, b2, b3, wkb)
            );
            abef_a = _mm_add_epi32(abef_a, abef_a_in);
            cdgh_a = _mm_add_epi32(cdgh_a, cdgh_a_in);
            abef_b = _mm_add_epi32(abef_b, abef_b_in);
            cdgh_b = _mm_add_epi32(cdgh_b, cdgh_b_in);
        }
        store_state!(ptr_a, abef_a, cdgh_a);
        store_state!(ptr_b, abef_b, cdgh_b);
    }
}
}

two_builds! {
/// Compresses four independent messages side by side, as [`compress2`] does two: the
/// i-th whole block of each `blocks[s]` into `states[s]`, for as many blocks as the
/// shortest slice has. Same result as [`compress`] on each.
fn compress4 / compress4_sse / compress4_vl(states: [&mut [u32; 8]; 4], blocks: [&[u8]; 4]) {
    let ptr = states.map(|s| s.as_mut_ptr().cast::<__m128i>());
    let n = blocks
        .iter()
        .map(|b| b.len() / BLOCK_LEN)
        .min()
        .unwrap_or(0);
    // SAFETY: the caller guarantees the CPU features this function is compiled for.
    // The four states are distinct `&mut` arrays of two 16-byte vectors each; `K4[k]`
    // (k < 16) is one vector; block `i < n` of each slice is 64 bytes in bounds (every
    // slice holds at least `n` whole blocks), read as four 16-byte vectors. All
    // accesses are unaligned loads/stores.
    unsafe {
        let bswap = bswap_mask!();
        let (mut abef_a, mut cdgh_a) = load_state!(ptr[0]);
        let (mut abef_b, mut cdgh_b) = load_state!(ptr[1]);
        let (mut abef_c, mut cdgh_c) = load_state!(ptr[2]);
        let (mut abef_d, mut cdgh_d) = load_state!(ptr[3]);
        let at = blocks.map(|b| b.as_ptr().cast::<__m128i>());
        for i in 0..n {
            let ins = [
                abef_a, cdgh_a, abef_b, cdgh_b, abef_c, cdgh_c, abef_d, cdgh_d,
            ];
            let (mut a0, mut a1, mut a2, mut a3) = load_block!(at[0].add(4 * i), bswap);
            let (mut b0, mut b1, mut b2, mut b3) = load_block!(at[1].add(4 * i), bswap);
            let (mut c0, mut c1, mut c2, mut c3) = load_block!(at[2].add(4 * i), bswap);
            let (mut d0, mut d1, mut d2, mut d3) = load_block!(at[3].add(4 * i), bswap);
            block_rounds!(
                (abef_a, cdgh_a, a0, a1, a2, a3, wka),
                (abef_b, cdgh_b, b0, b1, b2, b3, wkb),
                (abef_c, cdgh_c, c0, c1, c2, c3, wkc),
                (abef_d, cdgh_d, d0, d1, d2, d3, wkd)
            );
            abef_a = _mm_add_epi32(abef_a, ins[0]);
            cdgh_a = _mm_add_epi32(cdgh_a, ins[1]);
            abef_b = _mm_add_epi32(abef_b, ins[2]);
            cdgh_b = _mm_add_epi32(cdgh_b, ins[3]);
            abef_c = _mm_add_epi32(abef_c, ins[4]);
            cdgh_c = _mm_add_epi32(cdgh_c, ins[5]);
            abef_d = _mm_add_epi32(abef_d, ins[6]);
            cdgh_d = _mm_add_epi32(cdgh_d, ins[7]);
        }
        store_state!(ptr[0], abef_a, cdgh_a);
        store_state!(ptr[1], abef_b, cdgh_b);
        store_state!(ptr[2], abef_c, cdgh_c);
        store_state!(ptr[3], abef_d, cdgh_d);
    }
}
}

/// The four-stream kernel of `sha256::many`; only [`ShaNi4::detect`] makes one, so
/// holding one proves the CPU has SHA-NI.
pub(crate) struct ShaNi4(());

impl ShaNi4 {
    /// The kernel, when this CPU supports SHA-NI.
    pub(crate) fn detect() -> Option<ShaNi4> {
        available().then_some(ShaNi4(()))
    }

    /// Four messages side by side: [`compress4`], safely.
    pub(crate) fn compress4(&self, states: [&mut [u32; 8]; 4], blocks: [&[u8]; 4]) {
        // SAFETY: a `ShaNi4` exists only after `available()` reported SHA-NI.
        unsafe { compress4(states, blocks) }
    }
}
