#include "core/ddmin.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace servescope {
namespace {

bool contains_all(const std::vector<std::size_t>& subset,
                  std::initializer_list<std::size_t> needed) {
  return std::all_of(needed.begin(), needed.end(), [&](std::size_t x) {
    return std::find(subset.begin(), subset.end(), x) != subset.end();
  });
}

TEST(Ddmin, FindsOneCulpritAmongSixteenInFewTests) {
  auto r = ddmin(16, [](const std::vector<std::size_t>& s) {
    return contains_all(s, {11}) ? DdminOutcome::kFail : DdminOutcome::kPass;
  });
  EXPECT_TRUE(r.reproduced);
  EXPECT_EQ(r.culprits, (std::vector<std::size_t>{11}));
  EXPECT_LE(r.tests, 12u);  // log2(16) halvings plus the full set
}

TEST(Ddmin, FindsAnInteractionThatNeedsBoth) {
  auto r = ddmin(8, [](const std::vector<std::size_t>& s) {
    return contains_all(s, {2, 6}) ? DdminOutcome::kFail : DdminOutcome::kPass;
  });
  EXPECT_EQ(r.culprits, (std::vector<std::size_t>{2, 6}));
}

TEST(Ddmin, UnresolvedSubsetsAreNeitherKeptNorBlamed) {
  // Subsets containing 3 without 5 cannot be tested (e.g. the server fails to start).
  auto r = ddmin(8, [](const std::vector<std::size_t>& s) {
    const bool has3 = contains_all(s, {3}), has5 = contains_all(s, {5});
    if (has3 && !has5)
      return DdminOutcome::kUnresolved;
    return has5 ? DdminOutcome::kFail : DdminOutcome::kPass;
  });
  EXPECT_EQ(r.culprits, (std::vector<std::size_t>{5}));
}

TEST(Ddmin, NothingWhenTheFullSetPasses) {
  auto r = ddmin(4, [](const std::vector<std::size_t>&) { return DdminOutcome::kPass; });
  EXPECT_FALSE(r.reproduced);
  EXPECT_TRUE(r.culprits.empty());
  EXPECT_EQ(r.tests, 1u);
}

}  // namespace
}  // namespace servescope
