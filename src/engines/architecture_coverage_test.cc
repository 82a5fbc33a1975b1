#include "engines/architecture_coverage.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace servescope {
namespace {

const ArchitectureCoverage* find(const std::vector<ArchitectureCoverage>& rows,
                                 std::string_view arch) {
  auto it = std::find_if(rows.begin(), rows.end(), [&](const ArchitectureCoverage& c) {
    return c.registered.architecture == arch;
  });
  return it == rows.end() ? nullptr : &*it;
}

TEST(ArchitectureRegistry, ListsWhatTheReleaseRegistered) {
  auto r = architecture_registry("vllm", "0.34.0");
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ(r->release, "0.34.0");
  const RegisteredArchitecture* llama = r->find("LlamaForCausalLM");
  ASSERT_NE(llama, nullptr);
  EXPECT_EQ(llama->kind, "text");
  EXPECT_EQ(llama->module, "llama");
  ASSERT_NE(r->find("Qwen2_5_VLForConditionalGeneration"), nullptr);
  EXPECT_EQ(r->find("Qwen2_5_VLForConditionalGeneration")->kind, "multimodal");
  EXPECT_EQ(r->find("LlamaForCausalLMEagle3")->kind, "speculative");
}

TEST(ArchitectureRegistry, SglangsDraftersPoolingHeadsAndGenericBackendsAreNotTextModels) {
  // SGLang lists them beside its generation models; they are sorted as vLLM sorts the same names
  // (tools/engine-sync/registry.py sglang_name_kind), so coverage counts architectures alone.
  auto r = architecture_registry("sglang", "0.5.23");
  ASSERT_TRUE(r) << r.message();
  const auto kind = [&](const char* arch) {
    const RegisteredArchitecture* a = r->find(arch);
    return a == nullptr ? std::string("unlisted") : a->kind;
  };
  EXPECT_EQ(kind("DFlashDraftModel"), "speculative");
  EXPECT_EQ(kind("Qwen3DSparkModel"), "speculative");
  EXPECT_EQ(kind("Gemma4AssistantForCausalLM"), "speculative");
  EXPECT_EQ(kind("NanbeigeForSequenceClassification"), "pooling");
  EXPECT_EQ(kind("EmbeddingGemmaModel"), "pooling");
  EXPECT_EQ(kind("TransformersForCausalLM"), "backend");
  EXPECT_EQ(kind("TorchNativeLlamaForCausalLM"), "backend");
  EXPECT_EQ(kind("NanbeigeForCausalLM"), "text");
  EXPECT_EQ(kind("Gemma4ForCausalLM"), "text");
}

TEST(ArchitectureRegistry, AnOlderReleaseListsOnlyWhatItHad) {
  // Qwen3-Next entered vLLM's registry in 0.10.2 (data/vllm/architectures.tsv).
  auto before = architecture_registry("vllm", "0.10.1.1");
  auto after = architecture_registry("vllm", "0.10.2");
  ASSERT_TRUE(before && after);
  EXPECT_EQ(before->find("Qwen3NextForCausalLM"), nullptr);
  EXPECT_NE(after->find("Qwen3NextForCausalLM"), nullptr);
  // A release between two that were read takes the one at or before it.
  auto between = architecture_registry("vllm", "0.10.1.5");
  ASSERT_TRUE(between);
  EXPECT_EQ(between->release, "0.10.1.1");
}

TEST(ArchitectureRegistry, DefaultIsTheNewestReleaseRead) {
  auto r = architecture_registry("sglang", "");
  ASSERT_TRUE(r) << r.message();
  EXPECT_FALSE(r->release.empty());
  EXPECT_NE(r->find("Qwen3ForCausalLM"), nullptr);
}

TEST(ArchitectureRegistry, RefusesAReleaseOlderThanTheTableAndAnUnknownEngine) {
  auto old = architecture_registry("vllm", "0.5.0");
  ASSERT_FALSE(old);
  EXPECT_NE(old.message().find("registry.py vllm --from 0.5.0"), std::string::npos)
      << old.message();
  auto dated = architecture_registry("vllm", "2026-05-27");
  ASSERT_FALSE(dated);
  EXPECT_NE(dated.message().find("not a main-branch date"), std::string::npos) << dated.message();
  auto unknown = architecture_registry("tgi", "");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.message().find("'tgi'"), std::string::npos);
}

TEST(ArchitectureCoverage, ModelledByTheReaderTheConfigGoesThrough) {
  auto r = architecture_registry("vllm", "0.34.0");
  ASSERT_TRUE(r);
  const auto rows = architecture_coverage(*r);
  const ArchitectureCoverage* llama = find(rows, "LlamaForCausalLM");
  ASSERT_NE(llama, nullptr);
  EXPECT_EQ(llama->status, CoverageStatus::kModelled);
  EXPECT_EQ(llama->family, "dense");
  EXPECT_EQ(llama->model_type, "llama");
  // Pooling and speculative architectures are not part of the coverage.
  EXPECT_EQ(find(rows, "LlamaForCausalLMEagle3"), nullptr);
  // A text architecture with a transformers model_type but no reader says which.
  const ArchitectureCoverage* rwkv = nullptr;
  for (const auto& c : rows) {
    if (c.status == CoverageStatus::kNotModelled && !c.model_type.empty()) {
      rwkv = &c;
      break;
    }
  }
  ASSERT_NE(rwkv, nullptr);
  EXPECT_NE(rwkv->reason.find("model_type '" + rwkv->model_type + "'"), std::string::npos)
      << rwkv->reason;
}

TEST(ArchitectureCoverage, AttentionFreeModelsArePlannedOnVllmAndRefusedOnSglang) {
  auto v = architecture_registry("vllm", "0.34.0");
  auto s = architecture_registry("sglang", "0.5.23");
  ASSERT_TRUE(v && s);
  const auto vrows = architecture_coverage(*v);
  const auto srows = architecture_coverage(*s);
  for (const char* arch : {"MambaForCausalLM", "Mamba2ForCausalLM", "FalconMambaForCausalLM"}) {
    SCOPED_TRACE(arch);
    const ArchitectureCoverage* on_vllm = find(vrows, arch);
    const ArchitectureCoverage* on_sglang = find(srows, arch);
    ASSERT_NE(on_vllm, nullptr);
    ASSERT_NE(on_sglang, nullptr);
    EXPECT_EQ(on_vllm->status, CoverageStatus::kModelled);
    EXPECT_EQ(on_sglang->status, CoverageStatus::kNotModelled);
    EXPECT_NE(on_sglang->reason.find("attention-free"), std::string::npos) << on_sglang->reason;
  }
  // DeepSeek Sparse Attention: planned on vLLM, its indexer checked against vLLM's code.
  EXPECT_EQ(find(vrows, "DeepseekV32ForCausalLM")->status, CoverageStatus::kModelled);
  EXPECT_EQ(find(vrows, "GlmMoeDsaForCausalLM")->status, CoverageStatus::kModelled);
}

TEST(UnregisteredArchitecture, SaidAsTheEngineSaysItWithTheReleasesThatListIt) {
  // Qwen3.5's MoE entered vLLM's registry in 0.17.0 (data/vllm/architectures.tsv).
  const std::string before =
      unregistered_architecture("vllm", "0.15.0", "Qwen3_5MoeForConditionalGeneration");
  EXPECT_NE(before.find("Model architectures ['Qwen3_5MoeForConditionalGeneration'] are not "
                        "supported for now"),
            std::string::npos)
      << before;
  EXPECT_NE(before.find("vllm 0.17.0 … "), std::string::npos) << before;
  EXPECT_EQ(unregistered_architecture("vllm", "0.17.0", "Qwen3_5MoeForConditionalGeneration"), "");
  // Never listed: no release range to name.
  const std::string never = unregistered_architecture("sglang", "0.5.23", "NoSuchForCausalLM");
  EXPECT_NE(never.find("sglang 0.5.23's model registry does not list it;"), std::string::npos)
      << never;
  // A main-branch date or a release that was not read is not judged.
  EXPECT_EQ(unregistered_architecture("vllm", "", "NoSuchForCausalLM"), "");
  EXPECT_EQ(unregistered_architecture("vllm", "0.99.0", "NoSuchForCausalLM"), "");
}

}  // namespace
}  // namespace servescope
