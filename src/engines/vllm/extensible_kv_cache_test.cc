// V2.9: vLLM 0.34's extensible KV cache: when it is on, the utilization it resolves, the
// measured size from its inputs (v1/worker/extensible_kv_cache.py::measure_kv_cache_bytes) and
// the granule-rounded blocks, the cap of an explicit utilization, and the run-time fallback.
#include "engines/vllm/extensible_kv_cache.h"

#include <gtest/gtest.h>

#include "engines/vllm/vllm_args.h"
#include "engines/vllm/vllm_rules.h"
#include "tests/vllm_fixture.h"

namespace servescope::testing {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

VllmRun llama(const std::string& flags, const std::string& engine = "vllm@0.34.0") {
  VllmRun r;
  r.engine = engine;
  r.command = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 32768 " + flags;
  return r;
}

bool on(const Plan& p) {
  const Node* n = p.graph.find("extensible_kv_cache");
  return n != nullptr && n->value.as_bool();
}

TEST(ExtensibleKvCache, OnByDefaultOnCudaAndRocmWithTheWholeDevice) {
  const Plan cuda = vllm_plan(llama(""));
  EXPECT_TRUE(on(cuda));
  EXPECT_EQ(value_of(cuda, "gpu_memory_utilization"), 1.0);
  VllmRun mi300 = llama("");
  mi300.gpu = "mi300x";
  const Plan rocm = vllm_plan(mi300);
  EXPECT_TRUE(on(rocm));
  // ROCm keeps a 3 GiB margin floor (KV_CACHE_MARGIN_FLOOR_BYTES).
  EXPECT_GE(value_of(rocm, "kv_cache_margin_gib"), 3.0);
  // 0.33.0 has no such cache: its default stays 0.92 and no measurement is made.
  const Plan before = vllm_plan(llama("", "vllm@0.33.0"));
  EXPECT_EQ(before.graph.find("extensible_kv_cache"), nullptr);
  EXPECT_DOUBLE_EQ(value_of(before, "gpu_memory_utilization"), 0.92);
}

TEST(ExtensibleKvCache, OffSilentlyWhereTheSizeIsGivenOrTheConnectorCannotUseIt) {
  for (const char* flags :
       {"--kv-cache-memory-bytes 8000000000", "--num-gpu-blocks-override 1000",
        "--enable-elastic-ep --enable-expert-parallel",
        R"(--kv-transfer-config '{"kv_connector": "LMCacheMPConnector", "kv_role": "kv_both"}')",
        R"(--kv-transfer-config '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}')"}) {
    SCOPED_TRACE(flags);
    const Plan p = vllm_plan(llama(flags));
    EXPECT_FALSE(on(p));
    EXPECT_DOUBLE_EQ(value_of(p, "gpu_memory_utilization"), 0.92);
  }
  VllmRun cpu = llama("");
  cpu.gpu = "cpu";
  cpu.kv_memory = 4;
  EXPECT_FALSE(on(vllm_plan(cpu)));
  // On ROCm a connector that registers the cache with RDMA rules it out too.
  VllmRun rocm = llama(R"(--kv-transfer-config '{"kv_connector": "MooncakeConnector"}')");
  rocm.gpu = "mi300x";
  EXPECT_FALSE(on(vllm_plan(rocm)));
}

TEST(ExtensibleKvCache, TypedWhereUnsupportedFailsAsTheEngineDoes) {
  const auto p =
      try_vllm_plan(llama("--enable-extensible-kv-cache --kv-cache-memory-bytes 8000000000"));
  ASSERT_FALSE(p);
  EXPECT_NE(p.message().find("ValueError: enable_extensible_kv_cache: it sizes the KV cache from "
                             "measured memory, which kv_cache_memory_bytes overrides."),
            std::string::npos)
      << p.message();
  // Typed off is honoured and brings the 0.92 default back.
  const Plan off = vllm_plan(llama("--no-enable-extensible-kv-cache"));
  EXPECT_FALSE(on(off));
  EXPECT_DOUBLE_EQ(value_of(off, "gpu_memory_utilization"), 0.92);
}

TEST(ExtensibleKvCache, Wsl2FallsBackAtRunTimeToTheProfiledSize) {
  VllmRun wsl = llama("");
  wsl.env = {"WSL_DISTRO_NAME=Ubuntu"};
  const Plan p = vllm_plan(wsl);
  EXPECT_FALSE(on(p));
  EXPECT_DOUBLE_EQ(value_of(p, "gpu_memory_utilization"), 0.92);
  EXPECT_TRUE(has_code(p, "extensible-kv-cache-fallback"));
}

TEST(ExtensibleKvCache, TheMeasurementFollowsTheEnginesFormula) {
  // Unset utilization: the device headroom binds.
  //   F0 78.68, F1 62.60, C 0.08, P 1.89, Gr 1.60, R 79.19 (GiB)
  //   min(79.19 − (78.68 − 62.68), 62.68 − max(1, 0.75·1.89)) − max(1.89, 1.60) = 59.3725
  vllm::MeasuredKvInputs in;
  in.free_at_startup_bytes = 78.68 * kGiB;
  in.free_after_warmup_bytes = 62.60 * kGiB;
  in.committed_bytes = 0.08 * kGiB;
  in.requested_bytes = 79.19 * kGiB;
  in.transient_peak_bytes = 1.89 * kGiB;
  in.torch_growth_bytes = 1.60 * kGiB;
  in.estimated = false;
  ScenarioOptions o;
  o.engine = "vllm@0.34.0";
  o.gpu = "h100-sxm";
  o.command = {"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"};
  auto built = build_scenario(o);
  ASSERT_TRUE(built) << built.message();
  Plan plan;
  vllm::VllmArgs args(built->scenario.command, built->scenario.environment, plan.graph);
  const vllm::VllmRules rules = vllm::rules_for_date(built->scenario.version.main_date);
  vllm::PlanContext ctx{built->scenario, rules, plan, args, {}, {}};
  const vllm::MeasuredKv m = vllm::measure_kv_cache(ctx, in);
  EXPECT_NEAR(m.bytes / kGiB, 59.3725, 1e-6);
  EXPECT_FALSE(m.capped_by_utilization);
  // An explicit 0.75 caps it: R − non-KV use = 59.39 − 16.0, less the kept peak.
  ctx.args.gpu_memory_utilization = 0.75;
  ctx.args.utilization_typed = true;
  in.requested_bytes = std::ceil(79.19 * kGiB * 0.75);
  const vllm::MeasuredKv capped = vllm::measure_kv_cache(ctx, in);
  EXPECT_NEAR(capped.bytes / kGiB, 79.19 * 0.75 - 16.0 - 1.89, 1e-6);
  EXPECT_TRUE(capped.capped_by_utilization);
  EXPECT_TRUE(has_code(plan, "utilization-caps-extensible-kv"));
}

TEST(ExtensibleKvCache, BlocksRoundEachSegmentUpToTheGranule) {
  constexpr std::int64_t kGranule = 2 << 20;
  // 32 layers of 256 KiB pages: 8 blocks fill a granule, so a block count that is not a multiple
  // of 8 pays for the rest of each layer's last granule.
  const std::vector<std::int64_t> strides(32, 256 * 1024);
  const auto bytes = static_cast<std::int64_t>(59.3725 * kGiB);
  EXPECT_EQ(vllm::blocks_within(bytes, strides, 1 << 20, kGranule), 7592);
  EXPECT_EQ(vllm::segment_bytes(7592, strides, kGranule), 7592LL * 32 * 256 * 1024);
  EXPECT_GT(vllm::segment_bytes(7593, strides, kGranule), bytes);
  // The capacity reserved before warmup caps the measurement.
  EXPECT_EQ(vllm::blocks_within(bytes, strides, 5000, kGranule), 5000);
}

TEST(ExtensibleKvCache, EachPipelineStageFitsItsOwnSegmentsAndTheLeastWins) {
  // 32 layers over 3 stages are 11 + 11 + 10 (get_pp_indices): the first stages have 11 layer
  // segments to round, the last 10; finalize_extensible_kv_cache keeps the minimum.
  const Plan p = vllm_plan(llama("--pipeline-parallel-size 3"));
  ASSERT_TRUE(on(p));
  const Node* blocks = p.graph.find("num_gpu_blocks");
  ASSERT_NE(blocks, nullptr);
  EXPECT_NE(blocks->why.find("the minimum over pipeline stages"), std::string::npos) << blocks->why;
  const auto measured = static_cast<std::int64_t>(value_of(p, "measured_kv_cache_bytes"));
  const auto page = static_cast<std::int64_t>(value_of(p, "kv_page_bytes"));
  const auto capacity = static_cast<std::int64_t>(value_of(p, "num_gpu_blocks.capacity"));
  constexpr std::int64_t kGranule = 2 << 20;
  const std::int64_t first =
      vllm::blocks_within(measured, std::vector<std::int64_t>(11, page), capacity, kGranule);
  const std::int64_t last =
      vllm::blocks_within(measured, std::vector<std::int64_t>(10, page), capacity, kGranule);
  ASSERT_LT(first, last);  // the case tells the stages apart
  EXPECT_EQ(value_of(p, "num_gpu_blocks"), first);
}

TEST(ExtensibleKvCache, AnExplicitUtilizationBelowOneWarnsWhenItWithholdsAGibibyte) {
  const Plan p = vllm_plan(llama("--gpu-memory-utilization 0.9"));
  EXPECT_TRUE(on(p));
  EXPECT_TRUE(has_code(p, "utilization-caps-extensible-kv"));
  EXPECT_FALSE(has_code(vllm_plan(llama("")), "utilization-caps-extensible-kv"));
  // The measured size, not the profile's capacity, sets the blocks.
  EXPECT_LT(value_of(p, "num_gpu_blocks"), value_of(p, "num_gpu_blocks.capacity"));
}

}  // namespace
}  // namespace servescope::testing
