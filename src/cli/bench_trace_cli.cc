#include "cli/bench_trace_cli.h"

#include <fmt/format.h>

#include <memory>

#include "twin/workload.h"

namespace servescope {

void add_bench_trace_options(CLI::App& app, BenchTraceCli& cli) {
  app.add_option("--trace", cli.file,
                 "Replay a timestamped trace: Mooncake JSONL ({\"timestamp\": MS, "
                 "\"input_length\": N, \"output_length\": N, \"hash_ids\": [...]}: rows naming "
                 "a block id share those 512 prompt tokens) or Azure's CSV (TIMESTAMP, "
                 "ContextTokens, GeneratedTokens); each row goes at its own time");
  app.add_option("--trace-speed", cli.speed,
                 "With --trace: S or S1,S2,... (a sweep): replay S times as fast (0.5: half)")
      ->capture_default_str();
}

Status apply_bench_trace(const CLI::App& app, const BenchTraceCli& cli, std::int64_t requests,
                         const PointPlan& base, BenchOptions& o) {
  for (const char* option :
       {"--rate", "--duration", "--dataset", "--input-len", "--output-len", "--shared-prefix",
        "--multi-turn", "--warmup", "--arrival", "--find-max"}) {
    if (app.count(option) > 0)
      return fail(
          fmt::format("bench: {} does not go with --trace (the trace gives each request's time and "
                      "lengths); drop it, or use --trace-speed to scale the trace's pace",
                      option));
  }
  if (base.concurrency < 0)
    return fail("bench: with --trace, --concurrency is one cap on requests in flight");
  auto speeds = parse_number_list(cli.speed, "--trace-speed");
  if (!speeds)
    return speeds.error();
  auto trace = read_trace(cli.file);
  if (!trace)
    return trace.error();
  const std::size_t rows =
      requests > 0 ? std::min<std::size_t>(static_cast<std::size_t>(requests), trace->rows.size())
                   : trace->rows.size();
  o.trace_name = cli.file;
  o.trace = std::make_shared<const Trace>(std::move(*trace));
  o.points = trace_points(*o.trace, *speeds, rows, base);
  return ok_status();
}

}  // namespace servescope
