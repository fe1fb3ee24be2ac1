#!/usr/bin/env python3
"""Replays issue 17's findings against the packaged launcher (bin/postern under ROOT; build it first).
Usage: python3 docs/reliability/replay.py ROOT [CASE...]  (no CASE: all). Prints what each input got.
Needs python3 and prlimit (util-linux) for the disk case. A replay aid, not part of the build."""
import json, os, queue, socket, subprocess, sys, threading, time, signal, shutil, tempfile

ROOT = os.path.abspath(sys.argv[1])
POSTERN = os.path.join(ROOT, "bin", "postern")
HS = "2025-06-18"

def log(*a):
    print(*a, flush=True)

class GW:
    def __init__(self, cfg, env=None, cwd=None):
        e = dict(os.environ)
        e.update(env or {})
        self.errf = open(cfg + ".stderr", "ab")
        self.p = subprocess.Popen([POSTERN, "mcp-stdio", "--config", cfg], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.errf, env=e, cwd=cwd or os.path.dirname(cfg))
        self.q = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
    def _read(self):
        for line in self.p.stdout:
            self.q.put(line.decode("utf-8", "replace").rstrip("\n"))
        self.q.put(None)
    def send(self, s):
        if not isinstance(s, (str, bytes)):
            s = json.dumps(s)
        if isinstance(s, str):
            s = s.encode()
        self.p.stdin.write(s + b"\n"); self.p.stdin.flush()
    def read(self, t=30):
        try:
            return self.q.get(timeout=t)
        except queue.Empty:
            return "<no answer in %ss>" % t
    def handshake(self):
        self.send({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":HS,"capabilities":{},"clientInfo":{"name":"r","version":"1"}}})
        self.read()
        self.send({"jsonrpc":"2.0","method":"notifications/initialized"})
    def close(self, t=60):
        try: self.p.stdin.close()
        except Exception: pass
        rest = []
        while True:
            l = self.read(t)
            if l is None or l.startswith("<no answer"): break
            rest.append(l)
        rc = self.p.wait(t)
        return rc, rest

def call(i, name, args, meta=None):
    params = {"name": name, "arguments": args}
    if meta: params["_meta"] = meta
    return {"jsonrpc":"2.0","id":i,"method":"tools/call","params":params}

STATELESS_META = {"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}

def cfg(dirpath, body):
    os.makedirs(dirpath, exist_ok=True)
    p = os.path.join(dirpath, "postern.json")
    with open(p, "w") as f: f.write(json.dumps(body))
    return p

def short(s, n=260):
    return s if s is None or len(s) <= n else s[:n] + "...(%d chars)" % len(s)

def audit(d):
    r = subprocess.run([POSTERN, "audit", "verify", d], capture_output=True, text=True)
    return r.returncode, r.stdout.strip(), r.stderr.strip()

# ---------- hostile/simple HTTP servers ----------
def raw_server(handler):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0)); s.listen(64)
    def loop():
        while True:
            c, _ = s.accept()
            threading.Thread(target=handler, args=(c,), daemon=True).start()
    threading.Thread(target=loop, daemon=True).start()
    return s.getsockname()[1]

def read_request(c, buf=b""):
    while b"\r\n\r\n" not in buf:
        d = c.recv(65536)
        if not d: return None, b""
        buf += d
    head, rest = buf.split(b"\r\n\r\n", 1)
    return head.decode("latin-1"), rest

def ssh_less_http(port, name="t", prefixes=("/v1/",), extra=None):
    t = {"name": name, "baseUrl": "http://127.0.0.1:%d" % port, "methods": ["GET"], "pathPrefixes": list(prefixes),
         "allowPrivateAddresses": True, "timeoutMs": 5000}
    t.update(extra or {})
    return t

# ---------- cases ----------
def case_nonfinite(base):
    """Item 2: 1e309 after the handshake, both eras, and postern explain."""
    d = os.path.join(base, "nonfinite")
    c = cfg(d, {"journal":{"directory":"journal"},"ssh":{"hosts":[{"name":"web","address":"127.0.0.1","user":"u","password":"pw","hostKeyFingerprint":"SHA256:" + "A"*43,"commands":[{"name":"uptime","argv":["uptime"]}]}]},"credentials":{"pw":{"env":"PW"}}})
    for era in ("handshake", "stateless"):
        g = GW(c, {"PW": "x"})
        if era == "handshake":
            g.handshake(); meta = None
        else:
            meta = STATELESS_META
        for i, (field, num) in enumerate([("host","1e309"),("host","-1e309"),("host","1e999"),("command","1e309"),("command","-1e309"),("command","1e999")]):
            args = {"host": "web", "command": "uptime"}
            line = json.dumps(call(100+i, "ssh_exec", args, meta)).replace('"%s": "%s"' % (field, args[field]), '"%s": %s' % (field, num))
            g.send(line)
            log("  %s %s=%s -> %s" % (era, field, num, short(g.read(), 230)))
        g.send({"jsonrpc":"2.0","id":200,"method":"ping"} if era=="handshake" else {"jsonrpc":"2.0","id":200,"method":"server/discover","params":{}})
        log("  %s then ping/discover -> %s" % (era, short(g.read(), 120)))
        rc, rest = g.close()
        log("  %s exit %s, trailing lines %d" % (era, rc, len(rest)))
    for num in ("1e309", "-1e309", "1e999"):
        r = subprocess.run([POSTERN, "explain", "--config", c, "--tool", "ssh_exec", "--arguments", '{"host":%s,"command":"uptime"}' % num], capture_output=True, text=True, env=dict(os.environ, PW="x"))
        log("  explain host=%s -> exit %d, stdout %r, stderr %r" % (num, r.returncode, short(r.stdout.strip(), 200), short(r.stderr.strip(), 200)))
    log("  audit verify:", audit(os.path.join(d, "journal"))[:2])

def case_port(base):
    """Item 8: port 0 and 99999."""
    d = os.path.join(base, "port")
    c = cfg(d, {"journal":{"directory":"journal"},"http":{"targets":[ssh_less_http(8080)]}})
    g = GW(c); g.handshake()
    for i, url in enumerate(["http://127.0.0.1:0/v1/x", "http://127.0.0.1:99999/v1/x", "http://127.0.0.1:65536/v1/x"]):
        g.send(call(10+i, "http_request", {"method":"GET","url":url}))
        log("  %s -> %s" % (url, short(g.read(), 300)))
    rc, _ = g.close()
    log("  exit", rc)
    with open(os.path.join(d, "journal", "decisions.jsonl")) as f:
        for l in f: log("  decisions row:", short(l.strip(), 200))

def case_paths(base):
    """Item 12: %252e%252e, %c0%ae, %00 in paths; header values above U+00FF."""
    hits = []
    def h(c):
        head, _ = read_request(c)
        if head: hits.append(head.split("\r\n")[0]); c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        c.close()
    port = raw_server(h)
    d = os.path.join(base, "paths")
    c = cfg(d, {"journal":{"directory":"journal"},"http":{"targets":[ssh_less_http(port, extra={"headers":["X-Note"]})]}})
    g = GW(c); g.handshake()
    urls = ["/v1/%252e%252e/admin", "/v1/%c0%ae%c0%ae/admin", "/v1/a%00b", "/v1/%2e%2e/admin", "/v1/../admin", "/v1/%2fadmin"]
    for i, u in enumerate(urls):
        g.send(call(10+i, "http_request", {"method":"GET","url":"http://127.0.0.1:%d%s" % (port, u)}))
        log("  %s -> %s" % (u, short(g.read(), 300)))
    for i, v in enumerate(["caf\u00e9", "\u0100", "snow \u2603", "\U0001F600"]):
        g.send(call(30+i, "http_request", {"method":"GET","url":"http://127.0.0.1:%d/v1/h" % port, "headers": {"X-Note": v}}))
        log("  header X-Note=%r -> %s" % (v, short(g.read(), 300)))
    g.close()
    log("  requests the server saw:", hits)

def case_checkconfig(base):
    """Item 12: Authorization/Host/Transfer-Encoding listed as agent headers; item 7: secret in a credential-name field."""
    d = os.path.join(base, "checkcfg")
    for hdr in ("Authorization", "Host", "Transfer-Encoding"):
        c = cfg(d, {"journal":{"directory":"journal"},"http":{"targets":[ssh_less_http(8080, extra={"headers":["X-Ok", hdr]})]}})
        r = subprocess.run([POSTERN, "check-config", "--config", c], capture_output=True, text=True)
        log("  headers [X-Ok, %s] -> exit %d: %s" % (hdr, r.returncode, short((r.stdout + r.stderr).strip().replace("\n", " | "), 300)))
    secret = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    bodies = {
        "auth.credential": {"journal":{"directory":"journal"},"http":{"targets":[ssh_less_http(8080, extra={"auth":{"credential":secret,"scheme":"bearer"}})]}},
        "identity": {"journal":{"directory":"journal"},"ssh":{"hosts":[{"name":"w","address":"127.0.0.1","user":"u","identity":secret,"hostKeyFingerprint":"SHA256:"+"A"*43,"commands":[{"name":"u","argv":["uptime"]}]}]}},
        "passphrase": {"journal":{"directory":"journal"},"credentials":{"k":{"file":"/nonexistent"}},"ssh":{"hosts":[{"name":"w","address":"127.0.0.1","user":"u","identity":"k","passphrase":secret,"hostKeyFingerprint":"SHA256:"+"A"*43,"commands":[{"name":"u","argv":["uptime"]}]}]}},
        "password": {"journal":{"directory":"journal"},"ssh":{"hosts":[{"name":"w","address":"127.0.0.1","user":"u","password":secret,"hostKeyFingerprint":"SHA256:"+"A"*43,"commands":[{"name":"u","argv":["uptime"]}]}]}},
    }
    for field, body in bodies.items():
        c = cfg(d, body)
        for cmd in (["check-config"], ["mcp-stdio"]):
            r = subprocess.run([POSTERN] + cmd + ["--config", c], capture_output=True, text=True, stdin=subprocess.DEVNULL)
            out = r.stdout + r.stderr
            log("  secret in %s, %s -> exit %d, secret echoed: %s; %s" % (field, cmd[0], r.returncode, secret[:12] in out, short(out.strip().replace("\n", " | "), 220)))
    # unquoted secret (JSON syntax error)
    p = os.path.join(d, "postern.json")
    with open(p, "w") as f: f.write('{"journal":{"directory":"journal"},"credentials":{"t":{"env":%s}}}' % secret)
    r = subprocess.run([POSTERN, "check-config", "--config", p], capture_output=True, text=True)
    log("  unquoted secret -> exit %d, echoed: %s; %s" % (r.returncode, secret[:12] in r.stdout + r.stderr, short(r.stderr.strip(), 200)))

def case_basic(base):
    """Item 6: a Basic password echoed alone (and user:password, its Base64, the Bearer token)."""
    import base64
    pw = "s3cr3t-Passw0rd-xyz"
    def h(c):
        head, _ = read_request(c)
        if not head: c.close(); return
        auth = [l for l in head.split("\r\n") if l.lower().startswith("authorization:")]
        b64 = auth[0].split()[-1] if auth else ""
        body = json.dumps({"alone": pw, "pair": "alice:" + pw, "b64": b64, "upper": pw.upper(), "pct": pw.replace("-", "%2D")}).encode()
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\nX-Echo: %s\r\n\r\n" % (len(body), pw.encode()) + body)
        c.close()
    port = raw_server(h)
    d = os.path.join(base, "basic")
    c = cfg(d, {"journal":{"directory":"journal"},"credentials":{"b":{"env":"BASIC"}},"http":{"targets":[ssh_less_http(port, extra={"auth":{"credential":"b","scheme":"basic"}})]}})
    g = GW(c, {"BASIC": "alice:" + pw}); g.handshake()
    g.send(call(5, "http_request", {"method":"GET","url":"http://127.0.0.1:%d/v1/echo" % port}))
    ans = g.read()
    g.close()
    log("  answer:", short(ans, 700))
    log("  password alone present in answer:", pw in ans, "; base64 of pair present:", base64.b64encode(("alice:" + pw).encode()).decode() in ans)

def case_smuggle(base):
    """Item 5: Content-Length: 5 plus extra bytes on a kept-alive connection; next call to another target on the same origin."""
    seen = []
    def h(c):
        buf = b""
        while True:
            head, buf = read_request(c, buf)
            if head is None: break
            line = head.split("\r\n")[0]; seen.append(line)
            if " /a/" in line:
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1 201 Created\r\nContent-Length: 8\r\n\r\nSMUGGLED")
            else:
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nB-real")
        c.close()
    port = raw_server(h)
    d = os.path.join(base, "smuggle")
    c = cfg(d, {"journal":{"directory":"journal"},"http":{"targets":[ssh_less_http(port, "ta", ["/a/"]), ssh_less_http(port, "tb", ["/b/"])]}})
    g = GW(c); g.handshake()
    for i, u in enumerate(["/a/1", "/b/1", "/a/2", "/b/2", "/b/3"]):
        g.send(call(10+i, "http_request", {"method":"GET","url":"http://127.0.0.1:%d%s" % (port, u)}))
        log("  %s -> %s" % (u, short(g.read(), 330)))
    g.close()
    log("  server saw:", seen)
    with open(os.path.join(d, "journal", "actions.jsonl")) as f:
        for l in f:
            r = json.loads(l)
            if r["kind"] == "outcome": log("  outcome row:", {k: r.get(k) for k in ("intent","result","status","bytes")})

def case_oom(base):
    """Item 4: 8 concurrent calls to a target answering 1 MiB of NUL bytes on a 128 MiB heap."""
    body = b"\x00" * (1 << 20)
    def h(c):
        buf = b""
        while True:
            head, buf = read_request(c, buf)
            if head is None: break
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        c.close()
    port = raw_server(h)
    d = os.path.join(base, "oom")
    c = cfg(d, {"session":{"maxInFlight":8},"journal":{"directory":"journal"},"http":{"targets":[ssh_less_http(port, extra={"maxResponseBytes":1048576})]}})
    g = GW(c, {"JAVA_TOOL_OPTIONS": "-Xmx128m"}); g.handshake()
    for i in range(8):
        g.send(call(10+i, "http_request", {"method":"GET","url":"http://127.0.0.1:%d/v1/nul/%d" % (port, i)}))
    ans = [g.read(120) for _ in range(8)]
    g.send({"jsonrpc":"2.0","id":99,"method":"ping"})
    ping = g.read(30)
    for a in ans: log("  answer:", short(a, 250))
    log("  ping after:", short(ping, 100))
    rc, rest = g.close(120)
    log("  exit", rc, "trailing", len(rest))
    with open(os.path.join(d, "journal", "actions.jsonl")) as f:
        res = [json.loads(l).get("result") for l in f if '"outcome"' in l]
    log("  outcome rows:", res)
    log("  audit:", audit(os.path.join(d, "journal"))[:2])
    with open(c + ".stderr") as f: log("  stderr:", short(f.read().strip().replace("\n", " | "), 600))

def case_cancel_busy(base):
    """Item 9: cancel and ping while every slot is busy."""
    def h(c):
        head, _ = read_request(c)
        time.sleep(20)
        try: c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        except Exception: pass
        c.close()
    port = raw_server(h)
    d = os.path.join(base, "cancel")
    c = cfg(d, {"session":{"maxInFlight":2},"journal":{"directory":"journal"},"http":{"targets":[ssh_less_http(port, extra={"timeoutMs":30000})]}})
    g = GW(c); g.handshake()
    for i in range(4):
        g.send(call(10+i, "http_request", {"method":"GET","url":"http://127.0.0.1:%d/v1/slow/%d" % (port, i)}))
    time.sleep(1.5)
    t0 = time.time()
    g.send({"jsonrpc":"2.0","id":50,"method":"ping"})
    log("  ping with 2/2 slots busy and 2 waiting -> %s after %.2f s" % (g.read(25), time.time() - t0))
    t0 = time.time()
    g.send({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10}})
    g.send({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12}})
    g.send({"jsonrpc":"2.0","id":51,"method":"ping"})
    log("  cancel 10 (running) and 12 (waiting), then ping -> %s after %.2f s" % (g.read(25), time.time() - t0))
    rc, rest = g.close(60)
    log("  exit %s after %.1f s; answers at close: %s" % (rc, time.time() - t0, [short(r, 160) for r in rest]))
    with open(os.path.join(d, "journal", "actions.jsonl")) as f:
        log("  outcome rows:", [json.loads(l).get("result") for l in f if '"outcome"' in l])

def case_two_gateways(base):
    """Item 1: two gateways on one journal directory under load, then audit verify."""
    hits = [0]
    def h(c):
        buf = b""
        while True:
            head, buf = read_request(c, buf)
            if head is None: break
            hits[0] += 1
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        c.close()
    port = raw_server(h)
    d = os.path.join(base, "two")
    c = cfg(d, {"journal":{"directory":"journal","rotateBytes":65536},"http":{"targets":[ssh_less_http(port)]}})
    gs = [GW(c), GW(c), GW(c)]
    N = 1500
    def drive(g, k):
        g.handshake()
        for i in range(N):
            if i % 3 == 0: g.send(call(i+1, "http_request", {"method":"GET","url":"http://127.0.0.1:%d/v1/%d/%d" % (port, k, i)}))
            elif i % 3 == 1: g.send(call(i+1, "http_request", {"method":"GET","url":"http://127.0.0.1:%d/v2/%d/%d" % (port, k, i)}))
            else: g.send(call(i+1, "http_request", {"method":"GET"}))
        return g.close(120)
    res = [None]*3
    ts = [threading.Thread(target=lambda k=k: res.__setitem__(k, drive(gs[k], k))) for k in range(3)]
    [t.start() for t in ts]; [t.join() for t in ts]
    for k in range(3): log("  gateway %d exit %s, answers %d" % (k, res[k][0], len(res[k][1])))
    rc, out, err = audit(os.path.join(d, "journal"))
    log("  target hits %d (expected %d); audit verify exit %d: %s" % (hits[0], 3*N//3, rc, out.replace("\n", " | ")[:700]))
    seqs = []
    with open(os.path.join(d, "journal", "actions.jsonl")) as f:
        seqs = [json.loads(l)["seq"] for l in f][:12]
    log("  first seqs of current actions.jsonl:", seqs)

def case_disk(base):
    """Item 3: the journal file size limited mid-session (a filling disk)."""
    def h(c):
        buf = b""
        while True:
            head, buf = read_request(c, buf)
            if head is None: break
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        c.close()
    port = raw_server(h)
    d = os.path.join(base, "disk")
    c = cfg(d, {"journal":{"directory":"journal"},"http":{"targets":[ssh_less_http(port)]}})
    g = GW(c); g.handshake()
    url = "http://127.0.0.1:%d/v1/x" % port
    g.send(call(1, "http_request", {"method":"GET","url":url})); log("  before:", short(g.read(), 120))
    j = os.path.join(d, "journal", "actions.jsonl")
    size = os.path.getsize(j)
    javapid = g.p.pid  # the launcher execs java
    limit = size + 40
    subprocess.run(["prlimit", "--pid", str(javapid), "--fsize=%d:%d" % (limit, limit)], check=True)
    log("  file size limit set to %d (actions.jsonl is %d bytes)" % (limit, size))
    for i in range(2, 5):
        g.send(call(i, "http_request", {"method":"GET","url":url})); log("  limited call %d: %s" % (i, short(g.read(), 230)))
    g.send(call(5, "http_request", {"method":"GET","url":"http://127.0.0.1:%d/v2/x" % port})); log("  denial while limited:", short(g.read(), 200))
    rc, _ = g.close()
    log("  exit", rc, "; actions.jsonl bytes", os.path.getsize(j), "(was %d)" % size)
    with open(j, "rb") as f: data = f.read()
    log("  ends with newline:", data.endswith(b"\n"), "; rows:", data.count(b"\n"))
    log("  audit:", audit(os.path.join(d, "journal"))[:2])
    g = GW(c); g.handshake()
    g.send(call(6, "http_request", {"method":"GET","url":url})); log("  after restart:", short(g.read(), 120))
    log("  restart exit", g.close()[0], "; audit:", audit(os.path.join(d, "journal"))[:2])

def case_kill9(base):
    """Item 12: audit verify lists interrupted actions after kill -9; SIGTERM."""
    def h(c):
        head, _ = read_request(c)
        time.sleep(30); c.close()
    port = raw_server(h)
    d = os.path.join(base, "kill9")
    c = cfg(d, {"journal":{"directory":"journal"},"http":{"targets":[ssh_less_http(port, extra={"timeoutMs":60000})]}})
    g = GW(c); g.handshake()
    for i in range(3): g.send(call(i+1, "http_request", {"method":"GET","url":"http://127.0.0.1:%d/v1/slow/%d" % (port, i)}))
    time.sleep(2)
    os.kill(g.p.pid, signal.SIGKILL); g.p.wait()
    rc, out, _ = audit(os.path.join(d, "journal"))
    log("  after kill -9: audit exit %d: %s" % (rc, out.replace("\n", " | ")))
    g = GW(c); g.handshake()
    g.send({"jsonrpc":"2.0","id":9,"method":"ping"}); log("  restart ping:", g.read())
    g.send(call(10, "http_request", {"method":"GET","url":"http://127.0.0.1:%d/v1/slow/x" % port}))
    time.sleep(2)
    g.p.send_signal(signal.SIGTERM); rc = g.p.wait(30)
    log("  SIGTERM mid-call: exit %d" % rc)
    rc, out, _ = audit(os.path.join(d, "journal"))
    log("  audit exit %d: %s" % (rc, out.replace("\n", " | ")))
    # a tampered middle row, then start
    j = os.path.join(d, "journal", "actions.jsonl")
    rows = open(j).read().splitlines()
    rows[1] = rows[1].replace('"seq":2', '"seq":2 ').replace("slow/1", "slow/9")
    open(j, "w").write("\n".join(rows) + "\n")
    g = GW(c); g.handshake(); g.send({"jsonrpc":"2.0","id":9,"method":"ping"}); log("  start on tampered middle row: ping ->", g.read(10)); log("  exit", g.close()[0])
    rc, out, _ = audit(os.path.join(d, "journal"))
    log("  audit exit %d: %s" % (rc, out.replace("\n", " | ")[:400]))
    # a truncated last row
    data = open(j, "rb").read()
    open(j, "wb").write(data[:-30])
    g = GW(c); g.send({"jsonrpc":"2.0","id":9,"method":"ping"}); log("  start on truncated last row: ping ->", g.read(10)); log("  exit", g.close()[0])
    with open(c + ".stderr") as f: log("  stderr tail:", f.read().strip().splitlines()[-2:])

def case_torn(base):
    """Item 3/12: a last row cut off mid-write (a crash) on an intact journal, then start."""
    d = os.path.join(base, "torn")
    c = cfg(d, {"journal":{"directory":"journal"},"http":{"targets":[ssh_less_http(9)]}})
    g = GW(c); g.handshake()
    g.send(call(1, "http_request", {"method":"GET","url":"http://127.0.0.1:9/v2/x"})); g.read()
    g.send(call(2, "http_request", {"method":"GET","url":"http://127.0.0.1:9/v2/y"})); g.read()
    g.close()
    j = os.path.join(d, "journal", "decisions.jsonl")
    data = open(j, "rb").read(); open(j, "wb").write(data[:-40])
    g = GW(c); g.handshake(); g.send({"jsonrpc":"2.0","id":9,"method":"ping"}); log("  start on a torn last row: ping ->", g.read(10)); log("  exit", g.close()[0])
    for l in open(j): log("  row:", short(l.strip(), 200))
    log("  audit:", audit(os.path.join(d, "journal"))[:2])

CASES = {k[5:]: v for k, v in globals().items() if k.startswith("case_")}
if __name__ == "__main__":
    base = tempfile.mkdtemp(prefix="replay-")
    for name in sys.argv[2:] or CASES:
        log("== %s: %s" % (name, CASES[name].__doc__))
        try:
            CASES[name](base)
        except Exception as e:
            log("  replay error:", repr(e))
