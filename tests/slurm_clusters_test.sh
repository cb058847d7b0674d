#!/usr/bin/env bash
# The two Slurm clusters of scripts/slurm-clusters.sh (started by the CTest fixture
# slurm_clusters) are what squeeze's Slurm tests need: each is up with its own controller and
# its nodes (east 4, west 2), each node with 4 GPUs as GRES; a --gres job gets
# CUDA_VISIBLE_DEVICES; a job of two named nodes runs one task on each; a node's death kills its
# job steps and no other node's; a job from the low partition is requeued for one in the high
# partition; a controller outage leaves the other cluster and the cluster's jobs in place.
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
  count=$([[ $c == east ]] && echo 4 || echo 2)
  gres=$(sinfo -h -N -p low -o '%N %G %T' | sort | paste -sd' ')
  want=$(for ((j = 0; j < count; j++)); do echo "$c-n$j gpu:4 idle"; done | paste -sd' ')
  [[ $gres == "$want" ]] && ok "$c: $count idle nodes with 4 GPUs each ($gres)" || bad "$c: sinfo says '$gres', not '$want'"
  name=$(scontrol show config | awk '$1 == "ClusterName" { print $3 }')
  [[ $name == "$c" ]] && ok "$c: its own controller (ClusterName=$name)" || bad "$c: ClusterName=$name"
  j=$(sbatch --parsable --gres=gpu:2 -o "bind-%j.out" --wrap 'echo CVD=$CUDA_VISIBLE_DEVICES')
  if wait_for 90 is_state "$j" COMPLETED && grep -q '^CVD=0,1$' "bind-$j.out"; then
    ok "$c: a --gres=gpu:2 job gets CUDA_VISIBLE_DEVICES=0,1"
  else
    bad "$c: gres job $j: state $(state "$j"), output $(cat "bind-$j.out" 2>/dev/null)"
  fi
done

# A job of two named nodes: one task on each, each with its node's GPUs.
eval "$(bash "$script" env east)"
cd "$root/east/jobs" || exit 1
j=$(sbatch --parsable --nodes=2 --nodelist=east-n1,east-n3 --ntasks-per-node=1 --gres=gpu:2 \
  -o "two-%j.out" --wrap 'srun bash -c "echo task \$SLURM_PROCID on \$SLURMD_NODENAME CVD=\$CUDA_VISIBLE_DEVICES"')
if wait_for 90 is_state "$j" COMPLETED &&
   [[ $(sort "two-$j.out" | paste -sd' ') == "task 0 on east-n1 CVD=0,1 task 1 on east-n3 CVD=0,1" ]]; then
  ok "east: --nodes=2 --nodelist=east-n1,east-n3 runs one task on each node with 2 GPUs"
else
  bad "east: two-node job $j: state $(state "$j"), output $(cat "two-$j.out" 2>/dev/null)"
fi

# A node dies: its job step is killed, the other node's job runs on.
a=$(sbatch --parsable -w east-n2 -o /dev/null --wrap 'sleep 120')
b=$(sbatch --parsable -w east-n0 -o /dev/null --wrap 'sleep 120')
wait_for 90 is_state "$a" RUNNING && wait_for 90 is_state "$b" RUNNING || bad "east: jobs $a $b did not start"
bash "$script" stop-node east east-n2
down() { [[ $(sinfo -h -n east-n2 -o %T | head -1) == down* ]]; }
if wait_for 60 down && is_state "$b" RUNNING; then
  ok "east: stop-node east east-n2: east-n2 is down, job $b on east-n0 still runs"
else
  bad "east: after stop-node east-n2: $(sinfo -h -N -o '%N %T' | paste -sd' '), job $b $(state "$b")"
fi
bash "$script" start-node east east-n2 && ok "east: east-n2 back and idle" || bad "east: east-n2 did not come back"
scancel "$a" "$b" 2>/dev/null

# Preemption by partition priority on west: the low job (both nodes) is requeued and runs again.
eval "$(bash "$script" env west)"
cd "$root/west/jobs" || exit 1
low=$(sbatch --parsable -p low --nodes=2 --gres=gpu:4 --requeue -o "low-%j.out" --open-mode=append \
  --wrap 'echo run restart=${SLURM_RESTART_COUNT:-0}; sleep 60')
wait_for 90 is_state "$low" RUNNING || bad "low job $low did not start"
high=$(sbatch --parsable -p high --gres=gpu:1 -o /dev/null --wrap 'sleep 1')
if wait_for 90 is_state "$high" COMPLETED && wait_for 60 grep -q 'restart=1' "low-$low.out"; then
  ok "west: a high-partition job preempts the low one, which is requeued and runs again"
else
  bad "west: preemption: high $(state "$high"), low output: $(cat "low-$low.out" 2>/dev/null)"
fi
scancel "$low" "$high" 2>/dev/null

# A controller outage on east: west goes on; east's running job survives and is seen again.
eval "$(bash "$script" env east)"
cd "$root/east/jobs" || exit 1
long=$(sbatch --parsable -o /dev/null --wrap 'sleep 60')
wait_for 90 is_state "$long" RUNNING || bad "east: job $long did not start"
bash "$script" stop-ctld east
if ! sinfo -h >/dev/null 2>&1; then ok "east: controller stopped (sinfo fails)"; else bad "east: sinfo still answers"; fi
if SLURM_CONF=$root/west/etc/slurm.conf sinfo -h >/dev/null 2>&1; then ok "west answers meanwhile"; else bad "west is down too"; fi
bash "$script" start-ctld east
if wait_for 90 is_state "$long" RUNNING; then
  ok "east: back, its running job $long is still RUNNING"
else
  bad "east: after the restart job $long is $(state "$long")"
fi
scancel "$long" 2>/dev/null
exit $fail
