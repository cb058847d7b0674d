#!/usr/bin/env bash
# End-to-end tests of `squeeze simulate --protocol fill` (the FGD experiment): the real binary on
# real files. CTest runs one case per test (tests/CMakeLists.txt); by hand:
#   bash tests/cli_fill_test.sh CASE SQUEEZE SOURCE_DIR SHARED_DIR WORK_DIR [PYTHON]
# SQUEEZE is the binary, SOURCE_DIR the repository, SHARED_DIR the folder holding traces/,
# WORK_DIR an empty-able scratch folder (kept after a run for inspection). Cases needing the
# openb traces exit 77 (skipped) when SHARED_DIR lacks them.
source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh" "$@"
OPENB_PODS="$SHARED/traces/openb/openb_pod_list_default.csv"
OPENB_NODES="$SHARED/traces/openb/openb_node_list_gpu_node.csv"
POD_HEADER="name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time"

# In $WORK: nodes.csv, 16 nodes of 8 V100s (128 GPUs, so that no pod arrives more than 3% of
# capacity at once and every column has events), and pods.csv, nine pods of 100 to 900 milli,
# one whole GPU and a pair.
write_small() {
  {
    echo "sn,cpu_milli,memory_mib,gpu,model"
    local i
    for i in $(seq 0 15); do echo "n$i,96000,393216,8,V100"; done
  } >"$WORK/nodes.csv"
  {
    echo "$POD_HEADER"
    local i
    for i in $(seq 1 9); do echo "p-$i,4000,8192,1,$((100 * i)),,LS,Running,0,10,0"; done
    echo "p-10,8000,16384,1,1000,V100,LS,Running,0,10,0"
    echo "p-11,16000,32768,2,1000,,LS,Running,0,10,0"
  } >"$WORK/pods.csv"
}

# The shared openb set-up with bestfit, fgd and squeeze over seeds 42-43: the JSON has the
# documented shape, fgd beats bestfit at @130 as in the paper, squeeze is at least as good as
# fgd (within 0.1 point) at every column, and the SVG has one curve per placement.
case_openb_report() {
  need_files "$OPENB_PODS" "$OPENB_NODES"
  run fill simulate --protocol fill --trace "$OPENB_PODS" --nodes "$OPENB_NODES" \
    --placement bestfit,fgd,squeeze --seeds 42-43 --json "$WORK/out.json" --svg "$WORK/out.svg"
  expect_ok fill
  check_with fill_checks.py shape "$WORK/out.json" --placements bestfit,fgd,squeeze --seeds 42-43
  check_with fill_checks.py ranking "$WORK/out.json"
  check_with simulate_checks.py svg "$WORK/out.svg" --policies bestfit,fgd,squeeze
  expect_in "$WORK/fill.out" "allocation ratio" "@130" "bestfit" "fgd" "squeeze"
  pass
}

# A seed fixes everything, the random placement included.
case_openb_determinism() {
  need_files "$OPENB_PODS" "$OPENB_NODES"
  local i
  for i in 1 2; do
    run "run$i" simulate --protocol fill --trace "$OPENB_PODS" --nodes "$OPENB_NODES" \
      --placement random,squeeze --seeds 7 --json "$WORK/run$i.json"
    expect_ok "run$i"
  done
  check_with simulate_checks.py same-json "$WORK/run1.json" "$WORK/run2.json"
  pass
}

# Without the shared traces: a small cluster filled to 130% by clones of eleven pods.
case_small_report() {
  write_small
  run fill simulate --protocol fill --trace "$WORK/pods.csv" --nodes "$WORK/nodes.csv" \
    --placement bestfit,fgd,squeeze --seeds 1-3 --json "$WORK/out.json" --svg "$WORK/out.svg"
  expect_ok fill
  check_with fill_checks.py shape "$WORK/out.json" --placements bestfit,fgd,squeeze --seeds 1-3
  check_with simulate_checks.py svg "$WORK/out.svg" --policies bestfit,fgd,squeeze
  pass
}

case_missing_nodes() {
  write_small
  run missing simulate --protocol fill --trace "$WORK/pods.csv"
  expect_error missing
  expect_in "$WORK/missing.err" "--nodes"
  run absent simulate --protocol fill --trace "$WORK/pods.csv" --nodes "$WORK/no-such.csv"
  expect_error absent
  expect_in "$WORK/absent.err" "$WORK/no-such.csv"
  pass
}

case_bad_seeds() {
  write_small
  local seeds
  for seeds in 51-42 abc 42- -3; do
    run seeds simulate --protocol fill --trace "$WORK/pods.csv" --nodes "$WORK/nodes.csv" \
      --seeds "$seeds"
    expect_error seeds
    expect_in "$WORK/seeds.err" "--seeds" "'$seeds'"
  done
  pass
}

case_unknown_placement() {
  write_small
  run unknown simulate --protocol fill --trace "$WORK/pods.csv" --nodes "$WORK/nodes.csv" \
    --placement bestfit,nosuch --seeds 1
  expect_error unknown
  expect_in "$WORK/unknown.err" "placement" "'nosuch'"
  pass
}

# Line 3 of a pod list has gpu_milli '12x'; line 2 of a node list has gpu 'two'.
case_bad_cells() {
  write_small
  { echo "$POD_HEADER"; echo "p-0,1000,2048,1,500,,LS,Running,0,10,0"
    echo "p-1,1000,2048,1,12x,,LS,Running,0,10,0"; } >"$WORK/bad-pods.csv"
  run pods simulate --protocol fill --trace "$WORK/bad-pods.csv" --nodes "$WORK/nodes.csv"
  expect_error pods
  expect_in "$WORK/pods.err" "$WORK/bad-pods.csv:3" "gpu_milli" "'12x'"
  printf 'sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,two,V100\n' >"$WORK/bad-nodes.csv"
  run nodes simulate --protocol fill --trace "$WORK/pods.csv" --nodes "$WORK/bad-nodes.csv"
  expect_error nodes
  expect_in "$WORK/nodes.err" "$WORK/bad-nodes.csv:2" "gpu" "'two'"
  pass
}

case_bad_fill() {
  write_small
  local fill
  for fill in -1 0 11; do
    run fill simulate --protocol fill --trace "$WORK/pods.csv" --nodes "$WORK/nodes.csv" \
      --fill "$fill"
    expect_error fill
    expect_in "$WORK/fill.err" "--fill" "'$fill'"
  done
  pass
}

# The fill flags do not make --cluster optional for the replay protocol, nor is an unknown
# protocol taken for one.
case_replay_needs_cluster() {
  write_small
  run replay simulate --trace "$WORK/pods.csv" --nodes "$WORK/nodes.csv"
  expect_error replay
  expect_in "$WORK/replay.err" "--cluster"
  run protocol simulate --protocol fil --trace "$WORK/pods.csv" --nodes "$WORK/nodes.csv"
  expect_error protocol
  expect_in "$WORK/protocol.err" "--protocol" "'fil'"
  pass
}

run_case
