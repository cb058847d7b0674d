#!/usr/bin/env bash
# Installs the Debian packages squeeze needs to build and test (Debian 12). Idempotent: when
# every package is already installed it does not touch apt. Run as root, or with sudo available.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

PACKAGES=(
  g++ cmake ninja-build pkg-config
  libyaml-cpp-dev libcli11-dev nlohmann-json3-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libsqlite3-dev libcpp-httplib-dev   # squeeze serve: the job store and the HTTP API
  zlib1g-dev   # the simulator reads gzipped traces (the inference load .tar.gz)
  libpugixml-dev   # squeeze inventory reads `nvidia-smi -q -x` XML
  prometheus   # promtool checks the /metrics text in the tests
  python3   # the end-to-end tests in tests/ are small python3 scripts (standard library only)
  curl sqlite3 python3-pip   # the documentation's examples (docs.examples): curl, a store backup, pip install ./python
  munge slurmctld slurmd slurm-client   # two real Slurm clusters for the `slurm` tests
  chromium   # the dashboard's browser test (tests/browser_dashboard_test.py, label browser)
)
# The dashboard (web/) is built with node and npm. Debian's npm conflicts with NodeSource's
# nodejs (which brings its own npm): install Debian's only where there is no node at all.
if ! command -v node >/dev/null 2>&1; then
  PACKAGES+=(nodejs npm)
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  if [[ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)" != "install ok installed" ]]; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#PACKAGES[@]} Debian packages already installed"
  exit 0
fi

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
"${SUDO[@]}" apt-get update -q
"${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "setup: done"
