#include "load/dataset.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "twin/token_text.h"

namespace servescope {
namespace {

TEST(Dataset, SyntheticPromptsHaveTheTargetTokenCountAndDiffer) {
  DatasetOptions o;
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
