// Test helper: feed lines to an engine's log grammar and keep every fact and line kind.
#pragma once

#include <initializer_list>
#include <string_view>
#include <utility>
#include <vector>

#include "engines/log_grammar.h"

namespace servescope::testing {

struct FactCollector final : FactSink {
  std::vector<Fact> facts;
  void on_fact(const Fact& f) override { facts.push_back(f); }
};

struct GrammarRead {
  std::vector<Fact> facts;
  std::vector<LineKind> kinds;  // one per line fed
  const Fact* first(std::string_view kind) const {
    for (const Fact& f : facts) {
      if (f.kind == kind)
        return &f;
    }
    return nullptr;
  }
};

/// Feeds `lines` (numbered from 1) to `grammar`, then finishes it.
inline GrammarRead feed_lines(LogGrammar& grammar, std::initializer_list<std::string_view> lines) {
  FactCollector c;
  GrammarRead r;
  std::uint64_t n = 0;
  for (std::string_view l : lines)
    r.kinds.push_back(grammar.feed(l, ++n, c));
  grammar.finish(c);
  r.facts = std::move(c.facts);
  return r;
}

}  // namespace servescope::testing
