// `servescope logs --json`: every fact, streamed as the log is read (constant memory), then
// the engine, the inferred version, the summary, the timelines and the line counts.
//
//   {"format": "servescope.logs/1", "file": "...",
//    "facts": [{"kind", "line", "time", "rank": {"label", "tp", "dp", "pp", "ep"},
//               "fields": {name: value}, "raw", "partial"}, ...],
//    "engine": "sglang",
//    "inferred_version": {"from", "until", "range", "consistent", "printed_version",
//                         "evidence": [{"observation", "seen", "line", "from", "until",
//                                       "rule", "weight", "conflicting"}]},
//    "summary": {"model", "model_class", "gpu", "tp", "dp", "pp", "ep", "rank",
//                "capacity": [{"name", "value", "line", "kind"}], "problems": [...],
//                "notes": [...]},
//    "timelines": [{"rank", "samples", "decode_samples", "prefill_samples", "span_s",
//                   "peaks": {"running_req"|"queue_req"|"token_usage"|"gen_throughput_tok_per_s":
//                             {"value", "line", "time"}},
//                   "points": [{"first_line", "last_line", "time", "offset_s", "samples",
//                               "decode_samples", "running_req", "queue_req", "token_usage",
//                               "gen_throughput_tok_per_s", "mamba_usage"}]}],
//    "counts": {"bytes", "lines", "fact_lines", "facts", "known", "unknown",
//               "unknown_capacity", "overlong", "invalid_utf8", "control_chars",
//               "truncated_last_line", "unknown_capacity_samples": [{"line", "text"}],
//               "facts_by_kind": {kind: n}, "dropped_by_kind": {kind: n}}}
//
// Absent values are null (a gauge a line did not state: null, not -1).
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "engines/log_grammar.h"
#include "evidence/log_facts.h"

namespace servescope {

/// One fact as a JSON object, appended to `out` (hand-written: the hot path of a 1 GB log).
void append_fact_json(std::string& out, const Fact& fact);

/// Streams the document to a FILE: the head and facts as they arrive, the tail at finish().
class LogsJsonWriter final : public FactSink {
 public:
  LogsJsonWriter(std::FILE* out, std::string file_name, bool with_facts = true);
  ~LogsJsonWriter() override;
  void on_fact(const Fact& fact) override;
  /// A member written after the tail (`logs --from`: "command").
  void extra(std::string key, nlohmann::json value) { extra_[std::move(key)] = std::move(value); }
  /// Writes everything after the facts and flushes.
  void finish(const LogFacts& facts);

 private:
  void head();
  void flush();

  std::FILE* out_;
  std::string file_name_;
  bool with_facts_;
  bool started_ = false;
  bool first_fact_ = true;
  std::string buf_;
  nlohmann::json extra_ = nlohmann::json::object();
};

/// The part after "facts" as JSON members (engine, inferred_version, summary, timelines,
/// counts).
nlohmann::json logs_tail_to_json(const LogFacts& facts);

}  // namespace servescope
