#include "engines/sglang/sglang_hypotheses.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "engines/sglang/sglang_flags.h"
#include "engines/sglang/sglang_rules.h"

namespace servescope::sglang {
namespace {

void toggle(std::vector<ScenarioChange>& out, const Scenario& s, const std::string& canonical) {
  if (s.command.find(canonical) != nullptr) {
    out.push_back(remove_flag_change(canonical, s));
  } else {
    out.push_back(set_flag_change(canonical, canonical, {}, s));
  }
}

void choices(std::vector<ScenarioChange>& out, const Scenario& s, const std::string& canonical,
             const std::vector<std::string>& values) {
  const FlagSetting* current = s.command.find(canonical);
  for (const std::string& v : values) {
    if (current != nullptr && current->value() == v)
      continue;
    out.push_back(set_flag_change(canonical, canonical, {v}, s));
  }
  if (current != nullptr)
    out.push_back(remove_flag_change(canonical, s));
}

}  // namespace

std::vector<ScenarioChange> sglang_candidate_changes(const Scenario& s) {
  std::vector<ScenarioChange> out;
  const ModelShape& m = s.model;
  for (const char* flag :
       {"--disable-radix-cache", "--disable-overlap-schedule", "--disable-cuda-graph",
        "--disable-cuda-graph-padding", "--enable-torch-compile",
        "--enable-flashinfer-allreduce-fusion", "--enable-fused-moe-sum-all-reduce",
        "--enforce-disable-flashinfer-allreduce-fusion"}) {
    toggle(out, s, flag);
  }
  if (m.multimodal)
    toggle(out, s, "--language-only");
  choices(out, s, "--kv-cache-dtype", {"fp8_e4m3", "bf16"});
  choices(out, s, "--cuda-graph-backend-prefill", {"disabled", "breakable", "tc_piecewise"});
  choices(out, s, "--page-size", {"16", "64"});
  if (m.is_hybrid_linear()) {
    choices(out, s, "--mamba-ssm-dtype", {"float32", "bfloat16"});
    choices(out, s, "--mamba-radix-cache-strategy",
            {"no_buffer", "extra_buffer", "extra_buffer_lazy"});
    choices(out, s, "--linear-attn-backend", {"triton", "flashinfer"});
  }
  choices(out, s, "--speculative-algorithm", {"EAGLE"});
  for (const char* tp : {"1", "2", "4", "8"}) {
    const FlagSetting* current = s.command.find("--tp-size");
    if (current != nullptr && current->value() == tp)
      continue;
    if (current == nullptr && std::string(tp) == "1")
      continue;
    out.push_back(set_flag_change("--tp-size", "--tp", {tp}, s));
  }
  // Every dated variant: one change per rule change point (the version a server really ran).
  std::set<std::string> dates;
  for (const ChangePoint& c : change_points())
    dates.insert(c.date);
  for (const std::string& d : dates) {
    if (d == s.version.main_date)
      continue;
    const RuleVariant v = rules_for_date(d);
    ScenarioChange c;
    c.kind = ScenarioChange::Kind::kVersion;
    c.subject = "version";
    c.version = EngineVersion{
        d,
        d,
        fmt::format("main-branch date (rules since {} {})", v.latest->pr, v.latest->what),
        {}};
    c.label = fmt::format("sglang {} → main {} ({} {})", s.version.label, d, v.latest->pr,
                          v.latest->what);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<NumericInput> sglang_numeric_inputs(const Scenario& s) {
  std::vector<NumericInput> out = {
      {"--mem-fraction-static", "--mem-fraction-static", 0.30, 0.98, false},
      {"--max-running-requests", "--max-running-requests", 1, 8192, true},
      {"--max-total-tokens", "--max-total-tokens", 1024, 1e8, true},
      {"--chunked-prefill-size", "--chunked-prefill-size", 512, 65536, true},
      {"--context-length", "--context-length", 1024,
       static_cast<double>(std::max<std::int64_t>(s.model.context_length, 1024)), true},
  };
  if (s.model.is_hybrid_linear()) {
    out.push_back({"--mamba-full-memory-ratio", "--mamba-full-memory-ratio", 0.05, 20, false});
    out.push_back({"--max-mamba-cache-size", "--max-mamba-cache-size", 1, 100000, true});
  }
  if (s.command.find("--speculative-algorithm") != nullptr) {
    out.push_back(
        {"--speculative-num-draft-tokens", "--speculative-num-draft-tokens", 2, 16, true});
  }
  return out;
}

}  // namespace servescope::sglang
