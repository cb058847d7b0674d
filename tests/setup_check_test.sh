#!/usr/bin/env bash
# scripts/setup.sh's version checks (label setup): a too-old tool first on PATH stops setup at
# once, before apt and before the build, with the tool, the version found and the version needed.
#
#   bash tests/setup_check_test.sh CASE SQUEEZE SOURCE_DIR SHARED_DIR WORK_DIR
#
# Cases: current (this machine's tools pass --check), old_node (a real Node 16 from the npm
# registry), old_cmake (a stand-in cmake: no older CMake can be had from the registries here),
# missing (a tool not installed).
source "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"
e2e_args "$@"
SETUP=$SOURCE/scripts/setup.sh

# setup_with PATH_FIRST ARGS...: runs setup.sh with PATH_FIRST before PATH; output in
# $WORK/setup.{out,err}, the exit status in $RC and the seconds it took in $TOOK.
setup_with() {
  local first=$1 began=$SECONDS
  shift
  PATH="$first:$PATH" bash "$SETUP" "$@" >"$WORK/setup.out" 2>"$WORK/setup.err"
  RC=$? TOOK=$((SECONDS - began))
  echo "setup.sh $* (PATH starting $first): exit $RC after $TOOK s"
  cat "$WORK/setup.out" "$WORK/setup.err"
}

expect_stopped() {  # expect_stopped MESSAGE: setup failed at once with MESSAGE, touching no apt
  ((RC == 1)) || fail "setup should exit 1, got $RC"
  grep -qF -- "$1" "$WORK/setup.err" || fail "setup's error should say: $1"
  grep -qF "stopped before the build" "$WORK/setup.err" || fail "setup should say it stopped"
  ! grep -q "installing\|already installed" "$WORK/setup.out" ||
    fail "setup went on to the packages after a too-old tool"
  ((TOOK < 30)) || fail "setup took $TOOK s to find a too-old tool"
}

case_current() {
  setup_with /nonexistent --check
  ((RC == 0)) || fail "this machine's tools (after scripts/setup.sh) should pass --check"
  grep -q "every tool's version is new enough" "$WORK/setup.out" || fail "no verdict printed"
  pass
}

case_old_node() {
  local arch
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64) arch=arm64 ;;
    *) echo "SKIP [$CASE]: no node-linux package for $(uname -m)"; exit 77 ;;
  esac
  # A real Node 16 from the npm registry, kept beside the test's work folder between runs.
  local cache=$WORK/../node16 tarball
  mkdir -p "$cache"
  tarball=$(ls "$cache"/node-linux-$arch-16.20.2.tgz 2>/dev/null)
  if [[ -z "$tarball" ]]; then
    (cd "$cache" && npm pack --silent "node-linux-$arch@16.20.2" >/dev/null) ||
      fail "npm pack node-linux-$arch@16.20.2 failed (the npm registry is needed)"
    tarball=$cache/node-linux-$arch-16.20.2.tgz
  fi
  tar -xzf "$tarball" -C "$WORK" || fail "cannot unpack $tarball"
  [[ "$("$WORK/package/bin/node" --version)" == v16.20.2 ]] || fail "the Node 16 does not run"
  setup_with "$WORK/package/bin"
  expect_stopped "setup: node 16.20.2 ($WORK/package/bin/node) is too old: squeeze needs node 18 or newer"
  pass
}

case_old_cmake() {
  mkdir -p "$WORK/bin"
  printf '#!/bin/sh\necho "cmake version 3.16.3"\n' >"$WORK/bin/cmake"
  chmod +x "$WORK/bin/cmake"
  setup_with "$WORK/bin"
  expect_stopped "setup: cmake 3.16.3 ($WORK/bin/cmake) is too old: squeeze needs cmake 3.19 or newer, because CMakeLists.txt"
  pass
}

case_missing() {
  CHROMIUM=$WORK/no-chromium setup_with /nonexistent --check
  ((RC == 1)) || fail "--check should fail when chromium is missing, got $RC"
  grep -qF "setup: chromium not found (needed: 150 or newer" "$WORK/setup.err" ||
    fail "the error should name chromium and the version needed"
  pass
}

"case_$CASE"
