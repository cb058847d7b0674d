#!/usr/bin/env bash
# End-to-end tests of `squeeze advise`: the real binary on the Philly history and the Philly
# half set-up with prices. CTest runs one case per test (tests/CMakeLists.txt); by hand:
#   bash tests/cli_advise_test.sh CASE SQUEEZE SOURCE_DIR SHARED_DIR WORK_DIR [PYTHON]
# Cases needing the Philly trace exit 77 (skipped) when SHARED_DIR lacks it.
source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh" "$@"
PHILLY_TRACE="$SHARED/traces/philly/philly_oct_nov.csv"
PRICES="$SOURCE/examples/clusters/philly-half-prices.yaml"
PROFILE_EXAMPLE="$SOURCE/examples/jobs/profile-example.csv"

# The Philly history on the priced Philly half: every report written, the split adds up, the
# plots are there, one what-if simulated against the cluster as it is.
case_philly_report() {
  need_files "$PHILLY_TRACE"
  run advise advise --history "$PHILLY_TRACE" --cluster "$PRICES" \
    --what-if "6214e9+64@reserved" \
    --markdown "$WORK/out.md" --html "$WORK/out.html" --json "$WORK/out.json"
  expect_ok advise
  check_with advise_checks.py "$WORK/out.json" "$WORK/out.md" "$WORK/out.html" --jobs 68503 \
    --what-ifs 1
  expect_in "$WORK/advise.out" "Reserve vs on demand" "Break-even" "Spot" "Region" \
    "64 more GPUs in pool 6214e9 (owned), priced as reserved: mean wait"
  if grep -q "history is short" "$WORK/advise.err" "$WORK/advise.out"; then
    fail "two months of 68,503 jobs were called short"
  fi
  pass
}

# A cluster without reserved or spot pools: those parts are skipped with a message naming the
# missing kind, the rest is answered.
case_missing_kinds() {
  cat >"$WORK/c.yaml" <<'YAML'
pools:
  - {name: own, kind: owned, nodes: [{count: 1, gpus: 8}]}
  - {name: od, kind: on-demand, price_per_gpu_hour: 3}
YAML
  run advise advise --history "$PROFILE_EXAMPLE" --cluster "$WORK/c.yaml" --json "$WORK/out.json"
  expect_ok advise
  expect_in "$WORK/advise.err" "no pool of kind reserved: the reserve vs on-demand split is skipped" \
    "no pool of kind spot: the spot advice is skipped"
  expect_in "$WORK/out.json" '"reserve_split": null'
  pass
}

# A history of 20 jobs over part of a day: the monthly figures are an extrapolation, and stderr,
# the report and the JSON say so with the span.
case_short_history() {
  run advise advise --history "$PROFILE_EXAMPLE" --cluster "$PRICES" --json "$WORK/out.json" \
    --markdown "$WORK/out.md"
  expect_ok advise
  expect_in "$WORK/advise.err" "squeeze advise: warning: the history is short: 20 jobs spanning " \
    "(fewer than 100 jobs and less than a day). The per-month figures extrapolate it"
  expect_in "$WORK/advise.out" "Warning: the history is short: 20 jobs spanning "
  expect_in "$WORK/out.md" "Warning: the history is short: 20 jobs spanning "
  "$PYTHON" - "$WORK/out.json" <<'PY' || fail "the JSON has no warning"
import json, sys
doc = json.load(open(sys.argv[1]))
assert len(doc["warnings"]) == 1 and "20 jobs spanning" in doc["warnings"][0], doc["warnings"]
assert doc["span_s"] < 86400, doc["span_s"]
PY
  pass
}

case_bad_what_if() {
  run advise advise --history "$PROFILE_EXAMPLE" --cluster "$PRICES" --what-if "spot+many"
  expect_error advise
  expect_in "$WORK/advise.err" "squeeze advise: --what-if 'spot+many': GPU count 'many' is not an integer"
  pass
}

case_bad_option() {
  run advise advise --history "$PROFILE_EXAMPLE" --cluster "$PRICES" --checkpoint-cost soon
  expect_error advise
  expect_in "$WORK/advise.err" "squeeze advise: --checkpoint-cost"
  run advise2 advise --cluster "$PRICES"
  expect_error advise2
  expect_in "$WORK/advise2.err" "give one history: --history FILE"
  pass
}

run_case
