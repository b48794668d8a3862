#!/usr/bin/env python3
"""Oracle runner: PyPI rfc8785 (pinned in requirements.txt).

Reads JSON lines on stdin. Each line is either a JSON string whose value is
a document's text, or an object {"hex": "..."} holding the document's raw
bytes. Writes one line per input: the canonical bytes as lowercase hex, or
"!<reason>" when this oracle rejects the document or cannot judge it.

rfc8785 has no parser, so documents go through Python's json module:
  - parse_int=float: rfc8785 refuses integers of magnitude >= 2**53, and
    every JSON number is a binary64 value anyway (SPEC.md section 3.6);
  - parse_constant raises: NaN/Infinity/-Infinity are not JSON;
  - object_pairs_hook rejects duplicate keys (json keeps them otherwise).
"""
import json
import sys

import rfc8785


class Reject(Exception):
    pass


def _constant(name):
    raise Reject("non-json-constant")


def _pairs(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise Reject("duplicate-key")
        obj[key] = value
    return obj


def judge(doc):
    """doc: str (document text) or bytes (raw document). Returns an output line."""
    if isinstance(doc, bytes):
        try:
            text = doc.decode("utf-8", errors="strict")
        except UnicodeDecodeError:
            return "!invalid-utf8"
    else:
        text = doc
        try:
            text.encode("utf-8", errors="strict")
        except UnicodeEncodeError:
            return "!invalid-utf8"
    if text.startswith("\ufeff"):
        return "!byte-order-mark"
    try:
        value = json.loads(
            text, parse_int=float, parse_constant=_constant, object_pairs_hook=_pairs
        )
    except Reject as e:
        return "!" + str(e)
    except json.JSONDecodeError as e:
        return "!parse-error: " + e.msg
    except RecursionError:
        return "!too-deep"
    try:
        out = rfc8785.dumps(value)
    except rfc8785.FloatDomainError:
        return "!number-out-of-range"
    except rfc8785.IntegerDomainError:
        return "!integer-domain"
    except rfc8785.CanonicalizationError as e:
        if "UTF-8" in str(e):
            return "!lone-surrogate"
        return "!canonicalization-error: " + str(e)
    except RecursionError:
        return "!too-deep"
    return out.hex()


def main():
    out = sys.stdout
    for raw in sys.stdin.buffer:
        line = raw.strip()
        if not line:
            continue
        try:
            item = json.loads(line)
            if isinstance(item, str):
                result = judge(item)
            elif isinstance(item, dict) and isinstance(item.get("hex"), str):
                result = judge(bytes.fromhex(item["hex"]))
            else:
                result = "!bad-input-line"
        except Exception as e:  # one bad line must not shift the others
            result = "!internal: " + type(e).__name__ + ": " + str(e)
        out.write(result.replace("\n", " ") + "\n")
    out.flush()


if __name__ == "__main__":
    main()
