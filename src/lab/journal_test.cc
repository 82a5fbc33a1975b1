#include "lab/journal.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/file.h"

namespace servescope {
namespace {

namespace fs = std::filesystem;

class JournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("servescope-journal-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "journal.jsonl").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  static ExperimentRecord record(int id, std::vector<std::string> flags) {
    ExperimentRecord r;
    r.id = id;
    r.flags = std::move(flags);
    r.changes = r.flags;
    r.argv = {"server", "--port", "1"};
    r.env = {{"A", "1"}};
    r.run_dir = "runs/00" + std::to_string(id);
    r.started_at = 100;
    r.ready_at = 110;
    r.stopped_at = 120;
    r.exit_status = 0;
    r.outcome = ExperimentOutcome::kReady;
    r.figures = {{"max_running_requests", 48}};
    r.values = {48};
    r.value = 48;
    r.evidence = {{"stderr.log", 12, "max_running_requests=48", "max_running_requests"}};
    return r;
  }

  const nlohmann::json header_ = {{"journal", "servescope bisect"},
                                  {"metric", "max_running_requests"}};
  fs::path dir_;
  std::string path_;
};

TEST_F(JournalTest, FinishedExperimentsReadBackOnResume) {
  {
    auto j = Journal::create(path_, header_);
    ASSERT_TRUE(j) << j.message();
    ASSERT_TRUE(j->append(record(1, {})));
    ASSERT_TRUE(j->append(record(2, {"--disable-radix-cache"})));
  }
  auto again = Journal::create(path_, header_);
  ASSERT_FALSE(again);
  EXPECT_NE(again.message().find("--resume"), std::string::npos);
  auto j = Journal::resume(path_, header_);
  ASSERT_TRUE(j) << j.message();
  ASSERT_EQ(j->previous().size(), 2u);
  EXPECT_EQ(j->last_id(), 2);
  const ExperimentRecord* r = j->find("--disable-radix-cache");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->id, 2);
  EXPECT_EQ(*r->value, 48);
  EXPECT_EQ(r->evidence.at(0).line, 12u);
  EXPECT_EQ(r->env.at(0).second, "1");
  EXPECT_EQ(j->find("--other"), nullptr);
}

TEST_F(JournalTest, AnotherBisectionsJournalIsRefused) {
  { ASSERT_TRUE(Journal::create(path_, header_)); }
  const nlohmann::json other = {{"journal", "servescope bisect"}, {"metric", "startup"}};
  auto j = Journal::resume(path_, other);
  ASSERT_FALSE(j);
  EXPECT_NE(j.message().find("metric differs"), std::string::npos) << j.message();
}

TEST_F(JournalTest, ATornLastLineIsDroppedAndAppendsContinueOnAFreshLine) {
  {
    auto j = Journal::create(path_, header_);
    ASSERT_TRUE(j->append(record(1, {})));
  }
  std::ofstream(path_, std::ios::app) << R"({"id": 2, "changes": ["--x")";  // killed mid-write
  {
    auto j = Journal::resume(path_, header_);
    ASSERT_TRUE(j) << j.message();
    EXPECT_EQ(j->previous().size(), 1u);
    ASSERT_EQ(j->notes().size(), 1u);
    ASSERT_TRUE(j->append(record(3, {"--y"})));
  }
  auto j = Journal::resume(path_, header_);
  ASSERT_TRUE(j) << j.message();
  EXPECT_EQ(j->previous().size(), 2u);
  EXPECT_TRUE(j->notes().empty());
}

TEST_F(JournalTest, ASubmittedJobIsInFlightUntilItsExperimentFinishes) {
  {
    auto j = Journal::create(path_, header_);
    ASSERT_TRUE(j) << j.message();
    ExperimentRecord a = record(3, {"--a"});
    a.launcher = "slurm";
    a.job_id = "41";
    a.node = "gpu03";
    a.queued_seconds = 12.5;
    ExperimentRecord b = record(4, {"--b"});
    b.launcher = "slurm";
    b.job_id = "42";
    ASSERT_TRUE(j->append_launched(a));
    ASSERT_TRUE(j->append_launched(b));
    ASSERT_TRUE(j->append(a));  // a finished; b was still running when the tool died
  }
  auto j = Journal::resume(path_, header_);
  ASSERT_TRUE(j) << j.message();
  EXPECT_EQ(j->in_flight("--a"), nullptr);
  ASSERT_NE(j->find("--a"), nullptr);
  EXPECT_EQ(j->find("--a")->job_id, "41");
  EXPECT_EQ(j->find("--a")->node, "gpu03");
  EXPECT_DOUBLE_EQ(j->find("--a")->queued_seconds, 12.5);
  EXPECT_EQ(j->find("--a")->launcher, "slurm");
  const ExperimentRecord* b = j->in_flight("--b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->job_id, "42");
  EXPECT_EQ(b->id, 4);
  EXPECT_EQ(b->run_dir, "runs/004");
  EXPECT_EQ(j->find("--b"), nullptr);
  EXPECT_EQ(j->last_id(), 4);
}

TEST_F(JournalTest, ALaunchedLineWithoutItsJobIsDamage) {
  {
    auto j = Journal::create(path_, header_);
    ASSERT_TRUE(j);
  }
  std::ofstream(path_, std::ios::app) << R"({"launched": {"id": 2, "flags": []}})"
                                      << "\n";
  auto j = Journal::resume(path_, header_);
  ASSERT_FALSE(j);
  EXPECT_NE(j.message().find(":2: a launched line"), std::string::npos) << j.message();
}

}  // namespace
}  // namespace servescope
