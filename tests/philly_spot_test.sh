#!/usr/bin/env bash
# Spot and co-location on the Philly half set-up (issue 6), the scenarios in examples/scenarios:
#   coloc_spot  philly-half-coloc-spot.yaml: owned only, + 100 inference GPUs driven by the real
#               inference load trace, + 100 spot GPUs, + both, + 100 more owned GPUs. Each kind
#               of extra capacity must lower the mean queueing delay, both more than either,
#               and no training may overstay a GPU inference needs (inference_violations 0).
#   spot_aware  philly-half-spot-aware.yaml: naive against squeeze's spot use at mean
#               reclaim intervals of 2 h, 6 h and 24 h: with asynchronous checkpoints squeeze
#               (its defaults, the 12-h/5-min rule included) must lose less work each time,
#               give jobs of 12 h or more a lower mean JCT, bring runs home and ask long jobs
#               for 5-min checkpoints; with synchronous ones it must still lose less work and
#               never ask for 5-min checkpoints that would take 29% of a job's time.
#   idle_nights philly-half-idle-nights.yaml (issue 7): 100 GPUs another team leaves idle at
#               night, used in their predicted idle windows: low-urgency jobs wait less than
#               without them, urgent ones no more, and the team gets its GPUs back from
#               training less often than when they are used whenever idle.
#   bash tests/philly_spot_test.sh CASE SQUEEZE SOURCE_DIR SHARED_DIR WORK_DIR [PYTHON]
# Exits 77 (skipped) when SHARED_DIR lacks the traces.
set -uo pipefail
if (($# < 5)); then
  sed -n '2,11p' "$0" >&2
  exit 2
fi
CASE=$1 SQUEEZE=$2 SOURCE=$3 SHARED=$4 WORK=$5 PYTHON=${6:-python3}
for f in philly/philly_oct_nov.csv inference/pod_gpu_duty_cycle_anon.tar.gz; do
  [[ -r "$SHARED/traces/$f" ]] || { echo "SKIP: $SHARED/traces/$f is not readable"; exit 77; }
done
# The scenarios name the traces relative to themselves (../../../shared): run a copy that
# names SHARED instead, so that the test works wherever the checkout and SHARED are.
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
case "$CASE" in
  coloc_spot) SCENARIO=philly-half-coloc-spot.yaml
              VARIANTS=owned-only,+coloc,+spot,+both,+dedicated,+shared-dedicated ;;
  spot_aware) SCENARIO=philly-half-spot-aware.yaml
              VARIANTS=2h-naive,2h-aware,2h-aware-norule,6h-naive,6h-aware,6h-aware-norule
              VARIANTS+=,24h-naive,24h-aware,24h-aware-norule
              VARIANTS+=,2h-naive-sync,2h-aware-sync,6h-naive-sync,6h-aware-sync
              VARIANTS+=,24h-naive-sync,24h-aware-sync ;;
  idle_nights) SCENARIO=philly-half-idle-nights.yaml VARIANTS=owned-only,reactive,windows ;;
  *) echo "unknown case $CASE"; exit 2 ;;
esac
sed -e "s#\.\./\.\./\.\./shared#$SHARED#g" -e "s#\.\./clusters/#$SOURCE/examples/clusters/#g" \
  -e "s#inference_load: no-inference-load#inference_load: $SOURCE/examples/scenarios/no-inference-load#" \
  -e "s#inference_load: idle-nights-load#inference_load: $SOURCE/examples/scenarios/idle-nights-load#" \
  "$SOURCE/examples/scenarios/$SCENARIO" >"$WORK/$SCENARIO"
"$SQUEEZE" simulate -q --scenario "$WORK/$SCENARIO" --json "$WORK/out.json" >"$WORK/out.txt" 2>&1 ||
  { echo "FAIL: squeeze simulate --scenario"; cat "$WORK/out.txt"; exit 1; }
grep -v '^[0-9a-f]\{6\} ' "$WORK/out.txt"
"$PYTHON" "$SOURCE/tests/simulate_checks.py" scenario "$WORK/out.json" \
  --name "${SCENARIO%.yaml}" --variants "$VARIANTS" || exit 1
"$PYTHON" - "$CASE" "$WORK/out.json" <<'PY'
import json, sys
case, path = sys.argv[1], sys.argv[2]
runs = {v["name"]: v["results"][0] for v in json.load(open(path))["variants"]}
ok = True
def check(cond, what):
    global ok
    print(("ok   " if cond else "FAIL ") + what)
    ok = ok and cond
if case == "coloc_spot":
    base = runs["owned-only"]
    for name, r in runs.items():
        print(f"{name:11} mean queue {r['avg_queue_s']:7.0f} s  p95 {r['p95_queue_s']:6.0f} s  "
              f"cost {r['cost']:9.0f}  lost {r['lost_gpu_hours']:8.0f} GPU-h  "
              f"violations {r['inference_violations']}")
        check(r["inference_violations"] == 0, f"{name}: no training overstayed inference's GPUs")
    for name in ("+coloc", "+spot", "+both", "+dedicated", "+shared-dedicated"):
        check(runs[name]["avg_queue_s"] < base["avg_queue_s"], f"{name} lowers the mean queue")
    check(runs["+coloc"]["colocated_starts"] > 0 and runs["+coloc"]["inference_evictions"] > 0,
          "+coloc runs training on inference GPUs and evicts it when the load rises")
    check(runs["+spot"]["spot_starts"] > 0 and runs["+spot"]["reclaims"] > 0
          and runs["+spot"]["cost"] > 0, "+spot runs on spot, is reclaimed, and costs")
    check(runs["+spot"]["colocated_starts"] == 0 and runs["+coloc"]["spot_starts"] == 0,
          "starts are counted where they happened: none on inference GPUs without them, none on spot without it")
    check(runs["+both"]["avg_queue_s"] < min(runs["+coloc"]["avg_queue_s"], runs["+spot"]["avg_queue_s"]),
          "+both lowers the mean queue more than either alone")
    check(runs["+shared-dedicated"]["inference_evictions"] == 0,
          "+shared-dedicated: GPUs without inference are never taken back")
elif case == "idle_nights":
    own, react, win = runs["owned-only"], runs["reactive"], runs["windows"]
    for name, r in runs.items():
        u = r["by_urgency"]
        print(f"{name:10} low: mean queue {u['low']['avg_queue_s']:6.0f} s, high: "
              f"{u['high']['avg_queue_s']:5.0f} s; owner took GPUs back {r['inference_evictions']} "
              f"times; lost {r['lost_gpu_hours']:.0f} GPU-h; violations {r['inference_violations']}")
        check(r["inference_violations"] == 0, f"{name}: no training overstayed the owner's return")
    check(win["by_urgency"]["low"]["avg_queue_s"] < own["by_urgency"]["low"]["avg_queue_s"],
          "windows: low-urgency jobs wait less than without the idle nights")
    check(win["by_urgency"]["high"]["avg_queue_s"] <= own["by_urgency"]["high"]["avg_queue_s"],
          "windows: urgent jobs wait no longer than without the idle nights")
    check(win["by_urgency"]["high"]["jobs"] == own["by_urgency"]["high"]["jobs"] > 0,
          "both runs have the same urgent jobs")
    check(win["colocated_starts"] > 0, "windows: training runs in the idle nights")
    check(win["inference_evictions"] < react["inference_evictions"],
          "windows: the owner takes GPUs back from training less often than with reactive use")
else:
    def line(m, kind, naive, aware):
        nl, al = naive["by_length"][">=12h"], aware["by_length"][">=12h"]
        print(f"{m:>3} {kind:12}: lost {naive['lost_gpu_hours']:7.0f} -> {aware['lost_gpu_hours']:7.0f} GPU-h, "
              f"cost {naive['cost']:7.0f} -> {aware['cost']:7.0f}, mean JCT {naive['avg_jct_s']:.0f} -> "
              f"{aware['avg_jct_s']:.0f} s, jobs >= 12 h: JCT {nl['avg_jct_s']:.0f} -> {al['avg_jct_s']:.0f} s, "
              f"{aware['returned_home']} runs moved home, long jobs on spot: {aware['spot_long_bridges']} "
              f"bridging, {aware['spot_long_every']} checkpointing every 5 min")
    for m in ("2h", "6h", "24h"):
        naive = runs[f"{m}-naive"]
        nl = naive["by_length"][">=12h"]
        for kind in ("aware", "aware-norule"):
            aware = runs[f"{m}-{kind}"]
            line(m, kind, naive, aware)
            check(aware["lost_gpu_hours"] < naive["lost_gpu_hours"],
                  f"{m} {kind}: squeeze's spot use loses less work than naive use")
            check(aware["by_length"][">=12h"]["avg_jct_s"] < nl["avg_jct_s"],
                  f"{m} {kind}: jobs of 12 h or more finish sooner on average than with naive use")
            check(aware["reclaims"] == naive["reclaims"], f"{m} {kind}: both saw the same seeded reclaims")
            check(aware["returned_home"] > 0, f"{m} {kind}: runs on spot come home when there is room")
        check(naive["returned_home"] == 0, f"{m}: naive use never brings a run home")
        check(runs[f"{m}-aware"]["spot_long_every"] > 0,
              f"{m} aware: long jobs go to spot checkpointing every 5 min, as the rule asks")
        check(runs[f"{m}-aware-norule"]["spot_long_every"] == 0,
              f"{m} aware-norule: without the rule no job is asked for 5-min checkpoints")
        naive, aware = runs[f"{m}-naive-sync"], runs[f"{m}-aware-sync"]
        line(m, "aware-sync", naive, aware)
        check(aware["lost_gpu_hours"] < naive["lost_gpu_hours"],
              f"{m} synchronous checkpoints: squeeze's spot use loses less work than naive use")
        check(aware["spot_long_every"] == 0 and aware["spot_long_bridges"] > 0,
              f"{m} synchronous checkpoints: long jobs only bridge their wait on spot, never "
              "asked for 5-min checkpoints that take 29% of their time")
sys.exit(0 if ok else 1)
PY
