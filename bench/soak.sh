#!/usr/bin/env bash
# usage: bench/soak.sh [BUILD] [DURATION] [RATE]      (defaults: build 10m 200)
# The soak (issue 35 item 6): `servescope bench --duration DURATION --rate RATE` (constant
# arrivals, 64 → 16 tokens, streamed) against the twin on CPU 0, the client on CPU 1. Every
# SAMPLE_S seconds (default 10) it reads the client's resident memory and CPU time from /proc and
# the requests the twin has finished from its /metrics, and prints one row per sample: elapsed,
# requests, RSS, CPU per request over the interval. Then the slopes over the run's second half —
# RSS in KiB per 1,000 requests and CPU per request in µs per 1,000 requests — by least squares:
# flat means a long run costs no more per request than a short one. Loopback only; the twin and
# the client are stopped on exit.
set -euo pipefail
build="${1:-build}"
duration="${2:-10m}"
rate="${3:-200}"
sample_s="${SAMPLE_S:-10}"
bin="$build/servescope"
[ -x "$bin" ] || { echo "soak: $bin not built" >&2; exit 2; }
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/twin-lib.sh"
work="$(mktemp -d "${TMPDIR:-/tmp}/servescope-soak.XXXXXX")"
client_pid=""
cleanup() {
  [ -n "$client_pid" ] && kill "$client_pid" 2>/dev/null || true
  [ -n "${twin_pid:-}" ] && kill "$twin_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

start_bench_twin "$bin" "$work/twin.out"
port="$(served_port "$work/twin.out")"
finished() {  # requests the twin has finished (its num_requests_total counter)
  curl -s "http://127.0.0.1:$port/metrics" |
    awk '/^sglang:num_requests_total/ { n += $NF } END { printf "%d", n }'
}
clock_ticks="$(getconf CLK_TCK)"
cpu_s() { awk -v t="$clock_ticks" '{ printf "%.3f", ($14 + $15) / t }' "/proc/$1/stat"; }
rss_kib() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }

taskset -c 1 "$bin" bench --url "http://127.0.0.1:$port" --rate "$rate" --arrival constant \
  --duration "$duration" --input-len 64 --output-len 16 --quiet --json "$work/run.json" \
  >"$work/run.out" 2>"$work/run.err" &
client_pid=$!
echo "soak: bench --rate $rate --duration $duration against the twin on 127.0.0.1:$port"
printf '%8s %10s %10s %14s\n' "elapsed" "requests" "RSS KiB" "CPU µs/req"
start=$(date +%s)
base_req="$(finished)"
last_req=$base_req last_cpu=0
: >"$work/samples"
while kill -0 "$client_pid" 2>/dev/null; do
  sleep "$sample_s"
  kill -0 "$client_pid" 2>/dev/null || break
  req=$(( $(finished) - base_req ))
  cpu="$(cpu_s "$client_pid")" rss="$(rss_kib "$client_pid")"
  per_req=$(awk -v c="$cpu" -v lc="$last_cpu" -v r="$req" -v lr="$last_req" \
    'BEGIN { d = r - lr; printf "%.1f", (d > 0 ? (c - lc) * 1e6 / d : 0) }')
  printf '%7ds %10d %10d %14s\n' "$(( $(date +%s) - start ))" "$req" "$rss" "$per_req"
  echo "$req $rss $per_req" >>"$work/samples"
  last_req=$req last_cpu=$cpu
done
status=0
wait "$client_pid" || status=$?
client_pid=""
[ "$status" -eq 0 ] || { echo "soak: bench exited $status: $(tail -1 "$work/run.err")"; exit 1; }
# Least-squares slopes over the second half of the samples (the first half warms up).
awk '{ r[NR] = $1; m[NR] = $2; c[NR] = $3 } END {
  from = int(NR / 2) + 1; n = NR - from + 1
  if (n < 3) { print "soak: too few samples for a slope"; exit 1 }
  for (i = from; i <= NR; i++) { sx += r[i]; sm += m[i]; sc += c[i] }
  mx = sx / n; mm = sm / n; mc = sc / n
  for (i = from; i <= NR; i++) { dx = r[i] - mx; vx += dx * dx; km += dx * (m[i] - mm); kc += dx * (c[i] - mc) }
  printf "second half (%d samples, %d → %d requests): RSS %+.1f KiB per 1,000 requests (mean %.0f KiB); CPU per request %+.3f µs per 1,000 requests (mean %.1f µs)\n",
    n, r[from], r[NR], 1000 * km / vx, mm, 1000 * kc / vx, mc
}' "$work/samples"
