#!/usr/bin/env python3
"""Cross-check vectors/vectors.json against the independent oracles.

For every success vector, each oracle is fed the value it can judge:
  - mode "value" and "instructions": the input (text, or raw bytes from input_hex);
  - mode "tool":       the expected `canonical` text (the projected contract),
                       which the oracle must re-canonicalize to the same bytes;
  - mode "tools-list": the expected `canonical` text (the {name: digest} object).
Each oracle's output is compared with canonical_hex. Rejection vectors are
judged by contractpin's rules alone (SPEC.md section 4).

One python3 process (oracle_rfc8785.py) and one node process (canon.mjs) judge
all vectors, batched over stdin. Exit status: 0 when no oracle disagrees,
1 on any disagreement, 2 when the vectors or an oracle cannot be run
(install the oracles with `bash .ci/install-oracles.sh`).

Usage: check_vectors.py [--vectors FILE] [--verbose]
"""
import argparse
import collections
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_VECTORS = os.path.join(os.path.dirname(HERE), "vectors.json")
ORACLES = [
    ("rfc8785 (PyPI 0.1.4)", [sys.executable, os.path.join(HERE, "oracle_rfc8785.py")]),
    ("canonicalize (npm 5.1.0)", ["node", os.path.join(HERE, "canon.mjs")]),
]
SHOW = 5


def oracle_line(vector):
    """The JSON line fed to the oracles for a success vector."""
    mode = vector.get("mode")
    if mode in ("value", "instructions"):
        if "input" in vector:
            return json.dumps(vector["input"])
        return json.dumps({"hex": vector["input_hex"]})
    if mode in ("tool", "tools-list"):
        if "canonical" in vector:
            return json.dumps(vector["canonical"])
        return json.dumps({"hex": vector["canonical_hex"]})
    raise ValueError("vector %r: unknown mode %r" % (vector.get("name"), mode))


def expected_hex(vector):
    if "canonical_hex" in vector:
        return vector["canonical_hex"].lower()
    return vector["canonical"].encode("utf-8").hex()


def run_oracle(argv, payload, count):
    try:
        proc = subprocess.run(
            argv, input=payload.encode("utf-8"), capture_output=True, cwd=HERE
        )
    except FileNotFoundError as e:
        sys.exit("check_vectors: cannot run %s (%s); run `bash .ci/install-oracles.sh`" % (argv[0], e))
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
        print("check_vectors: %s exited %d: %s" % (" ".join(argv), proc.returncode, " | ".join(err)), file=sys.stderr)
        print("check_vectors: install the oracles with `bash .ci/install-oracles.sh`", file=sys.stderr)
        sys.exit(2)
    lines = proc.stdout.decode("utf-8").splitlines()
    if len(lines) != count:
        sys.exit("check_vectors: %s answered %d lines for %d inputs" % (argv[-1], len(lines), count))
    return lines


def short(s, n=120):
    return s if len(s) <= n else s[:n] + "...(%d chars)" % len(s)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vectors", default=DEFAULT_VECTORS)
    ap.add_argument("--verbose", action="store_true", help="list every not-judged vector")
    args = ap.parse_args()
    if not os.path.exists(args.vectors):
        sys.exit("check_vectors: %s does not exist" % args.vectors)
    with open(args.vectors, "rb") as f:
        data = json.load(f)
    vectors = data["vectors"] if isinstance(data, dict) else data

    success = [v for v in vectors if "error" not in v]
    rejections = [v for v in vectors if "error" in v]
    payload = "".join(oracle_line(v) + "\n" for v in success)
    modes = collections.Counter(v["mode"] for v in success)
    print("%s: %d vectors, %d success (%s), %d rejection" % (
        args.vectors, len(vectors), len(success),
        ", ".join("%s %d" % kv for kv in sorted(modes.items())), len(rejections)))

    failed = False
    for name, argv in ORACLES:
        answers = run_oracle(argv, payload, len(success))
        agreed, disagreed, not_judged = 0, [], collections.defaultdict(list)
        for vector, got in zip(success, answers):
            if got.startswith("!"):
                not_judged[got[1:]].append(vector["name"])
            elif got == expected_hex(vector):
                agreed += 1
            else:
                disagreed.append((vector, got))
        nj = sum(len(v) for v in not_judged.values())
        print("%s: agreed %d, disagreed %d, not judged %d" % (name, agreed, len(disagreed), nj))
        for reason, names in sorted(not_judged.items()):
            listed = names if args.verbose else names[:SHOW]
            more = "" if len(listed) == len(names) else ", ..."
            print("  not judged (%s): %d: %s%s" % (reason, len(names), ", ".join(listed), more))
        for vector, got in disagreed[:SHOW]:
            print("  DISAGREE %s (mode %s)" % (vector["name"], vector["mode"]))
            print("    expected %s" % short(expected_hex(vector)))
            print("    oracle   %s" % short(got))
        if len(disagreed) > SHOW:
            print("  ... and %d more disagreements" % (len(disagreed) - SHOW))
        failed = failed or bool(disagreed)

    print("%d rejection vectors: judged by contractpin rules alone; JSON.parse keeps the "
          "last duplicate key and replaces invalid UTF-8, Python json keeps duplicates"
          % len(rejections))
    if failed:
        print("check_vectors: FAILED (an oracle disagrees with vectors.json)")
        return 1
    print("check_vectors: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
