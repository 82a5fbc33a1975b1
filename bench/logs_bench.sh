#!/usr/bin/env bash
# `servescope logs` throughput against `grep -c` on the same file, same run, one core.
#
# Builds a realistic SGLang log of about SIZE_MB (default 768): the startup lines of a real
# corpus log (../shared/corpus/raw), then periodic Decode/Prefill batch lines in the 2026 form
# (decode lines dominate, as in a serving log) with HTTP access lines mixed in. Then times, on
# CPU 0, the best of RUNS (default 3) of:
#   servescope logs --json FILE >/dev/null                (every fact serialised)
#   servescope logs --json --summary-only FILE >/dev/null (parse, timeline, summary)
#   grep -c 'Decode batch' FILE
# and prints wall and CPU (user + sys) seconds and MB/s of each, and the ratio to grep. On a
# shared machine the CPU figure is the steadier one. The issue's target: logs ≥ 200 MB/s.
set -euo pipefail
build="${1:-build}"
size_mb="${SIZE_MB:-768}"
runs="${RUNS:-3}"
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$build/servescope"
[ -x "$bin" ] || { echo "logs_bench: $bin not built" >&2; exit 2; }
corpus="$root/../shared/corpus/raw/sglang-didier-durand_llms-in-clouds-docs_sglang.log"
work="$(mktemp -d "${TMPDIR:-/tmp}/servescope-logs-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
log="$work/sglang.log"

# A 16 MB block of periodic lines; the file is the corpus startup plus copies of the block.
awk -v target=$((16 * 1024 * 1024)) 'BEGIN {
  srand(42); bytes = 0; i = 0
  while (bytes < target) {
    t = sprintf("2026-07-20 %02d:%02d:%02d", int(i / 3600) % 24, int(i / 60) % 60, i % 60)
    tp = i % 4
    r = int(rand() * 256); q = int(rand() * 40); u = rand()
    if (i % 12 == 11) {
      line = sprintf("[%s TP%d] Prefill batch, #new-seq: %d, #new-token: %d, #cached-token: %d, " \
                     "token usage: %.2f, #running-req: %d, #queue-req: %d, #pending-token: 0, " \
                     "cuda graph: False, input throughput (token/s): %.2f",
                     t, tp, 1 + int(rand() * 8), int(rand() * 8192), int(rand() * 4096), u, r, q,
                     rand() * 40000)
    } else if (i % 50 == 49) {
      line = sprintf("[%s] INFO:     10.0.0.%d:%d - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
                     t, int(rand() * 255), 30000 + int(rand() * 30000))
    } else {
      line = sprintf("[%s TP%d] Decode batch, #running-req: %d, #token: %d, token usage: %.2f, " \
                     "cuda graph: True, gen throughput (token/s): %.2f, #queue-req: %d",
                     t, tp, r, int(u * 900000), u, rand() * 6000, q)
    }
    print line
    bytes += length(line) + 1
    i++
  }
}' > "$work/block.log"
grep -v '^#' "$corpus" | head -n 74 > "$log"
block_mb=$(( $(stat -c %s "$work/block.log") / 1048576 ))
for _ in $(seq 1 $(( size_mb / block_mb ))); do cat "$work/block.log"; done >> "$log"
bytes=$(stat -c %s "$log")
mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
echo "log: $mb MiB, $(wc -l < "$log") lines ($(grep -c 'Decode batch' "$log") decode)"

# Best of $runs runs of "$@" on CPU 0, output to OUT: "wall_s cpu_s" (cpu = user + sys).
# grep's output goes to a file: GNU grep stops at the first match when writing to /dev/null.
best() {
  local out="$1"
  shift
  local best_wall="" best_cpu=""
  for _ in $(seq 1 "$runs"); do
    local t
    t=$( { TIMEFORMAT='%R %U %S'; time taskset -c 0 "$@" > "$out"; } 2>&1 )
    best_wall=$(awk -v t="$t" -v b="$best_wall" 'BEGIN { split(t, a, " ");
      if (b == "" || a[1] < b) print a[1]; else print b }')
    best_cpu=$(awk -v t="$t" -v b="$best_cpu" 'BEGIN { split(t, a, " "); c = a[2] + a[3];
      if (b == "" || c < b) print c; else print b }')
  done
  echo "$best_wall $best_cpu"
}

cat "$log" > /dev/null  # page cache
read -r w_json c_json <<< "$(best /dev/null "$bin" logs --json "$log")"
read -r w_summary c_summary <<< "$(best /dev/null "$bin" logs --json --summary-only "$log")"
read -r w_grep c_grep <<< "$(best "$work/out" grep -c 'Decode batch' "$log")"
[ "$(cat "$work/out")" -gt 0 ] || { echo "logs_bench: grep found no decode line" >&2; exit 1; }
awk -v mb="$mb" -v wj="$w_json" -v cj="$c_json" -v ws="$w_summary" -v cs="$c_summary" \
    -v wg="$w_grep" -v cg="$c_grep" 'BEGIN {
  printf "%-40s %9s %10s %9s %10s\n", "(best of runs, CPU 0)", "wall s", "wall MB/s", "cpu s", "cpu MB/s"
  row("servescope logs --json", wj, cj)
  row("servescope logs --json --summary-only", ws, cs)
  row("grep -c \"Decode batch\"", wg, cg)
  printf "logs --json takes %.1fx the time of grep -c (summary-only %.1fx); wall clock\n", wj / wg, ws / wg
}
function row(name, w, c) {
  printf "%-40s %9.2f %10.1f %9.2f %10.1f\n", name, w, mb / w, c, (c > 0 ? mb / c : 0)
}'
