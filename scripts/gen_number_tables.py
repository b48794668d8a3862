#!/usr/bin/env python3
"""Generate src/number/tables.rs and prove the bounds the formatter relies on.

Standard library only. Usage (from the repository root):

    python3 scripts/gen_number_tables.py            # rewrite src/number/tables.rs
    python3 scripts/gen_number_tables.py --check    # fail if the file is stale

What is generated
-----------------
For every decimal exponent k the shortest-digits search can use
(K_MIN..=K_MAX), a 128-bit upper approximation of 10^-k:

    G[k - K_MIN] = floor(10^-k * 2^(127 - e(k))) + 1,   e(k) = floor(log2(10^-k))

so 2^127 < G <= 2^128 - 1, and G > 10^-k * 2^(127 - e(k)) > G - 1.

What is proved (the script fails loudly if any check does not hold)
------------------------------------------------------------------
1. The integer formulas in src/number/shortest.rs for floor(q*log10(2)),
   floor(q*log10(2) + log10(3/4)) and floor(e*log2(10)) are exact on the whole
   range they are used on.
2. The scaled products are computed exactly enough.  The formatter computes,
   for u in {4c-2, 4c-1, 4c, 4c+2}, x = u * 2^q * 10^-k as
       P = (u << h) * G,   h = 1 + q + e(k) in [1, 4],
       floor(x) ~ P >> 128,   "x is not an integer" ~ (P mod 2^128) >= 2^60,
   and uses round-to-odd: floor(x) | sticky.  Because 0 < G - G_exact <= 1 and
   (u << h) < 2^59, P / 2^128 exceeds x by less than 2^-69.  The formatter takes
   "x is not an integer" to mean "fractional part of P / 2^128 >= 2^-68", so
   round-to-odd is exact for every x whose fractional part, when x is not an
   integer, lies in [2^-68, 1 - 2^-69).  For each
   binary exponent q we bound that distance over all u in [1, 2^55] (a superset
   of the values that occur) with a continued-fraction minimum search, and check
   the irregular case c = 2^52 directly.
3. The same table serves the Eisel-Lemire parser (src/number/parse.rs): its
   power-of-five table, as fast_float's script builds it (rounded up for
   5^-27..5^-1, truncated otherwise), equals G for q in [-27, -1] and G - 1
   for every other q in [-K_MAX, 308] (check_eisel_lemire_table).
"""

import sys
from fractions import Fraction
from pathlib import Path

K_MIN = -324
K_MAX = 292
Q_MIN = -1074
Q_MAX = 971

# Integer formulas used by shortest.rs (floor division by a power of two is an
# arithmetic right shift on i32 there).
FLOG10_POW2_MUL, FLOG10_POW2_SHIFT = 315653, 20
FLOG10_3Q_POW2_ADD = -131008  # floor(log10(3/4) * 2^20)
FLOG2_POW10_MUL, FLOG2_POW10_SHIFT = 1741647, 19
# The formatter treats a product as "not an integer" when its fractional part is
# at least 2^-STICKY_BITS (bits 60..127 of the 128-bit fraction are not all zero).
STICKY_BITS = 68


def flog10_pow2(q):
    return (q * FLOG10_POW2_MUL) >> FLOG10_POW2_SHIFT


def flog10_three_quarters_pow2(q):
    return (q * FLOG10_POW2_MUL + FLOG10_3Q_POW2_ADD) >> FLOG10_POW2_SHIFT


def flog2_pow10(e):
    return (e * FLOG2_POW10_MUL) >> FLOG2_POW10_SHIFT


def pow10(e):
    """10^e as an exact Fraction."""
    return Fraction(10) ** e


def exact_floor_log10(x):
    """floor(log10(x)) for a positive Fraction x, exactly."""
    k = 0
    while pow10(k) > x:
        k -= 1
    while pow10(k + 1) <= x:
        k += 1
    return k


def exact_floor_log2(x):
    e = x.numerator.bit_length() - x.denominator.bit_length()
    while Fraction(2) ** e > x:
        e -= 1
    while Fraction(2) ** (e + 1) <= x:
        e += 1
    return e


def check_log_formulas():
    # Start from a known-correct value and walk, so this is fast and exact.
    for q in range(Q_MIN, Q_MAX + 1):
        two_q = Fraction(2) ** q
        k = exact_floor_log10(two_q)
        assert flog10_pow2(q) == k, ("flog10_pow2", q)
        k3 = exact_floor_log10(two_q * Fraction(3, 4))
        assert flog10_three_quarters_pow2(q) == k3, ("flog10_3q_pow2", q)
    for e in range(-K_MAX, -K_MIN + 1):
        assert flog2_pow10(e) == exact_floor_log2(pow10(e)), ("flog2_pow10", e)


def g_exact(k):
    """10^-k * 2^(127 - e(k)) as a Fraction, with e(k) = floor(log2(10^-k))."""
    e = flog2_pow10(-k)
    return pow10(-k) * Fraction(2) ** (127 - e)


def table():
    out = []
    for k in range(K_MIN, K_MAX + 1):
        ge = g_exact(k)
        g = ge.numerator // ge.denominator + 1
        assert (1 << 127) < g < (1 << 128), k
        out.append(g)
    return out


def min_max_residue(a, m, n):
    """(min, max) of (a*i) mod m over 1 <= i <= n, for gcd(a, m) = 1 and n < m.

    Euclid-like walk over best one-sided approximations: `lo` is the smallest
    residue reached so far (at index il), `hi` the smallest gap below m (at
    index ih). Each step lowers the larger of the two by whole multiples of the
    smaller while the index stays within n.
    """
    a %= m
    il, lo = 1, a          # residue lo at index il
    ih, hi = 0, m          # residue m - hi at index ih (index 0: residue 0 = m)
    while True:
        if lo < hi:
            # hi - t*lo at index ih + t*il
            t = min((hi - 1) // lo, (n - ih) // il)
            if t == 0:
                break
            ih += t * il
            hi -= t * lo
        else:
            t = min((lo - 1) // hi, (n - il) // ih) if ih else 0
            if t == 0:
                break
            il += t * ih
            lo -= t * hi
    assert ih > 0  # the first step always moves `ih` (a < m, n >= 1)
    return lo, m - hi


def self_test_min_max():
    import random
    rnd = random.Random(1)
    for _ in range(3000):
        m = rnd.randint(2, 4000)
        a = rnd.randint(1, m - 1)
        from math import gcd
        if gcd(a, m) != 1:
            continue
        n = rnd.randint(1, m - 1)
        vals = [(a * i) % m for i in range(1, n + 1)]
        try:
            got = min_max_residue(a, m, n)
        except AssertionError:
            continue
        assert got == (min(vals), max(vals)), (a, m, n, got, min(vals), max(vals))


def prove_bounds(g_table):
    lo_bound = Fraction(1, 1 << STICKY_BITS)  # smallest allowed non-zero fractional part
    err_bound = Fraction(1, 1 << 69)  # P / 2^128 - x is below this
    w_max = 2 * ((1 << 53) - 1) + 1
    worst_lo = worst_hi = Fraction(1)
    for q in range(Q_MIN, Q_MAX + 1):
        # Regular case: every c of this exponent (c = 2^52 included for q = Q_MIN).
        # There u = 4c + j with j in {-2, 0, 2} is even: u = 2w, 1 <= w <= w_max.
        k = flog10_pow2(q)
        h = 1 + q + flog2_pow10(-k)
        assert 1 <= h <= 4, (q, h)
        beta = 2 * Fraction(2) ** q / pow10(k)  # x = w * beta
        num, den = beta.numerator, beta.denominator
        if den > (1 << STICKY_BITS):
            # den is a power of 2 or of 5, coprime to num, and larger than w_max, so x
            # is never an integer. Bound the fractional parts of w*num/den.
            assert den > w_max
            rmin, rmax = min_max_residue(num, den, w_max)
            worst_lo = min(worst_lo, Fraction(rmin, den))
            worst_hi = min(worst_hi, 1 - Fraction(rmax, den))
            assert Fraction(rmin, den) >= lo_bound, ("min", q)
            assert Fraction(rmax, den) < 1 - err_bound, ("max", q)
        # else: non-zero fractional parts are multiples of 1/den >= 2^-STICKY_BITS and
        # at most 1 - 2^-STICKY_BITS, so round-to-odd is exact.
        # Irregular case (c = 2^52, q > Q_MIN): check the three products directly.
        if q > Q_MIN:
            k3 = flog10_three_quarters_pow2(q)
            h3 = 1 + q + flog2_pow10(-k3)
            assert 1 <= h3 <= 4, (q, h3)
            g = g_table[k3 - K_MIN]
            c = 1 << 52
            for u in (4 * c - 1, 4 * c, 4 * c + 2):
                x = u * Fraction(2) ** q / pow10(k3)
                p = (u << h3) * g
                fl = p >> 128
                sticky = (p & ((1 << 128) - 1)) >= (1 << (128 - STICKY_BITS))
                assert fl == x.numerator // x.denominator, ("irregular floor", q, u)
                assert sticky == (x.denominator != 1), ("irregular sticky", q, u)
        # (u << h) < 2^59 for the error bound.
        assert ((2 * w_max) << h) < (1 << 59)
    return worst_lo, worst_hi


def render(g_table):
    lines = [
        "// @generated by scripts/gen_number_tables.py -- do not edit by hand.",
        "//! Power-of-ten table for the shortest-digits search (generated).",
        "",
        "/// Smallest decimal exponent `k` with an entry in [`G`].",
        f"pub(super) const K_MIN: i32 = {K_MIN};",
        "/// Largest decimal exponent `k` with an entry in [`G`].",
        f"pub(super) const K_MAX: i32 = {K_MAX};",
        "",
        "/// `G[k - K_MIN] = floor(10^-k * 2^(127 - floor(log2(10^-k)))) + 1`: a 128-bit",
        "/// approximation of `10^-k` from above, normalised to `[2^127, 2^128)`.",
        f"pub(super) static G: [u128; {len(g_table)}] = [",
    ]
    for i, g in enumerate(g_table):
        lines.append(f"    0x{g:032x}, // k = {K_MIN + i}")
    lines.append("];")
    lines.append("")
    return "\n".join(lines)


def fast_float_power(q):
    """fast_float's 128-bit significand of 5^q (its table script)."""
    if q < 0:
        p = 5 ** -q
        z = p.bit_length()
        if q >= -27:
            return 2 ** (z + 127) // p + 1
        c = 2 ** (2 * z + 128) // p + 1
        while c >= 1 << 128:
            c //= 2
        return c
    p = 5 ** q
    while p < 1 << 127:
        p *= 2
    while p >= 1 << 128:
        p //= 2
    return p


def check_eisel_lemire_table(g_table):
    for q in range(-K_MAX, 309):
        g = g_table[-q - K_MIN]
        want = g if -27 <= q <= -1 else g - 1
        if fast_float_power(q) != want:
            raise SystemExit(f"Eisel-Lemire table differs from G at q = {q}")


def main():
    root = Path(__file__).resolve().parent.parent
    target = root / "src" / "number" / "tables.rs"
    self_test_min_max()
    check_log_formulas()
    g_table = table()
    check_eisel_lemire_table(g_table)
    worst_lo, worst_hi = prove_bounds(g_table)
    import math
    print(
        "smallest non-zero fractional part: 2^%.2f, largest: 1 - 2^%.2f"
        % (math.log2(worst_lo), math.log2(worst_hi))
    )
    text = render(g_table)
    if "--check" in sys.argv[1:]:
        if target.read_text() != text:
            print(f"{target} is stale: run scripts/gen_number_tables.py", file=sys.stderr)
            sys.exit(1)
        print("tables.rs is up to date; all bounds hold")
        return
    target.write_text(text)
    print(f"wrote {target} ({len(g_table)} entries); all bounds hold")


if __name__ == "__main__":
    main()
