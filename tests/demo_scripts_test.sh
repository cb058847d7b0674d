#!/usr/bin/env bash
# README's demo scripts on a build that exists (label e2e): their usage lines say how, and
# scripts/run-simulation.sh --skip-setup runs the built binary on a slice of the Philly trace
# without setup or build.
#
#   bash tests/demo_scripts_test.sh CASE SQUEEZE SOURCE_DIR SHARED_DIR WORK_DIR [PYTHON]
#
# Cases: usage (both scripts' --help and a wrong argument), simulation.
source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"
e2e_args "$@"
check() { check_with simulate_checks.py "$@"; }

case_usage() {
  local script
  for script in run-example run-simulation; do
    bash "$SOURCE/scripts/$script.sh" --help >"$WORK/$script.out" 2>&1 ||
      fail "$script.sh --help exited $?"
    expect_in "$WORK/$script.out" "--skip-setup" "SQUEEZE_BIN" "SQUEEZE_DEMO_SKIP_SETUP=1"
    if bash "$SOURCE/scripts/$script.sh" --bogus >"$WORK/$script.bad" 2>&1; then
      fail "$script.sh --bogus should fail"
    fi
    expect_in "$WORK/$script.bad" "$script: unknown argument '--bogus' (try --help)"
    SQUEEZE_BIN=$WORK/none bash "$SOURCE/scripts/$script.sh" --skip-setup >"$WORK/$script.nobin" 2>&1 &&
      fail "$script.sh with no binary should fail"
    expect_in "$WORK/$script.nobin" "no squeeze binary at $WORK/none"
  done
  pass
}

case_simulation() {
  local philly="$SHARED/traces/philly/philly_oct_nov.csv"
  need_files "$philly"
  mkdir -p "$WORK/shared/traces/philly"
  head -n 3001 "$philly" >"$WORK/shared/traces/philly/philly_oct_nov.csv"
  local began=$SECONDS
  SQUEEZE_SHARED=$WORK/shared SQUEEZE_BIN=$SQUEEZE SQUEEZE_DEMO_OUT=$WORK/out \
    bash "$SOURCE/scripts/run-simulation.sh" --skip-setup >"$WORK/sim.out" 2>"$WORK/sim.err" ||
    { cat "$WORK/sim.out" "$WORK/sim.err"; fail "run-simulation.sh --skip-setup exited $?"; }
  echo "run-simulation.sh --skip-setup on 3000 jobs: $((SECONDS - began)) s"
  ! grep -q "^setup:\|Building\|ninja" "$WORK/sim.out" "$WORK/sim.err" ||
    fail "--skip-setup should neither set up nor build"
  expect_in "$WORK/sim.out" "fifo" "sjf" "srtf" "squeeze" "run-simulation: wrote $WORK/out/philly-half.json"
  check shape "$WORK/out/philly-half.json" --jobs 3000 --policies fifo,sjf,srtf,squeeze
  [[ -s "$WORK/out/philly-half.svg" ]] || fail "no SVG written"
  pass
}

run_case
