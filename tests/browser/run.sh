#!/usr/bin/env bash
# Browser tests of the HTML reports (issue 17): makes reports with the built binary, each beside
# the --json document it was rendered from, and opens them in Debian's headless Chromium with
# the network disabled (check_reports.js says what is asserted). ctest label "golden": `make
# test-golden` runs them, `make test` never needs Chromium.
#
# Usage: run.sh GROUP BINARY BUILD_DIR
#   static  plan, explain, diff and why of bundled scenarios
#   corpus  check and logs of real logs from the corpus ($SERVESCOPE_CORPUS, set by
#           scripts/test-golden.sh)
#   twin    a twin started here on 127.0.0.1 (port 0: the kernel picks a free one), loaded by
#           `bench --html`; `logs --html` of the twin's own log; `bisect --html` launching the twin
# Screenshots: BUILD_DIR/test-artifacts/browser/GROUP/*.png (the build directory is git-ignored).
# Every wait is bounded (timeout on each command, the twin's port read in at most 10 s) and the
# twin is killed on exit.
set -euo pipefail
group="$1"
bin="$2"
build="$(cd "$3" && pwd)"
here="$(cd "$(dirname "$0")" && pwd)"
export SERVESCOPE_BROWSER_NODE="$build/browser-node"
"$here/setup.sh" "$SERVESCOPE_BROWSER_NODE"
artifacts="$build/test-artifacts/browser/$group"
rm -rf "$artifacts"
mkdir -p "$artifacts"
work="$(mktemp -d "${TMPDIR:-/tmp}/servescope-browser-$group.XXXXXX")"
twin_pid=""
cleanup() {
  if [ -n "$twin_pid" ]; then
    kill "$twin_pid" 2>/dev/null || true
    wait "$twin_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
reports=()

# run NAME KIND COMMAND ARGS...: `servescope COMMAND --html FILE ARGS` (before any `--`) beside
# the JSON it prints on stdout.
run() {
  local name="$1" kind="$2" command="$3"
  shift 3
  timeout 300 "$bin" "$command" --html "$work/$name.html" "$@" >"$work/$name.json" 2>"$work/$name.err" || {
    local status=$?
    # check and lint exit 1 on error-level findings; the report is still written.
    if [ "$status" -ne 1 ] || [ "$kind" != check ]; then
      echo "FAIL: servescope $command $* exited $status: $(head -c 2000 "$work/$name.err")"
      exit 1
    fi
  }
  reports+=("$name=$kind:$work/$name.html:$work/$name.json")
}

case "$group" in
  static)
    vllm=(vllm serve Qwen/Qwen3-8B)
    sglang=(python -m sglang.launch_server --model-path Qwen/Qwen3-8B)
    run plan-vllm plan plan --json --gpu h100-sxm -- "${vllm[@]}"
    run plan-sglang plan plan --json --gpu h100-sxm -- "${sglang[@]}"
    run explain explain explain --json --gpu h100-sxm max_num_seqs max_num_batched_tokens -- "${vllm[@]}"
    run diff diff diff --json --gpu h100-sxm --a "${vllm[*]}" \
      --b "${vllm[*]} --gpu-memory-utilization 0.8 --max-model-len 8192 --kv-cache-dtype fp8"
    run why why why --json --gpu h100-sxm max_running_requests=26 -- "${sglang[@]}"
    run fit fit fit --json --gpu h100-sxm,h200 --concurrency 64 --context 32768 --limit 6 -- "${vllm[@]}"
    ;;
  corpus)
    corpus="${SERVESCOPE_CORPUS:-}"
    if [ -z "$corpus" ] || [ ! -f "$corpus/cases.jsonl" ]; then
      echo "browser corpus: no corpus at '$corpus'; run it through make test-golden or set SERVESCOPE_CORPUS=DIR"
      exit 1
    fi
    raw="$corpus/raw"
    run check-vllm check check --json "$raw/vllm-llm-d-planner-qwen-qwen3-30b-a3b--h100-80gb--tp1pp1dp1--8192.log"
    run check-sglang check check --json "$raw/sglang-docs_sglang_ai-quickstart-send_request.log"
    # An SGLang log with batch lines (a timeline and its charts) and a vLLM log without.
    run logs-sglang logs logs --json --summary-only "$raw/sglang-didier-durand_llms-in-clouds-docs_sglang.log"
    run logs-vllm logs logs --json --summary-only "$raw/vllm-llm-d-planner-meta-llama-llama-3-1-8b---h100-80gb--tp2pp1dp1--8192.log"
    ;;
  twin)
    . "$here/../../bench/twin-lib.sh"  # served_port: bounded, 10 s
    "$bin" twin --gpu h100-sxm --speed 50 --no-access-log -- \
      python -m sglang.launch_server --model-path Qwen/Qwen3-8B --host 127.0.0.1 --port 0 \
      >"$work/twin.out" 2>"$work/twin.log" &
    twin_pid=$!
    port="$(served_port "$work/twin.out")" || { echo "FAIL: the twin did not start: $(head -c 2000 "$work/twin.log")"; exit 1; }
    # A sweep of three points with the server's view scraped (a chart per point), objectives
    # (goodput per point) and two runs of each point; then the sweep compared with itself.
    timeout 300 "$bin" bench --url "http://127.0.0.1:$port" --concurrency 1,4,16 --requests 40 \
      --input-len 256 --output-len 32 --scrape-interval 50ms --quiet --expect-from "$work/twin.log" \
      --slo ttft:20ms,tpot:2ms --repeat 2 \
      --json "$work/bench.json" --html "$work/bench.html" >"$work/bench.out" 2>"$work/bench.err" ||
      { echo "FAIL: bench exited $?: $(head -c 2000 "$work/bench.err")"; exit 1; }
    reports+=("bench=bench:$work/bench.html:$work/bench.json")
    run compare compare bench --compare "$work/bench.json" "$work/bench.json" --json -
    kill "$twin_pid"
    wait "$twin_pid" 2>/dev/null || true
    twin_pid=""
    run logs-twin logs logs --json --summary-only "$work/twin.log"
    # bisect launches the twin once per configuration ({port}: one bisect picks).
    tmpl="$bin twin --gpu rtx-pro-6000 --gpus 4 --free-before-load 94.6 --free-after-load 64.6"
    tmpl+=" --startup-seconds 0 --no-access-log -- python -m sglang.launch_server"
    tmpl+=" --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4 --speculative-algorithm NEXTN {flags}"
    tmpl+=" --host 127.0.0.1 --port {port}"
    timeout 300 "$bin" bisect --launch "$tmpl" --vary "--max-mamba-cache-size 100" \
      --vary "--enable-metrics" --vary "--schedule-policy lpm" --metric max_running_requests \
      --strategy ddmin --startup-timeout 20s --grace 2s --out "$work/bisect" \
      --html "$work/bisect.html" >"$work/bisect.out" 2>"$work/bisect.err" ||
      { echo "FAIL: bisect exited $?: $(head -c 2000 "$work/bisect.err")"; exit 1; }
    reports+=("bisect=bisect:$work/bisect.html:$work/bisect/report.json")
    ;;
  *)
    echo "usage: run.sh static|corpus|twin BINARY BUILD_DIR" >&2
    exit 2
    ;;
esac

# The documents are kept beside the screenshots, so a failure can be looked at.
cp "$work"/*.json "$work"/*.html "$artifacts/" 2>/dev/null || true
[ ! -f "$work/bisect/report.json" ] || cp "$work/bisect/report.json" "$artifacts/bisect.json"
timeout 600 node "$here/check_reports.js" "$artifacts" "${reports[@]}"
