#!/usr/bin/env bash
# The command-line contract, checked on the built binary: exit statuses, one-line errors on
# stderr naming the input, and machine output that parses.
set -u
bin="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
seed=(python -m sglang.launch_server --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4)

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_usage_error NAME EXPECTED_SUBSTRING -- ARGS...: exit 2, exactly one stderr line.
expect_usage_error() {
  local name="$1" expected="$2"; shift 3
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  local status=$?
  [ "$status" -eq 2 ] || fail "$name: exit $status, expected 2"
  local lines; lines=$(wc -l <"$tmp/err")
  [ "$lines" -eq 1 ] || fail "$name: $lines stderr lines, expected 1: $(cat "$tmp/err")"
  grep -qF -- "$expected" "$tmp/err" || fail "$name: stderr lacks '$expected': $(cat "$tmp/err")"
  [ ! -s "$tmp/out" ] || fail "$name: wrote to stdout on error"
}

printf '{"model_type": "llama", "num_hidden_layers": 32, "hidd' >"$tmp/truncated.json"
printf 'not json at all' >"$tmp/malformed.json"
printf '{"model_type": "rwkv", "architectures": ["RwkvForCausalLM"]}' >"$tmp/rwkv.json"
mkdir -p "$tmp/emptydir"

expect_usage_error "unknown GPU" "closest catalog keys" -- plan --gpu h999 -- "${seed[@]}"
expect_usage_error "missing GPU" "--gpu: required" -- plan -- "${seed[@]}"
expect_usage_error "truncated config" "truncated.json: not valid JSON" -- plan --gpu h100-sxm --model "$tmp/truncated.json" -- "${seed[@]}"
expect_usage_error "malformed config" "malformed.json: not valid JSON" -- plan --gpu h100-sxm --model "$tmp/malformed.json" -- "${seed[@]}"
expect_usage_error "unknown architecture" "model_type 'rwkv'" -- plan --gpu h100-sxm --model "$tmp/rwkv.json" -- "${seed[@]}"
expect_usage_error "model dir without config" "directory has no config.json" -- plan --gpu h100-sxm --model "$tmp/emptydir" -- "${seed[@]}"
expect_usage_error "unknown model" "closest bundled:" -- plan --gpu h100-sxm -- python -m sglang.launch_server --model-path org/NoSuchModel
expect_usage_error "bad flag value" "--tp 0: must be" -- plan --gpu h100-sxm -- python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 0
expect_usage_error "non-numeric flag" "--tp abc: not an integer" -- plan --gpu h100-sxm -- python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp abc
expect_usage_error "fraction out of range" "--mem-fraction-static 1.7" -- plan --gpu h100-sxm -- python -m sglang.launch_server --model-path Qwen/Qwen3-8B --mem-fraction-static 1.7
expect_usage_error "empty command" "no launch command" -- plan --gpu h100-sxm
expect_usage_error "coverage of an unknown engine" "no model registry table for engine 'tgi'" -- models --coverage --engine tgi
expect_usage_error "coverage before the table" "registry.py vllm --from 0.5.0" -- models --coverage --engine vllm@0.5.0
expect_usage_error "models option without --coverage" "go with --coverage" -- models --json
# models --coverage --json: one row per text and multimodal architecture, summary counts agree.
"$bin" models --coverage --engine vllm@0.34.0 --json >"$tmp/coverage.json" 2>"$tmp/err" || fail "models --coverage --json: exit $?"
python3 - "$tmp/coverage.json" <<'PY' || fail "models --coverage --json: contract"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["engine"] == "vllm" and d["release"] == "0.34.0", d["release"]
rows = d["architectures"]
assert {r["kind"] for r in rows} == {"text", "multimodal"}
assert all(r["status"] in ("modelled", "gaps", "not-modelled") for r in rows)
assert all(r["reason"] for r in rows if r["status"] != "modelled")
for kind, s in d["summary"].items():
    mine = [r for r in rows if r["kind"] == kind]
    assert s["registered"] == len(mine)
    assert s["modelled"] == sum(r["status"] == "modelled" for r in mine)
PY
expect_usage_error "not an engine" "names no known engine" -- plan --gpu h100-sxm -- ls -l
expect_usage_error "unknown option" "--frobnicate" -- plan --frobnicate --gpu h100-sxm -- "${seed[@]}"
expect_usage_error "unknown command" "did you mean plan" -- plna
expect_usage_error "unknown output" "no such output" -- explain max_frobs --gpu rtx-pro-6000 -- "${seed[@]}"
expect_usage_error "unknown version" "unknown version" -- plan --engine sglang@0.3.99 --gpu rtx-pro-6000 -- "${seed[@]}"
expect_usage_error "calibration above the card" "--free-before-load 200" -- plan --gpu h100-sxm --free-before-load 200 --free-after-load 60 -- python -m sglang.launch_server --model-path Qwen/Qwen3-8B

# fit: bad input is one line and exit 2; an unmet target exit 1 with the closest; what it prints
# replans (through plan) to the figures it claimed, and each emitted file reads back with --from.
fitm=(--engine vllm --model Qwen/Qwen3-32B)
expect_usage_error "fit unknown GPU" "fit --gpu h999" -- fit "${fitm[@]}" --gpu h999 --kv-tokens 1000
expect_usage_error "fit without a target" "fit: no target" -- fit "${fitm[@]}" --gpu h100-sxm
expect_usage_error "fit bad context" "fit --context lots" -- fit "${fitm[@]}" --gpu h100-sxm --context lots
expect_usage_error "fit varies a flag no rule reads" "no capacity rule" -- fit "${fitm[@]}" --gpu h100-sxm --kv-tokens 1000 --vary --port=1,2
expect_usage_error "fit varies an unknown flag" "fit --vary --frob=1" -- fit "${fitm[@]}" --gpu h100-sxm --kv-tokens 1000 --vary --frob=1
expect_usage_error "fit partial nodes" "whole nodes" -- fit "${fitm[@]}" --gpu h100-sxm --kv-tokens 1000 --gpus 12
expect_usage_error "fit latency without a rate" "give the offered load with --rate" -- fit "${fitm[@]}" --gpu h100-sxm --ttft-p99 500ms
expect_usage_error "fit rate without a latency" "give --ttft-p99 and/or --tpot-p99" -- fit "${fitm[@]}" --gpu h100-sxm --rate 4
expect_usage_error "fit bad latency" "fit --ttft-p99 soon" -- fit "${fitm[@]}" --gpu h100-sxm --rate 4 --ttft-p99 soon
expect_usage_error "fit calibrated without its GPU" "calibration figures belong to one GPU" -- fit --max-running-requests 48 --free-before-load 94.6 --free-after-load 64.6 -- "${seed[@]}"
expect_usage_error "fit without model or command" "give --engine NAME and --model ID" -- fit --gpu h100-sxm --kv-tokens 1000
"$bin" fit "${fitm[@]}" --gpu h100-sxm --max-gpus 2 --kv-tokens 1000000000 >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] || fail "fit with an unreachable target: expected exit 1"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "fit unmet: expected one stderr line: $(cat "$tmp/err")"
grep -q "Closest" "$tmp/out" || fail "fit unmet: no closest configurations"
"$bin" fit "${fitm[@]}" --gpu h100-sxm,l40s --concurrency 32 --context 16384 --limit 4 --json \
  >"$tmp/fit.json" 2>"$tmp/err" || fail "fit --json exited $?: $(cat "$tmp/err")"
python3 - "$bin" "$tmp/fit.json" <<'PY' || fail "fit --json: a configuration does not replan as claimed"
import json, shlex, subprocess, sys
binary, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
rows = d["configurations"]
assert rows and all(r["meets"] for r in rows), rows
assert [r["cost"] for r in rows] == sorted(r["cost"] for r in rows)
for r in rows:
    per_node = str(r["gpus"] // r["nodes"])
    out = subprocess.run([binary, "plan", "--json", "--gpu", r["gpu"], "--gpus", per_node, "--"]
                         + shlex.split(r["command"]), capture_output=True, text=True, check=True)
    o = json.loads(out.stdout)["outputs"]
    assert o["gpu_kv_cache_size_tokens"] == r["gpu_kv_cache_size_tokens"], (r, o)
    assert o["maximum_concurrency"] >= 32 and o["max_model_len"] == 16384, o
PY
# SGLang end to end: the founding case after a regression back to 48 running requests, replanned.
"$bin" fit --max-running-requests 48 --gpu rtx-pro-6000 --gpus 4 --json -- "${seed[@]}" \
  --speculative-algorithm NEXTN --enable-flashinfer-allreduce-fusion --mamba-full-memory-ratio 0.24 \
  >"$tmp/fit-sglang.json" 2>"$tmp/err" || fail "fit (sglang) exited $?: $(cat "$tmp/err")"
python3 - "$bin" "$tmp/fit-sglang.json" <<'PY' || fail "fit (sglang): the best configuration does not replan to 48"
import json, shlex, subprocess, sys
binary, path = sys.argv[1], sys.argv[2]
best = json.load(open(path))["configurations"][0]
assert "--enable-flashinfer-allreduce-fusion" not in best["command"], best["command"]
out = subprocess.run([binary, "plan", "--json", "--gpu", "rtx-pro-6000", "--gpus", "4", "--"]
                     + shlex.split(best["command"]), capture_output=True, text=True, check=True)
o = json.loads(out.stdout)["outputs"]
assert o["max_running_requests"] == best["max_running_requests"] == 48, (o, best)
PY
for form in shell systemd compose k8s; do
  "$bin" fit "${fitm[@]}" --gpu h100-sxm --concurrency 32 --context 16384 --emit "$form" \
    >"$tmp/emitted.$form" 2>"$tmp/err" || fail "fit --emit $form exited $?: $(cat "$tmp/err")"
  "$bin" plan --json --gpu h100-sxm --from "$tmp/emitted.$form" >"$tmp/emitted.json" 2>"$tmp/err" \
    || fail "plan --from the emitted $form file exited $?: $(cat "$tmp/err")"
  python3 - "$tmp/emitted.json" <<'PY' || fail "the emitted $form file does not plan to the target"
import json, sys
o = json.load(open(sys.argv[1]))["outputs"]
assert o["maximum_concurrency"] >= 32 and o["max_model_len"] == 16384, o
PY
done

expect_usage_error "why without =" "expected OUTPUT=VALUE" -- why max_running_requests --gpu rtx-pro-6000 -- "${seed[@]}"
expect_usage_error "why non-number" "'many' is not a number" -- why max_running_requests=many --gpu rtx-pro-6000 -- "${seed[@]}"
expect_usage_error "why unknown output" "no such output; outputs:" -- why max_frobs=3 --gpu rtx-pro-6000 -- "${seed[@]}"
expect_usage_error "diff without commands" "give --a" -- diff --gpu rtx-pro-6000
expect_usage_error "diff: a side that cannot start" "A (sglang) would not start" -- diff --gpu h100-sxm \
  --a "python -m sglang.launch_server --model-path Qwen/Qwen3-235B-A22B-FP8 --tp 1" \
  --b "vllm serve Qwen/Qwen3-235B-A22B-FP8 --tensor-parallel-size 4"
expect_usage_error "diff: a log and a command for one side" "give --a or --a-log, not both" -- diff \
  --a-log "$tmp/x.log" --a "${seed[*]}" --b "${seed[*]}" --gpu rtx-pro-6000

expect_usage_error "simulate: bad length" "--input-len" -- simulate --gpu rtx-pro-6000 --concurrency 4 --requests 10 --input-len lots -- "${seed[@]}"
expect_usage_error "simulate: no load" "--concurrency" -- simulate --gpu rtx-pro-6000 --requests 10 -- "${seed[@]}"
expect_usage_error "twin: bad fault" "--fault" -- twin --gpu rtx-pro-6000 --fault explode=1 -- "${seed[@]}"
expect_usage_error "twin: bad jitter" "--jitter must be between 0 and 1" -- twin --gpu rtx-pro-6000 --jitter 2 -- "${seed[@]}"
expect_usage_error "bench: no url" "--url" -- bench --concurrency 4 --requests 10
expect_usage_error "bench: not http" "ftp://127.0.0.1:1" -- bench --url ftp://127.0.0.1:1 --concurrency 4 --requests 10
expect_usage_error "bench: no load" "--concurrency C" -- bench --url http://127.0.0.1:1 --requests 10
expect_usage_error "bench: count and duration" "exactly one of --requests N and --duration D" -- bench --url http://127.0.0.1:1 --concurrency 4 --requests 10 --duration 5s
expect_usage_error "bench: bad duration" "--duration 5parsecs" -- bench --url http://127.0.0.1:1 --concurrency 4 --duration 5parsecs
expect_usage_error "bench: bad api" "--api" -- bench --url http://127.0.0.1:1 --api grpc --concurrency 4 --requests 10
expect_usage_error "bench: missing dataset" "nope.jsonl" -- bench --url http://127.0.0.1:1 --dataset "$tmp/nope.jsonl" --concurrency 4 --requests 10

# check with what the user knows: a log without settings is refused with the fix; a command file
# with the log's stem is its command (and not a log); a contradicting command is reported.
mkdir -p "$tmp/logs"
cat >"$tmp/logs/run.log" <<'LOG'
[2025-01-23 19:35:15 TP0] Load weight begin. avail mem=78.81 GB
[2025-01-23 19:35:20 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=63.72 GB
[2025-01-23 19:35:27 TP0] max_total_num_tokens=444500, max_prefill_tokens=16384, max_running_requests=2049, context_len=131072
LOG
expect_usage_error "log without settings" "--from FILE" -- check "$tmp/logs/run.log"
echo 'python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3.1-8B-Instruct --mem-fraction-static 0.88' >"$tmp/logs/run.sh"
"$bin" check "$tmp/logs" >"$tmp/out" 2>"$tmp/err" || fail "check of a log with its command beside exited $?: $(cat "$tmp/err")"
grep -qF "command: $tmp/logs/run.sh (beside the log)" "$tmp/out" || fail "check does not say it took run.sh: $(cat "$tmp/out")"
grep -qF "1 logs, 1 checked" "$tmp/out" || fail "check took run.sh for a log: $(cat "$tmp/out")"
"$bin" logs --json --summary-only "$tmp/logs/run.log" --from "$tmp/logs/run.sh" >"$tmp/logs.json" 2>"$tmp/err" || fail "logs --from exited $?: $(cat "$tmp/err")"
python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['command']; assert c['argv'][3]=='--model-path' and c['contradictions']==[], c" "$tmp/logs.json" || fail "logs --from JSON"
# A file beside the log that is no launch command does not stop the check: the log is checked
# alone and the output says why.
mkdir -p "$tmp/notcmd"
{ echo "[2025-01-23 19:34:55] server_args=ServerArgs(model_path='meta-llama/Meta-Llama-3.1-8B-Instruct', mem_fraction_static=0.88, tp_size=1)"; cat "$tmp/logs/run.log"; } >"$tmp/notcmd/run.log"
echo 'echo hello' >"$tmp/notcmd/run.sh"
"$bin" check "$tmp/notcmd/run.log" >"$tmp/out" 2>"$tmp/err" || fail "check beside a non-command exited $?: $(cat "$tmp/err")"
grep -qF "run.sh beside the log was not used" "$tmp/out" || fail "check does not say it left run.sh out: $(cat "$tmp/out")"
expect_usage_error "check: --from and --" "give one of them" -- check "$tmp/logs/run.log" --from "$tmp/logs/run.sh" -- python -m sglang.launch_server --model-path x

# bisect checks its input before the first launch: no run folder is made.
twin_tmpl="$bin twin --gpu rtx-pro-6000 --gpus 4 --startup-seconds 0 -- ${seed[*]} {flags} --host 127.0.0.1 --port {port}"
expect_usage_error "bisect: template without {flags}" "the template has no {flags}" -- bisect \
  --launch "${twin_tmpl/\{flags\} /}" --vary --enable-metrics --metric max_running_requests --out "$tmp/bisect"
expect_usage_error "bisect: unknown metric" "--metric max_frobs: no such metric" -- bisect \
  --launch "$twin_tmpl" --vary --enable-metrics --metric max_frobs --out "$tmp/bisect"
expect_usage_error "bisect: good equal to bad" "--good and --bad are the same flags" -- bisect \
  --launch "$twin_tmpl" --good "--enable-metrics" --bad "--enable-metrics" --metric max_running_requests --out "$tmp/bisect"
expect_usage_error "bisect: unknown bench option" "--bench: unknown option '--concurrency'" -- bisect \
  --launch "$twin_tmpl" --vary --enable-metrics --metric output_throughput@c=4 --bench "--concurrency 8" --out "$tmp/bisect"
# The launcher's options come first, each one line naming the fix.
expect_usage_error "bisect: --slurm-* without the launcher" "the --slurm-* options need --launcher slurm" -- bisect \
  --launch "$twin_tmpl" --vary --enable-metrics --metric max_running_requests --slurm-gpus 2 --out "$tmp/bisect"
expect_usage_error "bisect: unknown launcher" "--launcher pbs: use local, slurm or k8s" -- bisect \
  --launch "$twin_tmpl" --vary --enable-metrics --metric max_running_requests --launcher pbs --out "$tmp/bisect"
expect_usage_error "bisect: missing slurm config" "--slurm-config $tmp/none.yaml: no such file" -- bisect \
  --launch "$twin_tmpl" --vary --enable-metrics --metric max_running_requests --launcher slurm \
  --slurm-config "$tmp/none.yaml" --out "$tmp/bisect"
expect_usage_error "bisect: bad queue timeout" "--queue-timeout soon: give a duration" -- bisect \
  --launch "$twin_tmpl" --vary --enable-metrics --metric max_running_requests --launcher slurm \
  --queue-timeout soon --out "$tmp/bisect"
expect_usage_error "bench: --slurm to a loopback URL" "which is no node" -- bench \
  --url http://127.0.0.1:1 --concurrency 1 --slurm
[ ! -e "$tmp/bisect" ] || fail "bisect made its --out folder before rejecting its input"

: >"$tmp/empty.log"
printf 'hello\nworld\n' >"$tmp/other.log"
expect_usage_error "logs: missing file" "missing.log: no such file" -- logs "$tmp/missing.log"
expect_usage_error "logs: a directory" "is a directory" -- logs "$tmp/emptydir"
expect_usage_error "logs: empty file" "empty.log: empty file" -- logs "$tmp/empty.log"
expect_usage_error "logs: not a log" "no sglang or vllm log lines recognised in 2 lines" -- logs "$tmp/other.log"
# --from FILE: a file that is not there, or that launches nothing, is one line and exit 2;
# a systemd unit is read (command, environment, GPUs) and says where.
expect_usage_error "plan: --from a missing file" "--from $tmp/missing.sh: cannot open" -- plan --gpu h100-sxm --from "$tmp/missing.sh"
printf 'services:\n  db:\n    image: postgres\n' >"$tmp/compose.yaml"
expect_usage_error "plan: --from launches nothing" "compose.yaml: no service's command launches SGLang or vLLM" -- plan --gpu h100-sxm --from "$tmp/compose.yaml"
expect_usage_error "plan: --from and a command" "give one of them" -- plan --gpu h100-sxm --from "$tmp/compose.yaml" -- "${seed[@]}"
printf '[Service]\nEnvironment=CUDA_VISIBLE_DEVICES=0,1,2,3 SGLANG_ENABLE_SPEC_V2=1\nExecStart=python -m sglang.launch_server \\\n  --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4\n' >"$tmp/sglang.service"
"$bin" plan --json --gpu rtx-pro-6000 --from "$tmp/sglang.service" >"$tmp/from.json" 2>"$tmp/err" || fail "plan --from a unit exited $?: $(cat "$tmp/err")"
python3 - "$tmp/from.json" <<'PY' || fail "plan --from a unit lacks what it read"
import json, sys
d = json.load(open(sys.argv[1]))
read = d["inputs_read"]
assert any(r.endswith("sglang.service:3, ExecStart") for r in read), read
assert "GPUs: 4 from CUDA_VISIBLE_DEVICES=0,1,2,3" in read, read
PY

# lint exits 1 on an error-level finding (the fusion on SM120 fails startup at 2026-07-20).
"$bin" lint --gpu rtx-pro-6000 -- "${seed[@]}" --enable-flashinfer-allreduce-fusion >/dev/null 2>&1
[ $? -eq 1 ] || fail "lint did not exit 1 on an error-level finding"
"$bin" lint --gpu rtx-pro-6000 -- "${seed[@]}" >/dev/null 2>&1 || fail "lint exited non-zero without errors"

# lint judges a flag by the chosen release's own parser table (data/sglang/flags-*.tsv).
"$bin" lint --engine sglang@0.5.16 --gpu h100-sxm -- python -m sglang.launch_server --model-path Qwen/Qwen3-8B \
  --mamba-max-states-per-path 4 >"$tmp/lint.txt" 2>&1
[ $? -eq 1 ] || fail "lint of a flag 0.5.16 lacks did not exit 1"
grep -q "mamba-max-states-per-path is not a flag of sglang 0.5.16.*added in 0.5.17" "$tmp/lint.txt" \
  || fail "lint does not name 0.5.17 as the release that added --mamba-max-states-per-path: $(cat "$tmp/lint.txt")"
"$bin" lint --engine sglang@0.5.18 --gpu h100-sxm -- python -m sglang.launch_server --model-path Qwen/Qwen3-8B \
  --enable-gdn-replayssm-spec >"$tmp/lint.txt" 2>&1
grep -q "enable-gdn-replayssm-spec is a deprecated alias of --enable-linear-replayssm-spec in sglang 0.5.18" "$tmp/lint.txt" \
  || fail "lint does not report the 0.5.18 deprecated alias: $(cat "$tmp/lint.txt")"
"$bin" lint --engine vllm@0.19.0 --gpu h100-sxm -- vllm serve Qwen/Qwen3-8B --cohere-format >"$tmp/lint.txt" 2>&1
grep -q "cohere-format is not a flag of vllm 0.19.0.*added in" "$tmp/lint.txt" \
  || fail "lint does not name the vLLM release that added --cohere-format: $(cat "$tmp/lint.txt")"
"$bin" plan --engine sglang@0.5.40 --gpu h100-sxm -- python -m sglang.launch_server --model-path Qwen/Qwen3-8B >"$tmp/out" 2>&1 \
  || fail "a version newer than every known release was refused: $(cat "$tmp/out")"
grep -q "newer than every release servescope knows" "$tmp/out" || fail "plan on sglang@0.5.40 does not warn: $(head -3 "$tmp/out")"

# A capture progress bar's total is the number of decode batch sizes: an excerpt without the
# list is checked by it (23 sizes up to 160 in January 2025), and a wrong total is a mismatch.
cat >"$tmp/capbar.log" <<'LOG'
$ python -m sglang.launch_server --model-path meta-llama/Meta-Llama-3.1-8B-Instruct
[2025-01-23 19:35:15 TP0] Load weight begin. avail mem=78.81 GB
[2025-01-23 19:35:20 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=63.72 GB
Capturing batches (bs=160 avail_mem=8.21 GB): 100%|██████████| 23/23 [00:06<00:00,  3.50it/s]
[2025-01-23 19:35:27 TP0] max_total_num_tokens=444500, max_prefill_tokens=16384, max_running_requests=2049, context_len=131072
LOG
"$bin" check --json "$tmp/capbar.log" >"$tmp/capbar.json" 2>"$tmp/err" || fail "check of a capture bar exited $?: $(cat "$tmp/err")"
python3 - "$tmp/capbar.json" <<'PY' || fail "the capture bar's total is not compared"
import json, sys
d = json.load(open(sys.argv[1]))
by = {c["field"]: c for c in d["comparisons"]}
c = by["count:cuda_graph_bs"]
assert c["checked"] and c["match"] and c["logged"] == 23, c
PY
sed -i 's#| 23/23 #| 24/24 #' "$tmp/capbar.log"
"$bin" check "$tmp/capbar.log" >/dev/null 2>&1
[ $? -eq 1 ] || fail "a capture bar of 24 sizes where 23 are predicted is not a mismatch"

# Success paths: exit 0 and parseable JSON carrying the ARCHITECTURE.md fields.
"$bin" plan --json --gpu rtx-pro-6000 --free-before-load 94.6 --free-after-load 64.6 -- "${seed[@]}" >"$tmp/plan.json" 2>"$tmp/err" \
  || fail "plan --json exited $?: $(cat "$tmp/err")"
python3 - "$tmp/plan.json" <<'PY' || fail "plan --json lacks ARCHITECTURE.md fields"
import json, sys
d = json.load(open(sys.argv[1]))
# The default is the newest release; its capacity rules are the newest modelled main date.
assert d["engine"]["name"] == "sglang" and d["engine"]["version"] == "0.5.23", d["engine"]
assert d["engine"]["release"] == "0.5.23" and d["engine"]["rules_date"] == "2026-10-26", d["engine"]
o = d["outputs"]
# 0.5.16 gave 117 requests and 586 slots; 0.5.23 keeps a padding slot beside the pool (#32184)
# and reserves 100 MB of the budget for the multimodal cache (#34141): 116 and 583.
assert o["max_running_requests"] == 116 and o["max_mamba_cache_size"] == 583, o
for key in ("memory", "findings", "estimated", "derivation"):
    assert key in d, key
node = d["derivation"]["nodes"][0]
assert set(["id", "value", "unit", "rule", "why", "source", "inputs"]) <= set(node), node
PY
"$bin" explain max_running_requests --gpu rtx-pro-6000 -- "${seed[@]}" >"$tmp/explain.txt" || fail "explain exited $?"
grep -q "max_mamba_cache_size" "$tmp/explain.txt" || fail "explain tree does not reach the mamba pool"
# --json walks the same closure, whose inputs include flags nobody set (no node of their own).
"$bin" explain max_running_requests --json --gpu rtx-pro-6000 --gpus 4 -- "${seed[@]}" \
  >"$tmp/explain.json" || fail "explain --json exited $?"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['max_running_requests'][0]['id'] == 'max_running_requests'" \
  "$tmp/explain.json" || fail "explain --json is not the derivation of the output"
"$bin" --help >/dev/null || fail "--help exited $?"
"$bin" plan --help | grep -q -- "--free-before-load" || fail "plan --help lacks the calibration options"

# --version: the version, the commit and how far the rules reach, as data/rules-currency.tsv says.
"$bin" --version | grep -qE '^servescope [0-9]+\.[0-9]+\.[0-9]+ \(commit [0-9a-f]+(\+changes)?|unknown' \
  || fail "--version: $("$bin" --version)"
"$bin" --version --json >"$tmp/version.json" || fail "--version --json exited $?"
python3 - "$tmp/version.json" "$(dirname "$0")/../data/rules-currency.tsv" <<'PY' || fail "--version --json disagrees with data/rules-currency.tsv"
import csv, json, sys
v = json.load(open(sys.argv[1]))
rows = [r for r in csv.reader(open(sys.argv[2]), delimiter="\t") if r and not r[0].startswith("#")][1:]
assert {e: v["engines"][e]["release"] for e, _ in rows} == dict(rows), (v, rows)
assert all(len(v["engines"][e]["main_date"]) == 10 for e, _ in rows), v
PY

if [ "$failures" -gt 0 ]; then
  echo "$failures CLI contract check(s) failed"
  exit 1
fi
echo "CLI contract: all checks passed"
