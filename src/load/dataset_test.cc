#include "load/dataset.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "twin/token_text.h"

namespace servescope {
namespace {

TEST(Dataset, SyntheticPromptsAreTokenIdsOfExactlyTheTargetCount) {
  DatasetOptions o;
  o.input_len = "uniform:10:50";
  o.output_len = "7";
  o.count = 20;
  auto d = load_dataset(o);
  ASSERT_TRUE(d.ok()) << d.message();
  ASSERT_EQ(d->items.size(), 20u);
  std::set<std::int64_t> lengths;
  for (const PromptItem& item : d->items) {
    EXPECT_TRUE(item.prompt.empty());
    EXPECT_EQ(static_cast<std::int64_t>(item.token_ids.size()), item.input_tokens);
    EXPECT_GE(item.input_tokens, 10);
    EXPECT_LE(item.input_tokens, 50);
    lengths.insert(item.input_tokens);
    for (std::int32_t id : item.token_ids) {
      EXPECT_GE(id, kFirstPromptId);
      EXPECT_LT(id, kEndPromptId);
    }
  }
  EXPECT_GT(lengths.size(), 1u);
  EXPECT_FALSE(d->input_estimated);
  // No shared cached prefix: the first ids of two prompts differ.
  const auto& a = d->items[0].token_ids;
  const auto& b = d->items[1].token_ids;
  EXPECT_NE(std::vector<std::int32_t>(a.begin(), a.begin() + 8),
            std::vector<std::int32_t>(b.begin(), b.begin() + 8));
  // The same seed gives the same prompts.
  auto again = load_dataset(o);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->items[3].token_ids, d->items[3].token_ids);
}

TEST(Dataset, SyntheticTokenIdsCoverTheRange) {
  Random random(7);
  const auto ids = synthetic_token_ids(4000, random);
  ASSERT_EQ(ids.size(), 4000u);
  const auto [lo, hi] = std::minmax_element(ids.begin(), ids.end());
  EXPECT_EQ(*lo, kFirstPromptId);
  EXPECT_EQ(*hi, kEndPromptId - 1);
  EXPECT_TRUE(synthetic_token_ids(0, random).empty());
}

TEST(Dataset, TextSyntheticPromptsHaveTheTargetTokenCountAndDiffer) {
  DatasetOptions o;
  o.token_ids = false;  // chat
  o.input_len = "uniform:10:50";
  o.output_len = "7";
  o.count = 20;
  auto d = load_dataset(o);
  ASSERT_TRUE(d.ok()) << d.message();
  ASSERT_EQ(d->items.size(), 20u);
  for (const PromptItem& item : d->items) {
    EXPECT_GE(item.input_tokens, 10);
    EXPECT_LE(item.input_tokens, 50);
    EXPECT_EQ(item.output_tokens, 7);
    // Four bytes a word: the twin's count (and one token a word in common tokenizers).
    EXPECT_EQ(approximate_tokens(item.prompt), item.input_tokens);
  }
  EXPECT_NE(d->items[0].prompt.substr(0, 40), d->items[1].prompt.substr(0, 40));
}

TEST(Dataset, ReadsShareGptAndPromptRows) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "servescope-dataset-test.jsonl").string();
  {
    std::ofstream out(path);
    out << R"({"conversations":[{"from":"human","value":"Hello there"},{"from":"gpt","value":"0123456789abcdef"}]})"
        << "\n\n"
        << R"({"prompt":"Write a poem","output_len":12})"
        << "\n";
  }
  DatasetOptions o;
  o.source = path;
  o.count = 3;
  auto d = load_dataset(o);
  ASSERT_TRUE(d.ok()) << d.message();
  EXPECT_EQ(d->items[0].prompt, "Hello there");
  EXPECT_EQ(d->items[0].output_tokens, 4);  // 16 bytes of reply, estimated
  EXPECT_EQ(d->items[1].prompt, "Write a poem");
  EXPECT_EQ(d->items[1].output_tokens, 12);
  EXPECT_EQ(d->items[2].prompt, "Hello there");  // rows cycle
  EXPECT_TRUE(d->output_estimated);
  o.output_len = "5";
  o.output_len_given = true;
  auto forced = load_dataset(o);
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ(forced->items[1].output_tokens, 5);
  {
    std::ofstream out(path);
    out << R"({"prompt":"ok"})"
        << "\nnot json\n";
  }
  auto bad = load_dataset(o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find(":2:"), std::string::npos) << bad.message();
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace servescope

namespace servescope {
namespace {

TEST(Dataset, SharedPrefixesStartEveryPromptInTurnAndCountInItsLength) {
  DatasetOptions o;
  o.input_len = "32";
  o.output_len = "4";
  o.count = 6;
  ASSERT_TRUE(parse_shared_prefix("2:100", o));
  auto d = load_dataset(o);
  ASSERT_TRUE(d) << d.message();
  std::set<std::vector<std::int32_t>> prefixes, rests;
  for (std::size_t i = 0; i < d->items.size(); ++i) {
    const PromptItem& item = d->items[i];
    ASSERT_EQ(item.token_ids.size(), 132u);
    EXPECT_EQ(item.input_tokens, 132);
    EXPECT_EQ(item.shared_prefix_tokens, 100);
    const std::vector<std::int32_t> head(item.token_ids.begin(), item.token_ids.begin() + 100);
    prefixes.insert(head);
    rests.insert(std::vector<std::int32_t>(item.token_ids.begin() + 100, item.token_ids.end()));
    // In turn: items 0, 2, 4 share one system prompt, 1, 3, 5 the other.
    EXPECT_TRUE(std::equal(head.begin(), head.end(), d->items[i % 2].token_ids.begin()));
  }
  EXPECT_EQ(prefixes.size(), 2u);
  EXPECT_EQ(rests.size(), 6u);  // each prompt's own part differs
  EXPECT_NE(d->description.find("2 shared system prompts of 100 tokens"), std::string::npos);
  // The prompts after the system prompt are those of the same seed without one.
  DatasetOptions plain = o;
  plain.shared_prefix_groups = 0;
  auto p = load_dataset(plain);
  ASSERT_TRUE(p);
  EXPECT_TRUE(std::equal(p->items[3].token_ids.begin(), p->items[3].token_ids.end(),
                         d->items[3].token_ids.begin() + 100));
}

TEST(Dataset, ASharedPrefixNeedsNAndLenAndSyntheticPrompts) {
  DatasetOptions o;
  for (const char* bad : {"2", "0:100", "2:0", "a:b", "2:100:3", ":5"}) {
    auto st = parse_shared_prefix(bad, o);
    ASSERT_FALSE(st) << bad;
    EXPECT_NE(st.message().find("--shared-prefix"), std::string::npos) << st.message();
  }
  ASSERT_TRUE(parse_shared_prefix("1:8", o));
  o.source = "conversations.jsonl";
  auto d = load_dataset(o);
  ASSERT_FALSE(d);
  EXPECT_NE(d.message().find("--shared-prefix applies to synthetic prompts"), std::string::npos);
}

TEST(Dataset, MultiTurnConversationsResendTheirHistory) {
  DatasetOptions o;
  o.input_len = "32";
  o.output_len = "8";
  o.count = 7;  // two conversations of three turns, and the first turn of a third
  o.turns = 3;
  ASSERT_TRUE(parse_shared_prefix("2:16", o));
  auto d = load_dataset(o);
  ASSERT_TRUE(d) << d.message();
  ASSERT_EQ(d->items.size(), 7u);
  for (std::size_t i = 0; i < 7; ++i) {
    const PromptItem& item = d->items[i];
    EXPECT_EQ(item.turn, static_cast<std::int32_t>(i % 3)) << i;
    // 16 system + 32 own; each later turn adds an 8-token answer and 32 own tokens.
    EXPECT_EQ(item.input_tokens, 48 + (i % 3) * 40) << i;
    EXPECT_EQ(static_cast<std::int64_t>(item.token_ids.size()), item.input_tokens) << i;
    if (item.turn > 0) {  // the turn before is this prompt's beginning
      const auto& before = d->items[i - 1].token_ids;
      EXPECT_TRUE(std::equal(before.begin(), before.end(), item.token_ids.begin())) << i;
    }
  }
  // A conversation keeps its system prompt; the next conversation takes the other one.
  const auto head = [&](std::size_t i) {
    return std::vector<std::int32_t>(d->items[i].token_ids.begin(),
                                     d->items[i].token_ids.begin() + 16);
  };
  EXPECT_EQ(head(0), head(2));
  EXPECT_NE(head(0), head(3));
  EXPECT_EQ(head(0), head(6));
  EXPECT_NE(d->description.find("conversations of 3 turns"), std::string::npos) << d->description;
  // Two conversations differ past the system prompt.
  EXPECT_FALSE(std::equal(d->items[1].token_ids.begin() + 16, d->items[1].token_ids.end(),
                          d->items[4].token_ids.begin() + 16));
}

TEST(Dataset, MultiTurnTextConversationsGrowByTheirHistory) {
  DatasetOptions o;
  o.input_len = "10";
  o.output_len = "5";
  o.count = 2;
  o.turns = 2;
  o.token_ids = false;
  auto d = load_dataset(o);
  ASSERT_TRUE(d) << d.message();
  EXPECT_EQ(d->items[1].input_tokens, 25);
  EXPECT_EQ(d->items[1].prompt.rfind(d->items[0].prompt, 0), 0u);  // starts with turn 1's text
  o.source = "conversations.jsonl";
  auto refused = load_dataset(o);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.message().find("--multi-turn applies to synthetic prompts"), std::string::npos);
}

}  // namespace
}  // namespace servescope
