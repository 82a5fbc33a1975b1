#include "lab/search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace servescope {
namespace {

// Trials answered by a function of the subset, each distinct subset counted once (as the
// bisector's cache does for real launches).
class ScriptedTrials final : public Trials {
 public:
  explicit ScriptedTrials(std::function<DdminOutcome(const Subset&)> f, int parallel = 1)
      : f_(std::move(f)), parallel_(parallel) {}
  std::vector<DdminOutcome> run(const std::vector<Subset>& subsets) override {
    std::vector<DdminOutcome> out;
    ++batches;
    for (const Subset& s : subsets) {
      auto it = seen.find(s);
      if (it == seen.end())
        it = seen.emplace(s, f_(s)).first;
      out.push_back(it->second);
    }
    return out;
  }
  int parallel() const override { return parallel_; }
  // Distinct subsets tried, the endpoints (empty and full) excluded.
  std::size_t beyond_endpoints(std::size_t n) const {
    std::size_t count = 0;
    for (const auto& [s, o] : seen)
      count += (s.empty() || s.size() == n) ? 0 : 1;
    return count;
  }
  std::map<Subset, DdminOutcome> seen;
  int batches = 0;

 private:
  std::function<DdminOutcome(const Subset&)> f_;
  int parallel_;
};

bool has(const Subset& s, std::size_t i) {
  return std::find(s.begin(), s.end(), i) != s.end();
}

DdminOutcome fails_if(bool b) {
  return b ? DdminOutcome::kFail : DdminOutcome::kPass;
}

std::vector<std::string> labels(std::size_t n) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i)
    out.push_back("--flag-" + std::to_string(i));
  return out;
}

TEST(SearchDdminTest, OneCulpritAmongEightTakesAtMostFiveTrialsWhereverItIs) {
  for (std::size_t culprit = 0; culprit < 8; ++culprit) {
    ScriptedTrials t([&](const Subset& s) { return fails_if(has(s, culprit)); });
    const SearchResult r = search_ddmin(labels(8), t);
    ASSERT_EQ(r.culprits.size(), 1u) << culprit;
    EXPECT_EQ(r.culprits[0], Subset{culprit});
    EXPECT_LE(t.beyond_endpoints(8), 5u) << "culprit " << culprit;
  }
}

TEST(SearchDdminTest, AnInteractionIsReportedAsThePair) {
  ScriptedTrials t([](const Subset& s) { return fails_if(has(s, 1) && has(s, 6)); });
  const SearchResult r = search_ddmin(labels(8), t);
  ASSERT_EQ(r.culprits.size(), 1u);
  EXPECT_EQ(r.culprits[0], (Subset{1, 6}));
  EXPECT_FALSE(r.notes.empty());  // the bisection said it fell back to ddmin
}

TEST(SearchDdminTest, TwoIndependentCausesAreBothNamed) {
  ScriptedTrials t([](const Subset& s) { return fails_if(has(s, 2) || has(s, 5)); });
  const SearchResult r = search_ddmin(labels(8), t);
  ASSERT_EQ(r.culprits.size(), 2u);
  EXPECT_EQ(r.culprits[0], Subset{2});
  EXPECT_EQ(r.culprits[1], Subset{5});
}

TEST(SearchDdminTest, FailedStartsOfMixedSubsetsAreWorkedAround) {
  // Change 3 only works together with change 4 (it does not start without it); 3 is the cause.
  ScriptedTrials t([](const Subset& s) {
    if (has(s, 3) && !has(s, 4))
      return DdminOutcome::kUnresolved;
    return fails_if(has(s, 3));
  });
  const SearchResult r = search_ddmin(labels(8), t);
  ASSERT_EQ(r.culprits.size(), 1u);
  EXPECT_EQ(r.culprits[0], (Subset{3, 4}));
}

TEST(SearchDdminTest, WithTwoAtOnceBothHalvesRunTogether) {
  ScriptedTrials t([](const Subset& s) { return fails_if(has(s, 6)); }, 2);
  const SearchResult r = search_ddmin(labels(8), t);
  ASSERT_EQ(r.culprits.size(), 1u);
  EXPECT_EQ(r.culprits[0], Subset{6});
  EXPECT_EQ(t.batches, 4);  // three levels of two halves, then everything but 6
}

TEST(SearchOneAtATimeTest, TogglesEachChangeAlone) {
  ScriptedTrials t([](const Subset& s) { return fails_if(has(s, 4)); });
  const SearchResult r = search_one_at_a_time(labels(8), t);
  ASSERT_EQ(r.culprits.size(), 1u);
  EXPECT_EQ(r.culprits[0], Subset{4});
  EXPECT_EQ(t.beyond_endpoints(8), 8u);
}

TEST(SearchOneAtATimeTest, AnInteractionIsFoundByRemovingEachFromTheBadSet) {
  ScriptedTrials t([](const Subset& s) { return fails_if(has(s, 0) && has(s, 7)); });
  const SearchResult r = search_one_at_a_time(labels(8), t);
  ASSERT_EQ(r.culprits.size(), 1u);
  EXPECT_EQ(r.culprits[0], (Subset{0, 7}));
}

TEST(SearchGuidedTest, ARightModelIsConfirmedWithTwoTrials) {
  auto truth = [](const Subset& s) { return fails_if(has(s, 5)); };
  ScriptedTrials real(truth), model(truth);
  const SearchResult r = search_guided(labels(8), real, model);
  ASSERT_EQ(r.culprits.size(), 1u);
  EXPECT_EQ(r.culprits[0], Subset{5});
  EXPECT_EQ(real.beyond_endpoints(8), 2u);
  EXPECT_TRUE(r.model_gaps.empty());
}

TEST(SearchGuidedTest, ARightModelOfAPairIsConfirmedWithFourTrials) {
  auto truth = [](const Subset& s) { return fails_if(has(s, 2) && has(s, 3)); };
  ScriptedTrials real(truth), model(truth);
  const SearchResult r = search_guided(labels(8), real, model);
  ASSERT_EQ(r.culprits.size(), 1u);
  EXPECT_EQ(r.culprits[0], (Subset{2, 3}));
  EXPECT_EQ(real.beyond_endpoints(8), 4u);  // the pair, the rest, and each member alone
}

TEST(SearchGuidedTest, AWrongModelFallsBackToDdminAndSaysWhereItWasWrong) {
  ScriptedTrials real([](const Subset& s) { return fails_if(has(s, 1)); });
  ScriptedTrials model([](const Subset& s) { return fails_if(has(s, 6)); });
  const SearchResult r = search_guided(labels(8), real, model);
  ASSERT_EQ(r.culprits.size(), 1u);
  EXPECT_EQ(r.culprits[0], Subset{1});
  ASSERT_EQ(r.model_gaps.size(), 1u);
  EXPECT_NE(r.model_gaps[0].find("--flag-6"), std::string::npos) << r.model_gaps[0];
}

TEST(SearchGuidedTest, AModelThatMissesASecondCauseIsCaughtByTheRest) {
  ScriptedTrials real([](const Subset& s) { return fails_if(has(s, 1) || has(s, 4)); });
  ScriptedTrials model([](const Subset& s) { return fails_if(has(s, 1)); });
  const SearchResult r = search_guided(labels(8), real, model);
  ASSERT_EQ(r.culprits.size(), 2u);
  EXPECT_EQ(r.culprits[0], Subset{1});
  EXPECT_EQ(r.culprits[1], Subset{4});
  EXPECT_EQ(r.model_gaps.size(), 1u);
}

TEST(SearchGuidedTest, AModelThatSeesNoDifferenceLeavesItToDdmin) {
  ScriptedTrials real([](const Subset& s) { return fails_if(has(s, 3)); });
  ScriptedTrials model([](const Subset&) { return DdminOutcome::kPass; });
  const SearchResult r = search_guided(labels(8), real, model);
  ASSERT_EQ(r.culprits.size(), 1u);
  EXPECT_EQ(r.culprits[0], Subset{3});
  EXPECT_EQ(r.model_gaps.size(), 1u);
}

}  // namespace
}  // namespace servescope
