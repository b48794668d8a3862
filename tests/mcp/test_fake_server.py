"""Self-test of fake_server.py: each scenario really misbehaves the way SCENARIOS.md says.

Run:  python3 -m pytest -q tests/mcp/test_fake_server.py
Standard library + pytest only.  Every blocking read has a timeout, every
process is killed at the end of its test, so the suite cannot hang.
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE = os.path.join(HERE, "fake_server.py")
sys.path.insert(0, HERE)
import fake_server  # noqa: E402

ACCEPT = "application/json, text/event-stream"
BASE_NAMES = ["get_weather", "search_docs", "send_email"]
PROCS: list[subprocess.Popen] = []


@pytest.fixture(autouse=True)
def _reap():
    yield
    while PROCS:
        p = PROCS.pop()
        if p.poll() is None:
            p.kill()
        p.wait(5)


def init_msg(rid=1, version="2025-11-25"):
    return {"jsonrpc": "2.0", "id": rid, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {},
                       "clientInfo": {"name": "selftest", "version": "0"}}}


def list_msg(rid, cursor=None, meta=None):
    params = {}
    if cursor is not None:
        params["cursor"] = cursor
    if meta is not None:
        params["_meta"] = meta
    m = {"jsonrpc": "2.0", "id": rid, "method": "tools/list"}
    if params:
        m["params"] = params
    return m


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientInfo": {"name": "selftest", "version": "0"},
               "io.modelcontextprotocol/clientCapabilities": {}}


def names(result):
    return [t["name"] for t in result["tools"]]


# --------------------------------------------------------------------------- stdio harness


class Stdio:
    def __init__(self, *args):
        self.p = subprocess.Popen([sys.executable, FAKE, "--transport", "stdio", *args],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        PROCS.append(self.p)
        self.q: queue.Queue = queue.Queue()
        self.err = bytearray()
        threading.Thread(target=self._out, daemon=True).start()
        self.err_reader = threading.Thread(target=self._err, daemon=True)
        self.err_reader.start()

    def _out(self):
        for line in self.p.stdout:
            self.q.put(line)
        self.q.put(None)

    def _err(self):
        for chunk in iter(lambda: self.p.stderr.read1(65536), b""):
            self.err += chunk

    def stderr_after_exit(self, timeout=5.0):
        """All of stderr, once the exited process's stderr has been read to its end
        (the reader thread may still be draining it when wait() returns)."""
        self.err_reader.join(timeout)
        return bytes(self.err)

    def send(self, msg):
        self.p.stdin.write((json.dumps(msg) if not isinstance(msg, bytes) else msg.decode()).encode() + b"\n")
        self.p.stdin.flush()

    def line(self, timeout=5.0):
        """Next raw stdout line (without newline); None at EOF; raises queue.Empty on timeout."""
        line = self.q.get(timeout=timeout)
        return None if line is None else line.rstrip(b"\n")

    def request(self, msg, timeout=5.0):
        """Send, then return (parsed answer, raw answer line, [raw lines seen before it])."""
        self.send(msg)
        before = []
        deadline = time.monotonic() + timeout
        while True:
            raw = self.line(max(0.01, deadline - time.monotonic()))
            assert raw is not None, f"EOF before the answer to {msg['id']}; stderr={bytes(self.err)[-500:]!r}"
            try:
                obj = json.loads(raw)
            except ValueError:
                before.append(raw)
                continue
            if isinstance(obj, dict) and obj.get("id") == msg["id"] and ("result" in obj or "error" in obj):
                return obj, raw, before
            before.append(raw)

    def handshake(self, version="2025-11-25"):
        r, _, _ = self.request(init_msg(1, version))
        self.send(INITIALIZED)
        return r

    def pages(self, max_pages=20):
        """Follow nextCursor (stopping at a repeat) and return the list of results."""
        out, cursor, seen = [], None, set()
        for i in range(max_pages):
            r, _, _ = self.request(list_msg(100 + i, cursor))
            out.append(r["result"])
            cursor = r["result"].get("nextCursor")
            if cursor is None or cursor in seen:
                break
            seen.add(cursor)
        return out


def ok_tool_bytes():
    return list(fake_server.BASELINE_TOOLS)


# --------------------------------------------------------------------------- stdio: handshake


def test_stdio_handshake_versions_and_discover():
    s = Stdio()
    r, _, _ = s.request({"jsonrpc": "2.0", "id": 9, "method": "server/discover", "params": {"_meta": MODERN_META}})
    assert r["error"]["code"] == -32601
    for v in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]:
        r, _, _ = s.request(init_msg(1, v))
        assert r["result"]["protocolVersion"] == v
    for v in ["2026-07-28", "1999-01-01"]:
        r, _, _ = s.request(init_msg(2, v))
        assert r["result"]["protocolVersion"] == "2025-11-25"
    r, _, _ = s.request({"jsonrpc": "2.0", "id": 3, "method": "no/such"})
    assert r["error"]["code"] == -32601


def test_stdio_versions_flag_and_discover_error_flag():
    s = Stdio("--versions", "2024-11-05,2025-03-26", "--discover-error", "-32602")
    assert s.request(init_msg(1, "2025-11-25"))[0]["result"]["protocolVersion"] == "2025-03-26"
    assert s.request(init_msg(2, "2024-11-05"))[0]["result"]["protocolVersion"] == "2024-11-05"
    r, _, _ = s.request({"jsonrpc": "2.0", "id": 3, "method": "server/discover", "params": {"_meta": MODERN_META}})
    assert r["error"]["code"] == -32602


def test_stdio_discover_mode_serves_modern_requests_without_initialize():
    s = Stdio("--discover")
    r, _, _ = s.request({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": MODERN_META}})
    assert r["result"]["supportedVersions"] == ["2026-07-28"]
    r, raw, _ = s.request(list_msg(2, meta=MODERN_META))
    assert names(r["result"]) == BASE_NAMES
    assert r["result"]["resultType"] == "complete" and r["result"]["ttlMs"] == 0
    # handshake-era requests still work on another connection
    s2 = Stdio("--discover")
    s2.handshake()
    r2, _, _ = s2.request(list_msg(2))
    assert "resultType" not in r2["result"]
    assert r2["result"]["tools"] == r["result"]["tools"]


def test_stdio_strict_init():
    s = Stdio("--strict-init")
    r, _, _ = s.request(list_msg(1))
    assert r["error"]["code"] == -32602
    s.handshake()
    assert names(s.request(list_msg(2))[0]["result"]) == BASE_NAMES


# --------------------------------------------------------------------------- stdio: tool sets


def test_ok_serves_baseline_bytes_verbatim():
    s = Stdio("--scenario", "ok")
    s.handshake()
    r, raw, _ = s.request(list_msg(2))
    assert names(r["result"]) == BASE_NAMES and "nextCursor" not in r["result"]
    assert b"Caf\\u00e9" in raw and b'"maximum": 5e1' in raw  # raw text, not re-serialised
    assert raw == fake_server.Core.response(2, b'{"tools":[' + b",".join(ok_tool_bytes()) + b"]}")


def test_drift_added_removed():
    base = {t["name"]: t for t in json.loads(b"[" + b",".join(ok_tool_bytes()) + b"]")}
    s = Stdio("--scenario", "drift-description")
    s.handshake()
    tools = {t["name"]: t for t in s.request(list_msg(2))[0]["result"]["tools"]}
    assert tools.keys() == base.keys()
    assert tools["send_email"]["description"] != base["send_email"]["description"]
    assert "<IMPORTANT>" in tools["send_email"]["description"]
    assert {k: v for k, v in tools["send_email"].items() if k != "description"} == \
        {k: v for k, v in base["send_email"].items() if k != "description"}
    assert tools["get_weather"] == base["get_weather"] and tools["search_docs"] == base["search_docs"]

    s = Stdio("--scenario", "added-tool")
    s.handshake()
    assert names(s.request(list_msg(2))[0]["result"]) == BASE_NAMES + ["export_contacts"]
    s = Stdio("--scenario", "removed-tool")
    s.handshake()
    assert names(s.request(list_msg(2))[0]["result"]) == ["get_weather", "send_email"]


def test_tools_file_is_served_byte_for_byte(tmp_path):
    fixture = os.path.join(HERE, "fixtures", "py2-tools-list.json")
    s = Stdio("--tools", fixture, "--page-size", "2")
    s.handshake()
    r, raw, _ = s.request(list_msg(2))
    raw_fixture = open(fixture, "rb").read()
    first = fake_server.raw_array_elements(raw_fixture[slice(*fake_server.raw_member_span(raw_fixture, b"tools"))])
    assert raw.startswith(b'{"jsonrpc":"2.0","id":2,"result":{"tools":[' + b",".join(first[:2]) + b"]")
    assert r["result"]["nextCursor"] == "cursor-1"
    bare = tmp_path / "bare.json"
    bare.write_bytes(b'[ {"name":"a"} ,{"name":"b","x":1.50}]')
    s = Stdio("--tools", str(bare))
    s.handshake()
    _, raw, _ = s.request(list_msg(2))
    assert b'"tools":[{"name":"a"},{"name":"b","x":1.50}]' in raw


def test_many_tools():
    s = Stdio("--scenario", "many-tools", "--count", "25", "--page-size", "10")
    s.handshake()
    pages = s.pages()
    assert [len(p["tools"]) for p in pages] == [10, 10, 5]
    assert len({n for p in pages for n in names(p)}) == 25


# --------------------------------------------------------------------------- stdio: pagination


def test_one_per_page():
    s = Stdio("--scenario", "one-per-page")
    s.handshake()
    pages = s.pages()
    assert [names(p) for p in pages] == [[n] for n in BASE_NAMES]
    assert "nextCursor" not in pages[-1]


def test_stuck_cursor_repeats_forever():
    s = Stdio("--scenario", "stuck-cursor")
    s.handshake()
    p1 = s.request(list_msg(2))[0]["result"]
    assert names(p1) == ["get_weather"] and p1["nextCursor"] == "stuck"
    for rid in (3, 4, 5):
        p = s.request(list_msg(rid, "stuck"))[0]["result"]
        assert names(p) == ["search_docs", "send_email"] and p["nextCursor"] == "stuck"


def test_empty_cursor_continuation():
    s = Stdio("--scenario", "empty-cursor-continuation")
    s.handshake()
    p1 = s.request(list_msg(2))[0]["result"]
    assert names(p1) == ["get_weather"] and p1["nextCursor"] == ""
    p2 = s.request(list_msg(3, ""))[0]["result"]
    assert names(p2) == ["search_docs", "send_email"] and "nextCursor" not in p2


@pytest.mark.parametrize("variant", ["empty-cursor-legacy-end", "empty-cursor-legacy-end-repeat"])
def test_empty_cursor_legacy_end(variant):
    s = Stdio("--scenario", variant)
    s.handshake()
    p1 = s.request(list_msg(2))[0]["result"]
    assert names(p1) == ["get_weather", "search_docs"] and p1["nextCursor"] == "cursor-1"
    p2 = s.request(list_msg(3, "cursor-1"))[0]["result"]
    assert names(p2) == ["send_email"] and p2["nextCursor"] == ""
    r = s.request(list_msg(4, ""))[0]
    if variant == "empty-cursor-legacy-end":
        assert r["error"]["code"] == -32602
    else:
        assert r["result"] == p1


def test_duplicate_across_pages():
    s = Stdio("--scenario", "duplicate-across-pages")
    s.handshake()
    pages = s.pages()
    assert [names(p) for p in pages] == [["get_weather", "search_docs"], ["search_docs", "send_email"]]


def test_many_pages_endless_and_finite():
    s = Stdio("--scenario", "many-pages")
    s.handshake()
    pages = s.pages(max_pages=60)
    assert len(pages) == 60
    cursors = [p["nextCursor"] for p in pages]
    assert len(set(cursors)) == 60
    assert len({n for p in pages for n in names(p)}) == 60
    s = Stdio("--scenario", "many-pages", "--pages", "4")
    s.handshake()
    pages = s.pages(max_pages=60)
    assert len(pages) == 4 and "nextCursor" not in pages[-1]


def test_unknown_cursor_is_an_error():
    s = Stdio("--page-size", "2")
    s.handshake()
    assert s.request(list_msg(2, "nope"))[0]["error"]["code"] == -32602
    assert s.request(list_msg(3, ""))[0]["error"]["code"] == -32602


# --------------------------------------------------------------------------- stdio: misbehaviour


def test_junk_stdout():
    s = Stdio("--scenario", "junk-stdout")
    first = [s.line() for _ in range(5)]
    assert first == fake_server.JUNK_STARTUP
    for j in first:
        with pytest.raises(ValueError):
            json.loads(j)
    r, _, before = s.request(init_msg())
    assert r["result"]["protocolVersion"] == "2025-11-25"
    assert before == [b"DEBUG handled initialize"]
    s.send(INITIALIZED)
    r, _, before = s.request(list_msg(2))
    assert names(r["result"]) == BASE_NAMES and before == [b"DEBUG handled tools/list"]


def test_never_answers_tools_list():
    s = Stdio("--scenario", "never-answers-tools-list")
    s.handshake()
    s.send(list_msg(2))
    with pytest.raises(queue.Empty):
        s.line(timeout=1.5)
    assert s.request({"jsonrpc": "2.0", "id": 3, "method": "ping"})[0]["result"] == {}
    assert s.p.poll() is None


def test_exits_after_initialize():
    s = Stdio("--scenario", "exits-after-initialize")
    r, _, _ = s.request(init_msg())
    assert r["result"]["protocolVersion"] == "2025-11-25"
    assert s.line(timeout=5) is None  # EOF
    assert s.p.wait(5) == 3
    assert b"exiting with status 3" in s.stderr_after_exit()


def test_ignores_sigterm_only_sigkill_stops_it(tmp_path):
    rec = tmp_path / "rec.jsonl"
    s = Stdio("--scenario", "ignores-sigterm", "--record", str(rec))
    s.handshake()
    assert names(s.request(list_msg(2))[0]["result"]) == BASE_NAMES
    s.p.stdin.close()
    time.sleep(0.3)
    assert s.p.poll() is None, "must survive stdin EOF"
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        s.p.send_signal(sig)
    time.sleep(0.5)
    assert s.p.poll() is None, "must survive SIGTERM/SIGINT/SIGHUP"
    s.p.kill()
    assert s.p.wait(5) == -signal.SIGKILL
    kinds = [json.loads(line) for line in rec.read_text().splitlines()]
    # pending signals may be delivered in any order
    assert sorted(e["signal"] for e in kinds if e["kind"] == "signal") == \
        sorted([signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
    assert any(e["kind"] == "stdin-eof" for e in kinds)


def test_ok_exits_on_stdin_eof_and_on_sigterm(tmp_path):
    s = Stdio()
    s.handshake()
    s.p.stdin.close()
    assert s.p.wait(5) == 0
    rec = tmp_path / "rec.jsonl"
    s = Stdio("--record", str(rec))
    s.handshake()
    s.p.send_signal(signal.SIGTERM)
    assert s.p.wait(5) == 128 + signal.SIGTERM
    events = [json.loads(line) for line in rec.read_text().splitlines()]
    assert events[0]["kind"] == "start"
    assert [e["line"] for e in events if e["kind"] == "stdin"][0].startswith('{"jsonrpc": "2.0", "id": 1')
    assert events[-1] == {**events[-1], "kind": "signal", "signal": signal.SIGTERM}


def test_unrelated_messages_on_stdio():
    s = Stdio("--scenario", "sse-unrelated-events")
    s.handshake()
    r, _, before = s.request(list_msg(7))
    assert names(r["result"]) == BASE_NAMES
    objs = [json.loads(b) for b in before]
    assert objs[0]["method"] == "notifications/message"
    assert objs[1]["id"] != 7 and objs[1]["result"]["tools"][0]["name"] == "decoy"


def test_jsonrpc_error():
    s = Stdio("--scenario", "jsonrpc-error")
    s.handshake()
    assert s.request(list_msg(2))[0]["error"]["code"] == -32603


def test_slow():
    s = Stdio("--scenario", "slow", "--delay", "1.0")
    t = time.monotonic()
    s.handshake()
    assert time.monotonic() - t < 0.9
    t = time.monotonic()
    assert names(s.request(list_msg(2))[0]["result"]) == BASE_NAMES
    assert time.monotonic() - t >= 1.0


def test_huge_line_has_exact_length():
    n = 3_000_000
    s = Stdio("--scenario", "huge-line", "--huge-bytes", str(n))
    s.handshake()
    r, raw, _ = s.request(list_msg(2))
    assert len(raw) == n
    assert names(r["result"]) == ["huge"]


def test_stderr_flood_does_not_block_when_drained():
    s = Stdio("--scenario", "stderr-flood", "--flood-bytes", "300000")
    s.handshake()
    assert names(s.request(list_msg(2))[0]["result"]) == BASE_NAMES
    deadline = time.monotonic() + 5
    while len(s.err) < 600000 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(s.err) >= 600000


def test_many_pages_page_bytes_pads_each_page():
    s = Stdio("--scenario", "many-pages", "--pages", "3", "--page-bytes", "200000")
    s.handshake()
    for i, cursor in enumerate([None, "cursor-1", "cursor-2"]):
        r, raw, _ = s.request(list_msg(10 + i, cursor))
        assert 190_000 <= len(raw) <= 200_000, len(raw)
        assert names(r["result"]) == [f"page_tool_{i:06d}"]
    assert "nextCursor" not in r["result"]


def test_notification_flood_on_stdio_then_exit_4():
    s = Stdio("--scenario", "notification-flood", "--flood-count", "5", "--flood-message-bytes", "100000")
    s.handshake()
    s.send(list_msg(2))
    for _ in range(5):
        raw = s.line(timeout=5)
        assert len(raw) == 100_000
        note = json.loads(raw)
        assert note["method"] == "notifications/message" and "id" not in note
        assert set(note["params"]["data"]) == {0}
    assert s.line(timeout=5) is None  # EOF: no answer ever
    assert s.p.wait(5) == 4
    # an even size is met exactly too
    assert len(fake_server.Core(fake_server.parse_args(
        ["--flood-message-bytes", "100001"])).flood_note()) == 100_001


def test_ping_flood_stops_reading_stdin():
    s = Stdio("--scenario", "ping-flood", "--ping-count", "50")
    s.handshake()
    s.send(list_msg(2))
    ids = [json.loads(s.line(timeout=5))["id"] for _ in range(50)]
    assert ids == [f"ping-{i}" for i in range(50)]
    s.send({"jsonrpc": "2.0", "id": 3, "method": "ping"})  # never read
    with pytest.raises(queue.Empty):
        s.line(timeout=1.0)
    assert s.p.poll() is None


def test_env_file_dumps_the_environment(tmp_path):
    f = tmp_path / "env.json"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "ONLY_THIS": "x"}
    p = subprocess.Popen([sys.executable, FAKE, "--env-file", str(f)], env=env,
                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    PROCS.append(p)
    p.stdin.close()
    assert p.wait(5) == 0
    seen = json.loads(f.read_text())
    assert seen["ONLY_THIS"] == "x" and seen["PATH"] == env["PATH"]
    assert set(seen) <= {"PATH", "ONLY_THIS", "LC_CTYPE"}


def test_orphan_pid_file_leaves_a_setsid_grandchild(tmp_path):
    f = tmp_path / "orphan.pid"
    p = subprocess.Popen([sys.executable, FAKE, "--orphan-pid-file", str(f)],
                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    PROCS.append(p)
    p.stdin.close()
    assert p.wait(5) == 0
    pid = int(f.read_text())
    try:
        os.kill(pid, 0)  # still alive after the server exited
        # another session and process group than the server's (which are ours)
        assert os.getsid(pid) != os.getsid(0) and os.getpgid(pid) != os.getpgid(0)
    finally:
        os.kill(pid, signal.SIGKILL)


# --------------------------------------------------------------------------- HTTP harness


def start_http(tmp_path, *args, transport="http"):
    port_file = tmp_path / f"port-{len(PROCS)}"
    p = subprocess.Popen([sys.executable, FAKE, "--transport", transport, "--port", "0",
                          "--port-file", str(port_file), *args],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    PROCS.append(p)
    deadline = time.monotonic() + 10
    while not port_file.exists():
        assert p.poll() is None, p.stderr.read()
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.02)
    return p, int(port_file.read_text())


def post(port, msg, headers=None, timeout=5.0, path="/mcp"):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    h = {"Content-Type": "application/json", "Accept": ACCEPT}
    h.update(headers or {})
    c.request("POST", path, body=json.dumps(msg) if not isinstance(msg, bytes) else msg, headers=h)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, body


def request(port, method, headers=None, timeout=5.0, path="/mcp"):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    c.request(method, path, headers=headers or {})
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, body


def sse_events(body: bytes):
    """Minimal SSE parser per the WHATWG rules (CRLF/LF, comments, multi-line data)."""
    events, data, fields, comments = [], [], {}, []
    for line in body.decode().replace("\r\n", "\n").split("\n"):
        if line == "":
            if data or fields or comments:
                events.append({"data": "\n".join(data) if data else None, **fields, "comments": comments})
            data, fields, comments = [], {}, []
            continue
        if line.startswith(":"):
            comments.append(line[1:])
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            data.append(value)
        else:
            fields[name] = value
    return events


def http_handshake(port, headers=None):
    st, h, body = post(port, init_msg(), headers)
    assert st == 200, body
    sid = h.get("mcp-session-id")
    hh = {"MCP-Protocol-Version": "2025-11-25"}
    if sid:
        hh["Mcp-Session-Id"] = sid
    st, _, _ = post(port, INITIALIZED, hh)
    assert st == 202
    return hh


# --------------------------------------------------------------------------- HTTP tests


def test_http_json_session_lifecycle(tmp_path):
    _, port = start_http(tmp_path)
    st, h, body = post(port, init_msg())
    assert st == 200 and h["content-type"] == "application/json"
    sid = h["mcp-session-id"]
    hh = {"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
    assert post(port, INITIALIZED, hh)[0] == 202
    st, h, body = post(port, list_msg(2), hh)
    assert st == 200 and names(json.loads(body)["result"]) == BASE_NAMES
    assert post(port, list_msg(3), {"Accept": "application/json", **hh})[0] == 406
    assert post(port, list_msg(4), {"Mcp-Session-Id": "bogus"})[0] == 404
    assert post(port, list_msg(5), {**hh, "MCP-Protocol-Version": "1999-01-01"})[0] == 400
    assert request(port, "GET")[0] == 405
    assert request(port, "DELETE", hh)[0] == 200
    assert post(port, list_msg(6), hh)[0] == 404
    assert request(port, "DELETE", hh)[0] == 404
    assert request(port, "DELETE")[0] == 400
    # default is lenient: no session header at all is accepted
    assert post(port, list_msg(7))[0] == 200


def test_http_sse_answers_are_chunked_with_priming_event(tmp_path):
    _, port = start_http(tmp_path, "--http-answer", "sse", "--scenario", "one-per-page")
    hh = http_handshake(port)
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request("POST", "/mcp", body=json.dumps(list_msg(2)),
              headers={"Content-Type": "application/json", "Accept": ACCEPT, **hh})
    r = c.getresponse()
    assert r.getheader("Transfer-Encoding") == "chunked" and r.getheader("Content-Type") == "text/event-stream"
    ev = sse_events(r.read())
    assert ev[0]["data"] == "" and "id" in ev[0]
    res = json.loads(ev[1]["data"])
    assert res["id"] == 2 and names(res["result"]) == ["get_weather"] and res["result"]["nextCursor"] == "cursor-1"


def test_http_sse_unrelated_events(tmp_path):
    _, port = start_http(tmp_path, "--scenario", "sse-unrelated-events")
    hh = http_handshake(port)
    st, h, body = post(port, list_msg(42), hh)
    assert h["content-type"] == "text/event-stream"
    ev = sse_events(body)
    assert ev[0]["comments"] and ev[0]["data"] is None
    assert ev[1]["data"] == ""
    msgs = [json.loads(e["data"]) for e in ev[2:]]
    assert msgs[0]["method"] == "notifications/message"
    assert msgs[1]["id"] != 42 and names(msgs[1]["result"]) == ["decoy"]
    assert msgs[2]["id"] == 42 and names(msgs[2]["result"]) == BASE_NAMES
    assert len(msgs) == 3


def test_http_sse_framing(tmp_path):
    _, port = start_http(tmp_path, "--scenario", "sse-framing")
    hh = http_handshake(port)
    st, h, body = post(port, list_msg(5), hh)
    assert b"\r\n" in body and b"retry: 1500" in body
    data_lines = [line for line in body.split(b"\r\n") if line.startswith(b"data:")]
    assert len(data_lines) > 5 and any(not line.startswith(b"data: ") for line in data_lines[1:])
    ev = [e for e in sse_events(body) if e["data"]]
    assert len(ev) == 1
    assert names(json.loads(ev[0]["data"])["result"]) == BASE_NAMES


def test_http_missing_session(tmp_path):
    _, port = start_http(tmp_path, "--scenario", "missing-session")
    hh = http_handshake(port)
    st, _, body = post(port, list_msg(2), {"MCP-Protocol-Version": "2025-11-25"})
    assert st == 400 and json.loads(body)["error"]["code"] == -32600
    assert post(port, list_msg(3), {"Mcp-Session-Id": "nope"})[0] == 404
    st, _, body = post(port, list_msg(4), hh)
    assert st == 200 and names(json.loads(body)["result"]) == BASE_NAMES


def test_http_expired_session(tmp_path):
    _, port = start_http(tmp_path, "--scenario", "expired-session")
    st, h, _ = post(port, init_msg())
    assert st == 200 and h["mcp-session-id"]
    hh = {"Mcp-Session-Id": h["mcp-session-id"], "MCP-Protocol-Version": "2025-11-25"}
    assert post(port, INITIALIZED, hh)[0] == 404
    assert post(port, list_msg(2), hh)[0] == 404


def test_http_no_session_flag(tmp_path):
    _, port = start_http(tmp_path, "--no-session")
    st, h, _ = post(port, init_msg())
    assert st == 200 and "mcp-session-id" not in h


def test_http_discover(tmp_path):
    _, port = start_http(tmp_path)
    disc = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": MODERN_META}}
    st, _, body = post(port, disc, {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"})
    assert st == 400 and json.loads(body)["error"]["code"] == -32601
    _, port = start_http(tmp_path, "--discover")
    st, _, body = post(port, disc)
    assert st == 400 and json.loads(body)["error"]["code"] == -32020
    st, h, body = post(port, disc, {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"})
    assert st == 200 and json.loads(body)["result"]["supportedVersions"] == ["2026-07-28"]
    assert "mcp-session-id" not in h
    st, _, body = post(port, list_msg(2, meta=MODERN_META),
                       {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"})
    assert st == 200 and json.loads(body)["result"]["resultType"] == "complete"


def test_http_never_answers(tmp_path):
    _, port = start_http(tmp_path, "--scenario", "never-answers-tools-list")
    hh = http_handshake(port)
    t = time.monotonic()
    with pytest.raises(TimeoutError):
        post(port, list_msg(2), hh, timeout=1.0)
    assert time.monotonic() - t < 3


def test_http_exits_after_initialize(tmp_path):
    p, port = start_http(tmp_path, "--scenario", "exits-after-initialize")
    st, _, body = post(port, init_msg())
    assert st == 200 and json.loads(body)["result"]["protocolVersion"] == "2025-11-25"
    assert p.wait(5) == 3
    with pytest.raises(ConnectionRefusedError):
        post(port, list_msg(2))


def test_http_ignores_sigterm(tmp_path):
    p, port = start_http(tmp_path, "--scenario", "ignores-sigterm")
    p.send_signal(signal.SIGTERM)
    time.sleep(0.3)
    assert p.poll() is None
    hh = http_handshake(port)
    assert post(port, list_msg(2), hh)[0] == 200
    p.kill()
    assert p.wait(5) == -signal.SIGKILL


def test_http_huge_body(tmp_path):
    _, port = start_http(tmp_path, "--scenario", "huge-line", "--huge-bytes", "2000000")
    hh = http_handshake(port)
    st, h, body = post(port, list_msg(2), hh)
    assert st == 200 and len(body) == 2_000_000 and int(h["content-length"]) == 2_000_000


def test_http_record_headers(tmp_path):
    rec = tmp_path / "rec.jsonl"
    _, port = start_http(tmp_path, "--record", str(rec))
    hh = http_handshake(port, {"Authorization": "Bearer fake-token-123"})
    post(port, list_msg(2), hh)
    events = [e for e in map(json.loads, rec.read_text().splitlines()) if e["kind"] == "http"]
    assert events[0]["headers"]["Authorization"] == "Bearer fake-token-123"
    assert events[-1]["headers"]["Mcp-Session-Id"] == hh["Mcp-Session-Id"]
    assert json.loads(events[-1]["body"])["method"] == "tools/list"


# --------------------------------------------------------------------------- legacy HTTP+SSE


class LegacyStream:
    def __init__(self, port):
        self.c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        self.c.request("GET", "/sse", headers={"Accept": "text/event-stream"})
        self.r = self.c.getresponse()
        assert self.r.status == 200 and self.r.getheader("Content-Type") == "text/event-stream"
        self.buf = b""

    def event(self):
        while b"\n\n" not in self.buf:
            chunk = self.r.read1(65536)
            assert chunk, "stream closed"
            self.buf += chunk
        block, self.buf = self.buf.split(b"\n\n", 1)
        return sse_events(block + b"\n\n")[0]

    def until_answer(self, rid):
        seen = []
        while True:
            ev = self.event()
            seen.append(ev)
            if ev.get("data"):
                o = json.loads(ev["data"])
                if o.get("id") == rid and ("result" in o or "error" in o):
                    return o, seen


def test_legacy_sse_transport(tmp_path):
    _, port = start_http(tmp_path, "--scenario", "one-per-page", transport="sse")
    assert post(port, init_msg(), path="/sse")[0] == 405
    s = LegacyStream(port)
    ev = s.event()
    assert ev["event"] == "endpoint" and ev["data"].startswith("/messages?session_id=")
    ep = ev["data"]
    st, _, body = post(port, init_msg(), path=ep)
    assert st == 202 and body == b"Accepted"
    o, _ = s.until_answer(1)
    assert o["result"]["protocolVersion"] == "2025-11-25"
    assert post(port, INITIALIZED, path=ep)[0] == 202
    post(port, list_msg(2), path=ep)
    o, _ = s.until_answer(2)
    assert names(o["result"]) == ["get_weather"] and o["result"]["nextCursor"] == "cursor-1"
    assert post(port, list_msg(3), path="/messages?session_id=nope")[0] == 404


def test_legacy_sse_unrelated_events_and_exit(tmp_path):
    _, port = start_http(tmp_path, "--scenario", "sse-unrelated-events", transport="sse")
    s = LegacyStream(port)
    ep = s.event()["data"]
    post(port, init_msg(), path=ep)
    o, seen = s.until_answer(1)
    datas = [e["data"] for e in seen]
    assert datas[0] is None and datas[1] == ""
    assert json.loads(datas[2])["method"] == "notifications/message"
    assert json.loads(datas[3])["id"] != 1

    p, port = start_http(tmp_path, "--scenario", "exits-after-initialize", transport="sse")
    s = LegacyStream(port)
    ep = s.event()["data"]
    post(port, init_msg(), path=ep)
    o, _ = s.until_answer(1)
    assert o["result"]["protocolVersion"] == "2025-11-25"
    assert p.wait(5) == 3


def test_legacy_sse_notification_flood_then_the_stream_ends(tmp_path):
    _, port = start_http(tmp_path, "--scenario", "notification-flood", "--flood-count", "4",
                         "--flood-message-bytes", "50000", transport="sse")
    s = LegacyStream(port)
    ep = s.event()["data"]
    post(port, init_msg(), path=ep)
    s.until_answer(1)
    post(port, list_msg(2), path=ep)
    for _ in range(4):
        ev = s.event()
        assert ev["event"] == "message" and len(ev["data"]) == 50_000
        assert json.loads(ev["data"])["method"] == "notifications/message"
    with pytest.raises(AssertionError, match="stream closed"):
        s.event()


def call_msg(rid, name, arguments=None):
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
            "params": {"name": name, "arguments": arguments or {}}}


def test_tools_call_answers_known_tools_only():
    s = Stdio()
    s.handshake()
    r = s.request(call_msg(2, "get_weather", {"city": "Paris"}))[0]
    assert r["result"]["content"][0]["text"] == "called get_weather"
    r = s.request(call_msg(3, "search_docs", {"query": "q"}))[0]
    assert r["result"]["structuredContent"] == {"hits": ["hit for q"]}
    r = s.request(call_msg(4, "nope"))[0]
    assert r["error"]["code"] == -32602 and r["error"]["message"] == "Unknown tool: nope"


def test_cloak_shows_the_pinned_tools_to_contractpin_only():
    base = json.loads(b"[" + b",".join(ok_tool_bytes()) + b"]")
    for client, poisoned in (("contractpin", False), ("Contractpin-CI", False), ("claude-ai", True), ("mcp", True)):
        s = Stdio("--scenario", "cloak")
        m = init_msg()
        m["params"]["clientInfo"]["name"] = client
        s.request(m)
        s.send(INITIALIZED)
        tools = s.request(list_msg(2))[0]["result"]["tools"]
        assert names({"tools": tools}) == BASE_NAMES
        assert ("<IMPORTANT>" in tools[2]["description"]) == poisoned, client
        assert tools[:2] == base[:2]
        # A tools/call works either way.
        assert s.request(call_msg(3, "send_email"))[0]["result"]["content"][0]["text"] == "called send_email"


def test_shadow_nests_the_baseline_beside_the_poisoned_list():
    base = json.loads(b"[" + b",".join(ok_tool_bytes()) + b"]")
    s = Stdio("--scenario", "shadow")
    s.handshake()
    result = s.request(list_msg(2))[0]["result"]
    assert names(result) == BASE_NAMES and "<IMPORTANT>" in result["tools"][2]["description"]
    assert result["result"] == {"tools": base}


@pytest.mark.parametrize("scenario", ["swap", "add"])
def test_swap_and_add_change_the_list_after_the_second_call(scenario):
    s = Stdio("--scenario", scenario)
    r = s.handshake()
    assert r["result"]["capabilities"]["tools"]["listChanged"] is True
    first = s.request(list_msg(2))[0]["result"]
    assert names(first) == BASE_NAMES
    assert s.request(call_msg(3, "get_weather"))[0]["result"]
    _, _, _ = s.request(call_msg(4, "get_weather"))
    note = json.loads(s.line())
    assert note == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    after = s.request(list_msg(5))[0]["result"]
    if scenario == "swap":
        assert names(after) == BASE_NAMES
        assert "<IMPORTANT>" in after["tools"][2]["description"]
        assert after["tools"][:2] == first["tools"][:2]
    else:
        assert names(after) == BASE_NAMES + ["export_contacts"]
        assert after["tools"][:3] == first["tools"]
    # Only once.
    s.request(call_msg(6, "get_weather"))
    with pytest.raises(queue.Empty):
        s.line(0.3)


def test_every_scenario_is_documented():
    doc = open(os.path.join(HERE, "SCENARIOS.md"), encoding="utf-8").read()
    for name in fake_server.SCENARIOS:
        assert f"`{name}`" in doc, name
