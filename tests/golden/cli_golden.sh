#!/usr/bin/env bash
# The command-line contract on the real-log corpus: logs and check on corpus logs, exit
# statuses and the JSON they print. Usage: SERVESCOPE_CORPUS=DIR cli_golden.sh BINARY
# (make test-golden sets SERVESCOPE_CORPUS).
set -u
bin="$1"
corpus="${SERVESCOPE_CORPUS:-}"
if [ -z "$corpus" ] || [ ! -f "$corpus/cases.jsonl" ]; then
  echo "cli_golden: no corpus at '${corpus}'; run it through make test-golden or set SERVESCOPE_CORPUS=DIR"
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

corpus_log="$corpus/raw/sglang-docs_sglang_ai-quickstart-send_request.log"
[ -f "$corpus_log" ] || fail "missing $corpus_log"
"$bin" logs --json "$corpus_log" >"$tmp/logs.json" 2>"$tmp/err" || fail "logs --json exited $?: $(cat "$tmp/err")"
python3 - "$tmp/logs.json" <<'PY' || fail "logs --json lacks its fields"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["engine"] == "sglang"
kinds = [f["kind"] for f in d["facts"]]
assert "capacity" in kinds and "load_weight_begin" in kinds, kinds
cap = next(f for f in d["facts"] if f["kind"] == "capacity")
assert cap["fields"]["max_total_num_tokens"] == 444500 and cap["line"] == 22, cap
assert d["inferred_version"]["from"] <= "2025-01-23" <= d["inferred_version"]["until"]
assert d["counts"]["unknown_capacity"] == 0
PY
# A vLLM v0.19.0 log (CRLF line ends, one GPU): logs shows the KV size; check exits 0 and
# compares the five figures by their issue-8 names.
vllm_log="$corpus/raw/vllm-llm-d-planner-qwen-qwen3-30b-a3b--h100-80gb--tp1pp1dp1--8192.log"
[ -f "$vllm_log" ] || fail "missing $vllm_log"
"$bin" logs "$vllm_log" >"$tmp/vllm-logs.txt" 2>"$tmp/err" || fail "logs on a vLLM log exited $?: $(cat "$tmp/err")"
grep -q "GPU KV cache size  *168,288 tokens" "$tmp/vllm-logs.txt" || fail "logs on a vLLM log lacks the KV size"
"$bin" check --json "$vllm_log" >"$tmp/vllm-check.json" 2>"$tmp/err" || fail "check on a vLLM log exited $?: $(cat "$tmp/err")"
python3 - "$tmp/vllm-check.json" <<'PY' || fail "check --json on a vLLM log lacks its comparisons"
import json, sys
d = json.load(open(sys.argv[1]))
by = {c["field"]: c for c in d["comparisons"]}
for f in ("gpu_kv_cache_size_tokens", "maximum_concurrency", "num_gpu_blocks", "max_num_seqs", "max_num_batched_tokens"):
  assert f in by and by[f]["checked"] and by[f]["match"], (f, by.get(f))
assert by["gpu_kv_cache_size_tokens"]["logged"] == 168288 and d["mismatched"] == 0
PY


# check over a directory: one row per log and a total; every corpus log is read without a
# crash, and --json carries the same totals.
"$bin" check "$corpus/raw" >"$tmp/table.txt" 2>"$tmp/err"
status=$?
[ "$status" -le 1 ] || fail "check on the corpus directory exited $status: $(cat "$tmp/err")"
rows=$(ls "$corpus/raw" | wc -l)
grep -q "^$rows logs, " "$tmp/table.txt" || fail "check table lacks its total line: $(tail -2 "$tmp/table.txt")"
"$bin" check --json "$corpus/raw" >"$tmp/table.json" 2>"$tmp/err"
python3 - "$tmp/table.json" "$rows" <<'PY' || fail "check --json over a directory lacks its totals"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["logs"]) == int(sys.argv[2]), len(d["logs"])
t = d["total"]
assert t["compared"] == sum(l.get("matched", 0) + l.get("mismatched", 0) for l in d["logs"]), t
assert 0 < t["compared"] <= t["stated"] and t["matched"] <= t["compared"], t
PY
# A vLLM log that names no GPU and prints no total or free memory: its memory profile (weights +
# KV within gpu_memory_utilization 0.25) needs ≥ 77 GiB, so the 80 GB class is tried and the
# A100-80GB (whose CUDA total is known) compares every figure.
"$bin" check --json "$corpus/raw/vllm-dennislee22-qwen2-7b-instruct-1xA100-80GB-gmu0.25.log" >"$tmp/d.json" 2>"$tmp/err"
python3 - "$tmp/d.json" <<'PY' || fail "the dennislee22 gmu 0.25 log is not checked as an 80 GB GPU"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mismatched"] == 0 and d["matched"] == 5, (d["matched"], d["mismatched"])
assert any("needs at least 77.04 GiB" in n for n in d["notes"]), d["notes"]
PY
for log in "$corpus"/raw/*; do
  "$bin" logs "$log" >/dev/null 2>"$tmp/err" || fail "logs $log exited $?: $(cat "$tmp/err")"
done

if [ "$failures" -gt 0 ]; then
  echo "cli_golden: $failures failure(s)"
  exit 1
fi
echo "cli_golden: ok"
