// The list a release's plans warn with until a person writes its change points.
#include "engines/unmodelled_changes.h"

#include <gtest/gtest.h>

namespace servescope {
namespace {

TEST(UnmodelledChanges, ARowPerChangeNamedForItsReleaseAndItsBuilds) {
  const std::vector<std::vector<std::string>> rows = {
      {"release", "change", "source"},
      {"0.35.0", "vllm.kv.num_blocks: 12 of 1969 oracle cases differ", "tests/oracle/x.jsonl"},
      {"0.35.0", "v1/worker/gpu_worker.py changed", "engine_diff.py"},
      {"0.36.0", "other", ""}};
  EXPECT_EQ(unmodelled_changes_in(rows, "0.35.0"),
            "; its own changes found in its wheel and not modelled: vllm.kv.num_blocks: 12 of "
            "1969 oracle cases differ; v1/worker/gpu_worker.py changed");
  EXPECT_EQ(unmodelled_changes_in(rows, "0.35.0.post1"), unmodelled_changes_in(rows, "0.35.0"));
  EXPECT_EQ(unmodelled_changes_in(rows, "0.34.0"), "");
}

TEST(UnmodelledChanges, TheCommittedTablesListNothingForTheModelledReleases) {
  EXPECT_EQ(unmodelled_changes_of("vllm", "0.34.0"), "");
  EXPECT_EQ(unmodelled_changes_of("sglang", "0.5.23"), "");
}

}  // namespace
}  // namespace servescope
