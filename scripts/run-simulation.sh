#!/usr/bin/env bash
# The simulation example: replays two months of Philly (68,503 jobs) on the half-size cluster under
# fifo, sjf, srtf and squeeze, prints the comparison and writes out/philly-half.{json,svg}.
# The shared traces are read from ../shared (beside the repository) or from $SQUEEZE_SHARED.
set -euo pipefail
if [[ -n "${SQUEEZE_SHARED:-}" ]]; then
  shared=$(cd "$SQUEEZE_SHARED" && pwd) || { echo "run-simulation: no folder $SQUEEZE_SHARED" >&2; exit 1; }
fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
# Relative by default, so that the report names the trace as ../shared/traces/...
shared=${shared:-../shared}
trace=$shared/traces/philly/philly_oct_nov.csv
if [[ ! -r "$trace" ]]; then
  echo "run-simulation: cannot read $trace" >&2
  echo "run-simulation: set SQUEEZE_SHARED to the folder that holds traces/philly/" >&2
  exit 1
fi

bash scripts/setup.sh
bash scripts/build.sh

mkdir -p out
build/squeeze simulate \
  --trace "$trace" \
  --cluster examples/clusters/philly-half.yaml \
  --policy fifo,sjf,srtf,squeeze \
  --json out/philly-half.json \
  --svg out/philly-half.svg
echo
echo "run-simulation: wrote $root/out/philly-half.json and $root/out/philly-half.svg"
