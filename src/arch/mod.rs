//! The one home of the crate's SIMD byte scanning (as memchr keeps its SIMD
//! in one `arch` module): find the first byte of a class, 16 bytes at a time
//! with SSE2 on `x86_64` (part of its baseline, so no detection is needed),
//! or 8 bytes at a time with a portable SWAR twin everywhere else and under
//! Miri. Both are compiled on every target so the tests compare them with a
//! naive byte loop. (SHA-NI lives in `sha256::shani`: it is a hash, not a
//! scan.)

/// A set of bytes to stop at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// `\`: the canonical writer looks for escapes.
    Backslash,
    /// `"` or `\`: the node counter skips string contents.
    QuoteOrBackslash,
    /// `"`, `\`, a byte below 0x20, or 0x80 and above: the string scanner
    /// stops at anything that is not plain ASCII text.
    StringSpecial,
}

impl Class {
    /// Whether `b` belongs to the class (the naive reference).
    #[inline(always)]
    pub(crate) fn contains(self, b: u8) -> bool {
        match self {
            Class::Backslash => b == b'\\',
            Class::QuoteOrBackslash => b == b'"' || b == b'\\',
            Class::StringSpecial => b == b'"' || b == b'\\' || !(0x20..0x80).contains(&b),
        }
    }
}

/// Skips whole blocks of bytes outside `class`, starting at `pos`: returns
/// the index of the first byte of the class found in a whole block, or a
/// position fewer than one block from the end (where no class byte was
/// seen), from which the caller continues byte by byte.
#[inline(always)]
pub(crate) fn skip_blocks(input: &[u8], pos: usize, class: Class) -> usize {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        sse2::skip(input, pos, class)
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        swar::skip(input, pos, class)
    }
}

/// Index of the first byte of `class` at or after `pos`, or `input.len()`
/// (or `pos` itself when it is already past the end).
#[inline(always)]
pub(crate) fn find(input: &[u8], pos: usize, class: Class) -> usize {
    if pos >= input.len() {
        return pos;
    }
    let pos = skip_blocks(input, pos, class);
    input[pos..]
        .iter()
        .position(|&b| class.contains(b))
        .map_or(input.len(), |i| pos + i)
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
mod sse2 {
    use super::Class;
    use core::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };

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
}

/// The portable twin: eight bytes at a time in a `u64` (SWAR).
#[cfg_attr(all(target_arch = "x86_64", not(miri), not(test)), allow(dead_code))]
mod swar {
    use super::Class;

    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;

    /// High bit set in each byte of the result where `w` has a class byte.
    /// Only the lowest flagged byte is exact (borrows can flag bytes above it).
    #[inline(always)]
    fn flags(w: u64, class: Class) -> u64 {
        let has_zero = |v: u64| v.wrapping_sub(ONES) & !v;
        let backslash = has_zero(w ^ (ONES * b'\\' as u64));
        let quote = || has_zero(w ^ (ONES * b'"' as u64));
        let bits = match class {
            Class::Backslash => backslash,
            Class::QuoteOrBackslash => backslash | quote(),
            Class::StringSpecial => backslash | quote() | w.wrapping_sub(ONES * 0x20) | w,
        };
        bits & HIGHS
    }

    /// [`super::skip_blocks`] with 8-byte words.
    #[inline(always)]
    pub(super) fn skip(input: &[u8], mut pos: usize, class: Class) -> usize {
        while pos + 8 <= input.len() {
            let mut word = [0u8; 8];
            word.copy_from_slice(&input[pos..pos + 8]);
            let mask = flags(u64::from_le_bytes(word), class);
            if mask != 0 {
                return pos + (mask.trailing_zeros() / 8) as usize;
            }
            pos += 8;
        }
        pos
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The naive reference: the first class byte at or after `pos`.
    fn naive(input: &[u8], pos: usize, class: Class) -> usize {
        (pos..input.len())
            .find(|&i| class.contains(input[i]))
            .unwrap_or(input.len())
    }

    /// Finishes a block skip byte by byte, as every caller does.
    fn finish(input: &[u8], mut pos: usize, class: Class) -> usize {
        while pos < input.len() && !class.contains(input[pos]) {
            pos += 1;
        }
        pos
    }

    #[test]
    fn every_path_agrees_with_the_naive_loop() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let specials = [b'"', b'\\', 0x00, 0x1f, 0x20, 0x7f, 0x80, 0xff, b'a'];
        for _ in 0..20_000 {
            let len = (next() % 70) as usize;
            let input: std::vec::Vec<u8> = (0..len)
                .map(|_| {
                    if next() % 9 == 0 {
                        specials[(next() % specials.len() as u64) as usize]
                    } else {
                        b'a' + (next() % 26) as u8
                    }
                })
                .collect();
            let pos = if len == 0 {
                0
            } else {
                (next() as usize) % (len + 1)
            };
            for class in [
                Class::Backslash,
                Class::QuoteOrBackslash,
                Class::StringSpecial,
            ] {
                let want = naive(&input, pos, class);
                assert_eq!(find(&input, pos, class), want, "{input:?} {pos} {class:?}");
                assert_eq!(finish(&input, swar::skip(&input, pos, class), class), want);
                #[cfg(all(target_arch = "x86_64", not(miri)))]
                assert_eq!(finish(&input, sse2::skip(&input, pos, class), class), want);
            }
        }
    }
}
