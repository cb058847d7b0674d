"""End-to-end test of elastic jobs in the live queue (issue 37), on a local pool of one node of 8
virtual GPUs, with real processes (examples/jobs/train-like.sh, which checkpoints when asked):

- an elastic job of 2-8 GPUs (low urgency, checkpointable) starts on all 8;
- a 4-GPU job of normal urgency arrives: the elastic job is shrunk to 4 at a checkpoint (its
  history says so, and the API its width), and the 4-GPU job starts at once, not after it;
- the 4-GPU job ends: the elastic job grows back to 8 into the idle GPUs;
- the elastic job ends done with all its steps, each run having had the GPUs the scheduler gave
  it (CUDA_VISIBLE_DEVICES, SQUEEZE_GPUS_PER_NODE), its checkpoints resumed from.

Usage: python3 serve_elastic_test.py CASE SQUEEZE SOURCE_DIR WORK_DIR
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_lib  # noqa: E402
from serve_lib import check, log  # noqa: E402

STEPS = 240
STEP_SECONDS = 0.25


def widths(d, job_id, log_of):
    """The width of each run of the job so far, from what each run saw (its log)."""
    out = []
    attempt = 1
    while True:
        text = log_of(job_id, attempt)
        m = re.search(r"^gpus ([0-9,]*) per node (\d+)$", text, re.M)
        if not m:
            return out
        out.append((len(m.group(1).split(",")), int(m.group(2))))
        attempt += 1


def case_local_shrink_grow(squeeze, source, h):
    d = h.start_daemon(squeeze, "data", [
        "--virtual-gpus", "8", "--set", "min_runtime=0s",
        "--checkpoint-grace", "30s", "--stop-grace", "5s"])
    script = os.path.join(source, "examples", "jobs", "train-like.sh")
    # The script, after it says which GPUs it was given.
    wrapper = ["bash", "-c", 'echo "gpus $CUDA_VISIBLE_DEVICES per node $SQUEEZE_GPUS_PER_NODE"; '
               'exec bash "$0"', script]

    def log_of(job_id, attempt):
        try:
            with open(os.path.join(d.data_dir, "logs", f"{job_id}.{attempt}.log")) as f:
                return f.read()
        except OSError:
            return ""

    elastic = d.submit({
        "name": "elastic", "urgency": "low", "gpus": "2-8", "checkpointable": True,
        "preemptible": True, "estimate": "2h", "command": wrapper,
        "env": {"STEPS": str(STEPS), "STEP_SECONDS": str(STEP_SECONDS),
                "CHECKPOINT_EVERY": "1000", "STOP_AFTER_CHECKPOINT": "1"}})
    j = d.wait_job(elastic, lambda j: j["state"] == "running", 60, "to start")
    check(j["gpus_range"] == "2-8" and len(j["run_gpus"]) == 8,
          f"job {elastic} should run on all 8 GPUs: {j['gpus_range']}, {j['run_gpus']}")
    serve_lib.wait_until(lambda: "step 8/" in log_of(elastic, 1), 60, "some steps on 8 GPUs")

    four = d.submit({"name": "four", "gpus": 4, "estimate": "10s",
                     "command": ["sleep", "6"]})
    j = d.wait_job(elastic, lambda j: j["attempts"] == 2 and j["state"] == "running", 60,
                   "to restart on 4 GPUs")
    check(len(j["run_gpus"]) == 4, f"job {elastic}'s second run holds {j['run_gpus']}")
    shrunk = [e for e in j["history"] if "shrunk from 8 to 4 GPUs for job " + str(four) in e["text"]]
    check(shrunk, f"job {elastic}'s history says nothing of its shrink: {j['history']}")
    f = d.wait_job(four, lambda j: j["state"] in ("running", "done"), 30, "to start")
    log(f"job {four} started {f['started_at']}; job {elastic}'s second run "
        f"{j['started_at']}; its history: " + "; ".join(e["text"] for e in j["history"][-4:]))
    check(f["wait_s"] <= 20, f"job {four} waited {f['wait_s']} s: the shrink should let it start "
                             "at once")
    check(j["preemptions"] == 0, f"a shrink is not a preemption: {j['preemptions']}")
    status, why = d.call("GET", f"/v1/jobs/{elastic}/why")
    text = " / ".join(why.get("explanation", [])) if status == 200 else str(why)
    check(f"elastic: runs on 4 of its 2-8 GPUs; resized 1 times, last: shrunk from 8 to 4 GPUs "
          f"for job {four}" in text, f"why of job {elastic}: {text}")

    d.wait_state(four, "done", timeout=60)
    j = d.wait_job(elastic, lambda j: j["attempts"] == 3 or j["state"] == "done", 90,
                   "to grow back (a third run)")
    check(j["attempts"] == 3, f"job {elastic} did not grow back once job {four} ended: {j}")
    grown = [e for e in j["history"] if "grown from 4 to 8 GPUs" in e["text"]]
    check(grown, f"job {elastic}'s history says nothing of its growing: {j['history']}")

    j = d.wait_state(elastic, ["done", "failed"], timeout=120)
    check(j["state"] == "done" and j["exit_code"] == 0,
          f"job {elastic} ended {j['state']}: {j['reason']}")
    seen = widths(d, elastic, log_of)
    log(f"job {elastic}: runs on {seen} GPUs")
    check(seen == [(8, 8), (4, 4), (8, 8)], f"job {elastic}'s runs saw {seen} GPUs, expected "
                                             "8, then 4, then 8")
    last = log_of(elastic, 3)
    check(re.search(r"^resuming from step [1-9]", log_of(elastic, 2), re.M)
          and re.search(r"^resuming from step [1-9]", last, re.M),
          f"job {elastic}'s later runs did not resume:\n{log_of(elastic, 2)[:300]}\n{last[:300]}")
    check(f"step {STEPS}/{STEPS}" in last and re.search(r"^done$", last, re.M),
          f"job {elastic} did not do all its steps:\n{last[-400:]}")
    m = re.search(r"^squeeze_resizes_total (\d+)", d.metrics(), re.M)
    check(m and int(m.group(1)) == 2, f"squeeze_resizes_total should be 2: {m and m.group(0)}")
    # Its GPU-hours at each width: the API's split sums to its total, and the CLI shows it.
    split = j.get("gpu_hours_by_width") or {}
    check(sorted(split) == ["4", "8"] and abs(sum(split.values()) - j["gpu_hours"]) < 0.002,
          f"job {elastic}'s GPU-hours by width {split} against {j['gpu_hours']}")
    env = dict(os.environ, SQUEEZE_URL=d.url, SQUEEZE_TOKEN=d.admin_token)
    shown = h.run([squeeze, "history", "-j", str(elastic)], timeout=60, env=env).stdout
    check(re.search(r"^elastic jobs' GPU-hours by width: 8 GPUs [0-9.]+, 4 GPUs [0-9.]+$", shown,
                    re.M), f"squeeze history of job {elastic}:\n{shown}")


def case_hostile_values(squeeze, source, h):
    """A user's elastic values are refused with the field and the value named (400), nothing
    of them stored; a job's own marker that claims an absurd or broken rate teaches nothing
    and harms nothing: the daemon goes on and the job ends done."""
    d = h.start_daemon(squeeze, "data", ["--virtual-gpus", "4", "--set", "min_runtime=0s"])
    base = {"command": ["true"], "checkpointable": True}
    for extra, field in (({"gpus": "2-99999"}, "gpus"), ({"gpus": "8-2"}, "gpus"),
                         ({"gpus": "-4"}, "gpus"), ({"gpus": "2-x"}, "gpus"),
                         ({"gpus": "2-4", "step": 0}, "step"),
                         ({"gpus": "2-4", "scaling": "9" * 20000}, "scaling"),
                         ({"gpus": "2-4", "scaling": "1:1,1:2"}, "scaling"),
                         ({"gpus": "2-4", "scaling": "amdahl:nan"}, "scaling"),
                         ({"step": 2}, "step"), ({"gpus": "1-4", "gpu_milli": 500}, "gpus"),
                         ({"gpus": "5-8"}, "GPUs")):
        status, body = d.call("POST", "/v1/jobs", dict(base, **extra))
        check(status == 400 and field in body.get("error", ""),
              f"{extra}: expected 400 naming {field}, got {status} {str(body)[:300]}")
    check(d.jobs() == [], f"a refused job was stored: {d.jobs()}")
    marker = ('for r in \'{"samples_per_s": 1e308}\' \'{"samples_per_s": "x"\' '
              '\'{"steps_per_s": -5}\'; do echo "$r" > "$SQUEEZE_CHECKPOINT_DIR/COMPLETE"; '
              'sleep 1.5; done')
    job = d.submit({"name": "liar", "gpus": "1-4", "checkpointable": True,
                    "command": ["bash", "-c", marker]})
    j = d.wait_state(job, ["done", "failed"], timeout=60)
    check(j["state"] == "done", f"job {job}: {j['state']} {j['reason']}")
    check(d.call("GET", "/healthz")[0] == 200, "the daemon stopped answering")


CASES = {"local_shrink_grow": case_local_shrink_grow, "hostile_values": case_hostile_values}

if __name__ == "__main__":
    sys.exit(serve_lib.main(CASES, sys.argv))
