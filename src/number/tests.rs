//! Unit tests of `format_f64` and `shortest_digits`. Expected strings come
//! from V8 (`String(x)` in Node 20), not from this code.

use super::{format_f64, shortest_digits, MAX_LEN};

fn fmt(v: f64) -> ([u8; MAX_LEN], usize) {
    let mut out = [b'#'; MAX_LEN];
    let len = format_f64(v, &mut out).expect("finite");
    (out, len)
}

#[track_caller]
fn check(v: f64, expected: &str) {
    let (out, len) = fmt(v);
    let got = core::str::from_utf8(&out[..len]).expect("ascii");
    assert_eq!(got, expected, "bits {:#018x}", v.to_bits());
}

/// `c * 2^-1074`, a subnormal (or the smallest normals) by significand.
fn tiny(c: u64) -> f64 {
    f64::from_bits(c)
}

fn pow2(e: i32) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1 << (e + 1074))
    }
}

#[test]
fn boundary_1e21() {
    check(1e20, "100000000000000000000");
    check(-1e20, "-100000000000000000000");
    check(1e21, "1e+21");
    check(-1e21, "-1e+21");
    check(9.999999999999999e20, "999999999999999900000");
    check(999999999999999900000.0, "999999999999999900000");
    check(123456789012345680000.0, "123456789012345680000");
    check(1e22, "1e+22");
    check(1e23, "1e+23");
    check(8.41e21, "8.41e+21");
}

#[test]
fn boundary_1e_minus_7() {
    check(1e-6, "0.000001");
    check(-1e-6, "-0.000001");
    check(1e-7, "1e-7");
    check(-1e-7, "-1e-7");
    check(5e-7, "5e-7");
    check(1e-5, "0.00001");
    check(0.000009999999999999999, "0.000009999999999999999");
    // From the ES6 test file samples: just below 1e-6.
    check(f64::from_bits(0x3eb0_c6f7_a0b5_ed8d), "0.000001");
    check(
        f64::from_bits(0x3eb0_c6f7_a0b5_ed8c),
        "9.999999999999997e-7",
    );
}

#[test]
fn point_inside_the_digits() {
    check(1.5, "1.5");
    check(-1.5, "-1.5");
    check(0.5, "0.5");
    check(0.3, "0.3");
    check(4.35, "4.35");
    check(1234.5678, "1234.5678");
    check(1.0 / 3.0, "0.3333333333333333");
    check(2.0 / 3.0, "0.6666666666666666");
    check(0.1 + 0.2, "0.30000000000000004");
}

#[test]
fn integers() {
    check(1.0, "1");
    check(2.0, "2");
    check(100.0, "100");
    check(pow2(53), "9007199254740992");
    check(-pow2(53), "-9007199254740992");
    check(pow2(53) - 1.0, "9007199254740991");
    check(pow2(53) + 2.0, "9007199254740994");
    // 2^53 + 1 is not a double: the literal rounds to 2^53.
    check(9007199254740993.0, "9007199254740992");
    check(pow2(63), "9223372036854776000");
    check(pow2(64), "18446744073709552000");
}

#[test]
fn subnormals_and_extremes() {
    check(5e-324, "5e-324");
    check(tiny(1), "5e-324");
    check(tiny(2), "1e-323");
    check(tiny(3), "1.5e-323");
    check(tiny(7), "3.5e-323");
    check(tiny(10), "5e-323");
    check(tiny(100), "4.94e-322");
    check(-tiny(1), "-5e-324");
    check(2.2250738585072014e-308, "2.2250738585072014e-308");
    check(f64::MIN_POSITIVE, "2.2250738585072014e-308");
    check(pow2(-1022), "2.2250738585072014e-308");
    check(2.225073858507201e-308, "2.225073858507201e-308");
    check(tiny((1 << 52) - 1), "2.225073858507201e-308");
    check(1e-308, "1e-308");
    check(f64::MAX, "1.7976931348623157e+308");
    check(f64::MIN, "-1.7976931348623157e+308");
    check(1e308, "1e+308");
    check(pow2(1023), "8.98846567431158e+307");
}

#[test]
fn zero_and_non_finite() {
    check(0.0, "0");
    check(-0.0, "0");
    let mut out = [b'#'; MAX_LEN];
    assert_eq!(format_f64(f64::NAN, &mut out), None);
    assert_eq!(format_f64(-f64::NAN, &mut out), None);
    assert_eq!(format_f64(f64::INFINITY, &mut out), None);
    assert_eq!(format_f64(f64::NEG_INFINITY, &mut out), None);
    assert_eq!(
        out, [b'#'; MAX_LEN],
        "nothing written for non-finite values"
    );
}

#[test]
fn exponent_form() {
    check(123e-20, "1.23e-18");
    check(-1.2345678901234567e-7, "-1.2345678901234566e-7");
    check(1e100, "1e+100");
    check(1e-10, "1e-10");
    check(1e99, "1e+99");
}

#[test]
fn ties_go_to_even() {
    // v * 10 ends in exactly .5: both neighbours are equally close.
    check(pow2(50) + 0.25, "1125899906842624.2");
    check(pow2(50) + 0.75, "1125899906842624.8");
    check(pow2(50) + 1.25, "1125899906842625.2");
}

#[test]
fn long_mantissas() {
    check(1.2345678901234567, "1.2345678901234567");
    check(-1.2345678901234567e-6, "-0.0000012345678901234567");
    check(0.30000000000000004, "0.30000000000000004");
    check(f64::from_bits(0x3fef_ffff_ffff_ffff), "0.9999999999999999");
    check(f64::from_bits(0x4340_0000_0000_0001), "9007199254740994");
}

#[test]
fn irregular_spacing_powers_of_two() {
    // c = 2^52: the lower neighbour is half as far as the upper one.
    check(pow2(-1), "0.5");
    check(pow2(-2), "0.25");
    check(pow2(10), "1024");
    check(pow2(-20), "9.5367431640625e-7");
    check(pow2(70), "1.1805916207174113e+21");
    check(pow2(-1021), "4.450147717014403e-308");
}

#[test]
fn max_len_is_reached() {
    let (_, len) = fmt(-1.2345678901234567e-6);
    assert_eq!(len, MAX_LEN);
    let (_, len) = fmt(-2.2250738585072014e-308);
    assert_eq!(len, 24);
}

#[test]
fn shortest_digits_examples() {
    assert_eq!(shortest_digits(1.5), (15, 1, 2));
    assert_eq!(shortest_digits(-1.5), (15, 1, 2));
    assert_eq!(shortest_digits(1e21), (1, 22, 1));
    assert_eq!(shortest_digits(100.0), (1, 3, 1));
    assert_eq!(shortest_digits(0.001), (1, -2, 1));
    assert_eq!(shortest_digits(5e-324), (5, -323, 1));
    assert_eq!(shortest_digits(f64::MAX), (17976931348623157, 309, 17));
    assert_eq!(shortest_digits(0.1 + 0.2), (30000000000000004, 0, 17));
    assert_eq!(shortest_digits(0.0), (0, 1, 1));
    assert_eq!(shortest_digits(-0.0), (0, 1, 1));
    assert_eq!(shortest_digits(f64::NAN), (0, 0, 0));
    assert_eq!(shortest_digits(f64::INFINITY), (0, 0, 0));
}

/// Each subnormal `c * 2^-1074` for small `c`, against Rust's own shortest
/// formatting (`{:e}`): these are the only values whose scaled significand
/// has fewer than three digits.
#[test]
fn small_subnormals_match_std() {
    use std::format;
    for c in 1..2000u64 {
        let v = tiny(c);
        let (s, n, k) = shortest_digits(v);
        let std_e = format!("{v:e}");
        let (mant, exp) = std_e.split_once('e').unwrap();
        let digits: std::string::String = mant.chars().filter(|ch| *ch != '.').collect();
        assert_eq!(format!("{s}"), digits, "c = {c}");
        assert_eq!(n - 1, exp.parse::<i32>().unwrap(), "c = {c}");
        assert_eq!(k, digits.len(), "c = {c}");
    }
}

/// `format_token`'s answer for `token`: the canonical text, or `None` for
/// "go through a double".
fn token(t: &str) -> Option<std::string::String> {
    let mut out = [b'#'; MAX_LEN];
    super::format_token(t.as_bytes(), &mut out)
        .map(|len| std::string::String::from_utf8(out[..len].to_vec()).expect("ascii"))
}

/// Spellings a token reads straight from its digits, with V8's `String(x)`
/// of each value; and the ones it must leave to the double route.
#[test]
fn tokens_read_from_their_digits() {
    let read = [
        ("1.0", "1"),
        ("100.00", "100"),
        ("-0", "0"),
        ("-0.0", "0"),
        ("0e5", "0"),
        ("-0.000E-3", "0"),
        ("1E3", "1000"),
        ("2.5E+10", "25000000000"),
        ("-2.50e-1", "-0.25"),
        ("1e21", "1e+21"),
        ("1e20", "100000000000000000000"),
        ("1e-7", "1e-7"),
        ("0.0000001", "1e-7"),
        ("0.000001", "0.000001"),
        ("12.3400e1", "123.4"),
        ("0.00123e4", "12.3"),
        ("123456789012345e-20", "0.00000123456789012345"),
        ("9007199254740991", "9007199254740991"),
        ("-9007199254740991", "-9007199254740991"),
        ("9007199254740992", "9007199254740992"),
        ("9007199254740991.0", "9007199254740991"),
        ("1e-307", "1e-307"),
        ("9.99999999999999e307", "9.99999999999999e+307"),
        ("1e0005", "100000"),
    ];
    for (t, want) in read {
        assert_eq!(token(t).as_deref(), Some(want), "{t}");
    }
    let left = [
        // Sixteen or seventeen significant digits that are not a small integer.
        "9007199254740993",
        "1234567890123456e1",
        "0.1234567890123456",
        // Subnormal, or past the range where 15 digits are enough.
        "5e-324",
        "1e-308",
        "1e308",
        // More digits gathered than fit, or a five-digit exponent.
        "100000000000000000000",
        "9007199254740991.000",
        "1e00005",
    ];
    for t in left {
        assert_eq!(token(t), None, "{t}");
    }
}

/// Random tokens of every shape (sign, integer part, zeros after the point,
/// digits, trailing zeros, exponent spellings): whenever `format_token`
/// answers, the answer is what the double route (std's parse, then
/// `format_f64`) prints.
#[test]
fn tokens_read_from_their_digits_match_the_double_route() {
    use std::string::String;
    let mut rng = crate::test_rng::Rng(0x5eed);
    let mut next = |n: u64| rng.below(n as usize) as u64;
    let (mut answered, total) = (0, crate::test_rng::rounds(200_000));
    for _ in 0..total {
        let mut t = String::new();
        if next(2) == 0 {
            t.push('-');
        }
        let int_len = next(18) as usize;
        let push_digits = |t: &mut String, n: usize, next: &mut dyn FnMut(u64) -> u64| {
            for _ in 0..n {
                t.push((b'0' + next(10) as u8) as char);
            }
        };
        if int_len == 0 {
            t.push('0');
        } else {
            t.push((b'1' + next(9) as u8) as char);
            push_digits(&mut t, int_len - 1, &mut next);
        }
        if next(3) != 0 {
            t.push('.');
            for _ in 0..next(8) {
                t.push('0');
            }
            let n = 1 + next(17) as usize;
            push_digits(&mut t, n, &mut next);
            for _ in 0..next(4) {
                t.push('0');
            }
        }
        if next(2) == 0 {
            t.push(if next(2) == 0 { 'e' } else { 'E' });
            match next(3) {
                0 => t.push('-'),
                1 => t.push('+'),
                _ => {}
            }
            for _ in 0..next(3) {
                t.push('0');
            }
            let e = if next(4) == 0 { next(330) } else { next(30) };
            t.push_str(&std::format!("{e}"));
        }
        let value: f64 = t.parse().expect("a valid token");
        if let Some(got) = token(&t) {
            answered += 1;
            let mut out = [0u8; MAX_LEN];
            let len = format_f64(value, &mut out).expect("finite");
            assert_eq!(got.as_bytes(), &out[..len], "{t}");
        }
    }
    assert!(answered > total / 4, "{answered} of {total}");
}

/// `token_to_f64` against `core`'s parser (std's `str::parse`, independent
/// of this crate): equal bit patterns wherever it answers.
#[track_caller]
fn parses_like_core(t: &str) -> bool {
    let core: f64 = t.parse().expect("a valid token");
    match super::token_to_f64(t.as_bytes()) {
        Some(v) => {
            assert_eq!(v.to_bits(), core.to_bits(), "{t}: {v:e} vs {core:e}");
            true
        }
        None => false,
    }
}

/// Hard cases: halfway between two doubles (ties to even), just off
/// halfway, the ends of the range, and what is left to `core`.
#[test]
fn token_to_f64_hard_cases() {
    let answered = [
        "9007199254740993",
        "9007199254740995",
        "9223372036854775807",
        "9007199254740993.0",
        "9007199254740993.00",
        "186607678839317.500e2",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "2.2250738585072014e-276",
        "8.98846567431158e307",
        "0.1",
        "1e23",
        "3.0000000000000004",
        "2.5E+10",
        "-98952.27388501668",
        "7.3177701707893310e15",
        "4.35679e-10",
        "1448997445238699",
        "-0.0",
    ];
    for t in answered {
        assert!(parses_like_core(t), "{t} left to core");
    }
    let left = [
        "5e-324",
        "2.2250738585072011e-308",
        "1e-300",
        "18446744073709551615",
        "9007199254740993.0000001",
    ];
    for t in left {
        assert_eq!(super::token_to_f64(t.as_bytes()), None, "{t}");
    }
}

/// Random tokens: 1 to 19 digits with the point anywhere, exponents across
/// the range; random doubles in their shortest and 17- and 19-digit forms;
/// and integers above 2^53 (often half way), also with zeros after the
/// point.
#[test]
fn token_to_f64_matches_core() {
    use std::format;
    use std::string::String;
    let mut rng = crate::test_rng::Rng(0x00c0_ffee);
    let mut next = || rng.next();
    let rounds = crate::test_rng::rounds(100_000);
    let (mut answered, mut tried) = (0, 0);
    for _ in 0..rounds {
        let r = next();
        let digits = 1 + (r % 19) as usize;
        let mut t = String::new();
        if r >> 63 == 1 {
            t.push('-');
        }
        let d = next() % 10u64.pow(digits as u32 - 1).max(1) + 10u64.pow(digits as u32 - 1);
        let s = format!("{d}");
        let point = (r >> 8) as usize % (digits + 1);
        if point == 0 {
            t.push_str("0.");
            t.push_str(&s);
        } else {
            t.push_str(&s[..point]);
            if point < digits {
                t.push('.');
                t.push_str(&s[point..]);
            }
        }
        let e = ((r >> 16) % 640) as i64 - 320;
        t.push_str(&format!("e{e}"));
        let value: f64 = t.parse().unwrap();
        if value.is_finite() {
            tried += 1;
            answered += usize::from(parses_like_core(&t));
        }
        let bits = next() % 0x7ff0_0000_0000_0000;
        let v = f64::from_bits(bits);
        for t in [format!("{v:e}"), format!("{v:.16e}"), format!("{v:.18e}")] {
            tried += 1;
            answered += usize::from(parses_like_core(&t));
        }
        // An integer in [2^53, 2^56): often exactly half way between two
        // doubles; with zeros after the point, the exponent is negative.
        let x = (1 << 53) + (next() >> 11) % (7 << 53);
        for t in [format!("{x}"), format!("{x}.0"), format!("{x}.00")] {
            tried += 1;
            answered += usize::from(parses_like_core(&t));
        }
    }
    // Subnormals and tokens below 1e-292 are left to core: about a tenth.
    assert!(answered * 10 > tried * 8, "{answered} of {tried}");
}
