// Issue 20 on real DGX Spark (GB10) startup logs: tests/gb10/logs/*.log are excerpts published
// in public threads, each beside a .source naming the thread, the hardware, the engine version
// and the command as the thread gives them. A log marked "checked" goes through `check` (the
// log alone, the GPU the thread names, the thread's command when the log does not print its own,
// a bundled stand-in model when the figures compared read no model field, or the model's
// config.json under tests/gb10/models when the .source names one): every figure it compares
// must match, at least three logs per engine, and the unified-memory rules must be named. A log
// marked "gap" stays listed with the reason it cannot be checked, and the test holds that reason (a
// model the repository does not bundle, a command the thread does not give, or an engine rule
// servescope does not follow yet, named with the figures it moves).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "core/text.h"
#include "diagnose/check.h"
#include "engines/engine.h"
#include "evidence/log_reader.h"
#include "tests/plan_fixture.h"

namespace servescope::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = fs::path(SERVESCOPE_SOURCE_DIR) / "tests" / "gb10" / "logs";

struct PublishedLog {
  std::string name;
  std::string text;
  std::map<std::string, std::string> source;  // url, engine, command, status, figures, gap
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string field(const PublishedLog& log, const std::string& key) {
  const auto it = log.source.find(key);
  return it == log.source.end() ? std::string() : it->second;
}

std::vector<PublishedLog> published_logs() {
  std::vector<PublishedLog> out;
  for (const auto& e : fs::directory_iterator(kDir)) {
    if (e.path().extension() != ".log")
      continue;
    PublishedLog log;
    log.name = e.path().stem().string();
    log.text = slurp(e.path());
    std::istringstream in(slurp(fs::path(e.path()).replace_extension(".source")));
    for (std::string line; std::getline(in, line);) {
      const auto colon = line.find(": ");
      if (line.empty() || line[0] == '#' || colon == std::string::npos)
        continue;
      log.source[line.substr(0, colon)] = line.substr(colon + 2);
    }
    out.push_back(std::move(log));
  }
  std::sort(out.begin(), out.end(),
            [](const PublishedLog& a, const PublishedLog& b) { return a.name < b.name; });
  return out;
}

// The stand-in command of a checked log: the settings the thread states, a bundled model.
const std::map<std::string, std::vector<std::string>> kCommands = {
    // GPU_MEM_UTIL=0.87, TP=2 over two Sparks; the V2.1 gate reads T and U only.
    {"vllm-1",
     {"vllm", "serve", "Qwen/Qwen3-8B", "--gpu-memory-utilization", "0.87",
      "--tensor-parallel-size", "2", "--nnodes", "2"}},
    // The thread's settings (docs/SGLANG_ON_DGX_SPARK.md): FlashInfer, mem_fraction_static 0.40,
    // BF16 or FP8 KV; the dump in each log gives the rest.
    {"sglang-1",
     {"python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen2.5-1.5B-Instruct",
      "--attention-backend", "flashinfer", "--mem-fraction-static", "0.4"}},
    {"sglang-2",
     {"python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen2.5-1.5B-Instruct",
      "--attention-backend", "flashinfer", "--mem-fraction-static", "0.4", "--kv-cache-dtype",
      "fp8_e4m3"}},
    {"sglang-3",
     {"python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen2.5-1.5B-Instruct",
      "--attention-backend", "flashinfer", "--mem-fraction-static", "0.4"}},
};

// A log that prints its own launch settings (vLLM's non-default args, SGLang's server_args) is
// rebuilt from the log alone: its .source says "command: from the log".
bool command_from_the_log(const PublishedLog& log) {
  return field(log, "command").rfind("from the log", 0) == 0;
}

std::string engine_of(const PublishedLog& log) {
  return log.name.substr(0, log.name.find('-'));
}

// The log of that name; a test that needs it fails when it is gone.
std::optional<PublishedLog> published_log(const std::string& name) {
  for (PublishedLog& log : published_logs())
    if (log.name == name)
      return std::move(log);
  return std::nullopt;
}

// check on the log as its thread ran it (on a GB10), or on another GPU.
Result<CheckResult> check_published(const PublishedLog& log, const std::string& gpu = "gb10") {
  const std::string engine_name = engine_of(log);
  auto engine = find_engine(engine_name);
  if (!engine)
    return engine.error();
  LogReadOptions read;
  read.engine = *engine;
  auto facts = read_log_text(log.text, log.name, read);
  if (!facts)
    return facts.error();
  CheckOptions o;
  o.engine = engine_name;
  o.gpu = gpu;  // every thread here ran on DGX Spark; the excerpts do not name the GPU
  if (auto it = kCommands.find(log.name); it != kCommands.end())
    o.command = it->second;
  // "config: models/ORG--NAME": the model's config.json, for a model the catalog does not bundle.
  if (const std::string config = field(log, "config"); !config.empty())
    o.model = (kDir.parent_path() / config).string();
  return check_log(*facts, o);
}

TEST(Gb10Logs, EveryLogNamesItsSourceAndIsCheckedOrAListedGap) {
  const auto logs = published_logs();
  ASSERT_GE(logs.size(), 3u);
  for (const PublishedLog& log : logs) {
    SCOPED_TRACE(log.name);
    EXPECT_EQ(field(log, "url").rfind("https://github.com/", 0), 0u) << "no source URL";
    EXPECT_FALSE(field(log, "engine").empty());
    const std::string status = field(log, "status");
    EXPECT_TRUE(status == "checked" || status == "gap") << status;
    if (status == "gap")
      EXPECT_GT(field(log, "gap").size(), 40u) << "a gap names its reason";
    else
      EXPECT_TRUE(kCommands.count(log.name) || command_from_the_log(log))
          << "a checked log has its thread's command, or prints its own";
  }
}

TEST(Gb10Logs, CheckMatchesEveryFigureItComparesAndNamesTheUnifiedMemoryRule) {
  std::map<std::string, int> checked;
  for (const PublishedLog& log : published_logs()) {
    if (field(log, "status") != "checked")
      continue;
    SCOPED_TRACE(log.name);
    ++checked[engine_of(log)];
    auto result = check_published(log);
    ASSERT_TRUE(result) << result.message();
    EXPECT_EQ(result->scenario.hardware.gpu.key, "gb10");
    std::set<std::string> compared;
    for (const Comparison& c : result->comparisons) {
      EXPECT_TRUE(c.checked) << c.field << ": " << c.note;
      EXPECT_TRUE(c.match) << c.field << " logged " << c.logged.to_string() << " predicted "
                           << c.predicted.to_string();
      compared.insert(c.field);
    }
    const std::string figures = field(log, "figures");
    for (std::string_view f : split(figures, ','))
      EXPECT_TRUE(compared.count(std::string(trim(f)))) << f << " was not compared";
    EXPECT_TRUE(has_finding(result->plan, "unified-memory"));
    // check's own output names the rule (its notes are printed above the figures).
    const std::string rule = engine_of(log) == "vllm" ? "[V2.1]" : "[R3.1]";
    const bool named = std::any_of(result->notes.begin(), result->notes.end(), [&](auto& n) {
      return n.find("NVIDIA GB10 is integrated: unified-memory " + rule) != std::string::npos;
    });
    EXPECT_TRUE(named);
  }
  EXPECT_GE(checked["vllm"], 3);    // vllm-1 (the startup gate), vllm-4 and vllm-6 (whole boots)
  EXPECT_GE(checked["sglang"], 3);  // three boots of Qwen2.5-1.5B: BF16 and FP8 KV
}

// On GB10 SGLang reads P and A from psutil at other moments than its 'Load weight' lines print
// theirs (R3.1), with host memory taken in between: the pool the logged readings give is the
// most it can be. check compares it as a bound — which a pool above it still fails.
const Comparison* comparison_of(const CheckResult& result, const std::string& field) {
  for (const Comparison& c : result.comparisons)
    if (c.field == field)
      return &c;
  return nullptr;
}

TEST(Gb10Logs, SglangPoolsAreBoundedByTheLoggedReadingsAndAPoolAboveFails) {
  const auto log = published_log("sglang-1");
  ASSERT_TRUE(log) << "sglang-1 is missing";
  auto result = check_published(*log);
  ASSERT_TRUE(result) << result.message();
  const Comparison* pool = comparison_of(*result, "max_total_num_tokens");
  ASSERT_NE(pool, nullptr);
  EXPECT_TRUE(pool->bound);
  EXPECT_TRUE(pool->match);
  EXPECT_NE(pool->note.find("reads P and A from memory it shares with the CPU"), std::string::npos)
      << pool->note;
  // The same boot with a pool 40,000 tokens larger than the readings allow.
  PublishedLog doctored = *log;
  for (std::string::size_type at = 0;
       (at = doctored.text.find("1557709", at)) != std::string::npos;)
    doctored.text.replace(at, 7, "1597709");
  auto wrong = check_published(doctored);
  ASSERT_TRUE(wrong) << wrong.message();
  const Comparison* over = comparison_of(*wrong, "max_total_num_tokens");
  ASSERT_NE(over, nullptr);
  EXPECT_TRUE(over->bound);
  EXPECT_FALSE(over->match);
}

// A discrete GPU's readings are the engine's own: the same kind of log is compared exactly.
TEST(Gb10Logs, OnADiscreteGpuTheSglangPoolIsComparedExactly) {
  const auto log = published_log("sglang-1");
  ASSERT_TRUE(log) << "sglang-1 is missing";
  auto result = check_published(*log, "rtx-pro-6000");
  ASSERT_TRUE(result) << result.message();
  ASSERT_NE(comparison_of(*result, "max_total_num_tokens"), nullptr);
  for (const Comparison& c : result->comparisons)
    EXPECT_FALSE(c.bound) << c.field;
}

// `explain` on GB10 prints, beside the trees, the rules that apply because the GPU is
// integrated: for vLLM the gate on psutil's available memory (V2.1), for SGLang P (R3.1).
std::string explain_output(const std::string& args) {
  const std::string out =
      (fs::temp_directory_path() / ("servescope-gb10-explain-" + std::to_string(::getpid())))
          .string();
  const std::string cmd =
      std::string(SERVESCOPE_BINARY) + " explain " + args + " >" + out + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::string text = slurp(out);
  fs::remove(out);
  return text;
}

TEST(Gb10Logs, ExplainNamesTheRulesThatApplyBecauseTheGpuIsIntegrated) {
  const std::string vllm = explain_output(
      "gpu_kv_cache_size_tokens --gpu gb10 -- vllm serve Qwen/Qwen3-8B "
      "--gpu-memory-utilization 0.8");
  EXPECT_NE(vllm.find("Because NVIDIA GB10 is integrated (unified memory):"), std::string::npos)
      << vllm;
  EXPECT_NE(vllm.find("unified-memory [V2.1]"), std::string::npos) << vllm;
  EXPECT_NE(vllm.find("the system's MemTotal"), std::string::npos) << vllm;
  const std::string sglang = explain_output(
      "max_total_num_tokens --gpu gb10 -- python -m sglang.launch_server --model-path "
      "Qwen/Qwen3-8B");
  EXPECT_NE(sglang.find("unified-memory [R3.1]"), std::string::npos) << sglang;
  EXPECT_NE(sglang.find("held by the OS"), std::string::npos) << sglang;
  // A discrete GPU has no such paragraph.
  const std::string h100 =
      explain_output("gpu_kv_cache_size_tokens --gpu h100-sxm -- vllm serve Qwen/Qwen3-8B");
  EXPECT_EQ(h100.find("is integrated"), std::string::npos) << h100;
}

TEST(Gb10Logs, TheStartupGateIsReadFromTheLogNotFromTheCatalog) {
  // vllm-1: T = 121.69 and free 110.37 come from the log; R = ceil(121.69 GiB × 0.87) prints
  // 105.87 and the start passes the gate.
  for (const PublishedLog& log : published_logs()) {
    if (log.name != "vllm-1")
      continue;
    auto result = check_published(log);
    ASSERT_TRUE(result) << result.message();
    EXPECT_NEAR(num(result->plan, "device_total_memory_gib"), 121.69, 1e-9);
    EXPECT_NEAR(num(result->plan, "free_at_startup_gib"), 110.37, 1e-9);
    EXPECT_NEAR(num(result->plan, "requested_memory_gib"), 105.87, 0.005);
    EXPECT_TRUE(result->plan.starts) << result->plan.startup_error;
    EXPECT_FALSE(has_finding(result->plan, "integrated-startup-margin"))
        << "the log states the free memory: no estimate to warn about";
    // One Spark per node: TP 2 over --nnodes 2 needs one GPU on each node.
    auto command = result->engine->parse_command(kCommands.at("vllm-1"));
    ASSERT_TRUE(command) << command.message();
    EXPECT_EQ(result->engine->gpus_needed(*command), 1);
    return;
  }
  FAIL() << "vllm-1 is missing";
}

// Keeps the Hugging Face Hub out of the gap test: a log naming a model the repository does not
// bundle must fail on that model here, not download it where the network allows.
class HubOffline {
 public:
  HubOffline() {
    if (const char* v = std::getenv("HF_HUB_OFFLINE"))
      saved_ = v;
    setenv("HF_HUB_OFFLINE", "1", 1);
  }
  ~HubOffline() {
    if (saved_)
      setenv("HF_HUB_OFFLINE", saved_->c_str(), 1);
    else
      unsetenv("HF_HUB_OFFLINE");
  }

 private:
  std::optional<std::string> saved_;
};

TEST(Gb10Logs, TheListedGapsFailForTheReasonTheyName) {
  HubOffline offline;
  for (const PublishedLog& log : published_logs()) {
    if (field(log, "status") != "gap")
      continue;
    SCOPED_TRACE(log.name);
    auto result = check_published(log);
    const std::string mismatch = field(log, "mismatch");
    if (mismatch.empty()) {
      // A gap is a log check cannot rebuild (no model, no command): it says so in one line.
      ASSERT_FALSE(result);
      EXPECT_NE(result.message().find("model"), std::string::npos) << result.message();
      continue;
    }
    // A gap that names a mismatch is rebuilt, and disagrees on those figures only: the
    // engine rule behind them is named in the gap, and the rest still matches.
    ASSERT_TRUE(result) << result.message();
    std::set<std::string> disagreeing;
    for (std::string_view f : split(mismatch, ','))
      disagreeing.insert(std::string(trim(f)));
    std::set<std::string> compared;
    for (const Comparison& c : result->comparisons) {
      EXPECT_TRUE(c.checked) << c.field << ": " << c.note;
      EXPECT_EQ(c.match, !disagreeing.count(c.field))
          << c.field << " logged " << c.logged.to_string() << " predicted "
          << c.predicted.to_string();
      compared.insert(c.field);
    }
    for (const std::string& f : disagreeing)
      EXPECT_TRUE(compared.count(f)) << f << " was not compared";
    const std::string figures = field(log, "figures");
    for (std::string_view f : split(figures, ','))
      EXPECT_TRUE(compared.count(std::string(trim(f)))) << f << " was not compared";
  }
}

// A two-Spark boot (vllm-10): each node's log holds its own rank's figures, read as that rank's
// (the worker tags Worker_TP0_EP0, Worker_TP1_EP1), not as one GPU's.
TEST(Gb10Logs, EachNodesLogOfATwoSparkBootGivesItsOwnRanksFigures) {
  LogReadOptions read;
  read.engine = *find_engine("vllm");
  const auto kv_of = [&](const std::string& file) {
    auto facts = read_log_text(slurp(kDir / file), file, read);
    EXPECT_TRUE(facts) << facts.message();
    std::vector<std::pair<int, double>> out;
    if (facts) {
      for (const Fact* f : facts->all_of("kv_cache_memory"))
        out.emplace_back(f->rank.tp, f->number("available_gib").value_or(-1));
    }
    return out;
  };
  EXPECT_EQ(kv_of("vllm-10.log"), (std::vector<std::pair<int, double>>{{0, 21.47}}));
  EXPECT_EQ(kv_of("vllm-10.rank1"), (std::vector<std::pair<int, double>>{{1, 20.35}}));
}

}  // namespace
}  // namespace servescope::testing
