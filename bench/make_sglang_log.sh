#!/usr/bin/env bash
# usage: bench/make_sglang_log.sh SIZE_MB STARTUP_LOG OUT
# A realistic SGLang serving log of about SIZE_MB for the benchmarks: the first 74 lines of a
# real startup log (a corpus log), then copies of a 16 MB block of periodic Decode/Prefill batch
# lines in the 2026 form (decode lines dominate, as in a serving log) with HTTP access lines
# mixed in. Deterministic (srand(42)).
set -euo pipefail
size_mb=${1:?usage: make_sglang_log.sh SIZE_MB STARTUP_LOG OUT}
startup=${2:?usage: make_sglang_log.sh SIZE_MB STARTUP_LOG OUT}
out=${3:?usage: make_sglang_log.sh SIZE_MB STARTUP_LOG OUT}
block="$out.block"
trap 'rm -f "$block"' EXIT
awk -v target=$((16 * 1024 * 1024)) 'BEGIN {
  srand(42); bytes = 0; i = 0
  while (bytes < target) {
    t = sprintf("2026-07-20 %02d:%02d:%02d", int(i / 3600) % 24, int(i / 60) % 60, i % 60)
    tp = i % 4
    r = int(rand() * 256); q = int(rand() * 40); u = rand()
    if (i % 12 == 11) {
      line = sprintf("[%s TP%d] Prefill batch, #new-seq: %d, #new-token: %d, #cached-token: %d, " \
                     "token usage: %.2f, #running-req: %d, #queue-req: %d, #pending-token: 0, " \
                     "cuda graph: False, input throughput (token/s): %.2f",
                     t, tp, 1 + int(rand() * 8), int(rand() * 8192), int(rand() * 4096), u, r, q,
                     rand() * 40000)
    } else if (i % 50 == 49) {
      line = sprintf("[%s] INFO:     10.0.0.%d:%d - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
                     t, int(rand() * 255), 30000 + int(rand() * 30000))
    } else {
      line = sprintf("[%s TP%d] Decode batch, #running-req: %d, #token: %d, token usage: %.2f, " \
                     "cuda graph: True, gen throughput (token/s): %.2f, #queue-req: %d",
                     t, tp, r, int(u * 900000), u, rand() * 6000, q)
    }
    print line
    bytes += length(line) + 1
    i++
  }
}' >"$block"
grep -v '^#' "$startup" | head -n 74 >"$out"
block_mb=$(($(stat -c %s "$block") / 1048576))
for _ in $(seq 1 $((size_mb / block_mb))); do cat "$block"; done >>"$out"
