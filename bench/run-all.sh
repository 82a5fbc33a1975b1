#!/usr/bin/env bash
# Runs every benchmark on one core and prints the figures the README quotes.
set -euo pipefail
build="${1:-build}"
echo "== plan (Google Benchmark, pinned to CPU 0)"
taskset -c 0 "$build/servescope_bench" --benchmark_filter='Plan' --benchmark_min_time=0.5
echo "== diff and why (Google Benchmark, pinned to CPU 0)"
taskset -c 0 "$build/servescope_bench" --benchmark_filter='Diff|Why' --benchmark_min_time=0.5
