// What one log said: its facts (engines/log_grammar.h) with accessors by kind and rank, the
// ServerArgs-style argument map, the batch-line timeline per rank, the engine's summary and
// version inference, and how many lines were read, recognised or not.
//
// Memory is bounded whatever the log's size: at most `keep_per_kind` facts of each kind are
// kept, and at most 256 MiB of them in all (the periodic batch lines are counted and fold
// into the timeline; the rest is reported as dropped, never silently).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engines/log_grammar.h"
#include "evidence/timeline.h"

namespace servescope {

struct UnknownLine {
  std::uint64_t line = 0;
  std::string text;  // cut to 300 bytes
};

struct LineCounts {
  std::uint64_t bytes = 0;
  std::uint64_t lines = 0;             // a last line without a newline counts
  std::uint64_t fact_lines = 0;        // lines that produced or completed facts
  std::uint64_t facts = 0;             // facts produced (kept or not)
  std::uint64_t known = 0;             // recognised, nothing to keep (access lines, bars, blank)
  std::uint64_t unknown = 0;           // not recognised
  std::uint64_t unknown_capacity = 0;  // not recognised but mentioning a capacity quantity
  std::uint64_t overlong = 0;          // lines cut at the line-length limit
  std::uint64_t invalid_utf8 = 0;      // lines with bytes replaced by U+FFFD
  std::uint64_t control_chars = 0;     // lines with ANSI codes, CR or control bytes removed
  bool truncated_last_line = false;    // the input ended in the middle of a line
  std::vector<UnknownLine> unknown_capacity_samples;  // the first few, to show
};

class LogFacts {
 public:
  explicit LogFacts(std::size_t keep_per_kind = 10000, std::size_t keep_batch_per_kind = 1000);
  LogFacts(const LogFacts& other);
  LogFacts(LogFacts&& other) noexcept;
  LogFacts& operator=(const LogFacts& other);
  LogFacts& operator=(LogFacts&& other) noexcept;
  ~LogFacts() = default;

  /// Adds a fact (the reader calls this in line order).
  void add(const Fact& fact);

  std::string_view engine() const { return engine_; }
  const VersionInference& version() const { return version_; }
  const LogSummary& summary() const { return summary_; }
  const LineCounts& counts() const { return counts_; }

  /// Every kept fact, in line order.
  const std::vector<Fact>& all() const { return facts_; }
  /// The first or last fact of a kind on the primary rank (TP0, DP0 TP0, or untagged), or
  /// if no fact of that kind is on it, of the first rank that has one; nullptr if none.
  const Fact* first(std::string_view kind) const;
  const Fact* last(std::string_view kind) const;
  /// The first or last fact of a kind printed with exactly these rank tags ("TP1", "").
  const Fact* first(std::string_view kind, std::string_view rank_label) const;
  const Fact* last(std::string_view kind, std::string_view rank_label) const;
  /// Every kept fact of a kind, all ranks, in line order.
  std::vector<const Fact*> all_of(std::string_view kind) const;
  /// How many facts of a kind the log had (kept or not).
  std::uint64_t count(std::string_view kind) const;
  /// How many facts of each kind the log had (kept or not).
  const std::map<std::string, std::uint64_t, std::less<>>& counts_by_kind() const;
  /// Facts of each kind that were counted but not kept.
  const std::map<std::string, std::uint64_t, std::less<>>& dropped() const { return dropped_; }
  /// Rank labels in the order first seen ("" for untagged lines).
  const std::vector<std::string>& ranks() const { return ranks_; }

  /// The first argument dump (`server_args` facts), or nullptr; and one of its fields.
  const Fact* server_args() const { return first("server_args"); }
  const Value* server_arg(std::string_view name) const;
  /// The launch command as printed (`launch_command`), or "".
  std::string launch_command() const;

  /// The batch-line timeline of the primary rank (the one `first` prefers), and of all ranks.
  const Timeline* timeline() const;
  const std::vector<Timeline>& timelines() const { return timelines_; }

  // Set by the reader.
  void set_engine(std::string engine) { engine_ = std::move(engine); }
  void set_version(VersionInference v) { version_ = std::move(v); }
  void set_summary(LogSummary s) { summary_ = std::move(s); }
  LineCounts& mutable_counts() { return counts_; }

 private:
  struct KindSlot {
    std::string kind;
    std::uint64_t seen = 0;
    std::vector<std::size_t> indexes;  // into facts_, the kept facts of this kind
  };
  static bool is_batch(std::string_view kind);
  const Fact* pick(std::string_view kind, bool last) const;
  KindSlot& slot(const std::string& kind);
  void copy_data(const LogFacts& other);
  void clear_caches();

  std::size_t keep_per_kind_;
  std::size_t keep_batch_per_kind_;
  std::string engine_;
  VersionInference version_;
  LogSummary summary_;
  LineCounts counts_;
  std::vector<Fact> facts_;
  std::size_t kept_bytes_ = 0;  // approximate memory of facts_
  std::map<std::string, KindSlot, std::less<>> slots_;
  std::array<KindSlot*, 4> recent_{};
  std::size_t recent_next_ = 0;
  const std::string* last_rank_ = nullptr;
  mutable std::map<std::string, std::uint64_t, std::less<>> seen_;  // counts_by_kind()
  std::map<std::string, std::uint64_t, std::less<>> dropped_;
  std::vector<std::string> ranks_;
  std::vector<Timeline> timelines_;
};

}  // namespace servescope
