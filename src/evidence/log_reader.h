// Reads a server log through an engine's grammar: streams the input in chunks (constant
// memory, any size), cleans each line (ANSI codes, CR, control bytes removed; invalid UTF-8
// replaced), counts what it does not know, and collects the facts.
//
// The engine is the caller's, or is detected from the content: until a line proves an
// engine (LogGrammar::identifies_engine), every engine's grammar reads along and keeps its
// facts; the first engine proven wins and its facts so far are kept.
#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <string_view>

#include "core/result.h"
#include "engines/engine.h"
#include "evidence/log_facts.h"

namespace servescope {

struct LogReadOptions {
  const Engine* engine = nullptr;  // nullptr: detect from the content
  FactSink* sink = nullptr;        // receives every fact, in line order, as it is read
  std::size_t max_line_bytes = std::size_t{4} << 20;  // longer lines are cut (counted)
  std::size_t keep_per_kind = 10000;                  // facts kept per kind in LogFacts
  std::size_t keep_batch_per_kind = 1000;             // periodic batch lines kept per kind
  std::size_t chunk_bytes = std::size_t{1} << 20;
};

/// Reads `in` to its end. `name` names the input in errors ("server.log"). Fails when no
/// line of any engine (or of the given engine) is recognised.
Result<LogFacts> read_log(std::istream& in, const std::string& name,
                          const LogReadOptions& options = {});
/// Opens a file; a missing file, a directory or an empty file is an error naming the path.
Result<LogFacts> read_log_file(const std::string& path, const LogReadOptions& options = {});
/// Reads a log held in memory (a corpus excerpt).
Result<LogFacts> read_log_text(std::string_view text, const std::string& name = "log",
                               const LogReadOptions& options = {});

/// Cleans one line for a grammar: drops ANSI escape sequences, a trailing CR and control
/// bytes other than tab, replaces invalid UTF-8 with U+FFFD, and splits at inner CRs
/// (progress bars overwrite themselves with CR). Returns the segments; `changed` and
/// `invalid` say what was done. Views point into `line` or `scratch`.
struct CleanedLine {
  std::vector<std::string_view> segments;
  bool changed = false;
  bool invalid_utf8 = false;
};
void clean_log_line(std::string_view line, std::string& scratch, CleanedLine& out);

}  // namespace servescope
