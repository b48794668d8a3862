//! The portable compression function: plain Rust, all 64 rounds unrolled, the message
//! schedule kept in a rolling 16-word window indexed by constants (no bounds checks).

use super::{BLOCK_LEN, K};

/// FIPS 180-4 Ch(x, y, z), written with one fewer operation.
#[inline(always)]
fn ch(x: u32, y: u32, z: u32) -> u32 {
    z ^ (x & (y ^ z))
}

/// FIPS 180-4 Maj(x, y, z), written with one fewer operation.
#[inline(always)]
fn maj(x: u32, y: u32, z: u32) -> u32 {
    (x & y) | (z & (x | y))
}

/// FIPS 180-4 upper-case Sigma0.
#[inline(always)]
fn big_sigma0(x: u32) -> u32 {
    x.rotate_right(2) ^ x.rotate_right(13) ^ x.rotate_right(22)
}

/// FIPS 180-4 upper-case Sigma1.
#[inline(always)]
fn big_sigma1(x: u32) -> u32 {
    x.rotate_right(6) ^ x.rotate_right(11) ^ x.rotate_right(25)
}

/// FIPS 180-4 lower-case sigma0.
#[inline(always)]
fn small_sigma0(x: u32) -> u32 {
    x.rotate_right(7) ^ x.rotate_right(18) ^ (x >> 3)
}

/// FIPS 180-4 lower-case sigma1.
#[inline(always)]
fn small_sigma1(x: u32) -> u32 {
    x.rotate_right(17) ^ x.rotate_right(19) ^ (x >> 10)
}

/// One round `t` (a literal). For `t >= 16` the schedule word `W[t]` first replaces
/// `W[t - 16]` in the window. The caller rotates the variable names instead of moving
/// values: after the round, `$h` holds the new `a` and `$d` the new `e`.
macro_rules! round {
    ($w:ident, $t:expr, $a:ident, $b:ident, $c:ident, $d:ident,
     $e:ident, $f:ident, $g:ident, $h:ident) => {
        if $t >= 16 {
            $w[$t & 15] = small_sigma1($w[($t + 14) & 15])
                .wrapping_add($w[($t + 9) & 15])
                .wrapping_add(small_sigma0($w[($t + 1) & 15]))
                .wrapping_add($w[$t & 15]);
        }
        let t1 = $h
            .wrapping_add(big_sigma1($e))
            .wrapping_add(ch($e, $f, $g))
            .wrapping_add(K[$t])
            .wrapping_add($w[$t & 15]);
        let t2 = big_sigma0($a).wrapping_add(maj($a, $b, $c));
        $d = $d.wrapping_add(t1);
        $h = t1.wrapping_add(t2);
    };
}

/// Eight rounds starting at `$t`, after which the names are back in place.
macro_rules! eight_rounds {
    ($w:ident, $t:expr, $a:ident, $b:ident, $c:ident, $d:ident,
     $e:ident, $f:ident, $g:ident, $h:ident) => {
        round!($w, $t, $a, $b, $c, $d, $e, $f, $g, $h);
        round!($w, $t + 1, $h, $a, $b, $c, $d, $e, $f, $g);
        round!($w, $t + 2, $g, $h, $a, $b, $c, $d, $e, $f);
        round!($w, $t + 3, $f, $g, $h, $a, $b, $c, $d, $e);
        round!($w, $t + 4, $e, $f, $g, $h, $a, $b, $c, $d);
        round!($w, $t + 5, $d, $e, $f, $g, $h, $a, $b, $c);
        round!($w, $t + 6, $c, $d, $e, $f, $g, $h, $a, $b);
        round!($w, $t + 7, $b, $c, $d, $e, $f, $g, $h, $a);
    };
}

/// Compresses one block.
#[inline(always)]
fn compress_block(state: &mut [u32; 8], block: &[u8; BLOCK_LEN]) {
    let mut w = [0u32; 16];
    for (word, bytes) in w.iter_mut().zip(block.chunks_exact(4)) {
        *word = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    }
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
    eight_rounds!(w, 0, a, b, c, d, e, f, g, h);
    eight_rounds!(w, 8, a, b, c, d, e, f, g, h);
    eight_rounds!(w, 16, a, b, c, d, e, f, g, h);
    eight_rounds!(w, 24, a, b, c, d, e, f, g, h);
    eight_rounds!(w, 32, a, b, c, d, e, f, g, h);
    eight_rounds!(w, 40, a, b, c, d, e, f, g, h);
    eight_rounds!(w, 48, a, b, c, d, e, f, g, h);
    eight_rounds!(w, 56, a, b, c, d, e, f, g, h);
    for (s, v) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
        *s = s.wrapping_add(v);
    }
}

/// Compresses every whole 64-byte block of `blocks` into `state` (a trailing partial
/// block is ignored).
pub(super) fn compress(state: &mut [u32; 8], blocks: &[u8]) {
    for chunk in blocks.chunks_exact(BLOCK_LEN) {
        if let Ok(block) = <&[u8; BLOCK_LEN]>::try_from(chunk) {
            compress_block(state, block);
        }
    }
}

/// Compresses the i-th whole block of `blocks_a` into `state_a` and the i-th whole block
/// of `blocks_b` into `state_b`, for as many blocks as the shorter slice has: the twin of
/// the SHA-NI two-stream loop, with the same results (one block of each in turn).
pub(super) fn compress2(
    state_a: &mut [u32; 8],
    blocks_a: &[u8],
    state_b: &mut [u32; 8],
    blocks_b: &[u8],
) {
    let pairs = blocks_a
        .chunks_exact(BLOCK_LEN)
        .zip(blocks_b.chunks_exact(BLOCK_LEN));
    for (a, b) in pairs {
        if let (Ok(a), Ok(b)) = (
            <&[u8; BLOCK_LEN]>::try_from(a),
            <&[u8; BLOCK_LEN]>::try_from(b),
        ) {
            compress_block(state_a, a);
            compress_block(state_b, b);
        }
    }
}
