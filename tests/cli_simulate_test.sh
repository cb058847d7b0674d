#!/usr/bin/env bash
# End-to-end tests of `squeeze simulate`: the real binary on real files. CTest runs one case per
# test (tests/CMakeLists.txt); by hand:
#   bash tests/cli_simulate_test.sh CASE SQUEEZE SOURCE_DIR SHARED_DIR WORK_DIR [PYTHON]
# SQUEEZE is the binary, SOURCE_DIR the repository, SHARED_DIR the folder holding traces/,
# WORK_DIR an empty-able scratch folder (kept after a run for inspection). Cases needing the
# Philly traces exit 77 (skipped) when SHARED_DIR lacks them.
source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh" "$@"
PHILLY_TRACE="$SHARED/traces/philly/philly_oct_nov.csv"
PHILLY_REFERENCE="$SHARED/traces/philly/reference/perjob_reference_halfnodes.csv.gz"
PHILLY_HALF="$SOURCE/examples/clusters/philly-half.yaml"
PHILLY_JOBS=68503
PROFILE_EXAMPLE="$SOURCE/examples/jobs/profile-example.csv"
SMALL_LAB="$SOURCE/examples/clusters/small-lab.yaml"

need_philly() {
  need_files "$PHILLY_TRACE" "$PHILLY_REFERENCE"
}

check() {
  check_with simulate_checks.py "$@"
}

philly_half() {  # philly_half NAME POLICIES: the Philly half set-up, JSON and SVG in $WORK.
  run "$1" simulate --trace "$PHILLY_TRACE" --cluster "$PHILLY_HALF" --policy "$2" \
    --json "$WORK/$1.json" --svg "$WORK/$1.svg"
  expect_ok "$1"
}

case_philly_report() {
  need_philly
  philly_half run fifo,sjf
  check shape "$WORK/run.json" --jobs "$PHILLY_JOBS" --policies fifo,sjf
  check svg "$WORK/run.svg" --policies fifo,sjf
  expect_in "$WORK/run.out" "fifo" "sjf" "$PHILLY_JOBS" "frag_gpuh"
  pass
}

case_philly_fidelity() {
  need_philly
  philly_half run fifo,sjf
  check fidelity "$WORK/run.json" "$PHILLY_REFERENCE"
  pass
}

# squeeze reads no true duration and must still wait less than the reference SJF, which knows
# every one (issue 2); the reference figures come from the per-job reference file.
case_philly_squeeze_beats_sjf() {
  need_philly
  philly_half run squeeze
  check beats "$WORK/run.json" "$PHILLY_REFERENCE" --policy squeeze --reference-policy sjf
  pass
}

# Elastic jobs (issue 37): on the Philly half set-up, every job elastic between 1 GPU and twice
# its trace width (Amdahl P = 0.95, 60 s per resize), squeeze waits less and finishes sooner on
# average than oracle SRTF with fixed allocations, and the same run twice gives the same JSON
# and per-job CSV; broken elastic options are refused naming the option and the value.
case_philly_elastic() {
  need_philly
  run srtf simulate --trace "$PHILLY_TRACE" --cluster "$PHILLY_HALF" --policy srtf \
    --json "$WORK/srtf.json"
  expect_ok srtf
  local i
  for i in 1 2; do
    run "elastic$i" simulate --trace "$PHILLY_TRACE" --cluster "$PHILLY_HALF" --policy squeeze \
      --assume-elastic 1 --assume-elastic-max 2 --assume-scaling amdahl:0.95 \
      --assume-resize-cost 60 --json "$WORK/elastic$i.json" --jobs-csv "$WORK/elastic$i.csv"
    expect_ok "elastic$i"
  done
  check same-json "$WORK/elastic1.json" "$WORK/elastic2.json"
  cmp "$WORK/elastic1.csv" "$WORK/elastic2.csv" || fail "the two per-job CSVs differ"
  head -1 "$WORK/elastic1.csv" | grep -q ',preemptions,resizes$' || fail "no resizes column"
  "$PYTHON" - "$WORK/srtf.json" "$WORK/elastic1.json" <<'PY' || fail "elastic squeeze vs SRTF"
import json, sys
srtf = json.load(open(sys.argv[1]))["results"][0]
el = json.load(open(sys.argv[2]))["results"][0]
print(f"srtf queue {srtf['avg_queue_s']:.0f} jct {srtf['avg_jct_s']:.0f}; elastic squeeze "
      f"queue {el['avg_queue_s']:.0f} jct {el['avg_jct_s']:.0f}, {el['resizes']} resizes")
assert el["elastic_jobs"] == el["jobs"] == srtf["jobs"], (el["elastic_jobs"], el["jobs"])
assert el["avg_queue_s"] < srtf["avg_queue_s"] and el["avg_jct_s"] < srtf["avg_jct_s"]
assert 0 < el["shrinks"] < el["resizes"] and el["widened_starts"] > 0
assert max(int(w) for w in el["elastic_gpu_hours_by_width"]) > 1
PY
  for bad in "--assume-scaling cubic" "--assume-scaling amdahl:2" "--assume-elastic 1.5" \
             "--assume-resize-cost soon" "--assume-elastic-max 0.5"; do
    # shellcheck disable=SC2086
    run bad simulate --trace "$PHILLY_TRACE" --cluster "$PHILLY_HALF" $bad
    expect_error bad
    expect_in "$WORK/bad.err" "${bad%% *}"
  done
  pass
}

# Heterogeneous GPUs (issue 38): the Philly half set-up split into V100, P100 and K80 with
# Gavel's job types; squeeze aware of the cards (placement, waits for faster cards, moves to
# them) finishes jobs sooner on average than squeeze blind to them, every job runs, and a
# broken job-types file is refused naming the file, the line and the value.
case_philly_hardware() {
  need_philly
  local v
  for v in true false; do
    run "aware_$v" simulate --no-fragmentation-meter --trace "$PHILLY_TRACE" \
      --cluster "$SOURCE/examples/clusters/philly-half-gavel.yaml" --policy squeeze \
      --assume-job-types "$SOURCE/examples/hardware/gavel-job-types.csv" \
      --set "hardware_aware=$v" --json "$WORK/aware_$v.json"
    expect_ok "aware_$v"
  done
  "$PYTHON" - "$WORK/aware_true.json" "$WORK/aware_false.json" <<'PY' || fail "aware vs blind"
import json, sys
aware = json.load(open(sys.argv[1]))["results"][0]
blind = json.load(open(sys.argv[2]))["results"][0]
print(f"aware jct {aware['avg_jct_s']:.0f} queue {aware['avg_queue_s']:.0f}; "
      f"blind jct {blind['avg_jct_s']:.0f} queue {blind['avg_queue_s']:.0f}")
assert aware["jobs"] == blind["jobs"] > 68000, (aware["jobs"], blind["jobs"])
# Measured 17,763 s against 23,302 s (1.31x): the upgrade moves and the waits for faster cards
# are most of it (placement alone: 1.04x).
assert aware["avg_jct_s"] * 1.15 < blind["avg_jct_s"], "aware gains less than 1.15x"
assert aware["hardware_moves"] > 0 and blind["hardware_moves"] == 0
PY
  printf 'job_type,multi_gpu,gpu_speeds\nresnet,yes,V100:fast\n' >"$WORK/types.csv"
  run bad simulate --trace "$PHILLY_TRACE" --cluster "$PHILLY_HALF" \
    --assume-job-types "$WORK/types.csv"
  expect_error bad
  expect_in "$WORK/bad.err" "--assume-job-types" "types.csv:2" "V100:fast"
  pass
}

case_philly_determinism() {
  need_philly
  philly_half first fifo,sjf,squeeze+borrow
  philly_half second fifo,sjf,squeeze+borrow
  check same-json "$WORK/first.json" "$WORK/second.json"
  cmp "$WORK/first.svg" "$WORK/second.svg" || fail "the two SVGs differ"
  pass
}

# The job-profile example under every named policy (preemption, slicing, deadlines, shared
# GPUs): it loads, the report has the documented shape, and a second run gives the same figures.
case_profile_example() {
  local policies=fifo,sjf,srtf,las,backfill,squeeze,sliced,squeeze+borrow
  local i
  for i in 1 2; do
    run "profile$i" simulate --trace "$PROFILE_EXAMPLE" --cluster "$SMALL_LAB" \
      --policy "$policies" --json "$WORK/profile$i.json" --svg "$WORK/profile$i.svg"
    expect_ok "profile$i"
  done
  local jobs
  jobs=$(grep -cv '^[[:space:]]*$' "$PROFILE_EXAMPLE")
  check shape "$WORK/profile1.json" --jobs $((jobs - 1)) --policies "$policies"
  check svg "$WORK/profile1.svg" --policies "$policies"
  check same-json "$WORK/profile1.json" "$WORK/profile2.json"
  # The example's four deadlines are counted; the table reports misses per policy.
  "$PYTHON" - "$WORK/profile1.json" <<'PY' || fail "deadlines are not counted in the JSON"
import json, sys
results = json.load(open(sys.argv[1]))["results"]
assert all(r["deadlines"] == 4 for r in results), [r["deadlines"] for r in results]
assert all(0 <= r["deadline_misses"] <= 4 for r in results)
PY
  expect_in "$WORK/profile1.out" "of 4 deadlines missed"
  if grep -q . "$WORK/profile1.err"; then
    cat "$WORK/profile1.err" >&2
    fail "the example printed warnings (rejected jobs?)"
  fi
  pass
}

# --no-fragmentation-meter: the same outcome for every job (the meter's queries change no
# decision), and the figure it would give is shown as not measured, never as 0.
case_no_fragmentation_meter() {
  local policies=fifo,squeeze,sliced,squeeze+borrow
  run meter simulate --trace "$PROFILE_EXAMPLE" --cluster "$SMALL_LAB" --policy "$policies" \
    --json "$WORK/meter.json" --jobs-csv "$WORK/meter.csv"
  expect_ok meter
  run nometer simulate --trace "$PROFILE_EXAMPLE" --cluster "$SMALL_LAB" --policy "$policies" \
    --no-fragmentation-meter --json "$WORK/nometer.json" --jobs-csv "$WORK/nometer.csv"
  expect_ok nometer
  cmp "$WORK/meter.csv" "$WORK/nometer.csv" || fail "the jobs' outcomes differ without the meter"
  "$PYTHON" - "$WORK/meter.json" "$WORK/nometer.json" <<'PY' || fail "frag_blocked_gpu_hours"
import json, sys
on, off = (json.load(open(p))["results"] for p in sys.argv[1:])
assert all(isinstance(r["frag_blocked_gpu_hours"], float) for r in on), on[0]["frag_blocked_gpu_hours"]
assert all(r["frag_blocked_gpu_hours"] is None for r in off), off[0]["frag_blocked_gpu_hours"]
assert all(p["frag_blocked_gpu_hours"] is None for r in off for p in r["per_pool"].values())
PY
  grep -E '^fifo ' "$WORK/nometer.out" | grep -qE ' - +[0-9.]+$' ||
    fail "the table does not show frag_gpuh as -: $(grep -E '^fifo ' "$WORK/nometer.out")"
  pass
}

# --defrag adds a NAME+defrag run of every policy; the report counts the moves.
case_defrag_flag() {
  run defrag simulate --trace "$PROFILE_EXAMPLE" --cluster "$SMALL_LAB" --policy fifo,las \
    --defrag --json "$WORK/defrag.json"
  expect_ok defrag
  local jobs
  jobs=$(grep -cv '^[[:space:]]*$' "$PROFILE_EXAMPLE")
  check shape "$WORK/defrag.json" --jobs $((jobs - 1)) --policies fifo,las,fifo+defrag,las+defrag
  expect_in "$WORK/defrag.out" "fifo+defrag" "las+defrag"
  run nodefrag simulate --trace "$PROFILE_EXAMPLE" --cluster "$SMALL_LAB" --policy squeeze \
    --set defrag=false --json "$WORK/nodefrag.json"
  expect_ok nodefrag
  check shape "$WORK/nodefrag.json" --policies squeeze
  # A setting the policy no longer reads once its action is gone is refused, naming why.
  run unread simulate --trace "$PROFILE_EXAMPLE" --cluster "$SMALL_LAB" --policy squeeze \
    --set defrag=false --set defrag_max_moves_per_hour=0
  expect_error unread
  expect_in "$WORK/unread.err" "--set defrag_max_moves_per_hour=0 changes nothing in policy squeeze" \
    "read only by the defrag action"
  run bad simulate --trace "$PROFILE_EXAMPLE" --cluster "$SMALL_LAB" \
    --set defrag_max_moves_per_hour=-1
  expect_error bad
  expect_in "$WORK/bad.err" "defrag_max_moves_per_hour" "'-1'"
  pass
}

write_bad_trace() {  # a philly-oct-nov trace whose line 4 has a bad duration_s
  cat >"$WORK/bad.csv" <<'EOF'
job_id,vc,submit_time_s,duration_s,num_gpus
1,6214e9,0,30,1
2,6214e9,10,600,2
3,6214e9,20,12x,1
4,ee9e8c,30,45,8
EOF
}

case_bad_row() {
  write_bad_trace
  run bad simulate --trace "$WORK/bad.csv" --cluster "$PHILLY_HALF" --policy fifo
  expect_error bad
  expect_in "$WORK/bad.err" "$WORK/bad.csv:4" "duration_s" "'12x'"
  pass
}

case_skip_bad_rows() {
  write_bad_trace
  run skip simulate --trace "$WORK/bad.csv" --cluster "$PHILLY_HALF" --policy fifo,sjf \
    --skip-bad-rows --json "$WORK/skip.json"
  expect_ok skip
  expect_in "$WORK/skip.err" "skipped 1 bad rows" "$WORK/bad.csv:4" "'12x'"
  check shape "$WORK/skip.json" --jobs 3 --policies fifo,sjf
  pass
}

case_bad_profile_cell() {
  cat >"$WORK/profile.csv" <<'EOF'
id,submit_time,duration,gpus,pool,urgency
1,0,1h,1,lab-a100,normal
2,5m,30m,2,lab-a100,urgent
EOF
  run bad simulate --trace "$WORK/profile.csv" --cluster "$SMALL_LAB"
  expect_error bad
  expect_in "$WORK/bad.err" "$WORK/profile.csv:3" "urgency" "'urgent'"
  pass
}

case_slurm_pool_without_nodes() {
  printf 'pools:\n  - {name: east, backend: slurm, slurm: {conf: /etc/slurm/slurm.conf}}\n' \
    >"$WORK/slurm-only.yaml"
  run bad simulate --trace "$PROFILE_EXAMPLE" --cluster "$WORK/slurm-only.yaml"
  expect_error bad
  expect_in "$WORK/bad.err" "slurm-only.yaml: no nodes" "the simulator needs them listed"
  pass
}

case_unknown_policy() {
  write_bad_trace
  run unknown simulate --trace "$WORK/bad.csv" --cluster "$PHILLY_HALF" --skip-bad-rows \
    --policy fifo,fastest-first
  expect_error unknown
  expect_in "$WORK/unknown.err" "fastest-first"
  pass
}

# A setting no policy run reads changes nothing: refused, with what reads it, before the trace
# is read (the trace here does not exist). A setting only some policies read is applied, noted.
case_unread_settings() {
  local none="$WORK/no-such-trace.csv"
  run other simulate --trace "$none" --cluster "$SMALL_LAB" --policy fifo --set squeeze.min_runtime=10m
  expect_error other
  expect_in "$WORK/other.err" "--set squeeze.min_runtime=10m: no policy 'squeeze' is run here (run: fifo)"
  run fifo simulate --trace "$none" --cluster "$SMALL_LAB" --policy fifo --set min_runtime=10m
  expect_error fifo
  expect_in "$WORK/fifo.err" "--set min_runtime=10m changes nothing in policy fifo" \
    "read only by the preempt and defrag actions" "named policies that read it: kueue, las, sliced, squeeze, srtf, volcano"
  run slice simulate --trace "$none" --cluster "$SMALL_LAB" --policy squeeze --set squeeze.slice=10m
  expect_error slice
  expect_in "$WORK/slice.err" "slice is read only by the slice action" "named policies that read it: sliced"
  run sliceflag simulate --trace "$none" --cluster "$SMALL_LAB" --policy squeeze --slice 10m
  expect_error sliceflag
  expect_in "$WORK/sliceflag.err" "--slice 10m changes nothing in policy squeeze"
  run typo simulate --trace "$none" --cluster "$SMALL_LAB" --set min_runtme=10m
  expect_error typo
  expect_in "$WORK/typo.err" "unknown policy option 'min_runtme'; did you mean min_runtime?"
  grep -qF "$none" "$WORK"/*.err && fail "a refused setting should stop before the trace is read"
  run some simulate --trace "$PROFILE_EXAMPLE" --cluster "$SMALL_LAB" --policy fifo,sliced \
    --set slice=10m --json "$WORK/some.json"
  expect_ok some
  expect_in "$WORK/some.err" "note: --set slice=10m changes policy sliced only: fifo does not read slice"
  run all simulate --trace "$PROFILE_EXAMPLE" --cluster "$SMALL_LAB" --policy fifo,sliced \
    --json "$WORK/all.json"
  expect_ok all
  # The slice length reached the sliced run: its result differs from the default 30-min slices.
  cmp -s <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][1])' "$WORK/some.json") \
    <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][1])' "$WORK/all.json") &&
    fail "--set slice=10m did not change the sliced run"
  pass
}

case_missing_cluster() {
  write_bad_trace
  local missing="$WORK/no-such-dir/cluster.yaml"
  run missing simulate --trace "$WORK/bad.csv" --cluster "$missing" --skip-bad-rows
  expect_error missing
  expect_in "$WORK/missing.err" "$missing"
  pass
}

case_missing_trace() {
  local missing="$WORK/no-such-trace.csv"
  run missing simulate --trace "$missing" --cluster "$PHILLY_HALF"
  expect_error missing
  expect_in "$WORK/missing.err" "$missing"
  pass
}

# A title with XML specials (the trace path) must still give a well-formed SVG.
case_svg_escaping() {
  mkdir -p "$WORK/R&D <lab>" || fail "cannot make a folder with '&' and '<' in its name"
  cp "$PROFILE_EXAMPLE" "$WORK/R&D <lab>/jobs.csv"
  run svg simulate --trace "$WORK/R&D <lab>/jobs.csv" --cluster "$SMALL_LAB" --policy fifo \
    --svg "$WORK/plot.svg"
  expect_ok svg
  check svg "$WORK/plot.svg" --policies fifo
  pass
}

# A cluster without any of the trace's pools: refused before anything runs, in one message
# naming both sides and the fixes, not a line per job; --ignore-pools runs it. A cluster with
# some of them runs, with a note on the jobs whose pools it lacks.
case_pools_mismatch() {
  cat >"$WORK/other.yaml" <<'YAML'
pools:
  - {name: shared, kind: owned, nodes: [{count: 4, gpus: 8}]}
YAML
  printf 'id,submit_time,duration,gpus,pool\n1,0,60,1,lab-a100\n2,0,60,1,lab-l40s\n3,5,60,2,lab-a100\n' \
    >"$WORK/pooled.csv"
  run mismatch simulate --trace "$WORK/pooled.csv" --cluster "$WORK/other.yaml" \
    --policy fifo,squeeze --json "$WORK/mismatch.json"
  expect_error mismatch
  ((RC == 1)) || fail "exit $RC, expected 1"
  expect_in "$WORK/mismatch.err" \
    "squeeze simulate: the trace's jobs name 2 pools the cluster $WORK/other.yaml does not have: 'lab-a100' (2 jobs), 'lab-l40s' (1 job); none of the trace's 3 jobs could run." \
    "The cluster's pools: 'shared'. Give --ignore-pools" \
    "or name the trace's pools in the cluster file"
  (($(wc -l <"$WORK/mismatch.err") == 1)) || fail "more than one line on stderr"
  [[ ! -s "$WORK/mismatch.out" && ! -e "$WORK/mismatch.json" ]] || fail "something ran"
  run ignored simulate --trace "$WORK/pooled.csv" --cluster "$WORK/other.yaml" --ignore-pools \
    --policy fifo --json "$WORK/ignored.json"
  expect_ok ignored
  check shape "$WORK/ignored.json" --jobs 3 --policies fifo
  run some simulate --trace "$PROFILE_EXAMPLE" --cluster "$WORK/other.yaml" --policy fifo
  expect_ok some
  expect_in "$WORK/some.err" \
    "squeeze simulate: note: 10 of the trace's 20 jobs name 2 pools the cluster $WORK/other.yaml does not have: 'lab-a100' (5 jobs), 'lab-l40s' (5 jobs); they are rejected (--ignore-pools lets every job run in any pool)" \
    "squeeze simulate: fifo: "
  pass
}

# Jobs the cluster can never hold (more GPUs than it has): a count per policy and the first 5
# reasons, not a line per job; the run goes on.
case_rejected_summary() {
  {
    echo "id,submit_time,duration,gpus,pool"
    for i in $(seq 1 30); do echo "$i,$i,60,64,"; done
    echo "31,0,60,1,"
  } >"$WORK/big.csv"
  run big simulate --trace "$WORK/big.csv" --cluster "$SMALL_LAB" --policy fifo,squeeze \
    --json "$WORK/big.json"
  expect_ok big
  expect_in "$WORK/big.err" \
    "squeeze simulate: fifo: 30 jobs rejected (the cluster can never run them; they are in no figure); the first 5:" \
    "squeeze simulate: squeeze: 30 jobs rejected" "  job 1: "
  (($(wc -l <"$WORK/big.err") == 12)) || { cat "$WORK/big.err"; fail "expected 2 x 6 lines on stderr"; }
  "$PYTHON" - "$WORK/big.json" <<'PY' || fail "the JSON does not count them"
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    assert r["jobs"] == 1 and r["rejected"] == 30, r
PY
  pass
}

# Progress on a stderr that is not a terminal: plain lines (every --progress-every; 0 = every
# report) ending with a finished line; none with -q, none for a short run by default.
case_progress_piped() {
  run progress simulate --trace "$PROFILE_EXAMPLE" --cluster "$SMALL_LAB" --policy fifo,squeeze \
    --progress-every 0
  expect_ok progress
  expect_in "$WORK/progress.err" "squeeze simulate: fifo: day " "squeeze simulate: squeeze: day " \
    "20 of 20 jobs done (100.0%), 0 waiting, 0 running"
  grep -q "^squeeze simulate: squeeze: day .*, finished$" "$WORK/progress.err" ||
    fail "no finished line for squeeze"
  if grep -q $'\r' "$WORK/progress.err"; then fail "carriage returns on a stderr that is a file"; fi
  run quiet simulate -q --trace "$PROFILE_EXAMPLE" --cluster "$SMALL_LAB" --progress-every 0
  expect_ok quiet
  [[ ! -s "$WORK/quiet.err" ]] || fail "-q printed: $(cat "$WORK/quiet.err")"
  run short simulate --trace "$PROFILE_EXAMPLE" --cluster "$SMALL_LAB"
  expect_ok short
  [[ ! -s "$WORK/short.err" ]] || fail "a short run printed: $(cat "$WORK/short.err")"
  run bad simulate --trace "$PROFILE_EXAMPLE" --cluster "$SMALL_LAB" --progress-every soon
  expect_error bad
  expect_in "$WORK/bad.err" "squeeze simulate: --progress-every"
  pass
}

case_help() {
  run help --help
  expect_ok help
  expect_in "$WORK/help.out" "simulate"
  run simhelp simulate --help
  expect_ok simhelp
  expect_in "$WORK/simhelp.out" "--trace" "--policy" "--cluster" "--json" "--svg" \
    "--skip-bad-rows" "--borrow" "--defrag" "--progress-every"
  run nosub
  expect_error nosub
  pass
}

run_case
