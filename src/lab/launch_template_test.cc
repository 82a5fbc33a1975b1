#include "lab/launch_template.h"

#include <gtest/gtest.h>

namespace servescope {
namespace {

TEST(LaunchTemplateTest, FlagsExpandToOneWordPerFlagWord) {
  auto t = LaunchTemplate::parse("server --model m {flags} --port {port} --log {run_dir}/x", false);
  ASSERT_TRUE(t) << t.message();
  const auto argv = t->expand({{"--tp", "4", "--disable-radix-cache"}, 31000, "/r", "0,1"});
  EXPECT_EQ(argv, (std::vector<std::string>{"server", "--model", "m", "--tp", "4",
                                            "--disable-radix-cache", "--port", "31000", "--log",
                                            "/r/x"}));
}

TEST(LaunchTemplateTest, BadTemplatesAreRejectedWithTheFix) {
  auto none = LaunchTemplate::parse("server --port {port}", false);
  ASSERT_FALSE(none);
  EXPECT_NE(none.message().find("has no {flags}"), std::string::npos);
  auto glued = LaunchTemplate::parse("server --args={flags}", false);
  ASSERT_FALSE(glued);
  EXPECT_NE(glued.message().find("word of its own"), std::string::npos);
  auto unknown = LaunchTemplate::parse("server {flags} --port {prot}", false);
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.message().find("{prot}"), std::string::npos);
  EXPECT_FALSE(LaunchTemplate::parse("   ", false));
  // JSON in an argument is not a placeholder.
  EXPECT_TRUE(LaunchTemplate::parse(R"(server {flags} --override '{"a": 1}')", false));
}

TEST(LaunchTemplateTest, ShellModeQuotesTheFlags) {
  auto t = LaunchTemplate::parse("CUDA_VISIBLE_DEVICES={gpus} server {flags} --port {port}", true);
  ASSERT_TRUE(t) << t.message();
  const auto argv = t->expand({{"--name", "a b", "--x"}, 8000, "/r", "2,3"});
  ASSERT_EQ(argv.size(), 3u);
  EXPECT_EQ(argv[0], "/bin/sh");
  EXPECT_EQ(argv[2], "CUDA_VISIBLE_DEVICES=2,3 server --name 'a b' --x --port 8000");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
}

}  // namespace
}  // namespace servescope
