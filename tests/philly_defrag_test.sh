#!/usr/bin/env bash
# Defragmentation on the Philly half set-up: squeeze with and without the defrag action.
# Defrag must lower frag_blocked_gpu_hours and the mean queueing delay of jobs of more than
# 8 GPUs without raising the overall mean queueing delay.
#   bash tests/philly_defrag_test.sh SQUEEZE SOURCE_DIR SHARED_DIR WORK_DIR [PYTHON]
# Exits 77 (skipped) when SHARED_DIR lacks the Philly trace.
set -uo pipefail
if (($# < 4)); then
  sed -n '2,7p' "$0" >&2
  exit 2
fi
SQUEEZE=$1 SOURCE=$2 SHARED=$3 WORK=$4 PYTHON=${5:-python3}
TRACE="$SHARED/traces/philly/philly_oct_nov.csv"
[[ -r "$TRACE" ]] || { echo "SKIP: $TRACE is not readable"; exit 77; }
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
"$SQUEEZE" simulate --trace "$TRACE" --cluster "$SOURCE/examples/clusters/philly-half.yaml" \
  --policy squeeze --defrag --set squeeze.defrag=false --json "$WORK/out.json" \
  --jobs-csv "$WORK/jobs.csv" -q >"$WORK/out.txt" 2>&1 ||
  { echo "FAIL: squeeze simulate"; cat "$WORK/out.txt"; exit 1; }
"$PYTHON" - "$WORK/out.json" "$WORK/jobs.csv" <<'PY'
import csv, json, sys
runs = {r["policy"]: r for r in json.load(open(sys.argv[1]))["results"]}
base, defrag = runs["squeeze"], runs["squeeze+defrag"]
big = {}
for row in csv.DictReader(open(sys.argv[2])):
    if int(row["gpus"]) > 8:
        big.setdefault(row["policy"], []).append(float(row["queue_s"]))
mean = lambda xs: sum(xs) / len(xs)
b_big, d_big = mean(big["squeeze"]), mean(big["squeeze+defrag"])
print(f"frag_blocked_gpu_hours {base['frag_blocked_gpu_hours']:.1f} -> {defrag['frag_blocked_gpu_hours']:.1f}")
print(f"mean queue >8 GPUs     {b_big:.0f} -> {d_big:.0f} s ({len(big['squeeze'])} jobs)")
print(f"mean queue, all jobs   {base['avg_queue_s']:.0f} -> {defrag['avg_queue_s']:.0f} s")
print(f"defrag moves           {defrag['defrag_moves']}")
ok = (defrag["frag_blocked_gpu_hours"] < base["frag_blocked_gpu_hours"] and d_big < b_big
      and defrag["avg_queue_s"] <= base["avg_queue_s"] and defrag["defrag_moves"] > 0)
print("ok" if ok else "FAIL: defrag did not lower fragmentation and big-job queueing without raising the mean")
sys.exit(0 if ok else 1)
PY
