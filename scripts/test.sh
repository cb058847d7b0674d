#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit and end-to-end) with CTest.
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

status=0
ctest --test-dir build --output-on-failure -j2 "$@" || status=$?

if ((status == 0)); then
  summary "PASSED"
else
  summary "FAILED (ctest exit $status)" \
    "the failed tests are listed above; full log: build/Testing/Temporary/LastTest.log"
fi
exit "$status"
