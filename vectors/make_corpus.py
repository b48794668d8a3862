#!/usr/bin/env python3
"""Random JSON corpus for differential testing against the oracles.

    make_corpus.py --seed N --count M --out FILE

Writes M documents, one per line, each line a JSON string whose value is the
document's text (the input format of vectors/oracles/*). The output depends
only on the seed (random.Random(seed); no set or hash ordering is used).

The documents stress what canonicalization gets wrong most easily:
  - strings: every short escape (\\b \\t \\n \\f \\r \\" \\\\ \\/), \\u00xx controls,
    \\u escapes of ASCII, BMP and supplementary characters (as surrogate
    pairs) in either hex case, raw non-ASCII, U+2028/U+2029, DEL;
  - key order: keys mixing ASCII, U+E000..U+FFFF and supplementary
    characters (UTF-16 order differs from code point order there),
    near-duplicates ("a" / "a\\u0000", "10" / "9", "" ...), keys spelled
    with and without escapes;
  - numbers: exponent forms (1E5, 1e+5, 1e-5, 1e05), trailing fraction zeros,
    negative zero, huge and tiny values including subnormals and underflow
    to zero, integers beyond 2^53, long mantissas and exact binary64
    halfway cases (round-half-even);
  - nesting up to depth 20 and random whitespace between tokens.

Every document is one that both oracles can judge and that contractpin must
accept: no duplicate keys (compared after unescaping), no lone surrogates,
valid UTF-8, every number finite after rounding (underflow to 0 is allowed).
Standard library only.
"""
import argparse
import json
import math
import re
import struct
import sys
from decimal import Decimal, getcontext
from fractions import Fraction
import random

getcontext().prec = 2000

NUMBER_RE = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?\Z")
WS = " \t\n\r"
SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
MAX_DEPTH = 20

KEY_SEEDS = [
    "", "a", "a\u0000", "a\u0000b", "A", "aa", "ab", "b", "10", "9", "1", "01", "-1",
    "\u00e9", "e\u0301", "\u20ac", "\ue000", "\uffff", "\ufffd", "\ufeff", "\uf8ff",
    "\U0001f600", "\U00010000", "\U0010ffff", "\U0001d11e", "\u0080", "\u07ff", "\u0800",
    "a\U0001f600", "a\uffff", "a\ue000", "\u007f", "\u2028", "\u2029", "/", "\\", '"',
    "\t", "\n", "\u001f", " ", "name", "Name", "type", "__proto__", "constructor",
    "toString", "length", "description", "inputSchema", "\u4e2d\u6587", "\u0391",
]


def ws(rng):
    r = rng.random()
    if r < 0.6:
        return ""
    n = 1 if r < 0.85 else rng.randint(2, 4)
    return "".join(rng.choice(WS) for _ in range(n))


def random_char(rng):
    """One Unicode scalar value (never a surrogate), biased to tricky ranges."""
    r = rng.random()
    if r < 0.45:
        return chr(rng.randint(0x20, 0x7E))
    if r < 0.55:
        return chr(rng.randint(0x00, 0x1F))
    if r < 0.60:
        return rng.choice("\u007f\u2028\u2029\ufeff\ufffd\uffff\ue000\u0080\u00a0\u00ff")
    if r < 0.70:
        return chr(rng.randint(0x80, 0x7FF))
    if r < 0.78:
        c = rng.randint(0x800, 0xFFFF)
        return chr(c if not 0xD800 <= c <= 0xDFFF else c - 0x800)
    if r < 0.86:
        return chr(rng.randint(0xE000, 0xFFFF))
    return chr(rng.randint(0x10000, 0x10FFFF))


def random_text(rng, max_len):
    return "".join(random_char(rng) for _ in range(rng.randint(0, max_len)))


def u_escape(rng, cp):
    digits = "%04x" % cp
    if rng.random() < 0.3:
        digits = digits.upper()
    elif rng.random() < 0.2:
        digits = "".join(ch.upper() if rng.random() < 0.5 else ch for ch in digits)
    return "\\u" + digits


def spell_string(rng, value):
    """A random valid JSON spelling (with quotes) of the decoded string value."""
    out = ['"']
    style = rng.random()  # per-string bias towards escaping
    for ch in value:
        cp = ord(ch)
        must = ch in SHORT or cp < 0x20
        if not must and rng.random() > style * 0.5:
            if ch == "/" and rng.random() < 0.5:
                out.append("\\/")
            else:
                out.append(ch)
            continue
        if ch in SHORT and rng.random() < 0.7:
            out.append(SHORT[ch])
        elif cp >= 0x10000:
            v = cp - 0x10000
            out.append(u_escape(rng, 0xD800 + (v >> 10)) + u_escape(rng, 0xDC00 + (v & 0x3FF)))
        else:
            out.append(u_escape(rng, cp))
    out.append('"')
    return "".join(out)


def random_key(rng):
    r = rng.random()
    if r < 0.4:
        return rng.choice(KEY_SEEDS)
    if r < 0.6:
        # A near-duplicate of a seed: extend, truncate or swap one character.
        base = rng.choice(KEY_SEEDS)
        op = rng.randint(0, 2)
        if op == 0:
            return base + rng.choice(["\u0000", "\uffff", "\U0001f600", "\ue000", "a", "0", " "])
        if op == 1 and base:
            return base[:-1]
        return rng.choice(["\ue000", "\U0001f600", "\uffff"]) + base
    if r < 0.75:
        return str(rng.randint(0, 120))
    return random_text(rng, 6)


# ---------------------------------------------------------------- numbers


def double_from_bits(bits):
    return struct.unpack(">d", struct.pack(">Q", bits))[0]


def random_finite_double(rng):
    while True:
        d = double_from_bits(rng.getrandbits(64))
        if math.isfinite(d):
            return d


def exact_decimal(frac):
    """Exact decimal digits of a Fraction with a power-of-two denominator."""
    return format(Decimal(frac.numerator) / Decimal(frac.denominator), "f")


def halfway(rng):
    """The exact decimal midpoint between two adjacent doubles, sometimes nudged."""
    while True:
        exp_bits = rng.choice([rng.randint(1, 2046), rng.randint(900, 1150), 0])
        bits = (exp_bits << 52) | rng.getrandbits(52)
        d = double_from_bits(bits)
        up = math.nextafter(d, math.inf)
        if math.isfinite(d) and math.isfinite(up):
            break
    mid = (Fraction(d) + Fraction(up)) / 2
    s = exact_decimal(mid)
    if len(s) > 400:  # keep documents small; use the scientific form instead
        exact = Decimal(mid.numerator) / Decimal(mid.denominator)
        if rng.random() < 0.5:
            return format(exact, ".%de" % rng.randint(17, 40))  # rounded near the midpoint
        return format(exact, "e")  # the exact midpoint, scientific form
    nudge = rng.random()
    if nudge < 0.15 and "." in s:
        s = s[:-1] if len(s.split(".")[1]) > 1 else s  # a hair below (or above) the midpoint
    elif nudge < 0.3:
        s = s + ("1" if "." in s else ".0000000000000000000001")
    return s


def mantissa_exponent(rng, digits, point_exp):
    """Spell int(digits) x 10^point_exp as I.F e X with a random split point."""
    intpart_len = rng.randint(1, min(len(digits), 3))
    intpart = digits[:intpart_len].lstrip("0") or "0"
    frac = digits[intpart_len:]
    exp = point_exp + len(frac)
    text = intpart + ("." + frac if frac else "")
    sign = rng.choice(["", "+"]) if exp >= 0 else "-"
    pad = "0" * rng.choice([0, 0, 0, 1, 2])
    return text + rng.choice(["e", "E"]) + sign + pad + str(abs(exp))


def random_number(rng):
    r = rng.random()
    neg = rng.random() < 0.35
    if r < 0.10:
        s = str(rng.randint(0, 1000))
    elif r < 0.17:
        s = rng.choice(["0", "0.0", "0e0", "0E+5", "0.000", "0e-400", "0.0e999"])
        neg = rng.random() < 0.5
    elif r < 0.27:
        # Integers beyond 2^53, near powers of two, and long digit runs.
        k = rng.choice([53, 54, 63, 64, 65, 70, 100])
        s = str(2 ** k + rng.randint(-3, 3)) if rng.random() < 0.5 else str(rng.randint(10 ** 15, 10 ** rng.randint(16, 30)))
    elif r < 0.37:
        # Trailing fraction zeros and plain decimals.
        s = "%d.%s" % (rng.randint(0, 10 ** rng.randint(0, 6)), str(rng.randint(0, 999)) + "0" * rng.randint(0, 6))
    elif r < 0.50:
        # Exponent spellings of small and medium values.
        digits = str(rng.randint(1, 10 ** rng.randint(1, 8)))
        s = mantissa_exponent(rng, digits, rng.randint(-30, 30))
    elif r < 0.58:
        # Huge values up to DBL_MAX (overflowing candidates are redrawn below).
        s = rng.choice([
            "1.7976931348623157e308", "1.7976931348623158e+308", "179769313486231570" + "0" * 291,
            "%.*e" % (rng.randint(0, 20), rng.uniform(1, 1.79) * 10 ** rng.randint(280, 308)),
            mantissa_exponent(rng, str(rng.randint(1, 10 ** 17)), rng.randint(250, 292)),
            "1e21", "1e+21", "9.999999999999999e20", "123456789012345678901234",
        ])
    elif r < 0.68:
        # Tiny values: normal minimum, subnormals, and underflow to zero.
        s = rng.choice([
            "5e-324", "4.9406564584124654e-324", "2.4703282292062328e-324", "2.4703282292062327e-324",
            "2.2250738585072014e-308", "2.2250738585072011e-308", "1e-400", "1e-323",
            "%.*e" % (rng.randint(0, 20), double_from_bits(rng.randint(1, (1 << 52) - 1))),
            mantissa_exponent(rng, str(rng.randint(1, 10 ** 17)), rng.randint(-345, -300)),
            "0." + "0" * rng.randint(300, 330) + str(rng.randint(1, 10 ** 6)),
            "1e-7", "1e-6", "0.000001", "0.0000001", "1.5e-7",
        ])
    elif r < 0.80:
        # Random binary64 values, shortest and long spellings.
        d = abs(random_finite_double(rng))
        form = rng.randint(0, 3)
        if form == 0:
            s = repr(d)
        elif form == 1:
            s = "%.17g" % d
        elif form == 2:
            s = "%.*e" % (rng.randint(17, 30), d)
        else:
            s = "%.*e" % (rng.randint(0, 5), d)
        s = s.replace("inf", "1e308")
    elif r < 0.90:
        s = halfway(rng)
    else:
        # Long mantissas with the point somewhere inside.
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(17, 60)))
        cut = rng.randint(1, len(digits) - 1)
        ip = digits[:cut].lstrip("0") or "0"
        s = ip + "." + digits[cut:]
        if rng.random() < 0.4:
            s += rng.choice(["e", "E", "e+", "e-", "E-"]) + str(rng.randint(0, 40))
    if neg:
        s = "-" + s
    return s


def number(rng):
    while True:
        s = random_number(rng)
        if NUMBER_RE.match(s) and math.isfinite(float(s)):
            return s


# ---------------------------------------------------------------- values


class Budget:
    def __init__(self, n):
        self.n = n


def value(rng, depth, budget, deep_target):
    budget.n -= 1
    want_container = depth < deep_target or (
        depth < MAX_DEPTH and budget.n > 0 and rng.random() < 0.45 / (1 + depth * 0.35)
    )
    if want_container:
        if rng.random() < 0.5:
            return array(rng, depth + 1, budget, deep_target)
        return obj(rng, depth + 1, budget, deep_target)
    r = rng.random()
    if r < 0.45:
        return number(rng)
    if r < 0.85:
        return spell_string(rng, random_text(rng, 12))
    return rng.choice(["true", "false", "null"])


def array(rng, depth, budget, deep_target):
    n = 0 if budget.n <= 0 else rng.choice([0, 1, 1, 2, 3, 4, 6])
    if depth < deep_target:
        n = max(n, 1)
    items = []
    chain = rng.randrange(n) if n else -1
    for i in range(n):
        target = deep_target if i == chain else 0
        items.append(ws(rng) + value(rng, depth, budget, target) + ws(rng))
    if not items:
        return "[" + ws(rng) + "]"
    return "[" + ",".join(items) + "]"


def obj(rng, depth, budget, deep_target):
    n = 0 if budget.n <= 0 else rng.choice([0, 1, 2, 3, 4, 5, 8])
    if depth < deep_target:
        n = max(n, 1)
    seen = set()
    members = []
    chain = rng.randrange(n) if n else -1
    for i in range(n):
        for _ in range(20):
            key = random_key(rng)
            if key not in seen:
                break
        else:
            continue
        seen.add(key)
        target = deep_target if i == chain else 0
        members.append(
            ws(rng) + spell_string(rng, key) + ws(rng) + ":" + ws(rng) + value(rng, depth, budget, target) + ws(rng)
        )
    if not members:
        return "{" + ws(rng) + "}"
    return "{" + ",".join(members) + "}"


def document(rng):
    budget = Budget(rng.choice([3, 10, 25, 60]))
    deep_target = rng.randint(8, MAX_DEPTH) if rng.random() < 0.08 else 0
    top = rng.random()
    if deep_target or top < 0.45:
        body = obj(rng, 1, budget, deep_target)
    elif top < 0.8:
        body = array(rng, 1, budget, deep_target)
    else:
        body = value(rng, 0, budget, 0)
    return ws(rng) + body + ws(rng)


def main():
    ap = argparse.ArgumentParser(description="Random JSON corpus for differential testing.")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--out", required=True, help="output file ('-' for stdout)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    out = sys.stdout if args.out == "-" else open(args.out, "w", encoding="utf-8", newline="\n")
    with out:
        for _ in range(args.count):
            out.write(json.dumps(document(rng), ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
