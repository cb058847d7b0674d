"""End-to-end test of the live queue's job lifecycle (issue 4, point 1), through the `squeeze`
client commands against a real `squeeze serve` on virtual GPUs, with real processes
(examples/jobs/train-like.sh):

- low-urgency checkpointable runs on both GPUs; an urgent job preempts one of them, which
  checkpoints, waits and resumes from its checkpoint (its second run's log says so and it
  still does every step once to the end);
- a job's slice ends while another waits (reason "slice ended", squeeze_slice_ends_total);
- a job that fails once is retried after the back-off and succeeds; one that always fails is
  retried up to its limit and ends failed with its exit code and the reason;
- a running job and a waiting job are cancelled;
- `squeeze why` on a waiting job says what it needs and when it is expected to start;
- every job ends in the right state with the right exit status.

Usage: python3 serve_lifecycle_test.py lifecycle SQUEEZE SOURCE_DIR WORK_DIR
"""

import json
import os
import pwd
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_lib  # noqa: E402
from serve_lib import check, log  # noqa: E402


def case_lifecycle(squeeze, source, h):
    d = h.start_daemon(squeeze, "data", [
        "--virtual-gpus", "2:A100", "--set", "slice=6s", "--set", "min_runtime=0s",
        # Jobs of one class do not preempt each other by their order: only urgency preempts,
        # and within a class a running job yields at the end of its slice.
        "--set", "preempt_by_order=false",
        "--retry-backoff", "1s", "--checkpoint-grace", "10s", "--stop-grace", "3s"])
    env = dict(os.environ, SQUEEZE_URL=d.url, SQUEEZE_TOKEN=d.admin_token)
    train = os.path.join(source, "examples", "jobs", "train-like.sh")

    def cli(*args, ok=True):
        r = h.run([squeeze, *args], timeout=60, env=env, cwd=source)
        if ok:
            check(r.returncode == 0, f"squeeze {' '.join(args)}: exit {r.returncode}\n"
                                     f"stdout: {r.stdout}\nstderr: {r.stderr}")
        return r

    def submit(*args):
        out = cli("submit", "--json", *args).stdout
        return json.loads(out)["id"]

    def trainer(name, urgency, steps, *extra, gpus=1, estimate="10s"):
        return submit("--name", name, "--urgency", urgency, "--gpus", str(gpus),
                      "--preemptible", "--checkpointable", "--estimate", estimate,
                      "--env", f"STEPS={steps}", "--env", "STEP_SECONDS=0.1",
                      "--env", "CHECKPOINT_EVERY=1000", *extra, "--", "bash", train)

    # Two long low-urgency runs take both GPUs.
    low_a = trainer("low-a", "low", 70)
    low_b = trainer("low-b", "low", 70)
    for j in (low_a, low_b):
        d.wait_state(j, "running", timeout=30)
    time.sleep(1.5)  # some steps of work to save

    # A waiting job: why says what it needs and when it should start.
    wide = trainer("wide", "low", 20, gpus=2, estimate="3s")
    why = json.loads(cli("why", "--json", str(wide)).stdout)
    text = " ".join(why["explanation"])
    check("needs 2 GPUs" in text and "free now: 0 of the 2" in text,
          f"why {wide}: {why['explanation']}")
    check(isinstance(why["expected_start_in_s"], int) and why["expected_start_in_s"] > 0,
          f"why {wide}: expected a start estimate, got {why}")
    human = cli("why", str(wide)).stdout
    check("expected to start in about" in human, f"squeeze why {wide}: {human}")

    # The urgent job preempts one of the low runs at once.
    urgent = submit("--name", "urgent", "--urgency", "critical", "--estimate", "3s",
                    "--env", "STEPS=20", "--env", "STEP_SECONDS=0.1", "--", "bash", train)
    d.wait_state(urgent, ["running", "done"], timeout=30)

    flaky = submit("--name", "flaky", "--urgency", "low", "--max-retries", "2",
                   "--env", "STEPS=15", "--env", "STEP_SECONDS=0.1", "--env", "FAIL_AT_STEP=5",
                   "--env", "FAIL_ON_ATTEMPT=1", "--", "bash", train)
    broken = submit("--name", "broken", "--urgency", "low", "--max-retries", "1",
                    "--", "bash", "-c", "echo attempt $SQUEEZE_ATTEMPT; exit 3")
    doomed = submit("--name", "doomed", "--urgency", "critical", "--", "sleep", "300")
    waiting = submit("--name", "never-runs", "--urgency", "low", "--gpus", "2",
                     "--", "sleep", "300")
    cli("cancel", str(waiting))
    # A failed command exits by its error's kind (docs/api.md, Errors): 5 a conflict, 3 not
    # found, 7 no daemon to ask.
    again = cli("cancel", str(waiting), ok=False)
    check(again.returncode == 5 and "already ended" in again.stderr,
          f"cancel of an ended job: exit {again.returncode} {again.stderr}")
    missing = cli("cancel", "999999", ok=False)
    check(missing.returncode == 3 and "999999" in missing.stderr,
          f"cancel of no job: exit {missing.returncode} {missing.stderr}")
    nobody = h.run([squeeze, "queue", "--url", "http://127.0.0.1:1"], timeout=60, env=env)
    check(nobody.returncode == 7 and "cannot reach squeeze" in nobody.stderr,
          f"queue with no daemon: exit {nobody.returncode} {nobody.stderr}")
    d.wait_state(doomed, "running", timeout=60)
    cancelled = json.loads(cli("cancel", "--json", str(doomed)).stdout)
    check(cancelled["state"] in ("cancelling", "cancelled"), f"cancel {doomed}: {cancelled}")

    # Watch the queue until everything has ended, noting every reason seen on the way.
    reasons = {}
    all_ids = [low_a, low_b, wide, urgent, flaky, broken, doomed, waiting]
    deadline = time.monotonic() + 150
    while True:
        jobs = {j["id"]: j for j in d.jobs()}
        for i in all_ids:
            if jobs[i]["reason"]:
                reasons.setdefault(i, set()).add(jobs[i]["reason"])
        if all(jobs[i]["state"] in ("done", "failed", "cancelled") for i in all_ids):
            break
        check(time.monotonic() < deadline,
              "jobs still not ended after 150 s: " +
              ", ".join(f"{i}:{jobs[i]['state']}" for i in all_ids))
        time.sleep(0.3)
    log("reasons seen: " + json.dumps({k: sorted(v) for k, v in reasons.items()}))
    queue = cli("queue", "--all").stdout
    log("final queue:\n" + queue)

    def expect(job_id, state, exit_code, **fields):
        j = d.job(job_id)
        check(j["state"] == state and j["exit_code"] == exit_code,
              f"job {job_id} ({j['name']}): expected {state} with exit {exit_code}, got "
              f"{j['state']} with exit {j['exit_code']} ({j['reason']})")
        for k, v in fields.items():
            check(j[k] == v, f"job {job_id} ({j['name']}): expected {k} = {v}, got {j[k]}")
        return j

    def log_of(job_id, attempt):
        with open(os.path.join(d.data_dir, "logs", f"{job_id}.{attempt}.log")) as f:
            return f.read()

    expect(urgent, "done", 0, attempts=1, preemptions=0)
    expect(wide, "done", 0)
    # Preemption with a checkpoint and a resume: one low run was stopped for the urgent job.
    preempted = []
    for j in (low_a, low_b):
        job = expect(j, "done", 0)
        if job["preemptions"] > 0:
            preempted.append(j)
    check(preempted, f"neither {low_a} nor {low_b} was preempted by {urgent}: {reasons}")
    for j in preempted:
        job = d.job(j)
        check(any(f"preempted for {urgent}" in r or "preempted for" in r
                  for r in reasons.get(j, ())), f"job {j}'s reasons: {reasons.get(j)}")
        check(job["last_checkpoint"] is not None and job["attempts"] >= 2,
              f"job {j}: expected a checkpoint and a second run: {job}")
        second = log_of(j, 2)
        m = re.search(r"resuming from step (\d+)", second)
        check(m and int(m.group(1)) > 0,
              f"job {j}'s second run did not resume from its checkpoint:\n{second[:400]}")
        last = log_of(j, job["attempts"])
        check("step 70/70" in last and "done" in last, f"job {j} did not finish: {last[-300:]}")
    # A slice end: two low runs on the two GPUs, a third waits; at the end of a slice (6 s) one
    # of them yields to it, checkpoints, waits, and resumes later.
    s1 = trainer("slice-1", "low", 80)
    s2 = trainer("slice-2", "low", 80)
    for j in (s1, s2):
        d.wait_state(j, "running", timeout=30)
    s3 = trainer("slice-3", "low", 20, estimate="2s")
    yielded = serve_lib.wait_until(
        lambda: next((j for j in (s1, s2) if "slice ended; yields to " + str(s3) in
                      d.job(j)["reason"]), None), 30, f"a slice end yielding to {s3}")
    log(f"job {yielded} yielded to {s3} at its slice end: {d.job(yielded)['reason']}")
    for j in (s1, s2, s3):
        d.wait_state(j, "done", timeout=90)
    expect(yielded, "done", 0, preemptions=0)
    check(d.job(yielded)["attempts"] >= 2, f"job {yielded} did not run again after its slice")
    check(re.search(r"resuming from step [1-9]", log_of(yielded, 2)),
          f"job {yielded} did not resume from its checkpoint after its slice")
    metrics = d.metrics()
    m = re.search(r"^squeeze_slice_ends_total (\d+)", metrics, re.M)
    check(m and int(m.group(1)) >= 1, f"no slice end counted:\n{metrics}")
    # Retries.
    expect(flaky, "done", 0, attempts=2, failures=1)
    check("failing at step 5" in log_of(flaky, 1), f"flaky's first run: {log_of(flaky, 1)}")
    # Its reason during the back-off (seen if the polling caught that second), else the
    # history's record of the failed run.
    history = [e["text"] for e in d.job(flaky).get("history", [])]
    check(any("retry 1 of 2" in r for r in reasons.get(flaky, ())) or
          any("retry 1 of 2" in t for t in history),
          f"flaky's retry was not shown in its reason or history: {reasons.get(flaky)}, "
          f"{history}")
    j = expect(broken, "failed", 3, attempts=2, failures=2)
    check("exit 3" in j["reason"] and "no retry left" in j["reason"], f"broken: {j['reason']}")
    check("attempt 2" in log_of(broken, 2), "broken's retry did not run")
    # Cancels: the running one was stopped by SIGTERM (143), the waiting one never ran.
    expect(doomed, "cancelled", 143, attempts=1)
    expect(waiting, "cancelled", None, attempts=0)
    admin = pwd.getpwuid(os.geteuid()).pw_name  # the admin token's user: the daemon's account
    check(f"cancelled by {admin}" in d.job(waiting)["reason"], d.job(waiting)["reason"])
    # Nothing of theirs runs any more.
    check(not serve_lib.job_processes(d.data_dir),
          f"job processes left: {serve_lib.job_processes(d.data_dir)}")
    # The queue as squeue shows it: every job with its final state.
    for i in all_ids:
        check(re.search(rf"^{i}\s", queue, re.M), f"job {i} missing from `squeeze queue --all`")


CASES = {"lifecycle": case_lifecycle}

if __name__ == "__main__":
    sys.exit(serve_lib.main(CASES, sys.argv))
