// What an engine's log says, as facts, and the grammar an engine implements to read it.
//
// A Fact is one observation from one log line (or one multi-line construct such as a launch
// command split with backslashes): a stable snake_case kind, the line number, the rank tags
// and time the line was printed with, named fields whose units are stated in their names
// (`avail_mem_gb`, `elapsed_s`), and the cleaned line itself. Engine-neutral: the kinds each
// engine emits are documented by its grammar (engines/<engine>/<engine>_log_grammar.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/value.h"

namespace servescope {

/// The parallel-rank tags a line was printed with ("[... DP1 TP3]"); -1 when not printed.
struct RankTags {
  int tp = -1;
  int dp = -1;
  int pp = -1;
  int ep = -1;
  std::string label;  // the tags as printed, "DP1 TP3"; "" when the line has none

  bool tagged() const { return !label.empty(); }
  /// Every printed index is 0 (an untagged line counts as primary): the rank whose values
  /// stand for the server (TP0, DP0 TP0, ...).
  bool is_primary() const;
  bool operator==(const RankTags& other) const { return label == other.label; }
};

struct Field {
  std::string name;
  Value value;
};

struct Fact {
  std::string kind;        // stable snake_case: "load_weight_end", "decode_batch", ...
  std::uint64_t line = 0;  // 1-based line number in the input
  std::string timestamp;   // as printed, "2025-03-08 12:29:21" (".123" kept); "" if none
  RankTags rank;
  std::vector<Field> fields;  // in the order the line states them
  std::string raw;            // the cleaned line (no ANSI codes or CR; valid UTF-8)
  bool partial = false;       // the line was cut or elided ("[...]"): a missing field proves
                              // nothing

  const Value* find(std::string_view name) const;
  bool has(std::string_view name) const { return find(name) != nullptr; }
  /// The field as an integer (ints only), a number (ints and doubles), a string or a list.
  std::optional<std::int64_t> integer(std::string_view name) const;
  std::optional<double> number(std::string_view name) const;
  std::optional<std::string> text(std::string_view name) const;
  const IntList* int_list(std::string_view name) const;
  /// Replaces the field `name` or appends it.
  void set(std::string_view name, Value value);
};

/// How a grammar classified one line.
enum class LineKind {
  kFact,             // the line produced (or completed) one or more facts
  kKnown,            // recognised, nothing to keep (HTTP access line, progress bar, ...)
  kUnknown,          // not recognised
  kUnknownCapacity,  // not recognised, but it mentions a capacity quantity: a format the
                     // grammar may be missing, counted separately
};

/// Receives facts in line order.
class FactSink {
 public:
  virtual ~FactSink() = default;
  virtual void on_fact(const Fact& fact) = 0;
};

/// One range of an engine's main-branch dates ("YYYY-MM-DD"; "" = unbounded) that an
/// observation in the log implies, with the change that sets the bound.
struct VersionEvidence {
  std::string observation;  // what was seen or not seen: "server_args has cuda_graph_max_bs"
  bool seen = true;         // false: the evidence is an absence
  std::uint64_t line = 0;   // where it was seen (0 for an absence over the whole log)
  std::string from_date;    // first date the observation is possible, "" = unbounded
  std::string until_date;   // last date, "" = unbounded
  std::string rule;  // the change behind the bound: "cuda_graph_config replaced ... (#23906)"
  int weight = 2;    // 3 run date, 2 line formats and field names, 1 printed version
  bool conflicting = false;  // contradicted by heavier evidence; left out of the range
};

/// The first fact of `kind` on the primary rank (TP0, DP0 TP0, untagged), else the first of
/// any rank; nullptr when none.
const Fact* first_on_primary_rank(const std::vector<Fact>& facts, std::string_view kind);

/// The range of main-branch dates a log can come from.
struct VersionInference {
  std::string from_date;        // "" = no lower bound found
  std::string until_date;       // "" = no upper bound found
  std::string printed_version;  // a version string the log prints ("0.5.6.post2"), if any
  std::vector<VersionEvidence> evidence;
  bool consistent = true;  // false when some evidence contradicts the rest (see conflicting)

  bool known() const { return !from_date.empty() || !until_date.empty(); }
  /// "2025-03-04 … 2025-03-08", "≥ 2026-07-13", "unknown".
  std::string range_text() const;
  /// Sets the range from `evidence`: the date covered by the heaviest set of evidence (ties
  /// to the later date), intersected over that set; evidence outside it is marked conflicting.
  void resolve_range();
};

/// What a log says about its server, for people and for `check`: engine-neutral, filled by
/// the engine's grammar from its facts (values as printed; the line says where).
struct LogSummary {
  struct Item {
    std::string name;   // "free before load", "max_running_requests", ...
    std::string value;  // as a person reads it: "21.63 GB", "46,611 tokens"
    std::uint64_t line = 0;
    std::string kind;  // the fact kind it comes from
  };
  std::string model;        // the model path or name the log prints, "" if none
  std::string model_class;  // the architecture class ("Qwen2ForCausalLM"), "" if none
  std::string gpu;          // the GPU name, when the log prints one
  int tp = 0;               // parallel sizes, 0 when the log does not say
  int dp = 0;
  int pp = 0;
  int ep = 0;
  std::string rank;            // the rank whose values are shown ("TP0", "" untagged)
  std::vector<Item> capacity;  // the startup figures, in startup order
  std::vector<Item> problems;  // capacity warnings, startup failures, runtime errors
  std::vector<Item> notes;     // settings the engine adjusted
};

/// An engine's log grammar. One instance reads one log: it may keep state across lines (a
/// launch command continued with backslashes, a traceback, `pip show` output).
class LogGrammar {
 public:
  virtual ~LogGrammar() = default;
  virtual std::string_view engine() const = 0;
  /// Reads one cleaned line: valid UTF-8 (invalid bytes replaced by U+FFFD) without newline,
  /// CR or ANSI codes; NUL bytes may remain. Emits zero or more facts to `out` and says what
  /// the line was. Never throws.
  virtual LineKind feed(std::string_view line, std::uint64_t number, FactSink& out) = 0;
  /// End of input: emits what is still pending (a launch command cut at end of file).
  virtual void finish(FactSink& out) = 0;
  /// Whether `fact` proves the log comes from this engine (engine detection: generic facts
  /// such as a Python traceback do not).
  virtual bool identifies_engine(const Fact& fact) const = 0;
  /// The main-branch date range the facts imply, with the evidence.
  virtual VersionInference infer_version(const std::vector<Fact>& facts) const = 0;
  /// The summary of the facts (facts in line order; the primary rank's where ranks differ).
  virtual LogSummary summarize(const std::vector<Fact>& facts) const = 0;
};

}  // namespace servescope
