# Sourced by the benchmark scripts: the twin they load (Llama-3.1-8B on one H100, --speed inf,
# pinned to CPU 0) and how to find its port.

# start_bench_twin BIN OUT: starts the twin with its stdout in OUT; sets twin_pid.
start_bench_twin() {
  taskset -c 0 "$1" twin --gpu h100-sxm --speed inf --no-access-log -- \
    python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct \
    --max-running-requests 5000 --host 127.0.0.1 --port 0 >"$2" 2>/dev/null &
  twin_pid=$!
}

# served_port OUT: prints the port once the twin's first line names it (fails after 10 s).
served_port() {
  local port=""
  for _ in $(seq 1 200); do
    port="$(grep -o 'served at http://127.0.0.1:[0-9]*' "$1" | sed 's/.*://' || true)"
    if [ -n "$port" ]; then
      echo "$port"
      return 0
    fi
    sleep 0.05
  done
  echo "the twin did not start" >&2
  return 1
}
