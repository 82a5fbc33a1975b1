#include "lab/bisector.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "lab/bisect_report.h"
#include "lab/fake_process_host.h"

namespace servescope {
namespace {

namespace fs = std::filesystem;

bool has_word(const std::vector<std::string>& words, const std::string& w) {
  return std::find(words.begin(), words.end(), w) != words.end();
}

std::string capacity_line(int mrr) {
  return "[2026-07-20 10:00:00 TP0] max_total_num_tokens=2079216, chunked_prefill_size=8192, "
         "max_prefill_tokens=16384, max_running_requests=" +
         std::to_string(mrr) + ", context_len=262144\n";
}

// What the fake server does with its flags: --disable-radix-cache alone lowers the running
// limit; --crash makes it exit before ready.
FakeServerScript fake_engine(const LaunchSpec& spec) {
  FakeServerScript s;
  s.ready_after = 2;
  if (has_word(spec.argv, "--crash")) {
    s.ready_after = -1;
    s.exit_after = 1;
    s.exit_log = "ValueError: unsupported on this GPU\n";
    return s;
  }
  s.log = capacity_line(has_word(spec.argv, "--disable-radix-cache") ? 48 : 117);
  return s;
}

// A model that knows the same rule, or believes another flag is the cause.
class FakePredictor final : public Predictor {
 public:
  explicit FakePredictor(std::string cause) : cause_(std::move(cause)) {}
  Prediction predict(const std::vector<std::string>& flags) override {
    Prediction p;
    p.available = true;
    if (has_word(flags, "--crash")) {
      p.starts = false;
      p.note = "unsupported";
      return p;
    }
    p.value = has_word(flags, cause_) ? 48 : 117;
    return p;
  }
  std::string description() const override { return "fake model"; }

 private:
  std::string cause_;
};

class BisectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("servescope-bisector-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    host_.script = fake_engine;
  }
  void TearDown() override { fs::remove_all(dir_); }

  BisectResult bisect(StrategyKind strategy, const std::string& model_cause, bool resume = false,
                      const std::string& extra = "", const std::atomic<bool>* stop = nullptr) {
    RunnerOptions ro;
    ro.launch = *LaunchTemplate::parse("server {flags} --port {port}", false);
    ro.ready_url = "http://127.0.0.1:{port}/health";
    ro.poll_s = 0.5;
    ro.grace_s = 5;
    ro.metric = *parse_metric("max_running_requests", {"max_running_requests"});
    ExperimentRunner runner(host_, ro, stop);
    const nlohmann::json header = {{"metric", "max_running_requests"}};
    const std::string path = (dir_ / "journal.jsonl").string();
    auto journal = resume ? Journal::resume(path, header) : Journal::create(path, header);
    EXPECT_TRUE(journal) << journal.message();
    BisectOptions o;
    o.good = *parse_flags("--tp 4", "--good");
    o.bad = *parse_flags(
        "--tp 4 --enable-metrics --disable-radix-cache --kv-cache-dtype fp8_e4m3 "
        "--chunked-prefill-size 4096 --schedule-policy lpm --page-size 16 --log-level info "
        "--trust-remote-code" +
            extra,
        "--bad");
    o.metric = ro.metric;
    o.strategy = strategy;
    o.out_dir = dir_.string();
    Bisector b(host_, runner, *journal, o, stop);
    b.set_predictor_factory([model_cause](const ScenarioOptions&,
                                          const MetricSpec&) -> Result<std::unique_ptr<Predictor>> {
      return std::unique_ptr<Predictor>(std::make_unique<FakePredictor>(model_cause));
    });
    return b.run();
  }

  FakeProcessHost host_;
  fs::path dir_;
};

TEST_F(BisectorTest, DdminNamesTheFlagWithinFiveLaunchesBeyondTheEndpoints) {
  const BisectResult r = bisect(StrategyKind::kDdmin, "--disable-radix-cache");
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_EQ(r.culprits.size(), 1u);
  EXPECT_EQ(r.changes[r.culprits[0][0]].label(), "--disable-radix-cache");
  EXPECT_EQ(r.good_value, 117);
  EXPECT_EQ(r.bad_value, 48);
  EXPECT_LE(r.launches(), 2 + 5);
  EXPECT_EQ(static_cast<std::size_t>(r.launched), host_.servers().size());
  EXPECT_TRUE(r.model_gaps.empty());
  for (const auto& s : host_.servers())
    EXPECT_FALSE(s->alive);
}

TEST_F(BisectorTest, GuidedByARightModelTakesTwoLaunchesBeyondTheEndpoints) {
  const BisectResult r = bisect(StrategyKind::kGuided, "--disable-radix-cache");
  ASSERT_EQ(r.culprits.size(), 1u);
  EXPECT_EQ(r.changes[r.culprits[0][0]].label(), "--disable-radix-cache");
  EXPECT_EQ(r.launches(), 4);
  EXPECT_EQ(r.model, "fake model");
  for (const ExperimentView& v : r.experiments) {
    EXPECT_TRUE(v.prediction.available);
    EXPECT_TRUE(v.gap.empty()) << v.gap;
  }
}

TEST_F(BisectorTest, GuidedByAWrongModelReportsTheGapsAndStillFindsIt) {
  const BisectResult r = bisect(StrategyKind::kGuided, "--page-size");
  ASSERT_EQ(r.culprits.size(), 1u);
  EXPECT_EQ(r.changes[r.culprits[0][0]].label(), "--disable-radix-cache");
  EXPECT_FALSE(r.model_gaps.empty());
  int flagged = 0;
  for (const ExperimentView& v : r.experiments)
    flagged += v.gap.empty() ? 0 : 1;
  EXPECT_GT(flagged, 0);
  const auto json = bisect_report_json(
      {"server {flags}", "--tp 4", "...", "max_running_requests", "guided", 1, 0, 1, dir_.string()},
      r);
  EXPECT_EQ(json["culprits"], nlohmann::json::parse(R"([["--disable-radix-cache"]])"));
  EXPECT_FALSE(json["model_gaps"].empty());
}

TEST_F(BisectorTest, ABadConfigurationThatDoesNotStartIsBisectedAsStartup) {
  const BisectResult r = bisect(StrategyKind::kDdmin, "--disable-radix-cache", false, " --crash");
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.metric.kind, MetricSpec::Kind::kStartup);
  EXPECT_FALSE(r.bad_starts);
  ASSERT_EQ(r.culprits.size(), 1u);
  EXPECT_EQ(r.changes[r.culprits[0][0]].label(), "--crash");
  const auto json = bisect_report_json({}, r);
  EXPECT_EQ(json["culprit_evidence"][0]["kind"], "startup-failure");
}

TEST_F(BisectorTest, ResumeReusesEveryFinishedExperimentAndRepeatsNone) {
  std::atomic<bool> stop{false};
  // Interrupt during the fourth launch.
  host_.script = [&](const LaunchSpec& spec) {
    if (host_.servers().size() == 3)
      stop = true;
    return fake_engine(spec);
  };
  const BisectResult first = bisect(StrategyKind::kOneAtATime, "", false, "", &stop);
  EXPECT_TRUE(first.interrupted);
  EXPECT_EQ(first.launched, 3);
  host_.script = fake_engine;
  const std::size_t before = host_.servers().size();
  const BisectResult second = bisect(StrategyKind::kOneAtATime, "", true);
  EXPECT_FALSE(second.interrupted);
  EXPECT_EQ(second.reused, 3);
  EXPECT_EQ(second.launched + second.reused, 2 + 8);
  // The interrupted fourth launch runs again; the three finished ones do not.
  EXPECT_EQ(host_.servers().size() - before, static_cast<std::size_t>(second.launched));
  ASSERT_EQ(second.culprits.size(), 1u);
  std::set<int> ids;
  for (const ExperimentView& v : second.experiments)
    EXPECT_TRUE(ids.insert(v.record.id).second) << "experiment id " << v.record.id << " twice";
}

TEST_F(BisectorTest, SameValuesAtBothEndsIsNothingToIsolate) {
  host_.script = [](const LaunchSpec& spec) {
    FakeServerScript s = fake_engine(spec);
    s.log = capacity_line(117);
    return s;
  };
  const BisectResult r = bisect(StrategyKind::kDdmin, "");
  EXPECT_TRUE(r.culprits.empty());
  EXPECT_NE(r.error.find("nothing to isolate"), std::string::npos) << r.error;
  EXPECT_EQ(r.launches(), 2);
}

// A bench figure by experiment: the good end (runs/001) and the bad end (runs/002) each measure
// their repeats in turn from a list; every other experiment measures like the good end.
class ScriptedProbe final : public BenchProbe {
 public:
  ScriptedProbe(std::vector<double> good, std::vector<double> bad)
      : good_(std::move(good)), bad_(std::move(bad)) {}
  Result<double> measure(const std::string&, const MetricSpec&,
                         const std::string& json_path) override {
    const bool bad = json_path.find("runs/002") != std::string::npos;
    std::vector<double>& values = bad ? bad_ : good_;
    std::size_t& next = bad ? next_bad_ : next_good_;
    return values[next++ % values.size()];
  }

 private:
  std::vector<double> good_, bad_;
  std::size_t next_good_ = 0, next_bad_ = 0;
};

BisectResult bisect_throughput(FakeProcessHost& host, const fs::path& dir, ScriptedProbe& probe) {
  RunnerOptions ro;
  ro.launch = *LaunchTemplate::parse("server {flags} --port {port}", false);
  ro.ready_url = "http://127.0.0.1:{port}/health";
  ro.poll_s = 0.5;
  ro.grace_s = 5;
  ro.metric = *parse_metric("output_throughput@c=4", {});
  ro.repeat = 3;
  ro.bench = &probe;
  ExperimentRunner runner(host, ro);
  auto journal = Journal::create((dir / "journal.jsonl").string(), {{"metric", "throughput"}});
  EXPECT_TRUE(journal) << journal.message();
  BisectOptions o;
  o.good = *parse_flags("--tp 4", "--good");
  o.bad = *parse_flags("--tp 4 --disable-radix-cache --page-size 16", "--bad");
  o.metric = ro.metric;
  o.tolerance = 0.05;
  o.out_dir = dir.string();
  o.use_model = false;
  Bisector b(host, runner, *journal, o);
  return b.run();
}

// Medians 100 and 115 (beyond the 5% tolerance), but repeats so spread that the bootstrap
// interval on the change of the means holds zero: nothing is bisected.
TEST_F(BisectorTest, NoisyEndsThatDoNotDifferBeyondNoiseAreNotBisected) {
  ScriptedProbe probe({100, 60, 140}, {115, 75, 155});
  const BisectResult r = bisect_throughput(host_, dir_, probe);
  EXPECT_TRUE(r.culprits.empty());
  EXPECT_NE(r.error.find("no difference beyond noise"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("95% CI"), std::string::npos) << r.error;
  EXPECT_EQ(r.launches(), 2);
}

// Tight repeats 15% apart: a real difference, said with its interval, and bisected.
TEST_F(BisectorTest, NoisyEndsThatDifferAreBisectedAndTheIntervalIsSaid) {
  ScriptedProbe probe({100, 101, 99}, {85, 86, 84});
  const BisectResult r = bisect_throughput(host_, dir_, probe);
  EXPECT_TRUE(r.error.empty()) << r.error;
  bool said = false;
  for (const std::string& n : r.notes)
    said = said || (n.find("95% CI -1") != std::string::npos &&
                    n.find("a real difference") != std::string::npos);
  EXPECT_TRUE(said) << (r.notes.empty() ? "" : r.notes.front());
}

}  // namespace
}  // namespace servescope
