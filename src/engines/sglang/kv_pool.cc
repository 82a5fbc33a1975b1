// R4.1–R4.10: bytes per KV token and max_total_num_tokens
// (model_executor/pool_configurator.py, kv_cache_configurator.py::config_from_budget).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/units.h"
#include "engines/sglang/capacity_rules.h"
#include "engines/sglang/hybrid_swa.h"

namespace servescope::sglang {
namespace {

constexpr char kPools[] = "model_executor/pool_configurator.py";

}  // namespace

void resolve_kv_pool(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  Plan& plan = ctx.plan;
  const ModelShape& m = ctx.scenario.model;
  const std::string prefix = "config.json " + m.text_prefix;

  // Layers with a KV cache on this pipeline stage (the largest stage sets the PP minimum).
  const bool hybrid_swa = ctx.rules.hybrid_swa_pools && hybrid_swa_pools(ctx.scenario.version, m);
  if (m.has_sliding_window() && !hybrid_swa) {
    const std::string why =
        ctx.rules.hybrid_swa_pools
            ? "configs/model_config.py::is_hybrid_swa_model does not list the architecture"
            : "this release has no sliding-window pools; they came on 2025-06-27, #6563";
    ctx.finding(Severity::kInfo, "sliding-window-in-full-pool", {},
                fmt::format("SGLang {} gives {} one full KV pool: its sliding-window layers cache "
                            "every token, as the full layers do ({})",
                            ctx.scenario.version.label, m.architecture, why),
                "R4.10", "configs/model_config.py::is_hybrid_swa_model");
  }
  int full_layers =
      m.num_layers - m.count_layers(LayerKind::kLinearAttention) - m.count_layers(LayerKind::kNone);
  int swa_layers = 0;
  if (hybrid_swa) {
    swa_layers = m.count_layers(LayerKind::kSlidingAttention);
    full_layers -= swa_layers;
  }
  if (a.pp > 1) {
    full_layers = static_cast<int>((full_layers + a.pp - 1) / a.pp);
    swa_layers = static_cast<int>((swa_layers + a.pp - 1) / a.pp);
  }
  g.input("kv_layers", full_layers, "layers", Origin::kModelConfig,
          a.hybrid_linear
              ? fmt::format("{}full-attention layers ({} of {})", prefix, full_layers, m.num_layers)
              : fmt::format("{}num_hidden_layers{}", prefix,
                            a.pp > 1 ? " / pp_size (largest stage)" : ""),
          a.hybrid_linear ? "For hybrid linear-attention models only the full-attention layers "
                            "keep KV (mambaish.full_attention_layer_ids)."
                          : "Every attention layer keeps KV.");

  // Gemma 4's full-attention layers with heads of their own are sized with them in the full
  // pool of the hybrid SWA configurator (below); its KV-shared layers, and those heads in a
  // release without separate pools, are modelled from vLLM's code only.
  const bool own_full_heads = m.full_head_dim > 0 || m.full_kv_heads > 0;
  if (m.kv_shared_layers > 0 || (own_full_heads && !hybrid_swa)) {
    const std::string what =
        m.kv_shared_layers > 0
            ? fmt::format(
                  "its last {} layers share KV, but are sized as layers with a cache of "
                  "their own",
                  m.kv_shared_layers)
            : "its full-attention layers have heads of their own, but are sized with the "
              "sliding layers' (no separate pools in this release)";
    ctx.finding(Severity::kWarning, "unmodelled-layer-shapes", {},
                fmt::format("{}: {}; SGLang's pool for this is read from vLLM's model code only",
                            m.model_type, what),
                "R4.2", "mem_cache/memory_pool.py");
  }
  // DeepSeek Sparse Attention (V3.2, GLM-5) before SGLang counted the indexer's keys in the cell.
  if (m.uses_sparse_mla() && !ctx.rules.dsa_indexer_in_cell) {
    ctx.finding(Severity::kWarning, "unmodelled-layer-shapes", {},
                fmt::format("{} uses DeepSeek Sparse Attention; this release's NSA pool (the "
                            "indexer's {}-element fp8 keys beside the latent) is not modelled: "
                            "every layer is sized as plain MLA",
                            m.model_type, m.mla->index_head_dim),
                "R4.2", "mem_cache/memory_pool.py::NSATokenToKVPool");
  }
  // R4.5 (draft KV): EAGLE-family speculative decoding keeps the draft's KV in the same pool.
  const bool draft_kv =
      a.speculative() && ctx.rules.draft_kv == DraftKv::kCellScaling &&
      (a.speculative_algorithm == "EAGLE" || a.speculative_algorithm == "EAGLE3" ||
       a.speculative_algorithm == "STANDALONE");
  int draft_layers = 0;
  if (draft_kv) {
    draft_layers = std::max(1, m.mtp_layers);
    g.input("draft_layers", draft_layers, "layers",
            m.mtp_layers > 0 ? Origin::kModelConfig : Origin::kEstimate,
            m.mtp_layers > 0 ? prefix + "num_nextn_predict_layers / mtp_num_hidden_layers"
                             : "estimate: one draft layer (EAGLE heads have one)");
    if (m.mtp_layers == 0)
      plan.estimated.push_back("draft_layers");
  }

  double cell = 0;
  std::string cell_why;
  std::string cell_rule = "R4.1";
  std::vector<std::string> cell_inputs = {"kv_layers", "kv_element_bytes"};
  if (a.uses_mla) {
    const MlaDims& mla = *m.mla;
    g.input("kv_lora_rank", mla.kv_lora_rank, "", Origin::kModelConfig, prefix + "kv_lora_rank");
    g.input("qk_rope_head_dim", mla.qk_rope_head_dim, "", Origin::kModelConfig,
            prefix + "qk_rope_head_dim");
    cell = static_cast<double>(mla.kv_lora_rank + mla.qk_rope_head_dim) * full_layers * a.kv_bytes;
    cell_why = fmt::format("MLA: (kv_lora_rank + qk_rope_head_dim)·layers·bytes = ({} + {})·{}·{}.",
                           mla.kv_lora_rank, mla.qk_rope_head_dim, full_layers, a.kv_bytes);
    cell_inputs.insert(cell_inputs.end(), {"kv_lora_rank", "qk_rope_head_dim"});
    cell_rule = "R4.2";
    if (m.uses_sparse_mla() && ctx.rules.dsa_indexer_in_cell) {
      // R4.2b pool_configurator.py::_compute_dsa_indexer_cell_size: each layer's indexer key,
      // fp8 with one float scale per 128 elements, in uint8 (DSATokenToKVPool).
      const int index_dim = mla.index_head_dim;
      const double indexer = static_cast<double>(index_dim + index_dim / 128 * 4) * full_layers;
      g.input("index_head_dim", index_dim, "", Origin::kModelConfig, prefix + "index_head_dim");
      cell += indexer;
      cell_why += fmt::format(" Plus the DSA indexer's keys: ({} + {}/128·4)·{} layers·1 byte.",
                              index_dim, index_dim, full_layers);
      cell_inputs.push_back("index_head_dim");
    }
  } else {
    g.input("num_key_value_heads", m.num_kv_heads, "heads", Origin::kModelConfig,
            prefix + "num_key_value_heads");
    g.input("head_dim", m.head_dim, "", Origin::kModelConfig,
            prefix + "head_dim (or hidden_size / num_attention_heads)");
    const std::int64_t heads = std::max<std::int64_t>(1, m.num_kv_heads / a.attn_tp);
    g.add({"kv_heads_per_rank",
           heads,
           "heads",
           "R4.1",
           heads * a.attn_tp > m.num_kv_heads
               ? fmt::format(
                     "max(1, {} // {}): attn-TP exceeds the KV heads, so they are replicated.",
                     m.num_kv_heads, a.attn_tp)
               : fmt::format("{} KV heads // attn-TP {}.", m.num_kv_heads, a.attn_tp),
           "configs/model_config.py::ModelConfig.get_num_kv_heads",
           {"num_key_value_heads", "attn_tp_size"}});
    // One layer's bytes per token: K and V of every head on the rank, and mxfp8's scale per 32.
    const auto layer_bytes = [&](std::int64_t kv_heads, int k_dim, int v_dim) {
      const double elements = static_cast<double>(kv_heads) * (k_dim + v_dim);
      return elements * a.kv_bytes + (a.kv_cache_dtype == "mxfp8" ? elements / 32 : 0);
    };
    const double per_layer = layer_bytes(heads, m.head_dim, m.v_head_dim);
    if (hybrid_swa) {
      // R4.4 HybridSWAPoolConfigurator: the cell is a float; draft layers join the full term.
      // The full term takes ModelConfig.head_dim and get_num_kv_heads, the sliding one
      // swa_head_dim and get_swa_num_kv_heads: for Gemma 4 the full layers' own heads (global
      // head dim 512 beside the sliding 256; layouts oracle, 0.5.23).
      const double ratio = ctx.in.real("swa_full_tokens_ratio", 0.8);
      double full_per_layer = per_layer;
      if (own_full_heads) {
        const int full_dim = m.full_head_dim > 0 ? m.full_head_dim : m.head_dim;
        const std::int64_t full_heads =
            m.full_kv_heads > 0 ? std::max<std::int64_t>(1, m.full_kv_heads / a.attn_tp) : heads;
        g.input("full_attention_head_dim", full_dim, "", Origin::kModelConfig,
                prefix + "global_head_dim (or per_layer_config)");
        cell_inputs.push_back("full_attention_head_dim");
        full_per_layer = layer_bytes(full_heads, full_dim, full_dim);
      }
      cell = full_per_layer * (full_layers + draft_layers) + ratio * per_layer * swa_layers;
      cell_why = fmt::format(
          "Hybrid SWA: {}·({} full{}) + {}·{}·{} sliding layers{}.", full_per_layer, full_layers,
          draft_layers > 0 ? fmt::format(" + {} draft", draft_layers) : std::string(), ratio,
          per_layer, swa_layers, own_full_heads ? " (the full layers with their own heads)" : "");
      cell_inputs.push_back("arg.swa_full_tokens_ratio");
      cell_rule = "R4.4";
    } else {
      cell = per_layer * full_layers;
      cell_why =
          fmt::format("MHA: heads·(head_dim + v_head_dim)·layers·bytes = {}·({} + {})·{}·{}.",
                      heads, m.head_dim, m.v_head_dim, full_layers, a.kv_bytes);
    }
    cell_inputs.insert(cell_inputs.end(), {"kv_heads_per_rank", "head_dim"});
  }
  if (!hybrid_swa)
    cell = std::floor(cell);
  g.add({"kv_cell_bytes.target", hybrid_swa ? Value(cell) : Value(static_cast<std::int64_t>(cell)),
         "bytes/token", cell_rule, cell_why,
         std::string(kPools) + (hybrid_swa ? "::HybridSWAPoolConfigurator.__init__"
                                           : "::DefaultPoolConfigurator._compute_cell_size"),
         cell_inputs});

  double final_cell = cell;
  std::vector<std::string> final_inputs = {"kv_cell_bytes.target"};
  std::string final_why = "No draft KV.";
  if (draft_kv && !hybrid_swa && ctx.rules.draft_kv_additive) {
    // pool_configurator.py (first in 0.5.22): cell + int(cell · n / L), exact where the
    // product form int(cell · (1 + n/L)) loses a byte to floating point.
    final_cell = cell + std::floor(cell * static_cast<double>(draft_layers) / full_layers);
    final_why =
        fmt::format("EAGLE-family draft KV: cell + int(cell · {}/{}).", draft_layers, full_layers);
    final_inputs.push_back("draft_layers");
  } else if (draft_kv && !hybrid_swa) {
    final_cell = std::floor(cell * (1 + static_cast<double>(draft_layers) / full_layers));
    final_why =
        fmt::format("EAGLE-family draft KV: int(cell · (1 + {}/{})).", draft_layers, full_layers);
    final_inputs.push_back("draft_layers");
  } else if (draft_kv) {
    final_why = "Draft layers are in the hybrid SWA cell's full term.";
    final_inputs.push_back("draft_layers");
  }
  g.add({"kv_cell_bytes",
         hybrid_swa ? Value(final_cell) : Value(static_cast<std::int64_t>(final_cell)),
         "bytes/token", "R4.5", final_why,
         std::string(kPools) + "::DefaultPoolConfigurator.__init__", final_inputs});

  // R4.6: tokens from the budget.
  const std::string budget_id = g.find("kv_budget_gib") != nullptr ? "kv_budget_gib" : "rest_gib";
  const double budget_gib = g.value(budget_id).as_number();
  if (budget_gib <= 0 && plan.starts) {
    const double p = g.value("free_before_load_gib").as_number();
    const double avail = g.value("free_after_load_gib").as_number();
    const double suggested = std::ceil((1 - avail / p) * 1000) / 1000;
    plan.starts = false;
    plan.startup_error = fmt::format(
        "ValueError: Loaded weights leave no GPU memory for the KV cache under "
        "--mem-fraction-static={:.4f}. "
        "Raise --mem-fraction-static above {:.3f}",
        g.value("mem_fraction_static").as_number(), suggested);
    ctx.finding(
        Severity::kError, "no-memory-for-kv", {ctx.typed("mem_fraction_static")},
        fmt::format("The weights leave no memory for the KV cache: SGLang fails at startup; raise "
                    "--mem-fraction-static above {:.3f}",
                    suggested),
        "R3.6", "kv_cache_configurator.py::KVCacheConfigurator._profile_available_bytes");
  }
  const double budget_bytes = std::floor(std::max(0.0, budget_gib) * kGiB);
  std::int64_t tokens = static_cast<std::int64_t>(std::floor(budget_bytes / final_cell));
  if (ctx.rules.page_alignment)
    tokens = tokens / a.page_size * a.page_size;
  if (hybrid_swa) {
    const double ratio = g.value("arg.swa_full_tokens_ratio").as_number();
    const std::int64_t swa_tokens =
        static_cast<std::int64_t>(static_cast<double>(tokens) * ratio) / a.page_size * a.page_size;
    g.add({"swa_max_total_num_tokens",
           swa_tokens,
           "tokens",
           "R4.4",
           fmt::format("Sliding-window pool: full tokens × {} floored to the page.", ratio),
           std::string(kPools) + "::HybridSWAPoolConfigurator._solve_pool_sizes",
           {"max_total_num_tokens.profiled", "arg.swa_full_tokens_ratio"}});
  }
  g.add({"max_total_num_tokens.profiled",
         tokens,
         "tokens",
         "R4.6",
         fmt::format("int({:.4f} GiB · 2^30) // {} bytes, floored to page size {}.", budget_gib,
                     final_cell, a.page_size),
         std::string(kPools) + "::DefaultPoolConfigurator.calculate_pool_sizes",
         {budget_id, "kv_cell_bytes", "page_size.resolved"}});
  std::string why = "The profiled capacity.";
  std::vector<std::string> inputs = {"max_total_num_tokens.profiled"};
  if (a.max_total_tokens) {
    inputs.push_back("arg.max_total_tokens");
    if (*a.max_total_tokens < tokens) {
      tokens = *a.max_total_tokens / a.page_size * a.page_size;
      why = "--max-total-tokens caps the profiled capacity.";
    } else {
      why = "--max-total-tokens is above the profiled capacity, which is used (SGLang warns).";
      ctx.finding(Severity::kWarning, "max-total-tokens-above-capacity",
                  {ctx.typed("max_total_tokens")},
                  fmt::format("--max-total-tokens {} is larger than the profiled {}; SGLang uses "
                              "the profiled value",
                              *a.max_total_tokens, tokens),
                  "R4.7", "kv_cache_configurator.py::KVCacheConfigurator._apply_token_constraints");
    }
  }
  // 2025-03-05 … 2025-12-23 (#3986 → #15748): EAGLE's draft shares the pool and the printed
  // capacity includes headroom for the draft tokens of every request slot.
  if (a.speculative() && ctx.rules.draft_kv == DraftKv::kHeadroom &&
      a.speculative_algorithm != "NGRAM") {
    const std::int64_t reqs = a.max_running_requests.value_or(0);
    const std::int64_t headroom =
        reqs * (a.speculative_steps * a.speculative_topk + a.speculative_draft_tokens) + 100;
    g.add({"draft_kv_headroom",
           headroom,
           "tokens",
           "R4.5h",
           fmt::format("{} requests · ({}·{} + {}) + 100 tokens for the shared draft pool "
                       "(2025-03-05 … 2025-12-23).",
                       reqs, a.speculative_steps, a.speculative_topk, a.speculative_draft_tokens),
           "model_executor/model_runner.py::ModelRunner.init_memory_pool",
           {"max_running_requests.requested"}});
    tokens += headroom;
    inputs.push_back("draft_kv_headroom");
    why += " Plus the draft pool headroom.";
  }
  g.add({"max_total_num_tokens", tokens, "tokens", "R4.7", why,
         "kv_cache_configurator.py::KVCacheConfigurator._apply_token_constraints", inputs});
  if (tokens <= 0 && plan.starts) {
    plan.starts = false;
    plan.startup_error =
        "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.";
    ctx.finding(Severity::kError, "no-kv-tokens", {},
                "The KV pool gets no token: SGLang fails at startup.", "R4.9",
                "model_executor/pool_configurator.py::MemoryPoolConfig.__post_init__");
  }
  plan.memory.push_back({"KV cache", static_cast<double>(tokens) * final_cell / kGiB, "rule"});
}

}  // namespace servescope::sglang
