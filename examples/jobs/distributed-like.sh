#!/usr/bin/env bash
# One task of a distributed training-like job (one per node, as squeeze starts a job of several
# nodes on Slurm: docs/serve.md, "Distributed jobs"). Every rank does STEPS steps of STEP_SECONDS;
# at each checkpoint request (SIGUSR1, which reaches every rank) every rank saves its step as a
# part of the checkpoint, and rank 0 writes the COMPLETE marker once all SQUEEZE_NNODES parts of
# that request are saved (what a barrier does in real training). With SQUEEZE_RESUME set, every
# rank resumes from rank 0's part, the step of the data-parallel replicas, so that a run on
# another number of nodes (an elastic job resized) goes on from there. Prints "rank R of N ..."
# with what it was given, once.
#   STEPS=600 STEP_SECONDS=0.1
# Usage outside squeeze: SQUEEZE_CHECKPOINT_DIR=/tmp/ckpt examples/jobs/distributed-like.sh
steps=${STEPS:-600}
step_seconds=${STEP_SECONDS:-0.1}
dir=${SQUEEZE_CHECKPOINT_DIR:?SQUEEZE_CHECKPOINT_DIR is not set}
rank=${SQUEEZE_NODE_RANK:-0}
nodes=${SQUEEZE_NNODES:-1}
mkdir -p "$dir"

step=0
round=0
if [[ -n "${SQUEEZE_RESUME:-}" && -f "$dir/part-0" ]]; then
  read -r round step <"$dir/part-0"
  echo "rank $rank resumes from step $step (attempt ${SQUEEZE_ATTEMPT:-?})"
fi
echo "rank $rank of $nodes on ${SLURMD_NODENAME:-$(hostname -s)}: world ${SQUEEZE_WORLD_SIZE:-?}," \
  "GPUs ${CUDA_VISIBLE_DEVICES:-none} (${SQUEEZE_GPUS_PER_NODE:-?} per node)," \
  "master ${SQUEEZE_MASTER_ADDR:-?}:${SQUEEZE_MASTER_PORT:-?}, nodes ${SQUEEZE_NODELIST:-?}"

checkpoint() {
  round=$((round + 1))
  echo "$round $step" >"$dir/part-$rank.tmp" && mv -f "$dir/part-$rank.tmp" "$dir/part-$rank"
  echo "rank $rank saved step $step (checkpoint $round)"
  ((rank == 0)) || return 0
  local r n waited
  for ((waited = 0; waited < 300; waited++)); do
    n=0
    for f in "$dir"/part-*; do
      read -r r _ <"$f" 2>/dev/null && ((r == round)) && n=$((n + 1))
    done
    ((n >= nodes)) && break
    sleep 0.1
  done
  if ((n >= nodes)); then
    echo "checkpoint $round" >"$dir/COMPLETE.tmp" && mv -f "$dir/COMPLETE.tmp" "$dir/COMPLETE"
    echo "rank 0 completed checkpoint $round ($n parts)"
  fi
}

requested=0
trap 'requested=1' USR1
trap 'echo "rank $rank: SIGTERM at step $step"; exit 143' TERM

while ((step < steps)); do
  sleep "$step_seconds"
  step=$((step + 1))
  if ((requested)); then
    requested=0
    checkpoint
  fi
done
echo "rank $rank done at step $step"
