#!/usr/bin/env bash
# `make accuracy`: measures the agreement figures and renders them into docs/accuracy.md and
# README.md (tools/accuracy/render.py). The oracle tests and `models --coverage` always run; the
# real-log figures need the published corpus ($SERVESCOPE_CORPUS) and are left as they were
# without it, which the output says.
set -euo pipefail
build="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/$build/accuracy"
rm -rf "$out" && mkdir -p "$out"
export SERVESCOPE_ACCURACY_OUT="$out"
HF_HUB_OFFLINE=1 "$root/$build/oracle_tests" >"$out/oracle_tests.log" 2>&1 ||
  { echo "accuracy: oracle_tests failed (see $out/oracle_tests.log)" >&2; exit 1; }
HF_HUB_OFFLINE=1 "$root/$build/twin_tests" --gtest_filter='PublishedResults.*' >"$out/twin_tests.log" 2>&1 ||
  { echo "accuracy: the published-results tests failed (see $out/twin_tests.log)" >&2; exit 1; }
for engine in vllm sglang; do
  "$root/$build/servescope" models --coverage --engine "$engine" --json >"$out/coverage-$engine.json"
done
corpus="${SERVESCOPE_CORPUS:-}"
if [[ -n "$corpus" && -f "$corpus/cases.jsonl" ]]; then
  export SERVESCOPE_CORPUS="$(cd "$corpus" && pwd)"
  "$root/$build/golden_tests" --gtest_filter='VllmUncalibrated.*' >"$out/golden_tests.log" 2>&1 ||
    { echo "accuracy: golden_tests failed (see $out/golden_tests.log)" >&2; exit 1; }
  # check exits 1 when a figure mismatches: the figures are still the record.
  "$root/$build/servescope" check "$SERVESCOPE_CORPUS/raw" --json >"$out/corpus-check.json" || true
else
  echo "accuracy: no corpus (set SERVESCOPE_CORPUS=DIR): the real-log figures are left as they were" >&2
fi
commit="$(git -C "$root" rev-parse --short HEAD)"
git -C "$root" diff --quiet HEAD -- src data tests || commit="$commit with local changes"
python3 "$root/tools/accuracy/render.py" "$out" "$commit" "$(date -u +%Y-%m-%d)" \
  "$root/docs/accuracy.md" "$root/docs/architectures.md" "$root/README.md"
