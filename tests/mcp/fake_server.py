# --------------------------------------------------------------------------- raw JSON slicing
# Used to splice tool objects into responses byte-for-byte (no re-serialisation)
# and, by probe.py, to cut the raw `result` object out of a response.

_WS = b" \t\r\n"


def _skip_ws(buf: bytes, i: int) -> int:
    while i < len(buf) and buf[i] in _WS:
        i += 1
    return i


def skip_value(buf: bytes, i: int) -> int:
    """Return the index just past the JSON value starting at buf[i] (after whitespace).

    Assumes well-formed JSON (the input has been checked with json.loads).
    """
    i = _skip_ws(buf, i)
    c = buf[i:i + 1]
    if c == b'"':
        i += 1
        while True:
            ch = buf[i]
            if ch == 0x5C:  # backslash
                i += 2
            elif ch == 0x22:
                return i + 1
            else:
                i += 1
    if c in (b"{", b"["):
        depth = 0
        while True:
            ch = buf[i:i + 1]
            if ch == b'"':
                i = skip_value(buf, i)
                continue
            if ch in (b"{", b"["):
                depth += 1
            elif ch in (b"}", b"]"):
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
    while i < len(buf) and buf[i:i + 1] not in (b",", b"}", b"]") and buf[i] not in _WS:
        i += 1
    return i


def raw_member_span(buf: bytes, key: bytes):
    """(start, end) of the value of member `key` of the top-level object in buf, or None."""
    import json as _json

    i = _skip_ws(buf, 0)
    if buf[i:i + 1] != b"{":
        return None
    i += 1
    while True:
        i = _skip_ws(buf, i)
        if buf[i:i + 1] == b"}":
            return None
        k_end = skip_value(buf, i)
        k = _json.loads(buf[i:k_end])
        i = _skip_ws(buf, k_end)
        assert buf[i:i + 1] == b":"
        v_start = _skip_ws(buf, i + 1)
        v_end = skip_value(buf, v_start)
        if k == key.decode():
            return v_start, v_end
        i = _skip_ws(buf, v_end)
        if buf[i:i + 1] == b",":
            i += 1


def raw_array_elements(buf: bytes):
    """Raw bytes of each element of the top-level JSON array in buf."""
    i = _skip_ws(buf, 0)
    if buf[i:i + 1] != b"[":
        raise ValueError("not a JSON array")
    i += 1
    out = []
    while True:
        i = _skip_ws(buf, i)
        if buf[i:i + 1] == b"]":
            return out
        end = skip_value(buf, i)
        out.append(buf[i:end])
        i = _skip_ws(buf, end)
        if buf[i:i + 1] == b",":
            i += 1
