#include "load/api.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engines/engine.h"
#include "engines/twin_profile.h"
#include "load/dataset.h"

namespace servescope {
namespace {

const std::vector<std::int32_t> kIds = {100, 101, 499, 250, 100};

// (The twin's count of an id list, the other half of the contract, is in
// twin/api_request_test.cc and tests/load/bench_twin_e2e_test.cc.)
TEST(RequestBody, CompletionsSendTokenIdsAsTheirPrompt) {
  auto api = resolve_api("openai-completions");
  ASSERT_TRUE(api.ok());
  BodyOptions o;
  o.model = "tiny";
  auto body = request_body(*api, kIds, 32, o);
  ASSERT_TRUE(body.ok()) << body.message();
  const auto j = nlohmann::json::parse(*body);
  EXPECT_EQ(j["prompt"], nlohmann::json(kIds));
  EXPECT_EQ(j["max_tokens"], 32);
  EXPECT_EQ(j["model"], "tiny");
  EXPECT_TRUE(j["ignore_eos"].get<bool>());
  EXPECT_TRUE(j["stream_options"]["continuous_usage_stats"].get<bool>());
  // The text form is unchanged: a JSON string.
  auto text = nlohmann::json::parse(request_body(*api, "hi there", 32, o));
  EXPECT_EQ(text["prompt"], "hi there");
}

TEST(RequestBody, NativeApiGetsInputIdsInPlaceOfText) {
  auto api = resolve_api("sglang-generate");
  ASSERT_TRUE(api.ok()) << api.message();
  auto body = request_body(*api, kIds, 7, BodyOptions{});
  ASSERT_TRUE(body.ok()) << body.message();
  const auto j = nlohmann::json::parse(*body);
  EXPECT_FALSE(j.contains("text")) << *body;
  EXPECT_EQ(j["input_ids"], nlohmann::json(kIds));
  EXPECT_EQ(j["sampling_params"]["max_new_tokens"], 7);
  auto engine = find_engine("sglang");
  ASSERT_TRUE(engine.ok());
  const TwinProfile* twin = (*engine)->twin_profile();
  ASSERT_NE(twin, nullptr);
  auto native = twin->parse_native_generate(*body);
  ASSERT_TRUE(native.ok()) << native.message();
  ASSERT_TRUE(native->input_ids.has_value());
  EXPECT_EQ(*native->input_ids, 5);
}

TEST(RequestBody, ChatCannotCarryTokenIds) {
  auto api = resolve_api("openai-chat");
  ASSERT_TRUE(api.ok());
  auto body = request_body(*api, kIds, 7, BodyOptions{});
  ASSERT_FALSE(body.ok());
  EXPECT_NE(body.message().find("cannot carry token ids"), std::string::npos) << body.message();
  auto completions = resolve_api("openai-completions");
  EXPECT_FALSE(request_body(*completions, std::vector<std::int32_t>{}, 7, BodyOptions{}).ok());
}

}  // namespace
}  // namespace servescope
