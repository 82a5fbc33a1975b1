#!/usr/bin/env bash
# Runs the golden tests (ctest label "golden") on the published real-log corpus, at
# $SERVESCOPE_CORPUS (not in the repository; .ci/run sets it for the CI machine); without it this
# fails with one line, since golden tests that found no logs would prove nothing.
set -euo pipefail
build="$1"; shift
root="$(cd "$(dirname "$0")/.." && pwd)"
corpus="${SERVESCOPE_CORPUS:-}"
if [[ ! -f "$corpus/cases.jsonl" ]]; then
  echo "test-golden: no corpus at '$corpus' (cases.jsonl missing); set SERVESCOPE_CORPUS=DIR" >&2
  exit 2
fi
export SERVESCOPE_CORPUS="$(cd "$corpus" && pwd)"
cd "$build"
exec ctest --output-on-failure -j 2 -L golden "$@"
