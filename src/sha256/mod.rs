//! SHA-256 (FIPS 180-4), written in-house: `no_std`, no allocator, no dependencies.
//!
//! Three compression back ends share one streaming front end:
//!
//! - [`Backend::Portable`]: plain Rust, fully unrolled rounds, available everywhere.
//! - [`Backend::ShaNi`]: the x86 SHA extensions, chosen at run time by CPUID (read without
//!   `std`, cached in an atomic).
//! - [`Backend::ArmSha2`]: the Armv8 SHA-256 instructions on (little-endian) `aarch64`,
//!   always used when the build targets a CPU with them (Apple's `aarch64` targets do),
//!   otherwise chosen at run time through `std` (see `armv8`).
//!
//! The hardware back ends are never used when the crate is built with
//! `--cfg contractpin_portable_sha256` (a backend override, as RustCrypto does it:
//! `RUSTFLAGS="--cfg contractpin_portable_sha256"`). It is a `--cfg` and not a Cargo
//! feature because it removes speed: features must be additive, and `--all-features`
//! must not make the library slower. Under Miri, SHA-NI runs where the build targets it
//! (`crate::cpu` reports the build's target features there; `scripts/miri-core.sh`
//! builds with `+sha`, and once with `+avx512f,+avx512bw` for the sixteen lanes), and
//! the Armv8 back end never does (Miri lacks its instructions).
//!
//! [`Sha256Pair`] hashes two messages side by side: whenever both have a whole block
//! ready, the two blocks go through one two-stream compression ([`compress2`]), which on
//! SHA-NI overlaps the two dependency chains (the one-tool-at-a-time path hashes every
//! contract byte twice, into the tool digest and into its field digest, so it pairs those
//! two streams).
//!
//! [`digest_many`] hashes many whole messages at once (multi-buffer): sixteen per call
//! on CPUs with AVX-512 F and BW (`avx512`, detected and cached like SHA-NI), otherwise
//! two per SHA-NI (or portable) two-stream call. A reused `Context` writes a batch of
//! contracts to one buffer and hashes every contract and field value of it this way.
//!
//! ```
//! # use contractpin::sha256::{digest, Sha256};
//! let mut h = Sha256::new();
//! h.update(b"a");
//! h.update(b"bc");
//! assert_eq!(h.finalize(), digest(b"abc"));
//! ```

use core::fmt;

#[cfg(all(target_arch = "aarch64", not(miri), not(contractpin_portable_sha256)))]
mod armv8;
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_sha256)))]
mod avx512;
pub(crate) mod many;
mod pair;
mod portable;
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_sha256)))]
mod shani;
#[cfg(test)]
mod tests;

pub use many::{digest_many, digest_many_lanes, Messages};
pub use pair::Sha256Pair;

/// Length of a SHA-256 digest in bytes.
pub const DIGEST_LEN: usize = 32;

/// Length of a SHA-256 message block in bytes.
pub const BLOCK_LEN: usize = 64;

/// The initial hash value H(0) (FIPS 180-4 section 5.3.3).
const IV: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/// The round constants K (FIPS 180-4 section 4.2.2).
const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/// A SHA-256 compression back end. New CPUs may bring new back ends, so a
/// `match` on it outside this crate needs a wildcard arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Backend {
    /// Plain Rust; available on every target.
    Portable,
    /// The x86 SHA extensions (SHA-NI); used only when the CPU reports them.
    ShaNi,
    /// The Armv8 SHA-256 instructions (FEAT_SHA256) on little-endian `aarch64`; used
    /// only when the CPU has them.
    ArmSha2,
}

/// Whether the SHA-NI back end may be used in this build on this CPU.
#[inline]
fn shani_available() -> bool {
    #[cfg(all(target_arch = "x86_64", not(contractpin_portable_sha256)))]
    {
        shani::available()
    }
    #[cfg(not(all(target_arch = "x86_64", not(contractpin_portable_sha256))))]
    {
        false
    }
}

/// Whether the Armv8 back end may be used in this build on this CPU.
#[inline]
fn arm_sha2_available() -> bool {
    #[cfg(all(target_arch = "aarch64", not(miri), not(contractpin_portable_sha256)))]
    {
        armv8::available()
    }
    #[cfg(not(all(target_arch = "aarch64", not(miri), not(contractpin_portable_sha256))))]
    {
        false
    }
}

/// The back end that [`Sha256::new`] and [`digest`] use on this CPU.
///
/// This is [`Backend::ShaNi`] on an `x86_64` CPU with SHA, SSSE3 and SSE4.1 (detected
/// once by CPUID and cached), [`Backend::ArmSha2`] on an `aarch64` CPU with the SHA-256
/// instructions, and [`Backend::Portable`] otherwise and with the
/// `--cfg contractpin_portable_sha256`.
pub fn detected_backend() -> Backend {
    if shani_available() {
        Backend::ShaNi
    } else if arm_sha2_available() {
        Backend::ArmSha2
    } else {
        Backend::Portable
    }
}

/// Maps a requested back end to one this CPU can run.
#[inline]
fn resolve(backend: Backend) -> Backend {
    match backend {
        Backend::ShaNi if shani_available() => Backend::ShaNi,
        Backend::ArmSha2 if arm_sha2_available() => Backend::ArmSha2,
        _ => Backend::Portable,
    }
}

/// Compresses whole blocks with a back end that [`resolve`] has approved.
#[inline]
fn compress_resolved(backend: Backend, state: &mut [u32; 8], blocks: &[u8]) {
    match backend {
        #[cfg(all(target_arch = "x86_64", not(contractpin_portable_sha256)))]
        Backend::ShaNi => {
            // SAFETY: `backend` came from `resolve`, which yields `ShaNi` only after CPUID
            // reported SHA, SSSE3 and SSE4.1 (SSE2 is part of the x86_64 baseline).
            unsafe { shani::compress(state, blocks) }
        }
        #[cfg(all(target_arch = "aarch64", not(miri), not(contractpin_portable_sha256)))]
        Backend::ArmSha2 => {
            // SAFETY: `backend` came from `resolve`, which yields `ArmSha2` only when
            // the CPU has the SHA-256 instructions (`armv8::available`).
            unsafe { armv8::compress(state, blocks) }
        }
        _ => portable::compress(state, blocks),
    }
}

/// Compresses the i-th whole block of `blocks_a` into `state_a` together with the i-th
/// whole block of `blocks_b` into `state_b`, with a back end that [`resolve`] has
/// approved, for as many blocks as the shorter slice has.
#[inline]
fn compress2_resolved(
    backend: Backend,
    state_a: &mut [u32; 8],
    blocks_a: &[u8],
    state_b: &mut [u32; 8],
    blocks_b: &[u8],
) {
    match backend {
        #[cfg(all(target_arch = "x86_64", not(contractpin_portable_sha256)))]
        Backend::ShaNi => {
            // SAFETY: `backend` came from `resolve`, which yields `ShaNi` only after CPUID
            // reported SHA, SSSE3 and SSE4.1 (SSE2 is part of the x86_64 baseline).
            unsafe { shani::compress2(state_a, blocks_a, state_b, blocks_b) }
        }
        #[cfg(all(target_arch = "aarch64", not(miri), not(contractpin_portable_sha256)))]
        Backend::ArmSha2 => {
            // SAFETY: `backend` came from `resolve`, which yields `ArmSha2` only when
            // the CPU has the SHA-256 instructions (`armv8::available`).
            unsafe { armv8::compress2(state_a, blocks_a, state_b, blocks_b) }
        }
        _ => portable::compress2(state_a, blocks_a, state_b, blocks_b),
    }
}

/// Runs the compression function over the whole blocks of two independent messages,
/// interleaved: the first `min` block count of each pair up in one two-stream loop, the
/// rest of the longer one runs alone. The result is the same as [`compress`] on each.
/// Meant for benchmarks and tests; [`Sha256Pair`] hashes two messages this way.
pub fn compress2(
    backend: Backend,
    state_a: &mut [u32; 8],
    blocks_a: &[u8],
    state_b: &mut [u32; 8],
    blocks_b: &[u8],
) {
    let backend = resolve(backend);
    let whole_a = blocks_a.len() - blocks_a.len() % BLOCK_LEN;
    let whole_b = blocks_b.len() - blocks_b.len() % BLOCK_LEN;
    let paired = whole_a.min(whole_b);
    compress2_resolved(
        backend,
        state_a,
        &blocks_a[..paired],
        state_b,
        &blocks_b[..paired],
    );
    compress_resolved(backend, state_a, &blocks_a[paired..whole_a]);
    compress_resolved(backend, state_b, &blocks_b[paired..whole_b]);
}

/// Runs the SHA-256 compression function over `blocks` with the given back end.
///
/// Only whole 64-byte blocks are processed: a trailing partial block
/// (`blocks.len() % 64` bytes) is ignored. No padding is added. A hardware back end
/// falls back to [`Backend::Portable`] when the CPU lacks it. Meant for benchmarks and tests;
/// use [`Sha256`] or [`digest`] to hash messages.
pub fn compress(backend: Backend, state: &mut [u32; 8], blocks: &[u8]) {
    let whole = blocks.len() - blocks.len() % BLOCK_LEN;
    compress_resolved(resolve(backend), state, &blocks[..whole]);
}

/// Copies `src` into `dst` (equal lengths). Pieces of up to 16 bytes, the
/// common case for a canonical writer, are moved with fixed-size copies instead
/// of a call to `memcpy`.
#[inline(always)]
pub(crate) fn copy_short(dst: &mut [u8], src: &[u8]) {
    let n = src.len();
    if n > 16 || n != dst.len() {
        dst.copy_from_slice(src);
    } else if n >= 8 {
        // Two overlapping eight-byte moves cover 8..=16 bytes.
        dst[..8].copy_from_slice(&src[..8]);
        dst[n - 8..].copy_from_slice(&src[n - 8..]);
    } else if n >= 4 {
        dst[..4].copy_from_slice(&src[..4]);
        dst[n - 4..].copy_from_slice(&src[n - 4..]);
    } else if n > 0 {
        // 1..=3 bytes: first, middle and last (some coincide).
        dst[0] = src[0];
        dst[n / 2] = src[n / 2];
        dst[n - 1] = src[n - 1];
    }
}

/// A streaming SHA-256 hasher. It lives wherever the caller puts it; it never allocates.
#[derive(Clone)]
pub struct Sha256 {
    /// The chaining value.
    state: [u32; 8],
    /// The partial block; its first `len % 64` bytes are pending input.
    block: [u8; BLOCK_LEN],
    /// Total bytes absorbed so far (modulo 2^64).
    len: u64,
    /// The back end, already checked against the CPU.
    backend: Backend,
}

impl Sha256 {
    /// A new hasher using [`detected_backend`].
    pub fn new() -> Self {
        Self::with_backend(detected_backend())
    }

    /// A new hasher using `backend`; a hardware back end falls back to
    /// [`Backend::Portable`] when the CPU (or the build) cannot run it.
    pub fn with_backend(backend: Backend) -> Self {
        Sha256 {
            state: IV,
            block: [0; BLOCK_LEN],
            len: 0,
            backend: resolve(backend),
        }
    }

    /// The back end this hasher actually uses.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Absorbs `data`.
    ///
    /// Short writes are copied into the internal block; whole blocks of a long write are
    /// compressed straight from `data`, without copying.
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        let used = (self.len % BLOCK_LEN as u64) as usize;
        self.len = self.len.wrapping_add(data.len() as u64);
        if data.len() < BLOCK_LEN - used {
            // Fast path for the many tiny pieces a canonical writer emits.
            copy_short(&mut self.block[used..used + data.len()], data);
            return;
        }
        self.update_slow(used, data);
    }

    /// The part of [`Sha256::update`] that completes at least one block.
    fn update_slow(&mut self, used: usize, mut data: &[u8]) {
        if used != 0 {
            let (head, rest) = data.split_at(BLOCK_LEN - used);
            self.block[used..].copy_from_slice(head);
            compress_resolved(self.backend, &mut self.state, &self.block);
            data = rest;
        }
        let whole = data.len() - data.len() % BLOCK_LEN;
        let (blocks, tail) = data.split_at(whole);
        if !blocks.is_empty() {
            compress_resolved(self.backend, &mut self.state, blocks);
        }
        self.block[..tail.len()].copy_from_slice(tail);
    }

    /// Pads the message, runs the last compressions and returns the digest. Leaves the
    /// hasher in an unspecified (but safe) state.
    fn finish(&mut self) -> [u8; DIGEST_LEN] {
        let used = (self.len % BLOCK_LEN as u64) as usize;
        let bit_len = self.len.wrapping_mul(8);
        self.block[used] = 0x80;
        self.block[used + 1..].fill(0);
        if used + 1 > BLOCK_LEN - 8 {
            compress_resolved(self.backend, &mut self.state, &self.block);
            self.block = [0; BLOCK_LEN];
        }
        self.block[BLOCK_LEN - 8..].copy_from_slice(&bit_len.to_be_bytes());
        compress_resolved(self.backend, &mut self.state, &self.block);
        let mut out = [0u8; DIGEST_LEN];
        for (dst, word) in out.chunks_exact_mut(4).zip(self.state.iter()) {
            dst.copy_from_slice(&word.to_be_bytes());
        }
        out
    }

    /// Returns the digest of everything absorbed, consuming the hasher.
    pub fn finalize(mut self) -> [u8; DIGEST_LEN] {
        self.finish()
    }

    /// Returns the digest of everything absorbed and resets the hasher (keeping its
    /// back end) for a new message.
    pub fn finalize_reset(&mut self) -> [u8; DIGEST_LEN] {
        let out = self.finish();
        self.reset();
        out
    }

    /// Forgets everything absorbed; the back end is kept.
    pub fn reset(&mut self) {
        self.state = IV;
        self.block = [0; BLOCK_LEN];
        self.len = 0;
    }
}

/// The fields of a [`Sha256`], for the C ABI, which keeps a hasher in caller
/// memory in its own checked encoding (`src/ffi/sha256.rs`).
#[cfg(feature = "ffi")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Parts {
    /// The chaining value.
    pub(crate) state: [u32; 8],
    /// The partial block; only its first `len % 64` bytes are meaningful.
    pub(crate) block: [u8; BLOCK_LEN],
    /// Total bytes absorbed.
    pub(crate) len: u64,
    /// The back end asked for.
    pub(crate) backend: Backend,
}

#[cfg(feature = "ffi")]
impl Sha256 {
    /// The hasher's fields.
    pub(crate) fn to_parts(&self) -> Parts {
        Parts {
            state: self.state,
            block: self.block,
            len: self.len,
            backend: self.backend,
        }
    }

    /// A hasher with these fields; the back end is checked against the CPU
    /// again (a hardware back end becomes [`Backend::Portable`] where it
    /// cannot run), so any `Parts` value is safe to hash with.
    pub(crate) fn from_parts(parts: Parts) -> Sha256 {
        Sha256 {
            state: parts.state,
            block: parts.block,
            len: parts.len,
            backend: resolve(parts.backend),
        }
    }
}

impl Default for Sha256 {
    /// Same as [`Sha256::new`].
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Sha256 {
    /// Shows the back end and the byte count, not the (message-dependent) state.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sha256")
            .field("backend", &self.backend)
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

/// The SHA-256 digest of `data`, using [`detected_backend`].
pub fn digest(data: &[u8]) -> [u8; DIGEST_LEN] {
    let mut h = Sha256::new();
    h.update(data);
    h.finalize()
}
