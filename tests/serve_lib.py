"""Helpers for end-to-end tests of `squeeze serve` (Python 3, standard library only).

A test makes one Harness (a context manager) over its WORK_DIR; through it it starts daemons
(Harness.start_daemon), calls the API (Daemon.call / serve_lib.http) and waits (wait_until).
Leaving the `with` block, even on an exception, SIGTERMs every daemon it started (SIGKILL after
a grace), then kills every job process the daemons' data directories left behind: the
supervisors named in DIR/runs/*.run (recognised by pid and start time, so a reused pid is never
hit) and every process whose environment says it belongs to a job of that DIR
(SQUEEZE_CHECKPOINT_DIR under DIR/checkpoints), with its process group.

    with serve_lib.Harness(work_dir) as h:
        d = h.start_daemon(squeeze, "data", ["--virtual-gpus", "2"])
        status, body = d.call("POST", "/v1/jobs", {"command": ["true"]})
"""

import glob
import http.client as http_client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

SKIP = 77  # CTest's SKIP_RETURN_CODE

# The Unix accounts tests/test_accounts.sh makes (as root; the CTest fixture test_accounts): a
# daemon run as root runs each job as its owner's account, so the users tests act as must be
# real. A daemon run as anyone else runs every job as itself, and any token's user will do.
ALICE, BOB, CAROL, DOCS = "sqz-alice", "sqz-bob", "sqz-carol", "sqz-docs"
ADMIN_GROUP = "sqz-admins"  # CAROL is in it


def is_root():
    return os.geteuid() == 0


def need_test_accounts():
    """Skips (77) unless the test accounts exist (made by tests/test_accounts.sh as root)."""
    import pwd
    for user in (ALICE, BOB, CAROL):
        try:
            pwd.getpwnam(user)
        except KeyError:
            raise SkipTest(f"no account {user}: run as root with the test_accounts fixture "
                           f"(tests/test_accounts.sh create)")


class TestFailure(AssertionError):
    pass


def check(condition, message):
    """Fails the test with `message` unless `condition`."""
    if not condition:
        raise TestFailure(message)


def expect_error(d, method, path, status, words, body=None, raw=None, token="admin"):
    """Calls the API, expects `status` and a JSON {"error": ...} holding every one of `words`."""
    got, reply = d.call(method, path, body=body, raw=raw, token=token)
    what = f"{method} {path} {body if raw is None else raw[:120]!r}"
    check(got == status, f"{what}: expected {status}, got {got} {reply}")
    check(isinstance(reply, dict) and isinstance(reply.get("error"), str),
          f"{what}: expected a JSON {{\"error\": ...}}, got {reply!r}")
    for w in words:
        check(w.lower() in reply["error"].lower(),
              f"{what}: the message {reply['error']!r} should mention {w!r}")
    return reply["error"]


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def wait_until(predicate, timeout, what, interval=0.1):
    """Polls predicate() until it returns a truthy value (returned) or `timeout` seconds pass
    (a TestFailure naming `what` and the last value seen). Exceptions of the predicate count as
    'not yet' until the end, where the last one is reported."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            last = predicate()
            if last:
                return last
        except TestFailure:
            raise
        except Exception as e:  # noqa: BLE001 - report the last one if time runs out
            last = e
        if time.monotonic() >= deadline:
            raise TestFailure(f"timed out after {timeout}s waiting for {what}; last: {last!r}")
        time.sleep(interval)


def http(method, url, token=None, body=None, raw=None, timeout=30):
    """One HTTP request. body: a JSON value to send; raw: bytes or str to send as is.
    Returns (status, parsed JSON or text). Never raises for HTTP error statuses."""
    data = None
    headers = {}
    if raw is not None:
        data = raw.encode() if isinstance(raw, str) else raw
        headers["Content-Type"] = "application/json"
    elif body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            status, payload, ctype = resp.status, resp.read(), resp.headers.get("Content-Type", "")
    except urllib.error.HTTPError as e:
        status, payload, ctype = e.code, e.read(), e.headers.get("Content-Type", "")
    text = payload.decode("utf-8", "replace")
    if "json" in ctype:
        try:
            return status, json.loads(text)
        except ValueError:
            pass
    return status, text


def _raw_request(url, send, timeout):
    """Opens a connection to `url`'s host, lets send(conn, path) write the request, and returns
    (status, parsed JSON or text)."""
    parts = urllib.parse.urlsplit(url)
    conn = http_client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        send(conn, parts.path)
        resp = conn.getresponse()
        text = resp.read().decode("utf-8", "replace")
        try:
            return resp.status, json.loads(text)
        except ValueError:
            return resp.status, text
    finally:
        conn.close()


def http_chunked(url, token, chunks, timeout=30):
    """POSTs `chunks` (bytes) with Transfer-Encoding: chunked (no Content-Length).
    Returns (status, parsed JSON or text)."""
    headers = {"Content-Type": "application/json", "Transfer-Encoding": "chunked"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return _raw_request(url, lambda conn, path: conn.request(
        "POST", path, body=iter(chunks), headers=headers, encode_chunked=True), timeout)


def http_no_length(method, url, token, timeout=30):
    """A request with no body and no Content-Length header at all (as `curl -X POST URL`
    sends). Returns (status, parsed JSON or text)."""
    def send(conn, path):
        conn.putrequest(method, path)
        conn.putheader("Authorization", f"Bearer {token}")
        conn.endheaders()
    return _raw_request(url, send, timeout)


def random_token():
    return os.urandom(32).hex()


def process_start_time(pid):
    """Field 22 of /proc/PID/stat (clock ticks since boot), or None when gone or a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()
    if fields[0] in ("Z", "X"):
        return None
    return int(fields[19])


def read_run_files(data_dir):
    """DIR/runs/*.run: [(name, supervisor_pid, supervisor_start, job_pid)] (see
    src/exec/run_files.cc: "supervisor PID START\\njob PID\\n")."""
    runs = []
    runs_dir = os.path.join(data_dir, "runs")
    if not os.path.isdir(runs_dir):
        return runs
    for name in sorted(os.listdir(runs_dir)):
        if not name.endswith(".run"):
            continue
        try:
            with open(os.path.join(runs_dir, name)) as f:
                words = f.read().split()
            if len(words) >= 5 and words[0] == "supervisor" and words[3] == "job":
                runs.append((name, int(words[1]), int(words[2]), int(words[4])))
        except (OSError, ValueError):
            pass
    return runs


def job_processes(data_dir):
    """Pids of live processes that run a job of `data_dir` (their environment holds
    SQUEEZE_CHECKPOINT_DIR=DIR/checkpoints/...), with their process groups."""
    needles = {os.path.abspath(data_dir), os.path.realpath(data_dir)}
    needles = [f"SQUEEZE_CHECKPOINT_DIR={d}/checkpoints/".encode() for d in needles]
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                env = f.read()
            if any(n in env for n in needles):
                found.append((int(entry), os.getpgid(int(entry))))
        except OSError:
            pass
    return found


def kill_daemon_of(data_dir):
    """Kills a daemon left on `data_dir` (by a run of the test killed hard): the pid in
    DIR/serve.lock, if that process is `squeeze serve --data DIR`."""
    try:
        with open(os.path.join(data_dir, "serve.lock")) as f:
            pid = int(f.read().split()[0])
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
    except (OSError, ValueError, IndexError):
        return
    if b"serve" in argv and os.path.abspath(data_dir).encode() in argv:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def kill_leftovers(data_dir):
    """Kills what the daemons of `data_dir` started: supervisors and job process groups."""
    for _ in range(3):
        for name, sup_pid, sup_start, job_pid in read_run_files(data_dir):
            if process_start_time(sup_pid) == sup_start:
                try:
                    os.kill(sup_pid, signal.SIGKILL)
                except OSError:
                    pass
        procs = job_processes(data_dir)
        if not procs:
            return
        for pid, pgid in procs:
            for kill in (lambda: os.killpg(pgid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
                try:
                    kill()
                except OSError:
                    pass
        time.sleep(0.2)


def empty_slurm_clusters(root, clusters=("east", "west")):
    """Cancels every job the Slurm test clusters under `root` still run or hold (what an earlier
    case, failed or killed, left) and waits until none is listed live, so that a case starts on
    free nodes whatever ran before it."""
    live = ("PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED")

    def jobs(cluster):
        env = dict(os.environ, SLURM_CONF=f"{root}/{cluster}/etc/slurm.conf")
        out = subprocess.run(["squeue", "-h", "-o", "%i|%T"], env=env, capture_output=True,
                             text=True, timeout=30)
        return env, [line.split("|")[0] for line in out.stdout.splitlines()
                     if line.split("|")[-1] in live]

    def nodes_not_up(cluster):
        # Nodes an earlier case stopped (slurm-clusters.sh stop-node) come back a little later.
        env = dict(os.environ, SLURM_CONF=f"{root}/{cluster}/etc/slurm.conf")
        out = subprocess.run(["sinfo", "-h", "-N", "-o", "%N %T"], env=env, capture_output=True,
                             text=True, timeout=30)
        bad = ("down", "drain", "fail", "unknown", "not_responding", "future", "*")
        return [line for line in out.stdout.splitlines()
                if any(b in line.split()[-1].lower() for b in bad)]

    for c in clusters:
        env, ids = jobs(c)
        if ids:
            log(f"cancelling {len(ids)} Slurm jobs left on {c}: {' '.join(ids)}")
            subprocess.run(["scancel", *ids], env=env, capture_output=True, timeout=30)
    wait_until(lambda: not any(jobs(c)[1] for c in clusters), 60,
               f"the Slurm clusters {', '.join(clusters)} to run no job")
    try:
        wait_until(lambda: not any(nodes_not_up(c) for c in clusters), 60,
                   f"every node of {', '.join(clusters)} to be up")
    except TestFailure as e:
        log(f"going on with nodes not up: {e}")


def log_of(d, job_id, attempt):
    """The log of a job's attempt in a daemon's data folder, so far ("" before it exists)."""
    path = os.path.join(d.data_dir, "logs", f"{job_id}.{attempt}.log")
    if not os.path.exists(path):
        return ""
    with open(path, errors="replace") as f:
        return f.read()


class Daemon:
    """One `squeeze serve` process on a data directory."""

    def __init__(self, harness, binary, data_dir, args, name, allow_root_jobs=True):
        self.harness = harness
        # As root, the jobs the tests submit with the admin token are root's: let them run.
        if allow_root_jobs and is_root() and "--allow-root-jobs" not in args:
            args = list(args) + ["--allow-root-jobs"]
        self.binary = binary
        self.data_dir = os.path.abspath(data_dir)
        self.args = list(args)
        self.name = name
        self.log_path = os.path.join(harness.work_dir, f"{name}.log")
        self.proc = None
        self.url = None
        self.admin_token = None

    def command(self):
        return [self.binary, "serve", "--data", self.data_dir, "--listen", "127.0.0.1:0"] + self.args

    def start(self, timeout=60):
        url_file = os.path.join(self.data_dir, "serve.url")
        if os.path.exists(url_file):
            os.remove(url_file)  # the URL of an earlier daemon; wait for this one's
        with open(self.log_path, "ab") as out:
            out.write(f"$ {' '.join(self.command())}\n".encode())
            out.flush()
            self.proc = subprocess.Popen(self.command(), stdout=out, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)
        log(f"started {self.name} (pid {self.proc.pid}): {' '.join(self.command())}")

        def ready():
            if self.proc.poll() is not None:
                raise TestFailure(f"{self.name} exited with {self.proc.returncode} before it "
                                  f"listened; its log:\n{self.log_text()}")
            if os.path.exists(url_file):
                with open(url_file) as f:
                    return f.read().strip()
            return None

        self.url = wait_until(ready, timeout, f"{self.name} to write {url_file}")
        with open(os.path.join(self.data_dir, "admin.token")) as f:
            self.admin_token = f.read().strip()
        wait_until(lambda: http("GET", self.url + "/healthz", timeout=5)[0] == 200, timeout,
                   f"{self.name} /healthz")
        # Its start-up lines end with the recovery's ("took back ..."), a moment after it
        # listens: wait for them, so that a test reading the log sees them all.
        try:
            wait_until(lambda: "took back" in self.log_text() or self.proc.poll() is not None,
                       10, f"{self.name}'s recovery line")
        except TestFailure:
            pass  # a daemon that never says it (its recovery failed): the test will tell
        return self

    def log_text(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def call(self, method, path, body=None, token="admin", raw=None, timeout=30):
        """An API call; token "admin" (the default) uses the admin token, None sends none."""
        if token == "admin":
            token = self.admin_token
        return http(method, self.url + path, token=token, body=body, raw=raw, timeout=timeout)

    def submit(self, job, token="admin"):
        status, body = self.call("POST", "/v1/jobs", job, token=token)
        check(status == 201, f"submitting {job}: expected 201, got {status} {body}")
        return body["id"]

    def job(self, job_id, token="admin"):
        status, body = self.call("GET", f"/v1/jobs/{job_id}", token=token)
        check(status == 200, f"GET /v1/jobs/{job_id}: expected 200, got {status} {body}")
        return body

    def jobs(self, query="", token="admin"):
        """Every job (follows next_after), optionally filtered by `query` (e.g. "state=pending")."""
        out, after = [], None
        while True:
            q = "limit=1000" + (f"&{query}" if query else "") + (f"&after={after}" if after else "")
            status, body = self.call("GET", f"/v1/jobs?{q}", token=token)
            check(status == 200, f"GET /v1/jobs?{q}: expected 200, got {status} {body}")
            out += body["jobs"]
            after = body.get("next_after")
            if not after:
                return out

    def wait_job(self, job_id, predicate, timeout, what):
        """Waits until predicate(job JSON) holds; returns the job."""
        def ok():
            j = self.job(job_id)
            return j if predicate(j) else None
        try:
            return wait_until(ok, timeout, f"job {job_id} {what}")
        except TestFailure as e:
            raise TestFailure(f"{e}\njob now: {self.call('GET', f'/v1/jobs/{job_id}')[1]}")

    def wait_state(self, job_id, states, timeout=60):
        states = [states] if isinstance(states, str) else list(states)
        return self.wait_job(job_id, lambda j: j["state"] in states, timeout,
                             f"to be {'/'.join(states)}")

    def metrics(self):
        status, text = http("GET", self.url + "/metrics")
        check(status == 200, f"GET /metrics: {status} {text}")
        return text

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill9(self):
        """SIGKILL, as a crash; waits for the process to be gone."""
        if self.alive():
            self.proc.kill()
        if self.proc is not None:
            self.proc.wait(timeout=30)
        log(f"killed {self.name} with SIGKILL")

    def stop(self, grace=15):
        """SIGTERM, then SIGKILL after `grace` seconds. Returns the exit status."""
        if self.proc is None:
            return None
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                log(f"{self.name} did not stop within {grace}s of SIGTERM; SIGKILL")
                self.proc.kill()
                self.proc.wait(timeout=30)
        return self.proc.returncode


class Harness:
    """Owns WORK_DIR (emptied on entry) and everything started through it."""

    def __init__(self, work_dir):
        self.work_dir = os.path.abspath(work_dir)
        self.daemons = []
        self.data_dirs = set()
        self.other_procs = []
        self.failures = []  # soft_check's, reported when the case ends

    def soft_check(self, condition, message):
        """Like check, but the case goes on: the failure is reported (and fails the case) at the
        end. For known bugs, so that one does not hide the checks after it."""
        if not condition:
            log(f"FAILED (the case goes on): {message}")
            self.failures.append(message)

    def __enter__(self):
        if os.path.isdir(self.work_dir):
            for sub in os.listdir(self.work_dir):  # what a previous run, killed hard, left
                if os.path.exists(os.path.join(self.work_dir, sub, "serve.lock")):
                    kill_daemon_of(os.path.join(self.work_dir, sub))
                    kill_leftovers(os.path.join(self.work_dir, sub))
            shutil.rmtree(self.work_dir, ignore_errors=True)
        os.makedirs(self.work_dir)
        # ctest's timeout and Ctrl-C: leave through the `with`, so cleanup runs.
        def interrupted(signum, frame):
            raise TestFailure(f"interrupted by signal {signum}")
        signal.signal(signal.SIGTERM, interrupted)
        signal.signal(signal.SIGINT, interrupted)
        return self

    def path(self, *parts):
        return os.path.join(self.work_dir, *parts)

    def start_daemon(self, binary, data_dir, args=(), name=None, timeout=60,
                     allow_root_jobs=True):
        data_dir = self.path(data_dir)
        name = name or f"daemon{len(self.daemons) + 1}"
        d = Daemon(self, binary, data_dir, args, name, allow_root_jobs)
        self.daemons.append(d)
        self.data_dirs.add(d.data_dir)
        return d.start(timeout=timeout)

    def run(self, argv, timeout=60, **kw):
        """Runs a command to its end (killed after `timeout`); returns CompletedProcess."""
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, text=True, **kw)
        self.other_procs.append(proc)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            raise TestFailure(f"{argv} ran over {timeout}s; stderr: {err}")
        return subprocess.CompletedProcess(argv, proc.returncode, out, err)

    def add_token(self, data_dir, user, team, role="user"):
        """Appends a token line to DIR/tokens (as `squeeze token add` will); returns it. As root
        (a daemon that runs each job as its owner) the test accounts must exist, or it skips."""
        if is_root() and user in (ALICE, BOB, CAROL):
            need_test_accounts()
        token = random_token()
        path = os.path.join(self.path(data_dir), "tokens")
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, f"{token} {user} {team} {role}\n".encode())
        finally:
            os.close(fd)
        return token

    def __exit__(self, exc_type, exc, tb):
        for d in self.daemons:
            try:
                d.stop()
            except Exception as e:  # noqa: BLE001 - clean up the rest regardless
                log(f"stopping {d.name}: {e!r}")
        for p in self.other_procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        for data_dir in self.data_dirs:
            kill_leftovers(data_dir)
        if exc is not None and self.daemons:
            for d in self.daemons:
                tail = d.log_text()[-4000:]
                print(f"--- {d.name} log ({d.log_path}), last 4000 characters ---\n{tail}",
                      flush=True)
        return False


def slurm_log_digest(root, since):
    """What Slurm's daemons under `root` (scripts/slurm-clusters.sh) said of trouble since the
    wall-clock time `since` (a launch that missed BatchStartTimeout, a requeue, a node not
    responding): the last lines of each log, for a failed case's report."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(since))
    trouble = re.compile(r"error|missing|requeue|not responding|already killed|expired|DOWN",
                         re.IGNORECASE)
    out = []
    for log_path in sorted(glob.glob(os.path.join(root, "*", "log", "slurm*.log"))):
        try:
            with open(log_path, errors="replace") as f:
                lines = [l.rstrip() for l in f if l[1:20] >= stamp and trouble.search(l)
                         and "pmix" not in l.lower() and "MPI:" not in l]
        except OSError:
            continue
        if lines:
            out.append(f"--- {log_path}: {len(lines)} lines of trouble, the last 12 ---")
            out.extend(lines[-12:])
    return "\n".join(out)


def main(cases, argv, on_failure=None):
    """`python3 TEST.py CASE SQUEEZE SOURCE_DIR WORK_DIR`: runs cases[CASE](squeeze, source,
    harness). Exit 0 on success, 1 on failure, 77 when the case asks to be skipped. On a
    failure, on_failure(began) (when given) returns more to print: what else saw it go wrong."""
    if len(argv) != 5 or argv[1] not in cases:
        print(f"usage: {argv[0]} CASE SQUEEZE SOURCE_DIR WORK_DIR; CASE: {', '.join(cases)}",
              file=sys.stderr)
        return 2
    case, squeeze, source, work = argv[1], os.path.abspath(argv[2]), argv[3], argv[4]
    began = time.time()
    try:
        with Harness(work) as h:
            cases[case](squeeze, os.path.abspath(source), h)
            if h.failures:
                raise TestFailure("\n      ".join(h.failures))
    except SkipTest as e:
        print(f"SKIP: {e}", flush=True)
        return SKIP
    except TestFailure as e:
        print(f"FAIL: {e}", flush=True)
        if on_failure:
            print(on_failure(began), flush=True)
        return 1
    print(f"PASS: {case}", flush=True)
    return 0


class SkipTest(Exception):
    pass
