//! Streaming SHA-256 over a caller-allocated state, kept in a checked
//! encoding: a state the caller has overwritten is refused, never trusted.
//!
//! The state is 16 `u64` words, all written by this library:
//!
//! | word | holds |
//! |---|---|
//! | 0 | [`MAGIC`]: the state was initialised |
//! | 1 | the check word: [`check_word`] of the 15 others |
//! | 2..=5 | the chaining value (8 `u32`, two per word, low half first) |
//! | 6..=13 | the 64-byte block (native byte order); bytes past `len % 64` are zero |
//! | 14 | `len`, the bytes absorbed, below 2^61 (FIPS 180-4: messages under 2^64 bits) |
//! | 15 | the back end: 0 portable, 1 SHA-NI |
//!
//! Every entry point copies the words out of the caller's memory,
//! [`decode`]s them in safe code (marker, check word, back end tag, block
//! tail, length bound) and only then builds a hasher from the checked
//! values: the caller's bytes are never read as anything but `u64`. A state
//! that fails a check gives `CONTRACTPIN_STATUS_INVALID_ARGUMENT` and is
//! left as it was, and so are the outputs.
//!
//! Strength: [`check_word`] chains a bijective 64-bit mixer over the words,
//! so any change confined to one word (every overwrite of a single byte,
//! with any value) changes it and is always detected. A change spread over
//! several words passes only if it also writes the one matching check word:
//! for corruption that does not compute it, a chance of 2^-64. It is not a
//! MAC: a caller that computes the check word on purpose can forge a state,
//! but a forged state still passes the range checks, so it is a
//! well-formed hasher state and the result is the digest of what was
//! forged, never undefined behaviour.

use core::ffi::c_char;
use core::mem::{align_of, size_of, MaybeUninit};
use core::ptr;

use super::boundary::{input, non_null, status_of, Failure};
use super::status::contractpin_status;
use crate::sha256::{detected_backend, Backend, Parts, Sha256, BLOCK_LEN};

/// Size in bytes of `contractpin_sha256` (128).
pub const CONTRACTPIN_SHA256_STATE_SIZE: usize = 128;

/// A streaming SHA-256 state, allocated by the caller (on the stack, in a
/// struct, anywhere): 128 bytes (`CONTRACTPIN_SHA256_STATE_SIZE`), aligned
/// like `uint64_t`. Its contents are private.
///
/// Use: `contractpin_sha256_init`, then any number of
/// `contractpin_sha256_update`, then `contractpin_sha256_final` (which
/// leaves the state initialised and empty, ready for the next message). The
/// state holds no pointers and owns nothing: it needs no cleanup, and a
/// byte copy (`memcpy`, struct assignment) of an initialised state is an
/// independent state with the same contents (to hash several messages that
/// share a prefix). One state must not be used by two threads at once.
///
/// Every byte of the state must have been written before it is passed to
/// `contractpin_sha256_update` or `_final`: by `contractpin_sha256_init`,
/// or at least zeroed (`= {0}`, `memset`, `calloc`). A state that was never
/// written at all (a declared but uninitialised variable, fresh `malloc`
/// memory) must not be passed: its contents are indeterminate, and the
/// library may happen to refuse it but does not promise to.
///
/// Within that rule the library checks the whole state on every call: a
/// zeroed state that was never initialised, or one whose bytes were changed
/// other than by these functions, is refused with
/// `CONTRACTPIN_STATUS_INVALID_ARGUMENT` (any change to one 8-byte word
/// always; a change to several words except with probability 2^-64).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct contractpin_sha256 {
    /// Private: a marker, a check word over the others, and the hasher's
    /// fields (see `docs/C_ABI.md`). `MaybeUninit` on the Rust side (C sees
    /// plain `uint64_t`): the library never trusts these bytes before it has
    /// checked them.
    pub opaque: [MaybeUninit<u64>; 16],
}

impl Default for contractpin_sha256 {
    /// A zeroed (not yet initialised) state, for Rust callers.
    fn default() -> Self {
        contractpin_sha256 {
            opaque: [MaybeUninit::new(0); WORDS],
        }
    }
}

/// Words in a state.
const WORDS: usize = 16;

/// The decoded words of a state.
type Words = [u64; WORDS];

/// Marks an initialised state ("cpsha2v2": the second encoding).
const MAGIC: u64 = 0x6370_7368_6132_7632;

const W_MAGIC: usize = 0;
const W_CHECK: usize = 1;
const W_CHAIN: usize = 2;
const W_BLOCK: usize = 6;
const W_LEN: usize = 14;
const W_BACKEND: usize = 15;

/// `len` must stay below this: 2^61 bytes are 2^64 bits.
const MAX_LEN: u64 = 1 << 61;

/// Starts [`check_word`] (the first 64 bits of the fractional part of pi).
const CHECK_SEED: u64 = 0x243f_6a88_85a3_08d3;

const _: () = assert!(size_of::<contractpin_sha256>() == CONTRACTPIN_SHA256_STATE_SIZE);
const _: () = assert!(WORDS * size_of::<u64>() == CONTRACTPIN_SHA256_STATE_SIZE);
const _: () = assert!(align_of::<contractpin_sha256>() == align_of::<u64>());
const _: () = assert!(W_CHAIN + 4 == W_BLOCK && W_BLOCK + BLOCK_LEN / 8 == W_LEN);
const _: () = assert!(W_LEN + 1 == W_BACKEND && W_BACKEND + 1 == WORDS);

/// The splitmix64 finaliser: a bijection of `u64` (each step, an xor-shift
/// or a multiplication by an odd constant, can be undone).
fn mix(x: u64) -> u64 {
    let x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The check word of a state: `h = mix(h ^ word)` over every word but the
/// check word itself. With the other words fixed, each word maps to the
/// result through bijections only, so changing any one word changes it.
fn check_word(words: &Words) -> u64 {
    words
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != W_CHECK)
        .fold(CHECK_SEED, |h, (_, &w)| mix(h ^ w))
}

fn backend_tag(backend: Backend) -> u64 {
    match backend {
        Backend::Portable => 0,
        Backend::ShaNi => 1,
        Backend::ArmSha2 => 2,
    }
}

fn backend_of(tag: u64) -> Option<Backend> {
    match tag {
        0 => Some(Backend::Portable),
        1 => Some(Backend::ShaNi),
        2 => Some(Backend::ArmSha2),
        _ => None,
    }
}

/// Bytes of the block past the pending input (`len % 64`).
fn tail(block: &mut [u8; BLOCK_LEN], len: u64) -> &mut [u8] {
    // `len % 64` is below 64: the index is in range.
    &mut block[(len % BLOCK_LEN as u64) as usize..]
}

/// The words of a hasher's state.
fn encode(hasher: &Sha256) -> Words {
    let mut p = hasher.to_parts();
    // Stale bytes past the pending input are not part of the state.
    tail(&mut p.block, p.len).fill(0);
    let mut w = [0u64; WORDS];
    w[W_MAGIC] = MAGIC;
    for (word, pair) in w[W_CHAIN..W_BLOCK].iter_mut().zip(p.state.chunks_exact(2)) {
        *word = u64::from(pair[0]) | u64::from(pair[1]) << 32;
    }
    for (word, bytes) in w[W_BLOCK..W_LEN].iter_mut().zip(p.block.chunks_exact(8)) {
        let mut b = [0u8; 8];
        b.copy_from_slice(bytes);
        *word = u64::from_ne_bytes(b);
    }
    w[W_LEN] = p.len;
    w[W_BACKEND] = backend_tag(p.backend);
    w[W_CHECK] = check_word(&w);
    w
}

/// The hasher fields of checked words, or `None` unless every check passes.
fn decode(w: &Words) -> Option<Parts> {
    if w[W_MAGIC] != MAGIC || w[W_CHECK] != check_word(w) || w[W_LEN] >= MAX_LEN {
        return None;
    }
    let backend = backend_of(w[W_BACKEND])?;
    let mut state = [0u32; 8];
    for (pair, &word) in state.chunks_exact_mut(2).zip(&w[W_CHAIN..W_BLOCK]) {
        // Truncation on purpose: the low and the high half.
        pair[0] = word as u32;
        pair[1] = (word >> 32) as u32;
    }
    let mut block = [0u8; BLOCK_LEN];
    for (bytes, word) in block.chunks_exact_mut(8).zip(&w[W_BLOCK..W_LEN]) {
        bytes.copy_from_slice(&word.to_ne_bytes());
    }
    if tail(&mut block, w[W_LEN]).iter().any(|&b| b != 0) {
        return None;
    }
    Some(Parts {
        state,
        block,
        len: w[W_LEN],
        backend,
    })
}

/// A caller's state pointer, checked: NULL is `NullArgument`, a pointer not
/// aligned for `uint64_t` is `InvalidArgument` (nothing is read or written).
fn checked(state: *mut contractpin_sha256) -> Result<*mut contractpin_sha256, Failure> {
    if state.is_null() {
        return Err(contractpin_status::NullArgument.into());
    }
    if !state.is_aligned() {
        return Err(contractpin_status::InvalidArgument.into());
    }
    Ok(state)
}

/// Reads and checks the state at `state`.
///
/// # Safety
/// `state` is non-null, aligned, valid for reading 128 bytes that have all
/// been written (by this library, or by the caller: zeroed, overwritten...).
unsafe fn load(state: *const contractpin_sha256) -> Result<Parts, Failure> {
    // SAFETY: valid and aligned by the caller's contract; the copy is of
    // `MaybeUninit` words, which any bytes are. No reference to the caller's
    // memory is formed, so `data` of an update may overlap it.
    let raw = unsafe { ptr::read(state) }.opaque;
    // SAFETY: every byte of the state has been written (the contract of
    // `contractpin_sha256_update` and `_final`), so each word is an
    // initialised integer; any integer value is accepted here.
    let words: Words = raw.map(|w| unsafe { w.assume_init() });
    decode(&words).ok_or_else(|| contractpin_status::InvalidArgument.into())
}

/// Writes `hasher` to `state` in the checked encoding.
///
/// # Safety
/// `state` is non-null, aligned and valid for writing 128 bytes.
unsafe fn store(state: *mut contractpin_sha256, hasher: &Sha256) {
    let value = contractpin_sha256 {
        opaque: encode(hasher).map(MaybeUninit::new),
    };
    // SAFETY: valid and aligned for writes by the caller's contract; `write`
    // neither reads nor drops the old bytes.
    unsafe { ptr::write(state, value) };
}

/// Initialises (or resets) a caller-allocated SHA-256 state. Any previous
/// contents are discarded. Returns `CONTRACTPIN_STATUS_NULL_ARGUMENT` for
/// NULL and `CONTRACTPIN_STATUS_INVALID_ARGUMENT` for a pointer not aligned
/// like `uint64_t` (nothing is written).
///
/// # Safety
/// `state` must be NULL or valid for writing a `contractpin_sha256` (128
/// bytes) and not in use by another thread.
#[no_mangle]
pub unsafe extern "C" fn contractpin_sha256_init(
    state: *mut contractpin_sha256,
) -> contractpin_status {
    status_of(|| {
        let state = checked(state)?;
        // SAFETY: non-null and aligned (checked), writable by the contract.
        unsafe { store(state, &Sha256::new()) };
        Ok(())
    })
}

/// Absorbs `len` bytes at `data` into an initialised state. NULL `data`
/// with `len` 0 is a no-op. Returns `CONTRACTPIN_STATUS_INVALID_ARGUMENT`,
/// absorbing nothing and leaving the state as it was, if the state was
/// zeroed but never initialised, was changed other than by these functions,
/// is not aligned like `uint64_t`, or would exceed 2^61 - 1 bytes (the
/// SHA-256 limit). `data` may point into the state itself.
///
/// # Safety
/// `state` must be NULL or valid for reading and writing a
/// `contractpin_sha256` not in use by another thread, whose memory has been
/// written (by `contractpin_sha256_init`, or at least zeroed: a state that
/// was never written at all must not be passed); `data` NULL or valid for
/// reading `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn contractpin_sha256_update(
    state: *mut contractpin_sha256,
    data: *const u8,
    len: usize,
) -> contractpin_status {
    status_of(|| {
        let state = checked(state)?;
        // SAFETY: `data` is NULL or readable for `len` bytes.
        let data = unsafe { input(data, len) }?;
        // SAFETY: checked pointer; readable and written by the contract.
        let parts = unsafe { load(state) }?;
        // `input` bounds `len` by `isize::MAX`, so it fits in a `u64`.
        if data.len() as u64 >= MAX_LEN - parts.len {
            return Err(contractpin_status::InvalidArgument.into());
        }
        let mut hasher = Sha256::from_parts(parts);
        hasher.update(data);
        // SAFETY: checked pointer, writable by the contract; `data` is not
        // used after this point, so it may overlap the state.
        unsafe { store(state, &hasher) };
        Ok(())
    })
}

/// Writes the SHA-256 digest of everything absorbed since init (or the last
/// final) to `out` (32 raw bytes), then resets the state for a new message.
/// Returns `CONTRACTPIN_STATUS_NULL_ARGUMENT` for NULL arguments and
/// `CONTRACTPIN_STATUS_INVALID_ARGUMENT` for a state that was zeroed but
/// never initialised, was changed other than by these functions, or is not
/// aligned like `uint64_t`; in both cases nothing is written. (`out` may
/// overlap the state: the digest is written last, and the state is then no
/// longer valid.)
///
/// # Safety
/// `state` must be NULL or valid for reading and writing a
/// `contractpin_sha256` not in use by another thread, whose memory has been
/// written (as for `contractpin_sha256_update`); `out` NULL or valid for
/// writing 32 bytes.
#[no_mangle]
pub unsafe extern "C" fn contractpin_sha256_final(
    state: *mut contractpin_sha256,
    out: *mut u8,
) -> contractpin_status {
    status_of(|| {
        non_null(out)?;
        let state = checked(state)?;
        // SAFETY: checked pointer; readable and written by the contract.
        let mut hasher = Sha256::from_parts(unsafe { load(state) }?);
        let digest = hasher.finalize_reset();
        // SAFETY: checked pointer, writable by the contract.
        unsafe { store(state, &hasher) };
        // SAFETY: `out` is non-null and writable for 32 bytes; `digest` is a
        // local array. Raw writes: `out` may overlap the state.
        unsafe { ptr::copy_nonoverlapping(digest.as_ptr(), out, digest.len()) };
        Ok(())
    })
}

/// SHA-256 of one buffer in one call: writes 32 raw bytes to `out` on
/// success. NULL `data` with `len` 0 is the empty message.
///
/// # Safety
/// `data` must be NULL or valid for reading `len` bytes; `out` NULL or valid
/// for writing 32 bytes.
#[no_mangle]
pub unsafe extern "C" fn contractpin_sha256_digest(
    data: *const u8,
    len: usize,
    out: *mut u8,
) -> contractpin_status {
    status_of(|| {
        non_null(out)?;
        // SAFETY: `data` is NULL or readable for `len` bytes.
        let data = unsafe { input(data, len) }?;
        let digest = crate::sha256::digest(data);
        // SAFETY: `out` is non-null and writable for 32 bytes; the source is
        // a local array.
        unsafe { ptr::copy_nonoverlapping(digest.as_ptr(), out, digest.len()) };
        Ok(())
    })
}

/// The SHA-256 implementation this library uses on this CPU: `"sha-ni"`
/// (x86-64 SHA extensions), `"arm-sha2"` (Armv8 SHA-256 instructions) or
/// `"portable"` (static NUL-terminated string; never NULL; do not free).
#[no_mangle]
pub extern "C" fn contractpin_sha256_backend() -> *const c_char {
    let name: &'static str = match detected_backend() {
        Backend::ShaNi => "sha-ni\0",
        Backend::ArmSha2 => "arm-sha2\0",
        Backend::Portable => "portable\0",
    };
    name.as_ptr().cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn live(message: &[u8]) -> (Sha256, Words) {
        let mut h = Sha256::new();
        h.update(message);
        let w = encode(&h);
        (h, w)
    }

    /// `w` with `f` applied, and the check word recomputed (a forged state).
    fn forged(mut w: Words, f: impl FnOnce(&mut Words)) -> Words {
        f(&mut w);
        w[W_CHECK] = check_word(&w);
        w
    }

    #[test]
    fn round_trips() {
        for n in [0, 1, 55, 63, 64, 65, 127, 128, 1000] {
            let message = alloc::vec![0x5a; n];
            let (mut h, w) = live(&message);
            let mut back = Sha256::from_parts(decode(&w).unwrap());
            assert_eq!(back.finalize_reset(), h.finalize_reset(), "{n}");
        }
    }

    /// The range checks hold even when the check word matches.
    #[test]
    fn range_checks_refuse_forged_states() {
        let (_, w) = live(b"abc");
        assert!(decode(&w).is_some());
        for tag in [3, 0xff, u64::MAX] {
            assert!(
                decode(&forged(w, |w| w[W_BACKEND] = tag)).is_none(),
                "{tag}"
            );
        }
        // A nonzero byte past the 3 pending bytes, at both ends of the tail.
        assert!(decode(&forged(w, |w| w[W_BLOCK] |= 0xff << 24)).is_none());
        assert!(decode(&forged(w, |w| w[W_LEN - 1] |= 1 << 63)).is_none());
        assert!(decode(&forged(w, |w| w[W_LEN] = MAX_LEN + 3)).is_none());
        assert!(decode(&forged(w, |w| w[W_MAGIC] ^= 1)).is_none());
        // The largest length is a valid state (a tail of 61 zero bytes).
        assert!(decode(&forged(w, |w| w[W_LEN] = MAX_LEN - 61)).is_some());
    }

    /// Update refuses to go past 2^61 - 1 bytes, leaving the state as it was.
    #[test]
    fn update_stops_at_the_length_limit() {
        let (_, w) = live(b"abc");
        let near = forged(w, |w| w[W_LEN] = MAX_LEN - 61);
        let mut state = contractpin_sha256 {
            opaque: near.map(MaybeUninit::new),
        };
        let data = [0u8; 61];
        // SAFETY: a valid local state and input.
        unsafe {
            assert_eq!(
                contractpin_sha256_update(&mut state, data.as_ptr(), 61),
                contractpin_status::InvalidArgument
            );
            assert_eq!(state.opaque.map(|w| w.assume_init()), near);
            assert_eq!(
                contractpin_sha256_update(&mut state, data.as_ptr(), 60),
                contractpin_status::Ok
            );
        }
    }

    /// Every single-bit change of every word is caught by the check word.
    #[test]
    fn check_word_catches_every_single_word_change() {
        let (_, w) = live(b"abc");
        for i in 0..WORDS {
            for bit in 0..64 {
                let mut bad = w;
                bad[i] ^= 1 << bit;
                assert!(decode(&bad).is_none(), "word {i} bit {bit}");
            }
        }
    }
}
