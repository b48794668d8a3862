//! Tests for the SHA-256 module. Expected digests were computed outside this code
//! (Python `hashlib`) and pasted as hex.

use super::{
    arm_sha2_available, compress, compress2, detected_backend, digest, shani_available, Backend,
    Sha256, Sha256Pair, BLOCK_LEN, DIGEST_LEN, IV,
};
use std::io::Write;
use std::vec::Vec;

/// FIPS 180-4 example messages with their digests.
const FIPS: [(&[u8], &str); 4] = [
    (
        b"",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    ),
    (
        b"abc",
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    ),
    (
        b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    ),
    (
        b"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
    ),
];

/// SHA-256 of one million 'a' (FIPS 180-4 / NIST example).
const MILLION_A: &str = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";

/// Digests of prefixes of [`pseudo_random`] (Python: the same xorshift32, then hashlib).
const PREFIXES: [(usize, &str); 16] = [
    (
        1,
        "4ae81572f06e1b88fd5ced7a1a000945432e83e1551e6f721ee9c00b8cc33260",
    ),
    (
        3,
        "a9bf785b0a0b032458c2515421de67215ec44e1c6b3b678668427e2df8d34358",
    ),
    (
        55,
        "e70ff16dc3fc9c874b5d20077141b5b6bdb8963e3375156651cd2ecc3968e2bc",
    ),
    (
        56,
        "466459624b681b3fd0c00f068a8335ca04db4ffcbcffbac7b4b9197caebb36d0",
    ),
    (
        57,
        "4009b5adec52c6be39868c28db571c5f8198efb9a4bc327ea6be7deae66e1066",
    ),
    (
        63,
        "adc0b3599ddd12e3d620cabad774f948fa131cadac3af49759f8bd0d1782fac5",
    ),
    (
        64,
        "b4e2f16eaed164610f6e30a6e2b33fcffa971ba0e00dbeb8641607157b3ba9c2",
    ),
    (
        65,
        "a96b755315607c4227c8d60e60209bb3d462fd0bd8d3263c5efd9555c9760285",
    ),
    (
        111,
        "ca8e00dedf33649b9b7a514c726dbc29e36215a0922f47a4a861618979faf448",
    ),
    (
        119,
        "4eaae58c8bd5e68d3840a1cbfd972c017b2e8e484055e7492afc8cced4ba79ae",
    ),
    (
        120,
        "da101c080148c0fe3963eefe45059ce555ea8606c2ec897e8abde216cd3a887f",
    ),
    (
        127,
        "929554df3f47663eaf7b43caf9f9f2e12e9f236264a051779b0b6badefd8b7b7",
    ),
    (
        128,
        "6ac7e2bd147c330020eda3b87fa0287b0353c566bd69f0bb57ca2c53d3a07fd7",
    ),
    (
        129,
        "95b837ca2b001c71fa7059051a082dfa218624732094b9ee6b539599376d088a",
    ),
    (
        1000,
        "ae6436be571098e0a2236f0cf9dd8ae9173ea7185f64696fa1c9d5fa9c5bb9b3",
    ),
    (
        1024,
        "8571f41a9bbc1d71a1ea915fbc7c68f4ca17ae09b4ce95bb8749bab203d9cc60",
    ),
];

/// Deterministic bytes: xorshift32 (13, 17, 5) from 0x9E3779B9, top byte of each state.
fn pseudo_random(n: usize) -> Vec<u8> {
    let mut x: u32 = 0x9E37_79B9;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 24) as u8
        })
        .collect()
}

/// Decodes 64 lowercase hex digits.
fn unhex(s: &str) -> [u8; DIGEST_LEN] {
    assert_eq!(s.len(), 2 * DIGEST_LEN);
    let mut out = [0u8; DIGEST_LEN];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
    }
    out
}

/// The hardware back end of this machine (SHA-NI on `x86_64`, the Armv8 instructions
/// on `aarch64`), when the build and the CPU can run it; if not, says so on the real
/// stderr (libtest does not capture direct writes), so a skip is visible in the test
/// output, or fails when `CONTRACTPIN_REQUIRE_HW_SHA256` is set.
fn hardware_or_skip(test: &str) -> Option<Backend> {
    if shani_available() {
        return Some(Backend::ShaNi);
    }
    if arm_sha2_available() {
        return Some(Backend::ArmSha2);
    }
    // scripts/test-cross.sh sets it where the CPU model has the instructions.
    if std::env::var_os("CONTRACTPIN_REQUIRE_HW_SHA256").is_some() {
        panic!("{test}: CONTRACTPIN_REQUIRE_HW_SHA256 is set, but no hardware SHA-256 back end runs here");
    }
    let _ = writeln!(
        std::io::stderr(),
        "NOTICE: {test}: SKIPPED, no hardware SHA-256 (the CPU lacks SHA-NI or the Armv8 \
         SHA-256 instructions, Miri, or --cfg contractpin_portable_sha256)"
    );
    None
}

/// The digest of `data` on `backend`, in one update.
fn hash_with(backend: Backend, data: &[u8]) -> [u8; DIGEST_LEN] {
    let mut h = Sha256::with_backend(backend);
    assert_eq!(h.backend(), backend);
    h.update(data);
    h.finalize()
}

fn check_fips(backend: Backend) {
    for (msg, hex) in FIPS {
        assert_eq!(hash_with(backend, msg), unhex(hex), "{backend:?} {msg:?}");
    }
}

fn check_million_a(backend: Backend) {
    let a = [b'a'; 1000];
    // Streaming, 1000 bytes at a time.
    let mut h = Sha256::with_backend(backend);
    for _ in 0..1000 {
        h.update(&a);
    }
    assert_eq!(h.finalize(), unhex(MILLION_A), "{backend:?} streaming");
    // One update over the whole message.
    let all = std::vec![b'a'; 1_000_000];
    assert_eq!(
        hash_with(backend, &all),
        unhex(MILLION_A),
        "{backend:?} one shot"
    );
}

fn check_prefixes(backend: Backend) {
    let data = pseudo_random(1024);
    for (n, hex) in PREFIXES {
        assert_eq!(
            hash_with(backend, &data[..n]),
            unhex(hex),
            "{backend:?} len {n}"
        );
    }
}

/// The single padded block of "abc" (FIPS 180-4 section 5.1.1).
fn abc_block() -> [u8; BLOCK_LEN] {
    let mut block = [0u8; BLOCK_LEN];
    block[..3].copy_from_slice(b"abc");
    block[3] = 0x80;
    block[63] = 24;
    block
}

fn check_compress(backend: Backend) {
    let expect = unhex(FIPS[1].1);
    // At an unaligned address and with a trailing partial block that must be ignored.
    let mut buf = [0u8; 1 + BLOCK_LEN + 5];
    buf[1..1 + BLOCK_LEN].copy_from_slice(&abc_block());
    buf[1 + BLOCK_LEN..].fill(0xff);
    let mut state = IV;
    compress(backend, &mut state, &buf[1..]);
    let mut out = [0u8; DIGEST_LEN];
    for (d, w) in out.chunks_exact_mut(4).zip(state) {
        d.copy_from_slice(&w.to_be_bytes());
    }
    assert_eq!(out, expect, "{backend:?}");
    // Fewer than 64 bytes: nothing happens.
    let mut state = IV;
    compress(backend, &mut state, &buf[..BLOCK_LEN - 1]);
    assert_eq!(state, IV);
}

#[test]
fn fips_examples_portable() {
    check_fips(Backend::Portable);
}

#[test]
fn fips_examples_hardware() {
    if let Some(hardware) = hardware_or_skip("fips_examples_hardware") {
        check_fips(hardware);
    }
}

#[test]
#[cfg_attr(miri, ignore = "one million bytes is too slow under Miri")]
fn million_a_portable() {
    check_million_a(Backend::Portable);
}

#[test]
fn million_a_hardware() {
    if let Some(hardware) = hardware_or_skip("million_a_hardware") {
        check_million_a(hardware);
    }
}

#[test]
fn python_prefixes_portable() {
    check_prefixes(Backend::Portable);
}

#[test]
fn python_prefixes_hardware() {
    if let Some(hardware) = hardware_or_skip("python_prefixes_hardware") {
        check_prefixes(hardware);
    }
}

#[test]
fn compress_abc_block_portable() {
    check_compress(Backend::Portable);
}

#[test]
fn compress_abc_block_hardware() {
    if let Some(hardware) = hardware_or_skip("compress_abc_block_hardware") {
        check_compress(hardware);
    }
}

#[test]
fn backends_agree_on_every_length_0_to_1024() {
    let Some(hardware) = hardware_or_skip("backends_agree_on_every_length_0_to_1024") else {
        return;
    };
    let data = pseudo_random(1024 + 7);
    for n in 0..=1024 {
        // Two alignments, to exercise the unaligned loads.
        for start in [0, 7] {
            let msg = &data[start..start + n];
            assert_eq!(
                hash_with(Backend::Portable, msg),
                hash_with(hardware, msg),
                "len {n} offset {start}"
            );
        }
    }
}

#[test]
fn backends_agree_on_compress_from_random_states() {
    let Some(hardware) = hardware_or_skip("backends_agree_on_compress_from_random_states") else {
        return;
    };
    let data = pseudo_random(64 * 20 + 32);
    for nblocks in 0..=20 {
        let mut p = [0u32; 8];
        for (i, w) in p.iter_mut().enumerate() {
            let b = &data[i * 4..i * 4 + 4];
            *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) ^ (nblocks as u32);
        }
        let mut s = p;
        let blocks = &data[32..32 + 64 * nblocks];
        compress(Backend::Portable, &mut p, blocks);
        compress(hardware, &mut s, blocks);
        assert_eq!(p, s, "{nblocks} blocks");
    }
}

/// Every backend this machine can run.
fn backends() -> Vec<Backend> {
    let mut v = std::vec![Backend::Portable];
    if shani_available() {
        v.push(Backend::ShaNi);
    }
    if arm_sha2_available() {
        v.push(Backend::ArmSha2);
    }
    v
}

#[test]
fn streaming_split_at_every_position() {
    let n = if cfg!(miri) { 150 } else { 300 };
    let data = pseudo_random(n);
    for backend in backends() {
        let whole = hash_with(backend, &data);
        for cut in 0..=n {
            let mut h = Sha256::with_backend(backend);
            h.update(&data[..cut]);
            h.update(&data[cut..]);
            assert_eq!(h.finalize(), whole, "{backend:?} cut {cut}");
        }
        // Three pieces.
        for cut1 in (0..=n).step_by(7) {
            for cut2 in (cut1..=n).step_by(11) {
                let mut h = Sha256::with_backend(backend);
                h.update(&data[..cut1]);
                h.update(&data[cut1..cut2]);
                h.update(&data[cut2..]);
                assert_eq!(h.finalize(), whole, "{backend:?} cuts {cut1} {cut2}");
            }
        }
    }
}

#[test]
fn streaming_many_small_chunks() {
    let data = pseudo_random(1000);
    let expect = unhex(PREFIXES[14].1);
    for backend in backends() {
        // Fixed chunk sizes 1..=130, then a varying pattern of 1..=8 and longer pieces.
        let step = if cfg!(miri) { 9 } else { 1 };
        for size in (1..=130).step_by(step) {
            let mut h = Sha256::with_backend(backend);
            for chunk in data.chunks(size) {
                h.update(chunk);
            }
            assert_eq!(h.finalize(), expect, "{backend:?} chunk size {size}");
        }
        let pattern = [1usize, 2, 3, 8, 0, 5, 4, 7, 6, 1, 64, 1, 63, 129, 2];
        let mut h = Sha256::with_backend(backend);
        let mut rest = &data[..];
        let mut i = 0;
        while !rest.is_empty() {
            let take = pattern[i % pattern.len()].min(rest.len());
            h.update(&rest[..take]);
            rest = &rest[take..];
            i += 1;
        }
        assert_eq!(h.finalize(), expect, "{backend:?} pattern");
    }
}

#[test]
fn finalize_reset_reset_and_clone() {
    let data = pseudo_random(1000);
    let expect_1000 = unhex(PREFIXES[14].1);
    let expect_64 = unhex(PREFIXES[6].1);
    for backend in backends() {
        let mut h = Sha256::with_backend(backend);
        h.update(&data[..500]);
        let fork = h.clone();
        h.update(&data[500..]);
        assert_eq!(h.finalize_reset(), expect_1000, "{backend:?}");
        assert_eq!(h.backend(), backend);
        // After finalize_reset the hasher starts a fresh message.
        h.update(&data[..64]);
        assert_eq!(h.finalize_reset(), expect_64, "{backend:?}");
        assert_eq!(h.finalize_reset(), unhex(FIPS[0].1), "{backend:?} empty");
        // The clone continues independently.
        let mut fork = fork;
        fork.update(&data[500..]);
        assert_eq!(fork.finalize(), expect_1000, "{backend:?} clone");
        // reset discards pending input.
        h.update(b"garbage");
        h.reset();
        h.update(b"abc");
        assert_eq!(h.finalize(), unhex(FIPS[1].1), "{backend:?} reset");
    }
}

#[test]
fn default_new_digest_use_detected_backend() {
    let detected = detected_backend();
    assert_eq!(Sha256::new().backend(), detected);
    assert_eq!(Sha256::default().backend(), detected);
    assert_eq!(digest(b"abc"), unhex(FIPS[1].1));
    let expect = hardware_or_skip("default_new_digest_use_detected_backend (hardware part)")
        .unwrap_or(Backend::Portable);
    assert_eq!(detected, expect);
    assert_eq!(
        Sha256::with_backend(Backend::Portable).backend(),
        Backend::Portable
    );
    // A hardware back end asked for is used where it runs, else the portable one.
    for hardware in [Backend::ShaNi, Backend::ArmSha2] {
        let runs = if hardware == expect {
            hardware
        } else {
            Backend::Portable
        };
        assert_eq!(
            Sha256::with_backend(hardware).backend(),
            runs,
            "{hardware:?}"
        );
        assert_eq!(
            Sha256Pair::with_backend(hardware).backend(),
            runs,
            "{hardware:?}"
        );
    }
}

#[test]
fn hardware_is_never_used_when_forced_portable() {
    // (Miri runs SHA-NI where the build targets it, not the Armv8 back end.)
    if cfg!(any(
        contractpin_portable_sha256,
        not(any(target_arch = "x86_64", target_arch = "aarch64")),
        all(miri, target_arch = "aarch64")
    )) {
        assert_eq!(detected_backend(), Backend::Portable);
        for hardware in [Backend::ShaNi, Backend::ArmSha2] {
            assert_eq!(Sha256::with_backend(hardware).backend(), Backend::Portable);
        }
        return;
    }
    // The build allows the hardware back end: it is used exactly when the CPU
    // reports it (an independent check through std's feature detection).
    #[cfg(target_arch = "x86_64")]
    {
        let cpu = std::is_x86_feature_detected!("sha")
            && std::is_x86_feature_detected!("ssse3")
            && std::is_x86_feature_detected!("sse4.1");
        assert_eq!(detected_backend() == Backend::ShaNi, cpu);
        assert!(!arm_sha2_available());
    }
    #[cfg(target_arch = "aarch64")]
    {
        let cpu = cfg!(target_endian = "little") && std::arch::is_aarch64_feature_detected!("sha2");
        assert_eq!(detected_backend() == Backend::ArmSha2, cpu);
        assert!(!shani_available());
    }
}

#[test]
fn debug_shows_backend_and_length() {
    let mut h = Sha256::with_backend(Backend::Portable);
    h.update(b"abcd");
    let s = std::format!("{h:?}");
    assert!(s.contains("Portable") && s.contains("len: 4"), "{s}");
}

use crate::test_rng::Rng;

/// A length below `max`, mostly short (as a canonical writer emits), sometimes long.
fn short_len(rng: &mut Rng, max: usize) -> usize {
    let r = rng.next();
    let cap = match r % 8 {
        0..=4 => 17,
        5 | 6 => 130,
        _ => max,
    };
    ((r >> 8) as usize) % cap.min(max)
}

/// A chaining value that is not the IV, from `data`.
fn state_from(data: &[u8], salt: u32) -> [u32; 8] {
    let mut s = [0u32; 8];
    for (i, w) in s.iter_mut().enumerate() {
        let b = &data[i * 4..i * 4 + 4];
        *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) ^ salt;
    }
    s
}

#[test]
fn compress2_matches_one_way_compress_on_every_backend() {
    let data = pseudo_random(64 * 24 + 96);
    for backend in backends() {
        for na in 0..=9usize {
            for nb in 0..=9usize {
                // Unequal counts and ragged tails: the extra blocks run one-way.
                let blocks_a = &data[32..32 + 64 * na + na % 5];
                let blocks_b = &data[61..61 + 64 * nb + nb % 3];
                let (mut a2, mut b2) = (state_from(&data, na as u32), state_from(&data[5..], 7));
                let (mut a1, mut b1) = (a2, b2);
                let (mut ap, mut bp) = (a2, b2);
                compress2(backend, &mut a2, blocks_a, &mut b2, blocks_b);
                compress(backend, &mut a1, blocks_a);
                compress(backend, &mut b1, blocks_b);
                compress(Backend::Portable, &mut ap, blocks_a);
                compress(Backend::Portable, &mut bp, blocks_b);
                assert_eq!((a2, b2), (a1, b1), "{backend:?} {na}x{nb} 2-way vs 1-way");
                assert_eq!((a2, b2), (ap, bp), "{backend:?} {na}x{nb} vs portable");
            }
        }
    }
}

/// SHA-NI's two and four streams against the portable compression: the
/// kernels as dispatched, and each of their two builds (`shani::two_builds!`)
/// called directly, whichever one the CPU would be given: the SSE4.1 build
/// wherever SHA-NI runs, the AVX-512 VL one where the CPU also has VL (a
/// loud notice where it does not). Random chaining values, unequal block
/// counts (the shortest one sets how many run) with ragged tails ignored,
/// and every stream on the same block (no registers shared between
/// streams); small enough for Miri (`scripts/miri-core.sh`).
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_sha256)))]
#[test]
fn both_builds_of_the_multi_stream_kernels_match_portable() {
    use super::shani;
    // On x86-64 the one hardware back end is SHA-NI.
    if hardware_or_skip("both_builds_of_the_multi_stream_kernels_match_portable").is_none() {
        return;
    }
    type Two = unsafe fn(&mut [u32; 8], &[u8], &mut [u32; 8], &[u8]);
    type Four = unsafe fn([&mut [u32; 8]; 4], [&[u8]; 4]);
    let mut builds: Vec<(&str, Two, Four)> = std::vec![
        ("dispatched", shani::compress2, shani::compress4),
        ("sse", shani::compress2_sse, shani::compress4_sse),
    ];
    if shani::wide_registers() {
        builds.push(("vl", shani::compress2_vl, shani::compress4_vl));
    } else {
        let _ = writeln!(
            std::io::stderr(),
            "NOTICE: both_builds_of_the_multi_stream_kernels_match_portable: the AVX-512 VL \
             builds SKIPPED, the CPU lacks AVX-512 VL (or it is not in the Miri build's features)"
        );
    }
    let data = pseudo_random(64 * 12 + 200);
    let counts: &[[usize; 4]] = if cfg!(miri) {
        &[[1, 2, 1, 3], [0, 1, 1, 1]]
    } else {
        &[
            [0, 0, 0, 0],
            [1, 1, 1, 1],
            [3, 5, 4, 7],
            [9, 9, 9, 9],
            [12, 2, 6, 11],
            [4, 0, 4, 4],
        ]
    };
    for (name, two, four) in builds {
        for n in counts {
            let blocks: [&[u8]; 4] = core::array::from_fn(|s| {
                let at = 17 * s + 3;
                &data[at..at + 64 * n[s] + s]
            });
            let start: [[u32; 8]; 4] =
                core::array::from_fn(|s| state_from(&data[s..], n[s] as u32));
            let portable = |s: usize, blocks_run: usize| {
                let mut w = start[s];
                compress(Backend::Portable, &mut w, &blocks[s][..64 * blocks_run]);
                w
            };
            let run4 = *n.iter().min().unwrap_or(&0);
            let mut got = start;
            // SAFETY: SHA-NI was detected above, and the VL builds are listed
            // only where `wide_registers` reported AVX-512 VL.
            unsafe { four(got.each_mut(), blocks) };
            let want: [[u32; 8]; 4] = core::array::from_fn(|s| portable(s, run4));
            assert_eq!(got, want, "compress4_{name} {n:?}");
            let (mut a, mut b) = (start[0], start[1]);
            // SAFETY: as above.
            unsafe { two(&mut a, blocks[0], &mut b, blocks[1]) };
            let run2 = n[0].min(n[1]);
            assert_eq!(
                (a, b),
                (portable(0, run2), portable(1, run2)),
                "compress2_{name} {n:?}"
            );
        }
        let block = abc_block();
        let mut one = IV;
        compress(Backend::Portable, &mut one, &block);
        let mut same = [IV; 4];
        // SAFETY: as above.
        unsafe { four(same.each_mut(), [&block; 4]) };
        assert_eq!(
            same, [one; 4],
            "compress4_{name}, one block in every stream"
        );
        let (mut a, mut b) = (IV, IV);
        // SAFETY: as above.
        unsafe { two(&mut a, &block, &mut b, &block) };
        assert_eq!(
            (a, b),
            (one, one),
            "compress2_{name}, one block in both streams"
        );
    }
}

/// Where the CPU has SHA-NI and AVX-512 VL with the OS's support, the
/// multi-stream kernels run their VL build, as `std`'s own detection says.
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_sha256), not(miri)))]
#[test]
fn the_wide_register_builds_follow_the_cpu() {
    let std_says =
        std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512vl");
    assert_eq!(super::shani::wide_registers(), std_says);
}

/// The sixteen AVX-512 lanes against the portable compression, lane by
/// lane: random chaining values, each lane on blocks of its own (at
/// unaligned offsets), and every lane on the same block. Small enough for
/// Miri (the `avx512` lane of `scripts/miri-core.sh`).
#[cfg(all(target_arch = "x86_64", not(contractpin_portable_sha256)))]
#[test]
fn compress16_matches_portable_from_random_states() {
    use super::many::{Compress16, Wide};
    let Some(k) = super::avx512::Avx512::detect() else {
        let _ = writeln!(
            std::io::stderr(),
            "NOTICE: compress16_matches_portable_from_random_states: SKIPPED, the CPU lacks AVX-512 F/BW"
        );
        return;
    };
    let data = pseudo_random(64 * 3 + 17 * 16 + 32);
    let lane_states: [[u32; 8]; 16] = core::array::from_fn(|l| state_from(&data[l..], l as u32));
    let runs: &[usize] = if cfg!(miri) { &[1] } else { &[0, 1, 2, 3] };
    for &blocks in runs {
        let lanes: [&[u8]; 16] = core::array::from_fn(|l| &data[17 * l..17 * l + 64 * blocks]);
        let mut wide: Wide = core::array::from_fn(|w| core::array::from_fn(|l| lane_states[l][w]));
        k.compress16(&mut wide, &lanes, blocks);
        for (l, bytes) in lanes.iter().enumerate() {
            let mut want = lane_states[l];
            compress(Backend::Portable, &mut want, bytes);
            let got: [u32; 8] = core::array::from_fn(|w| wide[w][l]);
            assert_eq!(got, want, "lane {l}, {blocks} blocks");
        }
    }
    let block = abc_block();
    let mut wide: Wide = IV.map(|w| [w; 16]);
    k.compress16(&mut wide, &[&block[..]; 16], 1);
    let mut one = IV;
    compress(Backend::Portable, &mut one, &block);
    assert_eq!(wide, one.map(|w| [w; 16]));
}

#[test]
fn compress2_same_state_and_block_twice() {
    // Both streams on the same input must still be independent (no shared registers).
    let block = abc_block();
    for backend in backends() {
        let (mut a, mut b) = (IV, IV);
        compress2(backend, &mut a, &block, &mut b, &block);
        let mut one = IV;
        compress(Backend::Portable, &mut one, &block);
        assert_eq!(a, one, "{backend:?}");
        assert_eq!(b, one, "{backend:?}");
    }
}

#[test]
fn pair_known_answers() {
    // FIPS messages in stream A, the same messages reversed in order in stream B, one
    // byte at a time and in one piece, on every back end.
    for backend in backends() {
        let mut p = Sha256Pair::with_backend(backend);
        for (i, &(msg, hex)) in FIPS.iter().enumerate() {
            let (other, other_hex) = FIPS[FIPS.len() - 1 - i];
            p.update_b(other);
            for byte in msg {
                p.update_a(core::slice::from_ref(byte));
            }
            assert_eq!(p.finalize_reset_a(), unhex(hex), "{backend:?} A {i}");
            assert_eq!(p.finalize_reset_b(), unhex(other_hex), "{backend:?} B {i}");
        }
        let data = pseudo_random(1024);
        for &(n, hex) in &PREFIXES {
            // The prefix into both streams, B also in one more piece.
            let cut = n / 3;
            p.update_both(&data[..cut]);
            p.update_both(&data[cut..n]);
            assert_eq!(p.finalize_reset_b(), unhex(hex), "{backend:?} B prefix {n}");
            assert_eq!(p.finalize_reset_a(), unhex(hex), "{backend:?} A prefix {n}");
        }
    }
}

#[test]
#[cfg_attr(miri, ignore = "one million bytes is too slow under Miri")]
fn pair_million_a_in_both_streams() {
    let chunk = [b'a'; 1000];
    for backend in backends() {
        let mut p = Sha256Pair::with_backend(backend);
        // Stream A starts 3 bytes ahead, so the two streams' blocks are out of phase.
        p.update_a(&chunk[..3]);
        for _ in 0..999 {
            p.update_both(&chunk);
        }
        p.update_both(&chunk[..997]);
        p.update_b(&chunk[..3]);
        assert_eq!(p.finalize_reset_a(), unhex(MILLION_A), "{backend:?} A");
        assert_eq!(p.finalize_reset_b(), unhex(MILLION_A), "{backend:?} B");
    }
}

/// Random writes to a pair, mirrored into two one-way hashers on the same back end and
/// two portable ones; every digest must agree. Returns how many digests were compared.
fn random_pair_run(backend: Backend, seed: u64, steps: usize) -> usize {
    let data = pseudo_random(4096);
    let mut rng = Rng(seed);
    let mut pair = Sha256Pair::with_backend(backend);
    let mut one = [Sha256::with_backend(backend), Sha256::with_backend(backend)];
    let mut soft = [
        Sha256::with_backend(Backend::Portable),
        Sha256::with_backend(Backend::Portable),
    ];
    let mut compared = 0;
    for step in 0..steps {
        let (la, lb) = (
            short_len(&mut rng, data.len()),
            short_len(&mut rng, data.len()),
        );
        let (oa, ob) = (
            rng.next() as usize % (data.len() - la + 1),
            rng.next() as usize % (data.len() - lb + 1),
        );
        let (da, db) = (&data[oa..oa + la], &data[ob..ob + lb]);
        let (da, db): (&[u8], &[u8]) = match rng.next() % 6 {
            0 => {
                pair.update_a(da);
                (da, &[])
            }
            1 => {
                pair.update_b(db);
                (&[], db)
            }
            2 | 3 => {
                pair.update_both(da);
                (da, da)
            }
            _ => {
                pair.update2(da, db);
                (da, db)
            }
        };
        for (h, d) in one.iter_mut().zip([da, db]) {
            h.update(d);
        }
        for (h, d) in soft.iter_mut().zip([da, db]) {
            h.update(d);
        }
        let r = rng.next() % 16;
        if r < 2 {
            let lane = r as usize;
            let got = if lane == 0 {
                pair.finalize_reset_a()
            } else {
                pair.finalize_reset_b()
            };
            let want = one[lane].finalize_reset();
            assert_eq!(
                got, want,
                "{backend:?} seed {seed} step {step} lane {lane} vs 1-way"
            );
            assert_eq!(got, soft[lane].finalize_reset(), "{backend:?} vs portable");
            compared += 1;
        }
    }
    for lane in 0..2 {
        let got = if lane == 0 {
            pair.finalize_reset_a()
        } else {
            pair.finalize_reset_b()
        };
        assert_eq!(
            got,
            one[lane].finalize_reset(),
            "{backend:?} seed {seed} end {lane}"
        );
        assert_eq!(
            got,
            soft[lane].finalize_reset(),
            "{backend:?} seed {seed} end {lane}"
        );
        compared += 1;
    }
    compared
}

#[test]
fn pair_random_writes_match_one_way_and_portable() {
    let (seeds, steps): (u64, usize) = if cfg!(miri) { (2, 60) } else { (64, 600) };
    for backend in backends() {
        // The write and buffering logic is the same for every back end; the
        // many seeds are for SHA-NI's interleaved streams. The portable back
        // end (all there is off x86-64, where this ran for 42 s of the 47 s
        // of the unit tests under qemu-s390x) gets an eighth of them.
        let seeds = if backend == Backend::Portable {
            seeds.div_ceil(8)
        } else {
            seeds
        };
        let mut compared = 0;
        for seed in 0..seeds {
            compared += random_pair_run(backend, seed, steps);
        }
        // Guard against a run that never finalizes mid-way.
        assert!(
            compared > seeds as usize * 10,
            "{backend:?}: {compared} digests"
        );
    }
}

#[test]
fn pair_split_at_every_position_of_both_streams() {
    // The same 300-byte message into both streams; A cut at i, B cut at j.
    let n = if cfg!(miri) { 130 } else { 300 };
    let data = pseudo_random(n);
    for backend in backends() {
        let whole = hash_with(Backend::Portable, &data);
        for i in (0..=n).step_by(if cfg!(miri) { 13 } else { 1 }) {
            for j in (0..=n).step_by(29) {
                let mut p = Sha256Pair::with_backend(backend);
                let (lo, hi) = (i.min(j), i.max(j));
                p.update_both(&data[..lo]);
                if i < j {
                    p.update2(&data[lo..hi], &[]);
                } else {
                    p.update2(&[], &data[lo..hi]);
                }
                p.update2(
                    &data[if i < j { hi } else { lo }..],
                    &data[if i < j { lo } else { hi }..],
                );
                assert_eq!(p.finalize_reset_a(), whole, "{backend:?} cuts {i} {j} A");
                assert_eq!(p.finalize_reset_b(), whole, "{backend:?} cuts {i} {j} B");
            }
        }
    }
}

#[test]
fn pair_backend_and_debug() {
    assert_eq!(Sha256Pair::new().backend(), detected_backend());
    assert_eq!(Sha256Pair::default().backend(), detected_backend());
    for hardware in [Backend::ShaNi, Backend::ArmSha2] {
        assert_eq!(
            Sha256Pair::with_backend(hardware).backend(),
            Sha256::with_backend(hardware).backend()
        );
    }
    let mut p = Sha256Pair::with_backend(Backend::Portable);
    p.update2(b"abcd", b"ef");
    let s = std::format!("{p:?}");
    assert!(
        s.contains("Portable") && s.contains("len_a: 4") && s.contains("len_b: 2"),
        "{s}"
    );
}
