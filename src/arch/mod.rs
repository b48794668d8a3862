//! The one home of the crate's SIMD (as memchr keeps its SIMD in one `arch`
//! module), two services:
//!
//! - find the first byte of a [`Class`], 16 bytes at a time with SSE2 on
//!   `x86_64` (part of its baseline, so no detection is needed);
//! - classify a 64-byte block into per-byte bitmasks ([`Masks`]: quotes,
//!   backslashes, structural characters, whitespace, control characters),
//!   the first step of the parser's structural index (`json::index`), a run
//!   of blocks per call: AVX-512 (F and BW) when CPUID reports it, else
//!   AVX2 (each detected once, cached; both also validate UTF-8), and SSE2
//!   otherwise.
//!
//! On (little-endian) `aarch64` both are NEON (`neon`, part of that
//! baseline, so no detection either).
//!
//! It also says whether the CPU runs code compiled for AVX2 and BMI2
//! ([`wide_scalar`]), for the one-pass canonicalizer's second build of its
//! loop (`json::onepass`), which is plain Rust with the compiler free to
//! use those instructions.
//!
//! Each has a portable SWAR twin (`u64` words), used on other targets and
//! when the crate is built with `--cfg
//! contractpin_portable_simd` (`RUSTFLAGS="--cfg contractpin_portable_simd"`,
//! as `contractpin_portable_sha256` forces the portable SHA-256). All back
//! ends are compiled wherever they can run so the tests compare them with
//! each other and with a naive byte loop. (SHA-NI lives in `sha256::shani`:
//! it is a hash, not a scan.)
//!
//! The x86 back ends run under Miri too, which interprets SSE2, AVX2 and
//! the AVX-512 instructions of the classifier (not `vpcompressb`, so not
//! `flatten`): there `crate::cpu` reports the features the build targets,
//! so a plain Miri build checks SSE2, one built with
//! `-C target-feature=+avx2,+popcnt,+bmi1` checks AVX2 and the bit-walking
//! refill of `json::index`, and one with `+avx512f,+avx512bw` as well the
//! AVX-512 classifier (`scripts/miri-core.sh`). So does NEON, in a
//! Miri build for `aarch64-unknown-linux-gnu` (Miri interprets the target's
//! code on any host; the same script's `neon` lane).

#[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
mod avx2;
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
mod avx512;
#[cfg(all(
    target_arch = "aarch64",
    target_endian = "little",
    not(contractpin_portable_simd)
))]
mod neon;
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
mod sse2;
// (Where a SIMD back end runs, its search and classifier are only the tests'
// reference; `digits_end` is used everywhere.)
#[cfg_attr(not(test), allow(dead_code))]
mod swar;

// The 16-byte back end of this build (`lanes`): the class searches, and the
// block classifier when nothing wider runs. SSE2 and NEON are part of their
// targets' baselines; elsewhere, and with the `--cfg`, the SWAR twin.
#[cfg(all(
    target_arch = "aarch64",
    target_endian = "little",
    not(contractpin_portable_simd)
))]
use neon as lanes;
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
use sse2 as lanes;
#[cfg(not(any(
    all(target_arch = "x86_64", not(contractpin_portable_simd)),
    all(
        target_arch = "aarch64",
        target_endian = "little",
        not(contractpin_portable_simd)
    )
)))]
use swar as lanes;
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
mod tables;

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
    lanes::skip(input, pos, class)
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

/// Index of the first byte at or after `pos` that is not an ASCII digit,
/// or `input.len()`: the digit runs of number tokens, eight bytes at a time
/// (SWAR on every target: runs are short, so wider registers do not pay).
#[inline(always)]
pub(crate) fn digits_end(input: &[u8], pos: usize) -> usize {
    if pos >= input.len() {
        return pos;
    }
    swar::digits_end(input, pos)
}

/// The unit of the block classifiers: 64 bytes of input.
pub(crate) type Block = [u8; 64];

/// One 64-byte block, one bit per byte (bit `i` is byte `i`) in each mask.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Masks {
    /// `"`
    pub quote: u64,
    /// `\`
    pub backslash: u64,
    /// The structural characters `{` `}` `[` `]` `,` `:`.
    pub op: u64,
    /// JSON whitespace: space, tab, line feed, carriage return.
    pub ws: u64,
    /// Bytes 0x00..=0x1f (including the whitespace controls).
    pub ctrl: u64,
}

impl Masks {
    #[inline(always)]
    fn from_array([quote, backslash, op, ws, ctrl]: [u64; 5]) -> Masks {
        Masks {
            quote,
            backslash,
            op,
            ws,
            ctrl,
        }
    }

    /// The naive reference: each byte tested on its own.
    #[cfg(test)]
    pub(crate) fn naive(block: &[u8; 64]) -> Masks {
        let mut m = Masks::default();
        for (i, &b) in block.iter().enumerate() {
            let bit = 1u64 << i;
            let set = |mask: &mut u64, on: bool| *mask |= if on { bit } else { 0 };
            set(&mut m.quote, b == b'"');
            set(&mut m.backslash, b == b'\\');
            set(
                &mut m.op,
                matches!(b, b'{' | b'}' | b'[' | b']' | b',' | b':'),
            );
            set(&mut m.ws, matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
            set(&mut m.ctrl, b < 0x20);
        }
        m
    }
}

/// A block classifier (one of the back ends): the [`Masks`] of a run of
/// consecutive blocks, given the block before the first (all zeros before
/// an input's first block).
///
/// `classify(blocks, prev, out)` writes the masks of `blocks[i]` to
/// `out[i]` (`out` is at least as long as `blocks`) and returns whether
/// the blocks, read after `prev`, are not valid UTF-8. Only a classifier
/// whose `checks_utf8` is set ever returns `true`: it flags every sequence
/// that the blocks complete or break, so over a whole input (the last
/// partial block padded with ASCII) it finds every error except a sequence
/// cut off by the very end of an input whose length is a multiple of 64
/// (which a caller excludes by requiring the last byte to be ASCII).
/// Otherwise the caller validates UTF-8 itself.
#[derive(Clone, Copy)]
pub(crate) struct Classifier {
    /// Classifies `blocks`, the blocks after `prev`, into `out`; `true`
    /// for invalid UTF-8.
    pub classify: fn(blocks: &[Block], prev: &Block, out: &mut [Masks]) -> bool,
    /// Whether invalid UTF-8 is reported.
    pub checks_utf8: bool,
}

/// The fastest block classifier this CPU and build allow.
#[inline]
pub(crate) fn classifier() -> Classifier {
    #[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
    {
        if avx512::available() {
            return AVX512;
        }
        if avx2::available() {
            return AVX2;
        }
    }
    LANES
}

/// Whether this CPU has POPCNT and BMI1 (detected once, then cached), for
/// code that counts and walks set bits (the structural index compiles a
/// copy of its refill with them).
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
#[inline]
pub(crate) fn bit_ops() -> bool {
    static BIT_OPS: crate::cpu::Detected = crate::cpu::Detected::new();
    BIT_OPS.get(crate::cpu::bit_ops)
}

/// Whether this CPU runs code compiled for AVX2, BMI1, BMI2 and POPCNT
/// (detected once, then cached): the one-pass canonicalizer
/// (`json::onepass`) has a second build of its loop for such CPUs. That
/// build is the same Rust, not intrinsics: the compiler's VEX encodings,
/// flag-free shifts and 32-byte moves are what it gains (about 2% of the
/// pipeline on the AMD EPYC of docs/PERFORMANCE.md). Never on other
/// targets, or with `--cfg contractpin_portable_simd`.
#[cfg_attr(not(feature = "alloc"), allow(dead_code))]
#[inline]
pub(crate) fn wide_scalar() -> bool {
    #[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
    {
        static WIDE: crate::cpu::Detected = crate::cpu::Detected::new();
        WIDE.get(crate::cpu::avx2_bmi)
    }
    #[cfg(not(all(target_arch = "x86_64", not(contractpin_portable_simd))))]
    false
}

/// Whether [`flatten_avx512`] runs on this CPU (AVX-512 F, BW and VBMI2,
/// with POPCNT and BMI1; detected once, then cached).
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
#[inline]
pub(crate) fn flatten_avx512_available() -> bool {
    avx512::flatten_available()
}

/// Writes the positions of the set bits of `bits` (`offset` plus the bit's
/// index), in increasing order, to the start of `window` (the rest gets
/// unspecified values), without a branch: the structural index's flatten
/// with one `vpcompressb`. Its portable twin is the scalar flatten in
/// `json::index`, which the tests compare it with.
///
/// # Safety
/// [`flatten_avx512_available`] must have returned `true`.
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
#[inline(always)]
pub(crate) unsafe fn flatten_avx512(window: &mut [u32; 64], offset: u32, bits: u64) {
    // SAFETY: the caller saw `flatten_avx512_available()`, which is
    // `avx512::flatten_available()`.
    unsafe { avx512::flatten(window, offset, bits) }
}

/// Classifies each of `blocks` on its own with `one` (a back end without
/// the UTF-8 check, which needs no look-back).
#[inline(always)]
fn each(blocks: &[Block], out: &mut [Masks], one: fn(&Block) -> Masks) -> bool {
    for (block, masks) in blocks.iter().zip(out) {
        *masks = one(block);
    }
    false
}

/// The [`lanes`] back end's classifier (SSE2, NEON or SWAR).
const LANES: Classifier = Classifier {
    classify: |blocks, _, out| each(blocks, out, lanes::classify),
    checks_utf8: false,
};

/// Only [`classifier`] (after detection) and the tests (after the same
/// check) hand this one out.
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
const AVX2: Classifier = Classifier {
    classify: avx2_classify,
    checks_utf8: true,
};

/// Only [`classifier`] (after detection) and the tests (after the same
/// check) hand this one out.
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
const AVX512: Classifier = Classifier {
    classify: avx512_classify,
    checks_utf8: true,
};

/// The portable classifier, the tests' reference (where it is not [`LANES`]).
#[cfg(test)]
const SWAR: Classifier = Classifier {
    classify: |blocks, _, out| each(blocks, out, swar::classify),
    checks_utf8: false,
};

/// The AVX2 classifier behind a safe signature, reachable only through [`AVX2`].
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
fn avx2_classify(blocks: &[Block], prev: &Block, out: &mut [Masks]) -> bool {
    // SAFETY: `AVX2` is handed out only by `classifier` when
    // `avx2::available()` reported AVX2 with OS support, or by the tests
    // after the same check.
    unsafe { avx2::classify(blocks, prev, out) }
}

/// The AVX-512 classifier behind a safe signature, reachable only through
/// [`AVX512`].
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
fn avx512_classify(blocks: &[Block], prev: &Block, out: &mut [Masks]) -> bool {
    // SAFETY: `AVX512` is handed out only by `classifier` when
    // `avx512::available()` reported AVX-512 F and BW with OS support, or
    // by the tests after the same check.
    unsafe { avx512::classify(blocks, prev, out) }
}

/// Every classifier this machine can run, with a name (for the tests).
#[cfg(test)]
pub(crate) fn all_classifiers() -> std::vec::Vec<(&'static str, Classifier)> {
    let mut out = std::vec![(swar::NAME, SWAR)];
    if lanes::NAME != swar::NAME {
        out.push((lanes::NAME, LANES));
    }
    #[cfg(all(target_arch = "x86_64", not(contractpin_portable_simd)))]
    {
        if avx2::available() {
            out.push(("avx2", AVX2));
        }
        if avx512::available() {
            out.push(("avx512", AVX512));
        }
    }
    out
}

/// The classifiers the parser-level tests (`json::index`, `json::indexed`,
/// `json::onepass`) run each input through: all of them, but under Miri
/// only the widest, the one [`classifier`] picks there. `arch`'s own tests
/// hold every classifier to the naive masks, under Miri too.
#[cfg(test)]
pub(crate) fn parser_test_classifiers() -> std::vec::Vec<(&'static str, Classifier)> {
    let mut all = all_classifiers();
    if cfg!(miri) {
        all.drain(..all.len() - 1);
    }
    all
}

/// A seeded xorshift64 generator for the tests of the SIMD paths and of
/// the structural index (one generator, so both draw the same kind of input).
#[cfg(test)]
pub(crate) fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::{rounds, STEP};

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
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let specials = [b'"', b'\\', 0x00, 0x1f, 0x20, 0x7f, 0x80, 0xff, b'a'];
        for _ in 0..rounds(20_000) {
            let len = (next() % 70) as usize;
            let input: std::vec::Vec<u8> = (0..len)
                .map(|_| {
                    if next().is_multiple_of(9) {
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
                // The build's 16-byte back end (SSE2, NEON, or SWAR again).
                assert_eq!(finish(&input, lanes::skip(&input, pos, class), class), want);
            }
        }
    }

    #[test]
    fn digits_end_agrees_with_the_naive_loop() {
        // Every byte value at every position of a digit run, then random mixes.
        let naive_end = |input: &[u8], pos: usize| {
            (pos..input.len())
                .find(|&i| !input[i].is_ascii_digit())
                .unwrap_or(input.len().max(pos))
        };
        for b in (0..=255u8).step_by(STEP) {
            for at in 0..20 {
                let mut input = [b'7'; 20];
                input[at] = b;
                for pos in [0, 1, at, 19, 20, 25] {
                    assert_eq!(
                        digits_end(&input, pos),
                        naive_end(&input, pos),
                        "{b} {at} {pos}"
                    );
                }
            }
        }
        let mut next = xorshift(0x0123_4567_89ab_cdef);
        let pieces = b"0123456789/:.eE-+ \x00\xff\x30\x39";
        for _ in 0..rounds(20_000) {
            let len = (next() % 40) as usize;
            let input: std::vec::Vec<u8> = (0..len)
                .map(|_| {
                    if next().is_multiple_of(6) {
                        pieces[(next() % pieces.len() as u64) as usize]
                    } else {
                        b'0' + (next() % 10) as u8
                    }
                })
                .collect();
            let pos = (next() as usize) % (len + 2);
            assert_eq!(
                digits_end(&input, pos),
                naive_end(&input, pos),
                "{input:?} {pos}"
            );
        }
    }

    /// Whether every classifier gives the naive masks of `blocks`,
    /// classified as one run in a single call.
    fn check_run(blocks: &[[u8; 64]]) {
        let want: std::vec::Vec<Masks> = blocks.iter().map(Masks::naive).collect();
        for (name, c) in all_classifiers() {
            let mut got = std::vec![Masks::default(); blocks.len() + 1];
            // (UTF-8 is checked over whole inputs, in `json::index`.)
            (c.classify)(blocks, &[0; 64], &mut got);
            assert_eq!(got[..blocks.len()], want, "{name} on {blocks:?}");
            assert_eq!(
                got[blocks.len()],
                Masks::default(),
                "{name} wrote past the run"
            );
        }
    }

    /// Under Miri `crate::cpu` reports the features the build targets, so
    /// the back ends tested are the ones `scripts/miri-core.sh` built for:
    /// with `+avx2,+popcnt,+bmi1` the AVX2 classifier and the bit-walking
    /// refill, with `+bmi2` as well the one-pass canonicalizer's wide
    /// build, with `+avx512f,+avx512bw` the AVX-512 classifier too, never a
    /// silent fall back to SSE2 alone.
    #[cfg(all(miri, target_arch = "x86_64", not(contractpin_portable_simd)))]
    #[test]
    fn under_miri_the_targeted_back_ends_run() {
        let names: std::vec::Vec<&str> = all_classifiers().iter().map(|(n, _)| *n).collect();
        assert!(names.contains(&"sse2"), "{names:?}");
        let avx2 = cfg!(target_feature = "avx2");
        assert_eq!(names.contains(&"avx2"), avx2, "{names:?}");
        assert_eq!(classifier().checks_utf8, avx2);
        let bits = cfg!(all(target_feature = "popcnt", target_feature = "bmi1"));
        assert_eq!(bit_ops(), bits);
        let avx512 = cfg!(all(target_feature = "avx512f", target_feature = "avx512bw"));
        assert_eq!(names.contains(&"avx512"), avx512, "{names:?}");
        let wide = cfg!(all(
            target_feature = "avx2",
            target_feature = "bmi1",
            target_feature = "bmi2",
            target_feature = "popcnt"
        ));
        assert_eq!(wide_scalar(), wide);
    }

    /// Under Miri on (little-endian) `aarch64` the NEON back end runs, not
    /// the SWAR twin: the `neon` lane of `scripts/miri-core.sh` checks it.
    #[cfg(all(
        miri,
        target_arch = "aarch64",
        target_endian = "little",
        not(contractpin_portable_simd)
    ))]
    #[test]
    fn under_miri_neon_runs() {
        assert_eq!(lanes::NAME, "neon");
        let names: std::vec::Vec<&str> = all_classifiers().iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["swar", "neon"]);
    }

    #[test]
    fn every_classifier_agrees_with_the_naive_masks() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        // Every byte value at every position (with neighbours that flip
        // between a class byte and a plain one), a run of 64 blocks per value.
        for b in (0..=255u8).step_by(STEP) {
            let run: std::vec::Vec<[u8; 64]> = (0..64)
                .step_by(STEP)
                .map(|at| {
                    let mut block = [if at % 2 == 0 { b'a' } else { b'"' }; 64];
                    block[at] = b;
                    block
                })
                .collect();
            check_run(&run);
            check_run(&run[..1]);
        }
        // Random blocks over all bytes, and over the interesting ones, in
        // runs of 0 to 9 blocks.
        let interesting =
            b"\"\\{}[],: \t\n\r\x00\x01\x1f\x20\x7f\x80\xff[]{}a0;<=>|~\x0c\x1a\x2c\x3a\x5b\x5d";
        let mut round = 0;
        while round < rounds(20_000) {
            let len = (next() % 10) as usize;
            let run: std::vec::Vec<[u8; 64]> = (0..len)
                .map(|k| {
                    let mut block = [0u8; 64];
                    for b in block.iter_mut() {
                        let r = next();
                        *b = if (round + k) % 2 == 0 {
                            r as u8
                        } else {
                            interesting[(r % interesting.len() as u64) as usize]
                        };
                    }
                    block
                })
                .collect();
            check_run(&run);
            round += len.max(1);
        }
    }
}
