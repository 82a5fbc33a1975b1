#!/usr/bin/env bash
# Installs the Debian 12 packages servescope builds, tests and benchmarks with.
# Idempotent: only missing packages are installed. Used by `make deps`.
set -euo pipefail

build_packages=(
  cmake ninja-build g++ ccache pkg-config
  libfmt-dev libcli11-dev nlohmann-json3-dev libre2-dev libboost-dev libcsv-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libyaml-cpp-dev libssl-dev
)
# Tools the tests drive as peers (curl against the twin) and the sanitizer/fuzz
# toolchain, python3 for tools/accuracy; wrk, hyperfine and python3-aiohttp are the benchmark
# peers.
test_packages=(curl openssl clang libclang-rt-14-dev clang-format nodejs python3)
bench_packages=(wrk hyperfine python3-aiohttp)
# A real single-node Slurm cluster for `make test-slurm` (tests/slurm/cluster.sh starts it).
slurm_packages=(slurm-wlm munge)
# Headless Chromium for the HTML reports' browser tests (tests/browser/, ctest label "golden":
# `make test-golden` asks for it with --browser) and bench/report_load.sh (--bench), driven by
# playwright-core from npm at /usr/bin/chromium. `make demo` and `make test` do without it.
browser_packages=(chromium)
# The aarch64 wheel (make wheel-aarch64): Debian's cross compiler, the arm64 static libraries
# the binary links, and qemu-user to run it here. Not libyaml-cpp-dev:arm64: Debian 12 cannot
# install it beside the amd64 one (it is not Multi-Arch: same; installing it removes the
# build's own), so scripts/make-wheel.sh unpacks its .deb into the build folder instead.
aarch64_packages=(g++-aarch64-linux-gnu libssl-dev:arm64 libre2-dev:arm64 libcsv-dev:arm64
  libfmt-dev:arm64 libboost-dev:arm64 qemu-user-static)

want=("${build_packages[@]}" "${test_packages[@]}")
for arg in "$@"; do
  case "$arg" in
    --bench) want+=("${bench_packages[@]}" "${browser_packages[@]}") ;;
    --browser) want+=("${browser_packages[@]}") ;;
    --slurm) want+=("${slurm_packages[@]}") ;;
    --aarch64) want+=("${aarch64_packages[@]}") ;;
    *) echo "install-deps.sh: unknown option $arg (--bench, --browser, --slurm, --aarch64)" >&2; exit 2 ;;
  esac
done

# npm: part of the NodeSource nodejs package on these machines; Debian's own nodejs needs it apart.
if ! command -v npm >/dev/null 2>&1; then want+=(npm); fi

missing=()
for p in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [[ ${#missing[@]} -eq 0 ]]; then exit 0; fi

echo "installing: ${missing[*]}"
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
if printf '%s\n' "${missing[@]}" | grep -q ':arm64$'; then
  dpkg --print-foreign-architectures | grep -qx arm64 || "${sudo_cmd[@]}" dpkg --add-architecture arm64
fi
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
