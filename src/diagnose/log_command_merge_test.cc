// check with what the user knows: the launch command beside a log (-- CMD, --from FILE, a file
// with the log's stem), --tp, and --model alone. The logs are the lines SGLang printed in its
// quick-start (the corpus' sglang-docs_sglang_ai-quickstart-send_request.log), with and
// without their server_args dump.
#include "diagnose/log_command_merge.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "diagnose/check.h"
#include "evidence/log_reader.h"

namespace servescope {
namespace {

namespace fs = std::filesystem;

constexpr char kModel[] = "meta-llama/Meta-Llama-3.1-8B-Instruct";

// The quick-start's startup lines without any settings: no dump, no launch command.
constexpr char kBareLog[] =
    "[2025-01-23 19:35:14 TP0] Init torch distributed begin.\n"
    "[2025-01-23 19:35:15 TP0] Load weight begin. avail mem=78.81 GB\n"
    "[2025-01-23 19:35:20 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, "
    "avail mem=63.72 GB\n"
    "[2025-01-23 19:35:20 TP0] KV Cache is allocated. K size: 27.13 GB, V size: 27.13 GB.\n"
    "[2025-01-23 19:35:20 TP0] Memory pool end. avail mem=8.34 GB\n"
    "[2025-01-23 19:35:27 TP0] max_total_num_tokens=444500, max_prefill_tokens=16384, "
    "max_running_requests=2049, context_len=131072\n";

// The same run's dump (the settings that matter here, as SGLang prints them).
std::string log_with_dump() {
  return std::string(
             "[2025-01-23 19:34:55] server_args=ServerArgs(model_path='meta-llama/"
             "Meta-Llama-3.1-8B-Instruct', tokenizer_path='meta-llama/Meta-Llama-3.1-8B-Instruct', "
             "dtype='auto', kv_cache_dtype='auto', quantization=None, context_length=None, "
             "device='cuda', host='0.0.0.0', port=30000, mem_fraction_static=0.88, "
             "max_running_requests=None, max_total_tokens=None, chunked_prefill_size=8192, "
             "max_prefill_tokens=16384, schedule_policy='lpm', schedule_conservativeness=1.0, "
             "tp_size=1, dp_size=1, attention_backend='flashinfer', disable_radix_cache=False, "
             "disable_cuda_graph=False, enable_dp_attention=False, enable_torch_compile=False, "
             "torch_compile_max_bs=32, cuda_graph_max_bs=160, cuda_graph_bs=None)\n") +
         kBareLog;
}

class TempDir {
 public:
  TempDir() {
    path_ =
        fs::temp_directory_path() /
        ("servescope-merge-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name) << text;
    return (path_ / name).string();
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

Result<CheckResult> check_text(const std::string& text, const CheckOptions& o) {
  auto facts = read_log_text(text, "test.log");
  if (!facts)
    return facts.error();
  return check_log(*facts, o);
}

void expect_all_compared_match(const CheckResult& r) {
  EXPECT_GE(r.matched(), 3u);
  EXPECT_EQ(r.mismatched(), 0u);
}

TEST(CheckWithCommand, ALogWithoutSettingsIsRefusedWithTheFix) {
  auto r = check_text(kBareLog, {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.message().find("lacks the server_args dump or the launch command"),
            std::string::npos);
  EXPECT_NE(r.message().find("--from FILE"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("--model ID"), std::string::npos) << r.message();
}

TEST(CheckWithCommand, TheCommandAfterTheSeparatorStandsForTheMissingDump) {
  CheckOptions o;
  o.command = {"python",       "-m",   "sglang.launch_server",
               "--model-path", kModel, "--mem-fraction-static",
               "0.88"};
  auto r = check_text(kBareLog, o);
  ASSERT_TRUE(r) << r.message();
  EXPECT_TRUE(r->command_given);
  EXPECT_EQ(r->command_origin, "the command after --");
  EXPECT_TRUE(r->contradictions.empty());
  expect_all_compared_match(*r);
  // The typed fraction reached the plan: with another one the pool would be another size.
  o.command.back() = "0.80";
  auto other = check_text(kBareLog, o);
  ASSERT_TRUE(other) << other.message();
  EXPECT_GT(other->mismatched(), 0u);
}

TEST(CheckWithCommand, EverySourceTheIntakeReadsIsACommandFile) {
  TempDir dir;
  const std::string cmd = std::string("python -m sglang.launch_server --model-path ") + kModel +
                          " --mem-fraction-static 0.88";
  const std::vector<std::pair<std::string, std::string>> files = {
      {"run.sh", "#!/bin/sh\nexport NCCL_DEBUG=WARN\n" + cmd + " \\\n  --port 30000\n"},
      {"run.service", "[Unit]\nDescription=sglang\n[Service]\nExecStart=/usr/bin/" + cmd + "\n"},
      {"compose.yaml",
       "services:\n  sglang:\n    image: lmsysorg/sglang:v0.4.1.post7-cu124\n"
       "    command: " +
           cmd + "\n"},
      {"docker.cmd", "docker run --gpus all lmsysorg/sglang:latest " + cmd + "\n"},
      {"flags.args", std::string("--model-path ") + kModel + "\n--mem-fraction-static 0.88\n"},
  };
  for (const auto& [name, text] : files) {
    SCOPED_TRACE(name);
    CheckOptions o;
    o.from = dir.write(name, text);
    auto r = check_text(kBareLog, o);
    ASSERT_TRUE(r) << r.message();
    EXPECT_EQ(r->command_origin, o.from);
    expect_all_compared_match(*r);
  }
}

TEST(CheckWithCommand, AnEnvironmentFileGivesTheEnvironmentOnly) {
  TempDir dir;
  const std::string env =
      dir.write("run.env", "# the run's environment\nexport A_FLAG=1\nB='x y'\n");
  auto input = read_user_command(env, {}, nullptr);
  ASSERT_TRUE(input) << input.message();
  EXPECT_TRUE(input->argv.empty());
  EXPECT_EQ(input->environment.at("A_FLAG"), "1");
  EXPECT_EQ(input->environment.at("B"), "x y");
}

TEST(CheckWithCommand, AFileOfFlagsNeedsTheEngineForItsProgram) {
  TempDir dir;
  const std::string flags = dir.write("f.args", "--tp 2 --mem-fraction-static 0.8\n");
  auto without = read_user_command(flags, {}, nullptr);
  ASSERT_FALSE(without);
  EXPECT_NE(without.message().find("--engine"), std::string::npos) << without.message();
  auto with = read_user_command(flags, {}, find_engine("vllm").value());
  ASSERT_TRUE(with) << with.message();
  EXPECT_EQ(with->argv.front(), "vllm");
  EXPECT_EQ(with->argv.back(), "0.8");
}

TEST(CheckWithCommand, TheDumpWinsAndADisagreementIsReported) {
  CheckOptions o;
  o.command = {
      "python", "-m",       "sglang.launch_server",  "--model-path", kModel,
      "--tp",   "2",        "--mem-fraction-static", "0.8",          "--enable-torch-compile",
      "--host", "127.0.0.1"};
  auto r = check_text(log_with_dump(), o);
  ASSERT_TRUE(r) << r.message();
  // The figures are checked under the dump's settings, so they still match.
  expect_all_compared_match(*r);
  ASSERT_EQ(r->contradictions.size(), 3u) << testing::PrintToString(r->contradictions);
  EXPECT_NE(r->contradictions[0].find("--tp-size"), std::string::npos);
  EXPECT_NE(r->contradictions[0].find("gives 2; the log shows 1"), std::string::npos);
  EXPECT_NE(r->contradictions[1].find("--mem-fraction-static"), std::string::npos);
  EXPECT_NE(r->contradictions[2].find("--enable-torch-compile"), std::string::npos);
  EXPECT_NE(r->contradictions[2].find("unset"), std::string::npos);
  // A value printed another way is not a disagreement: 0.880, a quoted path, a mount point.
  o.command = {"python",
               "-m",
               "sglang.launch_server",
               "--model-path",
               "/mnt/cache/meta-llama/Meta-Llama-3.1-8B-Instruct",
               "--mem-fraction-static",
               "0.880"};
  o.model = kModel;
  auto same = check_text(log_with_dump(), o);
  ASSERT_TRUE(same) << same.message();
  EXPECT_TRUE(same->contradictions.empty()) << testing::PrintToString(same->contradictions);
}

TEST(CheckWithCommand, TpFillsWhatTheLogLacksAndContradictsWhatItShows) {
  CheckOptions o;
  o.tp = 2;
  auto shown = check_text(log_with_dump(), o);
  ASSERT_TRUE(shown) << shown.message();
  ASSERT_EQ(shown->contradictions.size(), 1u);
  EXPECT_NE(shown->contradictions[0].find("--tp gives 2"), std::string::npos);

  o.command = {"python", "-m", "sglang.launch_server", "--model-path", kModel};
  auto filled = check_text(kBareLog, o);
  ASSERT_TRUE(filled) << filled->contradictions.size();
  ASSERT_EQ(filled->filled.size(), 1u);
  EXPECT_EQ(filled->filled[0], "--tensor-parallel-size 2 (--tp)");
  EXPECT_EQ(filled->scenario.command.find("--tp-size")->value(), "2");
}

TEST(CheckWithCommand, ModelAloneChecksWithTheEngineDefaultsAndSaysSo) {
  CheckOptions o;
  o.model = kModel;
  o.gpu = "h100-sxm";
  auto r = check_text(kBareLog, o);
  ASSERT_TRUE(r) << r.message();
  EXPECT_TRUE(r->defaults_assumed);
  EXPECT_FALSE(r->command_given);
  expect_all_compared_match(*r);
  bool said = false;
  for (const std::string& n : r->notes)
    said = said || n.find("the engine's defaults with --model") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(CheckWithCommand, ACommandFileWithTheLogsStemIsItsCommand) {
  TempDir dir;
  const std::string log = dir.write("run.log", kBareLog);
  EXPECT_EQ(command_file_beside(log), "");
  const std::string cmd = dir.write(
      "run.sh", std::string("python -m sglang.launch_server --model-path ") + kModel + "\n");
  dir.write("run.txt", "a .txt is as often a log as a command\n");
  EXPECT_EQ(command_file_beside(log), cmd);
  const std::vector<std::string> listing = {log, cmd, (dir.path() / "lone.sh").string(),
                                            (dir.path() / "run.txt").string()};
  EXPECT_TRUE(pairs_with_a_log(cmd, listing));
  EXPECT_FALSE(pairs_with_a_log(listing[2], listing));  // no log of that stem: not skipped
  EXPECT_FALSE(pairs_with_a_log(log, listing));
  EXPECT_FALSE(pairs_with_a_log(listing[3], listing));
}

TEST(CheckWithCommand, RankPrefixesImplyTheTensorParallelismAndSaySo) {
  // The same lines, one of them printed by rank 3.
  std::string log = kBareLog;
  log += "[2025-01-23 19:35:15 TP3] Load weight begin. avail mem=78.81 GB\n";
  CheckOptions o;
  o.command = {"python", "-m", "sglang.launch_server", "--model-path", kModel};
  auto r = check_text(log, o);
  ASSERT_TRUE(r) << r.message();
  ASSERT_EQ(r->inferences.size(), 1u);
  EXPECT_NE(r->inferences[0].find("--tp-size 4"), std::string::npos) << r->inferences[0];
  EXPECT_NE(r->inferences[0].find("up to TP3"), std::string::npos);
  EXPECT_EQ(r->scenario.command.find("--tp-size")->value(), "4");
  // A stated parallelism below what the ranks show is reported, not replaced.
  o.command.insert(o.command.end(), {"--tp", "2"});
  auto stated = check_text(log, o);
  ASSERT_TRUE(stated) << stated.message();
  EXPECT_TRUE(stated->inferences.empty());
  ASSERT_EQ(stated->contradictions.size(), 1u);
  EXPECT_NE(stated->contradictions[0].find("at least 4"), std::string::npos);
  // A log of rank 0 alone implies nothing.
  o.command.resize(5);
  auto alone = check_text(kBareLog, o);
  ASSERT_TRUE(alone) << alone.message();
  EXPECT_TRUE(alone->inferences.empty());
}

TEST(CheckWithCommand, TheLoadEndLineGivesTheFreeMemoryBeforeTheLoad) {
  // The run's lines without "Load weight begin", its load-end line as SGLang prints it since
  // 2025-03 (with the load's own usage: 78.81 − 63.72 = 15.09 GB).
  std::string log = kBareLog;
  log.erase(
      log.find("[2025-01-23 19:35:15 TP0] Load weight begin"),
      std::string_view("[2025-01-23 19:35:15 TP0] Load weight begin. avail mem=78.81 GB\n").size());
  const std::string end = "avail mem=63.72 GB\n";
  log.replace(log.find(end), end.size(), "avail mem=63.72 GB, mem usage=15.09 GB.\n");
  CheckOptions o;
  o.command = {"python",       "-m",   "sglang.launch_server",
               "--model-path", kModel, "--mem-fraction-static",
               "0.88"};
  auto r = check_text(log, o);
  ASSERT_TRUE(r) << r.message();
  ASSERT_EQ(r->inferences.size(), 1u);
  EXPECT_NE(r->inferences[0].find("78.81 GB = avail mem 63.72 + mem usage 15.09"),
            std::string::npos)
      << r->inferences[0];
  expect_all_compared_match(*r);
  // Without the usage the figure stays missing and the capacity figures unchecked.
  std::string bare = log;
  bare.replace(bare.find(", mem usage=15.09 GB."), 21, "");
  auto without = check_text(bare, o);
  ASSERT_TRUE(without) << without.message();
  EXPECT_TRUE(without->inferences.empty());
  EXPECT_GT(without->unchecked(), 0u);
}

TEST(CheckWithCommand, AQuantizationTheConfigDoesNotSayIsTheCheckpoints) {
  CheckOptions o;
  o.command = {"python",
               "-m",
               "sglang.launch_server",
               "--model-path",
               kModel,
               "--mem-fraction-static",
               "0.88",
               "--quantization",
               "auto_round"};
  auto r = check_text(kBareLog, o);
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ(r->scenario.model.quant.method, QuantMethod::kGptq);  // auto_round packs as GPTQ
  EXPECT_DOUBLE_EQ(r->scenario.model.quant.weight_bits, 4);
  ASSERT_EQ(r->inferences.size(), 1u);
  EXPECT_NE(r->inferences[0].find("quantized (auto_round)"), std::string::npos);
  // fp8 is the engines' online quantization of a 16-bit checkpoint: nothing to infer.
  o.command.back() = "fp8";
  auto fp8 = check_text(kBareLog, o);
  ASSERT_TRUE(fp8) << fp8.message();
  EXPECT_EQ(fp8->scenario.model.quant.method, QuantMethod::kNone);
  EXPECT_TRUE(fp8->inferences.empty());
}

}  // namespace
}  // namespace servescope
