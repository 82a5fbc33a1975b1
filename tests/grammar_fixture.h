// Test helper: feed lines to an engine's log grammar and keep every fact and line kind.
#pragma once

#include <gtest/gtest.h>

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

/// The lines read by a fresh `Grammar`.
template <class Grammar>
GrammarRead read_lines(std::initializer_list<std::string_view> lines) {
  Grammar g;
  return feed_lines(g, lines);
}

/// The one fact a line makes (a test failure when it makes none or several).
template <class Grammar>
Fact read_one(std::string_view line) {
  GrammarRead r = read_lines<Grammar>({line});
  EXPECT_EQ(r.facts.size(), 1u) << line;
  EXPECT_EQ(r.kinds.front(), LineKind::kFact) << line;
  return r.facts.empty() ? Fact() : r.facts.front();
}

}  // namespace servescope::testing
