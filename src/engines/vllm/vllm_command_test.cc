// The vLLM command parser: programs, FlexibleArgumentParser's spellings, arity, abbreviations,
// JSON-valued flags and one-line errors naming the flag.
#include "engines/vllm/vllm_command.h"

#include <gtest/gtest.h>

#include "core/text.h"

namespace servescope::vllm {
namespace {

ParsedVllmCommand parse(const std::string& line) {
  auto words = split_command_line(line);
  EXPECT_TRUE(words.has_value());
  auto parsed = parse_vllm_command(*words);
  EXPECT_TRUE(parsed.ok()) << (parsed ? "" : parsed.message());
  return parsed ? *parsed : ParsedVllmCommand{};
}

std::string error_of(const std::string& line) {
  auto parsed = parse_vllm_command(*split_command_line(line));
  EXPECT_FALSE(parsed.ok()) << line;
  return parsed ? std::string() : parsed.message();
}

bool has_note(const ParsedVllmCommand& p, const std::string& code) {
  for (const ParseNote& n : p.notes) {
    if (n.code == code)
      return true;
  }
  return false;
}

TEST(VllmCommand, RecognisesTheLaunchPrograms) {
  EXPECT_TRUE(launches_vllm(*split_command_line("vllm serve Qwen/Qwen3-8B")));
  EXPECT_TRUE(launches_vllm(*split_command_line("/opt/venv/bin/vllm serve Qwen/Qwen3-8B")));
  EXPECT_TRUE(launches_vllm(
      *split_command_line("python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B")));
  EXPECT_TRUE(launches_vllm(
      *split_command_line("python -m vllm.entrypoints.cli.main serve Qwen/Qwen3-8B")));
  EXPECT_TRUE(launches_vllm(
      *split_command_line("docker run --gpus all vllm/vllm-openai:v0.19.0 --model Qwen/Qwen3-8B")));
  EXPECT_FALSE(launches_vllm(
      *split_command_line("python -m sglang.launch_server --model-path Qwen/Qwen3-8B")));
  EXPECT_FALSE(launches_vllm(*split_command_line("vllm bench serve --model x")));
}

TEST(VllmCommand, PositionalModelAndModelFlagBothNameTheModel) {
  auto a = parse("vllm serve Qwen/Qwen3-8B --port 8000");
  ASSERT_NE(a.command.find("--model"), nullptr);
  EXPECT_EQ(a.command.find("--model")->value(), "Qwen/Qwen3-8B");
  EXPECT_EQ(a.command.program, "vllm serve");
  auto b = parse("python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B");
  EXPECT_EQ(b.command.find("--model")->value(), "Qwen/Qwen3-8B");
  EXPECT_EQ(b.command.program, "python -m vllm.entrypoints.openai.api_server");
}

TEST(VllmCommand, EnvironmentWordsBeforeTheProgram) {
  auto p =
      parse("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0 CUDA_VISIBLE_DEVICES=0,1 vllm serve m");
  EXPECT_EQ(p.command.environment.at("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS"), "0");
  EXPECT_EQ(p.command.environment.at("CUDA_VISIBLE_DEVICES"), "0,1");
}

TEST(VllmCommand, AliasesUnderscoresEqualsAndAbbreviations) {
  for (const char* line :
       {"vllm serve m -tp 4", "vllm serve m --tensor-parallel-size=4",
        "vllm serve m --tensor_parallel_size 4", "vllm serve m --tensor-parallel 4"}) {
    auto p = parse(line);
    const FlagSetting* f = p.command.find("--tensor-parallel-size");
    ASSERT_NE(f, nullptr) << line;
    EXPECT_EQ(f->value(), "4") << line;
    EXPECT_TRUE(f->modelled) << line;
    EXPECT_TRUE(p.notes.empty()) << line;
  }
}

TEST(VllmCommand, AmbiguousAbbreviationIsANote) {
  auto p = parse("vllm serve m --max-num 8");
  EXPECT_TRUE(has_note(p, "ambiguous-flag"));
}

TEST(VllmCommand, OptimizationLevelSpellings) {
  for (const char* line : {"vllm serve m -O3", "vllm serve m -O 3", "vllm serve m -O=3",
                           "vllm serve m --optimization-level 3"}) {
    auto p = parse(line);
    const FlagSetting* f = p.command.find("--optimization-level");
    ASSERT_NE(f, nullptr) << line;
    EXPECT_EQ(f->value(), "3") << line;
  }
  EXPECT_NE(error_of("vllm serve m -O").find("-O"), std::string::npos);
  EXPECT_NE(error_of("vllm serve m -O7").find("-O 7: not one of"), std::string::npos);
}

TEST(VllmCommand, BooleanOptionalFlags) {
  auto p = parse("vllm serve m --no-enable-prefix-caching --enforce-eager");
  EXPECT_TRUE(p.command.find("--no-enable-prefix-caching")->modelled);
  EXPECT_TRUE(p.command.find("--enforce-eager")->values.empty());
  EXPECT_NE(error_of("vllm serve m --enforce-eager=1").find("takes no value"), std::string::npos);
}

TEST(VllmCommand, JsonFlagsAndDottedKeys) {
  auto p = parse(
      "vllm serve m --compilation-config '{\"cudagraph_mode\": \"PIECEWISE\"}' "
      "-cc.max_cudagraph_capture_size=64 --speculative-config.num_speculative_tokens 3");
  int cc = 0;
  for (const FlagSetting& f : p.command.flags)
    cc += f.name == "--compilation-config";
  EXPECT_EQ(cc, 2);  // the whole value and the dotted key are both kept
  EXPECT_EQ(p.command.flags[2].spelled, "-cc.max_cudagraph_capture_size");
  EXPECT_EQ(p.command.flags[3].name, "--speculative-config");
  const std::string e = error_of("vllm serve m --compilation-config '{bad'");
  EXPECT_NE(e.find("--compilation-config"), std::string::npos);
  EXPECT_NE(e.find("JSON"), std::string::npos);
}

TEST(VllmCommand, ListFlagsTakeEveryValue) {
  auto p =
      parse("vllm serve m --served-model-name a b --port 8000 --cudagraph-capture-sizes 1 2 4");
  EXPECT_EQ(p.command.find("--served-model-name")->values.size(), 2u);
  EXPECT_EQ(p.command.find("--port")->value(), "8000");
  EXPECT_EQ(p.command.find("--cudagraph-capture-sizes")->values.size(), 3u);
}

TEST(VllmCommand, BadValuesAreOneLineErrorsNamingTheFlag) {
  EXPECT_NE(error_of("vllm serve m -tp 0").find("-tp 0"), std::string::npos);
  EXPECT_NE(error_of("vllm serve m --gpu-memory-utilization 1.5").find("--gpu-memory-utilization"),
            std::string::npos);
  EXPECT_NE(error_of("vllm serve m --gpu-memory-utilization 0").find("> 0"), std::string::npos);
  EXPECT_NE(error_of("vllm serve m --max-model-len 32x").find("--max-model-len 32x"),
            std::string::npos);
  EXPECT_NE(error_of("vllm serve m --kv-cache-dtype fp9").find("not one of"), std::string::npos);
  EXPECT_NE(error_of("vllm serve m --max-num-seqs").find("expects a value"), std::string::npos);
  EXPECT_NE(error_of("vllm serve m other-model").find("one positional"), std::string::npos);
  EXPECT_NE(error_of("python -m sglang.launch_server --model-path m").find("does not launch vLLM"),
            std::string::npos);
  for (const std::string& e : {error_of("vllm serve m -tp 0"), error_of("vllm serve m -O")})
    EXPECT_EQ(e.find('\n'), std::string::npos);
}

TEST(VllmCommand, HumanReadableIntegers) {
  EXPECT_EQ(parse_human_readable_int("32768"), 32768);
  EXPECT_EQ(parse_human_readable_int("25.6k"), 25600);
  EXPECT_EQ(parse_human_readable_int("1K"), 1024);
  EXPECT_EQ(parse_human_readable_int("2G"), 2LL << 30);
  EXPECT_EQ(parse_human_readable_int("1.5K"), std::nullopt);  // no decimals with binary suffixes
  // Past long long: refused, not wrapped (found by vllm_command_line_fuzz).
  EXPECT_EQ(parse_human_readable_int("777777777777777777T"), std::nullopt);
  EXPECT_EQ(parse_human_readable_int("777777777777777.7t"), std::nullopt);
  EXPECT_EQ(parse_human_readable_int("8388607T"), 8388607LL << 40);
  EXPECT_EQ(parse_human_readable_int("abc"), std::nullopt);
  auto p = parse("vllm serve m --max-model-len auto --max-num-batched-tokens 16K");
  EXPECT_EQ(p.command.find("--max-model-len")->value(), "auto");
}

TEST(VllmCommand, UnknownFlagsAreKeptAndReported) {
  auto p = parse("vllm serve m --not-a-flag 3 --port 8000");
  const FlagSetting* f = p.command.find("--not-a-flag");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->value(), "3");
  EXPECT_FALSE(f->known);
  EXPECT_TRUE(has_note(p, "unknown-flag"));
  EXPECT_EQ(p.command.find("--port")->value(), "8000");
}

TEST(VllmCommand, UnmodelledKnownFlagsAreKept) {
  auto p = parse("vllm serve m --port 8001 --trust-remote-code --max-num-seqs 64");
  EXPECT_TRUE(p.command.find("--port")->known);
  EXPECT_FALSE(p.command.find("--port")->modelled);
  EXPECT_TRUE(p.command.find("--max-num-seqs")->modelled);
  EXPECT_EQ(p.command.unmodelled().size(), 2u);
}

}  // namespace
}  // namespace servescope::vllm
