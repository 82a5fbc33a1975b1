#!/usr/bin/env bash
# Runs every benchmark on one core and prints the figures docs/performance.md quotes.
set -euo pipefail
build="${1:-build}"
echo "== plan (Google Benchmark, pinned to CPU 0)"
taskset -c 0 "$build/servescope_bench" --benchmark_filter='Plan' --benchmark_min_time=0.5
echo "== diff and why (Google Benchmark, pinned to CPU 0)"
taskset -c 0 "$build/servescope_bench" --benchmark_filter='Diff|Why' --benchmark_min_time=0.5
echo "== fit: the pruned search vs the naive loop of full plans (Google Benchmark, pinned to CPU 0)"
taskset -c 0 "$build/servescope_bench" --benchmark_filter='Fit'
echo "== simulate: 100,000 requests (Google Benchmark, pinned to CPU 0)"
taskset -c 0 "$build/servescope_bench" --benchmark_filter='Simulate'
echo "== twin: SSE events/s and 5,000 concurrent streams (twin on CPU 0, Asio load client on CPU 1)"
"$build/servescope_bench" --benchmark_filter='TwinSse'
echo "== twin: non-streaming completions/s (twin on CPU 0, wrk on CPU 1)"
"$(dirname "$0")/twin-wrk.sh" "$build"
echo "== logs: servescope logs vs grep -c on a 768 MiB SGLang log (CPU 0)"
"$(dirname "$0")/logs_bench.sh" "$build"
echo "== bench as a client: vs wrk (non-streaming) and a Python asyncio+aiohttp SSE client (twin on CPU 0, clients on CPU 1)"
"$(dirname "$0")/bench-client.sh" "$build"
echo "== reports: HTML report load in headless Chromium, a 1,000-point sweep and a 1 GB log's timeline beside an empty page"
"$(dirname "$0")/report_load.sh" "$build"
echo "== soak: bench --duration 10m --rate 200 against the twin, client memory and CPU per request over the run"
"$(dirname "$0")/soak.sh" "$build"
