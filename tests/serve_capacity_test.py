#!/usr/bin/env python3
"""End-to-end tests of `squeeze serve` on capacity that can be taken away: the real daemon, its
supervisors and real job processes (examples/jobs/train-like.sh), driven over HTTP and the CLI.

    python3 tests/serve_capacity_test.py CASE SQUEEZE_BINARY SOURCE_DIR WORK_DIR

CASE: reclaim (a spot node's reclaim notice and return), colocation (inference telemetry on a
GPU shared with training). Registered in CTest as e2e.serve_capacity.CASE.
"""

import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_lib  # noqa: E402
from serve_lib import check, expect_error, log, wait_until  # noqa: E402

FOREVER = ["sleep", "600"]  # a job that runs until it is stopped (the teardown kills it)



def node_shows(d, name, jobs):
    """Waits (up to 10 s) for GET /v1/nodes to show `jobs` on node `name`: it answers from the
    view the last step published, and a step records a start in the store (GET /v1/jobs)
    before it ends. The check that follows reports what it shows if it never does."""
    try:
        wait_until(lambda: sorted(node(d, name)["jobs"]) == sorted(jobs), 10,
                   f"jobs {jobs} on {name} in /v1/nodes")
    except serve_lib.TestFailure:
        pass


def node(d, name):
    status, body = d.call("GET", "/v1/nodes")
    check(status == 200, f"GET /v1/nodes: {status} {body}")
    for n in body["nodes"]:
        if n["name"] == name:
            return n
    raise serve_lib.TestFailure(f"no node {name} in {body}")


def history_text(d, job_id):
    return "\n".join(f"{e['kind']}: {e['text']}" for e in d.job(job_id)["history"])


def log_of(d, job_id, attempt):
    status, body = d.call("GET", f"/v1/jobs/{job_id}/log?attempt={attempt}")
    check(status == 200, f"log of job {job_id} attempt {attempt}: {status} {body}")
    return body["text"]


def trainer(source, name, steps, env_probe=False, **fields):
    """A checkpointable, preemptible train-like job (1 GPU, 0.1 s a step)."""
    train = os.path.join(source, "examples", "jobs", "train-like.sh")
    command = ["bash", train]
    if env_probe:  # print what squeeze put in its environment first
        command = ["bash", "-c", "env | grep -E '^(CUDA_MPS_|SQUEEZE_GPU_SHARE|"
                   "SQUEEZE_CHECKPOINT_INTERVAL)' | sort; exec bash " + train]
    job = {"name": name, "command": command, "workdir": source, "gpus": 1,
           "preemptible": True, "checkpointable": True, "estimate": "15s",
           "env": {"STEPS": str(steps), "STEP_SECONDS": "0.1", "CHECKPOINT_EVERY": "1000"}}
    job.update(fields)
    return job


# ------------------------------------------------------------------------------------------
# reclaim
# ------------------------------------------------------------------------------------------

def case_reclaim(squeeze, source, h):
    config = os.path.join(source, "tests", "data", "serve", "spot.yaml")
    d = h.start_daemon(squeeze, "data", ["--config", config, "--virtual-gpus", "4:A100",
                                         "--checkpoint-grace", "30s", "--stop-grace", "3s"])
    env = dict(os.environ, SQUEEZE_URL=d.url, SQUEEZE_TOKEN=d.admin_token)
    alice = h.add_token("data", serve_lib.ALICE, "ml")
    wait_until(lambda: d.call("GET", "/v1/nodes", token=alice)[0] == 200, 15,
               "the daemon to accept alice's token")

    def cli(*args, ok=True):
        r = h.run([squeeze, *args], timeout=60, env=env, cwd=source)
        if ok:
            check(r.returncode == 0, f"squeeze {' '.join(args)}: exit {r.returncode}\n"
                                     f"stdout: {r.stdout}\nstderr: {r.stderr}")
        return r

    # The owned pool is full with a long job that may not be stopped.
    long_job = d.submit({"name": "long", "command": FOREVER, "gpus": 2, "pool": "owned",
                         "estimate": "1h"})
    d.wait_state(long_job, "running", timeout=30)

    # A job that ignores the checkpoint request and SIGTERM, and a trainer; both fault
    # tolerant (`squeeze submit --fault-tolerant` for the trainer), so both go to the spot node.
    stubborn = d.submit({"name": "stubborn", "gpus": 1, "preemptible": True,
                         "checkpointable": True, "fault_tolerant": True, "estimate": "15s",
                         "command": ["bash", "-c",
                                     "trap '' USR1 TERM; while true; do sleep 0.2; done"]})
    train = os.path.join(source, "examples", "jobs", "train-like.sh")
    out = cli("submit", "--json", "--name", "spot-trainer", "--preemptible", "--checkpointable",
              "--fault-tolerant", "--estimate", "15s", "--env", "STEPS=120",
              "--env", "STEP_SECONDS=0.1", "--env", "CHECKPOINT_EVERY=1000", "--", "bash",
              train).stdout
    job = json.loads(out)["id"]
    for j in (stubborn, job):
        d.wait_state(j, "running", timeout=30)
    check(d.job(job)["fault_tolerant"] is True, f"job {job}: fault_tolerant: {d.job(job)}")
    node_shows(d, "spot-0", [stubborn, job])
    spot = node(d, "spot-0")
    check(sorted(spot["jobs"]) == sorted([stubborn, job]),
          f"jobs {stubborn} and {job} should run on spot-0: {spot}")
    hist = history_text(d, job)
    check("spot pool spot" in hist, f"job {job}'s history should say it went to spot:\n{hist}")
    time.sleep(2)  # some steps to save

    # Who may send a reclaim notice, and what a broken one gets.
    expect_error(d, "POST", "/v1/nodes/spot-0/reclaim", 403, ["admin"], body={}, token=alice)
    expect_error(d, "POST", "/v1/nodes/spot-0/return", 403, ["admin"], token=alice)
    expect_error(d, "POST", "/v1/nodes/nowhere/reclaim", 404, ["nowhere"], body={})
    expect_error(d, "POST", "/v1/nodes/spot-0/reclaim", 400, ["warning_s", "-5"],
                 body={"warning_s": -5})
    expect_error(d, "POST", "/v1/nodes/spot-0/reclaim", 400, ["not json"], raw="{warning")
    expect_error(d, "POST", "/v1/nodes/own-0/reclaim", 400, ["own-0", "spot"], body={})
    expect_error(d, "POST", "/v1/nodes/spot-0/return", 409, ["not reclaimed"])
    check(node(d, "spot-0")["available"], "spot-0 should still be available")

    # The notice: 5 s.
    t0 = time.monotonic()
    status, reply = d.call("POST", "/v1/nodes/spot-0/reclaim", body={"warning_s": 5})
    check(status == 200 and sorted(reply["jobs"]) == sorted([stubborn, job]),
          f"reclaim: {status} {reply}")
    r = cli("reclaim", "spot-0", "--warning", "5s", ok=False)
    check(r.returncode == 5 and "already reclaimed" in r.stderr,  # a conflict: exit 5
          f"a second reclaim should say it is already reclaimed: {r.returncode} {r.stderr}")
    d.wait_job(job, lambda j: j["state"] == "pending" and j["attempts"] == 1, 12,
               "to checkpoint and leave the reclaimed node")
    left = time.monotonic() - t0
    log(f"the trainer left {left:.1f}s after the notice")
    check(left <= 5 + 2, f"job {job} left {left:.1f}s after a 5 s notice")
    d.wait_job(stubborn, lambda j: j["state"] == "pending" and j["attempts"] == 1, 15,
               "to be killed when the node is taken")
    gone = time.monotonic() - t0
    log(f"the stubborn job was gone {gone:.1f}s after the notice")
    check(3.5 <= gone <= 5 + 4, f"job {stubborn} (ignores SIGUSR1 and SIGTERM) was gone "
                              f"{gone:.1f}s after a 5 s notice; expected killed at 5 s")
    hist = history_text(d, job)
    check("spot reclaim: node spot-0 is taken back in 5s" in hist,
          f"job {job}'s history should give the reclaim:\n{hist}")
    trained = d.job(job)
    check(trained["last_checkpoint"] is not None, f"job {job} should have checkpointed: {trained}")
    check("no checkpoint before it had to leave" in history_text(d, stubborn),
          f"job {stubborn}'s history:\n{history_text(d, stubborn)}")

    spot = node(d, "spot-0")
    check(spot["available"] is False and "reclaimed" in spot.get("unavailable", "")
          and "reclaimed" in spot, f"spot-0 should show as reclaimed: {spot}")
    human = cli("nodes").stdout
    check("spot-0 takes no new jobs: reclaimed" in human, f"squeeze nodes:\n{human}")
    metrics = d.metrics()
    check("squeeze_spot_reclaims_total 1" in metrics,
          "GET /metrics should count the reclaim: " +
          "\n".join(l for l in metrics.splitlines() if "reclaim" in l))
    time.sleep(2)
    check(d.job(job)["state"] == "pending", f"job {job} should wait while spot-0 is away")

    # A restart of the daemon keeps the node reclaimed and its history.
    check(d.stop() == 0, "the daemon stops")
    d.start()
    env["SQUEEZE_URL"] = d.url
    spot = node(d, "spot-0")
    check(spot["available"] is False and "reclaimed" in spot,
          f"spot-0 should still be reclaimed after a restart: {spot}")
    check("spot-0 is still reclaimed" in d.log_text(), "the daemon says so at start")
    reclaims = [p for p in d.call("GET", "/v1/pools")[1]["pools"] if p["name"] == "spot"][0]
    reclaims = reclaims["spot"]["reclaims"]
    check(len(reclaims) == 1 and reclaims[0]["node"] == "spot-0" and
          reclaims[0]["returned_at"] is None, f"the reclaim history after a restart: {reclaims}")

    # The stubborn job is cancelled; the node comes back; the trainer resumes there.
    check(d.call("POST", f"/v1/jobs/{stubborn}/cancel")[0] == 200, "cancel the stubborn job")
    out = cli("node-return", "spot-0").stdout
    check("takes jobs again" in out, f"squeeze node-return: {out}")
    check(node(d, "spot-0")["available"], "spot-0 should be available after its return")
    reclaims = [p for p in d.call("GET", "/v1/pools")[1]["pools"] if p["name"] == "spot"][0]
    check(reclaims["spot"]["reclaims"][0]["returned_at"] is not None,
          f"the return in the reclaim history: {reclaims}")
    done = d.wait_state(job, ["done", "failed"], timeout=60)
    check(done["state"] == "done", f"job {job}: {done}")
    second = log_of(d, job, 2)
    m = re.search(r"resuming from step (\d+)", second)
    check(m and int(m.group(1)) > 0, f"job {job}'s second run did not resume:\n{second[:400]}")
    check("step 120/120" in second, f"job {job} did not finish: {second[-300:]}")
    log(f"job {job} resumed from step {m.group(1)} and ended done")


# ------------------------------------------------------------------------------------------
# colocation
# ------------------------------------------------------------------------------------------

def case_colocation(squeeze, source, h):
    config = os.path.join(source, "tests", "data", "serve", "colocated.yaml")
    d = h.start_daemon(squeeze, "data", ["--config", config, "--virtual-gpus", "2:L40S",
                                         "--checkpoint-grace", "30s", "--stop-grace", "3s"])
    alice = h.add_token("data", serve_lib.ALICE, "ml")
    wait_until(lambda: d.call("GET", "/v1/nodes", token=alice)[0] == 200, 15,
               "the daemon to accept alice's token")
    inf = node(d, "inf-0")
    check(inf["gpu_detail"][0]["inference_load"] is None and
          inf["gpu_detail"][0]["takes_training"] is False,
          f"a colocated GPU should be closed until its first report: {inf}")

    # Broken reports change nothing, even when some entries are good.
    good = {"node": "inf-0", "gpu": 0, "inference_load": 0.1}
    expect_error(d, "POST", "/v1/telemetry", 403, ["admin"], body={"gpus": [good]}, token=alice)
    for entries, words in (
            ([good, {"node": "own-0", "gpu": 0, "inference_load": 0.1}],
             ["gpus[1].node", "own-0", "colocated"]),
            ([good, {"node": "nowhere", "gpu": 0, "inference_load": 0.1}],
             ["gpus[1].node", "nowhere"]),
            ([good, {"node": "inf-0", "gpu": 5, "inference_load": 0.1}],
             ["gpus[1].gpu", "no GPU 5"]),
            ([good, {"node": "inf-0", "gpu": 0, "inference_load": 1.5}],
             ["gpus[1].inference_load", "1.5"]),
            ([{"node": "inf-0", "gpu": 0, "inference_load": -0.2}],
             ["gpus[0].inference_load", "-0.2"])):
        expect_error(d, "POST", "/v1/telemetry", 400, words, body={"gpus": entries})
    expect_error(d, "POST", "/v1/telemetry", 400, ["gpus"], body={"gpu": [good]})
    expect_error(d, "POST", "/v1/telemetry", 400, ["not json"], raw="[{")
    inf = node(d, "inf-0")
    check(inf["gpu_detail"][0]["inference_load"] is None,
          f"broken reports should change nothing: {inf}")

    # The owned GPU is taken; a job that cannot checkpoint and a trainer wait.
    long_job = d.submit({"name": "long", "command": FOREVER, "pool": "owned", "estimate": "1h"})
    d.wait_state(long_job, "running", timeout=30)
    plain = d.submit({"name": "plain", "command": FOREVER, "preemptible": True,
                      "estimate": "15s"})
    job = d.submit(trainer(source, "shared", 80, env_probe=True))
    time.sleep(2)
    check(d.job(job)["state"] == "pending", f"job {job} should wait: the GPU is closed")

    # Inference uses 10%: the GPU opens to the trainer, never to the job that cannot checkpoint.
    status, reply = d.call("POST", "/v1/telemetry", body={"gpus": [good]})
    check(status == 200, f"telemetry: {status} {reply}")
    d.wait_state(job, "running", timeout=30)
    node_shows(d, "inf-0", [job])
    inf = node(d, "inf-0")
    check(inf["gpu_detail"][0]["inference_load"] == 0.1 and
          inf["gpu_detail"][0]["takes_training"] is True and inf["jobs"] == [job],
          f"inf-0 should run job {job} at inference load 0.1: {inf}")
    wait_until(lambda: "step 5/" in log_of(d, job, 1), 20, f"job {job} to make progress")
    text = log_of(d, job, 1)
    for line in ("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50", "SQUEEZE_GPU_SHARE=0.5",
                 "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=24576M"):
        check(line in text, f"job {job}'s environment should hold {line}:\n{text[:600]}")
    check(d.job(plain)["state"] == "pending", f"job {plain} cannot checkpoint: it must wait")
    time.sleep(1)

    # Inference needs 90%: the trainer checkpoints and leaves within 5 s.
    t0 = time.monotonic()
    status, reply = d.call("POST", "/v1/telemetry",
                           body={"gpus": [{"node": "inf-0", "gpu": 0, "inference_load": 0.9}]})
    check(status == 200, f"telemetry: {status} {reply}")
    d.wait_job(job, lambda j: j["state"] == "pending" and j["attempts"] == 1, 12,
               "to leave the GPU inference needs")
    left = time.monotonic() - t0
    log(f"the trainer left {left:.1f}s after inference needed the GPU")
    check(left <= 5 + 2, f"job {job} left {left:.1f}s after the load rose (evict_within 5s)")
    hist = history_text(d, job)
    check("inference needs GPU 0 of node inf-0" in hist, f"job {job}'s history:\n{hist}")
    metrics = d.metrics()
    check("squeeze_inference_evictions_total 1" in metrics,
          "GET /metrics should count the eviction: " +
          "\n".join(l for l in metrics.splitlines() if "eviction" in l))
    inf = node(d, "inf-0")
    check(inf["gpu_detail"][0]["inference_load"] == 0.9 and
          inf["gpu_detail"][0]["takes_training"] is False and inf["jobs"] == [],
          f"inf-0 should be closed to training: {inf}")

    # Inference falls back: the trainer resumes from its checkpoint and ends.
    status, reply = d.call("POST", "/v1/telemetry",
                           body={"gpus": [{"node": "inf-0", "gpu": 0, "inference_load": 0.2}]})
    check(status == 200, f"telemetry: {status} {reply}")
    done = d.wait_state(job, ["done", "failed"], timeout=60)
    check(done["state"] == "done", f"job {job}: {done}")
    second = log_of(d, job, 2)
    m = re.search(r"resuming from step (\d+)", second)
    check(m and int(m.group(1)) > 0, f"job {job}'s second run did not resume:\n{second[:400]}")
    check(d.job(plain)["attempts"] == 0, f"job {plain} must never run on the shared GPU")


CASES = {"reclaim": case_reclaim, "colocation": case_colocation}

if __name__ == "__main__":
    sys.exit(serve_lib.main(CASES, sys.argv))
