#!/usr/bin/env bash
# The two Slurm clusters of scripts/slurm-clusters.sh (started by the CTest fixture
# slurm_clusters) are what squeeze's Slurm tests need: each is up with its own controller, has
# 4 GPUs as GRES, binds CUDA_VISIBLE_DEVICES for a --gres job, requeues a job from the low
# partition for one in the high partition, and a controller outage leaves the other cluster
# and the cluster's jobs in place.
# Usage: slurm_clusters_test.sh SOURCE_DIR
set -uo pipefail
src=$1
script=$src/scripts/slurm-clusters.sh
root=${SQUEEZE_SLURM_ROOT:-/tmp/squeeze-slurm}
fail=0
ok() { echo "PASS: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
[[ $(id -u) == 0 ]] || { echo "SKIP: the test clusters run as root"; exit 77; }
command -v sbatch >/dev/null || { echo "SKIP: Slurm is not installed (scripts/setup.sh)"; exit 77; }

state() { scontrol show job "$1" 2>/dev/null | grep -oE 'JobState=\S+' | cut -d= -f2; }
wait_for() {  # timeout_s command...
  local t=$1 i
  shift
  for ((i = 0; i < t * 10; i++)); do "$@" && return 0; sleep 0.1; done
  return 1
}
is_state() { [[ $(state "$1") == "$2" ]]; }

for c in east west; do
  eval "$(bash "$script" env $c)"
  cd "$root/$c/jobs" || exit 1
  gres=$(sinfo -h -N -p low -o '%N %G %T')
  [[ $gres == "$c-n0 gpu:4 idle" ]] && ok "$c: one idle node with 4 GPUs ($gres)" || bad "$c: sinfo says '$gres'"
  name=$(scontrol show config | awk '$1 == "ClusterName" { print $3 }')
  [[ $name == "$c" ]] && ok "$c: its own controller (ClusterName=$name)" || bad "$c: ClusterName=$name"
  j=$(sbatch --parsable --gres=gpu:2 -o "bind-%j.out" --wrap 'echo CVD=$CUDA_VISIBLE_DEVICES')
  if wait_for 30 is_state "$j" COMPLETED && grep -q '^CVD=0,1$' "bind-$j.out"; then
    ok "$c: a --gres=gpu:2 job gets CUDA_VISIBLE_DEVICES=0,1"
  else
    bad "$c: gres job $j: state $(state "$j"), output $(cat "bind-$j.out" 2>/dev/null)"
  fi
done

# Preemption by partition priority on west: the low job is requeued and runs again.
eval "$(bash "$script" env west)"
cd "$root/west/jobs" || exit 1
low=$(sbatch --parsable -p low --gres=gpu:4 --requeue -o "low-%j.out" --open-mode=append \
  --wrap 'echo run restart=${SLURM_RESTART_COUNT:-0}; sleep 60')
wait_for 30 is_state "$low" RUNNING || bad "low job $low did not start"
high=$(sbatch --parsable -p high --gres=gpu:1 -o /dev/null --wrap 'sleep 1')
if wait_for 30 is_state "$high" COMPLETED && wait_for 60 grep -q 'restart=1' "low-$low.out"; then
  ok "west: a high-partition job preempts the low one, which is requeued and runs again"
else
  bad "west: preemption: high $(state "$high"), low output: $(cat "low-$low.out" 2>/dev/null)"
fi
scancel "$low" "$high" 2>/dev/null

# A controller outage on east: west goes on; east's running job survives and is seen again.
eval "$(bash "$script" env east)"
cd "$root/east/jobs" || exit 1
long=$(sbatch --parsable -o /dev/null --wrap 'sleep 60')
wait_for 30 is_state "$long" RUNNING || bad "east: job $long did not start"
bash "$script" stop-ctld east
if ! sinfo -h >/dev/null 2>&1; then ok "east: controller stopped (sinfo fails)"; else bad "east: sinfo still answers"; fi
if SLURM_CONF=$root/west/etc/slurm.conf sinfo -h >/dev/null 2>&1; then ok "west answers meanwhile"; else bad "west is down too"; fi
bash "$script" start-ctld east
if wait_for 30 is_state "$long" RUNNING; then
  ok "east: back, its running job $long is still RUNNING"
else
  bad "east: after the restart job $long is $(state "$long")"
fi
scancel "$long" 2>/dev/null
exit $fail
