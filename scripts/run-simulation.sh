#!/usr/bin/env bash
# The simulation example: replays two months of Philly (68,503 jobs) on the half-size cluster under
# fifo, sjf, srtf and squeeze, prints the comparison and writes out/philly-half.{json,svg}.
# Installs what is missing and builds first, unless told not to.
#
#   bash scripts/run-simulation.sh                 setup, build, then the simulation
#   bash scripts/run-simulation.sh --skip-setup    the simulation on the build you have
#
# Environment: SQUEEZE_SHARED (the folder holding traces/philly/; default ../shared beside the
# repository), SQUEEZE_BIN (the squeeze binary; default build/squeeze), SQUEEZE_DEMO_OUT (where
# the JSON and SVG go; default out/), SQUEEZE_DEMO_SKIP_SETUP=1 (as --skip-setup).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/demo_lib.sh"
demo_args run-simulation "$0" "$@"
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

demo_setup run-simulation
sq=$SQ

out=${SQUEEZE_DEMO_OUT:-$root/out}
mkdir -p "$out"
"$sq" simulate \
  --trace "$trace" \
  --cluster examples/clusters/philly-half.yaml \
  --policy fifo,sjf,srtf,squeeze \
  --json "$out/philly-half.json" \
  --svg "$out/philly-half.svg"
echo
echo "run-simulation: wrote $out/philly-half.json and $out/philly-half.svg"
