//! Two SHA-256 messages hashed side by side ([`Sha256Pair`]).
//!
//! Each stream keeps two block buffers. When a stream's block becomes whole it is
//! compressed together with the other stream's waiting block, if there is one; otherwise
//! it waits (is *held*) for the other stream's next block. At most one stream holds a
//! block at a time, and a stream that completes a second block while its first still
//! waits compresses the first alone, so each stream's blocks are always compressed in
//! order. Long writes pair whole blocks straight from the input, without copying.
//!
//! The digests are those of two [`Sha256`](super::Sha256) hashers fed the same bytes:
//! pairing only changes which blocks share a compression call, never their order within
//! a stream.

use core::fmt;

use super::{
    compress2_resolved, compress_resolved, copy_short, detected_backend, resolve, Backend,
    BLOCK_LEN, DIGEST_LEN, IV,
};

/// One of the two messages.
#[derive(Clone)]
struct Stream {
    /// The chaining value.
    state: [u32; 8],
    /// `bufs[cur]` is the partial block (its first `len % 64` bytes are pending input);
    /// when `held`, `bufs[cur ^ 1]` is a whole block not yet compressed.
    bufs: [[u8; BLOCK_LEN]; 2],
    /// Index of the partial block in `bufs`.
    cur: usize,
    /// Whether `bufs[cur ^ 1]` waits for a block of the other stream.
    held: bool,
    /// Total bytes absorbed (modulo 2^64), held block included.
    len: u64,
}

impl Stream {
    const NEW: Stream = Stream {
        state: IV,
        bufs: [[0; BLOCK_LEN]; 2],
        cur: 0,
        held: false,
        len: 0,
    };

    /// Bytes in the partial block.
    #[inline(always)]
    fn used(&self) -> usize {
        (self.len % BLOCK_LEN as u64) as usize
    }
}

/// Two SHA-256 messages, A and B, hashed together: blocks of both are compressed in
/// pairs whenever both have one ready, which the SHA-NI back end runs as one interleaved
/// loop. Bytes may go to either stream or to both ([`Sha256Pair::update_both`]); each
/// stream is finalized on its own and then starts a new message. It never allocates.
///
/// ```
/// # use contractpin::sha256::{digest, Sha256Pair};
/// let mut p = Sha256Pair::new();
/// p.update_a(b"{\"x\":");
/// p.update_both(b"[1,2]");
/// p.update_a(b"}");
/// assert_eq!(p.finalize_reset_b(), digest(b"[1,2]"));
/// assert_eq!(p.finalize_reset_a(), digest(b"{\"x\":[1,2]}"));
/// ```
#[derive(Clone)]
pub struct Sha256Pair {
    a: Stream,
    b: Stream,
    /// The back end, already checked against the CPU.
    backend: Backend,
}

impl Sha256Pair {
    /// Two empty messages, using [`detected_backend`].
    pub fn new() -> Self {
        Self::with_backend(detected_backend())
    }

    /// Two empty messages using `backend` (a hardware back end falls back to
    /// [`Backend::Portable`] where it cannot run).
    pub fn with_backend(backend: Backend) -> Self {
        Sha256Pair {
            a: Stream::NEW,
            b: Stream::NEW,
            backend: resolve(backend),
        }
    }

    /// The back end this pair actually uses.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Absorbs `data` into message A only.
    #[inline]
    pub fn update_a(&mut self, data: &[u8]) {
        self.update2(data, &[]);
    }

    /// Absorbs `data` into message B only.
    #[inline]
    pub fn update_b(&mut self, data: &[u8]) {
        self.update2(&[], data);
    }

    /// Absorbs `data` into both messages.
    #[inline]
    pub fn update_both(&mut self, data: &[u8]) {
        self.update2(data, data);
    }

    /// Absorbs `data_a` into message A and `data_b` into message B.
    #[inline(always)]
    pub fn update2(&mut self, data_a: &[u8], data_b: &[u8]) {
        let (ua, ub) = (self.a.used(), self.b.used());
        if data_a.len() < BLOCK_LEN - ua && data_b.len() < BLOCK_LEN - ub {
            // Fast path for the many tiny pieces a canonical writer emits.
            copy_short(&mut self.a.bufs[self.a.cur][ua..ua + data_a.len()], data_a);
            copy_short(&mut self.b.bufs[self.b.cur][ub..ub + data_b.len()], data_b);
            self.a.len = self.a.len.wrapping_add(data_a.len() as u64);
            self.b.len = self.b.len.wrapping_add(data_b.len() as u64);
            return;
        }
        self.update2_slow(data_a, data_b);
    }

    /// The part of [`Sha256Pair::update2`] that completes at least one block.
    fn update2_slow(&mut self, data_a: &[u8], data_b: &[u8]) {
        let backend = self.backend;
        let (a, b) = (&mut self.a, &mut self.b);
        if data_a.len() < BLOCK_LEN && data_b.len() < BLOCK_LEN {
            // The common case: short pieces, at most one block completed per stream.
            short_write(backend, a, b, data_a);
            short_write(backend, b, a, data_b);
            return;
        }
        // Complete the partial blocks the input reaches; `None`: all of it was buffered.
        let rest_a = fill(a, data_a);
        if rest_a.is_some() {
            block_done(backend, a, b);
        }
        let rest_b = fill(b, data_b);
        if rest_b.is_some() {
            block_done(backend, b, a);
        }
        let (whole_a, tail_a) = split_whole(rest_a.unwrap_or(&[]));
        let (whole_b, tail_b) = split_whole(rest_b.unwrap_or(&[]));
        if !whole_a.is_empty() || !whole_b.is_empty() {
            pair_whole(backend, a, b, whole_a, whole_b);
        }
        copy_short(&mut a.bufs[a.cur][..tail_a.len()], tail_a);
        copy_short(&mut b.bufs[b.cur][..tail_b.len()], tail_b);
    }

    /// The digest of message A; A then starts a new, empty message (B is untouched).
    pub fn finalize_reset_a(&mut self) -> [u8; DIGEST_LEN] {
        finish(self.backend, &mut self.a, &mut self.b)
    }

    /// The digest of message B; B then starts a new, empty message (A is untouched).
    pub fn finalize_reset_b(&mut self) -> [u8; DIGEST_LEN] {
        finish(self.backend, &mut self.b, &mut self.a)
    }
}

/// Appends `data` (shorter than a block) to `x`, completing at most one block.
#[inline(always)]
fn short_write(backend: Backend, x: &mut Stream, y: &mut Stream, data: &[u8]) {
    let used = x.used();
    x.len = x.len.wrapping_add(data.len() as u64);
    let room = BLOCK_LEN - used;
    if data.len() < room {
        copy_short(&mut x.bufs[x.cur][used..used + data.len()], data);
        return;
    }
    let (head, tail) = data.split_at(room);
    copy_short(&mut x.bufs[x.cur][used..], head);
    block_done(backend, x, y);
    copy_short(&mut x.bufs[x.cur][..tail.len()], tail);
}

/// Appends `data` to `x`'s partial block up to its end. Returns the rest of `data` when
/// the block became whole (then the caller must call [`block_done`]), `None` when all of
/// `data` fitted. Counts all of `data` in `x.len`.
#[inline(always)]
fn fill<'d>(x: &mut Stream, data: &'d [u8]) -> Option<&'d [u8]> {
    let used = x.used();
    x.len = x.len.wrapping_add(data.len() as u64);
    let room = BLOCK_LEN - used;
    if data.len() < room {
        copy_short(&mut x.bufs[x.cur][used..used + data.len()], data);
        return None;
    }
    let (head, rest) = data.split_at(room);
    copy_short(&mut x.bufs[x.cur][used..], head);
    Some(rest)
}

/// `data` split into its whole blocks and the remainder.
#[inline]
fn split_whole(data: &[u8]) -> (&[u8], &[u8]) {
    data.split_at(data.len() - data.len() % BLOCK_LEN)
}

/// `x`'s partial block has become whole: compress it with `y`'s held block, or hold it
/// (compressing `x`'s older held block alone first). Afterwards `x`'s partial block is
/// empty.
#[inline]
fn block_done(backend: Backend, x: &mut Stream, y: &mut Stream) {
    if y.held {
        compress_with_held(backend, x, x.cur, y);
    } else {
        if x.held {
            compress_resolved(backend, &mut x.state, &x.bufs[x.cur ^ 1]);
        }
        x.held = true;
        x.cur ^= 1;
    }
}

/// Compresses `x.bufs[i]`, together with `y`'s held block if `y` holds one (which is then
/// released).
#[inline]
fn compress_with_held(backend: Backend, x: &mut Stream, i: usize, y: &mut Stream) {
    if y.held {
        let yi = y.cur ^ 1;
        compress2_resolved(backend, &mut x.state, &x.bufs[i], &mut y.state, &y.bufs[yi]);
        y.held = false;
    } else {
        compress_resolved(backend, &mut x.state, &x.bufs[i]);
    }
}

/// Compresses whole input blocks of both streams in order after any held block: a held
/// block pairs with the other stream's first block, then blocks pair up straight from
/// the input; the longer stream's last unpaired block is held for the next call.
fn pair_whole(
    backend: Backend,
    a: &mut Stream,
    b: &mut Stream,
    mut whole_a: &[u8],
    mut whole_b: &[u8],
) {
    if a.held && !whole_b.is_empty() {
        let ai = a.cur ^ 1;
        compress2_resolved(
            backend,
            &mut a.state,
            &a.bufs[ai],
            &mut b.state,
            &whole_b[..BLOCK_LEN],
        );
        a.held = false;
        whole_b = &whole_b[BLOCK_LEN..];
    }
    if b.held && !whole_a.is_empty() {
        let bi = b.cur ^ 1;
        compress2_resolved(
            backend,
            &mut b.state,
            &b.bufs[bi],
            &mut a.state,
            &whole_a[..BLOCK_LEN],
        );
        b.held = false;
        whole_a = &whole_a[BLOCK_LEN..];
    }
    let n = whole_a.len().min(whole_b.len());
    if n > 0 {
        compress2_resolved(
            backend,
            &mut a.state,
            &whole_a[..n],
            &mut b.state,
            &whole_b[..n],
        );
    }
    hold_rest(backend, a, &whole_a[n..]);
    hold_rest(backend, b, &whole_b[n..]);
}

/// Compresses the whole blocks `whole` of `x` alone (after `x`'s held block), except the
/// last, which `x` then holds. Only called when the other stream holds nothing.
#[inline]
fn hold_rest(backend: Backend, x: &mut Stream, whole: &[u8]) {
    let Some(last_start) = whole.len().checked_sub(BLOCK_LEN) else {
        return;
    };
    let hi = x.cur ^ 1;
    if x.held {
        compress_resolved(backend, &mut x.state, &x.bufs[hi]);
    }
    compress_resolved(backend, &mut x.state, &whole[..last_start]);
    x.bufs[hi].copy_from_slice(&whole[last_start..]);
    x.held = true;
}

/// Pads `x`'s message and compresses what is left of it (its held block, then one or two
/// padding blocks; the first pairs with `y`'s held block, if any). Returns the digest and
/// resets `x` to an empty message.
fn finish(backend: Backend, x: &mut Stream, y: &mut Stream) -> [u8; DIGEST_LEN] {
    if x.held {
        compress_with_held(backend, x, x.cur ^ 1, y);
        x.held = false;
    }
    let used = x.used();
    let bit_len = x.len.wrapping_mul(8);
    let cur = x.cur;
    x.bufs[cur][used] = 0x80;
    x.bufs[cur][used + 1..].fill(0);
    if used + 1 > BLOCK_LEN - 8 {
        compress_with_held(backend, x, cur, y);
        x.bufs[cur] = [0; BLOCK_LEN];
    }
    x.bufs[cur][BLOCK_LEN - 8..].copy_from_slice(&bit_len.to_be_bytes());
    compress_with_held(backend, x, cur, y);
    let mut out = [0u8; DIGEST_LEN];
    for (dst, word) in out.chunks_exact_mut(4).zip(x.state.iter()) {
        dst.copy_from_slice(&word.to_be_bytes());
    }
    x.state = IV;
    x.len = 0;
    out
}

impl Default for Sha256Pair {
    /// Same as [`Sha256Pair::new`].
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Sha256Pair {
    /// Shows the back end and the byte counts, not the (message-dependent) states.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sha256Pair")
            .field("backend", &self.backend)
            .field("len_a", &self.a.len)
            .field("len_b", &self.b.len)
            .finish_non_exhaustive()
    }
}
