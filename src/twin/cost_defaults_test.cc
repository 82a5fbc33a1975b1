// The cost defaults: found per engine and GPU family, the engine's row for a family without its
// own, the hand-set factors for the host CPU, each saying where it comes from.
#include "twin/cost_defaults.h"

#include <gtest/gtest.h>

namespace servescope {
namespace {

const GpuSpec& gpu(std::string_view key) {
  return *GpuCatalog::builtin().find(key)->spec;
}

TEST(CostDefaults, TheFamilyIsTheArchitectureWithoutItsDie) {
  EXPECT_EQ(gpu_family(gpu("h100-sxm")), "Hopper");
  EXPECT_EQ(gpu_family(gpu("rtx-4090")), "Ada Lovelace");  // "Ada Lovelace (AD102)"
  EXPECT_EQ(gpu_family(gpu("mi300x")), "CDNA 3");
  GpuSpec cpu;
  cpu.is_cpu = true;
  EXPECT_EQ(gpu_family(cpu), "cpu");
}

TEST(CostDefaults, AFittedFamilyHasItsOwnRowAndStatesItsError) {
  const CostDefaults d = cost_defaults("vllm", gpu("h100-sxm"));
  ASSERT_TRUE(d.fitted);
  EXPECT_EQ(d.family, "Hopper");
  EXPECT_GE(d.points, 12);
  EXPECT_GE(d.tpot_error, 0);
  EXPECT_NE(d.describe().find("on Hopper GPUs"), std::string::npos) << d.describe();
  // The factors differ from the hand-set ones: they were fitted.
  EXPECT_NE(d.efficiency.describe(), Efficiency{}.describe());
}

TEST(CostDefaults, AFamilyWithTooFewResultsTakesTheEnginesFitOverEveryFamily) {
  const CostDefaults d = cost_defaults("sglang", gpu("t4"));  // Turing: nothing published here
  ASSERT_TRUE(d.fitted);
  EXPECT_EQ(d.family, "*");
  EXPECT_NE(d.describe().find("every family"), std::string::npos) << d.describe();
}

TEST(CostDefaults, TheHostCpuAndAnUnknownEngineKeepTheHandSetFactors) {
  GpuSpec cpu;
  cpu.is_cpu = true;
  for (const CostDefaults& d :
       {cost_defaults("vllm", cpu), cost_defaults("other", gpu("h100-sxm"))}) {
    EXPECT_FALSE(d.fitted);
    EXPECT_EQ(d.efficiency.describe(), Efficiency{}.describe());
    EXPECT_NE(d.describe().find("no accuracy claimed"), std::string::npos);
  }
}

}  // namespace
}  // namespace servescope
