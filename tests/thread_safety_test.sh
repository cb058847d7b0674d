#!/usr/bin/env bash
# The lock rules written as Clang thread-safety annotations (src/core/thread_annotations.h) are
# checked: every source file that includes it, or a header of src/ that does (at any depth), is
# compiled with clang++ -Wthread-safety as errors (syntax only: no code is made). A file that
# breaks the rules on purpose (tests/thread_safety/violation.cc) must be refused, so a check
# that stopped looking fails too.
# Usage: thread_safety_test.sh SOURCE_DIR
set -uo pipefail
src=$1
command -v clang++ >/dev/null || { echo "SKIP: no clang++ (scripts/setup.sh installs it)"; exit 77; }
flags=(-std=c++20 -fsyntax-only -Wthread-safety -Werror=thread-safety -I "$src/src" -DBOOST_ALL_NO_LIB)
cd "$src" || exit 1
# The headers that include it, and those that include one of them, to the end of the chain (a
# class under the rules is checked in every file that uses it: live_queue_*.cc through
# serve/live_queue.h).
headers="core/thread_annotations.h" seen=""
while [[ -n $headers ]]; do
  seen+=" $headers"
  next=""
  for h in $headers; do
    for g in $(grep -rl --include='*.h' "#include \"$h\"" src | sed 's|^src/||'); do
      [[ " $seen $next " == *" $g "* ]] || next+=" $g"
    done
  done
  headers=$next
done
files=""
for h in $seen; do
  files+=$'\n'$(grep -rl --include='*.cc' "#include \"$h\"" src)
done
files=$(echo "$files" | grep -v '_test\.cc$' | grep . | sort -u)
[[ -n $files ]] || { echo "FAIL: no file uses core/thread_annotations.h"; exit 1; }
failed=0 count=$(wc -l <<<"$files")
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# The files are checked eight at a time, each batch one translation unit that includes them
# (as a unity build does: the headers are parsed once per batch, not once per file); a batch
# that fails is checked again file by file, so that a failure names its file (and a clash of
# two files' helpers in one batch is not taken for one). The batches run as many at once as
# there are cores.
export logs src
check_batch() {
  local unit=$logs/batch_$1.cc
  shift
  for f in "$@"; do echo "#include \"$src/$f\""; done >"$unit"
  clang++ "${flags[@]}" "$unit" >"$unit.log" 2>&1 && return 0
  local failed_before
  failed_before=$(cat "$logs/failed" 2>/dev/null | wc -l)
  for f in "$@"; do
    clang++ "${flags[@]}" "$f" >"$logs/$(tr / _ <<<"$f").log" 2>&1 || echo "$f" >>"$logs/failed"
  done
  if (($(cat "$logs/failed" 2>/dev/null | wc -l) == failed_before)); then
    echo "note: $* did not compile as one unit, each alone did (a clash of their helpers):"
    grep -m3 error "$unit.log"
  fi
}
export -f check_batch
export flags_text="${flags[*]}"
printf '%s\n' $files | xargs -n 8 | nl -w1 -s' ' | xargs -P "$(nproc)" -L 1 bash -c \
  'flags=($flags_text); check_batch "$@"' _
if [[ -s $logs/failed ]]; then
  while read -r f; do
    echo "FAIL: $f breaks its lock rules (or does not compile with clang):"
    head -30 "$logs/$(tr / _ <<<"$f").log"
  done <"$logs/failed"
  failed=1
fi
if out=$(clang++ "${flags[@]}" tests/thread_safety/violation.cc 2>&1); then
  echo "FAIL: tests/thread_safety/violation.cc compiled: the check does not catch a broken rule"
  failed=1
elif ! grep -q "requires holding mutex" <<<"$out" || ! grep -q "calling function 'Bump'" <<<"$out"; then
  echo "FAIL: violation.cc was refused, but not for its broken lock rules:"
  echo "$out" | head -20
  failed=1
fi
((failed)) && exit 1
echo "PASS: $count files keep their lock rules; the broken one is refused"
