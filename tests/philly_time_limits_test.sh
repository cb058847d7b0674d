#!/usr/bin/env bash
# Backfill by time limits on the Philly half set-up (issue 23): the backfill policy without
# estimates, then with users' limits (each job's duration times 2, rounded up to the hour:
# --assume-time-limit 2). The limits must lower the mean and p99 queueing delay, no job may
# reach its limit (they are all above the durations), and a limit below the durations (0.5)
# must stop jobs at their limits (timed_out > 0).
#   bash tests/philly_time_limits_test.sh SQUEEZE SOURCE_DIR SHARED_DIR WORK_DIR [PYTHON]
# Exits 77 (skipped) when SHARED_DIR lacks the Philly trace.
set -uo pipefail
if (($# < 4)); then
  sed -n '2,8p' "$0" >&2
  exit 2
fi
SQUEEZE=$1 SOURCE=$2 SHARED=$3 WORK=$4 PYTHON=${5:-python3}
TRACE="$SHARED/traces/philly/philly_oct_nov.csv"
[[ -r "$TRACE" ]] || { echo "SKIP: $TRACE is not readable"; exit 77; }
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
for factor in 0 2 0.5; do
  "$SQUEEZE" simulate --trace "$TRACE" --cluster "$SOURCE/examples/clusters/philly-half.yaml" \
    --policy backfill --assume-time-limit "$factor" --json "$WORK/limits-$factor.json" -q \
    >"$WORK/out-$factor.txt" 2>&1 ||
    { echo "FAIL: squeeze simulate --assume-time-limit $factor"; cat "$WORK/out-$factor.txt"; exit 1; }
done
"$PYTHON" - "$WORK" <<'PY'
import json, sys
run = lambda f: json.load(open(f"{sys.argv[1]}/limits-{f}.json"))["results"][0]
none, limits, short = run("0"), run("2"), run("0.5")
print(f"backfill: avg queue {none['avg_queue_s']:.0f} s without limits, "
      f"{limits['avg_queue_s']:.0f} s with limits (x2); p99 {none['p99_queue_s']:.0f} -> "
      f"{limits['p99_queue_s']:.0f}; timed out {limits['timed_out']} (x2), {short['timed_out']} (x0.5)")
assert limits["avg_queue_s"] < none["avg_queue_s"], (none, limits)
assert limits["p99_queue_s"] < none["p99_queue_s"], (none, limits)
assert none["timed_out"] == 0 and limits["timed_out"] == 0, (none, limits)
assert short["timed_out"] > 0, short
print("PASS")
PY
