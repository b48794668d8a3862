//! The sixteen-lane AVX-512 compression kernel of [`super::many`]: sixteen
//! messages, one per 32-bit lane, each `zmm` register holding one state or
//! schedule word of every lane. AVX-512 F gives the rotates (`vprord`) and
//! the three-input logic (`vpternlogd`: the sigma XORs, Ch and Maj in one
//! instruction each); BW the byte swap. Detected once without `std`
//! (CPUID and XCR0) and cached, as [`super::shani`] does.
//!
//! The sixteen blocks of a call are loaded as sixteen rows and transposed
//! into sixteen schedule words (a 16 x 16 transpose of 32-bit words); the
//! 64 rounds are unrolled, so the eight working variables stay in registers.

use crate::cpu::Detected;
use core::arch::x86_64::{
    __m512i, _mm512_add_epi32, _mm512_loadu_si512, _mm512_ror_epi32, _mm512_set1_epi32,
    _mm512_shuffle_epi8, _mm512_shuffle_i32x4, _mm512_srli_epi32, _mm512_storeu_si512,
    _mm512_ternarylogic_epi32, _mm512_unpackhi_epi32, _mm512_unpackhi_epi64, _mm512_unpacklo_epi32,
    _mm512_unpacklo_epi64,
};

use super::many::{Compress16, Wide};
use super::{BLOCK_LEN, K};

/// AVX-512 F and BW (CPUID leaf 7 EBX bits 16 and 30), and the OS saves
/// the XMM, YMM, opmask and both halves of the ZMM state (XCR0 bits 1, 2, 5-7).
static AVX512: Detected = Detected::new();

/// Whether this CPU supports the kernel (detected once, then cached).
fn available() -> bool {
    AVX512.get(|f| f.has(0, 1 << 16 | 1 << 30) && f.os_saves(0b1110_0110))
}

/// The kernel; only [`Avx512::detect`] makes one, so holding one proves the
/// CPU can run it.
pub(crate) struct Avx512(());

impl Avx512 {
    /// The kernel, when this CPU supports AVX-512 F and BW with OS support.
    pub(crate) fn detect() -> Option<Avx512> {
        available().then_some(Avx512(()))
    }
}

impl Compress16 for Avx512 {
    fn compress16(&self, state: &mut Wide, data: &[&[u8]; 16], blocks: usize) {
        // SAFETY: an `Avx512` exists only after `available()` reported
        // AVX-512 F and BW with OS support.
        unsafe { compress16(state, data, blocks) }
    }
}

/// Transposes sixteen rows of sixteen 32-bit words: afterwards `r[w]` holds
/// word `w` of every former row (lane `l` = row `l`).
#[target_feature(enable = "avx512f")]
#[inline]
fn transpose(r: &mut [__m512i; 16]) {
    let mut t = *r;
    for i in 0..8 {
        t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    for i in 0..4 {
        r[4 * i] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
        r[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
        r[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
        r[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
    }
    for i in 0..2 {
        for j in 0..4 {
            t[8 * i + j] = _mm512_shuffle_i32x4::<0x88>(r[8 * i + j], r[8 * i + 4 + j]);
            t[8 * i + 4 + j] = _mm512_shuffle_i32x4::<0xdd>(r[8 * i + j], r[8 * i + 4 + j]);
        }
    }
    for j in 0..8 {
        r[j] = _mm512_shuffle_i32x4::<0x88>(t[j], t[8 + j]);
        r[8 + j] = _mm512_shuffle_i32x4::<0xdd>(t[j], t[8 + j]);
    }
}

/// Byte swap within each 32-bit word (the message words are big-endian).
const BSWAP: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        t[i] = (i & !3) as u8 + 3 - (i & 3) as u8;
        i += 1;
    }
    t
};

/// One round `$t` (a literal) on the rotating names: `$d` and `$h` take the
/// new `e` and `a`.
macro_rules! round {
    ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident, $t:expr, $w:expr) => {
        let s1 = _mm512_ternarylogic_epi32::<0x96>(
            _mm512_ror_epi32::<6>($e),
            _mm512_ror_epi32::<11>($e),
            _mm512_ror_epi32::<25>($e),
        );
        let ch = _mm512_ternarylogic_epi32::<0xca>($e, $f, $g);
        let kw = _mm512_add_epi32($w, _mm512_set1_epi32(K[$t] as i32));
        let t1 = _mm512_add_epi32(_mm512_add_epi32($h, s1), _mm512_add_epi32(ch, kw));
        let s0 = _mm512_ternarylogic_epi32::<0x96>(
            _mm512_ror_epi32::<2>($a),
            _mm512_ror_epi32::<13>($a),
            _mm512_ror_epi32::<22>($a),
        );
        let maj = _mm512_ternarylogic_epi32::<0xe8>($a, $b, $c);
        $d = _mm512_add_epi32($d, t1);
        $h = _mm512_add_epi32(t1, _mm512_add_epi32(s0, maj));
    };
}

/// Schedule word `$t` (16..64) into the rolling window `$w`; evaluates to it.
macro_rules! schedule {
    ($w:ident, $t:expr) => {{
        let w2 = $w[($t - 2) & 15];
        let w15 = $w[($t - 15) & 15];
        let s1 = _mm512_ternarylogic_epi32::<0x96>(
            _mm512_ror_epi32::<17>(w2),
            _mm512_ror_epi32::<19>(w2),
            _mm512_srli_epi32::<10>(w2),
        );
        let s0 = _mm512_ternarylogic_epi32::<0x96>(
            _mm512_ror_epi32::<7>(w15),
            _mm512_ror_epi32::<18>(w15),
            _mm512_srli_epi32::<3>(w15),
        );
        $w[$t & 15] = _mm512_add_epi32(
            _mm512_add_epi32(s1, $w[($t - 7) & 15]),
            _mm512_add_epi32(s0, $w[$t & 15]),
        );
        $w[$t & 15]
    }};
}

/// Eight rounds from `$t` (a multiple of eight), the names rotating once
/// through; `$w` is `message` for the first sixteen rounds, `schedule` after.
macro_rules! eight_rounds {
    ($v:ident, $kind:ident, $t:expr, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident) => {
        round!($a, $b, $c, $d, $e, $f, $g, $h, $t, $kind!($v, $t));
        round!($h, $a, $b, $c, $d, $e, $f, $g, $t + 1, $kind!($v, $t + 1));
        round!($g, $h, $a, $b, $c, $d, $e, $f, $t + 2, $kind!($v, $t + 2));
        round!($f, $g, $h, $a, $b, $c, $d, $e, $t + 3, $kind!($v, $t + 3));
        round!($e, $f, $g, $h, $a, $b, $c, $d, $t + 4, $kind!($v, $t + 4));
        round!($d, $e, $f, $g, $h, $a, $b, $c, $t + 5, $kind!($v, $t + 5));
        round!($c, $d, $e, $f, $g, $h, $a, $b, $t + 6, $kind!($v, $t + 6));
        round!($b, $c, $d, $e, $f, $g, $h, $a, $t + 7, $kind!($v, $t + 7));
    };
}

/// Word `$t` of the block itself (the first sixteen rounds).
macro_rules! message {
    ($w:ident, $t:expr) => {
        $w[$t]
    };
}

/// Compresses the `blocks` whole blocks of `data[l]` into lane `l` of
/// `state`, for all sixteen lanes (each `data[l]` is `blocks` blocks long).
///
/// # Safety
/// The CPU must support AVX-512 F and BW ([`Avx512::detect`]).
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn compress16(state: &mut Wide, data: &[&[u8]; 16], blocks: usize) {
    let bswap = load64(&BSWAP);
    // SAFETY: a row of sixteen `u32` is 64 readable bytes; unaligned loads
    // need no alignment.
    let mut rows: [__m512i; 8] = core::array::from_fn(|i| unsafe {
        _mm512_loadu_si512(state[i].as_ptr().cast::<__m512i>())
    });
    for b in 0..blocks {
        let mut w: [__m512i; 16] = core::array::from_fn(|l| {
            let block = data[l][b * BLOCK_LEN..].first_chunk::<BLOCK_LEN>();
            load64(block.expect("a whole block"))
        });
        transpose(&mut w);
        for word in w.iter_mut() {
            *word = _mm512_shuffle_epi8(*word, bswap);
        }
        rows = block_rounds(rows, w);
    }
    for (row, value) in state.iter_mut().zip(rows) {
        // SAFETY: a row of sixteen `u32` is 64 writable bytes.
        unsafe { _mm512_storeu_si512(row.as_mut_ptr().cast::<__m512i>(), value) };
    }
}

/// 64 bytes as a register.
#[target_feature(enable = "avx512f")]
#[inline]
fn load64(bytes: &[u8; 64]) -> __m512i {
    // SAFETY: exactly 64 readable bytes; the unaligned load needs no alignment.
    unsafe { _mm512_loadu_si512(bytes.as_ptr().cast::<__m512i>()) }
}

/// The 64 rounds of one block of every lane: `rows` are the chaining
/// values (word-major), `w` the block's byte-swapped words.
#[target_feature(enable = "avx512f")]
#[inline]
fn block_rounds(rows: [__m512i; 8], mut w: [__m512i; 16]) -> [__m512i; 8] {
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = rows;
    eight_rounds!(w, message, 0, a, b, c, d, e, f, g, h);
    eight_rounds!(w, message, 8, a, b, c, d, e, f, g, h);
    eight_rounds!(w, schedule, 16, a, b, c, d, e, f, g, h);
    eight_rounds!(w, schedule, 24, a, b, c, d, e, f, g, h);
    eight_rounds!(w, schedule, 32, a, b, c, d, e, f, g, h);
    eight_rounds!(w, schedule, 40, a, b, c, d, e, f, g, h);
    eight_rounds!(w, schedule, 48, a, b, c, d, e, f, g, h);
    eight_rounds!(w, schedule, 56, a, b, c, d, e, f, g, h);
    let new = [a, b, c, d, e, f, g, h];
    core::array::from_fn(|i| _mm512_add_epi32(new[i], rows[i]))
}
