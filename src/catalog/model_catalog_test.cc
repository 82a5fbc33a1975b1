#include "catalog/model_catalog.h"

#include <gtest/gtest.h>

#include <string>

namespace servescope {
namespace {

// The bundled configs named when a model is not bundled, in the order given.
std::string suggestions(const std::string& model) {
  auto m = load_model(model);
  EXPECT_FALSE(m) << model;
  const std::string message = m ? std::string() : m.message();
  const std::size_t at = message.find("closest bundled: ");
  return at == std::string::npos ? message : message.substr(at + 17);
}

// Models of unseen logs (vLLM issues): the same family and the most words in common come
// first; plain edit distance put Qwen2-7B first for a Qwen3-235B variant and no Llama for
// Llama 2.
TEST(ModelCatalog, AModelNotBundledNamesItsNearestRelativesFirst) {
  EXPECT_EQ(
      suggestions("Qwen/Qwen3-235B-A22B-Instruct-2507-FP8").rfind("Qwen/Qwen3-235B-A22B-FP8, ", 0),
      0u);
  EXPECT_EQ(suggestions("neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w8a8")
                .rfind("meta-llama/Llama-3.1-70B-Instruct, ", 0),
            0u);
  EXPECT_EQ(suggestions("meta-llama/Llama-2-7b-chat-hf").rfind("meta-llama/Llama-3.1-", 0), 0u);
  EXPECT_EQ(suggestions("mistralai/Mistral-7B-Instruct-v0.1")
                .rfind("mistralai/Mistral-7B-Instruct-v0.3, ", 0),
            0u);
}

}  // namespace
}  // namespace servescope
