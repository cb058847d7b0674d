# Helpers of the end-to-end test scripts in this folder (cli_simulate_test.sh, cli_fill_test.sh),
# sourced by them with the script's arguments: CASE SQUEEZE SOURCE_DIR SHARED_DIR WORK_DIR
# [PYTHON]. Sourcing sets those variables (and set -uo pipefail) and empties WORK_DIR; the script
# then defines case_NAME functions and ends with run_case. A helper that fails the test exits.
set -uo pipefail

# e2e_args ARGS...: sets the variables; prints the calling script's header comment and exits 2
# when arguments are missing.
e2e_args() {
  if (($# < 5)); then
    sed -n '2,/^[^#]/{/^#/p}' "$0" >&2
    exit 2
  fi
  CASE=$1 SQUEEZE=$2 SOURCE=$3 SHARED=$4 WORK=$5 PYTHON=${6:-python3}
  rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
}

fail() {
  echo "FAIL [$CASE]: $*" >&2
  exit 1
}

pass() {
  echo "PASS [$CASE]"
  exit 0
}

# need_files FILE...: skips the case (exit 77) unless every FILE is readable.
need_files() {
  local f
  for f in "$@"; do
    if [[ ! -r "$f" ]]; then
      echo "SKIP [$CASE]: $f is not readable (shared traces missing?)"
      exit 77
    fi
  done
}

# run NAME ARGS...: runs squeeze with ARGS; stdout and stderr go to $WORK/NAME.{out,err}, the
# exit status to $RC. A crash (signal) fails the test whatever the case expects.
run() {
  local name=$1
  shift
  echo "+ squeeze $*"
  "$SQUEEZE" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null
  RC=$?
  if ((RC >= 124)); then
    cat "$WORK/$name.err" >&2
    fail "squeeze $* died with status $RC"
  fi
}

# expect_ok NAME: the last run succeeded.
expect_ok() {
  if ((RC != 0)); then
    cat "$WORK/$1.err" >&2
    fail "squeeze exited $RC, expected 0"
  fi
}

# expect_error NAME: the last run failed with a message.
expect_error() {
  if ((RC == 0)); then
    fail "squeeze exited 0, expected an error"
  fi
  if [[ ! -s "$WORK/$1.err" ]]; then
    fail "squeeze exited $RC with nothing on stderr"
  fi
  echo "  exit $RC; stderr: $(head -c 600 "$WORK/$1.err")"
}

# expect_in FILE TEXT...: each TEXT occurs literally in FILE.
expect_in() {
  local file=$1 text
  shift
  for text in "$@"; do
    if ! grep -qF -- "$text" "$file"; then
      echo "--- $file:" >&2
      head -c 2000 "$file" >&2
      fail "'$text' not found in $(basename "$file")"
    fi
  done
}

# check_with SCRIPT ARGS...: runs a python check script of this folder; fails the test if it fails.
check_with() {
  local script=$1
  shift
  "$PYTHON" "$SOURCE/tests/$script" "$@" || fail "check $script '$*' failed"
}

# run_case: runs case_$CASE, or says which cases there are.
run_case() {
  if ! declare -F "case_$CASE" >/dev/null; then
    echo "unknown case '$CASE'; known: $(declare -F | sed -n 's/^declare -f case_//p' | tr '\n' ' ')" >&2
    exit 2
  fi
  "case_$CASE"
}

e2e_args "$@"
