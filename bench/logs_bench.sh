#!/usr/bin/env bash
# `servescope logs` throughput against `grep -c` on the same file, same run, one core.
#
# Builds a realistic SGLang log of about SIZE_MB (default 768): the startup lines of a real
# corpus log ($SERVESCOPE_CORPUS/raw), then periodic Decode/Prefill batch lines in the 2026 form
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
[ -n "${SERVESCOPE_CORPUS:-}" ] || { echo "logs_bench: set SERVESCOPE_CORPUS=DIR (the published corpus)" >&2; exit 2; }
corpus="$SERVESCOPE_CORPUS/raw/sglang-didier-durand_llms-in-clouds-docs_sglang.log"
work="$(mktemp -d "${TMPDIR:-/tmp}/servescope-logs-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
log="$work/sglang.log"

"$root/bench/make_sglang_log.sh" "$size_mb" "$corpus" "$log"
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
