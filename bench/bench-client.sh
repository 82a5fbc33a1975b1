#!/usr/bin/env bash
# servescope bench as a client, against peers measured in the same run on this machine: the
# twin on CPU 0 (--speed inf: tokens as fast as it can send them), each client on CPU 1.
#   1. non-streaming completions per second at 64 connections for 5 s: wrk vs servescope bench
#      (target: bench ≥ 0.8× wrk);
#   2. streaming events per second at concurrency 1,000 (1,000 streams of 1,000 tokens, usage in
#      every event): a minimal Python asyncio+aiohttp client (bench/aiohttp_sse_client.py, the
#      Python tools' hot loop) vs servescope bench (target: ≥ 10×);
#   3. the client's CPU time per request and per event.
set -euo pipefail
build="${1:-build}"
here="$(cd "$(dirname "$0")" && pwd)"
bin="$build/servescope"
out="$(mktemp)"
json="$(mktemp)"
. "$here/twin-lib.sh"
start_bench_twin "$bin" "$out"
pid=$twin_pid
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; rm -f "$out" "$json"' EXIT
port="$(served_port "$out")"
url="http://127.0.0.1:$port"
sleep 1

# CPU seconds (user + system) of one command, from bash's time.
cpu_of() {
  local TIMEFORMAT='%U %S'
  { time "$@" >/dev/null 2>&1; } 2>&1 | awk '{print $1 + $2}'
}
field() { /usr/bin/python3 -c "import json,sys; p=json.load(open('$json'))['points'][0]; print($1)"; }

echo "== non-streaming completions/s: wrk vs servescope bench (64 connections, 5 s, twin CPU 0, client CPU 1)"
wrk_out="$(taskset -c 1 wrk -t1 -c64 -d5s -s "$here/twin_completions.lua" "$url/v1/completions")"
wrk_rps="$(echo "$wrk_out" | awk '/Requests\/sec/ {print $2}')"
bench_cpu="$(cpu_of taskset -c 1 "$bin" bench --url "$url" --no-stream --concurrency 64 --duration 5s \
  --input-len 6 --output-len 16 --no-server-view --quiet --json "$json")"
bench_rps="$(field "p['requests_per_s']")"
bench_n="$(field "p['requests_completed']")"
echo "wrk                 ${wrk_rps} requests/s"
echo "servescope bench    ${bench_rps} requests/s (${bench_n} requests, client CPU ${bench_cpu} s)"
/usr/bin/python3 -c "print(f'ratio bench/wrk      {$bench_rps/$wrk_rps:.2f}x  (target >= 0.8x)'); print(f'client CPU/request   {$bench_cpu/$bench_n*1e6:.1f} us')"

echo "== streaming events/s at concurrency 1,000: Python asyncio+aiohttp vs servescope bench (1,000 tokens per stream)"
py_json="$(taskset -c 1 /usr/bin/python3 "$here/aiohttp_sse_client.py" "$url/v1/completions" 1000 1000)"
py_eps="$(echo "$py_json" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["events_per_s"])')"
py_done="$(echo "$py_json" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["completed"])')"
py_cpu="$(echo "$py_json" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["client_cpu_s"])')"
py_events="$(echo "$py_json" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')"
bench_cpu="$(cpu_of taskset -c 1 "$bin" bench --url "$url" --concurrency 1000 --requests 1000 \
  --input-len 64 --output-len 1000 --no-server-view --quiet --timeout 600s --json "$json")"
bench_eps="$(field "p['sse_events_per_s']")"
bench_done="$(field "p['requests_completed']")"
bench_events="$(field "p['sse_events_per_s'] * p['duration_s']")"
echo "aiohttp client      ${py_eps} events/s (${py_done} streams completed, client CPU ${py_cpu} s)"
echo "servescope bench    ${bench_eps} events/s (${bench_done} streams completed, client CPU ${bench_cpu} s)"
/usr/bin/python3 -c "print(f'ratio bench/aiohttp  {$bench_eps/$py_eps:.1f}x  (target >= 10x)'); print(f'client CPU/event     bench {$bench_cpu/$bench_events*1e6:.2f} us, aiohttp {$py_cpu/$py_events*1e6:.2f} us')"
echo "(both clients read the same twin; at --speed inf it runs the decode steps that are due back"
echo " to back and sends each connection's new events in one write, so on one core it outruns"
echo " either client: the ratio is the clients'; CPU per event is each client's own cost)"

echo "== client ceiling: streaming events/s at concurrency 1,000 from a server that outruns both clients"
echo "   (bench/sse_firehose.cc on CPU 0 sends each whole stream at once; each client on CPU 1)"
fh_out="$(mktemp)"
taskset -c 0 "$build/servescope_sse_firehose" >"$fh_out" &
fh_pid=$!
trap 'kill "$pid" "$fh_pid" 2>/dev/null; wait "$pid" "$fh_pid" 2>/dev/null || true; rm -f "$out" "$json" "$fh_out"' EXIT
fh_port=""
for _ in $(seq 1 100); do
  fh_port="$(awk '/listening on/ {print $3}' "$fh_out")"
  [ -n "$fh_port" ] && break
  sleep 0.05
done
fh_url="http://127.0.0.1:$fh_port"
py_json="$(taskset -c 1 /usr/bin/python3 "$here/aiohttp_sse_client.py" "$fh_url/v1/completions" 1000 400)"
py_eps="$(echo "$py_json" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["events_per_s"])')"
py_cpu="$(echo "$py_json" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["client_cpu_s"])')"
py_events="$(echo "$py_json" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')"
bench_cpu="$(cpu_of taskset -c 1 "$bin" bench --url "$fh_url" --model m --concurrency 1000 --requests 1000 \
  --input-len 64 --output-len 400 --no-server-view --quiet --timeout 600s --json "$json")"
bench_eps="$(field "p['sse_events_per_s']")"
bench_events="$(field "p['sse_events_per_s'] * p['duration_s']")"
echo "aiohttp client      ${py_eps} events/s (client CPU ${py_cpu} s)"
echo "servescope bench    ${bench_eps} events/s (client CPU ${bench_cpu} s, process total)"
/usr/bin/python3 -c "print(f'ratio bench/aiohttp  {$bench_eps/$py_eps:.1f}x  (target >= 10x)'); print(f'client CPU/event     bench {$bench_cpu/$bench_events*1e6:.2f} us, aiohttp {$py_cpu/$py_events*1e6:.2f} us')"
