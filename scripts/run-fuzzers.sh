#!/usr/bin/env bash
# Runs every libFuzzer target in BUILD_DIR for SECONDS each, seeded from the repository's own
# inputs (model configs, launch commands). A crash leaves its input in build-fuzz/.
set -euo pipefail
build="${1:-build-fuzz}"
seconds="${2:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$build/fuzz-work"
mkdir -p "$work/model_config" "$work/command_line" "$work/log_parser"
cp "$root"/data/models/*.json "$work/model_config/"
cp "$root"/../shared/corpus/raw/sglang-*.log "$work/log_parser/" 2>/dev/null || true
i=0
while IFS= read -r line; do
  printf '%s' "$line" >"$work/command_line/seed$i"
  i=$((i + 1))
done <<'SEEDS'
--model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4 --speculative-algorithm NEXTN
--model=M --tp-size=2 --disable-radix-cache --cuda-graph-bs 1 2 4 --mem-fraction-static 0.8
--pp 2 --max-running-request 256 --chunked-prefill-size -1 'quoted value' --unknown "x y"
SEEDS
status=0
for target in model_config command_line log_parser; do
  echo "== fuzzing $target for ${seconds}s"
  (cd "$build" && "./${target}_fuzz" -max_total_time="$seconds" -max_len=65536 "fuzz-work/$target") || status=1
done
exit $status
