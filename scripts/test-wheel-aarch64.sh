#!/usr/bin/env bash
# make test-wheel-aarch64: the aarch64 wheel's binary under qemu-user (Debian's
# qemu-user-static): it is a 64-bit ARM executable needing only glibc and libgcc_s,
# `servescope --version` runs, and plan and explain of the founding case print exactly what the
# host build prints (REFERENCE: build/servescope).
#   scripts/test-wheel-aarch64.sh REFERENCE
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
reference=${1:?usage: test-wheel-aarch64.sh REFERENCE-BINARY}
wheel=$(ls "$ROOT"/dist/servescope-*aarch64.whl 2>/dev/null | head -1)
[ -n "$wheel" ] || { echo "test-wheel-aarch64: no aarch64 wheel in dist/; run make wheel-aarch64"; exit 1; }
TMP=$(mktemp -d /tmp/servescope-test-wheel-arm.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "test-wheel-aarch64: FAIL: $*"; exit 1; }
echo "== test-wheel-aarch64: $(basename "$wheel") ($(du -h "$wheel" | cut -f1))"
python3 -m zipfile -e "$wheel" "$TMP/wheel"
bin=$(ls "$TMP"/wheel/servescope-*.data/scripts/servescope)
chmod +x "$bin"
machine=$(readelf -h "$bin" | sed -n 's/ *Machine: *//p')
[ "$machine" = "AArch64" ] || fail "not an AArch64 executable: $machine"
needed=$(readelf -d "$bin" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
[ "$needed" = "ld-linux-aarch64.so.1 libc.so.6 libgcc_s.so.1 libm.so.6 " ] \
  || fail "the binary needs more than glibc and libgcc_s: $needed"
run() { qemu-aarch64-static -L /usr/aarch64-linux-gnu "$bin" "$@"; }
run --version
scenario=(--gpu rtx-pro-6000 --gpus 4 --free-before-load 94.6 --free-after-load 64.6)
mtp=(python -m sglang.launch_server --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4 --speculative-algorithm NEXTN)
export HF_HUB_OFFLINE=1
for argv in "plan --json" "explain max_running_requests --depth 2 --json"; do
  # shellcheck disable=SC2086
  run $argv "${scenario[@]}" -- "${mtp[@]}" >"$TMP/arm.json" || fail "$argv under qemu"
  # shellcheck disable=SC2086
  "$reference" $argv "${scenario[@]}" -- "${mtp[@]}" >"$TMP/host.json"
  cmp -s "$TMP/arm.json" "$TMP/host.json" || fail "$argv differs from the host build's"
done
grep -q '"max_running_requests": 48' <(run plan --json "${scenario[@]}" -- "${mtp[@]}") \
  || fail "the founding case's max_running_requests is not 48"
run plan --gpu h999 -- "${mtp[@]}" 2>/dev/null && fail "bad input exited 0"
echo "test-wheel-aarch64: passed"
