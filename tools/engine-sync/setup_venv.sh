#!/bin/bash
# usage: tools/engine-sync/setup_venv.sh sglang|vllm
# Creates the project-local venv tools/engine-sync/.venv-ENGINE (git-ignored) that the flag
# readers import an engine release in. The engine itself is never installed: flags.py unpacks
# each release's wheel into a temporary directory put first on sys.path.
# torch is pinned to the CPU build on disk (torch==2.13.0) and passed as a constraint, so pip
# can never resolve another torch; packages whose dependencies would pull triton or a CUDA
# torch are installed with --no-deps. If requirements-ENGINE.lock exists, it is installed
# exactly (--no-deps); otherwise requirements-ENGINE.txt is resolved and the lock written.
# overlays-ENGINE.txt: alternative versions of a few packages, each in its own --target folder.
set -euo pipefail
ENGINE=${1:?usage: setup_venv.sh sglang|vllm}
HERE=$(cd "$(dirname "$0")" && pwd)
V="$HERE/.venv-$ENGINE"
PY=${PYTHON:-python3}
CON="$V/constraints.txt"
PIP=("$V/bin/pip" install -q --disable-pip-version-check -c "$CON")
if ! { [ -x "$V/bin/python" ] && [ -f "$V/.complete" ]; }; then
  rm -rf "$V"
  "$PY" -m venv "$V"
  echo "torch==2.13.0" > "$CON"
  "${PIP[@]}" torch==2.13.0
  if [ -f "$HERE/requirements-$ENGINE.lock" ]; then
    "${PIP[@]}" --no-deps -r "$HERE/requirements-$ENGINE.lock"
  else
    "${PIP[@]}" -r "$HERE/requirements-$ENGINE.txt"
    [ ! -f "$HERE/requirements-$ENGINE-nodeps.txt" ] || "${PIP[@]}" --no-deps -r "$HERE/requirements-$ENGINE-nodeps.txt"
    { echo "# pip freeze of .venv-$ENGINE made by tools/engine-sync/setup_venv.sh $ENGINE from requirements-$ENGINE*.txt";
      "$V/bin/pip" freeze --exclude-editable | grep -v '^torch=='; } > "$HERE/requirements-$ENGINE.lock"
  fi
  "$V/bin/python" -c "import torch; assert torch.__version__.startswith('2.13.0'), torch.__version__"
  touch "$V/.complete"
fi
# Each overlay once (a set added to overlays-ENGINE.txt later is installed on the next run).
if [ -f "$HERE/overlays-$ENGINE.txt" ]; then
  grep -v '^#' "$HERE/overlays-$ENGINE.txt" | while read -r NAME PKGS; do
    [ -n "$NAME" ] && [ ! -f "$V/overlays/$NAME/.complete" ] || continue
    rm -rf "$V/overlays/$NAME"
    # shellcheck disable=SC2086
    "${PIP[@]}" --no-deps --target "$V/overlays/$NAME" $PKGS
    touch "$V/overlays/$NAME/.complete"
  done
fi
echo "$V: ready"
