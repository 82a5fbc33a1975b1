// R5.1–R5.7 and R5.15: max_running_requests
// (kv_cache_configurator.py::KVCacheConfigurator.resolve_max_num_reqs).
#include <fmt/format.h>

#include <algorithm>

#include "engines/sglang/capacity_rules.h"

namespace servescope::sglang {
namespace {

constexpr char kSource[] = "kv_cache_configurator.py::KVCacheConfigurator.resolve_max_num_reqs";

}  // namespace

void resolve_running_requests(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  Plan& plan = ctx.plan;
  const std::int64_t tokens = g.value("max_total_num_tokens").as_int();

  const SglangRules& r = ctx.rules;
  const RunningRequestsEra era = r.running_requests;
  // R5.3: the estimate from the KV capacity (clamped to 5120 before 2024-09-10).
  const std::int64_t raw = static_cast<std::int64_t>(static_cast<double>(tokens) /
                                                     static_cast<double>(a.context_len) * 512);
  const std::int64_t upper = era == RunningRequestsEra::kPoolMinusOne ? 5120 : 4096;
  const std::int64_t estimated = std::clamp<std::int64_t>(raw, 2048, upper);
  g.add(
      {"max_running_requests.estimated",
       estimated,
       "requests",
       "R5.3",
       fmt::format("clamp(int({} / {} · 512) = {}, 2048, {}).", tokens, a.context_len, raw, upper),
       kSource,
       {"max_total_num_tokens", "context_len"}});
  const std::int64_t half = tokens / 2;
  g.add({"max_total_num_tokens.half",
         half,
         "requests",
         "R5.4",
         "Each running request needs at least two KV tokens.",
         kSource,
         {"max_total_num_tokens"}});

  // The mamba cap (R5.6): slots // ratio; in the 2025-09 … 10-12 era ratio is 1.
  bool has_mamba_cap = false;
  std::int64_t mamba_cap = 0;
  if (a.hybrid_linear && g.find("max_mamba_cache_size") != nullptr) {
    const std::int64_t slots = g.value("max_mamba_cache_size").as_int();
    const std::int64_t ratio = g.value("mamba_ratio").as_int();
    mamba_cap = slots / ratio;
    has_mamba_cap = true;
    g.add({"max_running_requests.mamba_cap",
           mamba_cap,
           "requests",
           "R5.6",
           fmt::format("max_mamba_cache_size {} // {} slots per request.", slots, ratio),
           kSource,
           {"max_mamba_cache_size", "mamba_ratio"}});
  }

  std::int64_t m = 0;
  std::optional<std::int64_t> requested;
  std::string why;
  std::vector<std::string> inputs;
  std::string rule = "R5.4";
  const std::optional<std::int64_t> user = a.max_running_requests;
  if (user)
    requested = *user / a.attn_dp;
  switch (era) {
    case RunningRequestsEra::kUserRespected:
    case RunningRequestsEra::kUserClampedByEstimate: {
      if (user) {
        const bool respected = era == RunningRequestsEra::kUserRespected;
        m = std::min(*requested, respected ? half : estimated);
        why = respected
                  ? fmt::format("min(requested {} // attn-DP {}, T//2 {}).", *user, a.attn_dp, half)
                  : fmt::format(
                        "min(requested {} // dp {}, estimate {}) (2026-03-08 … 06-11, #20142).",
                        *user, a.attn_dp, estimated);
        inputs = {"max_running_requests.requested", "attn_dp_size",
                  respected ? "max_total_num_tokens.half" : "max_running_requests.estimated"};
      } else {
        m = std::min(estimated, half);
        why = fmt::format("No explicit value: min(estimate {}, T//2 {}).", estimated, half);
        inputs = {"max_running_requests.estimated", "max_total_num_tokens.half"};
      }
      break;
    }
    case RunningRequestsEra::kPoolMinusOne:
    case RunningRequestsEra::kPool:
    case RunningRequestsEra::kPoolPlusOne:
    case RunningRequestsEra::kPoolAgain: {
      // The request pool (req_to_token_pool.size) is the user's value or the estimate, capped
      // by the mamba slots; the printed value is min(T//2 or user // dp, pool).
      std::int64_t pool =
          user ? (r.user_pool_divided_by_dp ? *user / a.attn_dp : *user) : estimated;
      std::string pool_why =
          user ? "the requested value" : fmt::format("the estimate {}", estimated);
      if (has_mamba_cap && mamba_cap < pool) {
        pool = mamba_cap;
        pool_why = fmt::format("the mamba cap {}", mamba_cap);
      }
      if (era == RunningRequestsEra::kPoolPlusOne) {
        pool += 1;
        pool_why += " + 1";
      }
      g.add({"req_to_token_pool_size",
             pool,
             "requests",
             "R5.13",
             fmt::format("The request table has {} rows: {}.", pool, pool_why),
             "model_executor/model_runner.py::ModelRunner.init_memory_pool",
             {"max_running_requests.estimated", "max_running_requests.requested"}});
      const std::int64_t first = user ? *requested : half;
      const std::int64_t cap = era == RunningRequestsEra::kPoolMinusOne ? pool - 1 : pool;
      m = std::min(first, cap);
      why = fmt::format("min({} {}, request pool {}{}).", user ? "requested" : "T//2", first, pool,
                        era == RunningRequestsEra::kPoolMinusOne ? " − 1" : "");
      inputs = {user ? "max_running_requests.requested" : "max_total_num_tokens.half",
                "req_to_token_pool_size"};
      rule = "R5.13";
      has_mamba_cap = false;  // already inside the pool
      break;
    }
  }
  g.add({"max_running_requests.kv_bound", m, "requests", rule, why, kSource, inputs});

  std::vector<std::string> final_inputs = {"max_running_requests.kv_bound"};
  std::string final_why = "Bounded by the KV cache only.";
  if (has_mamba_cap) {
    final_inputs.push_back("max_running_requests.mamba_cap");
    rule = "R5.6";
    if (mamba_cap < m) {
      final_why = fmt::format(
          "The mamba state cap {} is below the KV bound {}: hybrid models run at most "
          "max_mamba_cache_size // ratio requests.",
          mamba_cap, m);
      m = mamba_cap;
    } else if (requested && m == *requested) {
      final_why = fmt::format("The requested {} fits under the KV bound and the mamba cap {}.", m,
                              mamba_cap);
    } else {
      final_why = fmt::format("The KV bound {} is below the mamba state cap {}.", m, mamba_cap);
    }
  } else if (g.find("req_to_token_pool_size") != nullptr) {
    final_why = "The request pool bounds it (this version sizes the pool first).";
  } else if (requested && m == *requested) {
    final_why = fmt::format("The requested {} fits under the KV bound.", m);
  }
  g.add({"max_running_requests", m, "requests", rule, final_why, kSource, final_inputs});
  if (m <= 0 && plan.starts) {
    plan.starts = false;
    plan.startup_error =
        "RuntimeError: Hybrid (mamba/linear-attention) state cache is too small to serve any "
        "requests.";
    ctx.finding(Severity::kError, "no-running-requests", {},
                "No request fits: SGLang fails at startup.", "R5.6", kSource);
  }
  if (requested && m < *requested) {
    const bool mamba = a.hybrid_linear && final_why.rfind("The mamba state cap", 0) == 0;
    ctx.finding(
        Severity::kWarning, mamba ? "running-requests-capped-by-mamba" : "running-requests-reduced",
        {ctx.typed("max_running_requests")},
        fmt::format("max_running_requests is {} per DP worker, below the requested {}: {}", m,
                    *requested,
                    mamba ? "the mamba state pool caps it" : "the KV cache capacity caps it"),
        rule, kSource);
  }

  // R5.15: decode graphs are captured only up to req_to_token_pool.size (= max_running_requests).
  if (a.decode_graph_backend != "disabled") {
    std::vector<std::int64_t> captured;
    for (std::int64_t bs : a.decode_bs) {
      if (bs <= m)
        captured.push_back(bs);
    }
    if (m > 0 && std::find(captured.begin(), captured.end(), m) == captured.end() &&
        m < a.decode_max_bs) {
      captured.push_back(m);
    }
    g.add({"cuda_graph_bs",
           IntList(captured),
           "requests",
           "R5.15",
           fmt::format("Decode sizes up to min(max_bs {}, max_running_requests {}).",
                       a.decode_max_bs, m),
           "runner/base_cuda_graph_runner.py::get_batch_sizes_to_capture",
           {"cuda_graph_bs_decode.resolved", "max_running_requests"}});
    const std::int64_t eff =
        captured.empty() ? 0 : *std::max_element(captured.begin(), captured.end());
    g.add({"cuda_graph_max_bs",
           eff,
           "requests",
           "R5.15",
           eff < a.decode_max_bs
               ? fmt::format("Configured {} but captured only up to max_running_requests.",
                             a.decode_max_bs)
               : std::string("The configured decode max_bs."),
           "runner/base_cuda_graph_runner.py::get_batch_sizes_to_capture",
           {"cuda_graph_bs"}});
  } else {
    g.add({"cuda_graph_bs",
           IntList{},
           "requests",
           "R5.15",
           "Decode CUDA graphs are disabled.",
           "runner/base_cuda_graph_runner.py::get_batch_sizes_to_capture",
           {"cuda_graph_backend_decode.resolved"}});
    g.add({"cuda_graph_max_bs",
           std::int64_t{0},
           "requests",
           "R5.15",
           "Decode CUDA graphs are disabled.",
           "runner/base_cuda_graph_runner.py::get_batch_sizes_to_capture",
           {"cuda_graph_bs"}});
  }
}

}  // namespace servescope::sglang
