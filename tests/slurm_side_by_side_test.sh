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
# The jobs are a plain test account's (issue 37; tests/test_accounts.sh, the CTest fixture
# test_accounts; $SQUEEZE_SBS_USER, default sqz-alice): Slurm alone's from its own sbatch,
# squeeze's with a token of it. Then a second invocation (--runs slurm,squeeze) during whose
# first run node sbs-n1 is drained once a job runs: the harness must stop at once (no run
# finished, squeeze's not begun), exit 1 naming the node, its state and the reason, and leave
# no daemon of its cluster running.
# First, without root or Slurm: the harness's reading of drained/down nodes
# (tests/slurm_side_by_side_parse_test.py).
# Usage: slurm_side_by_side_test.sh SQUEEZE SOURCE_DIR SHARED_DIR WORK_DIR
set -uo pipefail
squeeze=$1 src=$2 shared=$3 work=$4
/usr/bin/python3 "$src/tests/slurm_side_by_side_parse_test.py" || {
  echo "FAIL: bench/slurm_side_by_side.py's reading of sinfo/scontrol nodes"; exit 1; }
[[ $(id -u) == 0 ]] || { echo "SKIP: the cluster runs as root"; exit 77; }
command -v slurmctld >/dev/null || { echo "SKIP: Slurm is not installed (scripts/setup.sh)"; exit 77; }
trace=$shared/traces/philly/philly.csv
[[ -f $trace ]] || { echo "SKIP: no Philly trace at $trace"; exit 77; }
user=${SQUEEZE_SBS_USER:-sqz-alice}
id "$user" >/dev/null 2>&1 ||
  { echo "SKIP: no account $user (bash tests/test_accounts.sh create; CTest: the test_accounts fixture)"; exit 77; }
root=/tmp/squeeze-slurm-sbs-ci
mkdir -p "$work"
/usr/bin/python3 "$src/bench/slurm_side_by_side.py" --squeeze "$squeeze" --trace "$trace" --jobs 30 --arrivals 25 \
  --cap 10 --root "$root" --port-base 6877 --timeout 300 --user "$user" \
  --json "$work/side-by-side.json" || {
  echo "FAIL: the benchmark did not finish; what Slurm's daemons said of trouble, last lines:"
  grep -hiE "missing|requeue|not responding|already killed|expired" \
    "$root"/*/log/slurm*.log 2>/dev/null | tail -20
  exit 1
}
/usr/bin/python3 - "$work/side-by-side.json" "$user" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
runs = r["runs"]
assert set(runs) == {"slurm", "slurm-time", "squeeze"}, runs
assert r["user"] == sys.argv[2] and "stopped" not in r, r
for name, run in runs.items():
    assert run["job_users"] == [sys.argv[2]], (name, "Slurm ran jobs of other accounts", run)
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
print("three runs of 30 jobs each finished;", {k: v["mean_wait_s"] for k, v in runs.items()})
PY
[[ $? == 0 ]] || exit 1

# Node sbs-n1 drained while Slurm alone runs: once a job of the run is running, as an admin
# would (scontrol update ... state=drain).
conf=$root/sbs/etc/slurm.conf
(
  end=$((SECONDS + 120))
  while ((SECONDS < end)); do
    if SLURM_CONF=$conf squeue -h -t R -o %j 2>/dev/null | grep -q '^plain-sbs-'; then
      SLURM_CONF=$conf scontrol update nodename=sbs-n1 state=drain reason="side-by-side test drain"
      exit 0
    fi
    sleep 0.2
  done
) &
drainer=$!
/usr/bin/python3 "$src/bench/slurm_side_by_side.py" --squeeze "$squeeze" --trace "$trace" --jobs 30 --arrivals 25 \
  --cap 10 --root "$root" --port-base 6877 --timeout 300 --user "$user" --runs slurm,squeeze \
  >"$work/drained.out" 2>&1
rc=$?
kill "$drainer" 2>/dev/null
wait "$drainer" 2>/dev/null
cat "$work/drained.out"
want="slurm_side_by_side: node sbs-n1 drained during run 'slurm' (state "
[[ $rc == 1 ]] || { echo "FAIL: with sbs-n1 drained the harness should exit 1, not $rc"; exit 1; }
grep -qF "$want" "$work/drained.out" && grep -qF "side-by-side test drain (set by root); the figures of this run are not valid" "$work/drained.out" ||
  { echo "FAIL: no clear message naming the drained node, its state and the reason"; exit 1; }
! grep -qE "^(slurm|squeeze): " "$work/drained.out" ||
  { echo "FAIL: the drained run, or the one after it, went on to its figures"; exit 1; }
for f in "$root"/sbs/run/*.pid "$root"/munge/munged.pid; do
  [[ -s $f ]] && kill -0 "$(<"$f")" 2>/dev/null && { echo "FAIL: $f's process still runs"; exit 1; }
done
echo "PASS: three runs of 30 jobs each finished as $user; a drained node stopped the next run cleanly"
