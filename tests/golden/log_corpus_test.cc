// The real SGLang logs of the corpus at $SERVESCOPE_CORPUS through `logs`: every full log parses
// with no unknown capacity line and the facts its text states; every SGLang case excerpt parses,
// and what the case records as logged matches the facts.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "evidence/log_reader.h"
#include "tests/golden/corpus.h"

namespace servescope {
namespace {

LogFacts read_raw(const std::string& name) {
  auto r = read_log_file(golden::corpus_dir() + "/raw/" + name);
  EXPECT_TRUE(r) << name << ": " << r.message();
  if (!r)
    return LogFacts();
  EXPECT_EQ(r->counts().unknown_capacity, 0u)
      << name << ": first "
      << (r->counts().unknown_capacity_samples.empty()
              ? std::string()
              : r->counts().unknown_capacity_samples.front().text);
  EXPECT_EQ(r->engine(), "sglang");
  return std::move(*r);
}

bool covers(const VersionInference& v, const std::string& date) {
  return v.known() && (v.from_date.empty() || v.from_date <= date) &&
         (v.until_date.empty() || date <= v.until_date);
}

double num(const LogFacts& f, const char* kind, const char* field) {
  const Fact* fact = f.first(kind);
  EXPECT_NE(fact, nullptr) << kind;
  if (fact == nullptr)
    return -1;
  auto v = fact->number(field);
  EXPECT_TRUE(v.has_value()) << kind << "." << field;
  return v.value_or(-1);
}

TEST(LogCorpus, QwQ32bOnFourL4sMarch2025) {
  LogFacts f = read_raw("sglang-didier-durand_llms-in-clouds-docs_sglang.log");
  EXPECT_EQ(f.counts().lines, 91u);
  EXPECT_FALSE(f.server_args()->partial);
  EXPECT_EQ(f.server_arg("tp_size")->as_int(), 4);
  EXPECT_DOUBLE_EQ(f.server_arg("mem_fraction_static")->as_number(), 0.85);
  EXPECT_EQ(f.server_arg("cuda_graph_max_bs")->as_int(), 80);
  EXPECT_EQ(f.server_arg("random_seed")->as_int(), 811642422);
  EXPECT_TRUE(f.server_arg("max_running_requests")->is_none());
  EXPECT_EQ(f.server_arg("json_model_override_args")->as_string(), "{}");
  EXPECT_NE(f.launch_command().find("--tensor-parallel-size 4"), std::string::npos);
  EXPECT_DOUBLE_EQ(num(f, "load_weight_begin", "avail_mem_gb"), 21.63);
  EXPECT_DOUBLE_EQ(num(f, "load_weight_end", "avail_mem_gb"), 6.09);
  EXPECT_DOUBLE_EQ(num(f, "load_weight_end", "mem_usage_gb"), 15.54);
  EXPECT_EQ(f.first("load_weight_end")->rank.label, "TP0");
  EXPECT_EQ(f.first("load_weight_end")->line, 55u);
  EXPECT_EQ(f.count("load_weight_end"), 4u);
  EXPECT_EQ(f.first("kv_cache_allocated")->integer("tokens"), 46611);
  EXPECT_DOUBLE_EQ(num(f, "memory_pool_end", "avail_mem_gb"), 2.09);
  EXPECT_DOUBLE_EQ(num(f, "cuda_graph_capture_begin", "avail_mem_gb"), 1.45);
  EXPECT_DOUBLE_EQ(num(f, "cuda_graph_capture_end", "mem_usage_gb"), 0.93);
  EXPECT_DOUBLE_EQ(num(f, "cuda_graph_capture_end", "elapsed_s"), 7.23);
  const Fact* cap = f.first("capacity");
  ASSERT_NE(cap, nullptr);
  EXPECT_EQ(cap->line, 73u);
  EXPECT_EQ(cap->integer("max_total_num_tokens"), 46611);
  EXPECT_EQ(cap->integer("chunked_prefill_size"), 2048);
  EXPECT_EQ(cap->integer("max_prefill_tokens"), 16384);
  EXPECT_EQ(cap->integer("max_running_requests"), 2049);
  EXPECT_EQ(cap->integer("context_len"), 131072);
  EXPECT_EQ(f.count("capacity"), 4u);
  EXPECT_EQ(f.first("capacity", "TP3")->line, 74u);
  EXPECT_EQ(f.first("prefill_batch")->integer("new_token"), 6);
  EXPECT_EQ(f.count("server_ready"), 1u);
  EXPECT_EQ(f.summary().tp, 4);
  EXPECT_TRUE(covers(f.version(), "2025-03-08"));
  EXPECT_EQ(f.version().from_date, "2025-03-04");
  EXPECT_TRUE(f.version().consistent);
}

TEST(LogCorpus, Llama31QuickstartJanuary2025) {
  LogFacts f = read_raw("sglang-docs_sglang_ai-quickstart-send_request.log");
  EXPECT_EQ(f.server_arg("model_path")->as_string(), "meta-llama/Meta-Llama-3.1-8B-Instruct");
  EXPECT_EQ(f.server_arg("chunked_prefill_size")->as_int(), 8192);
  EXPECT_EQ(f.server_arg("cuda_graph_max_bs")->as_int(), 160);
  EXPECT_DOUBLE_EQ(num(f, "load_weight_begin", "avail_mem_gb"), 78.81);
  EXPECT_DOUBLE_EQ(num(f, "load_weight_end", "avail_mem_gb"), 63.72);
  EXPECT_FALSE(f.first("load_weight_end")->has("mem_usage_gb"));
  EXPECT_FALSE(f.first("kv_cache_allocated")->has("tokens"));
  EXPECT_DOUBLE_EQ(num(f, "kv_cache_allocated", "k_size_gb"), 27.13);
  EXPECT_DOUBLE_EQ(num(f, "memory_pool_end", "avail_mem_gb"), 8.34);
  EXPECT_DOUBLE_EQ(num(f, "cuda_graph_capture_end", "elapsed_s"), 6.57);
  EXPECT_EQ(f.first("capacity")->integer("max_total_num_tokens"), 444500);
  EXPECT_EQ(f.first("capacity")->integer("max_running_requests"), 2049);
  EXPECT_FALSE(f.first("capacity")->has("chunked_prefill_size"));
  EXPECT_DOUBLE_EQ(num(f, "prefill_batch", "cache_hit_rate_pct"), 0.0);
  EXPECT_TRUE(covers(f.version(), "2025-01-23"));
  EXPECT_EQ(f.version().from_date, "2025-01-13");
  EXPECT_EQ(f.version().until_date, "2025-01-23");
}

TEST(LogCorpus, R1DistillOnRtx3090BehindDockerTimestamps) {
  LogFacts f = read_raw("sglang-jerryzsj_my-deepseek-r1-README.log");
  EXPECT_EQ(f.server_arg("cuda_graph_max_bs")->as_int(), 8);
  EXPECT_DOUBLE_EQ(num(f, "load_weight_begin", "avail_mem_gb"), 22.76);
  EXPECT_DOUBLE_EQ(num(f, "load_weight_end", "avail_mem_gb"), 8.37);
  EXPECT_DOUBLE_EQ(num(f, "kv_cache_allocated", "v_size_gb"), 2.82);
  EXPECT_DOUBLE_EQ(num(f, "memory_pool_end", "avail_mem_gb"), 1.68);
  EXPECT_EQ(f.first("capacity")->integer("max_total_num_tokens"), 105531);
  EXPECT_EQ(f.first("capacity")->integer("chunked_prefill_size"), 2048);
  EXPECT_EQ(f.first("capacity")->timestamp, "2025-02-04 05:29:20");
  EXPECT_TRUE(covers(f.version(), "2025-02-04"));
}

TEST(LogCorpus, Lfm2BenchOneBatchDecember2025) {
  LogFacts f = read_raw("sglang-lfm2-700m-bench_one_batch.log");
  EXPECT_EQ(f.first("launch_command")->text("program"), "sglang.bench_one_batch");
  EXPECT_DOUBLE_EQ(num(f, "load_weight_begin", "avail_mem_gb"), 15.33);
  EXPECT_DOUBLE_EQ(num(f, "load_weight_end", "avail_mem_gb"), 13.81);
  EXPECT_DOUBLE_EQ(num(f, "load_weight_end", "mem_usage_gb"), 1.52);
  EXPECT_EQ(f.first("mamba_cache_allocated")->integer("max_mamba_cache_size"), 85292);
  EXPECT_DOUBLE_EQ(num(f, "mamba_cache_allocated", "conv_state_size_gb"), 4.88);
  EXPECT_EQ(f.first("kv_cache_allocated")->integer("tokens"), 473854);
  EXPECT_EQ(f.first("kv_cache_dtype")->text("dtype"), "torch.bfloat16");
  EXPECT_EQ(*f.first("cuda_graph_bs")->int_list("bs"), (IntList{1, 2, 4, 8}));
  EXPECT_EQ(f.first("capacity")->integer("max_total_num_tokens"), 473854);
  EXPECT_EQ(f.version().printed_version, "0.5.6.post2");
  EXPECT_TRUE(covers(f.version(), "2025-12-29"));
  EXPECT_TRUE(f.version().consistent);
}

// --- cases.jsonl ---------------------------------------------------------------------------

struct Case {
  std::string id;
  std::string raw_log;
  nlohmann::json outcomes;
};

std::vector<Case> sglang_cases() {
  std::vector<Case> out;
  std::ifstream in(golden::corpus_dir() + "/cases.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty())
      continue;
    const nlohmann::json j = nlohmann::json::parse(line);
    if (j.value("engine", "") != "sglang" || !j["raw_log"].is_string())
      continue;
    out.push_back({j["id"], j["raw_log"], j["outcomes"]});
  }
  return out;
}

// Cases whose `raw_log` is a summary written by a person, not log lines: nothing to parse.
const std::map<std::string, std::string> kNotLogs = {
    {"sglang-pr36583-tp4-eagle-4xH200-emulated80GB",
     "a Markdown table of before/after figures from a PR description"},
    {"sglang-pr36310-qwen3.6-35b-a3b-fp8-rtxpro6000",
     "a PR's environment summary (\"normal request limit: 37\"), not log lines"},
};

TEST(LogCorpus, EverySglangCaseExcerptParses) {
  const std::vector<Case> cases = sglang_cases();
  ASSERT_GE(cases.size(), 15u);
  for (const Case& c : cases) {
    auto r = read_log_text(c.raw_log, c.id);
    if (kNotLogs.count(c.id) != 0) {
      EXPECT_FALSE(r) << c.id << " is listed as not a log: " << kNotLogs.at(c.id);
      continue;
    }
    ASSERT_TRUE(r) << c.id << ": " << r.message();
    EXPECT_EQ(r->counts().unknown_capacity, 0u)
        << c.id << ": " << r->counts().unknown_capacity_samples.front().text;
  }
}

// What each case records as logged is what the facts say (first line of the primary rank).
TEST(LogCorpus, CaseOutcomesMatchTheFacts) {
  struct Check {
    const char* outcome;
    const char* kind;
    const char* field;
  };
  const Check checks[] = {
      {"avail_mem_before_load_gb", "load_weight_begin", "avail_mem_gb"},
      {"avail_mem_after_load_gb", "load_weight_end", "avail_mem_gb"},
      {"weight_mem_per_gpu_gb", "load_weight_end", "mem_usage_gb"},
      {"kv_cache_tokens", "kv_cache_allocated", "tokens"},
      {"avail_mem_after_pool_gb", "memory_pool_end", "avail_mem_gb"},
      {"max_total_num_tokens", "capacity", "max_total_num_tokens"},
      {"max_running_requests", "capacity", "max_running_requests"},
      {"max_prefill_tokens", "capacity", "max_prefill_tokens"},
      {"chunked_prefill_size", "capacity", "chunked_prefill_size"},
      {"context_len", "capacity", "context_len"},
      {"available_gpu_mem_gb", "capacity", "available_gpu_mem_gb"},
      {"max_mamba_cache_size", "mamba_cache_allocated", "max_mamba_cache_size"},
      {"cuda_graph_mem_gb", "cuda_graph_capture_end", "mem_usage_gb"},
      {"avail_mem_after_cuda_graph_gb", "cuda_graph_capture_end", "avail_mem_gb"},
  };
  // Outcomes a case records from elsewhere than its own first primary-rank line, with why.
  const std::set<std::pair<std::string, std::string>> kElsewhere = {
      // The annotator rounded TP0's 193.92 to 193.9.
      {"sglang-glm5-fp8-8xMI35x-fp8kv", "avail_mem_after_load_gb"},
      // Taken from the ServerArgs dump; the excerpt has no final capacity line.
      {"sglang-issue25118-dsv4-flash-fp8-4xMI300X-dp4-fail", "chunked_prefill_size"},
      {"sglang-issue25118-dsv4-flash-fp8-4xMI300X-dp4-fail", "max_running_requests"},
      // The failure is in the title, not in the excerpt.
      {"sglang-issue25118-dsv4-flash-fp8-4xMI300X-dp4-fail", "startup_failed"},
      // No TP0 pool line in the excerpt; the case records TP2's 12.45, the first rank seen
      // (TP3) printed 12.68.
      {"sglang-pr15909-qwen3-omni-30b-a3b-tp4", "avail_mem_after_pool_gb"},
      // Before 2025-03-04 the KV line had no #tokens; the case takes T from the final line.
      {"sglang-docs-quickstart-llama31-8b", "kv_cache_tokens"},
      {"sglang-my-deepseek-r1-distill-qwen7b-rtx3090", "kv_cache_tokens"},
  };
  int compared = 0;
  for (const Case& c : sglang_cases()) {
    if (kNotLogs.count(c.id) != 0)
      continue;
    auto r = read_log_text(c.raw_log, c.id);
    ASSERT_TRUE(r) << c.id;
    for (const Check& k : checks) {
      const nlohmann::json& v =
          c.outcomes.contains(k.outcome) ? c.outcomes[k.outcome] : nlohmann::json();
      if (!v.is_number() || kElsewhere.count({c.id, k.outcome}) != 0)
        continue;
      const Fact* f = r->first(k.kind);
      if (f == nullptr) {
        ADD_FAILURE() << c.id << ": no " << k.kind << " for " << k.outcome;
        continue;
      }
      auto got = f->number(k.field);
      if (!got) {
        ADD_FAILURE() << c.id << ": " << k.kind << " has no " << k.field;
        continue;
      }
      EXPECT_NEAR(*got, v.get<double>(), 1e-9) << c.id << " " << k.outcome;
      ++compared;
    }
    if (c.outcomes.contains("cuda_graph_bs") && c.outcomes["cuda_graph_bs"].is_array()) {
      const Fact* f = r->first("cuda_graph_bs");
      ASSERT_NE(f, nullptr) << c.id;
      EXPECT_EQ(*f->int_list("bs"), c.outcomes["cuda_graph_bs"].get<IntList>()) << c.id;
      ++compared;
    }
    if (c.outcomes.value("startup_failed", false) &&
        kElsewhere.count({c.id, "startup_failed"}) == 0) {
      EXPECT_GE(r->count("startup_failure"), 1u) << c.id;
      ++compared;
    }
  }
  EXPECT_GE(compared, 60);
}

TEST(LogCorpus, RepresentativeCaseFacts) {
  std::map<std::string, LogFacts> by_id;
  for (const Case& c : sglang_cases()) {
    if (kNotLogs.count(c.id) == 0)
      by_id.emplace(c.id, std::move(*read_log_text(c.raw_log, c.id)));
  }
  // Qwen3-Omni: a launch command continued over seven lines, four ranks, the 52-size list.
  const LogFacts& omni = by_id.at("sglang-pr15909-qwen3-omni-30b-a3b-tp4");
  EXPECT_EQ(omni.launch_command(),
            "python -m sglang.launch_server --model-path Qwen/Qwen3-Omni-30B-A3B-Instruct --tp 4 "
            "--host 0.0.0.0 --port 30000 --trust-remote-code --download-dir ./hf_cache");
  EXPECT_EQ(omni.first("cuda_graph_bs")->int_list("bs")->size(), 52u);
  EXPECT_EQ(omni.first("cuda_graph_bs")->int_list("bs")->back(), 512);
  EXPECT_EQ(omni.first("kv_cache_allocated")->rank.label, "TP2");  // no TP0 line: first rank
  EXPECT_TRUE(covers(omni.version(), "2025-12-28"));

  // DeepSeek-V4 with DP attention: DP0 TP0 tags, the model-specific pool lines, the dump.
  const LogFacts& dsv4 = by_id.at("sglang-issue25118-dsv4-flash-fp8-4xMI300X-dp4-fail");
  EXPECT_EQ(dsv4.server_arg("dp_size")->as_int(), 4);
  EXPECT_EQ(dsv4.server_arg("max_running_requests")->as_int(), 256);
  EXPECT_TRUE(dsv4.server_args()->partial);
  EXPECT_EQ(dsv4.first("load_weight_end")->rank.label, "DP0 TP0");
  EXPECT_EQ(dsv4.first("load_weight_end")->rank.dp, 0);
  const auto details = dsv4.all_of("kv_pool_detail");
  ASSERT_EQ(details.size(), 2u);
  EXPECT_EQ(details[0]->integer("full_token"), 529408);
  EXPECT_EQ(details[1]->integer("swa_size"), 423424);
  EXPECT_EQ(dsv4.count("setting_adjusted"), 3u);
  EXPECT_TRUE(covers(dsv4.version(), "2026-05-12"));

  // Ling-3 (Aug 2026): the newest forms.
  const LogFacts& ling = by_id.at("sglang-ling3-tiny-bf16-cookbook");
  EXPECT_EQ(ling.first("kv_cache_allocated")->text("dtype"), "torch.bfloat16");
  EXPECT_EQ(ling.first("kv_cache_allocated")->integer("tokens"), 1933682);
  EXPECT_DOUBLE_EQ(*ling.first("mamba_cache_allocated")->number("ssm_state_size_gb"), 10.81);
  EXPECT_EQ(ling.first("cuda_graph_capture_begin")->text("graph"), "target decode");
  EXPECT_EQ(ling.version().from_date, "2026-07-13");
  EXPECT_TRUE(covers(ling.version(), "2026-08-17"));

  // MiniCPM-SALA: the capture list, then the failure.
  const LogFacts& sala = by_id.at("sglang-minicpm-sala-1gpu-oom-at-cuda-graph");
  EXPECT_EQ(*sala.first("cuda_graph_bs")->int_list("bs"), (IntList{1, 2, 4, 8, 12, 16, 20}));
  EXPECT_GT(sala.first("startup_failure")->line, sala.first("cuda_graph_bs")->line);
  EXPECT_EQ(sala.first("kv_pool_detail")->text("pool"), "MiniCPMHybridReqToTokenPool");

  // GLM-5: the MLA "KV size" form and a run in February 2026.
  const LogFacts& glm = by_id.at("sglang-glm5-fp8-8xMI35x-fp8kv");
  EXPECT_DOUBLE_EQ(*glm.first("kv_cache_allocated")->number("kv_size_gb"), 186.77);
  EXPECT_TRUE(covers(glm.version(), "2026-02-18"));

  // DeepSeek-V4-Pro on H200: the startup failure the case is about.
  const LogFacts& pro = by_id.at("sglang-inferencex2128-dsv4pro-fp8-8xH200-fail");
  EXPECT_EQ(pro.first("startup_failure")->text("error"), "ValueError");
  EXPECT_TRUE(pro.first("load_weight_end")->partial);
}

}  // namespace
}  // namespace servescope
