#!/usr/bin/env bash
# How fast the HTML reports open (issue 17's claim: under 2 s in headless Chromium), measured in
# the same run as an empty page:
#   - the report of a 1,000-point bench sweep: `servescope bench --concurrency 1,2,...,1000`
#     against the twin (--speed inf, 127.0.0.1, a port the kernel picks), server view scraped,
#     --html;
#   - the report of a 1 GB SGLang log: `servescope logs --json --summary-only BIG.log --html`, the
#     log made here in $TMPDIR (default /tmp; the startup lines of a corpus log, then batch and
#     access lines as bench/logs_bench.sh makes them) and deleted on exit. Needs 3 GB free there,
#     else that part is skipped with a message.
# Chromium: Debian's /usr/bin/chromium (scripts/install-deps.sh), driven by playwright-core
# (tests/browser/setup.sh installs it into BUILD/browser-node). RUNS (default 5) loads per page.
# Usage: bench/report_load.sh [BUILD]
set -euo pipefail
build="$(cd "${1:-build}" && pwd)"
runs="${RUNS:-5}"
size_mb="${SIZE_MB:-1024}"
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$build/servescope"
[ -x "$bin" ] || { echo "report_load: $bin not built" >&2; exit 2; }
export SERVESCOPE_BROWSER_NODE="$build/browser-node"
"$root/tests/browser/setup.sh" "$SERVESCOPE_BROWSER_NODE"
tmp="${TMPDIR:-/tmp}"
work="$(mktemp -d "$tmp/servescope-report-load.XXXXXX")"
twin_pid=""
cleanup() {
  if [ -n "$twin_pid" ]; then
    kill "$twin_pid" 2>/dev/null || true
    wait "$twin_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
pages=()

printf '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8" /><title>empty</title></head><body></body></html>\n' \
  >"$work/empty.html"

# 1. A 1,000-point sweep against the twin.
. "$root/bench/twin-lib.sh"  # start_bench_twin, served_port (bounded: 10 s)
start_bench_twin "$bin" "$work/twin.out"
port="$(served_port "$work/twin.out")"
start=$(date +%s.%N)
timeout 600 "$bin" bench --url "http://127.0.0.1:$port" --concurrency "$(seq -s, 1 1000)" \
  --requests 4 --input-len 64 --output-len 16 --scrape-interval 20ms --quiet \
  --json "$work/sweep.json" --html "$work/sweep-1000.html" >/dev/null
kill "$twin_pid"
wait "$twin_pid" 2>/dev/null || true
twin_pid=""
points=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["points"]))' "$work/sweep.json")
echo "sweep: $points points in $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{printf "%.1f", e-s}') s;" \
  "report $(stat -c %s "$work/sweep-1000.html") bytes"
pages+=("1,000-point bench sweep=$work/sweep-1000.html")

# 2. A 1 GB log's report, when /tmp has room for the log.
free_kb=$(df -Pk "$tmp" | awk 'NR == 2 { print $4 }')
corpus="${SERVESCOPE_CORPUS:-/nonexistent}/raw/sglang-didier-durand_llms-in-clouds-docs_sglang.log"
if [ "$free_kb" -lt $((3 * 1024 * 1024)) ]; then
  echo "skipped the 1 GB log: $((free_kb / 1024)) MiB free in $tmp, 3 GiB needed"
elif [ ! -f "$corpus" ]; then
  echo "skipped the 1 GB log: no corpus log at $corpus (set SERVESCOPE_CORPUS=DIR)"
else
  log="$work/big.log"
  "$root/bench/make_sglang_log.sh" "$size_mb" "$corpus" "$log"
  start=$(date +%s.%N)
  timeout 600 "$bin" logs --json --summary-only --html "$work/log-1g.html" "$log" >"$work/log-1g.json"
  echo "log: $(stat -c %s "$log") bytes, $(wc -l <"$log") lines; logs --html took" \
    "$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{printf "%.1f", e-s}') s;" \
    "report $(stat -c %s "$work/log-1g.html") bytes, JSON $(stat -c %s "$work/log-1g.json") bytes," \
    "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(len(t.get("points",[])) for t in d["timelines"]), "timeline points in", len(d["timelines"]), "timelines")' "$work/log-1g.json")"
  rm -f "$log"
  pages+=("1 GB log timeline=$work/log-1g.html")
fi

timeout 900 node "$root/bench/report_load.js" "$runs" "$work/empty.html" "${pages[@]}"
