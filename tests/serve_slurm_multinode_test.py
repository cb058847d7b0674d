"""`squeeze serve` on the multi-node Slurm test cluster east (4 nodes x 4 fake GPUs) of
scripts/slurm-clusters.sh, started by the CTest fixture slurm_clusters (issue 21).

- distributed: a 16-GPU job runs as one Slurm job over the four nodes, one task per node, each
  told its rank, the world size and its 4 GPUs; a critical job preempts it: every rank saves
  its part and rank 0 completes the checkpoint; it resumes on every rank; then one of its
  nodes dies: the run is lost, and once the node is back it resumes from its checkpoint again.
- reservation: a blocked 4-GPU job gets a whole node through squeeze's reservation (policy
  backfill) while 1-GPU jobs keep arriving; the same sequence under Slurm alone is run too and
  what it did printed.
- torch: real PyTorch, torch.distributed with gloo over two nodes, one process per node
  (examples/python/pytorch_train.py): a run preempted once and then one of its ranks killed
  (SIGKILL) ends, is retried and resumes from its checkpoint on both ranks, and ends with the
  weights, optimizer and loss curve of an uninterrupted two-node run beside it, bit for bit.
- batch_script: a two-node batch script submitted with `squeeze submit` runs once, on the first
  node, and its own srun starts its 2 x 2 tasks over both nodes (as sbatch runs it).
- topology: east's switches (topology.conf) read from `scontrol show topology`; a 2-node job
  lands under one leaf switch while the other switch has room for it only across.
- strangers: jobs sbatched behind squeeze's back hold their GPUs in squeeze's view (nodes,
  placements); nothing squeeze sends waits in Slurm because of them; their GPUs come back
  when they end. `squeeze show --json`'s run_nodes and /v1/nodes agree with squeue.

Usage: python3 serve_slurm_multinode_test.py CASE SQUEEZE SOURCE_DIR WORK_DIR
"""

import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_lib  # noqa: E402
from serve_lib import check, log, log_of  # noqa: E402

ROOT = os.environ.get("SQUEEZE_SLURM_ROOT", "/tmp/squeeze-slurm")
CONF = f"{ROOT}/east/etc/slurm.conf"
SOURCE = None


def slurm(argv, timeout=30):
    return subprocess.run(argv, env=dict(os.environ, SLURM_CONF=CONF), capture_output=True,
                          text=True, timeout=timeout)


def squeue():
    """{Slurm id: (name, state, node list)} of the live jobs of east."""
    out = slurm(["squeue", "-h", "-o", "%i|%j|%T|%N"])
    rows = {}
    for line in out.stdout.splitlines():
        i, name, state, nodes = line.split("|")
        rows[i] = (name, state, nodes)
    return rows


def hostnames(nodelist):
    if not nodelist:
        return []
    return slurm(["scontrol", "show", "hostnames", nodelist]).stdout.split()


def cancel_all():
    """East with no job left by an earlier case, and its nodes up."""
    serve_lib.empty_slurm_clusters(ROOT, ("east",))


def start(squeeze, h, name="data", extra=()):
    if os.geteuid() != 0 or not os.path.exists(CONF):
        raise serve_lib.SkipTest("the Slurm test clusters are not up (run as root, with Slurm)")
    cancel_all()
    config = h.path("east.yaml")
    with open(config, "w") as f:
        f.write(f"pools:\n  - name: east\n    backend: slurm\n"
                f"    slurm: {{cluster: east, conf: {CONF}}}\n")
    args = ["--config", config, "--slurm-watch", "1s", "--checkpoint-grace", "30s",
            *(extra or ("--set", "min_runtime=0s"))]
    d = h.start_daemon(squeeze, name, args)
    serve_lib.wait_until(lambda: "took back" in d.log_text(), 60, "the recovery's line")
    return d


def clusters_script(h, *args, timeout=120):
    out = h.run(["bash", os.path.join(SOURCE, "scripts", "slurm-clusters.sh"), *args], timeout=timeout)
    check(out.returncode == 0, f"slurm-clusters.sh {' '.join(args)}: {out.stderr}")


def case_distributed(squeeze, source, h):
    d = start(squeeze, h)
    script = os.path.join(source, "examples", "jobs", "distributed-like.sh")
    big = d.submit({"name": "big", "gpus": 16, "urgency": "low", "preemptible": True,
                    "checkpointable": True, "command": ["bash", script],
                    "env": {"STEPS": "900", "STEP_SECONDS": "0.1"}})
    d.wait_state(big, "running", timeout=60)
    serve_lib.wait_until(lambda: log_of(d, big, 1).count(" of 4 on ") == 4, 30, "four ranks")
    first = log_of(d, big, 1)
    for rank in range(4):
        check(re.search(rf"rank {rank} of 4 on east-n\d: world 16, GPUs 0,1,2,3 \(4 per node\), "
                        rf"master 127\.0\.0\.1:\d+, nodes east-n0,east-n1,east-n2,east-n3", first),
              f"rank {rank} learns its shape: {first}")
    check(sorted(d.job(big)["run_nodes"]) == ["east-n0", "east-n1", "east-n2", "east-n3"],
          f"run_nodes: {d.job(big)}")
    time.sleep(2)  # some steps
    # A critical job takes a node: the big one checkpoints on every node and waits.
    urgent = d.submit({"name": "urgent", "gpus": 4, "urgency": "critical", "estimate": "5s",
                       "command": ["bash", "-c", "sleep 3"]})
    j = d.wait_state(urgent, ["done", "failed"], timeout=90)
    check(j["state"] == "done", f"urgent: {j}")
    b = d.wait_job(big, lambda j: j["attempts"] >= 2 and j["state"] == "running", 90, "to resume")
    check(b["preemptions"] >= 1 and b["last_checkpoint"] is not None, f"big: {b}")
    check(log_of(d, big, 1).count("saved step") == 4, f"every rank saved: {log_of(d, big, 1)}")
    check("rank 0 completed checkpoint 1 (4 parts)" in log_of(d, big, 1), log_of(d, big, 1))
    serve_lib.wait_until(lambda: log_of(d, big, 2).count("resumes from step") == 4, 90,
                         "every rank to resume")
    steps = [int(s) for s in re.findall(r"resumes from step (\d+)", log_of(d, big, 2))]
    check(all(s > 0 for s in steps), f"resumed from saved steps: {steps}")
    time.sleep(1)
    # Checkpoint again (so that the lost run has something to resume from), then a node dies.
    listed = [i for i, (name, state, _) in squeue().items() if name == f"squeeze-{big}.2"]
    check(len(listed) == 1, f"one Slurm job for attempt 2: {squeue()}")
    slurm(["scancel", "--signal=USR1", "--batch", listed[0]])
    d.wait_job(big, lambda j: j["last_checkpoint"] != b["last_checkpoint"], 30, "a second checkpoint")
    try:
        clusters_script(h, "stop-node", "east", "east-n2")
        lost = d.wait_job(big, lambda j: j["attempts"] >= 2 and j["state"] == "pending", 90,
                          "the lost run to be queued again")
        check(lost["failures"] == 0, f"a lost run is not a failure: {lost}")
        check("Slurm lost it: node east-n2 failed" in d.log_text() or
              "Slurm lost it" in d.log_text(), "the daemon's log says why")
    finally:
        clusters_script(h, "start-node", "east", "east-n2")
    b3 = d.wait_job(big, lambda j: j["attempts"] >= 3 and j["state"] == "running", 120,
                    "to run a third time")
    serve_lib.wait_until(lambda: log_of(d, big, 3).count("resumes from step") == 4, 90,
                         "every rank to resume again")
    check("behind a job squeeze does not run" not in d.log_text(),
          "squeeze's own run, still live in Slurm after it ended, was taken for a stranger's")
    again = [int(s) for s in re.findall(r"resumes from step (\d+)", log_of(d, big, 3))]
    check(min(again) > max(steps), f"from the second checkpoint: {again} after {steps}")
    d.call("POST", f"/v1/jobs/{big}/cancel")
    d.wait_state(big, ["cancelled", "done", "failed"], timeout=60)
    log(f"big: attempts {b3['attempts']}, resumed from {steps} then {again}")


TORCH_ARGS = ["--epochs", "3", "--samples", "4096", "--batch-size", "32", "--hidden", "64",
              "--workers", "1", "--print-every", "5", "--step-seconds", "0.08"]


def rank_process(job, rank):
    """The pid of the main training process of `rank` of squeeze job `job` (not a DataLoader
    worker, whose parent is that process), or None."""
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = dict(v.split(b"=", 1) for v in f.read().split(b"\0") if b"=" in v)
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if (b"pytorch_train.py" in cmd and env.get(b"SQUEEZE_JOB_ID") == str(job).encode()
                and env.get(b"SQUEEZE_NODE_RANK") == str(rank).encode()):
            found[int(pid)] = ppid
    mains = [pid for pid, ppid in found.items() if ppid not in found]
    return mains[0] if len(mains) == 1 else None


def saved_steps(text, what):
    return [int(s) for s in re.findall(what, text)]


def case_torch(squeeze, source, h):
    if subprocess.run([sys.executable, "-c", "import torch"], capture_output=True).returncode:
        raise serve_lib.SkipTest("PyTorch is not installed (scripts/setup.sh installs it)")
    d = start(squeeze, h, extra=("--set", "min_runtime=0s", "--retry-backoff", "1s"))
    script = os.path.join(source, "examples", "python", "pytorch_train.py")
    env = {"PYTHONPATH": os.path.join(source, "python")}
    straight = d.submit({"name": "straight", "gpus": 8, "urgency": "normal", "env": env,
                         "command": [sys.executable, script, *TORCH_ARGS,
                                     "--result", h.path("straight.json")]})
    job = d.submit({"name": "trained", "gpus": 8, "urgency": "low", "preemptible": True,
                    "checkpointable": True, "checkpoint_interval": "3s", "max_retries": 2,
                    "env": env, "command": [sys.executable, script, *TORCH_ARGS,
                                            "--result", h.path("trained.json")]})
    d.wait_state(job, "running", timeout=60)
    serve_lib.wait_until(lambda: re.search(r"^step (2\d|[3-9]\d)/", log_of(d, job, 1), re.M),
                         90, "the two-node run to reach step 20")
    first = log_of(d, job, 1)
    check("rank 0 of 2 on cpu" in first and "rank 1 of 2 on cpu" in first,
          f"two ranks of one torch.distributed job: {first[:1500]}")
    check(len(set(d.job(job)["run_nodes"])) == 2, f"on two nodes: {d.job(job)}")
    urgent = d.submit({"name": "urgent", "gpus": 4, "urgency": "critical", "estimate": "3s",
                       "command": ["sleep", "2"]})
    check(d.wait_state(urgent, ["done", "failed"], timeout=90)["state"] == "done", "urgent")
    d.wait_job(job, lambda j: j["attempts"] == 2 and j["state"] == "running", 90, "to resume")
    first = log_of(d, job, 1)
    # Rank 0 writes; rank 1 may be stopped (squeeze cancels the run once the marker is written)
    # before its own line reaches the log.
    asked = saved_steps(first, r"saving at the step boundary \(step (\d+)\)")
    check(asked and len(set(asked)) == 1, f"the ranks save at one step: {first[-2500:]}")
    asked = asked[:1] * 2
    serve_lib.wait_until(lambda: len(saved_steps(log_of(d, job, 2), r"resumed from \S+ at step "
                                                                   r"(\d+)")) == 2, 60,
                         "both ranks to resume")
    resumed = saved_steps(log_of(d, job, 2), r"resumed from \S+ at step (\d+)")
    check(resumed == asked, f"both ranks resume at step {asked[0]}: {resumed}")
    # A periodic checkpoint in attempt 2, then rank 1 is killed.
    b = d.wait_job(job, lambda j: len(saved_steps(log_of(d, job, 2), r"saved \S+ at step (\d+)"))
                   >= 1, 60, "a checkpoint in attempt 2")
    pid = serve_lib.wait_until(lambda: rank_process(job, 1), 30, "rank 1's process")
    os.kill(pid, 9)
    killed_at = time.monotonic()
    log(f"killed rank 1 (pid {pid}) of job {job}, attempt 2")
    failed = d.wait_job(job, lambda j: j["failures"] >= 1, 90, "the run to end as a failure")
    log(f"the run ended {time.monotonic() - killed_at:.1f}s after the kill: {failed['reason']}")
    d.wait_job(job, lambda j: j["attempts"] == 3, 90, "the retry")
    done = d.wait_state(job, ["done", "failed"], timeout=180)
    check(done["state"] == "done" and done["attempts"] == 3 and done["failures"] == 1
          and done["preemptions"] == 1, f"trained: {done}")
    second = log_of(d, job, 2)
    last = saved_steps(second, r"saved \S+ at step (\d+)")[-1]
    third = saved_steps(log_of(d, job, 3), r"resumed from \S+ at step (\d+)")
    check(third == [last, last], f"attempt 3 resumes on both ranks from the last checkpoint "
                                 f"({last}): {third}")
    s = d.wait_state(straight, ["done", "failed"], timeout=180)
    check(s["state"] == "done" and s["attempts"] == 1, f"straight: {s}")
    with open(h.path("trained.json")) as f:
        got = json.load(f)
    with open(h.path("straight.json")) as f:
        want = json.load(f)
    log(f"preempted, killed, resumed: {json.dumps({k: got[k] for k in got if k != 'loss_curve'})}")
    log(f"uninterrupted:              {json.dumps({k: want[k] for k in want if k != 'loss_curve'})}")
    check(got["world_size"] == 2 and got == want, "the two-node run differs from the "
          "uninterrupted one in " + ", ".join(k for k in want if got.get(k) != want[k]))
    log(f"resumed at step {asked[0]} after the preemption and at {last} after the kill")


def fill_then_big(submit, now):
    """The sequence of case reservation, through `submit(name, gpus, seconds)` (squeeze or Slurm
    alone): 16 one-GPU jobs of 5..20 s fill east's 16 GPUs, then a 4-GPU job, then a one-GPU job
    of 10 s every second for 25 s. Without a reservation, every GPU that frees goes to one of
    them, and the 4-GPU job waits until they stop coming. Returns (name -> submit time)."""
    submitted = {}
    for k in range(16):
        submitted[f"fill-{k}"] = now()
        submit(f"fill-{k}", 1, 5 + k)
    time.sleep(1)
    submitted["big"] = now()
    submit("big", 4, 5)
    for k in range(25):
        time.sleep(1)
        submitted[f"late-{k}"] = now()
        submit(f"late-{k}", 1, 10)
    return submitted


def case_reservation(squeeze, source, h):
    # FIFO with EASY backfill: the first blocked job is reserved the nodes it will fit on at
    # once (squeeze's own policy reserves for a job blocked longer than reserve_after, 12 h).
    d = start(squeeze, h, extra=("--policy", "backfill"))
    ids = {}

    def via_squeeze(name, gpus, seconds):
        ids[name] = d.submit({"name": name, "gpus": gpus, "estimate": f"{seconds}s",
                              "command": ["sleep", str(seconds)]})
    fill_then_big(via_squeeze, time.time)
    big = d.wait_state(ids["big"], ["done", "failed"], timeout=120)
    check(big["state"] == "done", f"big: {big}")
    starts = {name: d.job(i)["started_at"] for name, i in ids.items()}
    late_first = sorted((n for n, t in starts.items()
                         if n.startswith("late-") and t is not None and t < starts["big"]),
                        key=lambda n: int(n.split("-")[1]))
    waited = big["wait_s"]
    log(f"squeeze: the 4-GPU job waited {waited} s; later 1-GPU jobs started before it "
        f"(backfilled where they do not delay it): {late_first}")
    # Its reservation holds a node as it drains: later jobs only backfill where they do not
    # delay it, so it starts while 1-GPU jobs submitted before it still wait (they would take
    # every GPU that frees, one by one, without it, and it would start after all of them).
    # Asserted on squeeze's own record, not on times: a loaded machine slows Slurm's starts and
    # ends, and the stream of late jobs (25 s, each 10 s) can be over before a node drains.
    behind = sorted((n for n, i in ids.items() if n.startswith("late-") and
                     d.job(i)["submitted_at"] < starts["big"] and
                     (starts[n] is None or starts[n] > starts["big"])),
                    key=lambda n: int(n.split("-")[1]))
    log(f"squeeze: 1-GPU jobs submitted before the 4-GPU job started that waited behind its "
        f"reservation: {behind}")
    check(behind, f"the 4-GPU job's reservation held a node while 1-GPU jobs waited: {big}; "
                  f"started before it: {late_first}")

    d.stop()
    cancel_all()

    # The same sequence under Slurm alone (no time limits, as most users submit).
    slurm_ids = {}

    def via_slurm(name, gpus, seconds):
        out = slurm(["sbatch", "--parsable", "-J", f"alone-{name}", f"--gres=gpu:{gpus}",
                     "-o", "/dev/null", "--wrap", f"sleep {seconds}"])
        check(out.returncode == 0, f"sbatch: {out.stderr}")
        slurm_ids[name] = out.stdout.strip().split(";")[0]
    submitted = fill_then_big(via_slurm, time.time)
    started = {}

    def look():
        for name, i in slurm_ids.items():
            if name in started:
                continue
            state = slurm(["squeue", "-h", "-j", i, "-o", "%T"]).stdout.strip()
            if state in ("RUNNING", "COMPLETING", "COMPLETED", ""):
                started[name] = time.time()
        return "big" in started
    try:
        serve_lib.wait_until(look, 120, "Slurm alone to start the 4-GPU job", interval=0.5)
        alone_first = sorted(n for n in started if n.startswith("late-") and started[n] < started["big"])
        log(f"Slurm alone: the 4-GPU job waited {started['big'] - submitted['big']:.0f} s; later "
            f"1-GPU jobs started before it: {alone_first}")
    except serve_lib.TestFailure:
        log("Slurm alone: the 4-GPU job had not started after 120 s; later 1-GPU jobs started: "
            f"{sorted(n for n in started if n.startswith('late-'))}")
    finally:
        cancel_all()


def case_strangers(squeeze, source, h):
    d = start(squeeze, h)
    # Someone sbatches a 4-GPU job and a 2-GPU job behind squeeze's back.
    held = []
    for gpus in (4, 2):
        out = slurm(["sbatch", "--parsable", "-J", "someone-else", f"--gres=gpu:{gpus}",
                     "-o", "/dev/null", "--wrap", "sleep 300"])
        check(out.returncode == 0, f"sbatch: {out.stderr}")
        held.append(out.stdout.strip().split(";")[0])
    try:
        serve_lib.wait_until(lambda: all(squeue()[i][1] == "RUNNING" for i in held), 30,
                             "the strangers to run")
        where = {i: hostnames(squeue()[i][2])[0] for i in held}

        def others_held():
            status, nodes = d.call("GET", "/v1/nodes")
            return {n["name"]: n.get("gpus_held_by_others", 0) for n in nodes["nodes"]}
        want = {}
        for i, gpus in zip(held, (4, 2)):
            want[where[i]] = want.get(where[i], 0) + gpus
        serve_lib.wait_until(lambda: {k: v for k, v in others_held().items() if v} == want, 30,
                             f"squeeze to count the strangers' GPUs ({want})")
        out = h.run([squeeze, "nodes"],
                    env=dict(os.environ, SQUEEZE_URL=d.url, SQUEEZE_TOKEN=d.admin_token))
        check("GPUs held by jobs squeeze did not submit" in out.stdout, out.stdout + out.stderr)
        check("holds GPUs squeeze does not schedule" in d.log_text(), "the log names them")
        # Three 4-GPU jobs: east has 16 GPUs, 6 held by others: two fit now, the third waits in
        # squeeze (not in Slurm). None of squeeze's is sent to the stranger's node.
        jobs = [d.submit({"name": f"four-{k}", "gpus": 4, "command": ["sleep", "20"],
                          "estimate": "20s"}) for k in range(3)]
        serve_lib.wait_until(lambda: sum(d.job(j)["state"] == "running" for j in jobs) == 2, 30,
                             "two of them to run")
        time.sleep(3)  # a few looks
        rows = squeue()
        for j in jobs:
            info = d.job(j)
            mine = [r for r in rows.values() if r[0] == f"squeeze-{j}.1"]
            if info["state"] == "running":
                check(len(mine) == 1 and mine[0][1] == "RUNNING",
                      f"job {j} runs in Slurm too: {mine} ({info})")
                check(hostnames(mine[0][2]) == info["run_nodes"],
                      f"run_nodes agree with squeue: {info['run_nodes']} vs {mine}")
                check(where[held[0]] not in info["run_nodes"], f"not on the full node: {info}")
            else:
                check(info["state"] == "pending" and not mine,
                      f"job {j} waits in squeeze, not in Slurm: {info} {mine}")
        status, nodes = d.call("GET", "/v1/nodes")
        for n in nodes["nodes"]:
            on_slurm = [r[0] for r in rows.values()
                        if r[0].startswith("squeeze-") and n["name"] in hostnames(r[2])]
            on_squeeze = [f"squeeze-{j}.{d.job(j)['attempts']}" for j in n["jobs"]]
            check(sorted(on_slurm) == sorted(on_squeeze),
                  f"{n['name']}: squeeze says {on_squeeze}, squeue {on_slurm}")
        # The strangers end: their GPUs come back and the third job starts.
        slurm(["scancel", *held])
        third = [j for j in jobs if d.job(j)["state"] == "pending"]
        check(len(third) == 1, f"one waits: {[d.job(j) for j in jobs]}")
        d.wait_state(third[0], "running", timeout=30)
        serve_lib.wait_until(lambda: not any(others_held().values()), 30, "the GPUs given back")
        for j in jobs:
            check(d.wait_state(j, ["done", "failed"], timeout=60)["state"] == "done", f"job {j}")
    finally:
        slurm(["scancel", *held])


BATCH_SCRIPT = """#!/bin/bash
#SBATCH -J two-node-sbatch
#SBATCH -N 2
#SBATCH --ntasks-per-node=2
#SBATCH --gpus-per-node=4
#SBATCH -t 5:00
echo "batch script on $SLURMD_NODENAME: SLURM_NTASKS=$SLURM_NTASKS nodes=$SLURM_JOB_NUM_NODES"
srun bash -c 'echo "task $SLURM_PROCID of $SLURM_NTASKS on $SLURMD_NODENAME"'
echo "batch script done"
"""


def case_batch_script(squeeze, source, h):
    """A Perlmutter-style batch script of two nodes, submitted with `squeeze submit`: it runs
    once, on the first node, and its own srun starts its 2 x 2 tasks over both nodes."""
    d = start(squeeze, h)
    script = h.path("two-node.sbatch")
    with open(script, "w") as f:
        f.write(BATCH_SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SQUEEZE_")}
    env["SQUEEZE_DATA"] = d.data_dir
    r = h.run([squeeze, "submit", script], env=env, timeout=60)
    check(r.returncode == 0, f"squeeze submit {script}: exit {r.returncode}: {r.stderr}")
    job = int(re.search(r"submitted job (\d+)", r.stdout).group(1))
    j = d.wait_state(job, ["done", "failed"], timeout=120)
    text = log_of(d, job, 1)
    log(f"job {job}: {j['state']} on {j['run_nodes']}, tasks {j['tasks']}; its log:\n{text}")
    check(j["state"] == "done" and j["tasks"] == 4 and j["gpus"] == 8,
          f"job {job}: {json.dumps({k: j[k] for k in ('state', 'tasks', 'gpus', 'reason')})}")
    ran = re.findall(r"^batch script on (\S+): SLURM_NTASKS=(\d+) nodes=(\d+)$", text, re.M)
    check(len(ran) == 1, f"the script ran {len(ran)} times, not once (as sbatch runs it)")
    check(ran[0][1:] == ("4", "2"), f"the script's allocation: {ran[0]}")
    tasks = re.findall(r"^task (\d+) of (\d+) on (\S+)$", text, re.M)
    check(sorted(int(t[0]) for t in tasks) == [0, 1, 2, 3] and {t[1] for t in tasks} == {"4"},
          f"its srun started {tasks}, not tasks 0..3 of 4")
    nodes = sorted({t[2] for t in tasks})
    check(len(nodes) == 2 and nodes == sorted(j["run_nodes"]) and ran[0][0] in nodes,
          f"tasks on {nodes}, the script on {ran[0][0]}, the run on {j['run_nodes']}")
    per_node = sorted(sum(1 for t in tasks if t[2] == n) for n in nodes)
    check(per_node == [2, 2], f"--ntasks-per-node=2: tasks per node {per_node}")
    check(text.count("batch script done") == 1, "the script did not end once")


def case_elastic(squeeze, source, h):
    """An elastic job of 4-8 GPUs (whole nodes: step 4) on east, half of which an 8-GPU job
    holds: it runs on two nodes, is shrunk to one at a checkpoint so that a waiting 4-GPU job
    starts at once, grows back to two when that job ends (each run a Slurm job of its own
    --nodes), and ends done with all its steps (issue 37)."""
    d = start(squeeze, h)
    script = os.path.join(source, "examples", "jobs", "distributed-like.sh")
    blocker = d.submit({"name": "blocker", "gpus": 8, "command": ["bash", "-c", "sleep 600"]})
    d.wait_state(blocker, "running", timeout=60)
    steps = 900
    el = d.submit({"name": "elastic", "gpus": "4-8", "step": 4, "urgency": "low",
                   "preemptible": True, "checkpointable": True, "estimate": "2h",
                   "command": ["bash", script],
                   "env": {"STEPS": str(steps), "STEP_SECONDS": "0.1"}})
    j = d.wait_job(el, lambda j: j["state"] == "running", 60, "to start")
    check(len(j["run_nodes"]) == 2 and j["gpus_range"] == "4-8" and j["gpus_step"] == 4,
          f"job {el} should run on two nodes: {j['run_nodes']}, {j['gpus_range']}")
    serve_lib.wait_until(lambda: log_of(d, el, 1).count(" of 2 on ") == 2, 60, "two ranks")
    time.sleep(2)
    four = d.submit({"name": "four", "gpus": 4, "estimate": "10s",
                     "command": ["bash", "-c", "sleep 8"]})
    j = d.wait_job(el, lambda j: j["attempts"] == 2 and j["state"] == "running", 90,
                   "to run again on one node")
    check(len(j["run_nodes"]) == 1, f"job {el}'s second run is on {j['run_nodes']}")
    check(any(f"shrunk from 8 to 4 GPUs for job {four}" in e["text"] for e in j["history"]),
          f"job {el}'s history: {j['history']}")
    f = d.wait_job(four, lambda j: j["state"] in ("running", "done"), 60, "to start")
    check(f["wait_s"] <= 30, f"job {four} waited {f['wait_s']} s behind the shrink")
    serve_lib.wait_until(lambda: "world 4, GPUs 0,1,2,3 (4 per node)" in log_of(d, el, 2), 60,
                         "the second run's one rank")
    d.wait_state(four, "done", timeout=90)
    j = d.wait_job(el, lambda j: j["attempts"] == 3 and j["state"] == "running", 120,
                   "to grow back to two nodes")
    check(len(j["run_nodes"]) == 2, f"job {el}'s third run is on {j['run_nodes']}")
    check(any("grown from 4 to 8 GPUs" in e["text"] for e in j["history"]),
          f"job {el}'s history: {j['history']}")
    d.call("POST", f"/v1/jobs/{blocker}/cancel")
    j = d.wait_state(el, ["done", "failed"], timeout=240)
    third = log_of(d, el, 3)
    check(j["state"] == "done" and j["preemptions"] == 0, f"job {el}: {j}")
    check(third.count(f"done at step {steps}") == 2 and third.count("resumes from step") == 2,
          f"job {el}'s last run did not resume and finish on both ranks:\n{third[-800:]}")
    resumed = [int(s) for s in re.findall(r"resumes from step (\d+)", log_of(d, el, 2) + third)]
    check(all(s > 0 for s in resumed), f"resumed from saved steps: {resumed}")
    for attempt, nodes in ((1, 2), (2, 1), (3, 2)):
        check(log_of(d, el, attempt).count(f" of {nodes} on ") == nodes,
              f"attempt {attempt} should have {nodes} ranks: {log_of(d, el, attempt)[:400]}")
    log(f"elastic: runs on 2, 1, 2 nodes; resumed from {resumed}")


def case_topology(squeeze, source, h):
    """East's topology.conf puts east-n0, n1 under leaf switch east-s0 and n2, n3 under east-s1.
    A 2-GPU job on one node of s0 leaves s0 room for a 2 x 4-GPU job only across the switches
    (one whole node there); aware of the switches squeeze runs it on n2 and n3, under one
    switch; with topology_aware=false the same sequence runs it across (issue 38)."""
    blocks = {"east-n0": "s0", "east-n1": "s0", "east-n2": "s1", "east-n3": "s1"}

    def run(name, extra):
        d = start(squeeze, h, name=name, extra=("--set", "min_runtime=0s", *extra))
        check("3 switches from scontrol show topology" in d.log_text(),
              f"the daemon should read east's switches:\n{d.log_text()[-1500:]}")
        nodes = {n["name"]: n for n in d.call("GET", "/v1/nodes")[1]["nodes"]}
        check(nodes["east-n2"].get("topology") == {"switch": "east/east-s1",
                                                   "switch2": "east/east-top"},
              f"east-n2's domains: {nodes['east-n2']}")
        small = d.submit({"name": "small", "gpus": 2, "command": ["bash", "-c", "sleep 600"]})
        s = d.wait_state(small, "running", timeout=60)
        big = d.submit({"name": "two-nodes", "gpus": 8, "command": ["bash", "-c", "sleep 600"]})
        b = d.wait_state(big, "running", timeout=90)
        placed = sorted(b["run_nodes"])
        log(f"{name}: the 2-GPU job on {s['run_nodes']}, the 2-node job on {placed} "
            f"(switches {[blocks[n] for n in placed]})")
        def in_slurm():
            return [r for r in squeue().values() if r[0] == f"squeeze-{big}.1" and r[2]]
        serve_lib.wait_until(in_slurm, 60, f"Slurm to run job {big}", interval=0.5)
        mine = in_slurm()
        check(len(mine) == 1 and sorted(hostnames(mine[0][2])) == placed,
              f"Slurm runs job {big} where squeeze placed it ({placed}): {mine}")
        d.stop()
        cancel_all()
        return s["run_nodes"], placed
    small_nodes, placed = run("aware", ())
    check(len(small_nodes) == 1 and blocks[small_nodes[0]] == "s0",
          f"the 2-GPU job should be under s0 (the lowest nodes): {small_nodes}")
    check(len(placed) == 2 and blocks[placed[0]] == blocks[placed[1]],
          f"the 2-node job should be under one switch: {placed}")
    _, blind = run("blind", ("--set", "topology_aware=false"))
    check(len(blind) == 2 and blocks[blind[0]] != blocks[blind[1]],
          f"blind to the switches, the 2-node job should go across (s0 had a whole node free): "
          f"{blind}")


CASES = {"topology": case_topology, "elastic": case_elastic, "distributed": case_distributed, "reservation": case_reservation,
         "strangers": case_strangers, "torch": case_torch, "batch_script": case_batch_script}

if __name__ == "__main__":
    if len(sys.argv) > 3:
        SOURCE = os.path.abspath(sys.argv[3])
    sys.exit(serve_lib.main(CASES, sys.argv,
                            lambda began: serve_lib.slurm_log_digest(ROOT, began)))
