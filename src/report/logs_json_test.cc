#include "report/logs_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>

#include "evidence/log_reader.h"

namespace servescope {
namespace {

nlohmann::json fact_json(const Fact& f) {
  std::string s;
  append_fact_json(s, f);
  return nlohmann::json::parse(s);
}

TEST(LogsJson, NumbersRoundTripExactly) {
  Fact f;
  f.kind = "t";
  f.line = 7;
  const double values[] = {0.42,  3456.78, 0.5,    1.0, -2.25, 0.1 + 0.2,
                           1e-05, 1e20,    123.45, 0.0, -0.01, 999999999.99};
  for (std::size_t i = 0; i < std::size(values); ++i)
    f.fields.push_back({"d" + std::to_string(i), Value(values[i])});
  f.fields.push_back({"i", Value(std::int64_t{-42})});
  f.fields.push_back({"nan", Value(std::numeric_limits<double>::quiet_NaN())});
  const nlohmann::json j = fact_json(f);
  for (std::size_t i = 0; i < std::size(values); ++i) {
    const nlohmann::json& v = j["fields"]["d" + std::to_string(i)];
    ASSERT_TRUE(v.is_number_float()) << i << ": " << v.dump();
    EXPECT_EQ(v.get<double>(), values[i]) << v.dump();
  }
  std::string text;
  append_fact_json(text, f);
  EXPECT_NE(text.find("\"d0\":0.42,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"d2\":0.5,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"d3\":1.0,"), std::string::npos) << text;
  EXPECT_EQ(j["fields"]["i"], -42);
  EXPECT_TRUE(j["fields"]["nan"].is_null());
}

TEST(LogsJson, FactSchema) {
  Fact f;
  f.kind = "load_weight_end";
  f.line = 55;
  f.timestamp = "2025-03-08 12:29:21";
  f.rank.tp = 0;
  f.rank.label = "TP0";
  f.fields = {{"avail_mem_gb", Value(6.09)}, {"type", Value("Qwen2\"ForCausalLM\n")},
              {"bs", Value(IntList{1, 2})},  {"x", Value()},
              {"flag", Value(true)},         {"bs", Value(IntList{4})}};
  f.raw = "[2025-03-08 12:29:21 TP0] Load weight end. \\ \"quoted\" \x01";
  const nlohmann::json j = fact_json(f);
  EXPECT_EQ(j["kind"], "load_weight_end");
  EXPECT_EQ(j["line"], 55);
  EXPECT_EQ(j["time"], "2025-03-08 12:29:21");
  EXPECT_EQ(j["rank"]["label"], "TP0");
  EXPECT_EQ(j["rank"]["tp"], 0);
  EXPECT_FALSE(j["rank"].contains("dp"));
  EXPECT_EQ(j["fields"]["type"], "Qwen2\"ForCausalLM\n");
  EXPECT_EQ(j["fields"]["bs"], nlohmann::json::array({1, 2}));
  EXPECT_EQ(j["fields"]["bs_2"], nlohmann::json::array({4}));  // a repeated name is kept
  EXPECT_TRUE(j["fields"]["x"].is_null());
  EXPECT_EQ(j["fields"]["flag"], true);
  EXPECT_EQ(j["raw"], f.raw);
  EXPECT_EQ(j["partial"], false);
}

TEST(LogsJson, StreamedDocumentIsValidAndComplete) {
  const char* log =
      "[2025-03-08 12:29:13 TP0] Load weight begin. avail mem=21.63 GB\n"
      "[2025-03-08 12:29:30 TP0] Decode batch, #running-req: 3, #token: 10, token usage: 0.01, "
      "gen throughput (token/s): 12.50, #queue-req: 1\n"
      "something unknown\n";
  std::FILE* tmp = std::tmpfile();
  ASSERT_NE(tmp, nullptr);
  LogsJsonWriter writer(tmp, "x.log");
  LogReadOptions o;
  o.sink = &writer;
  auto facts = read_log_text(log, "x.log", o);
  ASSERT_TRUE(facts);
  writer.finish(*facts);
  std::rewind(tmp);
  std::string text;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, tmp))
    text.append(buf, n);
  std::fclose(tmp);
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["format"], "servescope.logs/1");
  EXPECT_EQ(j["engine"], "sglang");
  ASSERT_EQ(j["facts"].size(), 2u);
  EXPECT_EQ(j["facts"][1]["fields"]["gen_throughput_tok_per_s"], 12.5);
  EXPECT_EQ(j["counts"]["lines"], 3);
  EXPECT_EQ(j["counts"]["unknown"], 1);
  EXPECT_EQ(j["counts"]["facts_by_kind"]["decode_batch"], 1);
  EXPECT_EQ(j["timelines"][0]["peaks"]["running_req"]["value"], 3.0);
  EXPECT_EQ(j["timelines"][0]["points"][0]["queue_req"], 1);
  EXPECT_EQ(j["summary"]["capacity"][0]["name"], "free before load (P)");
  EXPECT_EQ(j["inferred_version"]["until"], "2025-03-08");
}

}  // namespace
}  // namespace servescope
