"""`squeeze serve` with two real Slurm clusters as its pools (issue 5): the clusters of
scripts/slurm-clusters.sh (east with 4 nodes, west with 2; 4 fake GPUs as GRES each), started by
the CTest fixture slurm_clusters. The daemon's machine needs no GPU: the pools' nodes come from
`sinfo --json` (case pools), or the cases written for one node a cluster name east-n0 and west-n0.

- a job runs as a Slurm batch job with the GPUs Slurm binds (CUDA_VISIBLE_DEVICES=0,1);
- a critical job preempts a low-urgency Slurm job: squeeze asks it to checkpoint (SIGUSR1
  through scancel), it stops, waits, and its next run resumes from the checkpoint;
- a running Slurm job is cancelled;
- the daemon restarts while a Slurm job runs: the job is taken back, not submitted again, and
  its end is recorded;
- regions: with east (us-east) full, a job whose data may go to us-west runs on west and its
  history says why; a job whose data may not leave us-east waits and then runs on east;
- slices: at a slice end a Slurm job checkpoints and leaves for a waiting job, and its next run
  (a new Slurm job) resumes from its checkpoint.

- owner: a root daemon submits each job as its owner (sbatch --uid/--gid): it runs as them.
- output: a job's `output` and `error` files (sbatch -o/-e) are filled in by squeeze and given
  to sbatch with every % escaped: Slurm writes the job's stdout and stderr there, the run's
  log says so, and the log route shows the output file.

Usage: python3 serve_slurm_test.py CASE SQUEEZE SOURCE_DIR WORK_DIR
       (CASE: pools, regions, slices, owner, output)
"""

import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_lib  # noqa: E402
from serve_lib import check, log  # noqa: E402

ROOT = os.environ.get("SQUEEZE_SLURM_ROOT", "/tmp/squeeze-slurm")


def slurm_jobs_named(cluster, name, data_dir):
    """Slurm job ids of jobs named `name` on `cluster` (any state squeue still lists) that the
    daemon of `data_dir` submitted: Slurm keeps ended jobs for MinJobAge, the other cases' jobs
    of the same name among them; squeeze's --comment says which data directory a job is of."""
    out = subprocess.run(["squeue", "-h", "-t", "all", "-n", name, "-o", "%i|%k"],
                         env=dict(os.environ, SLURM_CONF=f"{ROOT}/{cluster}/etc/slurm.conf"),
                         capture_output=True, text=True, timeout=30)
    return [line.split("|")[0] for line in out.stdout.splitlines()
            if f" of {data_dir} (" in line]


def pools_config(h, west_region, extra="", first_nodes=True):
    """A cluster file of the two test clusters as pools east (us-east) and west; skips the test
    when they are not up. `first_nodes`: each pool is its cluster's first node only (east-n0,
    west-n0: the cases written for one node a cluster); else all the nodes sinfo lists."""
    if os.geteuid() != 0 or not os.path.exists(f"{ROOT}/east/etc/slurm.conf"):
        raise serve_lib.SkipTest("the Slurm test clusters are not up (run as root, with Slurm)")
    serve_lib.empty_slurm_clusters(ROOT)
    config = h.path("slurm-pools.yaml")
    with open(config, "w") as f:
        f.write(f"""pools:
  - name: east
    region: us-east
    backend: slurm
    slurm: {{cluster: east, conf: {ROOT}/east/etc/slurm.conf}}
{"    nodes: [{name: east-n0, gpus: 4}]" if first_nodes else ""}
  - name: west
    region: {west_region}
    backend: slurm
    slurm: {{cluster: west, conf: {ROOT}/west/etc/slurm.conf}}
{"    nodes: [{name: west-n0, gpus: 4}]" if first_nodes else ""}
{extra}""")
    return config


def case_pools(squeeze, source, h):
    config = pools_config(h, "eu-west", first_nodes=False)
    args = ["--config", config, "--set", "min_runtime=0s", "--checkpoint-grace", "20s"]
    d = h.start_daemon(squeeze, "data", args)
    serve_lib.wait_until(lambda: "took back" in d.log_text(), 60, "the recovery's line")
    status, nodes = d.call("GET", "/v1/nodes")
    names = sorted(n["name"] for n in nodes["nodes"])
    check(names == ["east-n0", "east-n1", "east-n2", "east-n3", "west-n0", "west-n1"],
          f"nodes from sinfo: {nodes}")
    check(all(n["gpus"] == 4 for n in nodes["nodes"]), f"4 GPUs each: {nodes}")
    train = os.path.join(source, "examples", "jobs", "train-like.sh")

    # 1. GPUs as Slurm binds them.
    bound = d.submit({"name": "bound", "gpus": 2, "command": [
        "bash", "-c", "echo CVD=$CUDA_VISIBLE_DEVICES cluster=$SLURM_CLUSTER_NAME"]})
    j = d.wait_state(bound, ["done", "failed"], timeout=60)
    check(j["state"] == "done" and j["exit_code"] == 0, f"bound: {j}")
    with open(os.path.join(d.data_dir, "logs", f"{bound}.1.log")) as f:
        text = f.read()
    check(re.search(r"CVD=0,1 cluster=(east|west)", text), f"bound's log: {text}")

    # 2. Preemption through Slurm: six low runs fill both clusters' six nodes, a critical job
    # preempts one.
    lows = [d.submit({"name": f"low-{i}", "gpus": 4, "urgency": "low", "preemptible": True,
                      "checkpointable": True, "estimate": "2m", "command": ["bash", train],
                      "env": {"STEPS": "600", "STEP_SECONDS": "0.1", "CHECKPOINT_EVERY": "1000"}})
            for i in range(6)]
    for low in lows:
        d.wait_state(low, "running", timeout=60)
    time.sleep(3)  # some steps of work
    # why on a job Slurm runs says what Slurm says of it (a loaded slurmctld may take a few
    # seconds from squeeze's start to RUNNING: PENDING (Priority) meanwhile).
    def slurm_running():
        status, why = d.call("GET", f"/v1/jobs/{lows[0]}/why")
        text = " ".join(why["explanation"])
        found = re.search(r"Slurm job \d+ on cluster (east|west): RUNNING on (east|west)-n\d", text)
        return why if found else None
    serve_lib.wait_until(slurm_running, 90, f"why {lows[0]} to say Slurm runs it")
    urgent = d.submit({"name": "urgent", "gpus": 4, "urgency": "critical", "estimate": "5s",
                       "command": ["bash", "-c", "sleep 2; echo urgent done"]})
    j = d.wait_state(urgent, ["done", "failed"], timeout=180)
    check(j["state"] == "done", f"urgent: {j}")
    victims = [low for low in lows if d.job(low)["preemptions"] > 0]
    check(len(victims) == 1, f"one low job preempted: {[d.job(low) for low in lows]}")
    victim = victims[0]
    v = d.wait_job(victim, lambda j: j["attempts"] >= 2 and j["state"] == "running", 180,
                   "to run again")
    check(v["last_checkpoint"] is not None, f"victim checkpoint: {v}")

    # Its second run's first line (a loaded slurmd may take a minute to launch it).
    def second_run_began():
        path = os.path.join(d.data_dir, "logs", f"{victim}.2.log")
        if not os.path.exists(path):
            return None
        with open(path) as f:
            return re.search(r"(resuming|starting) from step (\d+)", f.read())

    began = serve_lib.wait_until(second_run_began, 150, f"job {victim}'s second run to begin")
    check(began.group(1) == "resuming" and int(began.group(2)) > 0,
          f"job {victim}'s second run did not resume from its checkpoint: {began.group(0)}; "
          f"its first run's log ends: {serve_lib.log_of(d, victim, 1)[-300:]}")

    # 3. Cancel the running ones (the other low job and the resumed victim).
    for low in lows:
        status, reply = d.call("POST", f"/v1/jobs/{low}/cancel")
        check(status == 200, f"cancel {low}: {status} {reply}")
    for low in lows:
        j = d.wait_state(low, "cancelled", timeout=60)
        check(j["exit_code"] not in (0, None), f"cancelled Slurm job {low}: {j}")

    # 4. A restart while a Slurm job runs: taken back, not submitted again.
    long = d.submit({"name": "long", "gpus": 1, "command": ["bash", "-c", "sleep 8; echo long done"]})
    d.wait_state(long, "running", timeout=60)
    d.stop()
    d2 = h.start_daemon(squeeze, "data", args, name="restarted")
    serve_lib.wait_until(lambda: "took back" in d2.log_text(), 60, "the recovery's line")
    check("took back 1 running jobs" in d2.log_text(), d2.log_text())
    j = d2.wait_state(long, ["done", "failed"], timeout=150)
    check(j["state"] == "done" and j["attempts"] == 1, f"long after the restart: {j}")
    submitted = [i for c in ("east", "west")
                 for i in slurm_jobs_named(c, f"squeeze-{long}.1", d2.data_dir)]
    check(len(submitted) == 1, f"job {long} attempt 1 submitted to Slurm {len(submitted)} times")


def case_regions(squeeze, source, h):
    """With the home cluster full, a job whose data may move runs in the other region (and
    says why); a job whose data may not leave waits at home and runs there once it frees."""
    config = pools_config(h, "us-west", "region_links:\n"
                          "  - {from: us-east, to: us-west, bandwidth_gbps: 10, price_per_gb: 0.02}\n")
    d = h.start_daemon(squeeze, "data", ["--config", config])
    serve_lib.wait_until(lambda: "took back" in d.log_text(), 60, "the recovery's line")
    where = ["bash", "-c", "echo region=$SQUEEZE_REGION home=$SQUEEZE_HOME_REGION "
             "cluster=$SLURM_CLUSTER_NAME"]
    # East is full for an hour by estimate.
    blocker = d.submit({"name": "blocker", "gpus": 4, "pool": "east", "estimate": "1h",
                        "command": ["sleep", "600"]})
    d.wait_state(blocker, "running", timeout=60)
    # Its data (10 GB: 8 s over the link) may go to us-west: it runs there.
    movable = d.submit({"name": "movable", "gpus": 2, "pool": "east", "data_gb": 10,
                        "regions": ["us-east", "us-west"], "command": where})
    j = d.wait_state(movable, ["done", "failed"], timeout=90)
    check(j["state"] == "done", f"movable: {j}")
    with open(os.path.join(d.data_dir, "logs", f"{movable}.1.log")) as f:
        text = f.read()
    check("region=us-west home=us-east cluster=west" in text, f"movable's log: {text}")
    moves = [e["text"] for e in j["history"] if e["kind"] == "region"]
    check(len(moves) == 1 and moves[0].startswith(
        "moved from region us-east to us-west: expected wait at home ") and
        "to copy 10.0 GB (cost 0.20)" in moves[0], f"movable's history: {j['history']}")
    shown = h.run([squeeze, "show", str(movable), "--url", d.url, "--token", d.admin_token])
    check("region     moved from region us-east to us-west" in shown.stdout,
          f"squeeze show {movable}: {shown.stdout}")
    # Its data may not leave us-east: it waits at home, and why says so.
    pinned = d.submit({"name": "pinned", "gpus": 2, "pool": "east", "data_gb": 10,
                       "regions": ["us-east"], "command": where})
    time.sleep(4)  # cycles that could have moved it
    check(d.job(pinned)["state"] == "pending", f"pinned: {d.job(pinned)}")
    status, why = d.call("GET", f"/v1/jobs/{pinned}/why")
    text = "\n".join(why["explanation"])
    check("its data may not go to region us-west (allowed regions: us-east)" in text and
          "expected wait in its home region us-east: " in text, f"why {pinned}: {text}")
    status, reply = d.call("POST", f"/v1/jobs/{blocker}/cancel")
    check(status == 200, f"cancel {blocker}: {status} {reply}")
    j = d.wait_state(pinned, ["done", "failed"], timeout=90)
    check(j["state"] == "done", f"pinned: {j}")
    with open(os.path.join(d.data_dir, "logs", f"{pinned}.1.log")) as f:
        text = f.read()
    check("region=us-east home=us-east cluster=east" in text, f"pinned's log: {text}")
    check(not any(e["kind"] == "region" for e in j["history"]), f"pinned moved: {j['history']}")


def case_slices(squeeze, source, h):
    """Slices through Slurm: two low runs fill east and west; a third low job waits; at a
    slice end one of them is signalled through scancel, checkpoints, leaves Slurm, and its next
    run (a new Slurm job) resumes from the checkpoint."""
    config = pools_config(h, "us-west")
    d = h.start_daemon(squeeze, "data", [
        "--config", config, "--set", "slice=8s", "--set", "min_runtime=0s",
        "--set", "preempt_by_order=false", "--checkpoint-grace", "20s"])
    serve_lib.wait_until(lambda: "took back" in d.log_text(), 60, "the recovery's line")
    train = os.path.join(source, "examples", "jobs", "train-like.sh")

    def trainer(name, steps, estimate=None):
        job = {"name": name, "gpus": 4, "urgency": "low", "preemptible": True,
               "checkpointable": True, "command": ["bash", train],
               "env": {"STEPS": str(steps), "STEP_SECONDS": "0.1", "CHECKPOINT_EVERY": "1000"}}
        if estimate:
            job["estimate"] = estimate
        return d.submit(job)

    s1, s2 = trainer("slice-1", 250), trainer("slice-2", 250)
    for j in (s1, s2):
        d.wait_state(j, "running", timeout=60)
    s3 = trainer("slice-3", 20, estimate="2s")
    yielded = serve_lib.wait_until(
        lambda: next((j for j in (s1, s2) if "slice ended; yields to " + str(s3) in
                      d.job(j)["reason"]), None), 150, f"a slice end yielding to {s3}")
    log(f"job {yielded} yielded to {s3} at its slice end: {d.job(yielded)['reason']}")
    for j in (s1, s2, s3):
        job = d.wait_state(j, ["done", "failed"], timeout=240)
        check(job["state"] == "done", f"job {j}: {job}")
    job = d.job(yielded)
    check(job["attempts"] >= 2 and job["preemptions"] == 0, f"job {yielded}: {job}")
    with open(os.path.join(d.data_dir, "logs", f"{yielded}.2.log")) as f:
        second = f.read()
    check(re.search(r"resuming from step [1-9]", second),
          f"job {yielded} did not resume from its checkpoint after its slice:\n{second[:200]}\n"
          f"its first run's log ends:\n{serve_lib.log_of(d, yielded, 1)[-400:]}")
    # Each run of the yielded job was its own Slurm job, submitted once.
    for attempt in (1, 2):
        name = f"squeeze-{yielded}.{attempt}"
        ids = [i for c in ("east", "west") for i in slurm_jobs_named(c, name, d.data_dir)]
        check(len(ids) == 1, f"{name} submitted to Slurm {len(ids)} times")
    m = re.search(r"^squeeze_slice_ends_total (\d+)", d.metrics(), re.M)
    check(m and int(m.group(1)) >= 1, "no slice end counted")


def case_owner(squeeze, source, h):
    """A root daemon submits each job to Slurm as its owner: alice's job runs as sqz-alice on
    the node (`id -u` in its log), with her groups and her base environment (none of the
    daemon's), and its script and log are hers."""
    config = pools_config(h, "eu-west")
    serve_lib.need_test_accounts()
    import pwd
    alice = pwd.getpwnam(serve_lib.ALICE)
    # A secret in the daemon's environment: no job of a user's may see it.
    os.environ["SQUEEZE_TEST_DAEMON_SECRET"] = "root-only"
    d = h.start_daemon(squeeze, "data", ["--config", config], allow_root_jobs=False)
    del os.environ["SQUEEZE_TEST_DAEMON_SECRET"]
    token = h.add_token("data", serve_lib.ALICE, "ml")
    serve_lib.wait_until(lambda: d.call("GET", "/v1/jobs", token=token)[0] == 200, 15,
                         "alice's token")
    job = d.submit({"name": "whoami", "gpus": 1, "command": [
        "bash", "-c", "id -u; id -g; echo HOME=$HOME USER=$USER; umask; echo PATH=$PATH "
        "SECRET=${SQUEEZE_TEST_DAEMON_SECRET:-none}"]}, token=token)
    j = d.wait_state(job, ["done", "failed"], timeout=90)
    check(j["state"] == "done", f"alice's Slurm job: {j}")
    log_path = os.path.join(d.data_dir, "logs", f"{job}.1.log")
    with open(log_path) as f:
        lines = f.read().split()
    log(f"alice's Slurm job printed: {lines}")
    check(lines[:2] == [str(alice.pw_uid), str(alice.pw_gid)],
          f"the job should run as {alice.pw_uid}:{alice.pw_gid} on the node: {lines}")
    check(f"HOME={alice.pw_dir}" in lines and f"USER={serve_lib.ALICE}" in lines and "0077" in lines,
          f"her HOME, USER and umask: {lines}")
    check("SECRET=none" in lines and "PATH=/usr/local/bin:/usr/bin:/bin" in lines,
          f"her base environment, none of the daemon's: {lines}")
    st = os.stat(log_path)
    check(st.st_uid == alice.pw_uid and (st.st_mode & 0o777) == 0o600, f"her log: {oct(st.st_mode)}")
    script = os.path.join(d.data_dir, "slurm", f"{job}.1.sh")
    check(os.stat(script).st_uid == alice.pw_uid, f"her script {script}")
    ids = [i for c in ("east", "west") for i in slurm_jobs_named(c, f"squeeze-{job}.1", d.data_dir)]
    check(ids, f"the Slurm job of {job}")
    # What Slurm says of the job's user.
    found = False
    for cluster in ("east", "west"):
        out = subprocess.run(["squeue", "-h", "-t", "all", "-n", f"squeeze-{job}.1", "-o", "%u"],
                             env=dict(os.environ, SLURM_CONF=f"{ROOT}/{cluster}/etc/slurm.conf"),
                             capture_output=True, text=True, timeout=30).stdout.split()
        found |= serve_lib.ALICE in out
    check(found, "Slurm should list the job as sqz-alice's")
    # Root's own jobs are refused here too.
    serve_lib.expect_error(d, "POST", "/v1/jobs", 403, ["--allow-root-jobs"],
                           body={"command": ["true"]})


def case_output(squeeze, source, h):
    config = pools_config(h, "eu-west")
    d = h.start_daemon(squeeze, "data", ["--config", config])
    work = h.path("outputs")
    os.makedirs(work, exist_ok=True)
    job = d.submit({"name": "writer", "gpus": 1, "workdir": work,
                    "output": "out_%j_100%%.txt", "error": "err_%x.txt",
                    "command": ["bash", "-c", "echo out on $SLURM_CLUSTER_NAME; echo err >&2"]})
    j = d.wait_state(job, ["done", "failed"], timeout=90)
    check(j["state"] == "done" and j["output"] == "out_%j_100%%.txt", f"the writer: {j}")
    out, err = os.path.join(work, f"out_{job}_100%.txt"), os.path.join(work, "err_writer.txt")
    check(os.path.exists(out) and os.path.exists(err), f"the files in {work}: {os.listdir(work)}")
    with open(out) as f:
        text = f.read()
    with open(err) as f:
        check(f.read() == "err\n", f"{err}")
    check(re.fullmatch(r"out on (east|west)\n", text), f"{out}: {text!r}")
    status, got = d.call("GET", f"/v1/jobs/{job}/log")
    check(status == 200 and got["text"] == text and got["path"] == out, f"the log route: {got}")
    run_log = serve_lib.log_of(d, job, 1)
    check(f"stdout goes to {out}, stderr to {err}" in run_log, f"the run's log: {run_log!r}")


CASES = {"pools": case_pools, "regions": case_regions, "slices": case_slices,
         "owner": case_owner, "output": case_output}

if __name__ == "__main__":
    sys.exit(serve_lib.main(CASES, sys.argv,
                            lambda began: serve_lib.slurm_log_digest(ROOT, began)))
