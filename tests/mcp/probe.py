#!/usr/bin/env python3
"""Drive a real MCP server by hand and print exactly what goes over the wire.

Python standard library only.  Three transports:

  stdio   newline-delimited JSON-RPC over the child's stdin/stdout
  http    Streamable HTTP: POST, Accept: application/json, text/event-stream
  sse     legacy HTTP+SSE: GET /sse, wait for the `endpoint` event, POST there

Usage (see servers.md for the server commands):

  probe.py stdio  [--save-fixture F] [--full] -- CMD ARGS...
  probe.py http   URL [--save-fixture F]
  probe.py sse    URL [--save-fixture F]
  probe.py battery [--out DIR] [--full]     # start every real server, probe it, write
                                  # captures and fixtures (what PROTOCOL_NOTES.md
                                  # was written from)

Every line/event received is printed raw (repr of bytes, truncated at 600
bytes for display).  `--save-fixture` writes the raw bytes of the `result`
member of the tools/list response (sliced out of the bytes as received, not
re-serialised); when the server pages, the pages are written as a JSON array
of the raw result objects (the "sequence of pages" shape).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from fake_server import raw_member_span  # noqa: E402  (stdlib-only helper)

ACCEPT_BOTH = "application/json, text/event-stream"
CLIENT_INFO = {"name": "contractpin-probe", "version": "0.0.1"}
NL = b"\n"
HANDSHAKE_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
MODERN = "2026-07-28"


SHOW_LIMIT = [600]


def show(b: bytes, limit: int = 600) -> str:
    limit = max(limit, SHOW_LIMIT[0])
    r = repr(b)
    return r if len(r) <= limit else r[:limit] + f"...<{len(b)} bytes>"


def discover_request(rid, version=MODERN):
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "server/discover",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": version,
                "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        },
    }


def modern_meta(version=MODERN):
    return {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
        "io.modelcontextprotocol/clientCapabilities": {},
    }


def initialize_request(rid, version):
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": CLIENT_INFO},
    }


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def tools_list_request(rid, cursor=None, meta=None):
    params = {}
    if cursor is not None:
        params["cursor"] = cursor
    if meta is not None:
        params["_meta"] = meta
    msg = {"jsonrpc": "2.0", "id": rid, "method": "tools/list"}
    if params:
        msg["params"] = params
    return msg


def enc(msg) -> bytes:
    return json.dumps(msg, separators=(",", ":")).encode()


# --------------------------------------------------------------------------- stdio


class Stdio:
    def __init__(self, argv, env=None, cwd=None, log=print):
        self.log = log
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, cwd=cwd, start_new_session=True,
        )
        self.lines: queue.Queue = queue.Queue()
        self.stderr = bytearray()
        threading.Thread(target=self._read_out, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read_out(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _read_err(self):
        for chunk in iter(lambda: self.proc.stderr.read1(65536), b""):
            self.stderr += chunk

    def send(self, msg):
        data = enc(msg) if not isinstance(msg, bytes) else msg
        self.log(f"  >> {show(data)}")
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def recv_until(self, rid, timeout=10.0):
        """Return (raw_line_of_response, [other raw lines]) or (None, lines) on timeout/EOF."""
        deadline = time.monotonic() + timeout
        others = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.log(f"  << (no answer to id {rid!r} within {timeout}s)")
                return None, others
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                self.log("  << EOF on stdout")
                return None, others
            self.log("  << " + show(line.rstrip(NL)))
            try:
                obj = json.loads(line)
            except ValueError:
                others.append(line)
                continue
            if isinstance(obj, dict) and obj.get("id") == rid and ("result" in obj or "error" in obj):
                return line.rstrip(b"\n"), others
            others.append(line)

    def request(self, msg, timeout=10.0):
        self.send(msg)
        return self.recv_until(msg["id"], timeout)

    def close(self, grace=3.0):
        """Shutdown as a client should: close stdin, then SIGTERM, then SIGKILL."""
        steps = []
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(grace)
            steps.append("exited after stdin close")
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(grace)
                steps.append("exited after SIGTERM")
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                steps.append("needed SIGKILL")
        time.sleep(0.05)
        return steps[0], self.proc.returncode


# --------------------------------------------------------------------------- http


def parse_sse(raw: bytes):
    """Split an SSE body into events: list of dicts {id,event,data,retry,comments}."""
    events = []
    cur = {"data": [], "comments": []}
    text = raw.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
    for line in text.split("\n"):
        if line == "":
            if cur["data"] or len(cur) > 2 or cur["comments"]:
                ev = dict(cur)
                ev["data"] = "\n".join(cur["data"]) if cur["data"] else None
                events.append(ev)
            cur = {"data": [], "comments": []}
            continue
        if line.startswith(":"):
            cur["comments"].append(line[1:])
            continue
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "data":
            cur["data"].append(value)
        else:
            cur[field] = value
    return events


class Http:
    def __init__(self, url, log=print, timeout=10.0):
        self.url = urllib.parse.urlsplit(url)
        self.log = log
        self.timeout = timeout
        self.session = None
        self.version = None

    def _conn(self):
        return http.client.HTTPConnection(self.url.hostname, self.url.port, timeout=self.timeout)

    def post(self, msg, headers=None, session=True, read_until_id=None):
        """POST one message; return (status, headers dict, raw body bytes)."""
        body = enc(msg) if not isinstance(msg, bytes) else msg
        h = {"Content-Type": "application/json", "Accept": ACCEPT_BOTH}
        if session and self.session:
            h["Mcp-Session-Id"] = self.session
        if self.version:
            h["MCP-Protocol-Version"] = self.version
        h.update(headers or {})
        c = self._conn()
        self.log(f"  >> POST {self.url.path} {h}")
        self.log(f"     {show(body)}")
        c.request("POST", self.url.path or "/", body=body, headers=h)
        r = c.getresponse()
        rh = {k.lower(): v for k, v in r.getheaders()}
        self.log(f"  << {r.status} {r.reason} content-type={rh.get('content-type')!r} "
                 f"mcp-session-id={rh.get('mcp-session-id')!r}")
        raw = b""
        ctype = rh.get("content-type", "")
        if ctype.startswith("text/event-stream"):
            # Read incrementally: the stream may stay open after the answer.
            want = msg.get("id") if isinstance(msg, dict) else read_until_id
            try:
                while True:
                    chunk = r.read1(65536) if hasattr(r, "read1") else r.read(1)
                    if not chunk:
                        break
                    raw += chunk
                    done = False
                    for ev in parse_sse(raw):
                        if ev["data"]:
                            try:
                                o = json.loads(ev["data"])
                            except ValueError:
                                continue
                            if isinstance(o, dict) and o.get("id") == want and (
                                    "result" in o or "error" in o):
                                done = True
                    if done and raw.endswith(b"\n\n"):
                        break
            except socket.timeout:
                self.log("     (SSE read timed out)")
        else:
            raw = r.read()
        c.close()
        self.log(f"     body {show(raw, 1500)}")
        return r.status, rh, raw

    def delete(self):
        h = {}
        if self.session:
            h["Mcp-Session-Id"] = self.session
        if self.version:
            h["MCP-Protocol-Version"] = self.version
        c = self._conn()
        c.request("DELETE", self.url.path, headers=h)
        r = c.getresponse()
        raw = r.read()
        self.log(f"  >> DELETE {h}\n  << {r.status} {r.reason} {show(raw)}")
        c.close()
        return r.status, raw

    def get(self, headers=None, read_for=1.0):
        h = {"Accept": "text/event-stream"}
        if self.session:
            h["Mcp-Session-Id"] = self.session
        h.update(headers or {})
        c = http.client.HTTPConnection(self.url.hostname, self.url.port, timeout=read_for)
        c.request("GET", self.url.path, headers=h)
        r = c.getresponse()
        rh = {k.lower(): v for k, v in r.getheaders()}
        raw = b""
        try:
            while True:
                chunk = r.read1(65536)
                if not chunk:
                    break
                raw += chunk
        except (socket.timeout, TimeoutError):
            pass
        self.log(f"  >> GET {h}\n  << {r.status} {r.reason} ct={rh.get('content-type')!r} {show(raw)}")
        c.close()
        return r.status, rh, raw


def response_from_http(raw: bytes, ctype: str, rid):
    """Find the JSON-RPC response with id `rid` in a JSON or SSE body; return raw bytes."""
    if ctype.startswith("application/json"):
        return raw
    for ev in parse_sse(raw):
        if not ev["data"]:
            continue
        try:
            o = json.loads(ev["data"])
        except ValueError:
            continue
        if isinstance(o, dict) and o.get("id") == rid and ("result" in o or "error" in o):
            return ev["data"].encode()
    return None


# --------------------------------------------------------------------------- legacy SSE


class LegacySse:
    def __init__(self, url, log=print, timeout=10.0):
        self.url = urllib.parse.urlsplit(url)
        self.log = log
        self.timeout = timeout
        self.events: queue.Queue = queue.Queue()
        self.endpoint = None
        self.conn = http.client.HTTPConnection(self.url.hostname, self.url.port, timeout=timeout)
        self.conn.request("GET", self.url.path, headers={"Accept": "text/event-stream"})
        self.resp = self.conn.getresponse()
        self.log(f"  >> GET {self.url.path}\n  << {self.resp.status} "
                 f"ct={self.resp.getheader('content-type')!r}")
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        buf = b""
        try:
            while True:
                chunk = self.resp.read1(65536)
                if not chunk:
                    break
                self.log(f"  << raw stream chunk {show(chunk)}")
                buf += chunk
                buf = buf.replace(b"\r\n", b"\n")
                while b"\n\n" in buf:
                    block, buf = buf.split(b"\n\n", 1)
                    self.events.put(block)
        except Exception as e:  # noqa: BLE001
            self.events.put(f"<stream ended: {e!r}>".encode())
        self.events.put(None)

    def next_event(self, timeout):
        block = self.events.get(timeout=timeout)
        if block is None:
            return None
        self.log(f"  << event {show(block)}")
        ev = parse_sse(block + b"\n\n")
        return ev[0] if ev else {"data": None, "comments": []}

    def wait_endpoint(self):
        while True:
            ev = self.next_event(self.timeout)
            if ev is None:
                raise RuntimeError("stream closed before endpoint event")
            if ev.get("event") == "endpoint":
                self.endpoint = urllib.parse.urljoin(urllib.parse.urlunsplit(self.url), ev["data"])
                return self.endpoint

    def send(self, msg):
        u = urllib.parse.urlsplit(self.endpoint)
        c = http.client.HTTPConnection(u.hostname, u.port, timeout=self.timeout)
        path = u.path + ("?" + u.query if u.query else "")
        body = enc(msg)
        c.request("POST", path, body=body, headers={"Content-Type": "application/json"})
        r = c.getresponse()
        raw = r.read()
        self.log(f"  >> POST {path} {show(body)}\n  << {r.status} {r.reason} {show(raw)}")
        c.close()
        return r.status

    def request(self, msg, timeout=10.0):
        self.send(msg)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                ev = self.next_event(deadline - time.monotonic())
            except queue.Empty:
                break
            if ev is None:
                return None
            if ev.get("data"):
                try:
                    o = json.loads(ev["data"])
                except ValueError:
                    continue
                if isinstance(o, dict) and o.get("id") == msg["id"]:
                    return ev["data"].encode()
        self.log(f"  << (no answer to id {msg['id']!r})")
        return None

    def close(self):
        self.conn.close()


# --------------------------------------------------------------------------- helpers


def result_raw(line: bytes) -> bytes | None:
    span = raw_member_span(line, b"result")
    return line[span[0]:span[1]] if span else None


def collect_pages(request_fn, meta=None, max_pages=50):
    """Follow nextCursor; request_fn(msg) -> raw response bytes.  Returns list of raw result bytes."""
    pages = []
    cursor = None
    seen = set()
    for i in range(max_pages):
        line = request_fn(tools_list_request(1000 + i, cursor, meta))
        if line is None:
            break
        raw = result_raw(line)
        if raw is None:
            break
        pages.append(raw)
        nxt = json.loads(raw).get("nextCursor")
        if nxt is None or nxt in seen:
            break
        seen.add(nxt)
        cursor = nxt
    return pages


def save_fixture(path, pages):
    with open(path, "wb") as f:
        if len(pages) == 1:
            f.write(pages[0])
        else:
            f.write(b"[" + b",".join(pages) + b"]")
    print(f"  saved fixture {path} ({len(pages)} page(s))")


def contracts(pages):
    """Tools of all pages as {name: contract-projection} for cross-transport comparison."""
    out = {}
    for raw in pages:
        for t in json.loads(raw)["tools"]:
            c = {"name": t["name"], "description": t.get("description"), "inputSchema": t.get("inputSchema")}
            for k in ("outputSchema", "annotations"):
                if t.get(k) is not None:
                    c[k] = t[k]
            out[t["name"]] = c
    return out


def wait_port(port, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return True
        except OSError:
            time.sleep(0.1)
    return False


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


# --------------------------------------------------------------------------- batteries


def battery_stdio(argv, env=None, cwd=None, fixture=None):
    """Everything we want to know about a stdio server.  Returns contracts of tools/list."""
    res = {}
    print("## server/discover (modern probe)")
    s = Stdio(argv, env, cwd)
    line, _ = s.request(discover_request(1), timeout=8)
    res["discover"] = json.loads(line) if line else None
    if line and "result" in json.loads(line):
        print("## tools/list with per-request _meta, no initialize (modern)")
        line, _ = s.request(tools_list_request(2, meta=modern_meta()), timeout=8)
        res["modern_tools_list"] = line
    print("## ... then initialize 2025-11-25 on the same connection")
    line, _ = s.request(initialize_request(3, "2025-11-25"), timeout=8)
    res["init_after_discover"] = json.loads(line) if line else None
    print(f"## close: {s.close()}")
    print(f"## stderr: {show(bytes(s.stderr), 2000)}")

    res["negotiated"] = {}
    for v in HANDSHAKE_VERSIONS + ["1999-01-01"]:
        print(f"## initialize protocolVersion={v}")
        s = Stdio(argv, env, cwd)
        line, _ = s.request(initialize_request(1, v), timeout=8)
        o = json.loads(line) if line else None
        res["negotiated"][v] = (o or {}).get("result", {}).get("protocolVersion") if o and "result" in o \
            else (o or {}).get("error")
        s.close()

    print("## tools/list before initialize")
    s = Stdio(argv, env, cwd)
    line, _ = s.request(tools_list_request(1), timeout=5)
    res["tools_list_before_initialize"] = json.loads(line) if line else None
    s.close()

    print("## tools/list after initialize but before notifications/initialized")
    s = Stdio(argv, env, cwd)
    s.request(initialize_request(1, "2025-11-25"))
    line, _ = s.request(tools_list_request(2), timeout=5)
    res["tools_list_before_initialized"] = (json.loads(line) if line else None)
    s.close()

    print("## full handshake + paginated tools/list, per version")
    per_version = {}
    for v in HANDSHAKE_VERSIONS[:4]:
        s = Stdio(argv, env, cwd)
        s.request(initialize_request(1, v))
        s.send(INITIALIZED)
        pages = collect_pages(lambda m: s.request(m)[0])
        per_version[v] = pages
        how = s.close()
        print(f"## {v}: {len(pages)} page(s); shutdown: {how}; stderr {len(s.stderr)} bytes")
    res["pages"] = per_version

    print("## tools/list with cursor \"\" and with an unknown cursor (after a full handshake)")
    s = Stdio(argv, env, cwd)
    s.request(initialize_request(1, "2025-11-25"))
    s.send(INITIALIZED)
    for rid, cur in ((2, ""), (3, "no-such-cursor")):
        line, _ = s.request(tools_list_request(rid, cur), timeout=5)
        o = json.loads(line) if line else None
        summary = None
        if o and "result" in o:
            summary = {"tools": len(o["result"].get("tools", [])), "nextCursor": o["result"].get("nextCursor")}
        elif o:
            summary = o.get("error")
        print(f"## cursor {cur!r} -> {summary}")
        res[f"cursor_{cur!r}"] = summary
    s.close()
    if res.get("modern_tools_list"):
        s = Stdio(argv, env, cwd)
        pages = collect_pages(lambda m: s.request(m)[0], meta=modern_meta())
        per_version[MODERN] = pages
        s.close()
    base = contracts(per_version["2025-11-25"])
    for v, pages in per_version.items():
        same = contracts(pages) == base
        print(f"## contracts at {v} equal to 2025-11-25: {same}")
    if fixture:
        save_fixture(fixture, per_version["2025-11-25"])
    return res


def battery_http(url, fixture=None):
    res = {}
    h = Http(url)
    print("## server/discover over HTTP (no session, with MCP-Protocol-Version + Mcp-Method headers)")
    st, rh, raw = h.post(discover_request(1), headers={"MCP-Protocol-Version": MODERN,
                                                       "Mcp-Method": "server/discover"})
    res["discover"] = (st, rh.get("content-type"), raw)
    if st == 200:
        print("## modern tools/list over HTTP: _meta + MCP-Protocol-Version + Mcp-Method, no session")
        hm = Http(url)

        def modern_req(m):
            st, rh, raw = hm.post(m, headers={"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list"})
            return response_from_http(raw, rh.get("content-type", ""), m["id"])

        res["modern_pages"] = collect_pages(modern_req, meta=modern_meta())
        print("## modern tools/list over HTTP without the Mcp-Method header")
        res["modern_no_method_header"] = hm.post(tools_list_request(7, meta=modern_meta()),
                                                 headers={"MCP-Protocol-Version": MODERN})[0]
    print("## server/discover over HTTP without the modern headers")
    st, rh, raw = h.post(discover_request(1))
    res["discover_noheaders"] = (st, rh.get("content-type"), raw)

    print("## tools/list without any session or initialize")
    st, rh, raw = Http(url).post(tools_list_request(1))
    res["no_session"] = (st, raw)

    res["negotiated"] = {}
    for v in HANDSHAKE_VERSIONS + ["1999-01-01"]:
        print(f"## initialize protocolVersion={v}")
        hh = Http(url)
        st, rh, raw = hh.post(initialize_request(1, v))
        line = response_from_http(raw, rh.get("content-type", ""), 1)
        o = json.loads(line) if line else None
        res["negotiated"][v] = (st, o.get("result", {}).get("protocolVersion") if o and "result" in o
                                else (o or {}).get("error"), rh.get("mcp-session-id"))
        if rh.get("mcp-session-id"):
            hh.session = rh["mcp-session-id"]
            hh.delete()

    print("## handshake, tools/list before notifications/initialized, then full flow")
    h = Http(url)
    st, rh, raw = h.post(initialize_request(1, "2025-11-25"))
    h.session = rh.get("mcp-session-id")
    h.version = "2025-11-25"
    st, rh, raw = h.post(tools_list_request(2))
    res["before_initialized"] = (st, raw)
    st, rh, raw = h.post(INITIALIZED)
    res["initialized_status"] = (st, rh.get("content-type"), raw)
    print("## tools/list without the session header on an initialized server")
    st, rh, raw = h.post(tools_list_request(3), session=False)
    res["without_session_header"] = (st, raw)
    print("## tools/list with a bogus session id")
    st, rh, raw = h.post(tools_list_request(4), headers={"Mcp-Session-Id": "bogus-session"})
    res["bogus_session"] = (st, raw)
    print("## tools/list without Accept: text/event-stream")
    st, rh, raw = h.post(tools_list_request(5), headers={"Accept": "application/json"})
    res["accept_json_only"] = (st, raw)

    def req(m):
        st, rh, raw = h.post(m)
        return response_from_http(raw, rh.get("content-type", ""), m["id"])

    pages = collect_pages(req)
    res["pages"] = pages
    if res.get("modern_pages"):
        print(f"## modern contracts equal to 2025-11-25 contracts: "
              f"{contracts(res['modern_pages']) == contracts(pages)}")
    if fixture:
        save_fixture(fixture, pages)
    print("## GET (standalone SSE stream), 1 s")
    res["get"] = h.get(read_for=1.0)[:2]
    print("## DELETE, then tools/list on the deleted session, then DELETE again")
    res["delete"] = h.delete()
    st, rh, raw = h.post(tools_list_request(9))
    res["after_delete"] = (st, raw)
    res["delete_again"] = h.delete()
    return res


def battery_sse(url, fixture=None):
    res = {}
    print("## POST to the SSE URL (what a Streamable-HTTP client tries first)")
    st, rh, raw = Http(url).post(initialize_request(1, "2025-11-25"))
    res["post_to_sse_url"] = (st, rh.get("content-type"), raw[:200])
    s = LegacySse(url)
    res["endpoint"] = s.wait_endpoint()
    print(f"## endpoint: {res['endpoint']}")
    line = s.request(initialize_request(1, "2025-11-25"))
    res["init"] = line
    s.send(INITIALIZED)
    pages = collect_pages(lambda m: s.request(m))
    res["pages"] = pages
    if fixture:
        save_fixture(fixture, pages)
    s.close()
    return res


# --------------------------------------------------------------------------- the full battery


def repo_root():
    return os.path.abspath(os.path.join(HERE, "..", ".."))


class Launched:
    def __init__(self, argv, env=None, port=None):
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL, env=env, start_new_session=True)
        if port and not wait_port(port):
            raise RuntimeError(f"server {argv} did not listen on {port}")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        return self.proc.stdout.read(), self.proc.stderr.read()


def run_battery(out):
    root = repo_root()
    nm = os.path.join(HERE, "node", "node_modules")
    everything = ["node", os.path.join(nm, "@modelcontextprotocol/server-everything/dist/index.js")]
    memory = ["node", os.path.join(nm, "@modelcontextprotocol/server-memory/dist/index.js")]
    filesystem = ["node", os.path.join(nm, "@modelcontextprotocol/server-filesystem/dist/index.js")]
    thinking = ["node", os.path.join(nm, "@modelcontextprotocol/server-sequential-thinking/dist/index.js")]
    py2 = [os.path.join(root, ".venv-mcp2/bin/python"), os.path.join(HERE, "py2_server.py")]
    py1 = [os.path.join(root, ".venv-mcp1/bin/python"), os.path.join(HERE, "py1_server.py")]
    paged = ["node", os.path.join(HERE, "ts_paged_server.mjs"), "2"]
    fx = os.path.join(HERE, "fixtures")
    os.makedirs(out, exist_ok=True)
    os.makedirs(fx, exist_ok=True)
    loop_env = dict(os.environ, NODE_OPTIONS=f"--require {os.path.join(HERE, 'loopback.cjs')}")
    tmp = tempfile.mkdtemp(prefix="contractpin-fs-")
    memfile = os.path.join(tmp, "memory.jsonl")
    all_contracts = {}

    def capture(name, fn, *a, **kw):
        path = os.path.join(out, name + ".txt")
        print(f"# {name} -> {path}", file=sys.__stdout__)
        with open(path, "w") as f:
            old = sys.stdout
            sys.stdout = f
            try:
                r = fn(*a, **kw)
            except Exception as e:  # noqa: BLE001
                print(f"!! battery failed: {e!r}")
                r = None
            finally:
                sys.stdout = old
        if r and r.get("pages"):
            pages = r["pages"]
            if isinstance(pages, dict):
                pages = pages["2025-11-25"]
            all_contracts[name] = contracts(pages)
        return r

    mem_env = dict(os.environ, MEMORY_FILE_PATH=memfile)
    capture("everything-stdio", battery_stdio, everything + ["stdio"],
            fixture=os.path.join(fx, "everything-tools-list.json"))
    capture("memory-stdio", battery_stdio, memory, env=mem_env,
            fixture=os.path.join(fx, "memory-tools-list.json"))
    capture("filesystem-stdio", battery_stdio, filesystem + [tmp],
            fixture=os.path.join(fx, "filesystem-tools-list.json"))
    capture("sequential-thinking-stdio", battery_stdio, thinking,
            fixture=os.path.join(fx, "sequential-thinking-tools-list.json"))
    capture("py2-stdio", battery_stdio, py2, fixture=os.path.join(fx, "py2-tools-list.json"))
    capture("py1-stdio", battery_stdio, py1, fixture=os.path.join(fx, "py1-tools-list.json"))
    capture("ts-paged-stdio", battery_stdio, paged, fixture=os.path.join(fx, "ts-paged-tools-list.json"))

    def http_server(name, argv, env, url_path, battery, port):
        srv = Launched(argv, env=env, port=port)
        try:
            capture(name, battery, f"http://127.0.0.1:{port}{url_path}")
        finally:
            so, se = srv.stop()
            with open(os.path.join(out, name + ".txt"), "a") as f:
                f.write(f"\n## server stdout:\n{so.decode(errors='replace')[:4000]}\n")
                f.write(f"## server stderr:\n{se.decode(errors='replace')[:4000]}\n")

    p = free_port()
    http_server("everything-streamableHttp", everything + ["streamableHttp"], dict(loop_env, PORT=str(p)),
                "/mcp", battery_http, p)
    p = free_port()
    http_server("everything-sse", everything + ["sse"], dict(loop_env, PORT=str(p)), "/sse", battery_sse, p)
    for name, argv in (("py2", py2), ("py1", py1)):
        p = free_port()
        http_server(f"{name}-http", argv + ["--transport", "http", "--port", str(p)], None, "/mcp",
                    battery_http, p)
        p = free_port()
        http_server(f"{name}-http-json", argv + ["--transport", "http", "--port", str(p), "--json-response"],
                    None, "/mcp", battery_http, p)
        p = free_port()
        http_server(f"{name}-sse", argv + ["--transport", "sse", "--port", str(p)], None, "/sse",
                    battery_sse, p)

    print("# cross-transport contract equality")
    groups = {}
    for name, c in all_contracts.items():
        groups.setdefault(name.split("-")[0], []).append((name, c))
    for g, items in groups.items():
        base_name, base = items[0]
        for name, c in items[1:]:
            print(f"  {name} == {base_name}: {c == base}")
    shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["stdio", "http", "sse", "battery"])
    ap.add_argument("url", nargs="?")
    ap.add_argument("--save-fixture")
    ap.add_argument("--out", default="/tmp/contractpin-probe")
    ap.add_argument("--full", action="store_true", help="print every line in full (no truncation)")
    argv = sys.argv[1:]
    cmd = []
    if "--" in argv:
        cmd = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    a = ap.parse_args(argv)
    a.cmd = cmd
    if a.full:
        SHOW_LIMIT[0] = 1 << 40
    if a.mode == "battery":
        run_battery(a.out)
    elif a.mode == "stdio":
        battery_stdio(([a.url] if a.url else []) + a.cmd, fixture=a.save_fixture)
    elif a.mode == "http":
        battery_http(a.url, fixture=a.save_fixture)
    else:
        battery_sse(a.url, fixture=a.save_fixture)


if __name__ == "__main__":
    main()
