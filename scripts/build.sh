#!/usr/bin/env bash
# Configures and builds squeeze in build/ (Release, Ninja, tests and benchmarks on), and the web
# dashboard into build/web (the CMake target `web`: npm ci in web/, then esbuild run by the Node
# web/package.json pins).
# Extra arguments go to the configure step, e.g. scripts/build.sh -DCMAKE_BUILD_TYPE=Debug.
# A unity build (CMAKE_UNITY_BUILD: a target's sources compiled a batch at a time, a clean build
# in about half the time); `scripts/build.sh -DCMAKE_UNITY_BUILD=OFF` for file-by-file rebuilds
# while editing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

cmake -S . -B build -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DSQUEEZE_BUILD_TESTS=ON \
  -DSQUEEZE_BUILD_BENCH=ON \
  -DCMAKE_UNITY_BUILD=ON \
  "$@"
cmake --build build -j"$(nproc)"
