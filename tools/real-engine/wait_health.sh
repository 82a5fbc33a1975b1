#!/bin/bash
# usage: tools/real-engine/wait_health.sh PID PORT LOG [TIMEOUT_S=240]
# Waits until http://127.0.0.1:PORT/health answers 200 while process PID lives.
# Exit 0 and "healthy after S s" on success; exit 1 if PID died first, exit 2 on timeout:
# both print the last 40 lines of LOG to stderr. It never stops the server: the caller does.
set -uo pipefail
PID=${1:?usage: wait_health.sh PID PORT LOG [TIMEOUT_S]} PORT=${2:?port} LOG=${3:?log}
TIMEOUT=${4:-240}
start_ms=$(( $(date +%s%N) / 1000000 ))
deadline=$(( $(date +%s) + TIMEOUT ))
tail_log() { echo "---- last 40 lines of $LOG ----" >&2; tail -n 40 "$LOG" >&2; echo "----" >&2; }
while :; do
  if curl -sf --max-time 2 "http://127.0.0.1:$PORT/health" >/dev/null 2>&1; then
    ms=$(( $(date +%s%N) / 1000000 - start_ms ))
    printf 'healthy after %d.%d s\n' $(( ms / 1000 )) $(( ms % 1000 / 100 ))
    exit 0
  fi
  if ! kill -0 "$PID" 2>/dev/null; then
    echo "wait_health: server pid $PID exited before /health answered (after $(( ($(date +%s%N) / 1000000 - start_ms) / 1000 )) s)" >&2
    tail_log; exit 1
  fi
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "wait_health: no /health on 127.0.0.1:$PORT within $TIMEOUT s (server pid $PID still running)" >&2
    tail_log; exit 2
  fi
  sleep 0.5
done
