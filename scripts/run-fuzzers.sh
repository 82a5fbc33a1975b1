#!/usr/bin/env bash
# Runs every libFuzzer target in BUILD_DIR for SECONDS each, seeded from the repository's own
# inputs (model configs, launch commands, real logs, HTTP responses). A crash leaves its input
# in build-fuzz/.
set -euo pipefail
build="${1:-build-fuzz}"
seconds="${2:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$build/fuzz-work"
mkdir -p "$work/model_config" "$work/command_line" "$work/vllm_command_line" "$work/log_parser" \
  "$work/http_stream" "$work/launch_input" "$work/gpu_evidence" "$work/cluster_state"
cp "$root"/data/models/*.json "$work/model_config/"
# bench results (for --compare and --calibrate-from) and a fit result, as the commands write them.
mkdir -p "$work/bench_results"
cp "$root"/tests/report/bench.json "$root"/tests/report/fit.json "$work/bench_results/"
printf 'ttft:500ms,tpot:50ms,e2e:30s,ttft_p99:500ms' >"$work/bench_results/slo"
# Real logs: the repository's own (a real CPU vLLM, published DGX Spark excerpts) and, with
# SERVESCOPE_CORPUS, the published corpus.
cp "$root"/tests/real/logs/*.log "$root"/tests/gb10/logs/*.log "$work/log_parser/"
cp "${SERVESCOPE_CORPUS:-/nonexistent}"/raw/*.log "$work/log_parser/" 2>/dev/null || true
# One log as people quote it (a Markdown blockquote and a table), for unquote_log_line.
f="$root/tests/gb10/logs/sglang-1.log"
sed 's/^/> /' "$f" >"$work/log_parser/quoted-blockquote"
sed 's/^/| /; s/$/ |/' "$f" >"$work/log_parser/quoted-table"
# vLLM 0.34's extensible KV cache lines (src/diagnose/check_extensible_kv_test.cc has the source
# lines): 'Memory after warmup', 'Extended KV cache to', the fallback and the 0.34 summary.
cat >"$work/log_parser/vllm-0.34-extensible" <<'LOG'
(EngineCore pid=2) INFO 11-20 10:00:52 [gpu_worker.py:796] Available KV cache memory: 62.06 GiB
(EngineCore pid=2) WARNING 11-20 10:00:30 [abstract.py:170] Disabling the extensible KV cache: CUDA virtual memory management is unavailable (WSL2). The KV cache will be sized from profiling estimates instead of measured memory.
(EngineCore pid=2) INFO 11-20 10:01:30 [gpu_worker.py:1175] Free memory on device (78.68/79.19 GiB) on startup. Desired GPU memory utilization is (1.0, 79.19 GiB). Actual usage is 15.24 GiB for consumed memory (weights + non-torch), 1.89 GiB for peak activation, and 0.71 GiB for CUDAGraph memory. Current kv cache memory in use is 62.06 GiB.
(EngineCore pid=2) INFO 11-20 10:01:31 [extensible_kv_cache.py:693] Memory after warmup: 62.6 GiB free, 0.08 GiB committed to the KV cache, 1.89 GiB kept for transient activations (1.89 GiB allocated at peak, 1.6 GiB of torch reservation growth); 7592 KV cache blocks (59.31 GiB) fit within the requested 79.19 GiB. Torch may reserve up to 20.0 GiB.
(EngineCore pid=2) INFO 11-20 10:01:31 [extensible_kv_cache.py:525] Remapping the KV cache from 7600 to 7592 blocks to fit the measured budget.
(EngineCore pid=2) INFO 11-20 10:01:31 [extensible_kv_cache.py:536] Extended KV cache to 7592 blocks (59.31 GiB).
LOG
# HTTP seeds: byte 0 picks the API and streaming (bit 2), byte 1 the chunk size.
printf '\x04\x07HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n2a\r\ndata: {"choices":[{"text":"a","index":0}]}\n\n\r\n0\r\n\r\n' \
  >"$work/http_stream/sse"
printf '\x00\x10HTTP/1.1 200 OK\r\nContent-Length: 62\r\n\r\n{"choices":[{"text":"hi"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}' \
  >"$work/http_stream/json"
printf '\x00\x05# TYPE sglang:num_running_reqs gauge\nsglang:num_running_reqs{model="m"} 26\n' \
  >"$work/http_stream/metrics"
i=0
while IFS= read -r line; do
  printf '%s' "$line" >"$work/command_line/seed$i"
  printf '%s' "$line" >"$work/vllm_command_line/seed$i"
  i=$((i + 1))
done <<'SEEDS'
--model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4 --speculative-algorithm NEXTN
--model=M --tp-size=2 --disable-radix-cache --cuda-graph-bs 1 2 4 --mem-fraction-static 0.8
--pp 2 --max-running-request 256 --chunked-prefill-size -1 'quoted value' --unknown "x y"
--tensor-parallel-size 4 --gpu-memory-utilization 0.9 --max-model-len 32768 -O2
--compilation-config '{"cudagraph_mode": "FULL_AND_PIECEWISE"}' --speculative-config.method=mtp
SEEDS
# Launch-input seeds: byte 0 picks the reader (0: any file kind, 1: one command's words).
printf '\x00CUDA_VISIBLE_DEVICES=0,1 nohup python3 -m sglang.launch_server \\\n  --model-path m --tp 2 2>&1 | tee x.log &\n' >"$work/launch_input/shell"
printf '\x00[Service]\nEnvironment="A=1" B=2\nExecStart=/v/bin/python -m sglang.launch_server \\\n --tp 4\n' >"$work/launch_input/unit"
printf '\x00services:\n  s:\n    image: vllm/vllm-openai:v0.10.1.1\n    command: [--model, m]\n' >"$work/launch_input/compose"
printf '\x00apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: c\n    command: [vllm, serve, m]\n    resources: {limits: {nvidia.com/gpu: 2}}\n' >"$work/launch_input/pod"
printf '\x01docker run --gpus "device=0,1" -e A=1 lmsysorg/sglang:v0.5.4 python3 -m sglang.launch_server --tp 2' >"$work/launch_input/docker"
# GPU evidence seeds: the three nvidia-smi forms read_gpu_evidence takes.
printf 'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)\nGPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-2)\n' \
  >"$work/gpu_evidence/list"
printf 'name, memory.total [MiB]\nNVIDIA RTX PRO 6000 Blackwell Workstation Edition, 97887 MiB\n' \
  >"$work/gpu_evidence/csv"
printf '|   0  NVIDIA H200                    On  |   00000000:19:00.0 Off |                    0 |\n| N/A   30C    P0   76W /  700W |       0MiB / 143771MiB |      0%%      Default |\n' \
  >"$work/gpu_evidence/table"
# Cluster seeds: a scontrol record, sbatch's reply, a kubectl pod list.
printf 'JobId=42 JobName=x JobState=RUNNING Reason=None NodeList=node[1-2] ExitCode=0:0\n' \
  >"$work/cluster_state/scontrol"
printf 'Submitted batch job 42\n' >"$work/cluster_state/sbatch"
printf '{"items":[{"metadata":{"name":"p"},"status":{"phase":"Pending","podIP":"10.0.0.1"}}]}' \
  >"$work/cluster_state/pods"
# Command-beside-a-log seeds: byte 0 bit 0 picks the fuzzed side (0: the command), bit 1 the
# engine (vLLM when set).
mkdir -p "$work/log_command"
printf '\x00python -m sglang.launch_server --model-path m --tp 2 --mem-fraction-static 0.8\n' >"$work/log_command/cmd"
printf '\x00--tp 2 --enable-torch-compile\n--max-running-requests 8\n' >"$work/log_command/flags"
printf '\x00# env\nexport SGLANG_X=1\nB="x y"\n' >"$work/log_command/env"
printf '\x02vllm serve m -tp 2 --max-model-len 8192\n' >"$work/log_command/vllm"
printf '\x01[2025-01-23 19:34:55] server_args=ServerArgs(model_path=%s, tp_size=4, mem_fraction_static=0.9)\n' "'m'" >"$work/log_command/log"
# Twin request seeds: byte 0 picks the API (even: completions, odd: chat).
mkdir -p "$work/twin_request"
printf '\x00{"model": "m", "prompt": [101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117], "max_tokens": 4, "stream": true}' >"$work/twin_request/ids"
printf '\x00{"prompt": "the and for you are not was can all has one but her his any new out day", "max_tokens": 2}' >"$work/twin_request/text"
printf '\x01{"messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": [{"type": "text", "text": "hi"}]}], "max_completion_tokens": 8}' >"$work/twin_request/chat"
# Trace seeds: Mooncake JSONL and Azure CSV rows.
mkdir -p "$work/bench_trace"
printf '{"timestamp": 0, "input_length": 700, "output_length": 4, "hash_ids": [1, 2]}\n{"timestamp": 27, "input_length": 5, "output_length": 2}\n' >"$work/bench_trace/mooncake"
printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50.99,396,109\n' >"$work/bench_trace/azure"
# Every target the build made (fuzz/*_fuzz.cc), each from its seed folder (empty if it has none).
status=0
for binary in "$build"/*_fuzz; do
  target=$(basename "$binary" _fuzz)
  mkdir -p "$work/$target"
  echo "== fuzzing $target for ${seconds}s"
  (cd "$build" && "./${target}_fuzz" -max_total_time="$seconds" -max_len=65536 "fuzz-work/$target") || status=1
done
exit $status
