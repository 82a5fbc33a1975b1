// A timestamped request trace that `bench --trace FILE` replays: each row's send time, prompt
// length, output length and, where the trace has them, the ids of the prompt's blocks — rows
// that share a block id share that part of their prompt, so a prefix-caching server sees the
// reuse the trace's users produced.
//
// Two shapes are read (the format is told by the first non-blank character):
//   JSONL, Mooncake's (FAST '25 traces): {"timestamp": MS, "input_length": N,
//     "output_length": N, "hash_ids": [ID, ...]}, timestamps in milliseconds, one block id per
//     512 prompt tokens; "hash_ids" may be left out (no shared prefix);
//   CSV, Azure's LLM inference traces: TIMESTAMP,ContextTokens,GeneratedTokens with timestamps
//     as "2023-11-16 18:15:46.6805900".
// Timestamps are taken relative to the first row and must not go back.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "load/dataset.h"
#include "load/runner.h"

namespace servescope {

struct TraceRow {
  double at_s = 0;  // from the first row
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::vector<std::uint64_t> block_ids;  // each kTraceBlockTokens of the prompt, in order
};

inline constexpr std::int64_t kTraceBlockTokens = 512;  // Mooncake's block size

struct Trace {
  std::vector<TraceRow> rows;
  std::string format;  // "Mooncake JSONL" or "Azure CSV"
  double span_s() const { return rows.empty() ? 0 : rows.back().at_s; }
};

/// Parses a trace's text; `name` (the file) prefixes every error with the line it is about.
Result<Trace> parse_trace(std::string_view text, const std::string& name);
/// Reads and parses a trace file.
Result<Trace> read_trace(const std::string& path);

/// The prompts of rows [0, count) of the trace, `round` distinguishing replays: a block id gives
/// the same tokens to every row of one round and other tokens in another round, so a sweep's
/// later points do not find the earlier points' prompts cached.
std::vector<PromptItem> trace_prompts(const Trace& trace, std::size_t count, std::uint64_t round,
                                      std::uint64_t seed, bool token_ids);

/// One open-loop point per speed replaying rows [0, rows): a row's send is its timestamp
/// divided by the speed (2: twice as fast); the point's rate is the trace's mean rate × speed.
std::vector<PointPlan> trace_points(const Trace& trace, const std::vector<double>& speeds,
                                    std::size_t rows, const PointPlan& base);

}  // namespace servescope
