//! The AVX2 block classifier (32-byte lanes), used when CPUID reports AVX2
//! and the operating system saves the YMM registers; detected once without
//! `std` and cached, as `sha256::shani` does for SHA-NI.

use super::Masks;
use core::arch::x86_64::{
    __cpuid, __cpuid_count, __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_min_epu8,
    _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8, _xgetbv,
};
use core::sync::atomic::{AtomicU8, Ordering};

/// Cached detection result: 0 = not yet known, 1 = absent, 2 = present.
static AVX2: AtomicU8 = AtomicU8::new(0);

/// CPUID leaf 7 EBX bit 5 (AVX2), leaf 1 ECX bits 27 (OSXSAVE) and 28 (AVX),
/// and XCR0 bits 1 and 2 (the OS saves XMM and YMM state).
fn detect() -> bool {
    // `__cpuid` / `__cpuid_count` are `unsafe fn` on older toolchains.
    #[allow(unused_unsafe)]
    // SAFETY: CPUID exists on every x86_64 processor and only reads identification
    // registers; leaf 0 reports the highest leaf, and leaf 7 is read only if it exists.
    let (leaf1_ecx, leaf7_ebx) = unsafe {
        if __cpuid(0).eax < 7 {
            return false;
        }
        (__cpuid(1).ecx, __cpuid_count(7, 0).ebx)
    };
    let osxsave = leaf1_ecx & (1 << 27) != 0;
    let avx = leaf1_ecx & (1 << 28) != 0;
    if !(osxsave && avx && leaf7_ebx & (1 << 5) != 0) {
        return false;
    }
    // SAFETY: OSXSAVE (checked above) means the OS enabled XGETBV, and
    // register 0 (XCR0) always exists when it is.
    let xcr0 = unsafe { xcr0() };
    xcr0 & 0b110 == 0b110
}

/// Reads XCR0.
///
/// # Safety
/// The CPU must report OSXSAVE (CPUID leaf 1 ECX bit 27).
#[target_feature(enable = "xsave")]
unsafe fn xcr0() -> u64 {
    // SAFETY: the caller guarantees OSXSAVE, so XGETBV does not fault, and
    // XCR0 (register 0) exists whenever XGETBV does.
    unsafe { _xgetbv(0) }
}

/// Whether this CPU supports the AVX2 path (detected once, then cached).
#[inline]
pub(super) fn available() -> bool {
    match AVX2.load(Ordering::Relaxed) {
        2 => true,
        1 => false,
        _ => {
            let present = detect();
            AVX2.store(if present { 2 } else { 1 }, Ordering::Relaxed);
            present
        }
    }
}

/// [`super::Masks`] of 32 bytes at `lane`, as the low 32 bits of each field.
#[target_feature(enable = "avx2")]
#[inline]
fn lane(block: &[u8; 64], lane: usize) -> [u32; 5] {
    let chunk = &block[lane * 32..lane * 32 + 32];
    // SAFETY: `chunk` holds exactly 32 readable bytes and `_mm256_loadu_si256`
    // has no alignment requirement; AVX2 is enabled for this function.
    let v = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast::<__m256i>()) };
    let eq = |c: u8| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8));
    let bits = |m: __m256i| _mm256_movemask_epi8(m) as u32;
    // `[`/`{` and `]`/`}` differ only in bit 0x20.
    let folded = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
    let brackets = _mm256_or_si256(
        _mm256_cmpeq_epi8(folded, _mm256_set1_epi8(b'{' as i8)),
        _mm256_cmpeq_epi8(folded, _mm256_set1_epi8(b'}' as i8)),
    );
    let op = _mm256_or_si256(brackets, _mm256_or_si256(eq(b','), eq(b':')));
    let ws = _mm256_or_si256(
        _mm256_or_si256(eq(b' '), eq(b'\t')),
        _mm256_or_si256(eq(b'\n'), eq(b'\r')),
    );
    // Unsigned v <= 0x1f: min(v, 0x1f) == v.
    let ctrl = _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0x1f)), v);
    [
        bits(eq(b'"')),
        bits(eq(b'\\')),
        bits(op),
        bits(ws),
        bits(ctrl),
    ]
}

/// [`super::Classify`] with two 32-byte AVX2 lanes.
///
/// # Safety
/// The CPU must support AVX2 ([`available`]).
#[target_feature(enable = "avx2")]
pub(super) unsafe fn classify(block: &[u8; 64]) -> Masks {
    let (lo, hi) = (lane(block, 0), lane(block, 1));
    let mut out = [0u64; 5];
    for i in 0..5 {
        out[i] = lo[i] as u64 | (hi[i] as u64) << 32;
    }
    Masks::from_array(out)
}
