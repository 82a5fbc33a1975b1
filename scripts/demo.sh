#!/usr/bin/env bash
# The embedded demo: the case servescope was born from. Qwen3.5-122B-A10B-FP8 on 4× RTX PRO
# 6000 Blackwell (SM120) with MTP speculative decoding: why max_running_requests is 48, what it
# is without speculative decoding, and the derivation of the number.
set -euo pipefail
bin="${1:-build/servescope}"
model=Qwen/Qwen3.5-122B-A10B-FP8
# Free memory before/after the weight load as sglang-capacity.md §12.4 assumes them; with a
# real log, pass its "Load weight begin/end" figures instead.
scenario=(--gpu rtx-pro-6000 --gpus 4 --free-before-load 94.6 --free-after-load 64.6)
mtp=(python -m sglang.launch_server --model-path "$model" --tp 4 --speculative-algorithm NEXTN)
plain=(python -m sglang.launch_server --model-path "$model" --tp 4)

# Steps 1, 5 and 8 also write their reports (HTML for a browser, Markdown for a PR) here.
reports="$(dirname "$bin")/demo-reports"
mkdir -p "$reports"

section() { printf '\n\033[1m== %s\033[0m\n\n' "$*"; }
[ -t 1 ] || section() { printf '\n== %s\n\n' "$*"; }

section "1. With MTP speculative decoding: servescope plan -- ${mtp[*]}"
"$bin" plan "${scenario[@]}" --html "$reports/plan.html" --markdown "$reports/plan.md" -- "${mtp[@]}"

section "2. The same without speculative decoding"
"$bin" plan "${scenario[@]}" -- "${plain[@]}"

section "3. Why 48? servescope explain max_running_requests --depth 2 (MTP)"
"$bin" explain max_running_requests --depth 2 "${scenario[@]}" -- "${mtp[@]}"

both=("${mtp[@]}" --enable-fused-moe-sum-all-reduce --enable-flashinfer-allreduce-fusion)

section "4. The two flags the engineer enabled: servescope lint"
"$bin" lint "${scenario[@]}" -- "${both[@]}" || true  # exit 1: an error-level finding (by design)

section "5. Did either flag move capacity? servescope diff (baseline MTP vs both flags)"
"$bin" diff "${scenario[@]}" --a "${mtp[*]}" --b "${both[*]}" --html "$reports/diff.html" \
  --markdown "$reports/diff.md"

section "6. The same diff on a May 2026 build (there the fusion only warns)"
"$bin" diff "${scenario[@]}" --engine sglang@2026-05-01 --a "${mtp[*]}" --b "${both[*]}"

section "7. What could make 48 read 26? servescope why max_running_requests=26 --expected 48"
"$bin" why max_running_requests=26 --expected 48 --limit 6 "${scenario[@]}" -- "${mtp[@]}"

section "8. The same server as a twin (no GPU), loaded at concurrency 64: servescope twin + bench"
twin_out="$(mktemp)"
twin_err="$(mktemp)"
logs_out="$(mktemp)"
"$bin" twin "${scenario[@]}" --speed 2 --no-access-log -- "${mtp[@]}" --host 127.0.0.1 --port 0 \
  >"$twin_out" 2>"$twin_err" &
twin_pid=$!
trap 'kill "$twin_pid" 2>/dev/null; wait "$twin_pid" 2>/dev/null; rm -f "$twin_out" "$twin_err" "$logs_out"' EXIT
. "$(dirname "$0")/../bench/twin-lib.sh"  # served_port
port="$(served_port "$twin_out")" || { cat "$twin_err" >&2; exit 1; }
"$bin" bench --url "http://127.0.0.1:$port" --concurrency 64 --requests 192 --input-len 256 \
  --output-len 64 --scrape-interval 50ms --quiet --expect-from "$twin_err" \
  --html "$reports/bench.html" --markdown "$reports/bench.md"

section "9. The twin's log, read back: servescope logs"
# (whole output to a file first: with pipefail, head closing the pipe early must not fail the demo)
"$bin" logs "$twin_err" >"$logs_out"
head -25 "$logs_out"

section "10. Two engines, one model (vLLM issue 21348): servescope diff --a SGLANG --b VLLM"
"$bin" diff --gpu h100-sxm \
  --a 'python3 -m sglang.launch_server --model Qwen/Qwen3-235B-A22B-FP8 --tp 4 --mem-fraction-static 0.93' \
  --b 'vllm serve Qwen/Qwen3-235B-A22B-FP8 --tensor-parallel-size 4' --b-engine vllm@0.10.1.1

section "Reports of steps 1, 5 and 8 (self-contained HTML, open offline; Markdown for a PR)"
for r in plan diff bench; do
  printf '  %s\n' "$reports/$r.html" "$reports/$r.md"
done
