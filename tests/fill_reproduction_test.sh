#!/usr/bin/env bash
# The FGD experiment on the five shared openb traces, 10 seeds, placements bestfit, fgd and
# squeeze, checked against the published means by fill_vs_published.py (reproduction within 0.5
# points; squeeze above the published FGD at @110..@130 and within 0.1 of its own fgd).
#   bash tests/fill_reproduction_test.sh SQUEEZE SOURCE_DIR SHARED_DIR WORK_DIR [PYTHON]
# Exits 77 (skipped) when SHARED_DIR lacks the openb traces.
set -uo pipefail
if (($# < 4)); then
  sed -n '2,6p' "$0" >&2
  exit 2
fi
SQUEEZE=$1 SOURCE=$2 SHARED=$3 WORK=$4 PYTHON=${5:-python3}
OPENB="$SHARED/traces/openb"
PUBLISHED="$SHARED/traces/published/fgd_atc23_alloc.txt"
for f in "$OPENB/openb_node_list_gpu_node.csv" "$PUBLISHED"; do
  [[ -r "$f" ]] || { echo "SKIP: $f is not readable"; exit 77; }
done
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
outs=()
for t in cpu050 default gpushare40 gpuspec10 multigpu20; do
  "$SQUEEZE" simulate --protocol fill --trace "$OPENB/openb_pod_list_$t.csv" \
    --nodes "$OPENB/openb_node_list_gpu_node.csv" --placement bestfit,fgd,squeeze \
    --seeds 42-51 --fill 1.3 --json "$WORK/$t.json" -q >"$WORK/$t.txt" 2>&1 ||
    { echo "FAIL: squeeze simulate on $t"; cat "$WORK/$t.txt"; exit 1; }
  outs+=("$WORK/$t.json")
done
"$PYTHON" "$SOURCE/tests/fill_vs_published.py" "$PUBLISHED" "${outs[@]}"
