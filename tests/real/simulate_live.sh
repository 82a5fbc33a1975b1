#!/bin/bash
# usage: tests/real/simulate_live.sh SERVESCOPE
# Issue 36 on a real engine: `simulate` calibrated from one measured load of vLLM on the CPU
# (tools/real-engine, llama-f32-hd32, --max-num-seqs 8) predicts the loads it never saw. After a
# warm-up over every batch size: concurrency 4 measured three times calibrates (each figure the
# median of its runs, so one stalled run on two shared cores cannot pull the fit); then the rest
# of a 5-point concurrency sweep — 2, 8, 12 and 16 (past the engine's 8, requests queue) — and a
# Poisson rate sweep 10, 20, 30 req/s are measured three times each (medians again), 96 requests
# of 128 → 64 tokens, and predicted by `simulate --calibration`. Fails when the median error on
# TPOT or on throughput over the concurrency sweep passes BOUND_PCT (15%, issue 36's floor).
# The rate sweep and TTFT are reported, not bounded: simulate draws its own Poisson arrivals
# (±10% in throughput from the draw alone at 96 requests), and the cost model has no term for
# what the CPU engine's API server adds to a first token. Known miss, printed per load: at
# concurrency 8 (the engine's own limit) its throughput is about half of 16's at the same TPOT
# p50 (pauses the p50 hides), which the model does not reproduce (+36% to +93%). Not calibrated
# at concurrency 1: there the engine is idle between requests, and whole runs show a TTFT p50 of
# 100–120 ms instead of 7 ms (seen in 4 of ~10 sweeps here).
set -uo pipefail
SS=${1:?usage: simulate_live.sh SERVESCOPE}
BOUND_PCT=${BOUND_PCT:-15}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RE=$ROOT/tools/real-engine
MODEL=$RE/.models/llama-f32-hd32
OUT=$(mktemp -d /tmp/servescope-real-simulate.XXXXXX)
source "$(dirname "$0")/live_engine.sh"
trap 'stop_engine; rm -rf "$OUT"' EXIT
cp "$SS" "$OUT/servescope" && SS=$OUT/servescope
SERVE=(--max-model-len 2048 --max-num-seqs 8)
start_engine "$OUT" "$MODEL" --dtype float32 --kv 1 -- "${SERVE[@]}" \
  || { echo "simulate_live: the engine did not start"; exit 1; }
LENS=(--input-len 128 --output-len 64)
bench() {  # bench NAME LOAD-OPTIONS...
  local name=$1; shift
  timeout 300 "$SS" bench --url "$url" --model tiny "$@" "${LENS[@]}" --warmup 8 --quiet \
    --json "$OUT/$name.json" > /dev/null || { echo "simulate_live: bench $name failed"; exit 1; }
}
# Every batch size and prompt shape once before anything is measured: the CPU engine's first
# step of a new shape can take 100+ ms (seen as whole runs with a TTFT p50 of 120 ms).
bench warmup --concurrency 1,2,4,8 --requests 32
bench calibrate --concurrency 4,4,4 --requests 96
bench concurrency --concurrency 2,2,2,8,8,8,12,12,12,16,16,16 --requests 96
bench rate --rate 10,10,10,20,20,20,30,30,30 --requests 96
stop_engine

# The same scenario the engine ran: its command, the model, the CPU "GPU" and its KV space.
SIM=(--gpu cpu --model "$MODEL" --env VLLM_CPU_KVCACHE_SPACE=1)
CMD=(-- vllm serve "$MODEL" --dtype float32 "${SERVE[@]}")
"$SS" simulate "${SIM[@]}" --calibrate-from "$OUT/calibrate.json" \
  --save-calibration "$OUT/fit.json" "${CMD[@]}" || { echo "simulate_live: calibration failed"; exit 1; }
"$SS" simulate "${SIM[@]}" --calibration "$OUT/fit.json" --concurrency 2,8,12,16 --requests 96 \
  "${LENS[@]}" --json "${CMD[@]}" > "$OUT/concurrency.sim.json" || exit 1
"$SS" simulate "${SIM[@]}" --calibration "$OUT/fit.json" --rate 10,20,30 --requests 96 \
  "${LENS[@]}" --json "${CMD[@]}" > "$OUT/rate.sim.json" || exit 1
python3 - "$OUT" "$BOUND_PCT" <<'PY'
import json, statistics, sys
out, bound = sys.argv[1], float(sys.argv[2])
failed = []
for sweep, key in (("concurrency", "concurrency"), ("rate", "rate")):
    # Each load was measured three times: its figures are the runs' medians (a run in which the
    # two shared cores stalled the engine is one of three, not the figure).
    runs = {}
    for p in json.load(open(f"{out}/{sweep}.json"))["points"]:
        runs.setdefault(p[key], []).append(p)
    simulated = {p[key]: p for p in json.load(open(f"{out}/{sweep}.sim.json"))["points"]}
    errors = {"TPOT p50": [], "output tok/s": [], "TTFT p50": []}
    for load, points in runs.items():
        m = {"tpot": statistics.median(p["tpot_ms"]["p50"] for p in points),
             "tps": statistics.median(p["output_tokens_per_s"] for p in points),
             "ttft": statistics.median(p["ttft_ms"]["p50"] for p in points)}
        s = simulated[load]
        row = []
        for metric, mv, sv in (("TPOT p50", m["tpot"], s["tpot_ms"]["p50"]),
                               ("output tok/s", m["tps"], s["output_tokens_per_s"]),
                               ("TTFT p50", m["ttft"], s["ttft_ms"]["p50"])):
            errors[metric].append(abs(sv / mv - 1) * 100)
            row.append(f"{metric} {mv:.3g} measured, {sv:.3g} predicted ({(sv / mv - 1) * 100:+.1f}%)")
        print(f"simulate_live: {sweep} {load:g} (median of {len(points)} runs): " + "; ".join(row))
    for metric, e in errors.items():
        median = statistics.median(e)
        # The rate sweep is reported, not bounded: simulate draws its own Poisson arrivals, and
        # 96 of them alone move a point's throughput by ±10% from bench's draw.
        bounded = metric != "TTFT p50" and sweep == "concurrency"
        verdict = ("within" if median <= bound else "ABOVE") + f" the {bound:g}% bound" if bounded else "reported"
        print(f"simulate_live: {sweep} sweep: median error {metric} {median:.1f}% ({verdict})")
        if bounded and median > bound:
            failed.append(f"{sweep} {metric}")
sys.exit(f"simulate_live: above the bound: {', '.join(failed)}" if failed else 0)
PY
