#!/usr/bin/env bash
# Non-streaming completions per second from the twin (pinned to CPU 0, --speed inf, Llama-3.1-8B
# on one H100) as wrk measures them from CPU 1: 64 connections, 5 s.
set -euo pipefail
build="${1:-build}"
here="$(cd "$(dirname "$0")" && pwd)"
out="$(mktemp)"
. "$here/twin-lib.sh"
start_bench_twin "$build/servescope" "$out"
pid=$twin_pid
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; rm -f "$out"' EXIT
port="$(served_port "$out")"
taskset -c 1 wrk -t1 -c64 -d5s -s "$here/twin_completions.lua" "http://127.0.0.1:$port/v1/completions"
