#!/usr/bin/env python3
"""Hostile clients against squeeze serve's API (labels serve, hostile): a root daemon, the test
accounts, and sqz-bob attacking both entry points (the Unix socket and TCP) while sqz-alice's
`squeeze queue` must go on working over each. Needs root and the test accounts (the CTest
fixture test_accounts); skipped (77) without them.

    python3 tests/hostile_http_test.py CASE SQUEEZE SOURCE_DIR WORK_DIR

Cases:
  idle_flood       bob holds 200 idle connections on the socket and 200 on TCP (his cap
                   raised to allow them): alice is served, the daemon's memory stays bounded
  slowloris        bob sends request heads a byte a second: each is answered 408 and closed at
                   the head's deadline, long before it would end
  long_line        a request line with no newline (8 MB offered): 431 after the head limit, the
                   rest never read; memory bounded
  huge_header      one header without end (8 MB offered): 431, the rest never read
  get_body         a GET with a 100 MB body, or a chunked one without end: answered without
                   reading it, and closed
  chunked_body     a chunked POST body without end: 413 at the body limit; a slow one: 408 at
                   the body's deadline
  peer_cap         bob opens more connections than his cap, on the socket and on 127.0.0.1
                   (counted as his uid, by the kernel's word): the extra ones are answered 503
                   naming the cap, logged once; alice, on the same address, is served
  login_codes      `squeeze dashboard`'s codes: none over TCP (no token: 401; bob's token:
                   403); bob's own 8 codes and 300 guesses leave alice's working; a long body
                   413, one without its length 411; a code is good once and opens its
                   minter's session only
  body_before_token  bob, with no token and with a forged one, sends 300 POSTs of a 64 KiB
                   body each with its head in one write (a body all here with its head is
                   taken before the token is checked): each is answered 401, nothing stored,
                   memory bounded; a 200 KiB body without a token is not read (401, closed)

Bob's side runs as sqz-bob: this file (and serve_lib.py), copied where he can read them, run as
`python3 FILE --attack ACTION JSON` under setpriv; it prints one JSON line of what it saw.
"""

import json
import os
import pwd
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_lib  # noqa: E402
from serve_lib import ALICE, BOB, check, log, wait_until  # noqa: E402

MiB = 1 << 20


# ------------------------------------------------------------------------------------------
# bob's side (run as sqz-bob)
# ------------------------------------------------------------------------------------------

def connect(where, args):
    if where == "sock":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(args["sock"])
    else:
        s = socket.create_connection(("127.0.0.1", args["port"]))
    return s


def status_of(reply):
    """The status code of the reply's first line, or 0."""
    words = reply.split(b"\r\n", 1)[0].split()
    return int(words[1]) if len(words) > 1 and words[1].isdigit() else 0


def read_rest(s, seconds):
    """What the server sends until it closes (closed=True) or `seconds` pass."""
    s.settimeout(seconds)
    out = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return out, True
            out += chunk
    except (socket.timeout, TimeoutError):
        return out, False
    except OSError:
        return out, True


def stream(args):
    """Sends `head`, then `piece` every `interval` seconds (0: at once) up to `most` bytes,
    until the server answers or closes; then reads the rest. What happened, as a dict."""
    s = connect(args["where"], args)
    began = time.monotonic()
    sent, reply = 0, b""
    head = args["head"].encode()
    piece = args["piece"].encode() * args.get("repeat", 1)
    s.setblocking(False)
    buffered = head
    try:
        while sent < args["most"]:
            try:
                got = s.recv(65536)
                reply += got
                if not got or reply:
                    break
            except BlockingIOError:
                pass
            if not buffered:
                buffered = piece
                if args["interval"]:
                    time.sleep(args["interval"])
            try:
                n = s.send(buffered)
                sent += n
                buffered = buffered[n:]
            except BlockingIOError:
                time.sleep(0.01)  # the server reads no more: wait for its answer
    except OSError as e:  # reset, or broken pipe: the server closed
        reply += b"" if reply else f"(send: {e!r})".encode()
    s.setblocking(True)
    rest, closed = read_rest(s, 30)
    s.close()
    reply += rest
    return {"status": status_of(reply), "reply": reply[:400].decode("utf-8", "replace"),
            "sent": sent, "closed": closed, "seconds": round(time.monotonic() - began, 1)}


def posts(args):
    """Sends `count` POSTs, each head and body in one write, reading each answer before the
    next, on one connection while the server keeps it (a new one when it closes); their
    statuses, and how many connections it took."""
    body = b"{" + b" " * (args["body_bytes"] - 2) + b"}"
    auth = f"Authorization: Bearer {args['token']}\r\n" if args.get("token") else ""
    request = (f"POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{auth}"
               f"Content-Length: {len(body)}\r\n\r\n").encode() + body
    statuses, connections, s = [], 0, None
    for _ in range(args["count"]):
        if s is None:
            s = connect(args["where"], args)
            s.settimeout(30)
            connections += 1
        reply, closed = b"", False
        try:
            s.sendall(request)
            while b"\r\n\r\n" not in reply:
                chunk = s.recv(65536)
                if not chunk:
                    break
                reply += chunk
            head, _, rest = reply.partition(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
                closed |= line.lower() == b"connection: close"
            while len(rest) < length:
                chunk = s.recv(65536)
                if not chunk:
                    break
                rest += chunk
        except OSError:
            closed = True
        statuses.append(status_of(reply))
        if closed or not reply:
            s.close()
            s = None
    if s is not None:
        s.close()
    return {"statuses": statuses, "connections": connections}


def hold(args):
    """Opens n_sock + n_tcp connections and keeps them; says how many the server answered at
    once (503), then holds the rest until its stdin closes. With "slow": N, the first N of each
    kind send a byte of a request head every 2 s, and every connection the server closes is
    opened again (as a patient attacker would)."""
    conns = []
    for where, n in (("sock", args["n_sock"]), ("tcp", args["n_tcp"])):
        for i in range(n):
            conns.append([where, connect(where, args), i < args.get("slow", 0)])
    time.sleep(1.0)  # refusals are answered at once
    refused, closed, messages = 0, 0, set()
    for _, s, _ in conns:
        s.setblocking(False)
        try:
            got = s.recv(65536)
            if got:
                refused += 1
                messages.add(got.split(b"\r\n\r\n", 1)[-1].decode("utf-8", "replace"))
            else:
                closed += 1  # refused unanswered (beyond the refusals the server answers)
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
    print(json.dumps({"opened": len(conns), "refused": refused, "closed": closed,
                      "messages": sorted(messages)}), flush=True)
    done = threading.Event()
    if args.get("slow") or args.get("reopen"):
        threading.Thread(target=keep_up, args=(conns, args, done), daemon=True).start()
    sys.stdin.read()  # until the test is done with us
    done.set()
    for _, s, _ in conns:
        s.close()
    return None


def keep_up(conns, args, done):
    """Every 2 s: a head byte on the slow connections; those the server closed, opened again."""
    head = b"GET /v1/jobs HTTP/1.1\r\nHost: x\r\nX-Slow: "
    sent = [0] * len(conns)
    while not done.wait(2.0):
        for i, (where, s, slow) in enumerate(conns):
            try:
                if s.recv(65536) == b"":
                    raise ConnectionResetError("closed")
            except BlockingIOError:
                pass
            except OSError:
                s.close()
                try:
                    s = connect(where, args)
                    s.setblocking(False)
                except OSError:
                    continue
                conns[i][1], sent[i] = s, 0
            if slow:
                try:
                    s.send(head[sent[i]:sent[i] + 1] if sent[i] < len(head) else b"a")
                    sent[i] += 1
                except OSError:
                    pass


def attack_main(argv):
    action, args = argv[2], json.loads(argv[3])
    if action == "stream":
        print(json.dumps(stream(args)), flush=True)
    elif action == "streams":  # several at once (threads): [args...]
        results = [None] * len(args)

        def run(i):
            results[i] = stream(args[i])
        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(args))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(json.dumps(results), flush=True)
    elif action == "posts":
        print(json.dumps(posts(args)), flush=True)
    elif action == "hold":
        hold(args)
    return 0


# ------------------------------------------------------------------------------------------
# the test's side (root)
# ------------------------------------------------------------------------------------------

class Scene:
    """A root daemon, alice's token and job, and bob's attacker script where he can read it."""

    def __init__(self, squeeze, h, args=()):
        if not serve_lib.is_root():
            raise serve_lib.SkipTest("needs root (a root daemon; bob's side runs as sqz-bob)")
        serve_lib.need_test_accounts()
        self.squeeze, self.h = squeeze, h
        self.d = h.start_daemon(squeeze, "data", ["--virtual-gpus", "2"] + list(args),
                                allow_root_jobs=False)
        self.alice = h.add_token("data", ALICE, "ml")
        wait_until(lambda: self.d.call("GET", "/v1/jobs", token=self.alice)[0] == 200, 15,
                   "alice's token")
        self.job = self.d.submit({"name": "alices", "command": ["sleep", "600"], "gpus": 1},
                                 token=self.alice)
        self.sock = os.path.join(self.d.data_dir, "squeeze.sock")
        self.port = int(self.d.url.rsplit(":", 1)[1])
        self.dir = tempfile.mkdtemp(prefix="squeeze-hostile-")
        os.chmod(self.dir, 0o755)
        here = os.path.dirname(os.path.abspath(__file__))
        for name in (os.path.basename(__file__), "serve_lib.py"):
            shutil.copy(os.path.join(here, name), os.path.join(self.dir, name))
            os.chmod(os.path.join(self.dir, name), 0o644)
        self.script = os.path.join(self.dir, os.path.basename(__file__))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.dir, ignore_errors=True)
        self.d.call("POST", f"/v1/jobs/{self.job}/cancel")
        return False

    def as_bob(self, action, args):
        pw = pwd.getpwnam(BOB)
        argv = ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--init-groups",
                sys.executable, self.script, "--attack", action, json.dumps(args)]
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, cwd="/tmp",
                                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
        self.h.other_procs.append(proc)
        return proc

    def bob(self, action, args, timeout=90):
        """Runs bob's side to its end; its JSON line."""
        proc = self.as_bob(action, args)
        out, err = proc.communicate(timeout=timeout)
        check(proc.returncode == 0 and out.strip(), f"bob's {action}: {proc.returncode} {out} {err}")
        return json.loads(out.strip().splitlines()[-1])

    def target(self, where, **kw):
        return dict(where=where, sock=self.sock, port=self.port, **kw)

    def alice_command(self, how):
        """(argv, env) of alice's `squeeze queue` over "socket" or "HTTP" (her token)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("SQUEEZE_")}
        pw = pwd.getpwnam(ALICE)
        env["HOME"] = pw.pw_dir
        env.update({"SQUEEZE_SOCKET": self.sock} if how == "socket" else
                   {"SQUEEZE_URL": self.d.url, "SQUEEZE_TOKEN": self.alice})
        return (["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--init-groups",
                 self.squeeze, "queue"], env)

    def alice_queue(self, why):
        """alice's `squeeze queue`, over the socket and over HTTP with her token: both work."""
        for how in ("socket", "HTTP"):
            argv, env = self.alice_command(how)
            r = self.h.run(argv, env=env, cwd="/tmp", timeout=60)
            check(r.returncode == 0 and "alices" in r.stdout,
                  f"{why}: alice's `squeeze queue` over {how} failed: {r.returncode} "
                  f"{r.stdout} {r.stderr}")
        log(f"{why}: alice's queue answered over the socket and over HTTP")

    def rss_mib(self):
        with open(f"/proc/{self.d.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def check_rss(self, before, why, most=64):
        after = self.rss_mib()
        log(f"{why}: the daemon's RSS {before:.0f} MiB -> {after:.0f} MiB")
        check(after - before < most, f"{why}: the daemon grew by {after - before:.0f} MiB "
                                     f"(over {most}); {before:.0f} -> {after:.0f} MiB")


def case_idle_flood(squeeze, source, h):
    with Scene(squeeze, h, ["--max-connections-per-peer", "1000"]) as s:
        before = s.rss_mib()
        proc = s.as_bob("hold", s.target("both", n_sock=200, n_tcp=200))
        seen = json.loads(proc.stdout.readline())
        log(f"bob holds: {seen}")
        check(seen["opened"] == 400 and seen["refused"] == 0 and seen["closed"] == 0,
              f"bob's 400 connections: {seen}")
        s.alice_queue("with bob's 400 idle connections")
        check(serve_lib.http("GET", s.d.url + "/healthz", timeout=10)[0] == 200, "/healthz")
        s.check_rss(before, "400 idle connections")
        proc.stdin.close()
        proc.wait(timeout=30)


def case_slowloris(squeeze, source, h):
    with Scene(squeeze, h, ["--request-timeout", "3s"]) as s:
        # A header value that grows a byte a second: every read is quick, the head never ends.
        head = "GET /v1/jobs HTTP/1.1\r\nHost: localhost\r\nX-Slow: "
        most = len(head) + 100
        slow = [s.target(w, head=head, piece="a", interval=1.0, most=most)
                for w in ("sock", "tcp")]
        proc = s.as_bob("streams", slow)
        time.sleep(1.5)
        s.alice_queue("during bob's slowloris")
        out, err = proc.communicate(timeout=90)
        for where, r in zip(("socket", "TCP"), json.loads(out)):
            log(f"slowloris on the {where}: {r}")
            check(r["status"] == 408 and "--request-timeout" in r["reply"],
                  f"a slow head on the {where} should be answered 408: {r}")
            check(r["closed"] and r["sent"] < most,
                  f"the {where} connection should be closed before the head ended: {r}")


def head_over_limit(s, what, head, piece):
    """bob sends `head`, then `piece` without end (8 MB offered), on each entry point: 431 once
    the head passes its limit, the rest never read, the daemon's memory bounded."""
    before = s.rss_mib()
    for where in ("sock", "tcp"):
        r = s.bob("stream", s.target(where, head=head, piece=piece, repeat=65536, interval=0,
                                     most=8 * MiB))
        log(f"{what} on {where}: status {r['status']}, {r['sent']} bytes sent")
        check(r["status"] == 431 and "bytes" in r["reply"], f"{where}: expected 431: {r}")
        check(r["closed"] and r["sent"] < 8 * MiB, f"{where}: the rest should not be read: {r}")
    s.check_rss(before, what)
    s.alice_queue(f"after {what}")


def case_long_line(squeeze, source, h):
    with Scene(squeeze, h) as s:
        head_over_limit(s, "a request line without end", "GET /", "a")


def case_huge_header(squeeze, source, h):
    with Scene(squeeze, h) as s:
        head_over_limit(s, "a header without end", "GET /v1/jobs HTTP/1.1\r\nX-Big: ", "b")


def case_get_body(squeeze, source, h):
    with Scene(squeeze, h) as s:
        before = s.rss_mib()
        head = "GET /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n"
        for where, status in (("sock", 200), ("tcp", 401)):  # no token on TCP
            r = s.bob("stream", s.target(where, head=head, piece="c", repeat=65536, interval=0,
                                         most=100 * MiB))
            log(f"a GET with a 100 MB body on {where}: status {r['status']}, {r['sent']} sent")
            check(r["status"] == status, f"{where}: expected {status}: {r}")
            check(r["closed"] and r["sent"] < 100 * MiB,
                  f"{where}: the body should not be read, the connection closed: {r}")
        # The same body chunked, without end: never buffered either.
        chunked = "GET /v1/jobs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        r = s.bob("stream", s.target("sock", head=chunked, piece="10000\r\n" + "e" * 0x10000 +
                                     "\r\n", interval=0, most=200 * MiB))
        log(f"a GET with an endless chunked body: status {r['status']}, {r['sent']} sent")
        check(r["status"] == 200 and r["closed"] and r["sent"] < 200 * MiB,
              f"a chunked GET body should not be read, the connection closed: {r}")
        s.check_rss(before, "100 MB GET bodies")
        s.alice_queue("after the GET bodies")


def case_chunked_body(squeeze, source, h):
    with Scene(squeeze, h, ["--body-timeout", "3s"]) as s:
        before = s.rss_mib()
        head = ("POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                "Transfer-Encoding: chunked\r\n\r\n")
        chunk = "4000\r\n" + "d" * 0x4000 + "\r\n"
        endless = s.bob("stream", s.target("sock", head=head, piece=chunk, interval=0,
                                           most=200 * MiB))
        log(f"an endless chunked body: {endless['status']}, {endless['sent']} bytes sent")
        check(endless["status"] == 413 and "262144 bytes" in endless["reply"],
              f"an endless chunked body should be answered 413 at the limit: {endless}")
        check(endless["closed"] and endless["sent"] < 200 * MiB, f"and closed: {endless}")
        slow = s.bob("stream", s.target("sock", head=head, piece="1\r\nx\r\n", interval=1.0,
                                        most=1000))
        log(f"a slow chunked body: {slow}")
        check(slow["status"] == 408 and "--body-timeout" in slow["reply"] and slow["closed"],
              f"a slow body should be answered 408 at its deadline: {slow}")
        s.check_rss(before, "endless bodies")
        s.alice_queue("after the endless bodies")
        check(len(s.d.jobs()) == 1, "nothing of bob's was stored")


def case_peer_cap(squeeze, source, h):
    with Scene(squeeze, h, ["--max-connections-per-peer", "20"]) as s:
        check("API limits: 16 workers (8 at most for one peer), 20 connections per peer" in
              s.d.log_text(), f"the limits in force should be told:\n{s.d.log_text()}")
        proc = s.as_bob("hold", s.target("both", n_sock=15, n_tcp=15))
        seen = json.loads(proc.stdout.readline())
        log(f"bob's 30 connections: {seen}")
        check(seen["refused"] == 10, f"10 of bob's 30 should be refused (his cap is 20): {seen}")
        for text in seen["messages"]:
            error = json.loads(text)["error"]
            check("at most 20" in error and "--max-connections-per-peer" in error,
                  f"the 503 should name the cap: {error}")
        # alice shares 127.0.0.1 with bob, but the kernel says who each is: she is served.
        s.alice_queue("with bob at his cap")
        bob_uid = pwd.getpwnam(BOB).pw_uid
        lines = [ln for ln in s.d.log_text().splitlines() if "refused a connection" in ln]
        check(len(lines) == 1 and f"uid {bob_uid}" in lines[0],
              f"bob's refusals should be logged once: {lines}")
        proc.stdin.close()
        proc.wait(timeout=30)


def case_body_before_token(squeeze, source, h):
    with Scene(squeeze, h) as s:
        before = s.rss_mib()
        for token in (None, "sqz_forged_token_" + "f" * 40):
            r = s.bob("posts", s.target("tcp", count=300, body_bytes=64 * 1024, token=token))
            statuses = sorted(set(r["statuses"]))
            log(f"300 POSTs of 64 KiB, token {'forged' if token else 'none'}: statuses "
                f"{statuses} on {r['connections']} connections")
            check(len(r["statuses"]) == 300 and statuses == [401],
                  f"each should be answered 401: {r}")
        s.check_rss(before, "600 unauthenticated 64 KiB bodies")
        # Over what is taken with its head (64 KiB), under the body limit: the token first.
        big = s.bob("stream", s.target("tcp", head="POST /v1/jobs HTTP/1.1\r\nHost: x\r\n"
                                       "Content-Length: 200000\r\n\r\n", piece="b",
                                       repeat=200000, interval=0, most=200000))
        log(f"a 200 KB body without a token: {big['status']}, closed {big['closed']}")
        check(big["status"] == 401 and big["closed"],
              f"a 200 KB body without a token should be refused and the connection closed: {big}")
        check(len(s.d.jobs()) == 1, "nothing of bob's was stored")
        s.alice_queue("after bob's bodies")


def case_login_codes(squeeze, source, h):
    """`squeeze dashboard`'s login codes: minted only over the socket, for the caller; good
    once; a guess, a long body or bob's own codes never reach alice's."""
    with Scene(squeeze, h) as s:
        def dashboard(user):
            pw = pwd.getpwnam(user)
            r = h.run(["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--init-groups",
                       squeeze, "dashboard", "--socket", s.sock],
                      env={"PATH": "/usr/bin:/bin", "HOME": pw.pw_dir}, cwd="/tmp")
            m = re.search(r"#login=([0-9a-f]{64})", r.stdout)
            check(r.returncode == 0 and m and f"logged in as {user}" in r.stdout,
                  f"squeeze dashboard as {user}: {r.stdout}{r.stderr}")
            return m.group(1)

        redeem = s.d.url + "/v1/dashboard-login/redeem"
        alices = dashboard(ALICE)
        bob_token = h.add_token("data", BOB, "ml")
        wait_until(lambda: s.d.call("GET", "/v1/jobs", token=bob_token)[0] == 200, 15,
                   "bob's token")
        status, body = serve_lib.http("POST", s.d.url + "/v1/dashboard-login", raw="")
        check(status == 401, f"a code over TCP with no token: {status} {body}")
        status, body = serve_lib.http("POST", s.d.url + "/v1/dashboard-login", token=bob_token,
                                      raw="")
        check(status == 403 and "Unix socket" in body["error"], f"bob's token: {status} {body}")
        # bob makes many codes of his own (only his last few are kept, never alice's dropped)
        # and guesses 300: each guess is refused.
        bobs = [dashboard(BOB) for _ in range(8)]
        guesses = [serve_lib.http("POST", redeem, body={"code": os.urandom(32).hex()})[0]
                   for _ in range(300)]
        check(set(guesses) == {403}, f"bob's guesses: {sorted(set(guesses))}")
        status, body = serve_lib.http("POST", redeem, raw=json.dumps({"code": "a" * 4000}))
        check(status == 413, f"a long body without a token: {status} {body}")
        status, body = serve_lib.http_chunked(redeem, None, [b'{"code": "', b'x"}'])
        check(status == 411, f"a body without its length: {status} {body}")
        status, body = serve_lib.http("POST", redeem, raw="not json")
        check(status == 400 and "code" in body["error"], f"a broken body: {status} {body}")
        # Her code opens her session, once; his last opens his.
        status, session = serve_lib.http("POST", redeem, body={"code": alices})
        check(status == 200 and session["user"] == ALICE, f"alice's code: {status} {session}")
        status, again = serve_lib.http("POST", redeem, body={"code": alices})
        check(status == 403 and "used or expired" in again["error"], f"used twice: {status}")
        status, who = serve_lib.http("GET", s.d.url + "/v1/whoami", token=session["token"])
        check(status == 200 and who["user"] == ALICE, f"her session: {status} {who}")
        status, theirs = serve_lib.http("POST", redeem, body={"code": bobs[-1]})
        check(status == 200 and theirs["user"] == BOB, f"bob's code: {status} {theirs}")
        status, _ = serve_lib.http("GET", f"{s.d.url}/v1/jobs/{s.job}/log", token=theirs["token"])
        check(status == 403, f"bob's session reads alice's log: {status}")
        # A session mints no code over TCP either.
        status, _ = serve_lib.http("POST", s.d.url + "/v1/dashboard-login",
                                   token=session["token"], raw="")
        check(status == 403, f"a session minting a code over TCP: {status}")
        s.alice_queue("after bob's codes")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--attack":
        sys.exit(attack_main(sys.argv))
    sys.exit(serve_lib.main({"idle_flood": case_idle_flood, "slowloris": case_slowloris,
                             "long_line": case_long_line, "huge_header": case_huge_header,
                             "get_body": case_get_body, "chunked_body": case_chunked_body,
                             "peer_cap": case_peer_cap,
                             "body_before_token": case_body_before_token,
                             "login_codes": case_login_codes}, sys.argv))
