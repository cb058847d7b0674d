#!/usr/bin/env bash
# Cross-region dispatch on the Philly half set-up split between two regions (issue 5):
# examples/clusters/philly-half-two-regions.yaml, every job with DATA_GB of data (Philly gives
# no sizes), squeeze with and without the region action. Dispatch must lower the mean queueing
# delay, move data, and cost what the link's price says.
#   bash tests/philly_regions_test.sh SQUEEZE SOURCE_DIR SHARED_DIR WORK_DIR [PYTHON] [DATA_GB]
# Exits 77 (skipped) when SHARED_DIR lacks the Philly trace.
set -uo pipefail
if (($# < 4)); then
  sed -n '2,8p' "$0" >&2
  exit 2
fi
SQUEEZE=$1 SOURCE=$2 SHARED=$3 WORK=$4 PYTHON=${5:-python3} DATA_GB=${6:-200}
TRACE="$SHARED/traces/philly/philly_oct_nov.csv"
[[ -r "$TRACE" ]] || { echo "SKIP: $TRACE is not readable"; exit 77; }
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
"$SQUEEZE" simulate --trace "$TRACE" --cluster "$SOURCE/examples/clusters/philly-half-two-regions.yaml" \
  --policy squeeze,squeeze+region --set squeeze.region=false --assume-data-gb "$DATA_GB" \
  --json "$WORK/out.json" -q >"$WORK/out.txt" 2>&1 ||
  { echo "FAIL: squeeze simulate"; cat "$WORK/out.txt"; exit 1; }
cat "$WORK/out.txt"
"$PYTHON" - "$WORK/out.json" "$DATA_GB" <<'PY'
import json, sys
runs = {r["policy"]: r for r in json.load(open(sys.argv[1]))["results"]}
home, moved = runs["squeeze"], runs["squeeze+region"]
gb = float(sys.argv[2])
print(f"mean queue   {home['avg_queue_s']:.0f} -> {moved['avg_queue_s']:.0f} s")
print(f"p95 queue    {home['p95_queue_s']:.0f} -> {moved['p95_queue_s']:.0f} s")
print(f"region moves {home['region_moves']} -> {moved['region_moves']}")
print(f"data moved   {home['data_moved_gb']:.0f} -> {moved['data_moved_gb']:.0f} GB, "
      f"cost {moved['data_transfer_cost']:.2f}")
ok = (home["region_moves"] == 0 and home["data_moved_gb"] == 0
      and moved["region_moves"] > 0 and moved["avg_queue_s"] < home["avg_queue_s"]
      # each move copies gb unless a copy is there already, at 0.02 per GB
      and 0 < moved["data_moved_gb"] <= moved["region_moves"] * gb
      and moved["data_moved_gb"] % gb == 0
      and abs(moved["data_transfer_cost"] - moved["data_moved_gb"] * 0.02) < 1e-6 * moved["data_moved_gb"])
print("ok" if ok else "FAIL: cross-region dispatch did not lower queueing with the data and cost accounted")
sys.exit(0 if ok else 1)
PY
