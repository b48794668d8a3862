"""An independent reference implementation of contractpin-canonical-json/1.

Standard library only; it never calls the contractpin library. It is written
from SPEC.md alone, to be read and checked by a person: a strict recursive
descent parser over bytes, the RFC 8785 writer, the contract projection and
the digests.

    canonical(data: bytes) -> bytes
    tool_contract(data: bytes) -> (bytes, dict)
    tools_list(data: bytes) -> (bytes, dict)

Every rejection raises JsonError with a kind from SPEC.md section 10.
"""

import hashlib

MAX_DEPTH = 256
WS = b" \t\n\r"
NUMBER_BYTES = b"0123456789+-.eE"
SIMPLE_ESCAPES = {
    ord('"'): '"', ord("\\"): "\\", ord("/"): "/", ord("b"): "\b",
    ord("f"): "\f", ord("n"): "\n", ord("r"): "\r", ord("t"): "\t",
}


class JsonError(Exception):
    """A rejection, with its SPEC.md section 10 kind and a byte offset."""

    def __init__(self, kind, offset):
        super().__init__(f"{kind} at byte {offset}")
        self.kind = kind
        self.offset = offset


class _Parser:
    def __init__(self, data):
        self.d = data
        self.i = 0

    def fail(self, kind, at=None):
        raise JsonError(kind, self.i if at is None else at)

    def peek(self):
        return self.d[self.i] if self.i < len(self.d) else None

    def ws(self):
        while self.i < len(self.d) and self.d[self.i] in WS:
            self.i += 1

    def document(self):
        if self.d[:3] == b"\xef\xbb\xbf":
            self.fail("byte-order-mark", 0)
        self.ws()
        value = self.value(0)
        self.ws()
        if self.i < len(self.d):
            self.fail("trailing-data")
        return value

    def value(self, depth):
        c = self.peek()
        if c is None:
            self.fail("unexpected-end")
        if c in b"{[":
            if depth >= MAX_DEPTH:
                self.fail("depth-limit")
            return self.obj(depth + 1) if c == ord("{") else self.arr(depth + 1)
        if c == ord('"'):
            return self.string()
        if c == ord("-") or 0x30 <= c <= 0x39:
            return self.number()
        for word, val in ((b"true", True), (b"false", False), (b"null", None)):
            if c == word[0]:
                for k, w in enumerate(word):
                    if self.i + k >= len(self.d):
                        self.fail("unexpected-end", len(self.d))
                    if self.d[self.i + k] != w:
                        self.fail("unexpected-byte", self.i + k)
                self.i += len(word)
                return val
        self.fail("unexpected-byte")

    def expect_more(self):
        self.ws()
        if self.peek() is None:
            self.fail("unexpected-end")

    def obj(self, depth):
        self.i += 1
        out = {}
        self.expect_more()
        if self.peek() == ord("}"):
            self.i += 1
            return out
        while True:
            self.expect_more()
            if self.peek() != ord('"'):
                self.fail("unexpected-byte")
            key_at = self.i
            key = self.string()
            self.expect_more()
            if self.peek() != ord(":"):
                self.fail("unexpected-byte")
            self.i += 1
            self.expect_more()
            val = self.value(depth)
            if key in out:
                self.fail("duplicate-key", key_at)
            out[key] = val
            self.expect_more()
            c = self.peek()
            self.i += 1
            if c == ord("}"):
                return out
            if c != ord(","):
                self.fail("unexpected-byte", self.i - 1)

    def arr(self, depth):
        self.i += 1
        out = []
        self.expect_more()
        if self.peek() == ord("]"):
            self.i += 1
            return out
        while True:
            self.expect_more()
            out.append(self.value(depth))
            self.expect_more()
            c = self.peek()
            self.i += 1
            if c == ord("]"):
                return out
            if c != ord(","):
                self.fail("unexpected-byte", self.i - 1)

    def hex4(self, at):
        digits = self.d[at + 2:at + 6]
        # Scanning left to right: a non-hex byte is the first defect even
        # when the input also ends early.
        if not all(chr(b) in "0123456789abcdefABCDEF" for b in digits):
            self.fail("invalid-escape", at)
        if len(digits) < 4:
            self.fail("unexpected-end", len(self.d))
        return int(digits, 16)

    def string(self):
        self.i += 1
        chars = []
        d = self.d
        while True:
            if self.i >= len(d):
                self.fail("unexpected-end", len(d))
            b = d[self.i]
            if b == ord('"'):
                self.i += 1
                return "".join(chars)
            if b == ord("\\"):
                at = self.i
                if at + 1 >= len(d):
                    self.fail("unexpected-end", len(d))
                e = d[at + 1]
                if e in SIMPLE_ESCAPES:
                    chars.append(SIMPLE_ESCAPES[e])
                    self.i += 2
                elif e == ord("u"):
                    unit = self.hex4(at)
                    if 0xDC00 <= unit <= 0xDFFF:
                        self.fail("lone-surrogate", at)
                    if 0xD800 <= unit <= 0xDBFF:
                        nxt = at + 6
                        if nxt >= len(d) or (d[nxt] == ord("\\") and nxt + 1 >= len(d)):
                            self.fail("unexpected-end", len(d))
                        if d[nxt:nxt + 2] != b"\\u":
                            self.fail("lone-surrogate", at)
                        low = self.hex4(nxt)
                        if not 0xDC00 <= low <= 0xDFFF:
                            self.fail("lone-surrogate", at)
                        chars.append(chr(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)))
                        self.i = nxt + 6
                    else:
                        chars.append(chr(unit))
                        self.i = at + 6
                else:
                    self.fail("invalid-escape", at)
            elif b < 0x20:
                self.fail("control-character")
            elif b < 0x80:
                chars.append(chr(b))
                self.i += 1
            else:
                chars.append(self.utf8_char())

    def utf8_char(self):
        """Decodes one multi-byte UTF-8 character with Python's strict decoder."""
        b = self.d[self.i]
        n = 2 if 0xC2 <= b <= 0xDF else 3 if 0xE0 <= b <= 0xEF else 4 if 0xF0 <= b <= 0xF4 else 0
        if n == 0:
            self.fail("invalid-utf8")
        try:
            ch = self.d[self.i:self.i + n].decode("utf-8", "strict")
        except UnicodeDecodeError:
            self.fail("invalid-utf8")
        if len(ch) != 1:
            self.fail("invalid-utf8")
        self.i += n
        return ch

    def number(self):
        start = self.i
        d = self.d
        j = start
        if j < len(d) and d[j] == ord("-"):
            j += 1

        def digits(j):
            k = j
            while k < len(d) and 0x30 <= d[k] <= 0x39:
                k += 1
            return k

        if j < len(d) and d[j] == ord("0"):
            j += 1
        elif j < len(d) and 0x31 <= d[j] <= 0x39:
            j = digits(j)
        else:
            self.fail("invalid-number", start)
        if j < len(d) and d[j] == ord("."):
            k = digits(j + 1)
            if k == j + 1:
                self.fail("invalid-number", start)
            j = k
        if j < len(d) and d[j] in b"eE":
            j += 1
            if j < len(d) and d[j] in b"+-":
                j += 1
            k = digits(j)
            if k == j:
                self.fail("invalid-number", start)
            j = k
        if j < len(d) and d[j] in NUMBER_BYTES:
            self.fail("invalid-number", start)
        self.i = j
        value = float(d[start:j].decode("ascii"))
        if value in (float("inf"), float("-inf")):
            self.fail("number-out-of-range", start)
        return value


def parse(data):
    """Parses strict JSON bytes into Python values (numbers are floats)."""
    return _Parser(data).document()


# --- the canonical writer -------------------------------------------------

def es_number(x):
    """ECMAScript Number::toString of a finite float, from repr's shortest digits."""
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    r = repr(abs(x))
    mant, _, exp = r.partition("e")
    exp = int(exp) if exp else 0
    intpart, _, frac = mant.partition(".")
    digits = (intpart + frac).lstrip("0")
    e10 = exp - len(frac)
    stripped = digits.rstrip("0")
    e10 += len(digits) - len(stripped)
    s, k = stripped, len(stripped)
    n = k + e10
    if k <= n <= 21:
        out = s + "0" * (n - k)
    elif 0 < n <= 21:
        out = s[:n] + "." + s[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + s
    else:
        e = n - 1
        out = s[0] + ("." + s[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return sign + out


ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def es_string(s):
    out = ['"']
    for ch in s:
        if ch in ESCAPES:
            out.append(ESCAPES[ch])
        elif ord(ch) < 0x20:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def write(v):
    """RFC 8785 text of a parsed value."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, float):
        return es_number(v)
    if isinstance(v, str):
        return es_string(v)
    if isinstance(v, list):
        return "[" + ",".join(write(x) for x in v) + "]"
    keys = sorted(v, key=lambda k: k.encode("utf-16-be"))
    return "{" + ",".join(es_string(k) + ":" + write(v[k]) for k in keys) + "}"


def canonical_bytes(v):
    return write(v).encode("utf-8")


def digest(b):
    return "sha256:" + hashlib.sha256(b).hexdigest()


def canonical(data):
    return canonical_bytes(parse(data))


def instructions(data):
    """(canonical bytes, decoded text) of a server's `instructions` string
    (SPEC.md section 13): the digest is SHA-256 of the canonical string."""
    text = parse(data)
    if not isinstance(text, str):
        raise SystemExit("an instructions vector must be a JSON string")
    return canonical_bytes(text), text


# --- case-variant keys (SPEC.md section 6) --------------------------------

MESSAGE_MEMBERS = ("jsonrpc", "id", "method", "params", "result", "error")
PAGE_MEMBERS = ("tools", "result", "error", "nextCursor")
TOOL_MEMBERS = ("annotations", "description", "inputSchema", "name", "outputSchema")

# The non-ASCII letters case-insensitive decoders fold onto ASCII ones.
_FOLD = {"\u017f": "s", "\u212a": "k", "\u0131": "i", "\u0130": "i"}


def _folded(key):
    out = []
    for ch in key:
        if ch in _FOLD:
            out.append(_FOLD[ch])
        elif ord(ch) < 0x80:
            out.append(ch.lower())
        else:
            return None
    return "".join(out)


def check_no_variant(obj, names):
    """Refuses an object with a key equal to one of `names` only under case
    folding (`Description`, `deſcription`): a case-insensitive decoder would
    read it in place of the member a checker reads."""
    wanted = {n.lower(): n for n in names}
    for key in obj:
        name = wanted.get(_folded(key))
        if name is not None and key != name:
            raise JsonError("case-variant-key", 0)


# --- contracts (SPEC.md section 2) and digests (section 5) ---------------

def project(tool):
    if not isinstance(tool, dict):
        raise JsonError("tool-not-object", 0)
    if not isinstance(tool.get("name"), str):
        raise JsonError("name-not-string", 0)
    check_no_variant(tool, TOOL_MEMBERS)
    contract = {
        "name": tool["name"],
        "description": tool.get("description"),
        "inputSchema": tool.get("inputSchema"),
    }
    for optional in ("outputSchema", "annotations"):
        if tool.get(optional) is not None:
            contract[optional] = tool[optional]
    return contract


def contract_digests(tool):
    contract = project(tool)
    canon = canonical_bytes(contract)
    fields = {f: digest(canonical_bytes(v)) for f, v in contract.items()}
    return canon, digest(canon), dict(sorted(fields.items()))


def tool_contract(data):
    canon, _, fields = contract_digests(parse(data))
    return canon, fields


def _page_tools(page):
    if not isinstance(page, dict):
        raise JsonError("not-tools-list", 0)
    check_no_variant(page, PAGE_MEMBERS)
    check_no_variant(page, MESSAGE_MEMBERS)
    if "error" in page:
        raise JsonError("json-rpc-error", 0)
    obj = page
    if "result" in page:
        obj = page["result"]
        # `tools` beside `result`: a client would read one list and a checker the other.
        if not isinstance(obj, dict) or "tools" in page:
            raise JsonError("not-tools-list", 0)
        check_no_variant(obj, PAGE_MEMBERS)
    tools = obj.get("tools")
    if not isinstance(tools, list):
        raise JsonError("not-tools-list", 0)
    return tools


def tools_of(root):
    """The tools of every accepted tools/list shape (SPEC.md section 6)."""
    if isinstance(root, dict):
        return [_page_tools(root)]
    if isinstance(root, list):
        first = root[0] if root else None
        if isinstance(first, dict) and "name" not in first and any(k in first for k in ("tools", "result", "error")):
            return [_page_tools(p) for p in root]
        return [root]
    raise JsonError("not-tools-list", 0)


def tools_list(data):
    """Returns (canonical server object bytes, {name: {digest, fields}})."""
    root = parse(data)
    entries = {}
    tools = []
    for page in tools_of(root):
        for tool in page:
            if not isinstance(tool, dict):
                raise JsonError("tool-not-object", 0)
            if not isinstance(tool.get("name"), str):
                raise JsonError("name-not-string", 0)
            check_no_variant(tool, TOOL_MEMBERS)
            tools.append(tool)
    for tool in tools:
        if tool["name"] in entries:
            raise JsonError("duplicate-tool-name", 0)
        _, d, fields = contract_digests(tool)
        entries[tool["name"]] = {"digest": d, "fields": fields}
    server = canonical_bytes({name: e["digest"] for name, e in entries.items()})
    ordered = {k: entries[k] for k in sorted(entries, key=lambda k: k.encode("utf-16-be"))}
    return server, ordered
