#!/usr/bin/env python3
"""Who may ask for what (label serve, hostile): a root daemon, the test accounts, and a plain
user who asks for more than an admin allowed (issue 34, point 4). Needs root and the test
accounts (the CTest fixture test_accounts: tests/test_accounts.sh); skipped (77) without them.

    python3 tests/hostile_limits_test.py CASE SQUEEZE SOURCE_DIR WORK_DIR

Cases:
  urgency_ceiling  sqz-bob (team ml) asks for critical and high every way there is: a flag, a job
              file, a batch script's #SBATCH --qos / --priority, sbatch's -q flag, an array,
              HTTP JSON with his token, and `squeeze update` of his waiting job: each is refused
              (403) naming the ceiling and where it is set, and nothing is stored; sqz-alice,
              whose team the limits file allows critical, gets it; the admin is not capped
  array_cap        100,000 jobs from sqz-bob in one array (the socket and HTTP) are refused by the
              tasks cap with a message naming it, and not one task is stored; smaller arrays
              are refused by the waiting cap when they would pass it
  waiting_cap      limits in the cluster file: sqz-bob's held jobs one by one up to his cap of 20,
              the 21st refused; sqz-alice still submits until their team's cap of 25; a job of
              bob's cancelled frees one place
  purge            a retention of 3 s: finished jobs' details (command, environment, events) are
              purged by the daemon, `squeeze history` reads the same before and after, the
              store is smaller, and the daemon never stopped answering
"""

import os
import shutil
import sqlite3
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_lib  # noqa: E402
from serve_lib import ALICE, BOB, check, log, wait_until  # noqa: E402
from serve_users_test import squeeze_as  # noqa: E402


def accounts():
    if not serve_lib.is_root():
        raise serve_lib.SkipTest("needs root (a root daemon runs each job as its owner)")
    serve_lib.need_test_accounts()


def limits_daemon(squeeze, h, limits_yaml, args=(), bob_team="ml", alice_team="vision"):
    """A root daemon with `limits_yaml` as its --limits file (None: no limits given), and
    tokens for bob and alice (their teams, also on the socket)."""
    extra = ["--virtual-gpus", "1"] + list(args)
    if limits_yaml is not None:
        path = h.path("limits.yaml")
        with open(path, "w") as f:
            f.write(limits_yaml)
        extra += ["--limits", path]
    os.makedirs(h.path("data"), exist_ok=True)
    bob = h.add_token("data", BOB, bob_team)
    alice = h.add_token("data", ALICE, alice_team)
    d = h.start_daemon(squeeze, "data", extra, allow_root_jobs=False)
    return d, bob, alice, os.path.join(d.data_dir, "squeeze.sock")


def stored_jobs(d):
    return d.jobs()


def refused(r, words):
    """A CLI call that must have failed saying every one of `words`."""
    out = r.stdout + r.stderr
    check(r.returncode != 0, f"expected a refusal, got exit 0: {out}")
    for w in words:
        check(w in out, f"'{w}' not in the refusal: {out}")


def public_dir():
    """A folder under /tmp the test accounts can read (a job file, a batch script)."""
    d = tempfile.mkdtemp(prefix="sqz-limits-")
    os.chmod(d, 0o755)
    return d


def public_file(folder, name, text):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o644)
    return path


CEILING = "is above the ceiling 'normal' for user sqz-bob of team ml"


def case_urgency(squeeze, source, h):
    accounts()
    d, bob, alice, sock = limits_daemon(squeeze, h, "limits:\n  teams:\n    vision: {max_urgency: critical}\n")
    check("job limits: urgency up to normal (above it: team vision critical)" in d.log_text(),
          f"the daemon should say its limits at start:\n{d.log_text()}")
    files = public_dir()
    try:
        urgency_attempts(squeeze, h, d, bob, sock, files)
    finally:
        shutil.rmtree(files, ignore_errors=True)


def urgency_attempts(squeeze, h, d, bob, sock, files):
    job_file = public_file(files, "job.yaml", "name: urgent\nurgency: critical\ncommand: [true]\n")
    script = public_file(files, "urgent.sbatch", "#!/bin/bash\n#SBATCH --qos=urgent\ntrue\n")
    express = public_file(files, "express.sbatch", "#!/bin/bash\n#SBATCH --priority=express\ntrue\n")
    attempts = [
        (["submit", "--urgency", "critical", "--", "true"], "'critical'"),
        (["submit", "--urgency", "high", "--", "true"], "'high'"),
        (["submit", job_file], "'critical'"),
        (["submit", script], "'critical'"),
        (["submit", express], "'high'"),
        (["submit", "-q", "top", "--wrap", "true"], "'critical'"),
        (["submit", "--urgency", "critical", "--array", "0-9", "--", "true"], "'critical'"),
    ]
    for args, asked in attempts:
        r = squeeze_as(h, BOB, squeeze, args, sock)
        refused(r, [f"urgency: {asked} {CEILING}", "squeeze's default", "limits.max_urgency",
                    h.path("limits.yaml")])
        log(f"bob: squeeze {' '.join(args)} -> {r.stderr.strip()}")
    status, body = d.call("POST", "/v1/jobs", {"command": ["true"], "urgency": "critical"},
                          token=bob)
    check(status == 403 and CEILING in body.get("error", ""), f"HTTP: {status} {body}")
    # Durations longer than a Time of milliseconds could hold with room (over 1e12 s): refused,
    # naming the field, before any arithmetic on them could overflow in the scheduler.
    for field, value in (("estimate", "9223372036854775807"), ("time_limit", "1000000000001s"),
                         ("checkpoint_interval", 10**15)):
        status, body = d.call("POST", "/v1/jobs", {"command": ["true"], field: value}, token=bob)
        error = body.get("error", "")
        check(status == 400 and field in error and "is longer than any duration" in error,
              f"{field} {value}: {status} {body}")
    check(stored_jobs(d) == [], f"nothing of bob's may be stored: {stored_jobs(d)}")
    # Normal is his; raising it afterwards is refused, lowering it is not.
    r = squeeze_as(h, BOB, squeeze, ["submit", "--hold", "--", "sleep", "60"], sock)
    check(r.returncode == 0, f"bob's normal job: {r.stdout}{r.stderr}")
    job = int(r.stdout.split()[-1])
    refused(squeeze_as(h, BOB, squeeze, ["update", str(job), "--urgency", "critical"], sock),
            [f"job {job}: urgency: 'critical' {CEILING}"])
    check(d.job(job)["urgency"] == "normal", f"the refused update changed it: {d.job(job)}")
    r = squeeze_as(h, BOB, squeeze, ["update", str(job), "--urgency", "low"], sock)
    check(r.returncode == 0 and d.job(job)["urgency"] == "low", f"lowering: {r.stdout}{r.stderr}")
    # alice's team is allowed critical; the admin is not capped.
    r = squeeze_as(h, ALICE, squeeze, ["submit", "--urgency", "critical", "--hold", "--", "true"], sock)
    check(r.returncode == 0, f"alice (team vision) may ask for critical: {r.stdout}{r.stderr}")
    check(d.job(int(r.stdout.split()[-1]))["urgency"] == "critical", "alice's job is critical")
    status, body = d.call("POST", f"/v1/jobs/{job}/update", {"urgency": "critical"})
    check(status == 200 and d.job(job)["urgency"] == "critical", f"the admin: {status} {body}")
    # What bob may ask is his to see.
    status, nodes = d.call("GET", "/v1/nodes", token=bob)
    mine = nodes["limits"]["yours"]
    check(status == 200 and mine["max_urgency"] == "normal" and mine["team"] == "ml" and
          "teams" not in nodes["limits"], f"bob's limits in /v1/nodes: {nodes['limits']}")
    r = squeeze_as(h, BOB, squeeze, ["nodes"], sock)
    check("your limits: urgency up to normal; 1 of 10000 waiting jobs (team ml: 1 of 50000)" in
          r.stdout, f"squeeze nodes as bob: {r.stdout}{r.stderr}")
    d.call("POST", f"/v1/jobs/{job}/cancel")


def case_array_cap(squeeze, source, h):
    accounts()
    d, bob, alice, sock = limits_daemon(squeeze, h, None)  # squeeze's defaults
    check("10000 tasks per submission" in d.log_text() and "(squeeze's defaults)" in d.log_text(),
          f"the defaults at start:\n{d.log_text()}")
    started = time.monotonic()
    r = squeeze_as(h, BOB, squeeze, ["submit", "--array", "0-99999", "--", "true"], sock)
    refused(r, ["max_tasks_per_submission: the array '0-99999' has 100000 tasks, the cap is 10000",
                "for user sqz-bob of team ml", "nothing was stored"])
    log(f"refused in {time.monotonic() - started:.2f} s: {r.stderr.strip()}")
    status, body = d.call("POST", "/v1/jobs", {"command": ["true"], "array": "0-99999"}, token=bob)
    check(status == 403 and "max_tasks_per_submission" in body.get("error", ""),
          f"HTTP: {status} {body}")
    check(stored_jobs(d) == [], "not one task may be stored")
    # Within the tasks cap, an array still counts against the waiting cap (a second daemon:
    # 50 waiting per user).
    d.stop()
    d, bob, alice, sock = limits_daemon(
        squeeze, h, "limits:\n  max_waiting_jobs_per_user: 50\n  max_tasks_per_submission: 100000\n")
    r = squeeze_as(h, BOB, squeeze, ["submit", "--hold", "--array", "0-29", "--", "true"], sock)
    check(r.returncode == 0, f"30 tasks: {r.stdout}{r.stderr}")
    r = squeeze_as(h, BOB, squeeze, ["submit", "--hold", "--array", "0-99999", "--", "true"], sock)
    refused(r, ["max_waiting_jobs_per_user: sqz-bob has 30 waiting jobs, the cap is 50; this "
                "submission adds 100000"])
    check(len(stored_jobs(d)) == 30, f"only the first array: {len(stored_jobs(d))} jobs")
    d.call("POST", f"/v1/jobs/{stored_jobs(d)[0]['id']}/cancel")


CLUSTER = """pools:
  - name: local
    nodes: [{name: n0, gpus: 1}]
limits:
  max_waiting_jobs_per_user: 20
  teams:
    ml: {max_waiting_jobs_per_team: 25}
"""


def case_waiting_cap(squeeze, source, h):
    accounts()
    config = h.path("cluster.yaml")
    with open(config, "w") as f:
        f.write(CLUSTER)
    d, bob, alice, sock = limits_daemon(squeeze, h, None, ["--config", config], alice_team="ml")
    check(f"at most 20 waiting jobs per user" in d.log_text() and f"(from {config})" in d.log_text(),
          f"the cluster file's limits at start:\n{d.log_text()}")
    ids = []
    for i in range(20):
        r = squeeze_as(h, BOB, squeeze, ["submit", "--hold", "--", "sleep", "60"], sock)
        check(r.returncode == 0, f"bob's job {i + 1}: {r.stdout}{r.stderr}")
        ids.append(int(r.stdout.split()[-1]))
    r = squeeze_as(h, BOB, squeeze, ["submit", "--hold", "--", "sleep", "60"], sock)
    refused(r, ["max_waiting_jobs_per_user: sqz-bob has 20 waiting jobs, the cap is 20; this "
                f"submission adds 1 (set by an admin as limits.max_waiting_jobs_per_user in {config})"])
    status, body = d.call("POST", "/v1/jobs", {"command": ["true"], "hold": True}, token=bob)
    check(status == 403 and "max_waiting_jobs_per_user" in body["error"], f"HTTP: {status} {body}")
    # alice still submits, until her team's cap.
    for i in range(5):
        r = squeeze_as(h, ALICE, squeeze, ["submit", "--hold", "--", "true"], sock)
        check(r.returncode == 0, f"alice's job {i + 1} while bob is at his cap: {r.stdout}{r.stderr}")
    refused(squeeze_as(h, ALICE, squeeze, ["submit", "--hold", "--", "true"], sock),
            ["max_waiting_jobs_per_team: team ml has 25 waiting jobs, the cap is 25",
             f"limits.teams.ml.max_waiting_jobs_per_team in {config}"])
    check(len(stored_jobs(d)) == 25, f"25 jobs stored: {len(stored_jobs(d))}")
    # One of bob's cancelled: a place is free once the queue has counted again.
    r = squeeze_as(h, BOB, squeeze, ["cancel", str(ids[0])], sock)
    check(r.returncode == 0, f"bob cancels one: {r.stdout}{r.stderr}")
    wait_until(lambda: squeeze_as(h, BOB, squeeze, ["submit", "--hold", "--", "true"], sock)
               .returncode == 0, 15, "bob's place to be free again")
    for job in ids[1:]:
        d.call("POST", f"/v1/jobs/{job}/cancel")


def store_bytes(d):
    db = sqlite3.connect(f"file:{os.path.join(d.data_dir, 'squeeze.db')}?mode=ro", uri=True)
    try:
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        size = db.execute("PRAGMA page_size").fetchone()[0]
        return pages * size
    finally:
        db.close()


def history(h, squeeze, sock):
    r = squeeze_as(h, BOB, squeeze, ["history", "--me"], sock)
    check(r.returncode == 0, f"bob's history: {r.stdout}{r.stderr}")
    return r.stdout


def case_purge(squeeze, source, h):
    accounts()
    d, bob, alice, sock = limits_daemon(squeeze, h, "limits:\n  purge_job_details_after: 3s\n")
    check("a finished job's details purged 3s after it ended" in d.log_text(), d.log_text())
    # Two runs of bob's, and an array of 300 held tasks with 4 KB of environment each, cancelled.
    ran = []
    for n in range(2):
        r = squeeze_as(h, BOB, squeeze, ["submit", "--gpus", "0", "--env", f"SECRET=s3cr3t{n}",
                                         "--", "true"], sock)
        check(r.returncode == 0, f"bob's run: {r.stdout}{r.stderr}")
        ran.append(int(r.stdout.split()[-1]))
    status, body = d.call("POST", "/v1/jobs", {"command": ["true"], "hold": True, "array": "0-299",
                                               "env": {"PAD": "p" * 4000}}, token=bob)
    check(status == 201, f"the array: {status} {body}")
    for job in ran:
        d.wait_state(job, "done", timeout=60)
    status, body = d.call("POST", f"/v1/jobs/{body['id']}/cancel", token=bob)
    check(status == 200, f"cancelling the array: {status} {body}")
    before_history = history(h, squeeze, sock)
    before = store_bytes(d)
    status, values = d.call("GET", f"/v1/jobs/{ran[0]}/env", token=bob)
    check(status == 200 and values["env"].get("SECRET") == "s3cr3t0", "kept until the retention")
    wait_until(lambda: "store: purged the details of" in d.log_text(), 30, "the purge")
    wait_until(lambda: d.job(ran[0])["details_purged_at"] is not None, 15, "job 1's purge")
    line = [ln for ln in d.log_text().splitlines() if "store: purged the details" in ln]
    log(f"the daemon: {line}")
    after_history = history(h, squeeze, sock)
    check(after_history == before_history,
          f"history changed by the purge:\nbefore:\n{before_history}\nafter:\n{after_history}")
    check("302 jobs" in after_history, f"bob's history holds his 302 jobs: {after_history[-300:]}")
    job = d.job(ran[0], token=bob)
    status, values = d.call("GET", f"/v1/jobs/{ran[0]}/env", token=bob)
    check(status == 200 and values["env"] == {} and values["details_purged_at"], f"{values}")
    check(job["state"] == "done" and job["command"] == [] and job["env_count"] == 0 and
          job["exit_code"] == 0 and job["run_s"] >= 0, f"a purged job: {job}")
    kinds = [e["kind"] for e in job["history"]]
    check(kinds[0] == "submit" and "start" in kinds and kinds[-1] == "purge" and
          "state" not in kinds, f"its events: {kinds}")
    wait_until(lambda: store_bytes(d) < before * 0.6, 30,
               f"the store to shrink from {before} bytes")
    log(f"store: {before} bytes before the purge, {store_bytes(d)} after")
    status, _ = d.call("GET", "/v1/jobs?limit=1", token=bob)
    check(status == 200, "the daemon answers")


if __name__ == "__main__":
    sys.exit(serve_lib.main({"urgency_ceiling": case_urgency, "array_cap": case_array_cap,
                             "waiting_cap": case_waiting_cap, "purge": case_purge}, sys.argv))
