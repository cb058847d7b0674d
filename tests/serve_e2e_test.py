#!/usr/bin/env python3
"""End-to-end tests of `squeeze serve`: the real daemon, its supervisors and real job processes,
driven over HTTP. One case per run:

    python3 tests/serve_e2e_test.py CASE SQUEEZE_BINARY SOURCE_DIR WORK_DIR

CASE: security, durability, metrics (registered in CTest as e2e.serve.CASE). Helpers, and the
clean-up of every process a case starts, are in serve_lib.py. Standard library only.
"""

import os
import re
import stat
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_lib  # noqa: E402
from serve_lib import check, expect_error, log, wait_until  # noqa: E402

LONG_SLEEP = ["sleep", "600"]  # a job that runs until it is stopped (the teardown kills it)



# ------------------------------------------------------------------------------------------
# security
# ------------------------------------------------------------------------------------------

def check_job_fds(d, job_id):
    """A job must hold none of the daemon's descriptors: no socket (the API's connections)
    and no file of the data directory but its own log."""
    # The store says running once the start is recorded; the outbox forks its supervisor next.
    def runs_of_job():
        return [r for r in serve_lib.read_run_files(d.data_dir) if r[0].startswith(f"{job_id}.")]
    wait_until(runs_of_job, 30, f"a run file for job {job_id}")
    runs = runs_of_job()
    job_pid = runs[-1][3]
    leaked = []
    for fd in os.listdir(f"/proc/{job_pid}/fd"):
        try:
            target = os.readlink(f"/proc/{job_pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:") or (target.startswith(d.data_dir + "/") and
                                            "/logs/" not in target):
            leaked.append(f"{fd} -> {target}")
    # httplib accepts connections without SOCK_CLOEXEC; the executor closes every descriptor
    # above 2 before it starts the supervisor, so a job inherits none of the daemon's.
    check(not leaked, f"job {job_id} (pid {job_pid}) inherited the daemon's descriptors: {leaked}")


def case_security(squeeze, source, h):
    if serve_lib.is_root():
        serve_lib.need_test_accounts()  # a root daemon runs alice's jobs as sqz-alice
    d = h.start_daemon(squeeze, "data", ["--virtual-gpus", "2:A100"])
    data = d.data_dir

    # Files and the default address. A root daemon's jobs, as their owners, pass through DIR.
    want = 0o711 if serve_lib.is_root() else 0o700
    check(stat.S_IMODE(os.stat(data).st_mode) == want,
          f"{data} should be mode {oct(want)}, is {oct(stat.S_IMODE(os.stat(data).st_mode))}")
    for name in ("admin.token", "tokens"):
        mode = stat.S_IMODE(os.stat(os.path.join(data, name)).st_mode)
        check(mode == 0o600, f"{name} should be mode 0600, is {oct(mode)}")
    check(re.fullmatch(r"http://127\.0\.0\.1:\d+", d.url), f"serve.url: {d.url!r}")
    helptext = h.run([squeeze, "serve", "--help"]).stdout
    check(re.search(r"--listen( TEXT)?=127\.0\.0\.1:\d+", helptext),
          f"`squeeze serve --help` should show --listen defaulting to 127.0.0.1:PORT:\n{helptext}")

    # Tokens: none, unknown, users of team ml (added to DIR/tokens as `squeeze token add` does).
    expect_error(d, "GET", "/v1/jobs", 401, ["Authorization", "Bearer"], token=None)
    expect_error(d, "POST", "/v1/jobs", 401, ["Authorization"], body={"command": ["true"]},
                 token=None)
    expect_error(d, "GET", "/v1/jobs", 401, ["unknown token"], token=serve_lib.random_token())
    alice = h.add_token("data", serve_lib.ALICE, "ml")
    bob = h.add_token("data", serve_lib.BOB, "ml")
    check(stat.S_IMODE(os.stat(os.path.join(data, "tokens")).st_mode) == 0o600,
          "tokens should stay 0600")
    for who, token in (("alice", alice), ("bob", bob)):
        wait_until(lambda: d.call("GET", "/v1/jobs", token=token)[0] == 200, 15,
                   f"the daemon to accept {who}'s new token")

    def count():
        return len(d.jobs())

    # Bob's job: alice may see it, not cancel it. An idle keep-alive API connection is open
    # while it starts (as a client that reuses connections would hold one), for check_job_fds.
    idle = serve_lib.http_client.HTTPConnection("127.0.0.1", int(d.url.rsplit(":", 1)[1]),
                                                timeout=30)
    idle.request("GET", "/healthz")
    idle.getresponse().read()
    bobs = d.submit({"name": "bobs", "command": LONG_SLEEP, "gpus": 1}, token=bob)
    status, listing = d.call("GET", "/v1/jobs", token=alice)
    check(status == 200 and any(j["id"] == bobs for j in listing["jobs"]),
          f"alice should see the queue with bob's job {bobs}: {status} {listing}")
    check(d.job(bobs, token=alice)["owner"] == serve_lib.BOB, "bob's job should be owned by bob")
    expect_error(d, "POST", f"/v1/jobs/{bobs}/cancel", 403, [serve_lib.BOB], token=alice)
    state = d.job(bobs)["state"]
    check(state in ("pending", "running"), f"bob's job after alice's cancel: {state}")
    d.wait_state(bobs, "running", timeout=60)  # 1 GPU of 2 is free: it starts
    check_job_fds(d, bobs)
    idle.close()
    expect_error(d, "POST", f"/v1/jobs/{bobs}/cancel", 403, [serve_lib.BOB], token=alice)
    time.sleep(1.5)  # a cancel that went through would show by now; the state must not move
    check(d.job(bobs)["state"] == "running", f"bob's job after alice's cancel: {d.job(bobs)}")

    # Alice cancels her own, waiting (2 GPUs, 1 is busy) and running ones.
    waiting = d.submit({"name": "alices-waiting", "command": LONG_SLEEP, "gpus": 2}, token=alice)
    status, reply = d.call("POST", f"/v1/jobs/{waiting}/cancel", token=alice)
    check(status == 200, f"alice cancelling her job {waiting}: {status} {reply}")
    j = d.wait_state(waiting, "cancelled", timeout=30)
    check(serve_lib.ALICE in j["reason"], f"the reason should say who cancelled: {j['reason']!r}")
    running = d.submit({"name": "alices-running", "command": LONG_SLEEP, "gpus": 1}, token=alice)
    d.wait_state(running, "running", timeout=60)
    status, reply = d.call("POST", f"/v1/jobs/{running}/cancel", token=alice)
    check(status == 200, f"alice cancelling her running job {running}: {status} {reply}")
    d.wait_state(running, "cancelled", timeout=60)
    expect_error(d, "POST", f"/v1/jobs/{running}/cancel", 409, ["ended"], token=alice)

    # A POST with no body and no Content-Length (`curl -X POST URL/cancel`) is a valid request.
    extra = d.submit({"name": "bodiless", "command": LONG_SLEEP, "gpus": 2}, token=alice)
    status, reply = serve_lib.http_no_length("POST", f"{d.url}/v1/jobs/{extra}/cancel", alice)
    log(f"a bodiless POST: {status} {reply!r}")
    # cpp-httplib by itself answers a POST without Content-Length with a bare 400 (the route
    # reads its body itself, so it does not).
    check(status == 200,
                 f"cancel with a bodiless POST (no Content-Length): expected 200, got {status} "
                 f"{reply!r}")
    if status != 200:
        check(d.call("POST", f"/v1/jobs/{extra}/cancel", token=alice)[0] == 200, "cancel")
    d.wait_state(extra, "cancelled", timeout=30)

    # The admin cancels bob's.
    status, reply = d.call("POST", f"/v1/jobs/{bobs}/cancel")
    check(status == 200, f"the admin cancelling bob's job: {status} {reply}")
    d.wait_state(bobs, "cancelled", timeout=60)
    expect_error(d, "POST", "/v1/jobs/999999/cancel", 404, ["999999"], token=alice)
    expect_error(d, "GET", "/v1/jobs/999999", 404, ["999999"], token=alice)

    # Rejected submissions: each names what is wrong and stores nothing.
    before = count()
    ok_job = {"command": ["true"]}
    rejections = [
        # (what, body or raw text, status, words the message must hold, token)
        ("another team", {"command": ["true"], "team": "infra"}, 403, ["team", "infra", "ml"],
         alice),
        ("malformed JSON", '{"command": ["true"]', 400, ["malformed JSON"], alice),
        ("not an object", '["true"]', 400, [], alice),
        ("unknown field", {"command": ["true"], "gpu": 1}, 400, ["unknown field 'gpu'",
                                                                 "did you mean 'gpus'"], alice),
        ("no command", {"name": "x"}, 400, ["command"], alice),
        ("too many GPUs", {"command": ["true"], "gpus": 3}, 400,
         ["asks for 3", "largest possible request is 2"], alice),
        ("a model no node has", {"command": ["true"], "gpu_models": ["H100"]}, 400,
         ["H100", "no node has", "A100"], alice),
        ("bad estimate", {"command": ["true"], "estimate": "5x"}, 400,
         ["estimate", "5x", "not a duration"], alice),
        ("past deadline", {"command": ["true"], "deadline": "2020-01-01T00:00:00Z"}, 400,
         ["deadline", "not in the future"], alice),
        ("bad urgency", {"command": ["true"], "urgency": "asap"}, 400, ["urgency", "asap"], alice),
        ("relative workdir", {"command": ["true"], "workdir": "project"}, 400,
         ["workdir", "relative"], alice),
        ("escaping workdir", {"command": ["true"], "workdir": "../../etc"}, 400, ["workdir"],
         alice),
        ("escaping name", {"command": ["true"], "name": "../../etc/passwd"}, 400, ["name"], alice),
        ("reserved env", {"command": ["true"], "env": {"SQUEEZE_JOB_ID": "1"}}, 400,
         ["SQUEEZE_JOB_ID", "reserved"], alice),
        ("a single-string command", {"command": "sleep 1"}, 400, ["command", "list"], alice),
        ("not UTF-8", b'{"command": ["true"], "name": "a\xff"}', 400,
         ["byte 32", "0xFF", "not UTF-8"], alice),
        ("a key twice", '{"command": ["true"], "gpus": 1, "gpus": 2}', 400,
         ["'gpus' is given twice"], alice),
    ]
    for what, body, status, words, token in rejections:
        raw = body if isinstance(body, (str, bytes)) else None
        msg = expect_error(d, "POST", "/v1/jobs", status, words, token=token,
                           body=None if raw is not None else body, raw=raw)
        log(f"{what}: {status} {msg}")
        check(count() == before, f"{what}: the rejected job was stored ({count()} != {before})")

    # Update asks the rule submit asks (the core's), in the same words: a held job updated to
    # more GPUs than the cluster has is refused as a submission of it was, and keeps its GPUs.
    status, held = d.call("POST", "/v1/jobs", body={"command": ["true"], "hold": True}, token=alice)
    check(status == 201, f"a held job to update: {status} {held}")
    submitted = expect_error(d, "POST", "/v1/jobs", 400, ["asks for 3"],
                             body={"command": ["true"], "gpus": 3}, token=alice)
    updated = expect_error(d, "POST", f"/v1/jobs/{held['id']}/update", 400, ["asks for 3"],
                           body={"gpus": 3}, token=alice)
    check(updated == submitted, f"update said {updated!r}, submit {submitted!r}")
    check(d.job(held["id"])["gpus"] == 1, f"the refused update changed the job: {d.job(held['id'])}")
    d.call("POST", f"/v1/jobs/{held['id']}/cancel", token=alice)
    before = count()

    # Over 256 KiB: 413 and nothing stored.
    big = {"command": ["true"], "env": {"FILLER": "x" * 4000}}
    big["env"].update({f"F{i}": "y" * 4000 for i in range(70)})  # ~284 KiB
    try:
        msg = expect_error(d, "POST", "/v1/jobs", 413, ["body", "bytes"], body=big, token=alice)
        log(f"oversized body: 413 {msg}")
    except (ConnectionError, OSError) as e:
        raise serve_lib.TestFailure(f"oversized body: expected a 413 answer, the connection "
                                    f"broke instead: {e!r}")
    check(count() == before, "the oversized job was stored")
    # The same without a Content-Length (chunked): the limit must hold before the body is read.
    chunk = b'{"command": ["true"], "name": "' + b"a" * 16 * 1024
    status, reply = serve_lib.http_chunked(d.url + "/v1/jobs", alice,
                                           [chunk] + [b"a" * 16 * 1024] * 20 + [b'"}'])
    log(f"oversized chunked body: {status} {reply}")
    check(count() == before, "the oversized chunked job was stored")
    check(d.alive(), "the daemon died on an oversized chunked body")
    # cpp-httplib 0.11 applies its payload limit only to bodies with a Content-Length; the route
    # reads the body itself and stops at the limit.
    check(status == 413 and "bytes" in str(reply),
          f"an oversized chunked body: expected 413 before reading it, got {status} {reply}")
    # Query limits.
    expect_error(d, "GET", "/v1/jobs?stat=pending", 400, ["stat", "did you mean 'state'"],
                 token=alice)
    expect_error(d, "GET", "/v1/jobs?limit=0", 400, ["limit"], token=alice)
    expect_error(d, "GET", "/v1/jobs?order=newest", 400, ["order", "'newest'", "ended"],
                 token=alice)
    expect_error(d, "GET", "/v1/jobs?order=ended&after=3", 400, ["after", "one page"],
                 token=alice)
    expect_error(d, "GET", "/v1/jobs?state=timedout", 400, ["'timedout'", "timeout"], token=alice)
    expect_error(d, "GET", "/v1/jobs/abc", 400, ["abc"], token=alice)

    # A valid job still goes through afterwards (the rejections left the daemon well).
    n = d.submit(ok_job, token=alice)
    d.wait_state(n, "done", timeout=60)
    check(count() == before + 1, "exactly one more job after the accepted submission")


# ------------------------------------------------------------------------------------------
# durability
# ------------------------------------------------------------------------------------------

def per_run_job(results, key, seconds, code=0):
    """A job that appends its attempt to RESULTS/KEY-ID.runs when it starts, sleeps, appends it
    to RESULTS/KEY-ID.ends and exits with `code`."""
    script = (f'echo "$SQUEEZE_ATTEMPT" >> "$RESULTS/{key}-$SQUEEZE_JOB_ID.runs"; '
              f'sleep {seconds}; '
              f'echo "$SQUEEZE_ATTEMPT" >> "$RESULTS/{key}-$SQUEEZE_JOB_ID.ends"; exit {code}')
    return {"name": key, "command": ["bash", "-c", script], "gpus": 1,
            "env": {"RESULTS": results}}


def lines(path):
    try:
        with open(path) as f:
            return f.read().split()
    except FileNotFoundError:
        return []


def case_durability(squeeze, source, h):
    results = h.path("results")
    os.makedirs(results)
    args = ["--virtual-gpus", "2"]

    # --- Part 1: kill -9 during a burst of submissions while two jobs run. ---
    d = h.start_daemon(squeeze, "data", args, name="first")
    running = [d.submit(per_run_job(results, "run", 20)) for _ in range(2)]
    for r in running:
        d.wait_state(r, "running", timeout=60)
        wait_until(lambda: lines(f"{results}/run-{r}.runs"), 30, f"job {r} to start")

    acked, errors, lock = [], [], threading.Lock()
    stop = threading.Event()
    # Waits: both GPUs are busy with jobs that cannot be preempted.
    waiting_job = {"name": "burst", "command": ["true"], "gpus": 2, "urgency": "low"}

    def client():
        while not stop.is_set():
            try:
                status, body = serve_lib.http("POST", d.url + "/v1/jobs", token=d.admin_token,
                                              body=waiting_job, timeout=10)
            except Exception as e:  # noqa: BLE001 - the daemon is killed under us
                with lock:
                    errors.append(repr(e))
                time.sleep(0.05)
                continue
            with lock:
                if status == 201:
                    acked.append(body["id"])
                else:
                    errors.append(f"{status} {body}")

    threads = [threading.Thread(target=client, daemon=True) for _ in range(8)]
    for t in threads:
        t.start()
    try:
        time.sleep(1.0)
        wait_until(lambda: len(acked) >= 20, 30, "20 submissions of the burst")
        d.kill9()  # in the middle of the burst
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=30)
    ids = list(acked)
    log(f"burst: {len(ids)} acknowledged, {len(errors)} failed (after the kill)")
    check(len(ids) == len(set(ids)), f"an id was acknowledged twice: {sorted(ids)}")
    refused = [e for e in errors if e[:3].isdigit()]  # an HTTP answer other than 201
    check(not refused, f"submissions refused before the kill: {refused[:5]}")

    # The second start on the same DIR: the kernel released the lock with the process.
    still_running = not any(lines(f"{results}/run-{r}.ends") for r in running)
    d2 = h.start_daemon(squeeze, "data", args, name="restarted")
    check("another squeeze serve" not in d2.log_text(), "the lock outlived the killed daemon")
    if still_running:  # (on a very slow machine they may have ended before the restart)
        # The API answers while the queue is taken back: wait for the recovery's line.
        serve_lib.wait_until(lambda: "took back" in d2.log_text(), 60, "the recovery's line")
        check("took back 2 running jobs" in d2.log_text(),
              f"the restart should take back the 2 running jobs:\n{d2.log_text()}")

    # A second daemon while one runs must refuse.
    other = h.run([squeeze, "serve", "--data", d2.data_dir, "--listen", "127.0.0.1:0"] + args,
                  timeout=60)
    check(other.returncode == 1 and "another squeeze serve uses" in other.stderr,
          f"a second daemon on the same DIR: rc {other.returncode}, stderr {other.stderr!r}")
    check(d2.alive(), "the running daemon died when a second one tried to start")

    missing = []
    for i in ids:
        status, body = d2.call("GET", f"/v1/jobs/{i}")
        if status != 200:
            missing.append((i, status, body))
        elif body["state"] not in ("pending", "running", "done"):
            missing.append((i, body["state"], body["reason"]))
    check(not missing, f"acknowledged jobs lost or spoiled after kill -9: {missing[:10]}")

    # The two running jobs: taken back, never started again, their ends recorded.
    for r in running:
        j = d2.wait_state(r, ("done", "failed", "cancelled"), timeout=90)
        check(j["state"] == "done" and j["exit_code"] == 0,
              f"job {r} should be done with exit 0: {j}")
        check(j["attempts"] == 1 and j["failures"] == 0 and j["preemptions"] == 0,
              f"job {r} should have run once: {j}")
        check(lines(f"{results}/run-{r}.runs") == ["1"],
              f"job {r} started {lines(f'{results}/run-{r}.runs')} (once expected)")
        check(lines(f"{results}/run-{r}.ends") == ["1"],
              f"job {r} ended {lines(f'{results}/run-{r}.ends')} (once expected)")
    check(not os.path.exists(os.path.join(d2.data_dir, "runs", f"{running[0]}.2.run")),
          "a second attempt of a taken-back job was started")
    rc = d2.stop()
    check(rc == 0, f"the daemon should exit 0 on SIGTERM, exited {rc}")

    # --- Part 2: runs that END while the daemon is down. ---
    d3 = h.start_daemon(squeeze, "data2", args + ["--retry-backoff", "1s"], name="second")
    ok = d3.submit(per_run_job(results, "ok", 6))
    failing = per_run_job(results, "bad", 6, code=3)
    failing["max_retries"] = 1
    bad = d3.submit(failing)
    for r in (ok, bad):
        d3.wait_state(r, "running", timeout=60)
    # "running" is the journal's record; the executor starts the run just after it (the outbox).
    # Killed between the two, a run never begins and has no end to wait for: wait for its start.
    for r, key in ((ok, "ok"), (bad, "bad")):
        wait_until(lambda r=r, key=key: lines(f"{results}/{key}-{r}.runs") == ["1"], 60,
                   f"job {r}'s run to begin")
    d3.kill9()
    for r in (ok, bad):
        exit_file = os.path.join(d3.data_dir, "runs", f"{r}.1.exit")
        wait_until(lambda: os.path.exists(exit_file), 60, f"{exit_file} (the run's end)")
    d4 = h.start_daemon(squeeze, "data2", args + ["--retry-backoff", "1s"], name="second-again")
    j = d4.wait_state(ok, ("done", "failed", "cancelled"), timeout=60)
    check(j["state"] == "done" and j["exit_code"] == 0 and j["attempts"] == 1,
          f"the job that ended while the daemon was down should be done, exit 0, 1 attempt: {j}")
    check(lines(f"{results}/ok-{ok}.runs") == ["1"], "the ended job was started again")
    # The failing one: its exit 3 recorded, one retry (max_retries 1), then failed for good.
    j = d4.wait_state(bad, ("done", "failed", "cancelled"), timeout=90)
    check(j["state"] == "failed" and j["exit_code"] == 3,
          f"the failing job should end failed with exit 3: {j}")
    check(j["attempts"] == 2 and j["failures"] == 2,
          f"the failing job should have been retried once (2 attempts, 2 failures): {j}")
    check("exit 3" in j["reason"], f"the reason should give the exit: {j['reason']!r}")
    check(lines(f"{results}/bad-{bad}.runs") == ["1", "2"],
          f"the failing job's runs: {lines(f'{results}/bad-{bad}.runs')} (1 then 2 expected)")
    check("ended while it was down" in d4.log_text(), "the restart should report ended runs")
    m = re.search(r"(\d+) ended while it was down", d4.log_text())
    check(m and int(m.group(1)) == 2, f"2 runs should have ended while it was down: {m and m.group(0)}")


def case_outbox_kill(squeeze, source, h):
    """kill -9 between the journal's commit and the executor, with most of a cycle's 100 starts
    queued in the outbox (issue 20, point 4; issue 35, point 1): the journal gives a start to
    its outbox only after the commit that holds its record, so the restart takes back the runs
    that began and queues the others again; every job runs exactly once and ends done."""
    results = h.path("results")
    os.makedirs(results)
    cluster = h.path("two-nodes.yaml")
    with open(cluster, "w") as f:
        f.write("pools:\n  - name: local\n    nodes:\n      - count: 2\n        name_prefix: n\n"
                "        gpus: 50\n")
    args = ["--virtual-gpus", "100", "--config", cluster]
    # One worker: the 100 starts (each a fork of a supervisor) go one after the other.
    d = h.start_daemon(squeeze, "data", args + ["--dispatch-workers", "1"], name="first")
    blockers = [d.submit({"name": "blocker", "command": ["sleep", "600"], "gpus": 50,
                          "urgency": "high"}) for _ in range(2)]
    for b in blockers:
        d.wait_state(b, "running", timeout=60)
    # Runs of 5 s: the first may end before the hundredth start is recorded on a loaded machine.
    jobs = [d.submit(per_run_job(results, "burst", 5)) for _ in range(100)]
    wanted = set(jobs)
    for b in blockers:
        status, body = d.call("POST", f"/v1/jobs/{b}/cancel")
        check(status == 200, f"cancel of blocker {b}: {status} {body}")

    def recorded():  # started, whether still running or already ended
        return len([j for j in d.jobs() if j["id"] in wanted and j["state"] != "pending"])
    wait_until(lambda: recorded() == 100, 60, "the cycle's 100 starts recorded", interval=0.005)
    d.kill9()
    runs_dir = os.path.join(d.data_dir, "runs")
    began = len([n for n in os.listdir(runs_dir)
                 if n.endswith(".1.run") and int(n.split(".")[0]) in wanted])
    log(f"killed with 100 starts recorded and {began} carried out")
    check(began < 100, f"all 100 starts were carried out before the kill ({began}): the outbox "
                       "held none, nothing was tested")

    d2 = h.start_daemon(squeeze, "data", args, name="restarted")
    wait_until(lambda: "took back" in d2.log_text(), 60, "the recovery's line")
    m = re.search(r"took back (\d+) running jobs, \d+ waiting; (\d+) ended while it was down, "
                  r"(\d+) queued again", d2.log_text())
    check(m, f"the recovery's line: {d2.log_text()}")
    for job in jobs:
        j = d2.wait_state(job, ("done", "failed", "cancelled"), timeout=120)
        check(j["state"] == "done", f"job {job}: {j}")
    for job in jobs:
        runs = lines(f"{results}/burst-{job}.runs")
        check(len(runs) == 1 and lines(f"{results}/burst-{job}.ends") == runs,
              f"job {job} ran {runs} (exactly once expected)")
    # The first daemon's runs (attempt 1): those seen at the kill, and the one start it may
    # have been in the middle of, whose supervisor the restart waited for.
    first_runs = len([n for n in os.listdir(runs_dir)
                      if n.endswith(".1.run") and int(n.split(".")[0]) in wanted])
    check(first_runs in (began, began + 1), f"{first_runs} first runs, {began} at the kill")
    adopted, ended, requeued = (int(m.group(i)) for i in (1, 2, 3))
    check(adopted + ended == first_runs and requeued == 100 - first_runs,
          f"the {first_runs} runs that began should be taken back or found ended, the other "
          f"{100 - first_runs} queued again: {m.group(0)}")
    log(f"restart: {m.group(0)}")


# ------------------------------------------------------------------------------------------
# metrics
# ------------------------------------------------------------------------------------------

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)$')


def parse_metrics(text):
    """{(name, frozenset of label pairs): value}, and the # TYPE lines {name: type}."""
    samples, types = {}, {}
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(None, 3)
            types[name] = kind
            continue
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        check(m, f"not a Prometheus sample line: {line!r}")
        labels = frozenset(re.findall(r'(\w+)="([^"]*)"', m.group(2) or ""))
        samples[(m.group(1), labels)] = float(m.group(3))
    return samples, types


def value(samples, name, **labels):
    want = set(labels.items())
    found = [v for (n, ls), v in samples.items() if n == name and want <= set(ls)]
    check(found, f"no sample {name}{labels or ''}")
    return sum(found)


def by_label(samples, name, label):
    return {dict(ls)[label]: v for (n, ls), v in samples.items() if n == name}


def promtool_check(h, text):
    proc = subprocess.run(["promtool", "check", "metrics"], input=text, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    check(proc.returncode == 0, f"promtool check metrics failed:\n{proc.stdout}\n--- text ---\n{text}")


def case_metrics(squeeze, source, h):
    if subprocess.run(["sh", "-c", "command -v promtool"], stdout=subprocess.DEVNULL).returncode:
        raise serve_lib.SkipTest("promtool is not installed (scripts/setup.sh installs it)")
    d = h.start_daemon(squeeze, "data", ["--virtual-gpus", "2", "--set", "min_runtime=0s",
                                         "--checkpoint-grace", "30s", "--stop-grace", "10s"])
    text = d.metrics()
    promtool_check(h, text)
    s, types = parse_metrics(text)
    for family, kind in (("squeeze_gpus_allocated", "gauge"), ("squeeze_gpus_idle", "gauge"),
                         ("squeeze_queue_wait_seconds", "histogram"),
                         ("squeeze_preemptions_total", "counter"),
                         ("squeeze_checkpoints_total", "counter")):
        check(types.get(family) == kind, f"{family} should be a {kind}: {types.get(family)}")
    check(value(s, "squeeze_gpus_allocated") == 0 and value(s, "squeeze_gpus_idle") == 2,
          "an idle daemon should have 0 GPUs allocated, 2 idle")
    check(value(s, "squeeze_preemptions_total") == 0 and value(s, "squeeze_checkpoints_total") == 0,
          "no preemption or checkpoint yet")
    check(value(s, "squeeze_queue_wait_seconds_count") == 0, "no start yet")
    check(by_label(s, "squeeze_queue_pending_jobs", "urgency") ==
          {"critical": 0, "high": 0, "normal": 0, "low": 0},
          f"every urgency class should be shown, at 0: {by_label(s, 'squeeze_queue_pending_jobs', 'urgency')}")

    # A low, preemptible, checkpointing job on both GPUs.
    train = os.path.join(source, "examples", "jobs", "train-like.sh")
    low = d.submit({"name": "low", "command": ["bash", train], "gpus": 2, "urgency": "low",
                    "preemptible": True, "checkpointable": True,
                    "env": {"STEPS": "3000", "STEP_SECONDS": "0.1", "CHECKPOINT_EVERY": "5"}})
    d.wait_state(low, "running", timeout=60)
    d.wait_job(low, lambda j: j["last_checkpoint"], 60, "to checkpoint")

    def moved():
        s, _ = parse_metrics(d.metrics())
        return s if (value(s, "squeeze_checkpoints_total") >= 1 and
                     value(s, "squeeze_gpus_allocated") == 2) else None
    s = wait_until(moved, 30, "checkpoints_total >= 1 and 2 GPUs allocated")
    check(value(s, "squeeze_gpus_idle") == 0, "both GPUs are in use")
    check(value(s, "squeeze_queue_wait_seconds_count") == 1, "one start so far")
    check(value(s, "squeeze_running_jobs", urgency="low") == 1, "one low job runs")

    # A critical job preempts it: SIGUSR1, a checkpoint, exit, waits again.
    crit = d.submit({"name": "crit", "command": ["sleep", "25"], "gpus": 2, "urgency": "critical"})
    d.wait_state(crit, "running", timeout=90)
    j = d.wait_job(low, lambda j: j["preemptions"] >= 1, 30, "to be preempted")
    check(j["state"] == "pending", f"the preempted job should wait again: {j}")
    # Two more that wait behind the critical one.
    normal = [d.submit({"name": "n", "command": ["true"], "gpus": 2}) for _ in range(2)]
    high = d.submit({"name": "h", "command": ["true"], "gpus": 2, "urgency": "high"})

    def consistent():
        text = d.metrics()
        s, _ = parse_metrics(text)
        pending = d.jobs("state=pending")
        want = {}
        for job in pending:
            want[job["urgency"]] = want.get(job["urgency"], 0) + 1
        got = {k: v for k, v in by_label(s, "squeeze_queue_pending_jobs", "urgency").items() if v}
        return (text, s) if got == want and len(pending) == 4 else None
    text, s = wait_until(consistent, 30, "squeeze_queue_pending_jobs to match the pending jobs")
    promtool_check(h, text)
    check(value(s, "squeeze_queue_pending_jobs", urgency="normal") == 2, "2 normal jobs wait")
    check(value(s, "squeeze_queue_pending_jobs", urgency="low") == 1, "1 low job waits")
    check(value(s, "squeeze_queue_pending_jobs", urgency="high") == 1, "1 high job waits")
    check(value(s, "squeeze_preemptions_total") >= 1, "the preemption should be counted")
    check(value(s, "squeeze_checkpoints_total") >= 2, "the requested checkpoint is counted too")
    check(value(s, "squeeze_gpus_allocated") == 2 and value(s, "squeeze_gpus_idle") == 0,
          "the critical job holds both GPUs")
    count = value(s, "squeeze_queue_wait_seconds_count")
    check(count == 2, f"two starts: {count}")
    buckets = sorted(((float(dict(ls)["le"]), v) for (n, ls), v in s.items()
                      if n == "squeeze_queue_wait_seconds_bucket"))
    check(buckets and buckets[-1][0] == float("inf") and buckets[-1][1] == count,
          f"the +Inf bucket should hold every start: {buckets}")
    check(all(a[1] <= b[1] for a, b in zip(buckets, buckets[1:])), f"buckets grow: {buckets}")
    check(value(s, "squeeze_queue_wait_seconds_sum") >= 0, "a wait sum")

    # Once the critical job ends, the others run (the high one first) and the gauges follow.
    d.wait_state(high, "done", timeout=90)
    for n in normal:
        d.wait_state(n, "done", timeout=90)
    status, reply = d.call("POST", f"/v1/jobs/{low}/cancel")
    check(status == 200, f"cancelling the low job: {status} {reply}")
    d.wait_state(low, "cancelled", timeout=60)

    def settled():
        s, _ = parse_metrics(d.metrics())
        return s if (value(s, "squeeze_gpus_allocated") == 0 and
                     value(s, "squeeze_gpus_idle") == 2) else None
    s = wait_until(settled, 30, "every GPU idle again")
    check(sum(by_label(s, "squeeze_queue_pending_jobs", "urgency").values()) == 0, "none waits")
    check(value(s, "squeeze_jobs_finished_total", state="done") == 4, "4 jobs done")
    check(value(s, "squeeze_jobs_finished_total", state="cancelled") == 1, "1 cancelled")
    check(value(s, "squeeze_queue_wait_seconds_count") >= 5, "at least 5 starts")
    promtool_check(h, d.metrics())

    # A cancel of a running job that takes its time to leave (it ignores SIGTERM, so it runs
    # until the SIGKILL after --stop-grace 10s): until its process is gone it holds its GPUs and
    # does not count as waiting.
    stubborn = d.submit({"name": "stubborn", "gpus": 2, "command": [
        "bash", "-c", "trap '' TERM; while true; do sleep 0.2; done"]})
    d.wait_state(stubborn, "running", timeout=60)
    # The start is recorded just before the run (and its run file) begins.
    runs = serve_lib.wait_until(
        lambda: [r for r in serve_lib.read_run_files(d.data_dir) if r[0].startswith(f"{stubborn}.")],
        30, f"a run file for job {stubborn}")
    stubborn_pid = runs[-1][3]
    behind = d.submit({"name": "behind", "command": ["true"], "gpus": 2})
    status, reply = d.call("POST", f"/v1/jobs/{stubborn}/cancel")
    check(status == 200, f"cancelling job {stubborn}: {status} {reply}")
    deadline = time.monotonic() + 4
    double_booked, gauge_mismatch = None, None
    while time.monotonic() < deadline and serve_lib.process_start_time(stubborn_pid):
        behind_state = d.job(behind)["state"]
        if behind_state != "pending" and serve_lib.process_start_time(stubborn_pid):
            double_booked = behind_state
        s, _ = parse_metrics(d.metrics())
        pending = len(d.jobs("state=pending"))
        gauge = sum(by_label(s, "squeeze_queue_pending_jobs", "urgency").values())
        if gauge != pending and gauge_mismatch is None:
            gauge_mismatch = (gauge, pending, value(s, "squeeze_gpus_allocated"))
        time.sleep(0.3)
    # A cancelled job's GPUs are given to another job only once its process has exited.
    check(double_booked is None,
                 f"job {behind} was started ({double_booked}) on the GPUs of cancelled job "
                 f"{stubborn} while its process (pid {stubborn_pid}) still ran")
    check(gauge_mismatch is None,
                 "while a cancelled job stops, squeeze_queue_pending_jobs (sum, then pending "
                 f"jobs in the store, GPUs allocated): {gauge_mismatch}")
    d.wait_state(stubborn, "cancelled", timeout=60)
    d.wait_state(behind, "done", timeout=60)


CASES = {"security": case_security, "durability": case_durability, "metrics": case_metrics,
         "outbox_kill": case_outbox_kill}

if __name__ == "__main__":
    sys.exit(serve_lib.main(CASES, sys.argv))
