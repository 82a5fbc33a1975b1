#include "engines/rules_currency.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "engines/engine.h"
#include "engines/release_flags.h"

namespace servescope::testing {
namespace {

// The release data/rules-currency.tsv names for each engine is one the repository holds the
// engine's own word on: its flag table, its cut in releases.csv and its oracle cases. Moving the
// row forward without them fails here, not in a user's plan.
TEST(RulesCurrency, EachEnginesNewestModelledReleaseHasItsFlagsCutAndOracle) {
  for (const char* engine : {"sglang", "vllm"}) {
    const RulesCurrency& c = rules_currency(engine);
    EXPECT_FALSE(c.main_date.empty()) << engine;
    EXPECT_EQ(ReleaseFlagTables::of(engine).release(c.release).value_or(""), c.release)
        << engine << " " << c.release << " has no flag table";
    const auto oracle = std::filesystem::path(SERVESCOPE_SOURCE_DIR) / "tests" / "oracle" /
                        (std::string(engine) + "-" + c.release + ".jsonl");
    EXPECT_TRUE(std::filesystem::exists(oracle)) << oracle << " is missing";
  }
}

// A main-branch date after the newest modelled release's cut is planned with that cut's rules
// and says which date (both from the data, not from a constant).
TEST(RulesCurrency, ALaterDateIsPlannedWithTheNewestRulesAndSaysWhich) {
  auto sglang = find_engine("sglang");
  ASSERT_TRUE(sglang) << sglang.message();
  auto v = (*sglang)->resolve_version("2099-01-01");
  ASSERT_TRUE(v) << v.message();
  EXPECT_EQ(v->main_date, rules_currency("sglang").main_date);
  EXPECT_NE(v->basis.find(rules_currency("sglang").main_date), std::string::npos) << v->basis;
}

}  // namespace
}  // namespace servescope::testing
