//! The ES6 number sequence of the cyberphone JSON canonicalization test data
//! (`testdata/README.md` there): lines `hex-ieee,expected\n` for a
//! deterministic sequence of doubles, hashed with SHA-256 and compared with
//! the published hashes. The expected strings are V8's; here they come from
//! our formatter and the lines are hashed with our SHA-256.
//!
//! The first 1,000,000 lines run in the normal suite; the full 100,000,000
//! run with `cargo test --release --test es6_numbers -- --ignored`.

use contractpin::number::{format_f64, MAX_LEN};
use contractpin::sha256::Sha256;

/// The fixed values the sequence starts with (`staticU64s` in the README).
static STATIC_U64S: [u64; 168] = [
    0x0000_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x0000_0000_0000_0001,
    0x8000_0000_0000_0001,
    0xc466_9669_5dbd_1cc3,
    0xc432_11ed_e497_4a35,
    0xc3fc_e97c_a0f2_1056,
    0xc3c7_2130_80c1_a6ac,
    0xc392_80f3_9a34_8556,
    0xc35d_9b1f_5d20_d557,
    0xc327_af4c_4a80_aaac,
    0xc2f2_f2a3_6ecd_5556,
    0xc2be_5105_7e15_5558,
    0xc288_40d1_31aa_aaac,
    0xc253_670d_c155_5557,
    0xc21f_0b49_3555_5557,
    0xc1e8_d5d4_2aaa_aaac,
    0xc1b3_de43_5555_5556,
    0xc17f_ca05_5555_5556,
    0xc149_6e6a_aaaa_aaab,
    0xc114_5855_5555_5555,
    0xc0e0_46aa_aaaa_aaab,
    0xc0aa_0aaa_aaaa_aaaa,
    0xc074_d555_5555_5555,
    0xc040_aaaa_aaaa_aaab,
    0xc00a_aaaa_aaaa_aaab,
    0xbfd5_5555_5555_5555,
    0xbfa1_1111_1111_1111,
    0xbf6b_4e81_b4e8_1b4f,
    0xbf35_d867_c3ec_e2a5,
    0xbf01_79ec_9cbd_821e,
    0xbecb_f647_612f_3696,
    0xbe96_5e9f_80f2_9212,
    0xbe61_e54c_6728_74db,
    0xbe2c_a213_d840_baf8,
    0xbdf6_e80f_e033_c8c6,
    0xbdc2_533f_e68f_d3d2,
    0xbd8d_51ff_d74c_861c,
    0xbd57_74cc_ac3d_3817,
    0xbd22_c3d6_f030_f9ac,
    0xbcee_0624_b381_8f79,
    0xbcb8_04ea_2934_72c7,
    0xbc83_3721_ba90_5bd3,
    0xbc4e_be9c_5db3_c61e,
    0xbc18_987d_17c3_04e5,
    0xbbe3_ad30_dfcf_371d,
    0xbbaf_7b81_6618_582f,
    0xbb79_2f9a_b813_79bf,
    0xbb44_2615_600f_9499,
    0xbb10_1e77_800c_76e1,
    0xbad9_ca58_cce0_be35,
    0xbaa4_a1e0_a3e6_fe90,
    0xba70_8180_831f_320d,
    0xba3a_68cd_9e98_5016,
    0x4466_9669_5dbd_1cc3,
    0x4432_11ed_e497_4a35,
    0x43fc_e97c_a0f2_1056,
    0x43c7_2130_80c1_a6ac,
    0x4392_80f3_9a34_8556,
    0x435d_9b1f_5d20_d557,
    0x4327_af4c_4a80_aaac,
    0x42f2_f2a3_6ecd_5556,
    0x42be_5105_7e15_5558,
    0x4288_40d1_31aa_aaac,
    0x4253_670d_c155_5557,
    0x421f_0b49_3555_5557,
    0x41e8_d5d4_2aaa_aaac,
    0x41b3_de43_5555_5556,
    0x417f_ca05_5555_5556,
    0x4149_6e6a_aaaa_aaab,
    0x4114_5855_5555_5555,
    0x40e0_46aa_aaaa_aaab,
    0x40aa_0aaa_aaaa_aaaa,
    0x4074_d555_5555_5555,
    0x4040_aaaa_aaaa_aaab,
    0x400a_aaaa_aaaa_aaab,
    0x3fd5_5555_5555_5555,
    0x3fa1_1111_1111_1111,
    0x3f6b_4e81_b4e8_1b4f,
    0x3f35_d867_c3ec_e2a5,
    0x3f01_79ec_9cbd_821e,
    0x3ecb_f647_612f_3696,
    0x3e96_5e9f_80f2_9212,
    0x3e61_e54c_6728_74db,
    0x3e2c_a213_d840_baf8,
    0x3df6_e80f_e033_c8c6,
    0x3dc2_533f_e68f_d3d2,
    0x3d8d_51ff_d74c_861c,
    0x3d57_74cc_ac3d_3817,
    0x3d22_c3d6_f030_f9ac,
    0x3cee_0624_b381_8f79,
    0x3cb8_04ea_2934_72c7,
    0x3c83_3721_ba90_5bd3,
    0x3c4e_be9c_5db3_c61e,
    0x3c18_987d_17c3_04e5,
    0x3be3_ad30_dfcf_371d,
    0x3baf_7b81_6618_582f,
    0x3b79_2f9a_b813_79bf,
    0x3b44_2615_600f_9499,
    0x3b10_1e77_800c_76e1,
    0x3ad9_ca58_cce0_be35,
    0x3aa4_a1e0_a3e6_fe90,
    0x3a70_8180_831f_320d,
    0x3a3a_68cd_9e98_5016,
    0x4024_0000_0000_0000,
    0x4014_0000_0000_0000,
    0x3fe0_0000_0000_0000,
    0x3fa9_9999_9999_999a,
    0x3f74_7ae1_47ae_147b,
    0x3f40_624d_d2f1_a9fc,
    0x3f0a_36e2_eb1c_432d,
    0x3ed4_f8b5_88e3_68f1,
    0x3ea0_c6f7_a0b5_ed8d,
    0x3e6a_d7f2_9abc_af48,
    0x3e35_798e_e230_8c3a,
    0x3ed5_3922_3589_fa95,
    0x3ed4_ff26_cd5a_7781,
    0x3ed4_f95a_7622_83ff,
    0x3ed4_f8c6_0703_520c,
    0x3ed4_f8b7_2f19_cd0d,
    0x3ed4_f8b5_b31c_0c8d,
    0x3ed4_f8b5_8d1c_461a,
    0x3ed4_f8b5_894f_7f0e,
    0x3ed4_f8b5_88ee_37f3,
    0x3ed4_f8b5_88e4_7da4,
    0x3ed4_f8b5_88e3_849c,
    0x3ed4_f8b5_88e3_6bb5,
    0x3ed4_f8b5_88e3_6937,
    0x3ed4_f8b5_88e3_68f8,
    0x3ed4_f8b5_88e3_68f1,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0xbfef_ffff_ffff_fffa,
    0xbfef_ffff_ffff_fffb,
    0x3fef_ffff_ffff_fffa,
    0x3fef_ffff_ffff_fffb,
    0x3fef_ffff_ffff_fffc,
    0x3fef_ffff_ffff_fffe,
    0xbfef_ffff_ffff_ffff,
    0xbfef_ffff_ffff_ffff,
    0x3fef_ffff_ffff_ffff,
    0x3fef_ffff_ffff_ffff,
    0x3fd3_3333_3333_3332,
    0x3fd3_3333_3333_3333,
    0x3fd3_3333_3333_3334,
    0x0010_0000_0000_0000,
    0x000f_ffff_ffff_fffd,
    0x000f_ffff_ffff_ffff,
    0x7fef_ffff_ffff_ffff,
    0xffef_ffff_ffff_ffff,
    0x4340_0000_0000_0000,
    0xc340_0000_0000_0000,
    0x4430_0000_0000_0000,
    0x44b5_2d02_c7e1_4af5,
    0x44b5_2d02_c7e1_4af6,
    0x44b5_2d02_c7e1_4af7,
    0x444b_1ae4_d6e2_ef4e,
    0x444b_1ae4_d6e2_ef4f,
    0x444b_1ae4_d6e2_ef50,
    0x3eb0_c6f7_a0b5_ed8c,
    0x3eb0_c6f7_a0b5_ed8d,
    0x41b3_de43_5555_5553,
    0x41b3_de43_5555_5554,
    0x41b3_de43_5555_5555,
    0x41b3_de43_5555_5556,
    0x41b3_de43_5555_5557,
    0xbecb_f647_612f_3696,
    0x4314_3ff3_c1cb_0959,
];

/// Number of serial values `0x0010000000000000 + i` after the fixed ones.
const SERIAL_COUNT: u64 = 2000;

/// Published checkpoints: (lines, bytes, SHA-256 of those lines).
const CHECKPOINTS: [(u64, u64, &str); 6] = [
    (
        1_000,
        37_967,
        "be18b62b6f69cdab33a7e0dae0d9cfa869fda80ddc712221570f9f40a5878687",
    ),
    (
        10_000,
        399_022,
        "b9f7a8e75ef22a835685a52ccba7f7d6bdc99e34b010992cbc5864cd12be6892",
    ),
    (
        100_000,
        4_031_728,
        "22776e6d4b49fa294a0d0f349268e5c28808fe7e0cb2bcbe28f63894e494d4c7",
    ),
    (
        1_000_000,
        40_357_417,
        "49415fee2c56c77864931bd3624faad425c3c577d6d74e89a83bc725506dad16",
    ),
    (
        10_000_000,
        403_630_048,
        "b9f8a44a91d46813b21b9602e72f112613c91408db0b8341fb94603d9db135e0",
    ),
    (
        100_000_000,
        4_036_326_174,
        "0f7dda6b0837dde083c5d6b896f7d62340c8a2415b0c7121d83145e08a755272",
    ),
];

/// The sequence of bit patterns, exactly as the README's JavaScript makes it.
struct Sequence {
    index: usize,
    /// The current 32-byte block; its four little-endian doubles are the
    /// pseudo-random values, and the next block is its SHA-256.
    block: [u8; 32],
    /// Doubles of `block` already taken (4 = none left).
    taken: usize,
}

impl Sequence {
    fn new() -> Self {
        Sequence {
            index: 0,
            block: [0; 32],
            taken: 4,
        }
    }

    fn next_bits(&mut self) -> u64 {
        let fixed = STATIC_U64S.len();
        let i = self.index;
        self.index += 1;
        if i < fixed {
            return STATIC_U64S[i];
        }
        if ((i - fixed) as u64) < SERIAL_COUNT {
            return 0x0010_0000_0000_0000 + (i - fixed) as u64;
        }
        loop {
            if self.taken == 4 {
                let mut h = Sha256::new();
                h.update(&self.block);
                self.block = h.finalize();
                self.taken = 0;
            }
            let at = 8 * self.taken;
            self.taken += 1;
            let mut le = [0u8; 8];
            le.copy_from_slice(&self.block[at..at + 8]);
            let f = f64::from_le_bytes(le);
            // JavaScript skips 0 and -0 (f == 0.0) and NaN and the infinities.
            if f != 0.0 && f.is_finite() {
                return f.to_bits();
            }
        }
    }
}

/// Appends `bits` as lowercase hex without leading zeros ("0" for zero).
fn push_hex(line: &mut Vec<u8>, bits: u64) {
    let digits = if bits == 0 {
        1
    } else {
        16 - bits.leading_zeros() as usize / 4
    };
    for i in (0..digits).rev() {
        line.push(b"0123456789abcdef"[((bits >> (4 * i)) & 0xf) as usize]);
    }
}

fn to_hex(digest: &[u8]) -> String {
    let mut s = String::with_capacity(2 * digest.len());
    for b in digest {
        s.push(char::from(b"0123456789abcdef"[usize::from(b >> 4)]));
        s.push(char::from(b"0123456789abcdef"[usize::from(b & 0xf)]));
    }
    s
}

/// Generates `lines` lines, hashing as it goes, and checks every published
/// checkpoint up to `lines` (count, byte size and hash).
fn run(lines: u64) {
    let mut seq = Sequence::new();
    let mut hasher = Sha256::new();
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 16);
    let mut bytes: u64 = 0;
    let mut num = [0u8; MAX_LEN];
    let mut checked = 0;
    for line in 1..=lines {
        let bits = seq.next_bits();
        let len = format_f64(f64::from_bits(bits), &mut num).expect("finite value");
        push_hex(&mut buf, bits);
        buf.push(b',');
        buf.extend_from_slice(&num[..len]);
        buf.push(b'\n');
        if line == 2 {
            assert_eq!(buf, b"0,0\n8000000000000000,0\n", "first two lines");
        }
        let checkpoint = CHECKPOINTS.iter().find(|c| c.0 == line);
        if buf.len() >= (1 << 16) - 64 || checkpoint.is_some() {
            hasher.update(&buf);
            bytes += buf.len() as u64;
            buf.clear();
        }
        if let Some(&(count, size, hash)) = checkpoint {
            let digest = hasher.clone().finalize();
            assert_eq!(bytes, size, "byte size of the first {count} lines");
            assert_eq!(to_hex(&digest), hash, "SHA-256 of the first {count} lines");
            checked += 1;
        }
    }
    assert_eq!(checked, CHECKPOINTS.iter().filter(|c| c.0 <= lines).count());
}

#[test]
fn es6_first_million_lines() {
    run(1_000_000);
}

#[test]
#[ignore = "100M lines (4 GB hashed): about 10 s in release; run with --release -- --ignored"]
fn es6_hundred_million_lines() {
    run(100_000_000);
}
