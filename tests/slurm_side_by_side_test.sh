#!/usr/bin/env bash
# The short version of bench/slurm_side_by_side.py (issue 21): 30 jobs of the Philly window,
# their arrivals over 25 s (durations at most 10 s), on its own 4-node cluster (root
# /tmp/squeeze-slurm-sbs-ci, ports 6877..): Slurm alone without and with time limits, then
# squeeze serve, one after the other. Every run must end every job: Slurm alone and squeeze
# finish them all; Slurm with limits may kill some at their --time (each limit is the job's
# duration + 2 s, and on a loaded machine the steps run longer), the rest finish. A job whose
# batch launch failed, which Slurm requeues and holds, is released by the harness as its user
# would (counted as launch_failures; on a loaded machine slurmd can miss BatchStartTimeout). Each run's
# figures must be there; squeeze's mean wait may not exceed Slurm's (without limits) by more
# than 3 s plus a tenth of Slurm's mean JCT (on a machine so loaded that Slurm's 10-second jobs
# take 40, each of squeeze's cycles and sbatch calls is slower too).
# Usage: slurm_side_by_side_test.sh SQUEEZE SOURCE_DIR SHARED_DIR WORK_DIR
set -uo pipefail
squeeze=$1 src=$2 shared=$3 work=$4
[[ $(id -u) == 0 ]] || { echo "SKIP: the cluster runs as root"; exit 77; }
command -v slurmctld >/dev/null || { echo "SKIP: Slurm is not installed (scripts/setup.sh)"; exit 77; }
trace=$shared/traces/philly/philly.csv
[[ -f $trace ]] || { echo "SKIP: no Philly trace at $trace"; exit 77; }
mkdir -p "$work"
/usr/bin/python3 "$src/bench/slurm_side_by_side.py" --squeeze "$squeeze" --trace "$trace" --jobs 30 --arrivals 25 \
  --cap 10 --root /tmp/squeeze-slurm-sbs-ci --port-base 6877 --timeout 300 \
  --json "$work/side-by-side.json" || {
  echo "FAIL: the benchmark did not finish; what Slurm's daemons said of trouble, last lines:"
  grep -hiE "missing|requeue|not responding|already killed|expired" \
    /tmp/squeeze-slurm-sbs-ci/*/log/slurm*.log 2>/dev/null | tail -20
  exit 1
}
/usr/bin/python3 - "$work/side-by-side.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
runs = r["runs"]
assert set(runs) == {"slurm", "slurm-time", "squeeze"}, runs
for name, run in runs.items():
    assert run["jobs"] == 30, (name, run)
    timed_out = run["jobs_timed_out"] if name == "slurm-time" else 0
    assert run["jobs_timed_out"] == timed_out, (name, "jobs killed at a time limit it has not", run)
    assert run["jobs_done"] + timed_out == 30, (name, run)
    for key in ("mean_wait_s", "p95_wait_s", "mean_jct_s", "gpu_utilization", "makespan_s"):
        assert run[key] is not None and run[key] >= 0, (name, key, run)
    assert 0 < run["gpu_utilization"] <= 1, (name, run)
allowed = runs["slurm"]["mean_wait_s"] + 3 + 0.1 * runs["slurm"]["mean_jct_s"]
waits = {k: (v["mean_wait_s"], v["mean_jct_s"]) for k, v in runs.items()}
assert runs["squeeze"]["mean_wait_s"] <= allowed, \
    f"squeeze's mean wait over {allowed:.1f} s; (mean wait, mean JCT) of each run: {waits}"
print("PASS: three runs of 30 jobs each finished;", {k: v["mean_wait_s"] for k, v in runs.items()})
PY
