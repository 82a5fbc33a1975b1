// The Slurm launcher's pure half: the batch script it submits, and how it reads scontrol's
// job records — lines as Slurm 22.05 (Debian 12's slurm-wlm) printed them in this project's
// test cluster (tests/slurm/cluster.sh).
#include "lab/slurm_job.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace servescope {
namespace {

constexpr const char* kPending =
    "JobId=5 JobName=j.sh UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294901755 "
    "Nice=0 Account=(null) QOS=(null) JobState=PENDING Reason=Resources Dependency=(null) "
    "Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 RunTime=00:00:00 "
    "TimeLimit=UNLIMITED TimeMin=N/A SubmitTime=2026-12-02T08:23:04 StartTime=Unknown "
    "Partition=debug AllocNode:Sid=localhost:26160 ReqNodeList=(null) ExcNodeList=(null) "
    "NodeList= NumNodes=1 NumCPUs=1 TRES=cpu=1,mem=2000M,node=1,billing=1 "
    "Command=/tmp/sl/j.sh WorkDir=/tmp/sl StdErr=/tmp/sl/j-5.out StdOut=/tmp/sl/j-5.out "
    "TresPerNode=gres:gpu:1";

std::string record_with(const std::string& state, const std::string& exit_code,
                        const std::string& nodes = "gpu[03-05,07]") {
  return "JobId=7 JobName=servescope-003 JobState=" + state +
         " Reason=None Dependency=(null) ExitCode=" + exit_code + " NodeList=" + nodes +
         " BatchHost=" + (nodes.empty() ? "(null)" : "gpu03") + " NumNodes=1";
}

TEST(SlurmJob, ReadsAPendingJobAndItsReason) {
  const auto fields = parse_scontrol_record(kPending);
  EXPECT_EQ(fields.at("JobId"), "5");
  EXPECT_EQ(fields.at("TRES"), "cpu=1,mem=2000M,node=1,billing=1");
  EXPECT_EQ(fields.at("AllocNode:Sid"), "localhost:26160");
  EXPECT_EQ(fields.at("NodeList"), "");
  const SlurmJobState s = slurm_job_state(fields);
  EXPECT_TRUE(s.exists);
  EXPECT_TRUE(s.pending());
  EXPECT_FALSE(s.finished());
  EXPECT_EQ(s.reason, "Resources");
  EXPECT_EQ(s.node, "");
  EXPECT_FALSE(s.exit_status);
}

TEST(SlurmJob, AValueWithSpacesRunsToTheNextKey) {
  const auto fields =
      parse_scontrol_record("JobId=9 Comment=two words here JobState=RUNNING Reason=None");
  EXPECT_EQ(fields.at("Comment"), "two words here");
  EXPECT_EQ(fields.at("JobState"), "RUNNING");
}

TEST(SlurmJob, ExitCodesAsTheRunnerSeesThem) {
  // Our own scancel --signal=TERM: FAILED 0:15 (seen in the test cluster) → 143.
  auto s = slurm_job_state(parse_scontrol_record(record_with("FAILED", "0:15")));
  EXPECT_TRUE(s.finished());
  EXPECT_EQ(s.exit_status, 143);
  // Someone's plain scancel: CANCELLED 0:15.
  s = slurm_job_state(parse_scontrol_record(record_with("CANCELLED", "0:15")));
  EXPECT_EQ(s.state, "CANCELLED");
  EXPECT_EQ(s.exit_status, 143);
  // The engine exited 3 on its own.
  s = slurm_job_state(parse_scontrol_record(record_with("FAILED", "3:0")));
  EXPECT_EQ(s.exit_status, 3);
  s = slurm_job_state(parse_scontrol_record(record_with("RUNNING", "0:0")));
  EXPECT_LT(s.queued_seconds, 0);  // no times in this record
  EXPECT_FALSE(s.finished());
  EXPECT_FALSE(s.pending());
  EXPECT_FALSE(s.exit_status);
  EXPECT_EQ(s.node, "gpu03");
  // scontrol forgot the job (MinJobAge): finished, exit unknown.
  EXPECT_TRUE(SlurmJobState{}.finished());
}

TEST(SlurmJob, TheQueueWaitIsTheSchedulersOwnStartMinusSubmit) {
  auto s = slurm_job_state(parse_scontrol_record(
      "JobId=8 JobState=RUNNING Reason=None SubmitTime=2026-12-31T23:59:50 "
      "EligibleTime=2026-12-31T23:59:50 StartTime=2027-01-01T00:01:05 NodeList=vm"));
  EXPECT_DOUBLE_EQ(s.queued_seconds, 75);
  s = slurm_job_state(parse_scontrol_record(kPending));  // StartTime=Unknown
  EXPECT_LT(s.queued_seconds, 0);
}

TEST(SlurmJob, FirstNodeOfANodeList) {
  EXPECT_EQ(first_node("gpu[03-05,07]"), "gpu03");
  EXPECT_EQ(first_node("a,b"), "a");
  EXPECT_EQ(first_node("rack1-[2,4],x"), "rack1-2");
  EXPECT_EQ(first_node("vm"), "vm");
  EXPECT_EQ(first_node("(null)"), "");
  EXPECT_EQ(first_node(""), "");
}

TEST(SlurmJob, SbatchJobIds) {
  EXPECT_EQ(*parse_sbatch_job_id("123\n"), "123");
  EXPECT_EQ(*parse_sbatch_job_id("77;cluster-a\n"), "77");
  EXPECT_FALSE(parse_sbatch_job_id("sbatch: error: Batch job submission failed"));
  EXPECT_FALSE(parse_sbatch_job_id(""));
}

TEST(SlurmJob, TheBatchScriptAsksForWhatTheOptionsSayAndExecsTheCommand) {
  SlurmOptions o;
  o.gpus = 2;
  o.partition = "gpu";
  o.time_limit = "1:00:00";
  o.account = "infer";
  o.sbatch_lines = {"--constraint=h100", "#SBATCH --exclusive"};
  LaunchSpec spec{{"python", "-m", "sglang.launch_server", "--model-path", "a b"},
                  {{"HF_HOME", "/data/hf cache"}},
                  "/work",
                  "/runs/003/stdout.log",
                  "/runs/003/stderr.log",
                  "servescope-003"};
  const std::string s = slurm_batch_script(o, spec);
  for (const char* line :
       {"#SBATCH --job-name=servescope-003\n", "#SBATCH --output=/runs/003/stdout.log\n",
        "#SBATCH --error=/runs/003/stderr.log\n", "#SBATCH --nodes=1\n", "#SBATCH --gres=gpu:2\n",
        "#SBATCH --partition=gpu\n", "#SBATCH --time=1:00:00\n", "#SBATCH --account=infer\n",
        "#SBATCH --constraint=h100\n", "#SBATCH --exclusive\n", "cd /work || exit 127\n",
        "export HF_HOME='/data/hf cache'\n",
        "exec python -m sglang.launch_server --model-path 'a b'\n"})
    EXPECT_NE(s.find(line), std::string::npos) << line << "\n" << s;
  EXPECT_EQ(s.rfind("#!/bin/bash\n", 0), 0u);
  EXPECT_EQ(s.find("srun"), std::string::npos);
  // Directives must come before the first command, or sbatch ignores them.
  EXPECT_LT(s.rfind("#SBATCH"), s.find("\ncd "));

  o.nodes = 2;
  o.gpus = 0;
  const std::string multi = slurm_batch_script(o, spec);
  EXPECT_NE(multi.find("#SBATCH --nodes=2\n"), std::string::npos);
  EXPECT_NE(multi.find("exec srun --nodes=2 --ntasks-per-node=1"), std::string::npos);
  EXPECT_EQ(multi.find("--gres"), std::string::npos);
}

TEST(SlurmJob, TheConfigFileNamesAnUnknownKey) {
  const auto dir = std::filesystem::temp_directory_path() / "servescope-slurm-config-test";
  std::filesystem::create_directories(dir);
  const std::string good = (dir / "good.yaml").string(), bad = (dir / "bad.yaml").string();
  std::ofstream(good) << "partition: gpu\ngpus: 4\nsbatch:\n  - --exclusive\ntime: '2:00:00'\n";
  std::ofstream(bad) << "partition: gpu\ngpu: 4\n";
  SlurmOptions o;
  ASSERT_TRUE(read_slurm_config(good, o));
  EXPECT_EQ(o.partition, "gpu");
  EXPECT_EQ(o.gpus, 4);
  EXPECT_EQ(o.time_limit, "2:00:00");
  EXPECT_EQ(o.sbatch_lines, std::vector<std::string>{"--exclusive"});
  SlurmOptions o2;
  const auto st = read_slurm_config(bad, o2);
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("unknown key 'gpu'"), std::string::npos) << st.message();
  EXPECT_FALSE(read_slurm_config((dir / "missing.yaml").string(), o2));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace servescope
