#!/usr/bin/env bash
# Non-streaming completions per second from the twin (pinned to CPU 0, --speed inf, Llama-3.1-8B
# on one H100) as wrk measures them from CPU 1: 64 connections, 5 s.
set -euo pipefail
build="${1:-build}"
here="$(cd "$(dirname "$0")" && pwd)"
out="$(mktemp)"
taskset -c 0 "$build/servescope" twin --gpu h100-sxm --speed inf --no-access-log -- \
  python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct \
  --max-running-requests 5000 --host 127.0.0.1 --port 0 >"$out" 2>/dev/null &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -f "$out"' EXIT
port=""
for _ in $(seq 1 200); do
  port="$(grep -o 'served at http://127.0.0.1:[0-9]*' "$out" | sed 's/.*://' || true)"
  [ -n "$port" ] && break
  sleep 0.05
done
[ -n "$port" ] || { echo "the twin did not start" >&2; exit 1; }
taskset -c 1 wrk -t1 -c64 -d5s -s "$here/twin_completions.lua" "http://127.0.0.1:$port/v1/completions"
