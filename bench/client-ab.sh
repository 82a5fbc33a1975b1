#!/usr/bin/env bash
# usage: bench/client-ab.sh BASELINE_BIN CANDIDATE_BIN [ROUNDS]  (default 5 rounds; REQUESTS=4000)
# Client CPU of two servescope binaries in the same run: the twin on CPU 0 at --speed inf (tokens
# cost it nothing but writing them), each client on CPU 1, the two binaries alternating ROUNDS
# times. (1) Per streamed token: REQUESTS requests of 256 tokens at 32 in flight. (2) Per request
# at the soak's load (bench/soak.sh): 200 requests/s for 20 s, 64 → 16 tokens, the server's view
# scraped. Prints every run, each binary's best, and candidate / baseline (issue 35 holds the
# per-token figure within 1.10: a change to the client must not make streaming dearer). The twin
# is the candidate's.
set -euo pipefail
base="${1:?usage: bench/client-ab.sh BASELINE_BIN CANDIDATE_BIN [ROUNDS]}"
cand="${2:?usage: bench/client-ab.sh BASELINE_BIN CANDIDATE_BIN [ROUNDS]}"
rounds="${3:-5}"
requests="${REQUESTS:-4000}"
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/twin-lib.sh"
work="$(mktemp -d "${TMPDIR:-/tmp}/servescope-client-ab.XXXXXX")"
trap 'kill "${twin_pid:-}" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"' EXIT
start_bench_twin "$cand" "$work/twin.out"
url="http://127.0.0.1:$(served_port "$work/twin.out")"
sleep 1
cpu_of() {  # CPU seconds (user + system) of one command
  local TIMEFORMAT='%U %S'
  { time "$@" >/dev/null 2>&1; } 2>&1 | awk '{print $1 + $2}'
}
tokens_of() { python3 -c "import json; p=json.load(open('$1'))['points'][0]; print(round(p['output_tokens_per_s'] * p['duration_s']))"; }
echo "client CPU per streamed token · twin --speed inf on CPU 0 · client on CPU 1 · $requests × 256 tokens at 32 in flight"
for round in $(seq 1 "$rounds"); do
  for which in baseline candidate; do
    bin=$base
    [ "$which" = candidate ] && bin=$cand
    cpu="$(cpu_of taskset -c 1 "$bin" bench --url "$url" --concurrency 32 --requests "$requests" \
      --input-len 64 --output-len 256 --no-server-view --quiet --json "$work/$which.json")"
    tokens="$(tokens_of "$work/$which.json")"
    ns=$(awk -v c="$cpu" -v t="$tokens" 'BEGIN { printf "%.0f", c * 1e9 / t }')
    echo "$ns" >>"$work/$which.ns"
    printf '  round %d  %-9s  %6.3f s CPU  %8d tokens  %5d ns a token\n' "$round" "$which" "$cpu" "$tokens" "$ns"
  done
done
best_base=$(sort -n "$work/baseline.ns" | head -1)
best_cand=$(sort -n "$work/candidate.ns" | head -1)
awk -v b="$best_base" -v c="$best_cand" 'BEGIN {
  printf "best: baseline %d ns, candidate %d ns a token · candidate / baseline %.3f\n", b, c, c / b }'
echo "client CPU per request · 200 requests/s for 20 s · 64 → 16 tokens · server view on"
for round in $(seq 1 "$rounds"); do
  for which in baseline candidate; do
    bin=$base
    [ "$which" = candidate ] && bin=$cand
    cpu="$(cpu_of taskset -c 1 "$bin" bench --url "$url" --rate 200 --arrival constant \
      --duration 20s --input-len 64 --output-len 16 --quiet --json "$work/$which-rate.json")"
    n="$(python3 -c "import json; print(json.load(open('$work/$which-rate.json'))['points'][0]['requests_completed'])")"
    us=$(awk -v c="$cpu" -v n="$n" 'BEGIN { printf "%.1f", c * 1e6 / n }')
    echo "$us" >>"$work/$which.us"
    printf '  round %d  %-9s  %6.3f s CPU  %6d requests  %6.1f µs a request\n' "$round" "$which" "$cpu" "$n" "$us"
  done
done
awk -v b="$(sort -n "$work/baseline.us" | head -1)" -v c="$(sort -n "$work/candidate.us" | head -1)" \
  'BEGIN { printf "best: baseline %.1f µs, candidate %.1f µs a request · candidate / baseline %.3f\n", b, c, c / b }'
