# What the demo scripts (run-example.sh, run-simulation.sh) share; sourced by them.
#   demo_args NAME SCRIPT ARGS...  reads --skip-setup (or SQUEEZE_DEMO_SKIP_SETUP=1) and --help
#                                  (SCRIPT's header comment); anything else exits 2
#   demo_setup NAME                from the repository root: setup and build unless skipped, then
#                                  SQ = the squeeze binary (SQUEEZE_BIN, default build/squeeze)
demo_args() {
  local name=$1 script=$2 arg
  shift 2
  DEMO_SKIP_SETUP=${SQUEEZE_DEMO_SKIP_SETUP:-0}
  for arg in "$@"; do
    case "$arg" in
      --skip-setup) DEMO_SKIP_SETUP=1 ;;
      -h | --help) sed -n '2,/^set -euo/{/^#/p}' "$script" | sed 's/^# \{0,1\}//'; exit 0 ;;
      *) echo "$name: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
    esac
  done
}

demo_setup() {
  if [[ "$DEMO_SKIP_SETUP" != 1 ]]; then
    bash scripts/setup.sh
    bash scripts/build.sh
  fi
  SQ=${SQUEEZE_BIN:-$PWD/build/squeeze}
  if [[ ! -x "$SQ" ]]; then
    echo "$1: no squeeze binary at $SQ (build it with scripts/build.sh, or set SQUEEZE_BIN)" >&2
    exit 1
  fi
}
