#!/usr/bin/env bash
# The main job: the live queue on this machine. Installs what is missing, builds, starts
# `squeeze serve` (on the GPUs it finds; on virtual GPUs where there is none), submits the
# example jobs of examples/jobs/ and shows the queue moving until every job has ended: a long
# low-urgency run per GPU, an urgent job that preempts one of them (which checkpoints, waits
# and resumes), a job that fails once and is retried, and two normal jobs. Then it shows the
# preempted job and stops the daemon (its data stays in out/serve-demo/).
#
#   bash scripts/run-example.sh                 setup, build, then the demo
#   bash scripts/run-example.sh --skip-setup    the demo on the build you have (build/squeeze)
#   SQUEEZE_BIN=/path/to/squeeze bash scripts/run-example.sh --skip-setup   another build
#
# Environment: SQUEEZE_BIN (the squeeze binary; default build/squeeze), SQUEEZE_DEMO_DATA (the
# daemon's data directory; default out/serve-demo), SQUEEZE_DEMO_SKIP_SETUP=1 (as --skip-setup).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/demo_lib.sh"
demo_args run-example "$0" "$@"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
demo_setup run-example
sq=$SQ
data=${SQUEEZE_DEMO_DATA:-$PWD/out/serve-demo}
# Jobs outlive the daemon by design: stop any a previous demo left in this folder.
stop_jobs() {
  local run
  for run in "$data"/runs/*.run; do
    [[ -e "$run" && ! -e "${run%.run}.exit" ]] || continue
    pgid=$(awk '$1 == "job" { print $2 }' "$run")
    [[ -n "$pgid" ]] && kill -KILL -- "-$pgid" 2>/dev/null || true
  done
}
stop_jobs
rm -rf "$data"
mkdir -p "$data"

gpu_flags=()
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "run-example: no NVIDIA GPU here; squeeze declares 2 virtual GPUs (they do not exist)"
  gpu_flags=(--virtual-gpus 2:demo-gpu)
fi
# Short slices and back-offs so that the demo moves within a minute.
# As root the daemon runs each job as its owner, and the demo's jobs are root's (its admin
# token): let them run (a shared server refuses them: docs/serve.md, "A shared server").
[[ "$(id -u)" == 0 ]] && gpu_flags+=(--allow-root-jobs)
"$sq" serve --data "$data" --listen 127.0.0.1:0 "${gpu_flags[@]}" \
  --set slice=15s --set min_runtime=0s --retry-backoff 3s --checkpoint-grace 10s \
  2> "$data/serve.log" &
daemon=$!
cleanup() {
  kill -TERM "$daemon" 2>/dev/null || true
  wait "$daemon" 2>/dev/null || true
  stop_jobs  # nothing is left running once the demo ends, even when it fails
}
trap cleanup EXIT
for _ in $(seq 100); do [[ -s "$data/serve.url" ]] && break; sleep 0.1; done
if [[ ! -s "$data/serve.url" ]]; then
  echo "run-example: squeeze serve did not start:" >&2
  cat "$data/serve.log" >&2
  exit 1
fi
export SQUEEZE_URL=$(<"$data/serve.url") SQUEEZE_TOKEN=$(<"$data/admin.token")
sed 's/^/  /' "$data/serve.log"
echo
echo "\$ squeeze nodes"
"$sq" nodes
gpus=$("$sq" nodes --json | python3 -c 'import json,sys; print(sum(n["gpus"] for n in json.load(sys.stdin)["nodes"]))')

submit() { "$sq" submit --json "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'; }
echo
echo "\$ squeeze submit examples/jobs/long-low.yaml   (x$((gpus + 1)): one per GPU, and one that waits)"
low_ids=()
for _ in $(seq $((gpus + 1))); do low_ids+=("$(submit examples/jobs/long-low.yaml)"); done
waiting=${low_ids[-1]}
sleep 2
echo "\$ squeeze queue"
"$sq" queue
echo
echo "\$ squeeze why $waiting"
"$sq" why "$waiting"
echo
echo "\$ squeeze submit examples/jobs/urgent.yaml      (critical: it preempts a low-urgency run)"
urgent=$(submit examples/jobs/urgent.yaml)
echo "\$ squeeze submit examples/jobs/flaky.yaml       (fails once, then is retried)"
flaky=$(submit examples/jobs/flaky.yaml)
echo "\$ squeeze submit examples/jobs/train-like.yaml"
normal_a=$(submit examples/jobs/train-like.yaml)
echo "\$ squeeze submit --name quick-sweep --gpus 1 --estimate 5s --env STEPS=30 -- bash examples/jobs/train-like.sh"
normal_b=$(submit --name quick-sweep --gpus 1 --estimate 5s --env STEPS=30 -- bash examples/jobs/train-like.sh)

all=("${low_ids[@]}" "$urgent" "$flaky" "$normal_a" "$normal_b")
deadline=$((SECONDS + 240))
while :; do
  echo
  echo "\$ squeeze queue --all    ($(date +%T))"
  "$sq" queue --all
  left=$("$sq" queue --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["jobs"]))')
  ((left == 0)) && break
  if ((SECONDS > deadline)); then
    echo "run-example: jobs still waiting after 4 minutes; see $data/serve.log" >&2
    exit 1
  fi
  sleep 4
done

echo
echo "\$ squeeze show ${low_ids[0]}"
"$sq" show "${low_ids[0]}"
echo
echo "\$ squeeze logs ${low_ids[0]} --tail 400"
"$sq" logs "${low_ids[0]}" --tail 400
# Every job must have ended done; the demo fails loudly otherwise.
bad=$("$sq" queue --all --json | python3 -c '
import json, sys
jobs = json.load(sys.stdin)["jobs"]
print(" ".join("%s:%s" % (j["id"], j["state"]) for j in jobs if j["state"] != "done"))')
if [[ -n "$bad" ]]; then
  echo "run-example: jobs that did not end done: $bad" >&2
  exit 1
fi
echo
echo "run-example: all ${#all[@]} jobs done. The store, logs and checkpoints are in $data;"
echo "run-example: restart the queue with: build/squeeze serve --data $data ${gpu_flags[*]}"
