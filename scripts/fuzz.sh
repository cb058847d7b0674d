#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang, ASan and UBSan (in build-fuzz/) and runs them
# side by side, each for a bounded time on its seed corpus (fuzz/corpus/TARGET). New inputs go to a scratch folder,
# never into the repository; a crash, a leak, undefined behaviour or a hang (10 s on one input)
# stops the run and leaves the input in build-fuzz/findings/.
#
#   bash scripts/fuzz.sh                 every target, 20 s each
#   bash scripts/fuzz.sh --time 60 fuzz_http fuzz_job     the ones named, 60 s each
#   bash scripts/fuzz.sh --build-only    build them and stop (scripts/test.sh does this at
#                                        nice 19 while ctest runs, then runs them after)
#
# Prints each target's executions; exits 1 when one found something, 2 when it cannot build.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds=20
build_only=0
targets=()
while (($#)); do
  case "$1" in
    --time) seconds=$2; shift 2 ;;
    --build-only) build_only=1; shift ;;
    -h | --help) sed -n '2,/^set -uo/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    fuzz_*) targets+=("$1"); shift ;;
    *) echo "fuzz: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
((${#targets[@]})) || targets=(fuzz_job fuzz_sbatch fuzz_http fuzz_cluster fuzz_traces fuzz_slurm)
if ! command -v clang++ >/dev/null; then
  echo "fuzz: clang++ not found (scripts/setup.sh installs clang)" >&2
  exit 2
fi
mkdir -p build-fuzz
built=$SECONDS
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=None \
  -DSQUEEZE_FUZZ=ON -DCMAKE_UNITY_BUILD=ON -DSQUEEZE_BUILD_TESTS=OFF -DSQUEEZE_BUILD_BENCH=OFF -DSQUEEZE_BUILD_WEB=OFF \
  >build-fuzz/build.log 2>&1 || { cat build-fuzz/build.log; exit 2; }
cmake --build build-fuzz --target fuzz_all -j"$(nproc)" >>build-fuzz/build.log 2>&1 ||
  { tail -40 build-fuzz/build.log; exit 2; }
echo "fuzz: built ${#targets[@]} targets with clang, ASan and UBSan in $((SECONDS - built)) s"
((build_only)) && exit 0

status=0
findings=build-fuzz/findings
mkdir -p "$findings"
# The targets run side by side (each for $seconds of wall time), then are reported in order.
pids=()
for t in "${targets[@]}"; do
  scratch=build-fuzz/scratch/$t
  rm -rf "$scratch" && mkdir -p "$scratch"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "build-fuzz/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$findings/$t-" "$scratch" "fuzz/corpus/$t" \
    >"build-fuzz/$t.log" 2>&1 &
  pids+=($!)
done
for i in "${!targets[@]}"; do
  t=${targets[$i]}
  scratch=build-fuzz/scratch/$t
  log=build-fuzz/$t.log
  rc=0
  wait "${pids[$i]}" || rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if ((rc == 0)); then
    echo "fuzz: $t: ${runs:-?} runs in ${seconds} s, nothing found ($(ls "$scratch" | wc -l) new inputs)"
  else
    echo "fuzz: $t: FOUND something (exit $rc) after ${runs:-?} runs; input in $findings/:"
    grep -m1 -E "ERROR|runtime error|SUMMARY|timeout" "$log"
    tail -30 "$log"
    status=1
  fi
done
exit "$status"
