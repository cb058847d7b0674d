#!/bin/bash
# GET /v1/jobs latency of an idle `squeeze serve` while 8 busy loops at nice 0 (a user's job
# spinning on every core) share the machine, for each --nice given (bench/README.md).
#   bash bench/serve_busy_cores.sh [SQUEEZE] [NICE...]      e.g. build/squeeze 0 -5 0
set -euo pipefail
squeeze=${1:-build/squeeze}
shift || true
[ $# -gt 0 ] || set -- 0 -5 0
work=$(mktemp -d /tmp/serve_busy_cores.XXXXXX)
trap 'rm -rf "$work"' EXIT
for nice in "$@"; do
  rm -rf "$work/data"
  "$squeeze" serve --data "$work/data" --virtual-gpus 1 --listen 127.0.0.1:0 --nice "$nice" \
    > "$work/serve.log" 2>&1 &
  daemon=$!
  for _ in $(seq 1 100); do [ -s "$work/data/serve.url" ] && break; sleep 0.1; done
  url=$(cat "$work/data/serve.url")
  token=$(awk '{print $1; exit}' "$work/data/admin.token")
  hogs=()
  for _ in 1 2 3 4 5 6 7 8; do timeout 60 sh -c 'while :; do :; done' & hogs+=($!); done
  sleep 2
  for _ in $(seq 1 60); do
    curl -s -o /dev/null -w '%{time_total}\n' -H "Authorization: Bearer $token" "$url/v1/jobs"
    sleep 0.2
  done > "$work/times"
  kill "${hogs[@]}" 2>/dev/null || true
  kill "$daemon"; wait "$daemon" 2>/dev/null || true
  python3 - "$nice" "$(nproc)" "$work/times" <<'PY'
import sys
v = sorted(float(l) for l in open(sys.argv[3]))
print("--nice %s: GET /v1/jobs p50 %.4f / p90 %.4f / max %.4f s (%d, 8 busy loops); cores=%s"
      % (sys.argv[1], v[len(v) // 2], v[int(len(v) * .9)], v[-1], len(v), sys.argv[2]))
PY
  sleep 5
done
