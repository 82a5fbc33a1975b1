#include "lab/load_bench_probe.h"

#include <gtest/gtest.h>

namespace servescope {
namespace {

TEST(LoadProbeOptions, ReadsBenchsOwnOptionNames) {
  auto o = parse_load_probe_options(
      "--requests 32 --input-len=128 --output-len 32 --warmup 2 --seed 7 --timeout 30s "
      "--api openai-chat --no-stream");
  ASSERT_TRUE(o) << o.message();
  EXPECT_EQ(o->requests, 32);
  EXPECT_EQ(o->input_len, "128");
  EXPECT_EQ(o->output_len, "32");
  EXPECT_TRUE(o->output_len_given);
  EXPECT_EQ(o->warmup, 2);
  EXPECT_EQ(o->seed, 7u);
  EXPECT_DOUBLE_EQ(o->timeout_s, 30);
  EXPECT_EQ(o->api, "openai-chat");
  EXPECT_FALSE(o->stream);
  EXPECT_FALSE(o->server_view);
}

TEST(LoadProbeOptions, EmptyTakesTheDefaults) {
  auto o = parse_load_probe_options("");
  ASSERT_TRUE(o);
  EXPECT_EQ(o->requests, 0);
  EXPECT_EQ(o->input_len, "1024");
  EXPECT_FALSE(o->output_len_given);
  EXPECT_TRUE(o->stream);
}

TEST(LoadProbeOptions, BadInputNamesTheOptionAndTheFix) {
  auto unknown = parse_load_probe_options("--concurrency 8");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.message().find("unknown option '--concurrency'"), std::string::npos)
      << unknown.message();
  EXPECT_NE(unknown.message().find("--requests"), std::string::npos);
  auto missing = parse_load_probe_options("--requests");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.message().find("--requests needs a value"), std::string::npos);
  auto negative = parse_load_probe_options("--requests -3");
  ASSERT_FALSE(negative);
  EXPECT_NE(negative.message().find("whole number"), std::string::npos);
  auto both = parse_load_probe_options("--requests 10 --duration 5s");
  ASSERT_FALSE(both);
  EXPECT_NE(both.message().find("not both"), std::string::npos);
  EXPECT_FALSE(parse_load_probe_options("--api grpc"));
}

TEST(LoadProbeOptions, DefaultRequestsScaleWithTheLoadPoint) {
  MetricSpec closed;
  closed.kind = MetricSpec::Kind::kBench;
  closed.load = "c=64";
  EXPECT_EQ(default_probe_requests(closed), 256);
  closed.load = "c=1";
  EXPECT_EQ(default_probe_requests(closed), 16);
  MetricSpec open = closed;
  open.load = "rate=4";
  EXPECT_EQ(default_probe_requests(open), 40);
}

}  // namespace
}  // namespace servescope
