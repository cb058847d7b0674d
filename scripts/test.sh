#!/usr/bin/env bash
# Installs what is missing, builds, runs every test (unit and end-to-end) with CTest, then the
# fuzz targets for a bounded time each (scripts/fuzz.sh; SQUEEZE_FUZZ_SECONDS, default 20).
# Extra arguments go to ctest, e.g. `scripts/test.sh -L e2e`. Exits non-zero if any step fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

start=$SECONDS
# How busy the machine was while the tests ran (timing-sensitive tests fail first on a starved
# machine): the CPU's time split from /proc/stat, and the load average sampled every 10 s.
cpu_times() { awk '/^cpu /{print $2 + $3, $4, $5, $6, $9}' /proc/stat; }
cpu_before=$(cpu_times)
loads=$(mktemp)
(while sleep 10; do cut -d' ' -f1 /proc/loadavg; done >"$loads") &
load_sampler=$!
machine_load() {
  kill "$load_sampler" 2>/dev/null
  read -r u0 s0 i0 w0 st0 <<<"$cpu_before"
  read -r u1 s1 i1 w1 st1 <<<"$(cpu_times)"
  awk -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v i=$((i1 - i0)) -v w=$((w1 - w0)) \
    -v st=$((st1 - st0)) -v cores="$(nproc)" \
    -v autogroup="$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo '?')" '
    { n++; sum += $1; if ($1 > max) max = $1 }
    END { t = u + s + i + w + st; if (t == 0) t = 1
          printf "machine: %d cores; CPU %.0f%% user, %.0f%% system, %.0f%% idle, %.0f%% iowait, " \
                 "%.0f%% steal; load average %.1f mean, %.1f max; sched_autogroup %s\n",
                 cores, 100 * u / t, 100 * s / t, 100 * i / t, 100 * w / t, 100 * st / t,
                 n ? sum / n : 0, max, autogroup }' "$loads"
  rm -f "$loads"
}
summary() {
  echo
  echo "=================================================================="
  echo "squeeze tests: $1 ($((SECONDS - start)) s in all)"
  [[ $# -gt 1 ]] && echo "$2"
  machine_load
  echo "=================================================================="
}

# The build's packages first; then the build runs while the rest installs (apt and dpkg leave
# a core idle), its output shown once it is done.
if ! bash scripts/setup.sh --build-first; then
  summary "FAILED in setup (scripts/setup.sh --build-first)" "see the apt output above"
  exit 1
fi
build_log=$(mktemp)
bash scripts/build.sh >"$build_log" 2>&1 &
build=$!
setup_status=0
bash scripts/setup.sh || setup_status=$?
build_status=0
wait "$build" || build_status=$?
echo "scripts/build.sh (beside the rest of the setup):"
cat "$build_log"
rm -f "$build_log"
if ((setup_status != 0)); then
  summary "FAILED in setup (scripts/setup.sh)" "see the apt output above"
  exit 1
fi
if ((build_status != 0)); then
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
