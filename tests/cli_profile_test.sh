#!/usr/bin/env bash
# End-to-end tests of `squeeze profile check|export`, the job-profile table in and out
# (docs/job-profile-csv.md). CTest runs one case per test (tests/CMakeLists.txt); by hand:
#   bash tests/cli_profile_test.sh CASE SQUEEZE SOURCE_DIR SHARED_DIR WORK_DIR [PYTHON]
# Cases needing the Philly trace exit 77 (skipped) when SHARED_DIR lacks it.
source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh" "$@"
PHILLY_TRACE="$SHARED/traces/philly/philly_oct_nov.csv"
PROFILE_EXAMPLE="$SOURCE/examples/jobs/profile-example.csv"

# The Philly history exported for Excel (BOM, CRLF, semicolons) is a job-profile table that
# checks clean and replays exactly as the original: same results, figure for figure.
case_philly_roundtrip() {
  need_files "$PHILLY_TRACE"
  run export profile export --trace "$PHILLY_TRACE" --out "$WORK/philly.csv" --excel --semicolon
  expect_ok export
  expect_in "$WORK/export.err" "wrote 68503 jobs to $WORK/philly.csv"
  [[ "$(head -c 3 "$WORK/philly.csv" | od -An -tx1 | tr -d ' ')" == "efbbbf" ]] ||
    fail "the Excel export does not start with a UTF-8 byte-order mark"
  head -1 "$WORK/philly.csv" | grep -q $'\r$' || fail "the Excel export's lines do not end in CRLF"
  run check profile check "$WORK/philly.csv"
  expect_ok check
  expect_in "$WORK/check.out" "$WORK/philly.csv: 68503 jobs, no errors"
  local cluster="$SOURCE/examples/clusters/philly-half.yaml"
  run original simulate --trace "$PHILLY_TRACE" --cluster "$cluster" --policy fifo,squeeze \
    --json "$WORK/original.json"
  expect_ok original
  run exported simulate --trace "$WORK/philly.csv" --cluster "$cluster" --policy fifo,squeeze \
    --json "$WORK/exported.json"
  expect_ok exported
  "$PYTHON" - "$WORK/original.json" "$WORK/exported.json" <<'PY' || fail "the replays differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for ra, rb in zip(a["results"], b["results"]):
    ra.pop("wall_s"); rb.pop("wall_s")
    if ra != rb:
        diff = {k: (ra[k], rb.get(k)) for k in ra if ra[k] != rb.get(k)}
        sys.exit(f"{ra['policy']}: {diff}")
    print(f"{ra['policy']}: same results (mean queue {ra['avg_queue_s']:.1f} s)")
PY
  pass
}

# Exporting an exported file gives the same bytes; the example reads back whole.
case_stable_export() {
  run first profile export --trace "$PROFILE_EXAMPLE" --out "$WORK/one.csv"
  expect_ok first
  run second profile export --trace "$WORK/one.csv" --out "$WORK/two.csv"
  expect_ok second
  cmp "$WORK/one.csv" "$WORK/two.csv" || fail "a second export differs from the first"
  run check profile check "$WORK/one.csv"
  expect_ok check
  expect_in "$WORK/check.out" "20 jobs, no errors"
  pass
}

# A table with errors in several rows is rejected whole; every error is listed by line and
# column; the file is not half-read by simulate either.
case_errors_listed() {
  printf '%s\n' 'id;submit_time;duration;gpus;pool;urgency;deadline' \
    '1;0;1h;2;;normal;' '2;0;soon;many;;normal;' '3;0;1h;1;;;' '4;0;1h;1;;whenever;yesterday' \
    '1;0;1h;1;;low;' >"$WORK/bad.csv"
  run check profile check "$WORK/bad.csv"
  expect_error check
  expect_in "$WORK/check.err" "5 errors in $WORK/bad.csv; nothing was read:" \
    "bad.csv:3: column 'duration': value 'soon'" "bad.csv:3: column 'gpus': value 'many'" \
    "bad.csv:5: column 'urgency': value 'whenever'" "bad.csv:5: column 'deadline': value 'yesterday'" \
    "bad.csv:6: column 'id': value '1' is a duplicate id 1 (first on line 2)"
  run sim simulate --trace "$WORK/bad.csv" --cluster "$SOURCE/examples/clusters/small-lab.yaml"
  expect_error sim
  expect_in "$WORK/sim.err" "5 errors in"
  pass
}

# Wrong input: not a job-profile table, a missing file, both sources or none, an unwritable
# output.
case_bad_usage() {
  need_files "$PHILLY_TRACE"
  run philly profile check "$PHILLY_TRACE"
  expect_error philly
  expect_in "$WORK/philly.err" "is a philly-oct-nov trace, not a job-profile CSV"
  run missing profile check "$WORK/none.csv"
  expect_error missing
  expect_in "$WORK/missing.err" "none.csv"
  run both profile export --trace "$PROFILE_EXAMPLE" --store "$WORK"
  expect_error both
  expect_in "$WORK/both.err" "give one source: --store PATH"
  run none profile export
  expect_error none
  run unwritable profile export --trace "$PROFILE_EXAMPLE" --out "$WORK/no/such/dir/x.csv"
  expect_error unwritable
  expect_in "$WORK/unwritable.err" "--out $WORK/no/such/dir/x.csv: cannot be written"
  pass
}

run_case
