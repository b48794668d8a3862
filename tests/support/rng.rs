//! The one seeded generator of the tests, the fuzz helpers and the bench
//! payloads: SplitMix64 (Steele, Lea and Flood), small, well mixed and with
//! no dependency, so a printed seed replays a failure exactly.
//!
//! Included by `#[path]` wherever it is needed (integration tests, the
//! library's own unit tests, `benches/common/payloads.rs`, the fuzz crate).
#![allow(dead_code)]

/// SplitMix64 state; `Rng(seed)` starts a sequence.
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// Next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0; the modulo bias is below 2^-40 for the
    /// small `n` used here).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// True with probability 1/n.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Rounds of a randomized test: `native`, or one in three hundred (at
/// least one) under Miri, where every step runs thousands of times slower. Under
/// Miri the rounds are there to take every `unsafe` path for Miri to check
/// (`scripts/miri-core.sh`); the native run keeps the whole search.
pub const fn rounds(native: usize) -> usize {
    if cfg!(miri) {
        native.div_ceil(300)
    } else {
        native
    }
}

/// The step of an exhaustive loop over offsets or byte values: 1, or 13
/// under Miri (see [`rounds`]; 13 is prime to the block sizes 16 and 64,
/// so the values kept still fall at every offset within a block over a
/// run).
pub const STEP: usize = if cfg!(miri) { 13 } else { 1 };
