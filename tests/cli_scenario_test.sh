#!/usr/bin/env bash
# End-to-end tests of `squeeze simulate --scenario` and `--inference-load`: the real binary on
# the small files in tests/data/scenario. CTest runs one case per test (tests/CMakeLists.txt); by
# hand:
#   bash tests/cli_scenario_test.sh CASE SQUEEZE SOURCE_DIR SHARED_DIR WORK_DIR [PYTHON]
# Only inference_load_real reads SHARED_DIR (and is skipped without the inference trace).
source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh" "$@"
DATA="$SOURCE/tests/data/scenario"
PROFILE_EXAMPLE="$SOURCE/examples/jobs/profile-example.csv"
SMALL_LAB="$SOURCE/examples/clusters/small-lab.yaml"
POD_TRACE="$SHARED/traces/inference/pod_gpu_duty_cycle_anon.tar.gz"

check() {
  check_with simulate_checks.py "$@"
}

# Every variant runs, each on its own cluster with its own policies, and the report holds them in
# one table and one JSON document; a second run gives the same figures.
case_small_scenario() {
  local i
  for i in 1 2; do
    (cd "$WORK" && "$SQUEEZE" simulate --scenario "$DATA/lab.yaml" --json "run$i.json" \
      --svg "run$i.svg" --jobs-csv "run$i.csv" >"run$i.out" 2>"run$i.err" </dev/null)
    RC=$?
    expect_ok "run$i"
  done
  check scenario "$WORK/run1.json" --name lab-what-if --variants small,plus \
    --policies "fifo,squeeze;fifo,squeeze+borrow" --gpus 20,40
  check same-json "$WORK/run1.json" "$WORK/run2.json"
  check svg "$WORK/run1.svg" --policies small/fifo,small/squeeze,plus/fifo,plus/squeeze+borrow
  expect_in "$WORK/run1.out" "scenario lab-what-if" "small: $DATA/lab-small.yaml (20 GPUs)" \
    "plus: $DATA/lab-plus.yaml (40 GPUs), inference load $DATA/load.csv" \
    "small/fifo" "small/squeeze" "plus/fifo" "plus/squeeze+borrow"
  "$PYTHON" - "$WORK/run1.json" "$WORK/run1.csv" "$DATA" <<'PY' || fail "the report is wrong"
import csv, json, sys
doc = json.load(open(sys.argv[1]))
data = sys.argv[3]
assert doc["trace"].endswith("examples/jobs/profile-example.csv"), doc["trace"]
small, plus = doc["variants"]
assert small["cluster"] == data + "/lab-small.yaml", small["cluster"]
assert plus["cluster"] == data + "/lab-plus.yaml", plus["cluster"]
assert small["inference_load"] is None and plus["inference_load"] == data + "/load.csv"
# The larger cluster spreads the same GPU-hours over more GPUs.
assert plus["results"][0]["gpu_utilization"] < small["results"][0]["gpu_utilization"]
rows = list(csv.DictReader(open(sys.argv[2])))
policies = sorted({r["policy"] for r in rows})
assert policies == ["plus/fifo", "plus/squeeze+borrow", "small/fifo", "small/squeeze"], policies
PY
  pass
}

# The command-line options that are not the scenario's apply to every variant.
case_scenario_flags() {
  run flags simulate --scenario "$DATA/lab.yaml" --defrag --json "$WORK/flags.json"
  expect_ok flags
  check scenario "$WORK/flags.json" --name lab-what-if --variants small,plus \
    --policies "fifo,squeeze,fifo+defrag,squeeze+defrag;fifo,squeeze+borrow,fifo+defrag,squeeze+borrow+defrag"
  pass
}

# write_scenario NAME TEXT: $WORK/NAME.yaml, its paths relative to tests/data/scenario.
write_scenario() {
  printf '%s' "$2" | sed "s|@DATA@|$DATA|g" >"$WORK/$1.yaml"
}

expect_scenario_error() {  # expect_scenario_error NAME MESSAGE...
  local name=$1
  shift
  run "$name" simulate --scenario "$WORK/$name.yaml"
  expect_error "$name"
  ((RC == 1)) || fail "exit $RC, expected 1"
  expect_in "$WORK/$name.err" "$@"
}

case_broken_scenarios() {
  local head="trace: @DATA@/../../../examples/jobs/profile-example.csv
"
  write_scenario missing_cluster "$head"'variants:
  - {name: a, cluster: @DATA@/lab-small.yaml}
  - {name: b, cluster: nowhere.yaml}
'
  expect_scenario_error missing_cluster \
    "squeeze simulate: $WORK/missing_cluster.yaml:4: variants[1].cluster: cannot read 'nowhere.yaml' (resolved to '$WORK/nowhere.yaml'): No such file or directory"
  write_scenario bad_key "$head"'policy: fifo
variants:
  - {name: a, cluster: @DATA@/lab-small.yaml, polciy: sjf}
'
  expect_scenario_error bad_key "$WORK/bad_key.yaml:4: variants[0]: unknown key 'polciy'; known keys: name, cluster, policy"
  write_scenario no_variants "$head"'variants: []
'
  expect_scenario_error no_variants "$WORK/no_variants.yaml:2: variants: expected a non-empty list"
  write_scenario duplicate "$head"'variants:
  - {name: a, cluster: @DATA@/lab-small.yaml}
  - {name: b, cluster: @DATA@/lab-plus.yaml}
  - {name: a, cluster: @DATA@/lab-plus.yaml}
'
  expect_scenario_error duplicate \
    "$WORK/duplicate.yaml:5: variants[2].name: duplicate variant name 'a' (first on line 3)"
  write_scenario bad_cluster "$head"'variants:
  - {name: a, cluster: @DATA@/load.csv}
'
  expect_scenario_error bad_cluster "$WORK/bad_cluster.yaml: variant 'a': $DATA/load.csv"
  write_scenario bad_load "$head"'inference_load: @DATA@/lab.yaml
variants:
  - {name: a, cluster: @DATA@/lab-small.yaml}
'
  expect_scenario_error bad_load "$WORK/bad_load.yaml: variant 'a': $DATA/lab.yaml:"
  # A variant's cluster without any of the trace's pools: refused before any variant runs.
  printf 'pools:\n  - {name: shared, nodes: [{count: 2, gpus: 8}]}\n' >"$WORK/other.yaml"
  printf 'id,submit_time,duration,gpus,pool\n1,0,60,1,lab-a100\n2,0,60,1,lab-l40s\n' >"$WORK/pooled.csv"
  write_scenario other_pools 'trace: pooled.csv
variants:
  - {name: a, cluster: @DATA@/lab-small.yaml}
  - {name: b, cluster: other.yaml}
'
  expect_scenario_error other_pools "squeeze simulate: $WORK/other_pools.yaml: variant 'b': the trace's jobs name 2 pools the cluster $WORK/other.yaml does not have: 'lab-a100' (1 job), 'lab-l40s' (1 job); none of the trace's 2 jobs could run." \
    "The cluster's pools: 'shared'. Give --ignore-pools"
  [[ ! -s "$WORK/other_pools.out" ]] || fail "a variant ran: $(cat "$WORK/other_pools.out")"
  run missing_file simulate --scenario "$WORK/none.yaml"
  expect_error missing_file
  expect_in "$WORK/missing_file.err" "$WORK/none.yaml"
  # --scenario states the trace, the cluster and the policies itself.
  run both simulate --scenario "$DATA/lab.yaml" --trace "$PROFILE_EXAMPLE"
  expect_error both
  expect_in "$WORK/both.err" "--scenario" "--trace"
  run neither simulate --cluster "$SMALL_LAB"
  expect_error neither
  ((RC == 2)) || fail "no --trace nor --scenario: exit $RC, expected 2 (a command line it cannot parse)"
  expect_in "$WORK/neither.err" "--trace is required"
  pass
}

# A setting no policy reads changes nothing: a variant's own is refused in that variant; one
# inherited from the top level (or --slice) is noted where unread, refused when no variant reads it.
case_unread_settings() {
  local head="trace: @DATA@/../../../examples/jobs/profile-example.csv
"
  write_scenario own "$head"'policy: fifo,squeeze
variants:
  - {name: a, cluster: @DATA@/lab-small.yaml}
  - {name: b, cluster: @DATA@/lab-small.yaml, set: {slice: 20m}}
'
  expect_scenario_error own "squeeze simulate: $WORK/own.yaml: variant 'b': set slice: 20m changes nothing in policies fifo, squeeze: slice is read only by the slice action; named policies that read it: sliced"
  write_scenario nowhere "$head"'policy: squeeze
set: {sliced.slice: 20m}
variants:
  - {name: a, cluster: @DATA@/lab-small.yaml}
  - {name: b, cluster: @DATA@/lab-small.yaml, policy: fifo}
'
  expect_scenario_error nowhere "variant 'a': note: set sliced.slice: 20m (top level): no policy 'sliced' is run here (run: squeeze)" \
    "squeeze simulate: $WORK/nowhere.yaml: set sliced.slice: 20m (top level) changes nothing in any variant (in the last: set sliced.slice: 20m (top level): no policy 'sliced' is run here (run: fifo))"
  write_scenario somewhere "$head"'set: {min_runtime: 20m}
variants:
  - {name: a, cluster: @DATA@/lab-small.yaml, policy: fifo}
  - {name: b, cluster: @DATA@/lab-small.yaml, policy: sliced}
'
  run somewhere simulate --scenario "$WORK/somewhere.yaml" --slice 10m --json "$WORK/somewhere.json"
  expect_ok somewhere
  expect_in "$WORK/somewhere.err" "variant 'a': note: set min_runtime: 20m (top level) changes nothing in policy fifo" \
    "variant 'a': note: --slice 10m changes nothing in policy fifo"
  run sliceless simulate --scenario "$DATA/lab.yaml" --slice 10m
  expect_error sliceless
  expect_in "$WORK/sliceless.err" "--slice 10m changes nothing in any variant"
  pass
}

case_inference_load() {
  run load simulate --trace "$PROFILE_EXAMPLE" --cluster "$DATA/lab-plus.yaml" --policy fifo \
    --inference-load "$DATA/load.csv" --assume-checkpoint-cost 1m --json "$WORK/load.json"
  expect_ok load
  check shape "$WORK/load.json" --policies fifo
  printf 'value,timestamp_anon,container_ip\n10,0,a\n101,60,a\n' >"$WORK/bad.csv"
  run bad simulate --trace "$PROFILE_EXAMPLE" --cluster "$SMALL_LAB" --inference-load "$WORK/bad.csv"
  expect_error bad
  expect_in "$WORK/bad.err" \
    "squeeze simulate: $WORK/bad.csv:3: column 'value': value '101' must be a percentage from 0 to 100"
  run cost simulate --trace "$PROFILE_EXAMPLE" --cluster "$SMALL_LAB" --assume-checkpoint-cost soon
  expect_error cost
  expect_in "$WORK/cost.err" "--assume-checkpoint-cost"
  pass
}

# --reclaim-trace replays recorded reclaims of spot nodes: every line that hits a node in service
# is one reclaim; a broken trace or one naming a node outside a spot pool is refused.
case_reclaim_trace() {
  printf 'time,node,warning\n1h,spot-0,\n90m,spot-1,1m\n100m,spot-0,\n' >"$WORK/reclaims.csv"
  run spot simulate --trace "$PROFILE_EXAMPLE" --cluster "$DATA/lab-spot.yaml" --policy squeeze \
    --reclaim-trace "$WORK/reclaims.csv" --json "$WORK/spot.json"
  expect_ok spot
  check shape "$WORK/spot.json" --policies squeeze
  # spot-0 is away from 1 h to 1 h 30 m (outage 30m): the notice at 100 m finds it back.
  "$PYTHON" - "$WORK/spot.json" <<'PY' || fail "the reclaims were not replayed"
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
assert r["reclaims"] == 3, r["reclaims"]
PY
  printf 'time,node\n1h,l40s-0\n' >"$WORK/owned.csv"
  run owned simulate --trace "$PROFILE_EXAMPLE" --cluster "$DATA/lab-spot.yaml" \
    --reclaim-trace "$WORK/owned.csv"
  expect_error owned
  expect_in "$WORK/owned.err" \
    "$WORK/owned.csv:2: node 'l40s-0' is in pool lab-l40s, which is not a spot pool"
  printf 'time,node\nlater,spot-0\n' >"$WORK/broken.csv"
  run broken simulate --trace "$PROFILE_EXAMPLE" --cluster "$DATA/lab-spot.yaml" \
    --reclaim-trace "$WORK/broken.csv"
  expect_error broken
  expect_in "$WORK/broken.err" "$WORK/broken.csv:2: column 'time': value 'later'"
  pass
}

case_inference_load_real() {
  need_files "$POD_TRACE"
  run real simulate --trace "$PROFILE_EXAMPLE" --cluster "$DATA/lab-plus.yaml" --policy fifo \
    --inference-load "$POD_TRACE"
  expect_ok real
  pass
}

run_case
