#!/usr/bin/env python3
"""Regenerates the committed seed corpora under fuzz/corpus/<target>/.

    python3 fuzz/make_seeds.py --bin target/debug/contractpin

Seeds come from the repository's own test data (vectors/, tests/mcp/fixtures,
examples/) plus a few hand-written corner cases. The lock seeds are written by
`contractpin init --file` (so their digests are consistent); everything else
needs only the standard library. Output is deterministic. Keep each corpus
small (a few dozen files): the fuzzer grows its own working corpus under
fuzz/target/ (gitignored), the committed one is only the starting point and
the regression set that tests/properties.rs replays on stable.
"""
import argparse
import hashlib
import json
import os
import shutil
import struct
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")


def read(rel):
    with open(os.path.join(ROOT, rel), "rb") as f:
        return f.read()


def put(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


SUITE = "vectors/JSONTestSuite/test_parsing"
JCS = "vectors/rfc8785-testdata/input"

# A spread of JSONTestSuite cases: accepted, rejected and implementation-defined.
SUITE_PICKS = [
    "y_array_heterogeneous.json", "y_number_real_capital_e_neg_exp.json",
    "i_number_very_big_negative_int.json", "y_object_duplicated_key.json",
    "y_object_escaped_null_in_key.json", "y_string_accepted_surrogate_pair.json",
    "y_string_escaped_control_character.json", "y_string_last_surrogates_1_and_2.json",
    "y_string_unicode_U+FFFE_nonchar.json", "y_structure_whitespace_array.json",
    "y_string_utf8.json", "y_number_minus_zero.json",
    "n_array_extra_comma.json", "n_number_-01.json", "n_number_infinity.json",
    "n_object_trailing_comment.json", "n_string_invalid_utf8_after_escape.json",
    "n_string_unescaped_tab.json", "n_structure_open_array_open_object.json",
    "n_structure_UTF8_BOM_no_data.json", "n_string_1_surrogate_then_escape_u1x.json",
    "i_number_huge_exp.json", "i_number_double_huge_neg_exp.json",
    "i_string_1st_surrogate_but_2nd_missing.json", "i_string_overlong_sequence_2_bytes.json",
    "i_string_UTF-16LE_with_BOM.json", "i_structure_500_nested_arrays.json",
    "i_number_real_underflow.json",
]

HAND = {
    "utf16-order.json": '{"\ue000":1,"\U0001F600":2,"\uffff":3,"a":4,"":5}'.encode(),
    "escapes.json": rb'["\u0000\u001f\b\f\n\r\t\"\\\/","\ud83d\ude00","\u2028\u2029"]',
    "numbers.json": b"[0,-0,1e21,1e20,1e-7,0.000001,9007199254740993,5e-324,1.7976931348623157e308,1E+2,-0.0e-0]",
    "dup-escaped.json": rb'{"a":1,"\u0061":2}',
    "deep.json": b"[" * 256 + b"]" * 256,
    "too-deep.json": b"[" * 257 + b"]" * 257,
    "overflow.json": b"[1e309]",
    "lone-surrogate.json": rb'"\udc00"',
    "bom.json": b'\xef\xbb\xbf{}',
    "trailing.json": b"{} x",
    "empty.json": b"",
    "ws-only.json": b" \t\r\n",
}


def json_seeds():
    picks = [(n, read(os.path.join(SUITE, n))) for n in SUITE_PICKS]
    jcs = [(n, read(os.path.join(JCS, n))) for n in sorted(os.listdir(os.path.join(ROOT, JCS)))]
    hand = sorted(HAND.items())
    examples = [("tools-list.json", read("examples/tools-list.json"))]
    return picks, jcs, hand, examples


def numbers():
    values = [0.0, -0.0, 1.0, -1.5, 0.1, 1e21, 1e20, 1e-6, 1e-7, 5e-324, 2.2250738585072014e-308,
              1.7976931348623157e308, 9007199254740992.0, 123456789012345680000.0, 4.35, 0.3,
              1e23, 8.41e21, 5e-7, 333333333.3333333, -1.2345678901234567e-6, 2.5, 1e15, 1e16,
              float("inf"), float("-inf"), float("nan")]
    for i, v in enumerate(values):
        put("numbers", "f%02d" % i, struct.pack("<d", v))
    for i, bits in enumerate([1, 0x000FFFFFFFFFFFFF, 0x0010000000000000, 0x7FEFFFFFFFFFFFFF,
                              0x3FF0000000000001, 0x7FF0000000000001]):
        put("numbers", "b%02d" % i, struct.pack("<Q", bits))


def ffi(payloads):
    # op (12 ops) + 24 parameter bytes + payload; see tests/support/checks.rs.
    n = 0
    for op in range(12):
        for pi, (name, payload) in enumerate(payloads):
            if (op + pi) % 6:
                continue
            params = bytes(((op * 31 + pi * 17 + k * 7) % 256) for k in range(24))
            put("ffi", "op%d-%s" % (op, name), bytes([op]) + params + payload)
            n += 1


def locks(binary):
    fixtures = sorted(os.listdir(os.path.join(ROOT, "tests/mcp/fixtures")))
    put("lock", "example.lock", read("examples/contractpin.lock"))
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, SOURCE_DATE_EPOCH="1790000000")
        lock = os.path.join(tmp, "contractpin.lock")
        for i, fx in enumerate(fixtures):
            one = os.path.join(tmp, "one-%d.lock" % i)
            dump = os.path.join(tmp, fx)
            shutil.copy(os.path.join(ROOT, "tests/mcp/fixtures", fx), dump)
            for target in (one, lock):
                subprocess.run([binary, "init", "--lock", target, "--name", fx.split("-tools")[0],
                                "--file", dump], check=True, env=env, capture_output=True)
            put("lock", fx.replace("-tools-list.json", ".lock"), open(one, "rb").read())
        put("lock", "all-fixtures.lock", open(lock, "rb").read())
    # Hand-made rejections: version, algorithm, digest shape, count.
    good = read("examples/contractpin.lock")
    for name, (a, b) in {
        "bad-version.lock": (b'"contractpin": "1"', b'"contractpin": "2"'),
        "bad-algorithm.lock": (b'"sha256",', b'"sha512",'),
        "bad-count.lock": (b'"tool_count": 1', b'"tool_count": 2'),
        "bad-digest.lock": (b'"digest": "sha256:', b'"digest": "sha256:0'),
        "bad-transport.lock": (b'"transport": "file"', b'"transport": "ftp"'),
    }.items():
        put("lock", name, good.replace(a, b, 1))


def tools_lists():
    fixtures = sorted(os.listdir(os.path.join(ROOT, "tests/mcp/fixtures")))
    out = []
    for fx in fixtures:
        out.append((fx, read(os.path.join("tests/mcp/fixtures", fx))))
    out.append(("example.json", read("examples/tools-list.json")))
    out.append(("drifted.json", read("examples/drifted-tools-list.json")))
    tool = {"name": "t", "description": "d", "inputSchema": {"type": "object"}}
    hand = {
        "bare-array.json": [tool],
        "jsonrpc.json": {"jsonrpc": "2.0", "id": 1, "result": {"tools": [tool], "nextCursor": None}},
        "pages.json": [{"tools": [tool], "nextCursor": "2"}, {"tools": [dict(tool, name="u")]}],
        "rpc-pages.json": [{"jsonrpc": "2.0", "id": 1, "result": {"tools": [tool]}}],
        "rpc-error.json": {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "x"}},
        "dup-across-pages.json": [{"tools": [tool]}, {"tools": [tool]}],
        "not-object.json": {"tools": [1]},
        "name-number.json": [{"name": 1}],
        "no-name.json": [{"description": "x"}],
        "null-fields.json": [{"name": "n", "description": None, "inputSchema": None,
                              "outputSchema": None, "annotations": None, "title": "t"}],
        "empty-annotations.json": [{"name": "n", "annotations": {}}],
        "utf16-names.json": [{"name": "\ue000"}, {"name": "\U0001F600"}, {"name": "a"}],
        "empty.json": [],
        "not-list.json": "tools",
    }
    for name, doc in sorted(hand.items()):
        out.append((name, json.dumps(doc, ensure_ascii=False).encode()))
    out.append(("escaped-dup.json", rb'[{"name":"a"},{"\u006eame":"\u0061"}]'))
    return out


def enforcer():
    """Sessions for the enforcer target, in the byte language of
    src/proxy/fuzzing.rs: a policy byte (bit 0 observe, bit 1 block, bit 2
    instructions unchecked), then per step an id byte, an operation byte
    and the operation's own bytes."""
    listing = [0, 0, 1]                 # client: tools/list, id 0
    pinned_page = [0, 1, 2, 0, 2, 1]    # server: id 0, tools a and b as pinned
    call_a = [1, 3, 0, 1]               # client: tools/call a, id 1
    changed = [0, 2]                    # server: list_changed
    call_escaped = [2, 3, 3, 1]         # client: tools/call "\u0061", id 2
    drift_page = [0, 1, 3, 3, 6, 1, 1]  # server: a drifted, c unpinned, a respelled
    init = [1, 4]                       # client: initialize, id 1
    drifted_instructions = [1, 5, 2, 1]
    respelled_instructions = [1, 5, 1, 1]
    instructions_and_tools = [1, 5, 0, 0]
    session = (listing + pinned_page + call_a + changed + call_escaped + listing
               + drift_page + call_a + init + drifted_instructions)
    for policy, name in [(0, "enforce-hide"), (2, "enforce-block"), (1, "observe"),
                         (4, "enforce-no-instructions")]:
        put("enforcer", "session-%s.bin" % name, bytes([policy] + session))
    put("enforcer", "handshake-with-tools.bin",
        bytes([0] + init + instructions_and_tools + init + respelled_instructions))
    put("enforcer", "batch.bin", bytes([0] + [0, 6] + listing + pinned_page + [1, 6] + call_a + changed))
    put("enforcer", "mutated.bin", bytes([0] + listing + [0, 7] + pinned_page + [0, 40, ord('"')] + call_a))
    # A second listing without b: b is no longer callable.
    put("enforcer", "relisting.bin",
        bytes([0] + listing + pinned_page + [1, 0, 1] + [1, 1, 1, 0, 1] + [2, 3, 1, 1]))
    # A page answering no request (id 3) lists b: it makes nothing callable.
    put("enforcer", "unmatched-page.bin",
        bytes([0] + listing + [0, 1, 1, 0, 1] + [3, 1, 1, 2, 1] + [2, 3, 1, 1]))
    put("enforcer", "raw.bin", bytes([0] + [0, 8, 1, 20]) + b'{"jsonrpc":"2.0","id":0' + bytes(listing))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bin", required=True, help="the contractpin binary (for the lock seeds)")
    args = ap.parse_args()
    for target in ("parser", "writer", "numbers", "ffi", "lock", "tools_list", "enforcer"):
        shutil.rmtree(os.path.join(CORPUS, target), ignore_errors=True)
    picks, jcs, hand, examples = json_seeds()
    for name, data in picks + jcs + hand + examples:
        put("parser", name, data)
    for name, data in jcs + hand + [p for p in picks if p[0][0] in "yi"]:
        put("writer", name, data)
    # Found by the writer target (2026-12-07): a key with an escape and a
    # truncated UTF-8 sequence, before an object value; the canonicalizer's
    # tools-list shape read the key's text before the index had checked it.
    for target in ("parser", "writer"):
        put(target, "key-invalid-utf8.json", b'{"\\u0074o\xf4":{}}')
    numbers()
    tl = tools_lists()
    for name, data in tl:
        put("tools_list", name, data)
    ffi([(n, d) for n, d in tl if len(d) < 2000] + [(n, d) for n, d in hand])
    locks(os.path.abspath(args.bin))
    enforcer()
    for target in sorted(os.listdir(CORPUS)):
        files = os.listdir(os.path.join(CORPUS, target))
        size = sum(os.path.getsize(os.path.join(CORPUS, target, f)) for f in files)
        print("%-12s %3d files %8d bytes" % (target, len(files), size))


if __name__ == "__main__":
    main()
