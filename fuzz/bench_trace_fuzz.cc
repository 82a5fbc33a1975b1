// libFuzzer target: a trace file for bench --trace (Mooncake JSONL or Azure CSV), then the
// prompts and points a replay makes from it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "load/trace.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace servescope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto trace = parse_trace(text, "fuzz");
  if (!trace)
    return 0;
  // Bounded: the first rows, each prompt at most a few blocks (lengths are capped by the parser
  // only at ten million tokens).
  Trace small = *trace;
  if (small.rows.size() > 8)
    small.rows.resize(8);
  for (TraceRow& r : small.rows)
    r.input_tokens = std::min<std::int64_t>(r.input_tokens, 4096);
  (void)trace_prompts(small, small.rows.size(), 1, 7, true);
  (void)trace_prompts(small, small.rows.size(), 0, 7, false);
  PointPlan base;
  (void)trace_points(*trace, {1, 0.5}, trace->rows.size(), base);
  return 0;
}
