#!/usr/bin/python3
"""Slurm alone and squeeze on the same multi-node Slurm cluster, the same jobs at the same times
(issue 21). One run replays a window of a busy Philly day three times, one after the other, on
one fresh cluster of scripts/slurm-clusters.sh (its own root, ports and munged):

  slurm        Slurm alone, configured as a site would (sched/backfill, multifactor priority by
               age and size, a high partition that preempts the low one with requeue), each job
               submitted with sbatch at its arrival time, with no time limit (as most users);
  slurm-time   the same with each job's true duration as --time (Slurm's best case);
  squeeze      squeeze serve with the cluster as its pool (its default policy, no estimates),
               the same jobs submitted to it at the same times.

Jobs: the trace's GPU counts and durations, time compressed by one factor so that the arrivals
span --arrivals seconds; a compressed duration is at least 1 s and at most --cap s (the jobs
capped are counted). Every job is training-like and checkpointable (examples/jobs/train-like.sh:
steps of 0.5 s, a checkpoint every fifth of its steps and when asked); --high of them (chosen
by a seeded draw) are urgent: Slurm's high partition, squeeze's urgency high; the others are
Slurm's low partition, squeeze's preemptible normal jobs.

For each run: the Unix accounts Slurm ran its jobs as (job_users: the --user alone), jobs
done, jobs Slurm killed at their --time (slurm-time: a job that runs longer than its trace
duration, as on a loaded machine, is killed), jobs whose batch launch failed and that Slurm
held (released by the harness, as a user would: relaunch), mean and p95 wait (first start -
submit), mean JCT (end - submit), GPU utilization (allocated GPUs as squeue shows them every
2 s, over the make-span), preemptions (Slurm's requeues; squeeze's preemptions) and make-span
(first submit to last end). Printed as a table, and as JSON with --json.

The jobs belong to a plain Unix account, --user (issue 37), as a site's jobs do: Slurm alone's
are submitted by that account's own sbatch (run as it, from a working folder of its own, with a
user's plain environment: PATH, HOME, USER, LOGNAME, SHELL, LANG and SLURM_CONF, exported with
--export=ALL as sbatch does by default), squeeze's with a token of that account (squeeze serve,
root, runs them as it on the nodes, through sbatch --uid/--gid). Root's jobs are not what a
cluster runs, and run as root on this machine (issue 37) Slurm's launches loaded root's slow
login environment: on VC 6c71a0 from 2017-10-20 the Slurm-alone run drained all four nodes
("Duplicate jobid") within 13 minutes, leaving 189 jobs pending, and squeeze's run saw Slurm
requeue its launches. Without --user the harness refuses (it runs a cluster only as root);
`--user root` runs the jobs as root, as it did before, on purpose.
(slurm_bench runs its jobs as root without --user; here a figure taken as root is not a
figure of Slurm, so the account must be named.)

While a run goes, the nodes are watched (sinfo --json every 2 s, `scontrol -o show node` when
that fails): a node that becomes DRAIN/DRAINED/DRAINING, DOWN or FAIL/FAILING stops the run at
once: its jobs are cancelled, squeeze serve and the cluster stopped, the runs finished before
it printed, and the harness exits 1 naming the node, its state and Slurm's reason, e.g.
  slurm_side_by_side: node sbs-n2 drained during run 'slurm' (state MIXED+DRAIN): Duplicate
  jobid (set by root); the figures of this run are not valid
(the figures of a run on fewer nodes than it was given are not a comparison).

Usage (as root, Slurm installed: bash scripts/slurm-clusters.sh install; a plain account:
bash tests/test_accounts.sh create makes sqz-alice and others, remove removes them):
  /usr/bin/python3 bench/slurm_side_by_side.py --squeeze build/squeeze --user sqz-alice
      [--jobs 320] [--arrivals 480] [--cap 150] [--nodes 4] [--gpus 8]
      [--runs slurm,slurm-time,squeeze] [--json out.json]
CI runs a short version: --jobs 30 --arrivals 25 --cap 10 --user sqz-alice
(tests/slurm_side_by_side_test.sh, which also drains a node during a run and checks the stop).
"""

import argparse
import csv
import datetime
import json
import os
import pwd
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--squeeze", required=True, help="the squeeze binary")
    p.add_argument("--user", help="the Unix account whose jobs these are (Slurm alone: its own"
                   " sbatch; squeeze: a token of it); required for a cluster run, 'root' runs"
                   " them as root on purpose")
    shared = os.environ.get("SQUEEZE_SHARED", os.path.join(SOURCE, "..", "shared"))
    p.add_argument("--trace", default=os.path.join(shared, "traces", "philly", "philly.csv"))
    p.add_argument("--vc", default="6214e9", help="the Philly virtual cluster")
    p.add_argument("--start", default="2017-10-04 10:00:00", help="the window's first second")
    p.add_argument("--jobs", type=int, default=320)
    p.add_argument("--arrivals", type=float, default=480, help="seconds the arrivals span")
    p.add_argument("--cap", type=float, default=150, help="longest compressed duration, s")
    p.add_argument("--nodes", type=int, default=4)
    p.add_argument("--gpus", type=int, default=8, help="GPUs per node")
    p.add_argument("--high", type=float, default=0.1, help="share of urgent jobs")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--runs", default="slurm,slurm-time,squeeze")
    p.add_argument("--root", default="/tmp/squeeze-slurm-sbs")
    p.add_argument("--port-base", type=int, default=6847)
    p.add_argument("--timeout", type=float, default=1800, help="per run, seconds")
    p.add_argument("--json", help="write the results here")
    p.add_argument("--predict", action="store_true",
                   help="no cluster: replay the same window in squeeze's simulator (4 nodes x 8"
                   " GPUs, the real day's times, durations capped as here) under backfill (Slurm"
                   " alone without time limits), srtf (an oracle that knows every duration and"
                   " preempts for free), squeeze and sliced, and print mean waits in this"
                   " benchmark's compressed seconds")
    p.add_argument("--elastic", type=float, default=0, metavar="FACTOR",
                   help="squeeze's jobs elastic between 1 GPU and FACTOR times their width (within"
                   " one node; jobs of whole nodes stay as they are), each step as fast as"
                   " Amdahl's law with --parallel says on the GPUs its run has (Slurm alone runs"
                   " them at their width, as fast as without it); 0: fixed, as in the trace")
    p.add_argument("--parallel", type=float, default=0.95,
                   help="the parallel share of the jobs' work with --elastic (amdahl:P)")
    p.add_argument("--squeeze-unscaled", action="store_true",
                   help="keep squeeze's policy times as they are (min_runtime 5 min, slices 30 min)"
                   " instead of compressing them by the trace's factor")
    return p.parse_args(argv)


def load_jobs(a):
    """The window: the first --jobs jobs of the VC from --start that fit the cluster."""
    start = datetime.datetime.strptime(a.start, "%Y-%m-%d %H:%M:%S")
    rows = []
    with open(a.trace) as f:
        for r in csv.DictReader(f):
            if r["cluster"] != a.vc:
                continue
            t = datetime.datetime.strptime(r["timestamp"], "%Y-%m-%d %H:%M:%S")
            if t < start:
                continue
            rows.append((t, float(r["duration"]), int(float(r["num_gpus"]))))
            rows[-1] = rows[-1] + (r["timestamp"],)
    rows.sort()
    too_big = [r for r in rows[:a.jobs * 2] if r[2] > a.nodes * a.gpus or
               (r[2] > a.gpus and r[2] % a.gpus)]
    rows = [r for r in rows if r[2] <= a.nodes * a.gpus and (r[2] <= a.gpus or r[2] % a.gpus == 0)]
    rows = rows[:a.jobs]
    if len(rows) < a.jobs:
        sys.exit(f"only {len(rows)} jobs of VC {a.vc} from {a.start} fit the cluster")
    t0 = rows[0][0]
    span = max(1.0, (rows[-1][0] - t0).total_seconds())
    factor = span / a.arrivals
    rng = random.Random(a.seed)
    jobs, capped = [], 0
    for k, (t, d, g, _) in enumerate(rows):
        duration = d / factor
        if duration > a.cap:
            capped += 1
        duration = min(a.cap, max(1.0, duration))
        jobs.append({"name": f"sbs-{k}", "at": (t - t0).total_seconds() / factor, "gpus": g,
                     "timestamp": rows[k][3],
                     "seconds": round(duration, 1), "high": rng.random() < a.high})
    info = {"vc": a.vc, "from": str(t0), "to": str(rows[-1][0]), "jobs": len(jobs),
            "factor": round(factor, 2), "capped": capped, "skipped_too_big": len(too_big),
            "gpu_seconds": round(sum(j["gpus"] * j["seconds"] for j in jobs)),
            "high": sum(j["high"] for j in jobs)}
    return jobs, info


def train_env(job, ckpt_root, a=None):
    steps = max(1, round(job["seconds"] / 0.5))
    env = {"STEPS": str(steps), "STEP_SECONDS": "0.5",
           "CHECKPOINT_EVERY": str(max(1, steps // 5)), "STOP_AFTER_CHECKPOINT": "1"}
    if a is not None and a.elastic > 0:  # a step of 0.5 s on its width, else by Amdahl's law
        env.update(REFERENCE_GPUS=str(job["gpus"]), AMDAHL_P=str(a.parallel))
    return env


def elastic_range(job, a):
    """The GPUs squeeze's copy of a job asks for: its width, or with --elastic a range 1 to
    FACTOR x its width within one node ("1-2"); jobs of whole nodes keep theirs."""
    if a.elastic <= 0 or job["gpus"] > a.gpus:
        return job["gpus"]
    top = min(a.gpus, max(1, int(job["gpus"] * a.elastic)))
    return f"1-{top}" if top > 1 else 1


class Account:
    """The Unix account whose jobs these are: what it runs, it runs as itself (uid, gid, its
    groups) from a plain environment, as a user's shell would."""

    def __init__(self, name):
        try:
            pw = pwd.getpwnam(name)
        except KeyError:
            sys.exit(f"slurm_side_by_side: --user {name}: no Unix account '{name}' on this machine"
                     " (bash tests/test_accounts.sh create makes sqz-alice and others)")
        self.name, self.uid, self.gid, self.home = pw.pw_name, pw.pw_uid, pw.pw_gid, pw.pw_dir
        self.shell = pw.pw_shell or "/bin/bash"
        self.groups = os.getgrouplist(pw.pw_name, pw.pw_gid)

    def env(self, **extra):
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": self.home, "USER": self.name,
               "LOGNAME": self.name, "SHELL": self.shell,
               "LANG": os.environ.get("LANG", "C.UTF-8")}
        env.update(extra)
        return env

    def run(self, argv, timeout=60, **kw):
        """argv as this account (for root: as it is); a run past timeout answers rc 124."""
        if self.uid != 0:
            kw.update(user=self.uid, group=self.gid, extra_groups=self.groups)
        try:
            return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kw)
        except subprocess.TimeoutExpired:
            return subprocess.CompletedProcess(argv, 124, "", f"{argv[0]}: over {timeout} s")

    def own(self, *paths):
        for path in paths:
            os.chown(path, self.uid, self.gid)

    def check_can_run(self, root):
        """The job's script and the run's folders must be this account's to reach."""
        script = os.path.join(SOURCE, "examples", "jobs", "train-like.sh")
        for test, path, what in (("-r", script, "read the job script"),
                                 ("-x", root, "enter the run's root folder")):
            if self.run(["test", test, path], env=self.env()).returncode != 0:
                sys.exit(f"slurm_side_by_side: user {self.name} cannot {what} {path}: the jobs run"
                         f" as {self.name} (give the account access, or run from a checkout it"
                         " can read)")


class NodeTrouble(Exception):
    """A node of the cluster drained, went down or failed while a run went: its figures are not
    valid."""


# A node in any of these (its state or a flag of it) stops the run.
TROUBLE_WORDS = {"DRAIN", "DRAINED", "DRAINING", "DOWN", "FAIL", "FAILING"}


def _state_words(state):
    """'MIXED+DRAIN' / 'down*' / 'drained~' -> {'MIXED', 'DRAIN'} / {'DOWN'} / {'DRAINED'}."""
    return {w.strip().rstrip("*~#!%$@^-").upper() for w in str(state).split("+") if w.strip()}


def node_in_trouble(node):
    return bool((_state_words(node["state"]) | {f.upper() for f in node["flags"]}) & TROUBLE_WORDS)


def node_state_text(node):
    words = [str(node["state"]).upper()] + [f for f in node["flags"]
                                             if f.upper() not in _state_words(node["state"])]
    return "+".join(w for w in words if w)


def parse_sinfo_json(text):
    """sinfo --json (openapi v0.0.38, Slurm 22.05) -> [{name, state, flags, reason, by}].
    Raises ValueError on anything that is not that."""
    try:
        doc = json.loads(text)
    except (TypeError, ValueError) as e:
        raise ValueError(f"sinfo --json: not JSON ({e})")
    if not isinstance(doc, dict) or not isinstance(doc.get("nodes"), list):
        raise ValueError("sinfo --json: no 'nodes' array")
    nodes = []
    for i, n in enumerate(doc["nodes"]):
        if not isinstance(n, dict):
            raise ValueError(f"sinfo --json: nodes[{i}] is not an object")
        name, state = n.get("name"), n.get("state")
        if not isinstance(name, str) or not name:
            raise ValueError(f"sinfo --json: nodes[{i}] has no name")
        if not isinstance(state, str) or not state:
            raise ValueError(f"sinfo --json: node {name} has no state")
        flags = n.get("state_flags") or []
        if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
            raise ValueError(f"sinfo --json: node {name}: state_flags is not a list of words")
        reason, by = n.get("reason"), n.get("reason_set_by_user")
        nodes.append({"name": name, "state": state, "flags": flags,
                      "reason": reason.strip() if isinstance(reason, str) else "",
                      "by": by if isinstance(by, str) else ""})
    return nodes


def parse_scontrol_nodes(text):
    """scontrol show node (one line per node with -o, or the multi-line records) -> the same
    as parse_sinfo_json. Raises ValueError when there is no node or a node has no State=."""
    records = re.split(r"(?m)^(?=\s*NodeName=)", text or "")
    nodes = []
    for rec in records:
        m = re.match(r"\s*NodeName=(\S+)", rec)
        if not m:
            if rec.strip():
                raise ValueError(f"scontrol show node: text before any NodeName=: {rec[:60]!r}")
            continue
        name = m.group(1)
        st = re.search(r"(?:^|\s)State=(\S+)", rec)
        if not st:
            raise ValueError(f"scontrol show node: node {name} has no State=")
        reason, by = "", ""
        r = re.search(r"(?:^|\s)Reason=([^\n]*)", rec)
        if r:
            said = r.group(1)
            # "Duplicate jobid [root@2017-10-20T10:00:00]", maybe followed by other Key=s.
            b = re.search(r"\s*\[([^\]@\s]+)@[^\]]*\]", said)
            if b:
                reason, by = said[:b.start()], b.group(1)
            else:
                reason = re.split(r"\s+(?=[A-Z][A-Za-z_]*=)", said)[0]
        nodes.append({"name": name, "state": st.group(1), "flags": [], "reason": reason.strip(),
                      "by": by})
    if not nodes:
        raise ValueError("scontrol show node: no NodeName= records")
    return nodes


def trouble_message(troubled, run, when="during"):
    """The harness's last words when nodes are in trouble: each node, its state, Slurm's
    reason."""
    parts = []
    for n in troubled:
        words = _state_words(n["state"]) | {f.upper() for f in n["flags"]}
        verb = ("drained" if words & {"DRAIN", "DRAINED", "DRAINING"} else
                "went down" if "DOWN" in words else "failed")
        reason = n["reason"] or "Slurm gave no reason"
        if n["by"]:
            reason += f" (set by {n['by']})"
        parts.append(f"node {n['name']} {verb} {when} run '{run}' (state {node_state_text(n)}):"
                     f" {reason}")
    return ("slurm_side_by_side: " + "; ".join(parts) +
            "; the figures of this run are not valid")


class Cluster:
    def __init__(self, a):
        self.a = a
        self.alarm = threading.Event()  # set (with self.trouble) when a node is in trouble
        self.trouble = None
        self.env = dict(os.environ, SQUEEZE_SLURM_ROOT=a.root,
                        SQUEEZE_SLURM_PORT_BASE=str(a.port_base),
                        SQUEEZE_SLURM_CLUSTERS=f"sbs:{a.nodes}", SQUEEZE_SLURM_GPUS=str(a.gpus),
                        SQUEEZE_SLURM_CPUS=str(max(16, a.gpus * 4)),
                        SQUEEZE_SLURM_PRIORITY="multifactor")
        self.conf = f"{a.root}/sbs/etc/slurm.conf"
        self.script = os.path.join(SOURCE, "scripts", "slurm-clusters.sh")

    def run(self, *args):
        out = subprocess.run(["bash", self.script, *args], env=self.env, capture_output=True,
                             text=True, timeout=180)
        if out.returncode != 0:
            sys.exit(f"slurm-clusters.sh {' '.join(args)}: {out.stderr}")

    def slurm(self, argv, timeout=60):
        try:
            return subprocess.run(argv, env=dict(os.environ, SLURM_CONF=self.conf),
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:  # answered as a failed call: the caller looks again
            return subprocess.CompletedProcess(argv, 124, "", f"{argv[0]}: over {timeout} s")

    def nodes(self):
        """Every node as sinfo --json says (scontrol -o show node when that fails); None when
        neither answers."""
        out = self.slurm(["sinfo", "--json"], timeout=30)
        try:
            if out.returncode == 0:
                return parse_sinfo_json(out.stdout)
        except ValueError:
            pass
        out = self.slurm(["scontrol", "-o", "show", "node"], timeout=30)
        try:
            return parse_scontrol_nodes(out.stdout) if out.returncode == 0 else None
        except ValueError:
            return None

    def watch_nodes(self, run, when="during"):
        """Raises the alarm (and returns its message) when a node is drained, down or failed."""
        troubled = [n for n in self.nodes() or [] if node_in_trouble(n)]
        if troubled and not self.alarm.is_set():
            self.trouble = trouble_message(troubled, run, when)
            self.alarm.set()
        return self.trouble if troubled else None

    def check(self):
        """Stops the run (NodeTrouble) once the alarm is up."""
        if self.alarm.is_set():
            raise NodeTrouble(self.trouble)

    def cancel_all(self):
        ids = self.slurm(["squeue", "-h", "-o", "%i"]).stdout.split()
        if ids:
            self.slurm(["scancel", *ids])
        return len(ids)


class Sampler:
    """squeue --json every 2 s: each Slurm job's first start, end, restarts; allocated GPUs.
    A job whose batch launch failed (slurmd did not start it within BatchStartTimeout, as on a
    loaded machine) is requeued and held by Slurm; it is released, as the user or an admin
    would, and counted (launch_failures), so that Slurm alone finishes what it was given
    (squeeze's runs are left alone: squeeze cancels such a copy and queues the job again).
    Each time, the nodes too (Cluster.watch_nodes): one drained, down or failed raises the
    cluster's alarm, which stops the run."""

    def __init__(self, cluster, run, release_held=False):
        self.cluster = cluster
        self.run = run
        self.release_held = release_held  # Slurm alone's runs only: squeeze handles its own
        self.launch_failures = 0  # jobs released from "launch failed requeued held"
        self.jobs = {}        # Slurm id -> dict(name, submit, first_start, end, restarts, state)
        self.gpus_busy = []   # (time, allocated GPUs)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def loop(self):
        while not self.stop.is_set():
            for step in (self.look, lambda: self.cluster.watch_nodes(self.run)):
                try:  # one odd answer must not end the sampling, nor the watch
                    step()
                except Exception as e:  # noqa: BLE001
                    print(f"slurm_side_by_side: sampling: {type(e).__name__}: {e}",
                          file=sys.stderr)
            self.stop.wait(2)

    def finish(self):
        self.stop.set()
        self.thread.join()

    def look(self):
        out = self.cluster.slurm(["squeue", "--json", "-t", "all"])
        if out.returncode != 0:
            return
        try:
            listed = json.loads(out.stdout)["jobs"]
        except (ValueError, KeyError):
            return
        now, busy = time.time(), 0
        held = [j["job_id"] for j in listed if self.release_held and j["job_state"] == "PENDING" and
                LaunchFailedHeld(j)]
        if held:
            self.cluster.slurm(["scontrol", "release", *map(str, held)])
            self.launch_failures += len(held)
        for j in listed:
            rec = self.jobs.setdefault(j["job_id"], {"name": j["name"], "submit": j["submit_time"],
                                                     "first_start": None, "end": None,
                                                     "restarts": 0, "state": None})
            rec["state"] = j["job_state"]
            rec["user"] = j.get("user_name") or str(j.get("user_id"))
            rec["restarts"] = max(rec["restarts"], j.get("restart_cnt") or 0)
            if j["job_state"] in ("RUNNING", "COMPLETING") or j["job_state"] in ENDED:
                start = j.get("start_time") or 0
                if start > 0 and (rec["first_start"] is None or start < rec["first_start"]):
                    rec["first_start"] = start
            if j["job_state"] in ENDED and j.get("end_time"):
                rec["end"] = j["end_time"]
            if j["job_state"] == "RUNNING":
                for g in j.get("gres_detail") or []:
                    busy += GresCount(g)
        self.gpus_busy.append((now, busy))


def LaunchFailedHeld(job):
    """Slurm's "launch failed requeued held": squeue's %r prints the state description, which
    --json gives as state_description (state_reason is then JobHeldAdmin or BeginTime)."""
    said = " ".join(str(job.get(k) or "") for k in ("state_reason", "state_description"))
    said = said.lower().replace("_", " ")
    return "launch failed" in said and "held" in said


ENDED = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL",
         "DEADLINE", "OUT_OF_MEMORY"}


def GresCount(g):  # "gpu:2(IDX:0-1)" -> 2
    try:
        return int(g.split("(")[0].split(":")[-1])
    except ValueError:
        return 0


def replay(jobs, submit, cluster):
    """Submits each job at its arrival time (seconds after the start); returns the start.
    Stops (NodeTrouble) as soon as the cluster's alarm is up."""
    t0 = time.time()
    for job in sorted(jobs, key=lambda j: j["at"]):
        delay = t0 + job["at"] - time.time()
        if delay > 0:
            cluster.alarm.wait(delay)
        cluster.check()
        submit(job)
    return t0


def wait_for(cluster, done, timeout, every):
    """Until done() or timeout seconds; stops (NodeTrouble) as soon as the alarm is up."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        cluster.check()
        if done():
            return
        cluster.alarm.wait(every)
    cluster.check()


def summarize(waits, jcts, busy, first_submit, last_end, gpus_total, preemptions, done, n,
              timed_out=0, launch_failures=0):
    waits, jcts = sorted(waits), sorted(jcts)
    makespan = max(1e-9, last_end - first_submit)
    samples = [b for t, b in busy if first_submit <= t <= last_end]
    util = (sum(samples) / len(samples) / gpus_total) if samples else 0
    return {"jobs_done": done, "jobs": n, "jobs_timed_out": timed_out,
            "launch_failures": launch_failures,
            "mean_wait_s": round(sum(waits) / len(waits), 1) if waits else None,
            "p95_wait_s": round(waits[min(len(waits) - 1, int(len(waits) * 0.95))], 1) if waits else None,
            "mean_jct_s": round(sum(jcts) / len(jcts), 1) if jcts else None,
            "gpu_utilization": round(util, 3), "preemptions": preemptions,
            "makespan_s": round(makespan, 1)}


def run_slurm(a, cluster, account, jobs, with_time):
    run = "slurm-time" if with_time else "slurm"
    workdir = os.path.join(a.root, "work-" + ("time" if with_time else "plain"))
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    wrapper = os.path.join(workdir, "job.sh")
    with open(wrapper, "w") as f:
        f.write("#!/bin/bash\n# a training-like job as a Slurm user runs it: its own checkpoint "
                "folder, resumed after a requeue\nexport SQUEEZE_CHECKPOINT_DIR=" + workdir +
                "/ckpt/$SLURM_JOB_NAME\nmkdir -p $SQUEEZE_CHECKPOINT_DIR\n"
                "[[ -s $SQUEEZE_CHECKPOINT_DIR/COMPLETE ]] && export SQUEEZE_RESUME=1\n"
                f"exec bash {SOURCE}/examples/jobs/train-like.sh\n")
    os.chmod(wrapper, 0o755)
    account.own(workdir, wrapper)  # the user's folder: sbatch's working folder, the checkpoints
    cluster.watch_nodes(run, when="before")
    cluster.check()
    sampler = Sampler(cluster, run, release_held=True)
    sampler.thread.start()
    submitted = {}
    prefix = "time-" if with_time else "plain-"  # Slurm lists the last run's jobs too
    names = {prefix + j["name"] for j in jobs}
    # The user's own sbatch, from their folder, with a user's environment (--export=ALL, as
    # sbatch exports by default): nothing of root's reaches the job.
    submit_env = account.env(SLURM_CONF=cluster.conf)

    def submit(job):
        env = train_env(job, workdir, a)
        argv = ["sbatch", "--parsable", "-J", prefix + job["name"], "-p", "high" if job["high"] else "low",
                "--requeue", "-o", "/dev/null",
                "--export=ALL," + ",".join(f"{k}={v}" for k, v in env.items())]
        if job["gpus"] > a.gpus:  # whole nodes, as the window's jobs of several nodes come
            argv += [f"--nodes={job['gpus'] // a.gpus}", f"--gres=gpu:{a.gpus}"]
        else:
            argv.append(f"--gres=gpu:{job['gpus']}")
        if with_time:
            limit = int(job["seconds"]) + 2
            argv.append(f"--time={limit // 60}:{limit % 60:02d}")
        argv.append(wrapper)
        submitted[job["name"]] = time.time()
        out = account.run(argv, env=submit_env, cwd=workdir)
        if out.returncode != 0:
            print(f"sbatch {job['name']} (as {account.name}): {out.stderr.strip()}",
                  file=sys.stderr)
    try:
        replay(jobs, submit, cluster)
        wait_for(cluster, lambda: len([r for r in list(sampler.jobs.values()) if r["name"] in names
                                       and r["state"] in ENDED]) >= len(names), a.timeout, 2)
    finally:
        sampler.finish()
    sampler.look()
    cluster.watch_nodes(run)  # a node lost at the very end spoils the run too
    cluster.check()
    recs = [r for r in sampler.jobs.values() if r["name"] in names]
    left = [r["name"] for r in recs if r["state"] not in ENDED]
    if left:  # what Slurm says of them, for the reader of a run that did not finish
        out = cluster.slurm(["squeue", "-h", "-t", "all", "-o", "%i %j %T %r %S %e"])
        print(f"not ended after {a.timeout:.0f} s: {', '.join(left)}\n" + "\n".join(
            line for line in out.stdout.splitlines() if line.split()[1] in left), file=sys.stderr)
    waits = [r["first_start"] - r["submit"] for r in recs if r["first_start"]]
    jcts = [r["end"] - r["submit"] for r in recs if r["end"]]
    done = sum(1 for r in recs if r["state"] == "COMPLETED")
    # Killed by Slurm at their --time: on a loaded machine a job's steps (and Slurm's own start
    # of it) run longer than its true duration, and a limit set to that duration ends it.
    timed_out = sum(1 for r in recs if r["state"] == "TIMEOUT")
    if not recs:
        sys.exit(f"slurm_side_by_side: run '{run}': Slurm lists none of its jobs (was every"
                 f" sbatch of {account.name} refused? see above)")
    first = min(r["submit"] for r in recs)
    last = max((r["end"] for r in recs if r["end"]), default=time.time())
    return dict(summarize(waits, jcts, sampler.gpus_busy, first, last, a.nodes * a.gpus,
                          sum(r["restarts"] for r in recs), done, len(names), timed_out,
                          sampler.launch_failures),
                job_users=sorted({r["user"] for r in recs}))


def run_squeeze(a, cluster, account, jobs, factor):
    data = os.path.join(a.root, "squeeze-data")
    shutil.rmtree(data, ignore_errors=True)
    config = os.path.join(a.root, "squeeze-pool.yaml")
    with open(config, "w") as f:
        # The urgent jobs' team may ask for urgency high, as anyone may use Slurm's high
        # partition here (squeeze's default ceiling for a user is normal).
        f.write(f"pools:\n  - name: sbs\n    backend: slurm\n"
                f"    slurm: {{cluster: sbs, conf: {cluster.conf}}}\n"
                f"limits:\n  teams:\n    bench: {{max_urgency: high}}\n")
    cluster.watch_nodes("squeeze", when="before")
    cluster.check()
    # The jobs are the account's: submitted with a token of theirs, run as them on the nodes
    # (sbatch --uid/--gid by the root daemon). Only --user root needs --allow-root-jobs.
    os.makedirs(data)
    token = None
    if account.uid != 0:
        out = subprocess.run([a.squeeze, "token", "add", account.name, "bench", "--data", data],
                             capture_output=True, text=True, timeout=60)
        token = out.stdout.split()[0] if out.returncode == 0 and out.stdout.split() else None
        if not token:
            sys.exit(f"slurm_side_by_side: no squeeze token for {account.name}: {out.stderr}")
    log = open(os.path.join(a.root, "squeeze.log"), "w")
    # Time is compressed for the whole system: the policy's own durations too (a job protected
    # for 5 minutes of a real day is protected for 5 min / factor here).
    scaled = [] if a.squeeze_unscaled else [
        "--set", f"min_runtime={max(1, round(300 / factor))}s",
        "--set", f"slice={max(1, round(1800 / factor))}s"]
    root_jobs = ["--allow-root-jobs"] if account.uid == 0 else []
    daemon = subprocess.Popen([a.squeeze, "serve", "--data", data, "--listen", "127.0.0.1:0",
                               "--config", config, *root_jobs, *scaled],
                              stdout=log, stderr=subprocess.STDOUT)
    sampler = None
    try:
        for _ in range(300):
            if os.path.exists(f"{data}/serve.url") and os.path.exists(f"{data}/admin.token"):
                break
            if daemon.poll() is not None:
                break
            time.sleep(0.1)
        if not os.path.exists(f"{data}/serve.url"):
            log.flush()
            sys.exit("slurm_side_by_side: squeeze serve did not start:\n" +
                     open(os.path.join(a.root, "squeeze.log")).read()[-2000:])
        url = open(f"{data}/serve.url").read().strip()
        if token is None:
            token = open(f"{data}/admin.token").read().strip()

        def call(method, path, body=None):
            req = urllib.request.Request(url + path, method=method,
                                         data=json.dumps(body).encode() if body else None,
                                         headers={"Authorization": f"Bearer {token}",
                                                  "Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=30) as r:
                    return json.loads(r.read())
            except urllib.error.HTTPError as e:
                if e.code in (401, 503):  # the token not yet known; the daemon not yet ready
                    raise
                sys.exit(f"slurm_side_by_side: squeeze serve answered {method} {path} with"
                         f" {e.code}: {e.read().decode(errors='replace')[:500]}")
        for _ in range(300):  # the daemon up, and the token known to it
            try:
                call("GET", "/v1/jobs")
                break
            except OSError:
                time.sleep(0.1)
        sampler = Sampler(cluster, "squeeze")
        sampler.thread.start()
        ids = {}

        def submit(job):
            body = {"name": job["name"], "gpus": elastic_range(job, a), "checkpointable": True,
                    "preemptible": not job["high"], "urgency": "high" if job["high"] else "normal",
                    "command": ["bash", f"{SOURCE}/examples/jobs/train-like.sh"],
                    "env": train_env(job, None, a)}
            if isinstance(body["gpus"], str):  # a range: how much faster it runs wider
                body["scaling"] = f"amdahl:{a.parallel}"
            ids[job["name"]] = call("POST", "/v1/jobs", body)["id"]
        replay(jobs, submit, cluster)
        wait_for(cluster, lambda: all(call("GET", f"/v1/jobs/{i}")["state"] in
                                      ("done", "failed", "cancelled") for i in ids.values()),
                 a.timeout, 3)
        sampler.finish()
        sampler.look()
        cluster.watch_nodes("squeeze")
        cluster.check()
        # Starts and ends as Slurm ran them (every attempt is a Slurm job squeeze-ID.ATTEMPT),
        # against the time the job was submitted to squeeze: measured as Slurm's own runs are.
        attempts = {}
        for r in sampler.jobs.values():
            if r["name"].startswith("squeeze-"):
                attempts.setdefault(int(r["name"][8:].split(".")[0]), []).append(r)
        waits, jcts, pre, done, first, last = [], [], 0, 0, None, 0
        for name, i in ids.items():
            j = call("GET", f"/v1/jobs/{i}")
            sub = ts(j["submitted_at"])
            runs = attempts.get(i, [])
            starts = [r["first_start"] for r in runs if r["first_start"]]
            ends = [r["end"] for r in runs if r["end"]]
            first = sub if first is None else min(first, sub)
            if starts:
                waits.append(min(starts) - sub)
            if j["state"] in ("done", "failed") and ends:
                jcts.append(max(ends) - sub)
                last = max(last, max(ends))
            pre += j["preemptions"]
            done += j["state"] == "done"
        users = {r["user"] for rs in attempts.values() for r in rs}
        return dict(summarize(waits, jcts, sampler.gpus_busy, first, last or time.time(),
                              a.nodes * a.gpus, pre, done, len(ids)), job_users=sorted(users))
    finally:
        if sampler:
            sampler.finish()
        daemon.terminate()
        try:
            daemon.wait(timeout=30)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait()
        log.close()
        cluster.cancel_all()


def predict(a, jobs, factor):
    """The simulator's forecast for the window: the same jobs at the real day's times, the
    compressed durations scaled back up, on a pool of --nodes x --gpus. Returns {policy: row}
    with the waits in compressed seconds (divided by the factor). With --elastic, squeeze and
    sliced run the jobs as elastic ones (--assume-elastic-max FACTOR, amdahl:--parallel; the
    simulator lets jobs of whole nodes be elastic too), backfill and srtf as they are."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        trace, cluster, out = (os.path.join(tmp, n) for n in ("w.csv", "c.yaml", "r.json"))
        with open(trace, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["timestamp", "duration", "num_gpus", "gpu_time", "cluster"])
            for j in jobs:
                d = j["seconds"] * factor
                w.writerow([j["timestamp"], round(d, 1), j["gpus"], round(d * j["gpus"], 1), "p"])
        with open(cluster, "w") as f:
            f.write(f"pools:\n  - name: p\n    kind: owned\n    nodes:\n      - count: {a.nodes}\n"
                    f"        name_prefix: n\n        gpus: {a.gpus}\n        gpu_model: gpu\n")
        common = [a.squeeze, "simulate", "--trace", trace, "--cluster", cluster,
                  "--assume-urgent-share", str(a.high), "--json", out]
        elastic = ["--assume-elastic", "1", "--assume-elastic-max", str(a.elastic),
                   "--assume-scaling", f"amdahl:{a.parallel}"] if a.elastic > 0 else []
        rows = []
        for policies, extra in (("backfill,srtf", []), ("squeeze,sliced", elastic)):
            subprocess.run(common + ["--policy", policies] + extra, check=True,
                           stdout=subprocess.DEVNULL)
            with open(out) as f:
                rows += json.load(f)["results"]
    return {r["policy"]: {"mean_wait_s": round(r["avg_queue_s"] / factor, 1),
                          "p95_wait_s": round(r["p95_queue_s"] / factor, 1),
                          "mean_jct_s": round(r["avg_jct_s"] / factor, 1),
                          "preemptions": r["preemptions"]} for r in rows}


def ts(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def main(argv):
    a = parse_args(argv)
    if os.geteuid() != 0 and not a.predict:
        sys.exit("run as root: the cluster's daemons run as root")
    if not a.predict:
        runs = a.runs.split(",")
        unknown = [r for r in runs if r not in ("slurm", "slurm-time", "squeeze")]
        if unknown:
            sys.exit(f"--runs: unknown run '{unknown[0]}' (slurm, slurm-time, squeeze)")
        if not a.user:
            sys.exit("slurm_side_by_side: pass --user NAME, the plain Unix account whose jobs these"
                     " are (bash tests/test_accounts.sh create makes sqz-alice): run as root, Slurm's"
                     " launches load root's environment and the figures are not Slurm's (issue 37);"
                     " --user root runs them as root on purpose")
        account = Account(a.user)
        if account.uid == 0:
            print("slurm_side_by_side: --user root: the jobs run as root, which no site does; on a"
                  " machine whose root login is slow Slurm drains nodes (issue 37)", file=sys.stderr)
    jobs, info = load_jobs(a)
    print(f"workload: {json.dumps(info)}", flush=True)
    if a.predict:
        forecast = predict(a, jobs, info["factor"])
        print(f"{'policy':<10} {'mean wait':>10} {'p95 wait':>9} {'mean JCT':>9} {'preempt':>8}")
        for name, r in forecast.items():
            print(f"{name:<10} {r['mean_wait_s']:>10} {r['p95_wait_s']:>9} {r['mean_jct_s']:>9} "
                  f"{r['preemptions']:>8}")
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"workload": info, "predicted": forecast}, f, indent=2)
        return 0
    # A ctest timeout or a kill: stop the cluster and the daemon all the same (finally).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("slurm_side_by_side: terminated"))
    cluster = Cluster(a)
    results = {"workload": info, "cluster": {"nodes": a.nodes, "gpus_per_node": a.gpus},
               "user": account.name, "nproc": os.cpu_count(), "runs": {},
               "elastic": {"factor": a.elastic, "parallel": a.parallel} if a.elastic > 0 else None}
    stopped = None
    try:
        cluster.run("start")
        account.check_can_run(a.root)
        for run in runs:
            began = time.time()
            cluster.alarm.clear()
            cluster.trouble = None
            try:
                if run == "squeeze":
                    r = run_squeeze(a, cluster, account, jobs, info["factor"])
                else:
                    r = run_slurm(a, cluster, account, jobs, with_time=run == "slurm-time")
            except NodeTrouble as e:
                stopped = str(e)
                cancelled = cluster.cancel_all()
                print(f"run '{run}' stopped after {time.time() - began:.0f} s; {cancelled} Slurm"
                      " jobs cancelled; stopping the cluster", file=sys.stderr, flush=True)
                break
            r["wall_s"] = round(time.time() - began, 1)
            results["runs"][run] = r
            print(f"{run}: {json.dumps(r)}", flush=True)
            cluster.cancel_all()
            time.sleep(3)
    finally:
        cluster.run("stop")
    if results["runs"]:
        print(f"\n{'run':<12} {'mean wait':>10} {'p95 wait':>9} {'mean JCT':>9} {'GPU util':>9} "
              f"{'preempt':>8} {'makespan':>9} {'done':>6} {'timeout':>8} {'relaunch':>9}")
    for run, r in results["runs"].items():
        print(f"{run:<12} {r['mean_wait_s']:>10} {r['p95_wait_s']:>9} {r['mean_jct_s']:>9} "
              f"{r['gpu_utilization']:>9} {r['preemptions']:>8} {r['makespan_s']:>9} "
              f"{r['jobs_done']:>3}/{r['jobs']} {r['jobs_timed_out']:>8} {r['launch_failures']:>9}")
    if stopped:
        results["stopped"] = stopped
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=2)
    if stopped:
        print(stopped, file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
