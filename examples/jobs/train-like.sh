#!/usr/bin/env bash
# A training-like job that follows squeeze's checkpoint protocol (docs/checkpoint-protocol.md).
# It does STEPS steps of STEP_SECONDS each, checkpoints every CHECKPOINT_EVERY steps and when
# squeeze sends SIGUSR1, and resumes from its checkpoint when SQUEEZE_RESUME is set.
#   STEPS=100 STEP_SECONDS=0.1 CHECKPOINT_EVERY=20  the work
#   STOP_AFTER_CHECKPOINT=1  exit 0 right after a SIGUSR1 checkpoint (a clean preemption);
#                            0 keeps working until squeeze's SIGTERM
#   FAIL_AT_STEP=N FAIL_CODE=3  exit with FAIL_CODE on reaching step N (a simulated failure)
#   FAIL_ON_ATTEMPT=K        fail that way only in attempt K (SQUEEZE_ATTEMPT), so a retry succeeds
#   REFERENCE_GPUS=N AMDAHL_P=0.95  an elastic job's speed: a step takes STEP_SECONDS on N GPUs
#                            and, on the run's SQUEEZE_WORLD_SIZE GPUs, what Amdahl's law with
#                            that parallel share makes of it (no SQUEEZE_WORLD_SIZE: N)
# Usage outside squeeze: SQUEEZE_CHECKPOINT_DIR=/tmp/ckpt examples/jobs/train-like.sh
# The handlers come first: a signal before them would end the job (SIGUSR1's default action).
step=0
requested=0
trap 'requested=1' USR1
trap 'echo "SIGTERM at step $step"; exit 143' TERM

steps=${STEPS:-100}
step_seconds=${STEP_SECONDS:-0.1}
every=${CHECKPOINT_EVERY:-20}
if [[ -n "${REFERENCE_GPUS:-}" && -n "${SQUEEZE_WORLD_SIZE:-}" ]]; then
  step_seconds=$(awk -v s="$step_seconds" -v r="$REFERENCE_GPUS" -v w="$SQUEEZE_WORLD_SIZE" \
    -v p="${AMDAHL_P:-1}" 'BEGIN { if (r < 1 || w < 1 || p < 0 || p > 1) { print s; exit }
      printf "%.4f", s * ((1 - p) + p / w) / ((1 - p) + p / r) }')
  echo "a step takes ${step_seconds} s on ${SQUEEZE_WORLD_SIZE} GPUs (${STEP_SECONDS:-0.1} s on ${REFERENCE_GPUS})"
fi
dir=${SQUEEZE_CHECKPOINT_DIR:?SQUEEZE_CHECKPOINT_DIR is not set}
mkdir -p "$dir"

if [[ -n "${SQUEEZE_RESUME:-}" && -f "$dir/state" ]]; then
  step=$(<"$dir/state")
  echo "resuming from step $step (attempt ${SQUEEZE_ATTEMPT:-?})"
else
  echo "starting from step 0 (attempt ${SQUEEZE_ATTEMPT:-?})"
fi

checkpoint() {
  echo "$step" > "$dir/state.tmp" && mv -f "$dir/state.tmp" "$dir/state"
  echo "$step" > "$dir/COMPLETE.tmp" && mv -f "$dir/COMPLETE.tmp" "$dir/COMPLETE"
  echo "checkpoint at step $step"
}

while (( step < steps )); do
  sleep "$step_seconds"
  step=$((step + 1))
  if [[ -n "${FAIL_AT_STEP:-}" ]] && (( step == FAIL_AT_STEP )) &&
     [[ -z "${FAIL_ON_ATTEMPT:-}" || "${FAIL_ON_ATTEMPT}" == "${SQUEEZE_ATTEMPT:-}" ]]; then
    echo "failing at step $step"
    exit "${FAIL_CODE:-3}"
  fi
  if (( requested )); then
    requested=0
    checkpoint
    if [[ "${STOP_AFTER_CHECKPOINT:-1}" == 1 ]]; then
      echo "stopping after the requested checkpoint"
      exit 0
    fi
  elif (( step % every == 0 )); then
    checkpoint
  fi
  echo "step $step/$steps"
done
checkpoint
echo "done"
