#!/usr/bin/env bash
# End-to-end tests of `squeeze idle-report`: the real binary on a generated file of GPU
# utilization samples with planted idle windows. CTest runs one case per test
# (tests/CMakeLists.txt); by hand:
#   bash tests/cli_idle_test.sh CASE SQUEEZE SOURCE_DIR SHARED_DIR WORK_DIR [PYTHON]
source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh" "$@"

# Five generated weeks: the text lists exactly the planted windows, the JSON holds them, the SVG
# is well-formed XML with one heatmap per node and pool; at p=0.6 the window skipped in 2 of 5
# weeks appears too; --since 2w keeps two weeks.
case_generated_report() {
  run gen idle-report --generate-samples "$WORK/samples.csv" --weeks 5 --seed 7
  expect_ok gen
  expect_in "$WORK/gen.out" "wrote 241920 samples"
  run text idle-report --samples "$WORK/samples.csv" --svg "$WORK/idle.svg"
  expect_ok text
  expect_in "$WORK/text.out" \
    "  node-1 GPUs 0-7: idle Mon-Fri 01:00-07:00 in 5 of 5 weeks" \
    "  node-2 GPUs 0-3: idle Sat-Sun all day in 5 of 5 weeks" \
    "  no window: node-3" \
    "  no window: node-2, node-3" \
    "  no window: all (3 nodes, 24 GPUs)"
  [[ $(grep -c ": idle " "$WORK/text.out") == 3 ]] || fail "expected 3 window lines in text.out"
  run json idle-report --samples "$WORK/samples.csv" --json
  expect_ok json
  check_with idle_checks.py "$WORK/json.out" "$WORK/idle.svg" \
    "node-1:0-7:Mon-Fri 01:00-07:00 in 5 of 5 weeks" \
    "node-2:0-3:Sat-Sun all day in 5 of 5 weeks"
  run low idle-report --samples "$WORK/samples.csv" --probability 0.6 --json
  expect_ok low
  check_with idle_checks.py "$WORK/low.out" "$WORK/idle.svg" \
    "node-1:0-7:Mon-Fri 01:00-07:00 in 5 of 5 weeks" \
    "node-2:0-3:Sat-Sun all day in 5 of 5 weeks" \
    "node-2:4-7:Wed 12:00-16:00 in 3 of 5 weeks"
  run since idle-report --samples "$WORK/samples.csv" --since 2w
  expect_ok since
  expect_in "$WORK/since.out" "(2 calendar weeks)" "node-1 GPUs 0-7: idle Mon-Fri 01:00-07:00 in 2 of 2 weeks"
  pass
}

# Broken input and options: each error names what is wrong.
case_bad_input() {
  printf 'time,node,gpu,utilization\n2026-11-02T01:00:00Z,n,0,35\n' >"$WORK/range.csv"
  run range idle-report --samples "$WORK/range.csv"
  expect_error range
  expect_in "$WORK/range.err" "range.csv:2: column 'utilization': value '35' is out of range"
  printf 'time,node,utilization\n1,n,0\n' >"$WORK/header.csv"
  run header idle-report --samples "$WORK/header.csv"
  expect_error header
  expect_in "$WORK/header.err" "header.csv:1: missing column 'gpu'"
  printf 'time,node,gpu,utilization\n1,n,0,0\n' >"$WORK/ok.csv"
  run since idle-report --samples "$WORK/ok.csv" --since soon
  expect_error since
  expect_in "$WORK/since.err" "--since 'soon': expected a positive duration"
  run prob idle-report --samples "$WORK/ok.csv" --probability 2
  expect_error prob
  expect_in "$WORK/prob.err" "probability 2.000000 is out of range (0, 1]"
  run none idle-report
  expect_error none
  expect_in "$WORK/none.err" "give --samples FILE"
  pass
}

run_case
