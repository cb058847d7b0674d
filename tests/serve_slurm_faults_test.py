"""`squeeze serve` against real Slurm faults (issue 5: faults and reconciliation), on the two
clusters of scripts/slurm-clusters.sh (east, west; 4 fake GPUs a node) that the CTest fixture
slurm_clusters starts; each pool is its cluster's first node.

- node_down: the node running a checkpointable job dies (slurmd and its job steps killed);
  the job runs again on the other cluster from its last checkpoint; no second copy ran.
- spot_node_down: the same with both clusters as spot pools: the node counts as a reclaim.
- controller_outage: a cluster's slurmctld stops while a job runs there; squeeze keeps
  accepting jobs and sends them to the other cluster, says the controller does not answer; on
  its return the job is reconciled, nothing submitted twice, nothing lost.
- kill_dispatch: the daemon is killed with SIGKILL while it submits to Slurm; after a restart
  no attempt was submitted twice and every job ends done.
- unknown_job: a job named squeeze-999999.1 sbatched behind squeeze's back is reported (API,
  metrics, log), also after a restart, and left alone.

Usage: python3 serve_slurm_faults_test.py CASE SQUEEZE SOURCE_DIR WORK_DIR
"""

import glob
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_lib  # noqa: E402
from serve_lib import check, log, log_of  # noqa: E402

ROOT = os.environ.get("SQUEEZE_SLURM_ROOT", "/tmp/squeeze-slurm")
CLUSTERS = ("east", "west")


def slurm(cluster, argv, timeout=30):
    return subprocess.run(argv, env=dict(os.environ, SLURM_CONF=f"{ROOT}/{cluster}/etc/slurm.conf"),
                          capture_output=True, text=True, timeout=timeout)


def clusters_script(h, source, *args, timeout=120):
    out = h.run(["bash", os.path.join(source, "scripts", "slurm-clusters.sh"), *args],
                timeout=timeout)
    check(out.returncode == 0, f"slurm-clusters.sh {' '.join(args)}: {out.stderr}")


# The highest Slurm job id of each cluster when the case began: Slurm lists ended jobs for
# MinJobAge (600 s), earlier runs' included; the checks count only the jobs after these.
BASELINE = {}


def slurm_records(cluster, since_baseline=True):
    """(Slurm id, name, state) of every job squeue still lists (MinJobAge=600 s)."""
    out = slurm(cluster, ["squeue", "-h", "-t", "all", "-o", "%i|%j|%T"])
    rows = []
    for line in out.stdout.splitlines():
        parts = line.split("|")
        if len(parts) >= 3 and (not since_baseline or int(parts[0]) > BASELINE.get(cluster, 0)):
            rows.append((parts[0], parts[1], parts[2]))
    return sorted(rows, key=lambda r: int(r[0]))


def submissions(job_id, attempt=None):
    """{cluster: [Slurm ids]} of the Slurm jobs named squeeze-ID.ATTEMPT (any attempt when None)."""
    which = str(attempt) if attempt else r"\d+"
    pattern = re.compile(rf"squeeze-{job_id}\.{which}$")
    return {c: [r for r in slurm_records(c) if pattern.match(r[1])] for c in CLUSTERS}


def cancel_squeeze_jobs():
    """What a failed case left on the clusters: its squeeze-* jobs."""
    for c in CLUSTERS:
        ids = [slurm_id for slurm_id, name, state in slurm_records(c, since_baseline=False)
               if name.startswith("squeeze-") and state in ("PENDING", "RUNNING", "CONFIGURING")]
        if ids:
            slurm(c, ["scancel", *ids])


def start(squeeze, h, name="data", daemon_name=None, clean=True, kind="owned"):
    """A daemon with the two clusters as its pools; `clean`: first cancel what earlier runs left
    and note the Slurm ids from which the case's jobs count (BASELINE)."""
    if os.geteuid() != 0 or not os.path.exists(f"{ROOT}/east/etc/slurm.conf"):
        raise serve_lib.SkipTest("the Slurm test clusters are not up (run as root, with Slurm)")
    if clean:
        serve_lib.empty_slurm_clusters(ROOT, CLUSTERS)  # what an earlier case left
        for c in CLUSTERS:
            BASELINE[c] = max([int(r[0]) for r in slurm_records(c, since_baseline=False)] + [0])
    config = h.path("slurm-pools.yaml")
    # One node of each cluster (its first, which `slurm-clusters.sh stop-node` stops): the
    # cases are about that node, or its controller, failing under a job.
    with open(config, "w") as f:
        f.write("pools:\n" + "".join(
            f"  - name: {c}\n    kind: {kind}\n    region: r-{c}\n    backend: slurm\n"
            f"    slurm: {{cluster: {c}, conf: {ROOT}/{c}/etc/slurm.conf}}\n"
            f"    nodes: [{{name: {c}-n0, gpus: 4}}]\n" for c in CLUSTERS))
    args = ["--config", config, "--set", "min_runtime=0s", "--slurm-watch", "1s"]
    d = h.start_daemon(squeeze, name, args, name=daemon_name)
    serve_lib.wait_until(lambda: "took back" in d.log_text(), 60, "the recovery's line")
    return d


def node_of(d, job_id):
    """The node (east-n0, west-n0) /v1/nodes shows `job_id` on, or None."""
    status, nodes = d.call("GET", "/v1/nodes")
    for n in nodes["nodes"]:
        if job_id in n["jobs"]:
            return n["name"]
    return None


def node_entry(d, name):
    status, nodes = d.call("GET", "/v1/nodes")
    return next(n for n in nodes["nodes"] if n["name"] == name)


def train_job(name, steps, every=10):
    return {"name": name, "gpus": 1, "checkpointable": True, "preemptible": False,
            "command": ["bash", os.path.join(SOURCE, "examples", "jobs", "train-like.sh")],
            "env": {"STEPS": str(steps), "STEP_SECONDS": "0.1", "CHECKPOINT_EVERY": str(every)}}


def case_node_down(squeeze, source, h):
    node_down(squeeze, source, h, spot=False)


def case_spot_node_down(squeeze, source, h):
    node_down(squeeze, source, h, spot=True)


def node_down(squeeze, source, h, spot):
    """The node running a job dies. With `spot`, both clusters are spot pools: the node Slurm
    takes away is also counted as a reclaim the scheduler learns from."""
    d = start(squeeze, h, kind="spot" if spot else "owned")
    job = d.submit(train_job("victim", 300))
    d.wait_state(job, "running", timeout=60)
    node = serve_lib.wait_until(lambda: node_of(d, job), 30, f"job {job} on a node")
    cluster = node.split("-")[0]
    other = next(c for c in CLUSTERS if c != cluster)
    d.wait_job(job, lambda j: j["last_checkpoint"] is not None, 60, "to checkpoint")
    time.sleep(1.5)  # a little work past the checkpoint, lost with the node
    try:
        clusters_script(h, source, "stop-node", cluster)
        down = serve_lib.wait_until(lambda: (lambda n: n if not n["available"] else None)(
            node_entry(d, node)), 60, f"{node} to take no new jobs")
        check("Slurm says" in down.get("unavailable", ""), f"why {node} is out: {down}")
        j = d.wait_job(job, lambda j: j["attempts"] >= 2, 180, "to run again")
        check(j["failures"] == 0, f"a lost run is not a failure: {j}")
        check(f"Slurm lost it: node {node} failed" in d.log_text(), "the daemon's log says why")
        if spot:
            check("(counted as a spot reclaim)" in d.log_text(), "the log counts a reclaim")
            check("squeeze_spot_reclaims_total 1" in d.metrics(), "GET /metrics counts it")
        j = d.wait_state(job, ["done", "failed"], timeout=240)
        check(j["state"] == "done" and j["attempts"] == 2, f"victim: {j}")
        second = log_of(d, job, 2)
        m = re.search(r"resuming from step (\d+)", second)
        check(m and int(m.group(1)) > 0, f"attempt 2 resumes from its checkpoint: {second[:300]}")
        first = log_of(d, job, 1)
        starts = re.findall(r"^(starting from step|resuming from step)", first, re.M)
        check(len(starts) == 1, f"attempt 1 ran once (no second copy on {cluster}): {first[-500:]}")
        subs = submissions(job)
        check([r[1] for r in subs[cluster]] == [f"squeeze-{job}.1"] and
              subs[cluster][0][2] in ("CANCELLED", "NODE_FAIL"),
              f"{cluster} holds attempt 1 only, ended: {subs}")
        check([(r[1], r[2]) for r in subs[other]] == [(f"squeeze-{job}.2", "COMPLETED")],
              f"{other} ran attempt 2 once: {subs}")
    finally:
        clusters_script(h, source, "start-node", cluster)
        cancel_squeeze_jobs()
    serve_lib.wait_until(lambda: node_entry(d, node)["available"], 30, f"{node} back")


def case_controller_outage(squeeze, source, h):
    d = start(squeeze, h)
    job = d.submit(train_job("through-outage", 250, every=20))
    d.wait_state(job, "running", timeout=60)
    node = serve_lib.wait_until(lambda: node_of(d, job), 30, f"job {job} on a node")
    cluster = node.split("-")[0]
    other = next(c for c in CLUSTERS if c != cluster)
    serve_lib.wait_until(lambda: submissions(job, 1)[cluster], 30, "Slurm to list it")
    try:
        clusters_script(h, source, "stop-ctld", cluster)
        began = time.monotonic()
        serve_lib.wait_until(lambda: not node_entry(d, node)["available"], 30,
                             f"{node} to take no new jobs")
        status, pools = d.call("GET", "/v1/pools", timeout=10)
        pool = next(p for p in pools["pools"] if p["name"] == cluster)
        check(pool["controller"]["reachable"] is False and "unreachable_since" in pool["controller"],
              f"/v1/pools says the controller is away: {pool}")
        env = dict(os.environ, SQUEEZE_URL=d.url, SQUEEZE_TOKEN=d.admin_token)
        out = h.run([squeeze, "nodes"], env=env, timeout=15)
        check(re.search(rf"{node} takes no new jobs: the controller of Slurm cluster {cluster} "
                        r"does not answer since", out.stdout), f"squeeze nodes: {out.stdout}")
        status, why = d.call("GET", f"/v1/jobs/{job}/why", timeout=10)
        check("does not answer" in " ".join(why["explanation"]), f"why {job}: {why}")
        check(f'squeeze_slurm_controller_up{{pool="{cluster}"}} 0' in d.metrics(), "metrics")
        # Still accepting jobs, quickly, and placing them on the other cluster.
        t = time.monotonic()
        out = h.run([squeeze, "submit", "--gpus", "1", "--", "bash", "-c", "sleep 1; echo ok"],
                    env=env, timeout=15)
        check(out.returncode == 0 and time.monotonic() - t < 5, f"squeeze submit: {out}")
        others = [int(out.stdout.strip().split()[-1])]
        others.append(d.submit({"name": "elsewhere", "gpus": 2, "command": ["true"]}))
        for o in others:
            # A loaded machine's slurmd can miss its batch launch; Slurm requeues the job and
            # squeeze queues it again (attempt 2), so the wait allows one more launch.
            j = d.wait_state(o, ["done", "failed"], timeout=150)
            check(j["state"] == "done", f"job {o} during the outage: {j}")
            subs = submissions(o)
            names = [r[1] for r in subs[other]]
            check(not subs[cluster] and f"squeeze-{o}.{j['attempts']}" in names and
                  len(names) == len(set(names)) <= j["attempts"],
                  f"job {o} ran on {other}, each attempt submitted once: {subs}")
        # Left as it is: running on, or ended by itself (its batch script's exit record says
        # so even while the controller is away), never lost nor restarted.
        now = d.job(job)
        check(now["state"] == "running" or (now["state"] == "done" and now["attempts"] == 1),
              f"job {job} is left as it is: {now}")
        time.sleep(max(0, 12 - (time.monotonic() - began)))  # an outage of some length
    finally:
        clusters_script(h, source, "start-ctld", cluster)
    serve_lib.wait_until(lambda: node_entry(d, node)["available"], 30, f"{node} back")
    j = d.wait_state(job, ["done", "failed"], timeout=120)
    check(j["state"] == "done" and j["attempts"] == 1 and j["failures"] == 0,
          f"the job that ran through the outage: {j}")
    subs = submissions(job)
    check(len(subs[cluster]) == 1 and not subs[other], f"submitted once: {subs}")
    check("answers again" in d.log_text(), "the daemon's log says the controller is back")
    cancel_squeeze_jobs()


def case_kill_dispatch(squeeze, source, h):
    d = start(squeeze, h)
    n = 14
    jobs = [d.submit({"name": f"burst-{i}", "gpus": 1, "command": ["bash", "-c", "sleep 4"]})
            for i in range(n)]
    records = os.path.join(d.data_dir, "slurm", "*.sbatch")
    serve_lib.wait_until(lambda: glob.glob(records), 30, "the first submissions", interval=0.01)
    d.kill9()
    log(f"killed during dispatch with {len(glob.glob(records))} submissions recorded")
    d2 = h.start_daemon(squeeze, "data", d.args, name="restarted")
    serve_lib.wait_until(lambda: "took back" in d2.log_text(), 60, "the recovery's line")
    # Once more while it submits what was left.
    recorded = len(glob.glob(records))
    serve_lib.wait_until(lambda: len(glob.glob(records)) > recorded, 30,
                         "the restarted daemon's submissions", interval=0.01)
    d2.kill9()
    log(f"killed again with {len(glob.glob(records))} submissions recorded")
    d3 = h.start_daemon(squeeze, "data", d.args, name="restarted-again")
    for job in jobs:
        j = d3.wait_state(job, ["done", "failed"], timeout=150)
        check(j["state"] == "done", f"job {job}: {j}")
    all_records = {c: slurm_records(c) for c in CLUSTERS}
    for job in jobs:
        j = d3.job(job)
        names = [r[1] for c in CLUSTERS for r in all_records[c]
                 if re.fullmatch(rf"squeeze-{job}\.\d+", r[1])]
        for attempt in range(1, j["attempts"] + 1):
            count = names.count(f"squeeze-{job}.{attempt}")
            check(count <= 1, f"job {job} attempt {attempt} submitted {count} times: {names}")
        check(names.count(f"squeeze-{job}.{j['attempts']}") == 1,
              f"job {job}'s last attempt {j['attempts']} ran in Slurm once: {names}")
        check(len(names) <= j["attempts"], f"job {job}: no extra Slurm job: {names}")


def case_unknown_job(squeeze, source, h):
    d = start(squeeze, h)
    out = slurm("east", ["sbatch", "--parsable", "-J", "squeeze-999999.1", "-o", "/dev/null",
                         "--wrap", "sleep 120"])
    check(out.returncode == 0, f"sbatch: {out.stderr}")
    stranger = out.stdout.strip().split(";")[0]
    try:
        def reported(daemon):
            status, pools = daemon.call("GET", "/v1/pools")
            east = next(p for p in pools["pools"] if p["name"] == "east")
            return any("squeeze-999999.1" in u for u in east.get("unknown_jobs", []))
        serve_lib.wait_until(lambda: reported(d), 30, "the stranger in /v1/pools")
        check('squeeze_slurm_unknown_jobs{pool="east"} 1' in d.metrics(), d.metrics())
        check("runs a job squeeze does not know (left alone)" in d.log_text(), "log line")
        # At the next start too (it has squeeze's name, not this data directory's comment: the
        # restart does not take it for one of its runs).
        d.stop()
        d2 = start(squeeze, h, daemon_name="restarted", clean=False)
        check("took back 0 running jobs" in d2.log_text(), d2.log_text())
        serve_lib.wait_until(lambda: reported(d2), 30, "the stranger after a restart")
        # Squeeze's own jobs run beside it and are not counted.
        own = d2.submit({"name": "own", "gpus": 1, "command": ["bash", "-c", "sleep 2"]})
        check(d2.wait_state(own, ["done", "failed"], timeout=60)["state"] == "done", "own job")
        check('squeeze_slurm_unknown_jobs{pool="east"} 1' in d2.metrics(), d2.metrics())
        states = [r[2] for r in slurm_records("east") if r[0] == stranger]
        check(states == ["RUNNING"], f"the stranger is left alone: {states}")
    finally:
        slurm("east", ["scancel", stranger])


SOURCE = None
CASES = {"node_down": case_node_down, "spot_node_down": case_spot_node_down, "controller_outage": case_controller_outage,
         "kill_dispatch": case_kill_dispatch, "unknown_job": case_unknown_job}

if __name__ == "__main__":
    if len(sys.argv) > 3:
        SOURCE = os.path.abspath(sys.argv[3])
    sys.exit(serve_lib.main(CASES, sys.argv,
                            lambda began: serve_lib.slurm_log_digest(ROOT, began)))
