#!/bin/bash
# usage: tools/real-engine/capture_log.sh [--expect-fail] OUT_DIR NAME MODEL_DIR [serve.sh options] [-- VLLM_ARGS...]
# One real startup log: starts serve.sh (its own process group, on a free port unless --port is
# given), waits for /health (wait_health.sh, 240 s), sends one bounded streaming completion
# (curl --max-time 60, 16 tokens, ignore_eos; all 16 must come back), then stops the whole process group (SIGTERM, then
# SIGKILL after 30 s). Writes OUT_DIR/NAME.log (stdout+stderr of vllm serve) and OUT_DIR/NAME.cmd
# (environment and exact command line). --expect-fail: the server must exit before /health.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
EXPECT_FAIL=0
[ "${1:-}" != --expect-fail ] || { EXPECT_FAIL=1; shift; }
OUT=${1:?usage: capture_log.sh [--expect-fail] OUT_DIR NAME MODEL_DIR [serve.sh options] [-- VLLM_ARGS...]}
NAME=${2:?name} MODEL=${3:?model dir}
shift 3
ARGS=("$@")
PORT=
for ((i = 0; i < ${#ARGS[@]}; i++)); do [ "${ARGS[i]}" != --port ] || PORT=${ARGS[i+1]}; done
if [ -z "$PORT" ]; then
  PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  ARGS=(--port "$PORT" "${ARGS[@]}")
fi
mkdir -p "$OUT"
LOG=$OUT/$NAME.log
setsid "$HERE/serve.sh" "$MODEL" --cmd-file "$OUT/$NAME.cmd" "${ARGS[@]}" > "$LOG" 2>&1 < /dev/null &
SP=$!
stop() {
  kill -0 "$SP" 2>/dev/null || return 0
  kill -TERM -- "-$SP" 2>/dev/null
  for _ in $(seq 1 60); do kill -0 "$SP" 2>/dev/null || break; sleep 0.5; done
  if kill -0 "$SP" 2>/dev/null; then echo "capture_log: SIGKILL to group $SP" >&2; kill -KILL -- "-$SP" 2>/dev/null; fi
  wait "$SP" 2>/dev/null
  # The engine-core child shares the group; make sure none of it outlived the server.
  pkill -KILL -g "$SP" 2>/dev/null || true
}
trap stop EXIT
echo "$NAME: server pid $SP on 127.0.0.1:$PORT, log $LOG"
if "$HERE/wait_health.sh" "$SP" "$PORT" "$LOG" 240; then
  if [ "$EXPECT_FAIL" = 1 ]; then echo "$NAME: FAIL (expected a startup failure, got /health)"; exit 1; fi
else
  rc=$?
  if [ "$EXPECT_FAIL" = 1 ] && [ $rc = 1 ]; then echo "$NAME: failed at startup, as expected"; exit 0; fi
  echo "$NAME: FAIL (no /health)"; exit 1
fi
t0=$(date +%s%N)
RESP=$(curl -sS -N --max-time 60 "http://127.0.0.1:$PORT/v1/completions" -H 'content-type: application/json' \
  -d '{"model":"tiny","prompt":"the quick brown fox","max_tokens":16,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}')
crc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
chunks=$(printf '%s\n' "$RESP" | grep -c '^data: {')
usage=$(printf '%s\n' "$RESP" | grep -o '"usage":{[^}]*}' | tail -1)
echo "$NAME: request curl rc $crc in $ms ms, $chunks data chunks, $usage"
if [ $crc != 0 ] || ! printf '%s\n' "$RESP" | grep -q '^data: \[DONE\]' || [[ $usage != *'"completion_tokens":16'* ]]; then
  echo "$NAME: FAIL (streaming request)"; printf '%s\n' "$RESP" | tail -c 600; exit 1
fi
stop
trap - EXIT
echo "$NAME: stopped"
