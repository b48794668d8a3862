//! The 16-entry lookup tables (for `pshufb`, one per 128-bit lane) of the
//! AVX2 and AVX-512 classifiers:
//!
//! - [`WS`] and [`OP`], indexed by a byte's low nibble, give the one byte of
//!   the class with that nibble, so a byte is in the class where it equals
//!   its lookup (an index byte of 0x80 and above looks up 0, which no byte
//!   it could match equals);
//! - the UTF-8 check (Keiser and Lemire's method, as in simdjson): each
//!   table gives, for one nibble of a byte pair (the high and low nibble of
//!   the first byte, the high nibble of the second), the error classes that
//!   nibble allows; a pair is wrong where all three agree on a class.

/// Space, tab, line feed, carriage return (0xff, matched by no byte below
/// 0x80, elsewhere).
pub(super) const WS: [u8; 16] = {
    let mut t = [0xff; 16];
    (t[0], t[9], t[10], t[13]) = (b' ', b'\t', b'\n', b'\r');
    t
};

/// `:` `{` `,` `}`, to be matched by the byte with bit 0x20 set (which folds
/// `[` onto `{` and `]` onto `}`, and also the control bytes 0x1a and 0x0c
/// onto `:` and `,`: a classifier masks control bytes out).
pub(super) const OP: [u8; 16] = {
    let mut t = [0; 16];
    (t[10], t[11], t[12], t[13]) = (b':', b'{', b',', b'}');
    t
};

const TOO_SHORT: u8 = 1 << 0;
const TOO_LONG: u8 = 1 << 1;
const OVERLONG_3: u8 = 1 << 2;
const TOO_LARGE: u8 = 1 << 3;
const SURROGATE: u8 = 1 << 4;
const OVERLONG_2: u8 = 1 << 5;
const TOO_LARGE_1000: u8 = 1 << 6;
const OVERLONG_4: u8 = 1 << 6;
const TWO_CONTS: u8 = 1 << 7;
const CARRY: u8 = TOO_SHORT | TOO_LONG | TWO_CONTS;
const LARGE: u8 = CARRY | TOO_LARGE | TOO_LARGE_1000;
const CONT: u8 = TOO_LONG | OVERLONG_2 | TWO_CONTS;

/// By the high nibble of the first byte of a pair.
pub(super) const BYTE_1_HIGH: [u8; 16] = [
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TWO_CONTS,
    TWO_CONTS,
    TWO_CONTS,
    TWO_CONTS,
    TOO_SHORT | OVERLONG_2,
    TOO_SHORT,
    TOO_SHORT | OVERLONG_3 | SURROGATE,
    TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
];

/// By the low nibble of the first byte of a pair.
pub(super) const BYTE_1_LOW: [u8; 16] = [
    CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
    CARRY | OVERLONG_2,
    CARRY,
    CARRY,
    CARRY | TOO_LARGE,
    LARGE,
    LARGE,
    LARGE,
    LARGE,
    LARGE,
    LARGE,
    LARGE,
    LARGE,
    LARGE | SURROGATE,
    LARGE,
    LARGE,
];

/// By the high nibble of the second byte of a pair.
pub(super) const BYTE_2_HIGH: [u8; 16] = [
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    CONT | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
    CONT | OVERLONG_3 | TOO_LARGE,
    CONT | SURROGATE | TOO_LARGE,
    CONT | SURROGATE | TOO_LARGE,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
];
