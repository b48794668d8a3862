//! The SSE2 back end (part of the `x86_64` baseline, so it needs no detection):
//! 16-byte class searches and the 16-byte-lane block classifier.

use super::{Class, Masks};
use core::arch::x86_64::{
    __m128i, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8,
    _mm_or_si128, _mm_set1_epi8,
};

/// This back end's name in the tests' lists.
#[cfg(test)]
pub(super) const NAME: &str = "sse2";

/// [`super::skip_blocks`] with 16-byte SSE2 compares.
#[inline(always)]
pub(super) fn skip(input: &[u8], mut pos: usize, class: Class) -> usize {
    while pos + 16 <= input.len() {
        let chunk = &input[pos..pos + 16];
        // `unsafe` is needed on toolchains where the SSE2 intrinsics are unsafe fns.
        #[allow(unused_unsafe)]
        // SAFETY: SSE2 is always available on x86_64; `chunk` holds exactly
        // 16 readable bytes, and `_mm_loadu_si128` has no alignment requirement.
        let mask = unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
            match class {
                Class::Backslash => _mm_movemask_epi8(backslash),
                Class::QuoteOrBackslash => {
                    let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
                    _mm_movemask_epi8(_mm_or_si128(quote, backslash))
                }
                Class::StringSpecial => {
                    let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
                    // Signed compare: 0x00..0x1f and 0x80..0xff are both "below 0x20".
                    let low_or_high = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
                    _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), low_or_high))
                }
            }
        };
        if mask != 0 {
            return pos + mask.trailing_zeros() as usize;
        }
        pos += 16;
    }
    pos
}

/// [`super::Masks`] of 16 bytes at `lane`, as the low 16 bits of each field.
#[inline(always)]
fn lane(block: &[u8; 64], lane: usize) -> [u32; 5] {
    let chunk = &block[lane * 16..lane * 16 + 16];
    #[allow(unused_unsafe)]
    // SAFETY: SSE2 is always available on x86_64; `chunk` holds exactly 16
    // readable bytes, and `_mm_loadu_si128` has no alignment requirement.
    unsafe {
        let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
        let eq = |c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
        let bits = |m: __m128i| _mm_movemask_epi8(m) as u32;
        // `[`/`{` and `]`/`}` differ only in bit 0x20.
        let folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
        let brackets = _mm_or_si128(
            _mm_cmpeq_epi8(folded, _mm_set1_epi8(b'{' as i8)),
            _mm_cmpeq_epi8(folded, _mm_set1_epi8(b'}' as i8)),
        );
        let op = _mm_or_si128(brackets, _mm_or_si128(eq(b','), eq(b':')));
        let ws = _mm_or_si128(
            _mm_or_si128(eq(b' '), eq(b'\t')),
            _mm_or_si128(eq(b'\n'), eq(b'\r')),
        );
        // Unsigned v <= 0x1f: min(v, 0x1f) == v.
        let ctrl = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
        [
            bits(eq(b'"')),
            bits(eq(b'\\')),
            bits(op),
            bits(ws),
            bits(ctrl),
        ]
    }
}

/// The [`Masks`] of one block (for [`super::Classifier`]), with four 16-byte SSE2 lanes.
pub(super) fn classify(block: &[u8; 64]) -> Masks {
    let mut out = [0u64; 5];
    for i in 0..4 {
        let l = lane(block, i);
        for (o, m) in out.iter_mut().zip(l) {
            *o |= (m as u64) << (16 * i);
        }
    }
    Masks::from_array(out)
}
