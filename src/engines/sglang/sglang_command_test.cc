#include "engines/sglang/sglang_command.h"

#include <gtest/gtest.h>

#include "core/text.h"

namespace servescope::sglang {
namespace {

Result<ParsedSglangCommand> parse(const std::string& line) {
  return parse_sglang_command(*split_command_line(line));
}

TEST(SglangCommand, ReadsTheUsualLaunchForms) {
  for (const char* line :
       {"python -m sglang.launch_server --model-path M --tp 4",
        "python3.12 -m sglang.launch_server --model-path M --tp 4",
        "sglang serve --model-path M --tp 4",
        "CUDA_VISIBLE_DEVICES=0,1,2,3 python3 -m sglang.launch_server --model-path M --tp 4"}) {
    auto p = parse(line);
    ASSERT_TRUE(p) << line << ": " << p.message();
    const FlagSetting* tp = p->command.find("--tp-size");
    ASSERT_NE(tp, nullptr) << line;
    EXPECT_EQ(tp->value(), "4");
    EXPECT_EQ(tp->spelled, "--tp");
  }
  auto env = parse("CUDA_VISIBLE_DEVICES=0,1 python -m sglang.launch_server --model-path M");
  EXPECT_EQ(env->command.environment.at("CUDA_VISIBLE_DEVICES"), "0,1");
}

TEST(SglangCommand, EqualsFormAliasesAndStoreTrue) {
  auto p = parse(
      "python -m sglang.launch_server --model=M --tensor-parallel-size=2 --disable-radix-cache "
      "--trust-remote-code");
  ASSERT_TRUE(p) << p.message();
  EXPECT_EQ(p->command.find("--model-path")->value(), "M");
  EXPECT_EQ(p->command.find("--tp-size")->value(), "2");
  EXPECT_TRUE(p->command.find("--disable-radix-cache")->values.empty());
  const FlagSetting* trc = p->command.find("--trust-remote-code");
  ASSERT_NE(trc, nullptr);
  EXPECT_TRUE(trc->known);
  EXPECT_FALSE(trc->modelled);
}

TEST(SglangCommand, ArgparsePrefixAbbreviations) {
  auto p = parse("python -m sglang.launch_server --model-path M --max-running-request 256");
  ASSERT_TRUE(p) << p.message();
  EXPECT_EQ(p->command.find("--max-running-requests")->value(), "256");
}

TEST(SglangCommand, AmbiguousAbbreviationIsANote) {
  auto p = parse("python -m sglang.launch_server --model-path M --pp 2");
  ASSERT_TRUE(p) << p.message();
  ASSERT_EQ(p->notes.size(), 1u);
  EXPECT_EQ(p->notes[0].code, "ambiguous-flag");
  EXPECT_EQ(p->command.find("--pp-size")->value(), "2");
}

TEST(SglangCommand, UnknownFlagsAreKeptNotDropped) {
  auto p = parse("python -m sglang.launch_server --model-path M --frobnicate 3 --tp 2");
  ASSERT_TRUE(p) << p.message();
  const FlagSetting* f = p->command.find("--frobnicate");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->value(), "3");
  EXPECT_FALSE(f->known);
  EXPECT_EQ(p->notes.at(0).code, "unknown-flag");
  EXPECT_EQ(p->command.find("--tp-size")->value(), "2");
}

TEST(SglangCommand, OldFlagsParseAndAreNoted) {
  auto p =
      parse("python -m sglang.launch_server --model-path M --enable-piecewise-cuda-graph --tp 2");
  ASSERT_TRUE(p) << p.message();
  EXPECT_EQ(p->notes.at(0).code, "flag-not-in-version");
  EXPECT_EQ(p->command.find("--tp-size")->value(), "2");
}

TEST(SglangCommand, DeprecatedFlagsMapToTheirReplacement) {
  auto p = parse(
      "python -m sglang.launch_server --model-path M --disable-piecewise-cuda-graph "
      "--cuda-graph-max-bs 64");
  ASSERT_TRUE(p) << p.message();
  EXPECT_TRUE(p->command.find("--disable-piecewise-cuda-graph")->modelled);
  EXPECT_TRUE(p->command.find("--cuda-graph-max-bs")->modelled);
}

TEST(SglangCommand, NegativeNumbersAreValues) {
  auto p = parse("python -m sglang.launch_server --model-path M --chunked-prefill-size -1");
  ASSERT_TRUE(p) << p.message();
  EXPECT_EQ(p->command.find("--chunked-prefill-size")->value(), "-1");
}

TEST(SglangCommand, BadValuesNameTheFlag) {
  struct Case {
    const char* args;
    const char* expected;
  };
  for (const Case& c :
       {Case{"--tp 0", "--tp 0: must be ≥ 1"}, Case{"--tp abc", "--tp abc: not an integer"},
        Case{"--mem-fraction-static 1.7", "--mem-fraction-static 1.7: must be"},
        Case{"--kv-cache-dtype fp9", "--kv-cache-dtype fp9: not one of"},
        Case{"--tp", "--tp: expects a value"},
        Case{"--disable-radix-cache=yes", "takes no value"}}) {
    auto p = parse(std::string("python -m sglang.launch_server --model-path M ") + c.args);
    ASSERT_FALSE(p) << c.args;
    EXPECT_NE(p.message().find(c.expected), std::string::npos) << p.message();
    EXPECT_EQ(p.message().find('\n'), std::string::npos);
  }
}

TEST(SglangCommand, EmptyOrForeignCommandsAreErrors) {
  EXPECT_FALSE(parse_sglang_command({}));
  EXPECT_FALSE(parse("vllm serve M"));
}

TEST(SglangCommand, CounterfactualEditsKeepTheCommandReadable) {
  auto p = parse("python -m sglang.launch_server --model-path M --tp 4 --disable-radix-cache");
  ASSERT_TRUE(p);
  LaunchCommand without = p->command.without_flag("--disable-radix-cache");
  EXPECT_EQ(without.to_string(), "python -m sglang.launch_server --model-path M --tp 4");
  FlagSetting tp8 = *p->command.find("--tp-size");
  tp8.values = {"8"};
  EXPECT_EQ(p->command.with_flag(tp8).find("--tp-size")->value(), "8");
}

}  // namespace
}  // namespace servescope::sglang
