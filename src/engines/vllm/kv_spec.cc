// V3.3–V3.6 and V9.1–V9.2: the KV spec of every attention and mamba layer on one worker
// (vllm/v1/kv_cache_interface.py; the layers' get_kv_cache_spec), the hybrid block alignment
// (vllm/model_executor/models/config.py::HybridAttentionMambaModelConfig.verify_and_update_config)
// and the drafter layers speculative decoding adds.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "catalog/recurrent_layout.h"
#include "core/text.h"
#include "engines/vllm/capacity_rules.h"

namespace servescope::vllm {
namespace {

constexpr char kInterface[] = "vllm/v1/kv_cache_interface.py";

std::int64_t cdiv(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

std::string_view kind_name(SpecKind k) {
  switch (k) {
    case SpecKind::kFull:
      return "full";
    case SpecKind::kSlidingWindow:
      return "sliding_window";
    case SpecKind::kChunkedLocal:
      return "chunked_local";
    case SpecKind::kMla:
      return "mla";
    case SpecKind::kMamba:
      return "mamba";
    case SpecKind::kMlaIndexer:
      return "mla_indexer";
  }
  return "?";
}

struct AttentionShape {
  std::int64_t heads = 0;  // per rank
  std::int64_t head_size = 0;
  std::int64_t head_size_v = 0;
};

// Page bytes of `block` tokens of one attention layer (AttentionSpec.real_page_size_bytes and
// the MLA, NVFP4 and per-token-head variants).
std::int64_t attention_page(const ResolvedArgs& a, const AttentionShape& s, bool mla,
                            std::int64_t block) {
  if (mla) {
    if (a.kv_dtype == "fp8_ds_mla")
      return block * 656;
    return static_cast<std::int64_t>(static_cast<double>(block * s.head_size) * a.kv_bytes);
  }
  if (a.kv_dtype == "nvfp4") {
    return block * s.heads *
           ((s.head_size / 2 + s.head_size / 16) + (s.head_size_v / 2 + s.head_size_v / 16));
  }
  std::int64_t page = static_cast<std::int64_t>(
      static_cast<double>(block * s.heads * (s.head_size + s.head_size_v)) * a.kv_bytes);
  if (a.kv_dtype == "fp8_per_token_head" || a.kv_dtype == "int8_per_token_head")
    page += 2 * block * s.heads * 4;  // fp32 scales per token and head
  return page;
}

// V3.6: the recurrent state of one layer on one rank
// (mamba_utils.py::MambaStateShapeCalculator: gated_delta_net_, mamba2_, mamba1_ and
// short_conv_state_shape; MambaStateDtypeCalculator for the dtypes).
std::int64_t recurrent_state_page(PlanContext& ctx, std::int64_t spec_k) {
  const ModelShape& m = ctx.scenario.model;
  const LinearAttentionDims& l = *m.linear;
  const ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  const RecurrentStateSize size =
      recurrent_state_size(l, static_cast<int>(a.tp), static_cast<int>(spec_k));
  const std::string conv_dtype = ctx.in.text("mamba_cache_dtype", "auto");
  const std::string ssm_dtype_arg = ctx.in.text("mamba_ssm_cache_dtype", "auto");
  // The model's own SSM dtype when the flag is auto: Qwen3.5's mamba_ssm_dtype, Nemotron-H's
  // mamba_ssm_cache_dtype (float32 when absent) (models/config.py); otherwise the model dtype.
  std::string ssm_dtype = ssm_dtype_arg;
  if (ssm_dtype == "auto")
    ssm_dtype = l.ssm_dtype.empty() ? "auto" : l.ssm_dtype;
  // VC.6 (platforms/cpu.py): on a host with AVX512-BF16 the CPU platform stores the SSM state
  // in float32 unless float16/bfloat16 is typed for its accelerated GDN backend.
  const bool cpu_gdn = ctx.scenario.hardware.gpu.is_cpu && l.kind == RecurrentKind::kGatedDeltaNet;
  if (cpu_gdn && ssm_dtype_arg != "float16" && ssm_dtype_arg != "bfloat16")
    ssm_dtype = "float32";
  const double model_bytes = a.kv_dtype == "float32" ? 4 : 2;
  const double conv_bytes = conv_dtype == "float32" ? 4 : (conv_dtype == "auto" ? model_bytes : 2);
  const double ssm_bytes = ssm_dtype == "float32" ? 4 : (ssm_dtype == "auto" ? model_bytes : 2);
  const std::int64_t conv =
      static_cast<std::int64_t>(static_cast<double>(size.conv_elements) * conv_bytes);
  const std::int64_t ssm =
      static_cast<std::int64_t>(static_cast<double>(size.ssm_elements) * ssm_bytes);
  const std::string_view kind = recurrent_kind_name(l.kind);
  const bool delta = l.kind == RecurrentKind::kGatedDeltaNet || l.kind == RecurrentKind::kKimiDelta;
  g.input("model.linear_attention",
          delta ? fmt::format("{} key heads × {}, {} value heads × {}, conv {}", l.num_key_heads,
                              l.key_head_dim, l.num_value_heads, l.value_head_dim, l.conv_kernel)
                : fmt::format("{}: intermediate {}, {} groups, {} heads × {}, state {}, conv {}",
                              kind, l.intermediate_size, l.n_groups, l.num_heads, l.head_dim,
                              l.state_size, l.conv_kernel),
          "", Origin::kModelConfig,
          l.kind == RecurrentKind::kGatedDeltaNet ? "config.json linear_* fields"
          : l.kind == RecurrentKind::kKimiDelta   ? "config.json linear_attn_config"
                                                  : "config.json (data/recurrent-state.tsv)",
          "The recurrent layers' dimensions.");
  const std::string shape_fn = fmt::format(
      "vllm/model_executor/layers/mamba/mamba_utils.py::MambaStateShapeCalculator."
      "{}_state_shape",
      kind);
  g.add({"mamba_conv_state_bytes",
         conv,
         "bytes",
         "V3.6",
         fmt::format("{} × {} bytes.", size.conv_formula, conv_bytes),
         shape_fn,
         {"model.linear_attention", "arg.mamba_cache_dtype", "num_speculative_tokens"}});
  g.add({"mamba_ssm_state_bytes",
         ssm,
         "bytes",
         "V3.6",
         size.ssm_elements == 0
             ? std::string("No SSM state: a convolution state alone.")
             : fmt::format("{} × {} bytes ({}{}).", size.ssm_formula, ssm_bytes, ssm_dtype,
                           cpu_gdn ? ": the CPU platform's accelerated GDN state on an "
                                     "AVX512-BF16 host"
                                   : ""),
         shape_fn + "; models/config.py (the model's SSM dtype)",
         {"model.linear_attention", "arg.mamba_ssm_cache_dtype"}});
  return conv + ssm;
}

// V3.5b (0.33.0+): in mamba cache mode align, the block is also a multiple of the Mamba layers'
// prefill checkpoint alignment (platforms/interface.py::_align_hybrid_block_size, lcm with
// get_mamba_prefill_checkpoint_alignment). Gated-DeltaNet layers on FlashInfer's prefill kernel
// export one every 64 tokens (FLASHINFER_GDN_CHECKPOINT_ALIGNMENT, qwen_gdn_linear_attn.py); the
// kernel is chosen (_resolve_gdn_prefill_backend) on SM 9.0, and on SM 10.x/12.x when
// linear_key_head_dim is 128 and the CUDA runtime is 13 or newer — the runtime vLLM's PyPI wheels
// (0.27.0 … 0.34.0) are built against (their _C*.so need libcudart.so.13).
std::int64_t gdn_checkpoint_alignment(PlanContext& ctx) {
  const ModelShape& m = ctx.scenario.model;
  const GpuSpec& gpu = ctx.scenario.hardware.gpu;
  if (!ctx.rules.gdn_checkpoint_alignment || !m.linear ||
      m.linear->kind != RecurrentKind::kGatedDeltaNet || gpu.is_amd || gpu.is_cpu)
    return 1;
  const std::string requested = ctx.in.optional_text("gdn_prefill_backend").value_or("auto");
  if (requested != "auto" && requested != "flashinfer")
    return 1;
  const bool hopper = gpu.compute_capability == "9.0";
  const bool blackwell =
      (gpu.cc_major == 10 || gpu.cc_major == 12) && m.linear->key_head_dim == 128;
  if (!hopper && !blackwell)
    return 1;
  ctx.graph().add({"mamba_checkpoint_alignment",
                   std::int64_t{64},
                   "tokens",
                   "V3.5b",
                   fmt::format("Prefix caching on a Gated-DeltaNet hybrid: FlashInfer's GDN "
                               "prefill kernel ({}) exports a checkpoint every 64 tokens, so the "
                               "block is a multiple of 64.",
                               hopper ? "SM 9.0" : "SM 10.x/12.x, key heads of 128, CUDA 13"),
                   "vllm/model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py::"
                   "_resolve_gdn_prefill_backend; platforms/interface.py::"
                   "_align_hybrid_block_size",
                   {"mamba_cache_mode", "gpu.compute_capability", "arg.gdn_prefill_backend"}});
  return 64;
}

constexpr char kDrafterSpec[] = "vllm/v1/worker/gpu/model_runner.py::get_kv_cache_spec (drafter)";

// Drafting methods that keep no KV of their own: n-gram lookups and heads on the target's hidden
// states (config/speculative.py::SpeculativeMethod).
bool drafter_without_kv(const std::string& method) {
  return method == "ngram" || method == "ngram_gpu" || method == "suffix" || method == "medusa" ||
         method == "mlp_speculator";
}

bool separate_drafter(const std::string& method) {
  return !drafter_without_kv(method) && method.find("mtp") == std::string::npos;
}

// V9.1: drafter attention layers registered in the same forward context as the target's. A
// drafter with a config of its own (EAGLE, EAGLE3, a draft model) is read from it
// (drafter_specs); otherwise EAGLE heads count as one layer of the target's kind.
int drafter_layers(PlanContext& ctx) {
  const ResolvedArgs& a = ctx.args;
  const ModelShape& m = ctx.scenario.model;
  if (!a.speculative())
    return 0;
  const std::string& method = a.spec_method;
  if (drafter_without_kv(method))
    return 0;
  if (separate_drafter(method) && ctx.scenario.draft_model)
    return 0;  // drafter_specs adds them, of their own shapes
  const std::string unread = ctx.scenario.draft_model_note.empty()
                                 ? std::string("no drafter config is named")
                                 : ctx.scenario.draft_model_note;
  if (method == "eagle" || method == "eagle3") {
    ctx.finding(Severity::kInfo, "drafter-layers-assumed", {ctx.in.typed("speculative_config")},
                fmt::format("the {} head's KV layers are taken as one layer of the target's "
                            "shape ({}); give its config.json (the speculative config's model, "
                            "in the Hugging Face cache or as a path) for its own heads",
                            method, unread),
                "V9.1", kDrafterSpec);
    return 1;
  }
  if (method == "draft_model") {
    ctx.finding(Severity::kWarning, "unmodelled-draft-model", {ctx.in.typed("speculative_config")},
                fmt::format("a separate draft model's KV layers are not modelled ({}); its pages "
                            "are missing from this plan",
                            unread),
                "V9.1", kDrafterSpec);
    return 0;
  }
  if (separate_drafter(method)) {
    ctx.finding(Severity::kWarning, "unmodelled-drafter", {ctx.in.typed("speculative_config")},
                fmt::format("the {} drafter's KV layers are not modelled ({}): one "
                            "full-attention layer of the target's shape is assumed, which can "
                            "be far from its own (a DFlash drafter's layers may slide)",
                            method, unread),
                "V9.1", kDrafterSpec);
    return 1;
  }
  return std::max(1, m.mtp_layers);  // MTP: the checkpoint's next-token layers
}

// V9.1: the layers of a drafter read from its own config, each of its own kind and shape; they
// join the hybrid grouping like the target's (kv_cache_config.cc).
std::vector<LayerSpec> drafter_specs(PlanContext& ctx, int first_layer) {
  std::vector<LayerSpec> out;
  const ResolvedArgs& a = ctx.args;
  if (!a.speculative() || !separate_drafter(a.spec_method) || !ctx.scenario.draft_model)
    return out;
  const ModelShape& d = *ctx.scenario.draft_model;
  AttentionShape shape;
  const bool mla = caches_latent(d);
  if (mla) {
    shape.heads = 1;
    shape.head_size = shape.head_size_v = d.mla->kv_lora_rank + d.mla->qk_rope_head_dim;
  } else {
    shape.heads = std::max<std::int64_t>(1, d.num_kv_heads / a.tp);
    shape.head_size = d.head_dim;
    shape.head_size_v = d.v_head_dim > 0 ? d.v_head_dim : d.head_dim;
  }
  const std::int64_t page = attention_page(a, shape, mla, a.block_size);
  int layer = first_layer;
  int skipped = 0;
  for (LayerKind k : d.layer_kinds) {
    LayerSpec s;
    s.layer = layer++;
    s.block_size = a.block_size;
    s.page_bytes = page;
    if (k == LayerKind::kMla) {
      s.kind = SpecKind::kMla;
    } else if (k == LayerKind::kSlidingAttention && a.hybrid_kv_manager) {
      s.kind = SpecKind::kSlidingWindow;
      s.window = d.sliding_window;
    } else if (k == LayerKind::kFullAttention || k == LayerKind::kSlidingAttention) {
      s.kind = SpecKind::kFull;
      if (d.model_sliding_window > 0 && a.hybrid_kv_manager) {
        s.kind = SpecKind::kSlidingWindow;
        s.window = d.model_sliding_window;
      }
    } else {
      ++skipped;
      continue;
    }
    out.push_back(s);
  }
  if (skipped > 0) {
    ctx.finding(Severity::kWarning, "unmodelled-drafter", {ctx.in.typed("speculative_config")},
                fmt::format("{} of the drafter's layers keep a recurrent state or none; only its "
                            "attention layers are sized",
                            skipped),
                "V9.1", kDrafterSpec);
  }
  return out;
}

}  // namespace

std::string LayerSpec::key() const {
  return fmt::format("{}:{}:{}:{}:{}", kind_name(kind), block_size, page_bytes, window,
                     spec_blocks);
}

void resolve_kv_specs(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  const ModelShape& m = ctx.scenario.model;
  const bool mla = caches_latent(m);
  const bool every_head = m.uses_mla() && !mla;

  // V3.4 per-rank KV heads: ModelConfig.get_num_kv_heads; MLA keeps one latent per rank.
  AttentionShape shape;
  if (mla) {
    shape.heads = 1;
    shape.head_size = m.mla->kv_lora_rank + m.mla->qk_rope_head_dim;
    shape.head_size_v = shape.head_size;
  } else if (every_head) {
    shape.heads = std::max<std::int64_t>(1, m.num_attention_heads / a.tp);
    shape.head_size = shape.head_size_v = m.mla->qk_nope_head_dim + m.mla->qk_rope_head_dim;
  } else {
    shape.heads = std::max<std::int64_t>(1, m.num_kv_heads / a.tp);
    shape.head_size = m.head_dim;
    shape.head_size_v = m.v_head_dim > 0 ? m.v_head_dim : m.head_dim;
  }
  g.input("model.kv_heads", m.num_kv_heads, "heads", Origin::kModelConfig,
          "config.json num_key_value_heads", "KV heads of the whole model.");
  g.add({"kv_heads_per_rank",
         shape.heads,
         "heads",
         "V3.4",
         mla ? "MLA caches one latent vector per token, replicated on every TP rank."
             : (m.num_kv_heads < a.tp
                    ? fmt::format("{} KV heads < tp {}: each rank keeps a replica of one head.",
                                  m.num_kv_heads, a.tp)
                    : fmt::format("{} KV heads split over tp {}.", m.num_kv_heads, a.tp)),
         "vllm/config/model.py::ModelConfig.get_num_kv_heads",
         {"model.kv_heads", "arg.tensor_parallel_size"}});
  g.add({"kv_head_size",
         shape.head_size,
         "elements",
         "V3.3",
         mla ? fmt::format("kv_lora_rank {} + qk_rope_head_dim {}.", m.mla->kv_lora_rank,
                           m.mla->qk_rope_head_dim)
         : every_head
             ? fmt::format("qk_nope_head_dim {} + qk_rope_head_dim {}: this model's latent "
                           "attention is built as plain attention of every head "
                           "(models/minicpm3.py), each head cached.",
                           m.mla->qk_nope_head_dim, m.mla->qk_rope_head_dim)
             : "config.json head_dim (or hidden_size / heads).",
         "vllm/config/model.py::ModelConfig.get_head_size",
         {}});

  // V4.1 rule 1: without the hybrid KV cache manager, windowed layers keep the whole context.
  auto disable_hma = ctx.in.optional_boolean("disable_hybrid_kv_cache_manager");
  auto kv_transfer = ctx.in.optional_text("kv_transfer_config");
  const auto allow_chunked = ctx.in.env("VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE", "1");
  const bool chunked_model = m.model_type == "llama4" && m.has_sliding_window();
  std::string hma_why = "On: the default for CUDA.";
  a.hybrid_kv_manager = true;
  if (disable_hma) {
    a.hybrid_kv_manager = !*disable_hma;
    hma_why = "As typed.";
  } else if (kv_transfer) {
    a.hybrid_kv_manager = false;
    hma_why = "--kv-transfer-config without --no-disable-hybrid-kv-cache-manager turns it off.";
  } else if (chunked_model && allow_chunked && *allow_chunked == "0") {
    a.hybrid_kv_manager = false;
    hma_why = "Chunked local attention with VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=0.";
  } else if (chunked_model && (a.spec_method == "eagle" || a.spec_method == "eagle3")) {
    a.hybrid_kv_manager = false;
    hma_why = "Chunked local attention with EAGLE is not supported by the hybrid manager.";
  }
  g.add({"hybrid_kv_cache_manager",
         a.hybrid_kv_manager,
         "",
         "V4.1",
         hma_why,
         "vllm/config/vllm.py::VllmConfig.__post_init__ (hybrid KV cache manager rules)",
         {"arg.disable_hybrid_kv_cache_manager", "arg.kv_transfer_config",
          "env.VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE"}});
  const bool disable_sw = ctx.in.optional_boolean("disable_sliding_window").value_or(false);

  // V3.5 hybrid attention/mamba block alignment.
  std::int64_t mamba_page = 0;
  std::int64_t mamba_block = a.block_size;
  std::int64_t checkpoint_blocks = 0;
  const bool attention_free = m.attention_free();
  if (attention_free) {
    // No attention page to align to: the state's block is the whole context in the none mode
    // (models/config.py::MambaModelConfig.verify_and_update_config: mamba_block_size =
    // max_model_len), the block size with prefix caching typed.
    mamba_page = recurrent_state_page(ctx, a.spec_k);
    mamba_block = a.mamba_cache_mode == "none" ? a.max_model_len : a.block_size;
    g.add({"mamba_block_size",
           mamba_block,
           "tokens",
           "V3.5",
           a.mamba_cache_mode == "none"
               ? "Attention-free, no prefix caching: one state block covers max_model_len."
               : "Prefix caching typed: the state's block is the block size.",
           "vllm/model_executor/models/config.py::MambaModelConfig.verify_and_update_config",
           {"max_model_len", "mamba_cache_mode", "block_size"}});
  } else if (m.is_hybrid_linear()) {
    mamba_page = recurrent_state_page(ctx, a.spec_k);
    const std::int64_t attn_1tok = attention_page(a, shape, mla, 1);
    // platforms/interface.py::_align_hybrid_block_size (first in 0.20.0, wheel grep): the
    // alignment unit is also at least the configured block size (a typed --block-size 64
    // aligns to 64); before, the kernel's alone.
    // CPU_ATTN's kernel blocks are multiples of 32 (VC.2).
    const std::int64_t kernel = mla ? 64 : (ctx.scenario.hardware.gpu.is_cpu ? 32 : 16);
    std::int64_t align =
        ctx.rules.hybrid_align_to_block_size ? std::max(kernel, a.block_size) : kernel;
    if (a.mamba_cache_mode == "align") {
      const std::int64_t checkpoint = gdn_checkpoint_alignment(ctx);
      align = std::lcm(align, checkpoint);
      // A layer that exports checkpoints keeps one more state block per request
      // (qwen_gdn_linear_attn.py::get_kv_cache_spec: num_prefill_checkpoint_blocks=1).
      checkpoint_blocks = checkpoint > 1 ? 1 : 0;
    }
    std::int64_t needed = 0;
    std::string how;
    if (a.mamba_cache_mode == "all") {
      const std::int64_t chunk = std::lcm<std::int64_t>(256, align);
      needed = chunk * cdiv(cdiv(mamba_page, attn_1tok), chunk);
      how =
          fmt::format("mamba cache mode all: a multiple of lcm(256, {}) covering the state", align);
    } else {
      needed = align * cdiv(mamba_page, align * attn_1tok);
      how = fmt::format("{} × cdiv(mamba page {}, {} × attention bytes per token {})", align,
                        mamba_page, align, attn_1tok);
    }
    const std::int64_t before = a.block_size;
    if (a.block_size < needed)
      a.block_size = needed;
    // Keep the backend's choice (V3.1) under its own id; block_size becomes the aligned size.
    Node backend_block = *g.find("block_size");
    backend_block.id = "block_size.backend";
    g.add(backend_block);
    g.add({"block_size",
           a.block_size,
           "tokens",
           "V3.5",
           before < needed
               ? fmt::format("Raised from {} so an attention page holds a mamba state: {} "
                             "(\"Setting attention block size to {} tokens\").",
                             before, how, needed)
               : fmt::format("{} already holds a mamba state ({} needs {}).", before, how, needed),
           "vllm/model_executor/models/config.py::HybridAttentionMambaModelConfig."
           "verify_and_update_config",
           {"block_size.backend", "mamba_conv_state_bytes", "mamba_ssm_state_bytes",
            "kv_cache_dtype", "mamba_cache_mode"}});
    const std::int64_t attn_page = a.block_size * attn_1tok;
    if (attn_page > mamba_page) {
      g.add({"mamba_page_padding_pct",
             100.0 * static_cast<double>(attn_page - mamba_page) / static_cast<double>(mamba_page),
             "%",
             "V3.5",
             fmt::format("The mamba page is padded from {} to the attention page {} bytes.",
                         mamba_page, attn_page),
             "vllm/model_executor/models/config.py::HybridAttentionMambaModelConfig."
             "verify_and_update_config",
             {"block_size", "mamba_conv_state_bytes", "mamba_ssm_state_bytes"}});
      mamba_page = attn_page;
    }
  }

  // The layers: the target's, then the drafter's (V9.1).
  a.draft_layers = drafter_layers(ctx);
  const std::int64_t attn_page = attention_page(a, shape, mla, a.block_size);
  // Full-attention layers with heads of their own (Gemma 4's global heads): their own page.
  AttentionShape full_shape = shape;
  if (!mla && m.full_head_dim > 0)
    full_shape.head_size = full_shape.head_size_v = m.full_head_dim;
  if (!mla && m.full_kv_heads > 0)
    full_shape.heads = std::max<std::int64_t>(1, m.full_kv_heads / a.tp);
  const std::int64_t full_page = attention_page(a, full_shape, mla, a.block_size);
  // DeepSeek Sparse Attention: one fp8 key of index_head_dim bytes per token and layer plus a
  // float32 scale per 128 of them (models/deepseek_v2.py Indexer: DeepseekV32IndexerCache).
  const std::int64_t indexer_page =
      m.uses_sparse_mla() ? a.block_size * (m.mla->index_head_dim + m.mla->index_head_dim / 128 * 4)
                          : 0;
  std::vector<LayerKind> kinds = m.layer_kinds;
  if (every_head)
    std::replace(kinds.begin(), kinds.end(), LayerKind::kMla, LayerKind::kFullAttention);
  const LayerKind draft_kind = mla ? LayerKind::kMla : LayerKind::kFullAttention;
  for (int i = 0; i < a.draft_layers; ++i)
    kinds.push_back(draft_kind);
  ctx.specs.clear();
  int layer = 0;
  for (LayerKind k : kinds) {
    // An MLP/MoE block alone keeps no cache; a KV-shared layer reads an earlier layer's
    // (attention.py: kv_sharing_target_layer_name layers get no spec).
    if (k == LayerKind::kNone || (layer < m.num_layers && m.kv_shared(layer))) {
      ++layer;
      continue;
    }
    LayerSpec s;
    s.layer = layer++;
    s.block_size = a.block_size;
    switch (k) {
      case LayerKind::kFullAttention:
        s.kind = SpecKind::kFull;
        s.page_bytes = s.layer < m.num_layers ? full_page : attn_page;
        // V3.7: a model-level window slides every layer; a uniform set of windowed specs stays
        // windowed without the hybrid manager (kv_cache_planning.py::_promote_local_kv_cache_specs
        // promotes only mixed sets).
        if (m.model_sliding_window > 0 && !disable_sw) {
          s.kind = SpecKind::kSlidingWindow;
          s.window = m.model_sliding_window;
        }
        break;
      case LayerKind::kMla:
        s.kind = SpecKind::kMla;
        s.page_bytes = attn_page;
        if (indexer_page > 0) {
          // The indexer's key cache registers before its layer's latent (deepseek_v2.py).
          LayerSpec index = s;
          index.kind = SpecKind::kMlaIndexer;
          index.page_bytes = indexer_page;
          ctx.specs.push_back(index);
        }
        break;
      case LayerKind::kSlidingAttention:
        s.page_bytes = attn_page;
        if (disable_sw || !a.hybrid_kv_manager) {
          s.kind = SpecKind::kFull;
        } else if (m.model_type == "llama4") {
          s.kind = SpecKind::kChunkedLocal;  // Llama 4's attention_chunk_size
          s.window = m.sliding_window;
        } else {
          s.kind = SpecKind::kSlidingWindow;
          s.window = m.sliding_window;
        }
        break;
      case LayerKind::kLinearAttention:
        s.kind = SpecKind::kMamba;
        s.page_bytes = mamba_page;
        if (attention_free)
          s.block_size = mamba_block;
        s.spec_blocks = a.spec_k;
        s.checkpoint_blocks = checkpoint_blocks;
        break;
      case LayerKind::kNone:
        break;
    }
    ctx.specs.push_back(s);
    if (m.parallel_recurrent && s.layer < m.num_layers) {
      // Falcon-H1: the layer's mamba mixer keeps its own state beside the attention's KV.
      LayerSpec state = s;
      state.kind = SpecKind::kMamba;
      state.page_bytes = mamba_page;
      state.window = 0;
      state.spec_blocks = a.spec_k;
      ctx.specs.push_back(state);
    }
  }
  const std::vector<LayerSpec> drafter = drafter_specs(ctx, m.num_layers + a.draft_layers);
  if (!drafter.empty()) {
    ctx.specs.insert(ctx.specs.end(), drafter.begin(), drafter.end());
    a.draft_layers += static_cast<int>(drafter.size());
  }
  int counts[6] = {0, 0, 0, 0, 0, 0};
  for (const LayerSpec& s : ctx.specs)
    ++counts[static_cast<int>(s.kind)];
  std::string summary;
  for (SpecKind k : {SpecKind::kFull, SpecKind::kMla, SpecKind::kMlaIndexer,
                     SpecKind::kSlidingWindow, SpecKind::kChunkedLocal, SpecKind::kMamba}) {
    if (counts[static_cast<int>(k)] > 0) {
      summary += fmt::format("{}{} {}", summary.empty() ? "" : " + ", counts[static_cast<int>(k)],
                             kind_name(k));
    }
  }
  g.add({"kv_layers",
         summary,
         "",
         "V3.3",
         fmt::format("Layers with a KV cache on each rank{}.",
                     a.draft_layers > 0 ? fmt::format(", with {} drafter layer(s) of {}",
                                                      a.draft_layers, a.spec_method)
                                        : ""),
         "vllm/v1/worker/gpu_model_runner.py::GPUModelRunner.get_kv_cache_spec",
         {"hybrid_kv_cache_manager", "arg.disable_sliding_window", "speculative_method"}});
  for (const LayerSpec& s : ctx.specs) {
    if (s.window <= 0)
      continue;
    const bool model_level = m.model_sliding_window > 0 && s.window == m.model_sliding_window;
    g.add({"kv_window",
           s.window,
           "tokens",
           model_level ? "V3.7" : "V3.3",
           model_level
               ? fmt::format("config.json sliding_window {} with no layer_types: CacheConfig."
                             "sliding_window, which every attention layer takes.",
                             s.window)
               : fmt::format("The window of the {} layers ({}).", kind_name(s.kind),
                             m.model_type == "llama4" ? "attention_chunk_size" : "sliding_window"),
           model_level ? "vllm/engine/arg_utils.py::EngineArgs.create_engine_config; "
                         "model_executor/layers/attention/attention.py::Attention.__init__"
                       : "vllm/v1/kv_cache_interface.py::SlidingWindowSpec",
           {"kv_layers"}});
    break;
  }
  // Each kind's bytes per token (its page over its tokens), for kinds whose shapes differ.
  for (SpecKind k : {SpecKind::kFull, SpecKind::kMla, SpecKind::kMlaIndexer,
                     SpecKind::kSlidingWindow, SpecKind::kChunkedLocal}) {
    auto it = std::find_if(ctx.specs.begin(), ctx.specs.end(),
                           [&](const LayerSpec& s) { return s.kind == k; });
    if (it == ctx.specs.end())
      continue;
    g.add({fmt::format("kv_bytes_per_token.{}", kind_name(k)),
           it->page_bytes / std::max<std::int64_t>(1, it->block_size),
           "bytes",
           "V3.3",
           fmt::format("One {} layer's page {} bytes over its {} tokens.", kind_name(k),
                       it->page_bytes, it->block_size),
           std::string(kInterface) + "::AttentionSpec.page_size_bytes",
           {"kv_layers"}});
  }
  g.add({"kv_page_bytes",
         attention_free ? mamba_page : attn_page,
         "bytes",
         "V3.3",
         attention_free ? "No attention layer: each layer's page is its recurrent state."
         : mla          ? (a.kv_dtype == "fp8_ds_mla"
                               ? fmt::format("MLA in fp8_ds_mla: block {} × 656-byte rows (fp8 latent, "
                                                      "scales, 16-bit rope).",
                                             a.block_size)
                               : fmt::format("MLA: block {} × {} elements × {} bytes.", a.block_size,
                                             shape.head_size, a.kv_bytes))
               : fmt::format("block {} × {} heads × (K {} + V {}) × {} bytes.", a.block_size,
                             shape.heads, shape.head_size, shape.head_size_v, a.kv_bytes),
         std::string(kInterface) + "::AttentionSpec.page_size_bytes",
         {"block_size", "kv_heads_per_rank", "kv_head_size", "kv_element_bytes"}});
  if (ctx.in.setting_for("kv_cache_dtype_skip_layers") != nullptr) {
    ctx.finding(Severity::kWarning, "unmodelled-flag", {ctx.in.typed("kv_cache_dtype_skip_layers")},
                "--kv-cache-dtype-skip-layers mixes page sizes; every layer is sized with the "
                "quantized dtype here",
                "V3.2", std::string(kInterface));
  }
}

}  // namespace servescope::vllm
