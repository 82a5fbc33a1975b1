// Plan: what an engine will decide for a scenario — the resolved settings, the memory
// budget, the capacity outputs, findings, and the derivation graph behind every number.
#pragma once

#include <string>
#include <vector>

#include "core/derivation.h"

namespace servescope {

enum class Severity { kInfo, kWarning, kError };
std::string_view severity_name(Severity s);

struct Finding {
  Severity severity = Severity::kInfo;
  std::string code;                // stable, e.g. "unmodelled-flag"
  std::vector<std::string> flags;  // flags involved, as typed
  std::string message;             // one sentence
  std::string rule;                // rule id
  std::string source;              // engine file::function
};

struct MemoryRow {
  std::string item;
  double gib = 0;
  std::string source;  // "estimate", "log", "flag", "rule"
};

/// A setting the engine resolves differently from what was typed (or fills in by default).
struct ResolvedSetting {
  std::string name;      // e.g. "mamba_radix_cache_strategy"
  std::string typed;     // what the command said, "" if absent
  std::string resolved;  // what the engine will use
  std::string why;
};

struct Plan {
  std::string engine;
  std::string version;
  std::string version_basis;
  std::vector<std::string> outputs;  // node ids of the capacity outputs, in display order
  std::vector<MemoryRow> memory;
  std::vector<ResolvedSetting> resolved;
  std::vector<Finding> findings;
  std::vector<std::string> estimated;  // inputs that are estimates, not facts
  Derivation graph;
  bool starts = true;         // false: the engine would fail at startup
  std::string startup_error;  // the engine's error line when it would fail

  const Value& output(std::string_view id) const { return graph.value(id); }
  bool has_output(std::string_view id) const;
  bool has_error() const;
};

}  // namespace servescope
