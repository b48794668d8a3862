//! Many independent messages hashed at once (multi-buffer SHA-256).
//!
//! [`digest_many`] deals the messages out to the lanes of a compression
//! kernel that advances several messages by one block per call, and gives a
//! lane the next message as soon as its current one is done (as Intel's
//! multi-buffer managers do). The kernels:
//!
//! - sixteen lanes of AVX-512 ([`super::avx512`], one message per 32-bit lane
//!   of a `zmm` register), where the CPU has AVX-512 F and BW and runs
//!   512-bit operations whole;
//! - four lanes: SHA-NI's four interleaved streams ([`super::shani::compress4`]),
//!   on AMD CPUs with SHA-NI (whose SHA unit overlaps four streams) and no
//!   such AVX-512 (Zen 4 runs 512-bit operations in two halves, and there
//!   the four streams are the faster);
//! - otherwise two lanes: the two-stream compression of the back end in use
//!   (SHA-NI's or the Armv8 instructions' interleaved `compress2`, or the
//!   portable one).
//!
//! The portable twin of the sixteen-lane kernel ([`Portable16`]) runs the
//! same lane manager one lane at a time; the tests hold every kernel to it
//! and every digest to the one-message hasher. The digests never depend on
//! the kernel: only how many blocks share a call does.
//!
//! Each message's whole blocks are compressed straight from the message; its
//! last partial block and the padding are built in the lane's own 128 bytes.
//! Nothing is allocated.

use super::{compress2_resolved, compress_resolved, detected_backend, Backend};
use super::{BLOCK_LEN, DIGEST_LEN, IV};

/// A set of messages, by index.
pub trait Messages {
    /// How many messages there are.
    fn count(&self) -> usize;
    /// Message `i` (`i < count()`).
    fn message(&self, i: usize) -> &[u8];
}

impl Messages for [&[u8]] {
    fn count(&self) -> usize {
        self.len()
    }
    fn message(&self, i: usize) -> &[u8] {
        self[i]
    }
}

/// Messages as byte ranges of one buffer (how a batch of canonical
/// contracts and their field values is kept), taken in the order `order`
/// gives: message `i` is range `order[i]` (see [`deal_order`]).
#[cfg(any(feature = "alloc", test))]
pub(crate) struct Spans<'a> {
    pub buf: &'a [u8],
    pub spans: &'a [(u32, u32)],
    pub order: &'a [u32],
}

#[cfg(any(feature = "alloc", test))]
impl Messages for Spans<'_> {
    fn count(&self) -> usize {
        self.order.len()
    }
    fn message(&self, i: usize) -> &[u8] {
        let (start, end) = self.spans[self.order[i] as usize];
        &self.buf[start as usize..end as usize]
    }
}

/// Ranges of at least `LONG[0]` bytes are dealt to the lanes first, then
/// those of at least `LONG[1]`, then the rest: with the longest messages
/// started first, the lanes run out of work at about the same time, and
/// few blocks are left for wide calls with idle lanes or for the one-lane
/// finish ([`drain`]).
#[cfg(feature = "alloc")]
const LONG: [u32; 2] = [1024, 256];

/// Writes to `order` the order to deal the ranges `spans` in (for
/// [`Spans`]): by [`LONG`] class, the longest class first, each class in
/// the ranges' own order.
#[cfg(feature = "alloc")]
pub(crate) fn deal_order(spans: &[(u32, u32)], order: &mut alloc::vec::Vec<u32>) {
    let class = |&(start, end): &(u32, u32)| {
        let n = end.saturating_sub(start);
        (n < LONG[0]) as usize + (n < LONG[1]) as usize
    };
    let mut count = [0usize; 3];
    for span in spans {
        count[class(span)] += 1;
    }
    let mut next = [0, count[0], count[0] + count[1]];
    order.clear();
    order.resize(spans.len(), 0);
    for (i, span) in spans.iter().enumerate() {
        let c = class(span);
        order[next[c]] = i as u32;
        next[c] += 1;
    }
}

/// A compression kernel with `LANES` lanes, each holding one message's
/// chaining value.
pub(crate) trait Kernel {
    /// Messages advanced per call.
    const LANES: usize;
    /// When no message is left to start and at most this many lanes are
    /// busy, they are finished one message at a time (a wide call with
    /// mostly idle lanes costs more than the one-message hasher).
    const DRAIN_AT: usize;
    /// The chaining values of all lanes.
    type State;
    /// All lanes at the initial hash value.
    fn new_state() -> Self::State;
    /// Lane `lane` back to the initial hash value.
    fn reset(&self, state: &mut Self::State, lane: usize);
    /// Compresses the first `blocks` whole blocks of `data[i]` into lane
    /// `i`, for every lane (each `data[i]` holds at least that many).
    fn compress(&self, state: &mut Self::State, data: &[&[u8]], blocks: usize);
    /// Lane `lane`'s chaining value.
    fn chaining(&self, state: &Self::State, lane: usize) -> [u32; 8];
}

/// The most lanes any kernel has.
const MAX_LANES: usize = 16;

/// The longest run of whole blocks one kernel call takes.
const MAX_RUN: usize = 32;

/// A lane with nothing to do compresses these (its result is never read).
static IDLE: [u8; MAX_RUN * BLOCK_LEN] = [0; MAX_RUN * BLOCK_LEN];

/// One idle block: the first of [`IDLE`].
fn idle_block() -> &'static [u8; BLOCK_LEN] {
    IDLE.first_chunk().unwrap_or(&[0; BLOCK_LEN])
}

/// One lane's message: the whole blocks still to compress, then the tail
/// (the last partial block and the padding, one or two blocks).
#[derive(Clone, Copy)]
struct Lane<'m> {
    /// Index of the message, `None` when the lane is idle.
    message: Option<usize>,
    /// Whole blocks of the message not compressed yet.
    whole: &'m [u8],
    tail: [u8; 2 * BLOCK_LEN],
    /// Tail blocks: how many there are and how many are compressed.
    tail_blocks: u8,
    tail_done: u8,
}

impl<'m> Lane<'m> {
    const IDLE: Lane<'static> = Lane {
        message: None,
        whole: &[],
        tail: [0; 2 * BLOCK_LEN],
        tail_blocks: 0,
        tail_done: 0,
    };

    /// Lane for message `index`, whose bytes are `data`.
    fn start(index: usize, data: &'m [u8]) -> Lane<'m> {
        let split = data.len() - data.len() % BLOCK_LEN;
        let (whole, rest) = data.split_at(split);
        let mut tail = [0; 2 * BLOCK_LEN];
        tail[..rest.len()].copy_from_slice(rest);
        tail[rest.len()] = 0x80;
        let blocks = if rest.len() + 9 <= BLOCK_LEN { 1 } else { 2 };
        let bits = (data.len() as u64).wrapping_mul(8);
        tail[blocks * BLOCK_LEN - 8..blocks * BLOCK_LEN].copy_from_slice(&bits.to_be_bytes());
        Lane {
            message: Some(index),
            whole,
            tail,
            tail_blocks: blocks as u8,
            tail_done: 0,
        }
    }

    /// Where the lane's next block is, and whether it is the message's last.
    fn advance(&mut self) -> (Next<'m>, bool) {
        if self.message.is_none() {
            return (Next::Idle, false);
        }
        if let Some((block, rest)) = self.whole.split_first_chunk::<BLOCK_LEN>() {
            self.whole = rest;
            return (Next::Whole(block), false);
        }
        let at = self.tail_done as usize * BLOCK_LEN;
        self.tail_done += 1;
        (Next::Tail(at), self.tail_done == self.tail_blocks)
    }

    /// The block that [`Lane::advance`] pointed to.
    fn block<'s>(&'s self, next: Next<'m>) -> &'s [u8; BLOCK_LEN] {
        match next {
            Next::Whole(block) => block,
            Next::Tail(at) => self.tail[at..]
                .first_chunk::<BLOCK_LEN>()
                .unwrap_or(idle_block()),
            Next::Idle => idle_block(),
        }
    }
}

/// Where a lane's next block is.
#[derive(Clone, Copy)]
enum Next<'m> {
    /// A whole block of the message.
    Whole(&'m [u8; BLOCK_LEN]),
    /// The tail block at this offset of the lane's tail.
    Tail(usize),
    /// The lane is idle.
    Idle,
}

/// The digest of a chaining value.
fn digest_of(state: [u32; 8]) -> [u8; DIGEST_LEN] {
    let mut out = [0u8; DIGEST_LEN];
    for (dst, word) in out.chunks_exact_mut(4).zip(state.iter()) {
        dst.copy_from_slice(&word.to_be_bytes());
    }
    out
}

/// The messages not yet given to a lane.
struct Waiting<'m, M: ?Sized> {
    messages: &'m M,
    next: usize,
    count: usize,
}

impl<'m, M: Messages + ?Sized> Waiting<'m, M> {
    /// A lane for the next message, if any is left.
    fn take(&mut self) -> Option<Lane<'m>> {
        let i = self.next;
        (i < self.count).then(|| {
            self.next += 1;
            Lane::start(i, self.messages.message(i))
        })
    }

    /// Whether every message has been given to a lane.
    fn is_empty(&self) -> bool {
        self.next == self.count
    }
}

/// Hashes every message of `messages` with `kernel`, writing digest `i` to
/// `out[i]`.
pub(crate) fn digest_many_with<K: Kernel, M: Messages + ?Sized>(
    kernel: &K,
    messages: &M,
    out: &mut [[u8; DIGEST_LEN]],
) {
    let count = messages.count().min(out.len());
    let lanes = K::LANES.min(MAX_LANES);
    let mut state = K::new_state();
    let mut lane = [Lane::IDLE; MAX_LANES];
    let mut waiting = Waiting {
        messages,
        next: 0,
        count,
    };
    let mut active = 0;
    for (i, slot) in lane[..lanes].iter_mut().enumerate() {
        if let Some(l) = waiting.take() {
            *slot = l;
            kernel.reset(&mut state, i);
            active += 1;
        }
    }
    let mut next_block = [Next::Idle; MAX_LANES];
    let mut finished = [false; MAX_LANES];
    while active > 0 {
        if waiting.is_empty() && active <= K::DRAIN_AT {
            drain(kernel, &state, &mut lane[..lanes], out);
            return;
        }
        if run_whole_blocks(kernel, &mut state, &mut lane[..lanes]) {
            continue;
        }
        for i in 0..lanes {
            (next_block[i], finished[i]) = lane[i].advance();
        }
        let blocks: [&[u8]; MAX_LANES] =
            core::array::from_fn(|i| &lane[i].block(next_block[i])[..]);
        kernel.compress(&mut state, &blocks[..lanes], 1);
        for i in 0..lanes {
            if !finished[i] {
                continue;
            }
            if let Some(m) = lane[i].message {
                out[m] = digest_of(kernel.chaining(&state, i));
            }
            lane[i] = Lane::IDLE;
            active -= 1;
            if let Some(l) = waiting.take() {
                lane[i] = l;
                kernel.reset(&mut state, i);
                active += 1;
            }
        }
    }
}

/// Finishes every busy lane's message on its own, from the lane's chaining
/// value, with the one-message back end.
fn drain<K: Kernel>(
    kernel: &K,
    state: &K::State,
    lanes: &mut [Lane<'_>],
    out: &mut [[u8; DIGEST_LEN]],
) {
    let backend = detected_backend();
    for (i, l) in lanes.iter_mut().enumerate() {
        let Some(m) = l.message else {
            continue;
        };
        let mut chaining = kernel.chaining(state, i);
        compress_resolved(backend, &mut chaining, l.whole);
        let done = l.tail_done as usize * BLOCK_LEN;
        let end = l.tail_blocks as usize * BLOCK_LEN;
        compress_resolved(backend, &mut chaining, &l.tail[done..end]);
        out[m] = digest_of(chaining);
        *l = Lane::IDLE;
    }
}

/// When every busy lane still has whole blocks of its message, compresses
/// as many as all of them have (at most [`MAX_RUN`]) in one kernel call,
/// straight from the messages, and returns `true`.
fn run_whole_blocks<K: Kernel>(kernel: &K, state: &mut K::State, lanes: &mut [Lane<'_>]) -> bool {
    let run = lanes
        .iter()
        .filter(|l| l.message.is_some())
        .map(|l| l.whole.len() / BLOCK_LEN)
        .min()
        .unwrap_or(0)
        .min(MAX_RUN);
    if run == 0 {
        return false;
    }
    let bytes = run * BLOCK_LEN;
    let data: [&[u8]; MAX_LANES] = core::array::from_fn(|i| match lanes.get(i) {
        Some(l) if l.message.is_some() => &l.whole[..bytes],
        _ => &IDLE[..bytes],
    });
    kernel.compress(state, &data[..lanes.len()], run);
    for l in lanes.iter_mut().filter(|l| l.message.is_some()) {
        l.whole = &l.whole[bytes..];
    }
    true
}

/// Two lanes: the two-stream compression of a one-message back end.
pub(crate) struct Pairs(pub Backend);

impl Kernel for Pairs {
    const LANES: usize = 2;
    const DRAIN_AT: usize = 0;
    type State = [[u32; 8]; 2];
    fn new_state() -> Self::State {
        [IV; 2]
    }
    fn reset(&self, state: &mut Self::State, lane: usize) {
        state[lane] = IV;
    }
    fn compress(&self, state: &mut Self::State, data: &[&[u8]], blocks: usize) {
        let [a, b] = state;
        let bytes = blocks * BLOCK_LEN;
        compress2_resolved(self.0, a, &data[0][..bytes], b, &data[1][..bytes]);
    }
    fn chaining(&self, state: &Self::State, lane: usize) -> [u32; 8] {
        state[lane]
    }
}

/// Four lanes: SHA-NI's four-stream compression ([`super::shani::compress4`]).
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_sha256)))]
pub(crate) struct Quads(pub super::shani::ShaNi4);

#[cfg(all(target_arch = "x86_64", not(contractpin_portable_sha256)))]
impl Kernel for Quads {
    const LANES: usize = 4;
    const DRAIN_AT: usize = 1;
    type State = [[u32; 8]; 4];
    fn new_state() -> Self::State {
        [IV; 4]
    }
    fn reset(&self, state: &mut Self::State, lane: usize) {
        state[lane] = IV;
    }
    fn compress(&self, state: &mut Self::State, data: &[&[u8]], blocks: usize) {
        let bytes = blocks * BLOCK_LEN;
        let data = core::array::from_fn(|i| &data[i][..bytes]);
        self.0.compress4(state.each_mut(), data);
    }
    fn chaining(&self, state: &Self::State, lane: usize) -> [u32; 8] {
        state[lane]
    }
}

/// The sixteen-lane kernel: built where the AVX-512 back end exists (and in
/// the tests, for its portable twin), so other builds carry no dead code.
#[cfg(any(test, all(target_arch = "x86_64", not(contractpin_portable_sha256))))]
mod sixteen {
    use super::{Kernel, BLOCK_LEN, IV};

    /// The state of a sixteen-lane kernel: word `w` of lane `l` at `[w][l]`
    /// (a row is one 512-bit register).
    pub(crate) type Wide = [[u32; 16]; 8];

    /// A sixteen-lane compression over [`Wide`] state.
    pub(crate) trait Compress16 {
        /// Compresses the first `blocks` whole blocks of `data[l]` into lane
        /// `l`, for all sixteen lanes.
        fn compress16(&self, state: &mut Wide, data: &[&[u8]; 16], blocks: usize);
    }

    /// Any [`Compress16`] as a [`Kernel`] of sixteen lanes.
    pub(crate) struct Sixteen<C>(pub C);

    impl<C: Compress16> Kernel for Sixteen<C> {
        const LANES: usize = 16;
        const DRAIN_AT: usize = 6;
        type State = Wide;
        fn new_state() -> Wide {
            IV.map(|w| [w; 16])
        }
        fn reset(&self, state: &mut Wide, lane: usize) {
            for (row, w) in state.iter_mut().zip(IV) {
                row[lane] = w;
            }
        }
        fn compress(&self, state: &mut Wide, data: &[&[u8]], blocks: usize) {
            let bytes = blocks * BLOCK_LEN;
            let data: [&[u8]; 16] = core::array::from_fn(|l| &data[l][..bytes]);
            self.0.compress16(state, &data, blocks)
        }
        fn chaining(&self, state: &Wide, lane: usize) -> [u32; 8] {
            core::array::from_fn(|w| state[w][lane])
        }
    }

    /// The portable twin of the sixteen-lane kernel: each lane compressed on its
    /// own, in the same state layout.
    #[cfg(test)]
    pub(crate) struct Portable16;

    #[cfg(test)]
    impl Compress16 for Portable16 {
        fn compress16(&self, state: &mut Wide, data: &[&[u8]; 16], blocks: usize) {
            for (lane, bytes) in data.iter().enumerate() {
                let mut s: [u32; 8] = core::array::from_fn(|w| state[w][lane]);
                super::compress_resolved(
                    super::Backend::Portable,
                    &mut s,
                    &bytes[..blocks * BLOCK_LEN],
                );
                for (row, w) in state.iter_mut().zip(s) {
                    row[lane] = w;
                }
            }
        }
    }
}
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_sha256)))]
pub(crate) use sixteen::{Compress16, Sixteen, Wide};

/// The widest kernel for `count` messages on this CPU, when it is wider
/// than a pair and there are at least sixteen messages (with fewer, lanes
/// go idle early and a wide call costs more than a pair: one tool's list,
/// about six messages, took 15% longer through the four streams): sixteen
/// AVX-512 lanes or, on AMD CPUs with SHA-NI, SHA-NI's four streams. On AMD
/// Zen 4, which runs 512-bit operations in two halves, the four streams
/// are the faster and win over the sixteen lanes. Elsewhere SHA-NI stays at
/// two streams: on the Intel Xeon of docs/PERFORMANCE.md two streams gain
/// only 1.24x over one (the SHA unit, not the dependency chain, is the
/// limit there), so four could add little but register spills (not
/// measured: no such CPU here; see "Four SHA-NI streams" there).
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_sha256)))]
enum Widest {
    Sixteen(super::avx512::Avx512),
    Four(super::shani::ShaNi4),
}

#[cfg(all(target_arch = "x86_64", not(contractpin_portable_sha256)))]
impl Widest {
    fn for_count(count: usize) -> Option<Widest> {
        use crate::cpu::{amd, amd_zen3_zen4, Detected};
        static AMD: Detected = Detected::new();
        static HALVED_512: Detected = Detected::new();
        if count < 16 {
            return None;
        }
        let four = super::shani::ShaNi4::detect().filter(|_| AMD.get(amd));
        let halved = four.is_some() && HALVED_512.get(amd_zen3_zen4);
        match super::avx512::Avx512::detect() {
            Some(k) if !halved => Some(Widest::Sixteen(k)),
            _ => four.map(Widest::Four),
        }
    }
}

/// The digest of every message of `messages` (`out[i]` for message `i`;
/// `out` must be at least as long), hashed several at a time with the
/// widest kernel this CPU allows (see [`digest_many_lanes`]).
///
/// ```
/// # use contractpin::sha256::{digest, digest_many};
/// let messages: [&[u8]; 3] = [b"abc", b"", &[7u8; 200]];
/// let mut out = [[0u8; 32]; 3];
/// digest_many(&messages[..], &mut out);
/// assert_eq!(out[2], digest(&[7u8; 200]));
/// ```
pub fn digest_many<M: Messages + ?Sized>(messages: &M, out: &mut [[u8; DIGEST_LEN]]) {
    assert!(out.len() >= messages.count(), "one digest per message");
    #[cfg(all(target_arch = "x86_64", not(contractpin_portable_sha256)))]
    match Widest::for_count(messages.count()) {
        Some(Widest::Sixteen(k)) => return digest_many_with(&Sixteen(k), messages, out),
        Some(Widest::Four(k)) => return digest_many_with(&Quads(k), messages, out),
        None => {}
    }
    digest_many_with(&Pairs(detected_backend()), messages, out)
}

/// How many messages [`digest_many`] advances per compression call on this
/// CPU, given sixteen or more: 16 with AVX-512 F and BW (sixteen lanes of
/// 32 bits) but on AMD Zen 4; 4 on AMD CPUs with SHA-NI (four interleaved
/// streams); otherwise 2 (the two-stream compression of the one-message
/// back end).
pub fn digest_many_lanes() -> usize {
    #[cfg(all(target_arch = "x86_64", not(contractpin_portable_sha256)))]
    match Widest::for_count(usize::MAX) {
        Some(Widest::Sixteen(_)) => return 16,
        Some(Widest::Four(_)) => return 4,
        None => {}
    }
    2
}

#[cfg(test)]
mod tests {
    use super::sixteen::{Portable16, Sixteen};
    use super::*;
    use crate::sha256::digest;
    use std::vec::Vec;

    /// Messages of every length around the padding edges, and longer ones.
    fn corpus(seed: u64, count: usize) -> Vec<Vec<u8>> {
        let mut r = crate::test_rng::Rng(seed);
        (0..count)
            .map(|i| {
                let len = match i % 4 {
                    0 => r.below(130),
                    1 => 55 + r.below(10),
                    2 => r.below(4000),
                    _ => 119 + r.below(10),
                };
                (0..len).map(|_| r.next() as u8).collect()
            })
            .collect()
    }

    fn check<K: Kernel>(kernel: &K, name: &str) {
        for (seed, count) in [(1, 0), (2, 1), (3, 2), (4, 15), (5, 16), (6, 17), (7, 70)] {
            let msgs = corpus(seed, count);
            let refs: Vec<&[u8]> = msgs.iter().map(Vec::as_slice).collect();
            let mut out = std::vec![[0u8; 32]; count];
            digest_many_with(kernel, &refs[..], &mut out);
            for (m, d) in msgs.iter().zip(&out) {
                assert_eq!(*d, digest(m), "{name}: message of {} bytes", m.len());
            }
        }
    }

    #[test]
    fn every_kernel_gives_the_one_message_digests() {
        #[cfg(all(target_arch = "x86_64", not(contractpin_portable_sha256)))]
        if let Some(k) = super::super::shani::ShaNi4::detect() {
            check(&Quads(k), "quads");
        }
        check(&Sixteen(Portable16), "portable16");
        check(&Pairs(Backend::Portable), "pairs/portable");
        check(&Pairs(detected_backend()), "pairs/detected");
        #[cfg(all(target_arch = "x86_64", not(contractpin_portable_sha256)))]
        match super::super::avx512::Avx512::detect() {
            Some(k) => check(&Sixteen(k), "avx512"),
            None => {
                std::eprintln!("NOTICE: avx512 multi-buffer: SKIPPED, the CPU lacks AVX-512 F/BW")
            }
        }
    }

    /// The kernel `digest_many` takes is the one the CPU's features and
    /// family call for, read here from Linux's /proc/cpuinfo rather than
    /// from `crate::cpu`.
    #[cfg(all(target_os = "linux", target_arch = "x86_64", not(miri)))]
    #[test]
    fn the_widest_kernel_follows_the_cpu() {
        let info = std::fs::read_to_string("/proc/cpuinfo").expect("/proc/cpuinfo");
        let field = |name: &str| {
            let line = info.lines().find(|l| l.starts_with(name)).expect(name);
            std::string::String::from(line.split(':').nth(1).unwrap_or("").trim())
        };
        let amd = field("vendor_id") == "AuthenticAMD";
        let zen34 = amd && field("cpu family") == "25";
        let sha = std::is_x86_feature_detected!("sha");
        let avx512 =
            std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512bw");
        let want = if cfg!(contractpin_portable_sha256) {
            2
        } else if avx512 && !(sha && zen34) {
            16
        } else if sha && amd {
            4
        } else {
            2
        };
        let cpu = std::format!("amd {amd}, zen 3/4 {zen34}, sha {sha}, avx512 {avx512}");
        assert_eq!(digest_many_lanes(), want, "{cpu}");
        // Fewer than sixteen messages always go through pairs.
        #[cfg(not(contractpin_portable_sha256))]
        {
            assert!(Widest::for_count(15).is_none(), "{cpu}");
            assert_eq!(Widest::for_count(16).is_some(), want > 2, "{cpu}");
        }
    }

    #[test]
    fn spans_of_one_buffer_and_the_public_entry() {
        let buf: Vec<u8> = (0..5000u32).map(|i| (i * 7) as u8).collect();
        let spans = [(0, 0), (0, 64), (10, 4000), (3000, 3055), (4999, 5000)];
        let order = [3, 0, 4, 2, 1];
        let mut out = [[0u8; 32]; 5];
        let messages = Spans {
            buf: &buf,
            spans: &spans,
            order: &order,
        };
        digest_many(&messages, &mut out);
        for (&i, d) in order.iter().zip(out) {
            let (s, e) = spans[i as usize];
            assert_eq!(d, digest(&buf[s as usize..e as usize]));
        }
    }

    /// The dealing order is a permutation: every range once, the classes
    /// longest first, each class in the ranges' order.
    #[cfg(feature = "alloc")]
    #[test]
    fn deal_order_takes_the_long_classes_first() {
        let lens = [5u32, 2000, 300, 0, 1024, 255, 256, 1023, 9000, 40];
        let mut at = 0;
        let spans: Vec<(u32, u32)> = lens
            .iter()
            .map(|&n| {
                at += 1;
                (at, at + n)
            })
            .collect();
        let mut order = Vec::from([7u32; 3]);
        deal_order(&spans, &mut order);
        assert_eq!(order, [1, 4, 8, 2, 6, 7, 0, 3, 5, 9]);
        deal_order(&[], &mut order);
        assert!(order.is_empty());
    }
}
