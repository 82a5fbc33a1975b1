// R6.1–R6.10 and R5.8: the mamba (linear-attention) state pool
// (configs/mamba_utils.py, kv_cache_configurator.py::KVCacheConfigurator._handle_max_mamba_cache).
#include <fmt/format.h>

#include <cmath>

#include "catalog/recurrent_layout.h"
#include "core/units.h"
#include "engines/sglang/capacity_rules.h"

namespace servescope::sglang {
namespace {

constexpr char kConfigurator[] = "kv_cache_configurator.py::KVCacheConfigurator";

double state_dtype_bytes(const std::string& dtype) {
  if (dtype == "float32")
    return 4;
  return 2;  // bfloat16, float16
}

// R6.4: flag (sets SGLANG_MAMBA_SSM_DTYPE) > environment > config.json > float32.
std::string resolve_ssm_dtype(PlanContext& ctx, std::string* why) {
  auto flag = ctx.in.optional_text("mamba_ssm_dtype");
  if (flag) {
    *why = "--mamba-ssm-dtype sets SGLANG_MAMBA_SSM_DTYPE, which overrides config.json.";
    return *flag;
  }
  const auto& env = ctx.scenario.environment;
  if (auto it = env.find("SGLANG_MAMBA_SSM_DTYPE"); it != env.end()) {
    *why = "SGLANG_MAMBA_SSM_DTYPE overrides config.json.";
    return it->second;
  }
  const std::string& cfg = ctx.scenario.model.linear->ssm_dtype;
  if (cfg == "float32" || cfg == "bfloat16" || cfg == "float16") {
    *why = fmt::format("config.json {}mamba_ssm_dtype.", ctx.scenario.model.text_prefix);
    return cfg;
  }
  *why = "Default float32 (config.json has no valid mamba_ssm_dtype).";
  return "float32";
}

// R6.1–R6.5 for Gated-DeltaNet: SGLang sizes its state with Mamba2StateShape, the key heads
// standing for the groups.
double gdn_state_bytes(PlanContext& ctx, const std::string& conv_dtype,
                       const std::string& ssm_dtype, int n_linear) {
  Derivation& g = ctx.graph();
  const ModelShape& m = ctx.scenario.model;
  const LinearAttentionDims& l = *m.linear;
  const std::int64_t tp = ctx.args.attn_tp;
  const std::string prefix = "config.json " + m.text_prefix;
  g.input("linear_num_key_heads", l.num_key_heads, "heads", Origin::kModelConfig,
          prefix + "linear_num_key_heads");
  g.input("linear_num_value_heads", l.num_value_heads, "heads", Origin::kModelConfig,
          prefix + "linear_num_value_heads");
  g.input("linear_key_head_dim", l.key_head_dim, "", Origin::kModelConfig,
          prefix + "linear_key_head_dim");
  g.input("linear_value_head_dim", l.value_head_dim, "", Origin::kModelConfig,
          prefix + "linear_value_head_dim");
  g.input("linear_conv_kernel_dim", l.conv_kernel, "", Origin::kModelConfig,
          prefix + "linear_conv_kernel_dim");
  g.input("linear_attention_layers", n_linear, "layers", Origin::kModelConfig,
          fmt::format("{}num_hidden_layers {} with full_attention_interval {}", prefix,
                      m.num_layers, l.full_attention_interval),
          "Layers i with (i+1) % full_attention_interval != 0 are linear "
          "(Qwen3NextConfig.layers_block_type).");

  // R6.1-R6.3: conv state.
  std::int64_t n_groups = l.num_key_heads;
  if (n_groups % tp != 0)
    n_groups += tp - n_groups;  // extra_groups_for_head_shards
  const std::int64_t conv_dim = static_cast<std::int64_t>(l.value_head_dim) * l.num_value_heads +
                                2 * n_groups * l.key_head_dim;
  g.add(
      {"mamba_conv_dim",
       conv_dim,
       "channels",
       "R6.2",
       fmt::format(
           "Dv·Hv + 2·n_groups·Dk = {}·{} + 2·{}·{} (n_groups {} after sharding over attn-TP {}).",
           l.value_head_dim, l.num_value_heads, n_groups, l.key_head_dim, n_groups, tp),
       "configs/mamba_utils.py::Mamba2StateShape.create",
       {"linear_value_head_dim", "linear_num_value_heads", "linear_num_key_heads",
        "linear_key_head_dim", "attn_tp_size"}});
  const double conv_bytes =
      static_cast<double>(conv_dim / tp) * (l.conv_kernel - 1) * state_dtype_bytes(conv_dtype);
  const double ssm_bytes = static_cast<double>(l.num_value_heads / tp) * l.value_head_dim *
                           l.key_head_dim * state_dtype_bytes(ssm_dtype);
  const double per_req = (conv_bytes + ssm_bytes) * n_linear;
  g.add(
      {"mamba_state_bytes_per_request",
       static_cast<std::int64_t>(per_req),
       "bytes",
       "R6.5",
       fmt::format("({} conv + {} ssm bytes per layer) × {} linear layers = {:.2f} MiB: conv "
                   "({}/{})·{} {}, "
                   "ssm ({}/{})·{}·{} {}.",
                   conv_bytes, ssm_bytes, n_linear, per_req / kMiB, conv_dim, tp, l.conv_kernel - 1,
                   conv_dtype, l.num_value_heads, tp, l.value_head_dim, l.key_head_dim, ssm_dtype),
       "configs/mamba_utils.py::BaseLinearStateParams.mamba_cache_per_req",
       {"mamba_conv_dim", "linear_conv_kernel_dim", "linear_num_value_heads",
        "linear_value_head_dim", "linear_key_head_dim", "mamba_ssm_dtype.resolved",
        "linear_attention_layers", "attn_tp_size"}});
  return per_req;
}

// R6.5 for the Mamba and short-convolution kinds: the same state-shape calculator as vLLM's
// (configs/mamba_utils.py Mamba2StateShape/Mamba1StateShape, no speculative rows). Not yet held
// against SGLang's own code: data/model-layouts.tsv lists these rows as checked on vLLM only.
double recurrent_state_bytes(PlanContext& ctx, const std::string& conv_dtype,
                             const std::string& ssm_dtype, int n_linear) {
  Derivation& g = ctx.graph();
  const ModelShape& m = ctx.scenario.model;
  const LinearAttentionDims& l = *m.linear;
  const RecurrentStateSize size = recurrent_state_size(l, static_cast<int>(ctx.args.attn_tp), 0);
  g.input("linear_attention_layers", n_linear, "layers", Origin::kModelConfig,
          fmt::format("config.json {}: the {} layers", m.text_prefix, recurrent_kind_name(l.kind)));
  const double conv_bytes = static_cast<double>(size.conv_elements) * state_dtype_bytes(conv_dtype);
  const double ssm_bytes = static_cast<double>(size.ssm_elements) * state_dtype_bytes(ssm_dtype);
  const double per_req = (conv_bytes + ssm_bytes) * n_linear;
  g.add({"mamba_state_bytes_per_request",
         static_cast<std::int64_t>(per_req),
         "bytes",
         "R6.5",
         fmt::format("({} conv + {} ssm bytes per layer) × {} {} layers = {:.2f} MiB: conv {} "
                     "{}, ssm {} {}.",
                     conv_bytes, ssm_bytes, n_linear, recurrent_kind_name(l.kind), per_req / kMiB,
                     size.conv_formula, conv_dtype, size.ssm_formula, ssm_dtype),
         "configs/mamba_utils.py::BaseLinearStateParams.mamba_cache_per_req",
         {"mamba_ssm_dtype.resolved", "linear_attention_layers", "attn_tp_size"}});
  return per_req;
}

}  // namespace

void resolve_mamba_pool(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  if (!a.hybrid_linear)
    return;
  Derivation& g = ctx.graph();
  Plan& plan = ctx.plan;
  if (ctx.rules.mamba == MambaPool::kAbsent) {
    plan.starts = false;
    plan.startup_error =
        "This SGLang version has no mamba state pool: hybrid linear-attention models arrived "
        "2025-09-11 (#10233).";
    ctx.finding(Severity::kError, "model-not-supported-in-version", {}, plan.startup_error, "R6",
                "model_executor/model_runner.py");
    return;
  }
  const ModelShape& m = ctx.scenario.model;
  const LinearAttentionDims& l = *m.linear;

  const int n_linear = m.recurrent_layers();
  const auto& env = ctx.scenario.environment;
  const std::string conv_dtype =
      env.count("SGLANG_MAMBA_CONV_DTYPE") ? env.at("SGLANG_MAMBA_CONV_DTYPE") : "bfloat16";
  std::string ssm_why;
  const std::string ssm_dtype = resolve_ssm_dtype(ctx, &ssm_why);
  a.mamba_ssm_dtype = ssm_dtype;
  g.add({"mamba_ssm_dtype.resolved",
         ssm_dtype,
         "",
         "R6.4",
         ssm_why,
         "configs/mamba_utils.py::mamba2_state_dtype",
         {"arg.mamba_ssm_dtype"}});
  const double per_req = l.kind == RecurrentKind::kGatedDeltaNet
                             ? gdn_state_bytes(ctx, conv_dtype, ssm_dtype, n_linear)
                             : recurrent_state_bytes(ctx, conv_dtype, ssm_dtype, n_linear);

  // R5.8: state slots per running request.
  const SglangRules& r = ctx.rules;
  std::int64_t ratio = 1;
  std::string ratio_why;
  const bool extra = a.mamba_strategy == "extra_buffer" || a.mamba_strategy == "extra_buffer_lazy";
  if (r.mamba == MambaPool::kFixed) {
    ratio = 1;
    ratio_why = "One slot per running request (2025-09-11 … 10-12).";
  } else if (a.disable_radix_cache) {
    ratio = 1;
    ratio_why = "--disable-radix-cache: one slot per running request.";
  } else if (r.mamba == MambaPool::kRatioSplit) {
    ratio = 3;
    ratio_why = "3 slots per request for the radix cache (2025-10-13 … 12-13).";
  } else if (!r.extra_buffer_ratio_by_overlap) {
    ratio = 3;
    ratio_why = "3 slots per request for the radix cache";
    if (extra) {
      ratio += a.speculative() ? 1 : 2;
      ratio_why += fmt::format(
          " + {} for extra_buffer ({})", a.speculative() ? 1 : 2,
          a.speculative() ? "with speculative decoding" : "without speculative decoding");
    } else if (r.mamba_no_buffer_ratio_bug) {
      ratio += 2;
      ratio_why += " + 2 that this version adds even for no_buffer (fixed 2026-01-05, #16138)";
    }
    ratio_why += ".";
  } else {
    ratio = 3;
    ratio_why = "3 slots per request for the radix cache";
    if (extra && !a.disable_overlap_schedule) {
      const std::int64_t add = a.mamba_strategy == "extra_buffer_lazy" ? 1 : 2;
      ratio += add;
      ratio_why += fmt::format(" + {} ping-pong buffer{} ({} with the overlap schedule)", add,
                               add > 1 ? "s" : "", a.mamba_strategy);
    } else if (extra) {
      ratio += 1;
      ratio_why += " + 1 buffer (extra_buffer without overlap)";
    } else {
      ratio_why += " (no_buffer adds none)";
    }
    ratio_why += ".";
  }
  g.add({"mamba_ratio",
         ratio,
         "slots/request",
         "R5.8",
         ratio_why,
         std::string(kConfigurator) + "._calculate_mamba_ratio",
         {"arg.disable_radix_cache", "mamba_radix_cache_strategy.resolved",
          "disable_overlap_schedule.resolved"}});

  // R6.6-R6.8: pool size.
  double rest = g.value("rest_gib").as_number();
  const double mamba_ratio_r = ctx.in.real("mamba_full_memory_ratio", r.mamba_full_memory_ratio);
  auto user_k = ctx.in.optional_integer("max_mamba_cache_size", "slots");
  const auto user_mrr = ctx.in.optional_integer("max_running_requests", "requests");
  const bool spec = a.speculative();
  const double draft = spec ? static_cast<double>(a.speculative_draft_tokens) : 0.0;
  const std::int64_t mrr = a.max_running_requests.value_or(0);
  const std::int64_t mrr_per_dp = mrr / a.attn_dp;
  std::int64_t k = 0;
  double intermediate_gib = 0;
  std::string why;
  std::vector<std::string> inputs = {"rest_gib", "mamba_state_bytes_per_request"};
  const bool fixed_pool =
      r.mamba == MambaPool::kFixed || (a.disable_radix_cache && r.mamba != MambaPool::kJointSolve);
  // S2 (2026-07-23, #32184): one more slot is kept beside the pool (the padding slot), so the
  // solve subtracts it first and the state memory counts K + 1 slots.
  const std::int64_t padding = r.mamba_padding_slot ? 1 : 0;
  if (user_k) {
    k = *user_k / a.attn_dp;
    why = fmt::format("--max-mamba-cache-size {} / attn-DP {}.", *user_k, a.attn_dp);
    inputs.push_back("arg.max_mamba_cache_size");
    if (spec && r.mamba >= MambaPool::kJointSolve) {
      intermediate_gib =
          per_req * static_cast<double>(std::min(mrr_per_dp, k / ratio) + padding) * draft / kGiB;
    }
  } else if (fixed_pool) {
    // 2025-09-11 …: the user's max_running_requests, else 512 slots (radix cache off later on).
    k = (user_mrr ? *user_mrr : 512) / a.attn_dp;
    why = user_mrr ? "One slot per allowed request: --max-running-requests."
                   : "The fixed default of 512 slots.";
    inputs.push_back("arg.max_running_requests");
  } else if (a.disable_radix_cache &&
             (user_mrr || (r.mamba >= MambaPool::kJointSolve && a.max_running_requests))) {
    // The configurator reads the resolved max_running_requests: the typed value, or (from the
    // joint solve on) speculative decoding's default 48 (engine oracle, 0.5.20).
    k = (user_mrr ? *user_mrr : *a.max_running_requests) / a.attn_dp;
    why = user_mrr ? "--disable-radix-cache with --max-running-requests: one slot per request."
                   : "--disable-radix-cache: one slot per request of speculative decoding's "
                     "max_running_requests.";
    inputs.push_back("arg.max_running_requests");
    if (spec)
      intermediate_gib = per_req * static_cast<double>(k + padding) * draft / kGiB;
  } else {
    double split_rest = rest;
    if (spec && r.mamba == MambaPool::kIntermediateFirst) {
      // 2025-12-14 … 2026-05-26: intermediates are reserved first, then the ratio split.
      const std::int64_t reqs =
          r.user_pool_divided_by_dp || r.mamba_no_buffer_ratio_bug ? mrr_per_dp : mrr;
      intermediate_gib = per_req * static_cast<double>(reqs) * draft / kGiB;
      split_rest = rest - intermediate_gib;
    }
    const double budget_gib = split_rest * mamba_ratio_r / (1 + mamba_ratio_r);
    g.add({"mamba_budget_gib",
           budget_gib,
           "GiB",
           "R6.8",
           fmt::format("rest · r/(1+r) with r = mamba_full_memory_ratio {}: {:.3f} · {:.4f}.",
                       mamba_ratio_r, split_rest, mamba_ratio_r / (1 + mamba_ratio_r)),
           std::string(kConfigurator) + "._handle_max_mamba_cache",
           {"rest_gib", "arg.mamba_full_memory_ratio"}});
    inputs = {"mamba_budget_gib", "mamba_state_bytes_per_request"};
    const double budget_bytes = budget_gib * kGiB;
    if (r.mamba == MambaPool::kRatioSplit) {
      // 2025-10-13 … 12-13: each slot also holds D speculative states.
      k = static_cast<std::int64_t>(std::floor(std::floor(budget_bytes / per_req) / (1 + draft)));
      why = fmt::format("budget // per_req // (1 + {} draft tokens).", draft);
      intermediate_gib = per_req * static_cast<double>(k) * draft / kGiB;
    } else if (spec && r.mamba == MambaPool::kJointSolve) {
      const double reserved = r.mamba_padding_slot ? per_req * (1 + draft) : 0.0;
      k = static_cast<std::int64_t>(std::floor(
          (budget_bytes - reserved) / (per_req * (1 + draft / static_cast<double>(ratio)))));
      why = fmt::format(
          "Joint solve with speculative intermediates: budget / (per_req · (1 + {}/{})).", draft,
          ratio);
      inputs.push_back("speculative_num_draft_tokens.resolved");
      inputs.push_back("mamba_ratio");
      intermediate_gib =
          per_req * static_cast<double>(std::min(mrr_per_dp, k / ratio) + padding) * draft / kGiB;
    } else {
      k = static_cast<std::int64_t>(
          std::floor((budget_bytes - static_cast<double>(padding) * per_req) / per_req));
      why = spec ? "Speculative intermediates were reserved first; then budget / per-request state."
                 : "budget / per-request state.";
    }
  }
  if (spec) {
    g.add({"mamba_speculative_intermediate_gib",
           intermediate_gib,
           "GiB",
           "R6.8",
           fmt::format("per_req · min(max_running_requests/dp, slots/ratio) · {} draft tokens.",
                       draft),
           std::string(kConfigurator) + "._handle_max_mamba_cache",
           {"mamba_state_bytes_per_request", "max_running_requests.requested",
            "speculative_num_draft_tokens.resolved", "mamba_ratio"}});
    inputs.push_back("mamba_speculative_intermediate_gib");
    rest -= intermediate_gib;
  }
  g.add({"max_mamba_cache_size", k, "slots", user_k ? "R6.6" : "R6.8", why,
         std::string(kConfigurator) + "._handle_max_mamba_cache", inputs});
  if (k <= 0) {
    plan.starts = false;
    plan.startup_error = fmt::format(
        "RuntimeError: Not enough GPU memory for hybrid (mamba/linear-attention) state cache. "
        "Computed "
        "max_mamba_cache_size={} (total_rest_memory={:.2f} GB, mamba_cache_per_req={:.2f} MB).",
        k, rest, per_req / kMiB);
    ctx.finding(Severity::kError, "mamba-cache-empty", {},
                "The mamba state pool gets no slot: SGLang fails at startup.", "R6.9",
                std::string(kConfigurator) + "._handle_max_mamba_cache");
  }
  if (k <= 0)
    return;
  const double state_gib = static_cast<double>(k + padding) * per_req / kGiB;
  rest -= state_gib;
  g.add({"mamba_pool_gib",
         state_gib,
         "GiB",
         "R6.10",
         padding > 0 ? fmt::format("{} slots + the padding slot × {:.2f} MiB.", k, per_req / kMiB)
                     : fmt::format("{} slots × {:.2f} MiB.", k, per_req / kMiB),
         std::string(kConfigurator) + "._handle_max_mamba_cache",
         {"max_mamba_cache_size", "mamba_state_bytes_per_request"}});
  g.add({"kv_budget_gib", rest, "GiB", "R6.10",
         spec ? "rest − speculative intermediates − mamba pool." : "rest − mamba pool.",
         std::string(kConfigurator) + "._profile_available_bytes",
         spec ? std::vector<std::string>{"rest_gib", "mamba_speculative_intermediate_gib",
                                         "mamba_pool_gib"}
              : std::vector<std::string>{"rest_gib", "mamba_pool_gib"}});
  plan.memory.push_back({"mamba state pool", state_gib, "rule"});
  if (spec)
    plan.memory.push_back({"mamba speculative intermediates", intermediate_gib, "rule"});
}

}  // namespace servescope::sglang
