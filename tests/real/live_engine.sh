# Sourced by the live steps of make test-real (slo_live.sh, simulate_live.sh): one vLLM on the
# CPU (tools/real-engine) on 127.0.0.1, started in its own process group and stopped with it.
#   start_engine OUT MODEL [serve.sh options] -- [vllm options]: sets PID, PORT and url, or fails
#   stop_engine: TERM the group, KILL after 30 s (safe to call twice)
RE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../tools/real-engine" && pwd)
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1
PID=
start_engine() {
  local out=$1 model=$2
  shift 2
  PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  setsid "$RE/serve.sh" "$model" --port "$PORT" "$@" > "$out/engine.log" 2>&1 < /dev/null &
  PID=$!
  url=http://127.0.0.1:$PORT
  "$RE/wait_health.sh" "$PID" "$PORT" "$out/engine.log" 240
}
stop_engine() {
  [ -n "$PID" ] || return 0
  kill -TERM -- "-$PID" 2>/dev/null
  for _ in $(seq 1 60); do kill -0 "$PID" 2>/dev/null || break; sleep 0.5; done
  kill -0 "$PID" 2>/dev/null && kill -KILL -- "-$PID" 2>/dev/null
  wait "$PID" 2>/dev/null
  pkill -KILL -g "$PID" 2>/dev/null || true
  PID=
}
