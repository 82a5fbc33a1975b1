#include "lab/flag_changes.h"

#include <gtest/gtest.h>

namespace servescope {
namespace {

std::vector<TypedFlag> flags(const std::string& text) {
  auto f = parse_flags(text, "--test");
  EXPECT_TRUE(f) << f.message();
  return f ? *f : std::vector<TypedFlag>{};
}

TEST(FlagChangesTest, GroupsEachFlagWithItsValues) {
  const auto f =
      flags("--tp 4 --disable-radix-cache --cuda-graph-bs 1 2 4 --mem-fraction-static=0.8 --x -1");
  ASSERT_EQ(f.size(), 5u);
  EXPECT_EQ(f[0].text(), "--tp 4");
  EXPECT_EQ(f[1].text(), "--disable-radix-cache");
  EXPECT_EQ(f[2].text(), "--cuda-graph-bs 1 2 4");
  EXPECT_EQ(f[3].name, "--mem-fraction-static");
  EXPECT_EQ(f[4].text(), "--x -1");
}

TEST(FlagChangesTest, RejectsWordsBeforeAnyFlagAndFlagsGivenTwice) {
  auto stray = parse_flags("fp8 --kv-cache-dtype", "--bad");
  ASSERT_FALSE(stray);
  EXPECT_NE(stray.message().find("--bad"), std::string::npos);
  auto twice = parse_flags("--tp 4 --tp 8", "--good");
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.message().find("--tp is given twice"), std::string::npos);
}

TEST(FlagChangesTest, ChangesAreAdditionsChangesAndRemovals) {
  const auto good = flags("--tp 4 --enable-foo --kv-cache-dtype auto");
  const auto bad = flags("--tp 4 --kv-cache-dtype fp8_e4m3 --disable-radix-cache");
  const auto c = flag_changes(good, bad);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].label(), "--kv-cache-dtype fp8_e4m3");
  EXPECT_EQ(c[0].kind, FlagChange::Kind::kChange);
  EXPECT_EQ(c[1].label(), "--disable-radix-cache");
  EXPECT_EQ(c[2].label(), "no --enable-foo");
  EXPECT_TRUE(flag_changes(good, good).empty());
}

TEST(FlagChangesTest, ASubsetEditsTheGoodFlagsInPlace) {
  const auto good = flags("--tp 4 --enable-foo --kv-cache-dtype auto");
  const auto bad = flags("--tp 4 --kv-cache-dtype fp8_e4m3 --disable-radix-cache");
  const auto c = flag_changes(good, bad);
  auto words = apply_flag_changes(good, c, {0, 2});
  EXPECT_EQ(words, (std::vector<std::string>{"--tp", "4", "--kv-cache-dtype", "fp8_e4m3"}));
  words = apply_flag_changes(good, c, {1});
  EXPECT_EQ(words, (std::vector<std::string>{"--tp", "4", "--enable-foo", "--kv-cache-dtype",
                                             "auto", "--disable-radix-cache"}));
  EXPECT_EQ(apply_flag_changes(good, c, {}).size(), 5u);
}

}  // namespace
}  // namespace servescope
