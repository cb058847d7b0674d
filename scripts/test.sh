#!/usr/bin/env bash
# Installs what is missing, builds, runs every test (unit and end-to-end) with CTest, then the
# fuzz targets for a bounded time each (scripts/fuzz.sh; SQUEEZE_FUZZ_SECONDS, default 20).
# Extra arguments go to ctest, e.g. `scripts/test.sh -L e2e`. Exits non-zero if any step fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

start=$SECONDS
summary() {
  echo
  echo "=================================================================="
  echo "squeeze tests: $1 ($((SECONDS - start)) s in all)"
  [[ $# -gt 1 ]] && echo "$2"
  echo "=================================================================="
}

if ! bash scripts/setup.sh; then
  summary "FAILED in setup (scripts/setup.sh)" "see the apt output above"
  exit 1
fi
if ! bash scripts/build.sh; then
  summary "FAILED in the build (scripts/build.sh)" "see the compiler output above"
  exit 1
fi

# The parsers of outside input under libFuzzer, ASan and UBSan, a bounded time each (not when
# ctest was given a selection). SQUEEZE_FUZZ_SECONDS=0 leaves them out. Their build (clang, a
# few minutes) runs at nice 19 beside ctest, whose end-to-end tests leave the cores mostly idle;
# the targets run after ctest.
fuzz_seconds=${SQUEEZE_FUZZ_SECONDS:-20}
fuzz_build=""
if (($# == 0 && fuzz_seconds > 0)); then
  mkdir -p build-fuzz
  nice -n 19 bash scripts/fuzz.sh --build-only >build-fuzz/background-build.log 2>&1 &
  fuzz_build=$!
fi

# Most end-to-end tests wait on daemons and jobs more than they compute: four more at once than
# there are cores (SQUEEZE_TEST_JOBS to choose). The Slurm tests go one at a time in each of
# their three groups (their locks), started first and side by side with the rest.
jobs=${SQUEEZE_TEST_JOBS:-$(($(nproc) + 4))}
((jobs > 12)) && jobs=12
status=0
ctest --test-dir build --output-on-failure -j"$jobs" "$@" || status=$?

fuzz_status=0
if [[ -n $fuzz_build ]]; then
  if wait "$fuzz_build"; then
    cat build-fuzz/background-build.log
    bash scripts/fuzz.sh --time "$fuzz_seconds" || fuzz_status=$?
  else
    fuzz_status=$?
    cat build-fuzz/background-build.log
  fi
fi

if ((status == 0 && fuzz_status == 0)); then
  summary "PASSED"
elif ((status != 0)); then
  log=build/Testing/Temporary/LastTest.log
  [[ -f $log ]] && { echo; echo "Why each test failed (from $log):"; awk -f scripts/failed-digest.awk "$log"; }
  summary "FAILED (ctest exit $status)" \
    "the failed tests are listed above; full log: $log"
else
  summary "FAILED in the fuzz targets (scripts/fuzz.sh exit $fuzz_status)" \
    "what was found is above; the inputs are in build-fuzz/findings/"
fi
((status == 0)) && status=$fuzz_status
exit "$status"
