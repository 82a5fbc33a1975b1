// R2.10–R2.11: SGLang's attention backend and page size, as ServerArgs.__post_init__ resolves
// them: the model overrides first (gpt-oss, Llama 4, DeepSeek V3 family, the Qwen3.5 hybrid
// family), then the default backend, then the page-size snaps of the chosen backend, then the
// page-size default. Checked against the engine oracle of releases 0.5.9, 0.5.16, 0.5.20 and
// 0.5.23 (tests/oracle/sglang-RELEASE.jsonl).
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>

#include "core/text.h"
#include "engines/sglang/server_args_resolution.h"

namespace servescope::sglang {
namespace {

/// The attention-related flags as typed (nullopt when left at SGLang's default). The engine's
/// backend choice reads them before the speculative hook fills its defaults, so the resolved
/// speculative values of ResolvedArgs are not the right input here.
struct TypedAttention {
  std::optional<std::string> backend, prefill, decode;
  std::optional<std::int64_t> page, topk;
  bool speculative = false;
  bool all_unset() const { return !backend && !prefill && !decode; }
};

std::optional<std::int64_t> typed_int(const SglangInputs& in, std::string_view field) {
  const FlagSetting* f = in.setting_for(field);
  if (f == nullptr)
    return std::nullopt;
  auto v = parse_int(f->value());
  return v ? std::optional<std::int64_t>(*v) : std::nullopt;
}

std::string typed_text(const SglangInputs& in, std::string_view field, std::string_view dflt) {
  const FlagSetting* f = in.setting_for(field);
  return f == nullptr ? std::string(dflt) : f->value();
}

// R2.10: utils/common.py::is_no_spec_infer_or_topk_one — no typed --speculative-eagle-topk, or
// topk 1 with the page size still 1 (or unset).
bool no_spec_or_topk_one(const TypedAttention& t, std::optional<std::int64_t> page) {
  return !t.topk || (*t.topk == 1 && (!page || *page == 1));
}

struct Choice {
  std::string backend;
  std::string why;
  std::string source = "server_args.py::ServerArgs._get_default_attn_backend";
};

// R2.10: server_args.py::ServerArgs._get_default_attn_backend (0.5.9, 0.5.16;
// model_override_base.py::get_default_attn_backend in 0.5.20+, same rule).
Choice default_backend(const GpuSpec& gpu, const ModelShape& m, bool uses_mla, std::int64_t tp,
                       const TypedAttention& t, std::optional<std::int64_t> page) {
  const std::string sm = fmt::format("SM{}{}", gpu.cc_major, gpu.cc_minor);
  if (!uses_mla) {
    const bool topk_one = no_spec_or_topk_one(t, page);
    if (!gpu.is_amd && gpu.cc_major == 9 && topk_one)
      return {"fa3", "Hopper MHA defaults to fa3 (no speculation, or topk 1 with page size 1)."};
    // trtllm_mha also needs a typed topk when speculation is on.
    if (!gpu.is_amd && gpu.cc_major == 10 && topk_one && (!t.speculative || t.topk))
      return {"trtllm_mha", fmt::format("{} MHA defaults to trtllm_mha.", sm)};
    if (gpu.is_amd)
      return {"aiter", "AMD GPUs default to aiter."};
    // FlashInfer lacks attention sinks (gpt-oss).
    if (m.model_type == "gpt_oss")
      return {"triton", "The model has attention sinks, which FlashInfer lacks: triton."};
    return {
        "flashinfer",
        gpu.cc_major == 9 || gpu.cc_major == 10
            ? fmt::format("{} MHA with speculative topk > 1 or a page size > 1: flashinfer.", sm)
            : fmt::format("{} MHA defaults to flashinfer.", sm)};
  }
  if (gpu.is_amd) {
    const std::int64_t heads = m.num_kv_heads / std::max<std::int64_t>(1, tp);
    return heads == 16 || heads == 128
               ? Choice{"aiter", "MLA on AMD with 16 or 128 KV heads per rank: aiter."}
               : Choice{"triton", "MLA on AMD: aiter needs 16 or 128 KV heads per rank; triton."};
  }
  if (gpu.cc_major == 9)
    return {"fa3", "MLA on Hopper defaults to fa3."};
  if (gpu.cc_major == 10)
    return {"flashinfer", fmt::format("MLA on {} defaults to flashinfer.", sm)};
  return {"triton", fmt::format("MLA on {} defaults to triton.", sm)};
}

// Per-platform pick shared by the gpt-oss and Llama 4 overrides: SM100 trtllm_mha, SM90 fa3,
// ROCm aiter, anything else triton.
Choice platform_pick(const GpuSpec& gpu, std::string_view model) {
  if (gpu.is_amd)
    return {"aiter", fmt::format("{} on ROCm: aiter.", model)};
  if (gpu.cc_major == 10)
    return {"trtllm_mha", fmt::format("{} on SM100: trtllm_mha.", model)};
  if (gpu.cc_major == 9)
    return {"fa3", fmt::format("{} on SM90: fa3.", model)};
  return {"triton", fmt::format("{} on SM{}{}: triton.", model, gpu.cc_major, gpu.cc_minor)};
}

}  // namespace

void resolve_attention_backend_and_page_size(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  const GpuSpec& gpu = ctx.scenario.hardware.gpu;
  const ModelShape& m = ctx.scenario.model;
  const std::string& arch = m.architecture;

  TypedAttention t;
  t.backend = ctx.in.optional_text("attention_backend");
  t.prefill = ctx.in.optional_text("prefill_attention_backend");
  t.decode = ctx.in.optional_text("decode_attention_backend");
  t.page = ctx.in.optional_integer("page_size", "tokens");
  t.topk = typed_int(ctx.in, "speculative_eagle_topk");
  t.speculative = a.speculative();

  // The model override declarations (collect_model_override_declarations) come first; a
  // declared backend (or page size) wins over the default and over a typed --page-size.
  std::optional<Choice> declared;
  std::optional<std::int64_t> declared_page;
  if (arch == "GptOssForCausalLM" && t.all_unset()) {
    // R2.10: overrides.py::_gpt_oss_overrides (0.5.16; model_overrides/gpt_oss.py 0.5.20+,
    // the GptOssForCausalLM branch of _handle_model_specific_adjustments in 0.5.9).
    declared = platform_pick(gpu, "gpt-oss");
    declared->source = "arg_groups/overrides.py::_gpt_oss_overrides";
  } else if (contains_arch({"Llama4ForConditionalGeneration", "Llama4ForCausalLM"}, arch) &&
             !t.backend) {
    // R2.10: overrides.py::_llama4_overrides (model_overrides/llama4.py 0.5.20+).
    declared = platform_pick(gpu, "Llama 4");
    declared->source = "arg_groups/overrides.py::_llama4_overrides";
  } else if (m.uses_sparse_mla() && t.all_unset()) {
    // R2.10: model_overrides/deepseek_v2.py (DSA arm; server_args.py before 0.5.15): DeepSeek
    // V3.2 and GLM-5 take the sparse-attention backend, which sets no page snap of its own.
    declared = Choice{ctx.rules.dsa_backend_named_dsa ? "dsa" : "nsa",
                      "DeepSeek Sparse Attention: its own attention backend.",
                      "arg_groups/model_overrides/deepseek_v2.py"};
  } else if (contains_arch({"DeepseekV3ForCausalLM", "KimiK25ForConditionalGeneration",
                            "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration"},
                           arch) &&
             !gpu.is_amd && gpu.cc_major == 10 && t.all_unset()) {
    // R2.10: overrides.py::_deepseek_family_overrides (non-DSA arm; model_overrides/
    // deepseek_v2.py 0.5.20+): DeepSeek V3/R1 and Kimi K2 on SM100 use trtllm_mla.
    declared = Choice{"trtllm_mla", "DeepSeek V3 family on SM100: trtllm_mla.",
                      "arg_groups/overrides.py::_deepseek_family_overrides"};
  } else if (contains_arch(
                 {"Qwen3NextForCausalLM", "Qwen3_5MoeForConditionalGeneration",
                  "InternS2PreviewForConditionalGeneration", "Qwen3_5ForConditionalGeneration"},
                 arch) &&
             !gpu.is_amd && gpu.cc_major == 10 && !t.backend) {
    if (!ctx.rules.hybrid_sm100_trtllm_mha) {
      // R2.10: server_args.py::ServerArgs._handle_mamba_radix_cache
      // (sm100_default_attention_backend="triton", 0.5.9): the page size is left alone.
      declared = Choice{"triton", "Qwen3.5/Qwen3-Next hybrid model on SM100: triton.",
                        "server_args.py::ServerArgs._handle_mamba_radix_cache"};
    } else {
      // R2.10: overrides.py::_qwen3_5_hybrid_overrides (0.5.16; model_overrides/qwen3_5.py
      // 0.5.20+): trtllm_mha (page 64) where the default would be trtllm_mha and page 1 is not
      // required; page 1 is required with the radix cache on, no extra_buffer and no
      // speculation. The override reads the strategy as typed: an "auto" that resolves to
      // extra_buffer later does not count (the oracle of 0.5.16, 0.5.20 and 0.5.23 agrees).
      const std::string strategy = typed_text(ctx.in, "mamba_radix_cache_strategy", "auto");
      const bool extra_buffer =
          !a.disable_radix_cache && (strategy == "extra_buffer" || strategy == "extra_buffer_lazy");
      const bool page_one_required = !extra_buffer && !a.disable_radix_cache && !t.speculative;
      const Choice dflt = default_backend(gpu, m, a.uses_mla, a.tp, t, t.page);
      if (dflt.backend == "trtllm_mha" && !page_one_required) {
        declared = Choice{"trtllm_mha",
                          "Qwen3.5/Qwen3-Next hybrid model on SM100 with extra_buffer, no radix "
                          "cache or speculation: trtllm_mha with page size 64.",
                          "arg_groups/overrides.py::_qwen3_5_hybrid_overrides"};
        declared_page = 64;
      } else {
        declared = Choice{
            "triton",
            dflt.backend == "trtllm_mha"
                ? std::string("Qwen3.5/Qwen3-Next hybrid model on SM100 with the radix cache, "
                              "no typed extra_buffer and no speculation needs page size 1: "
                              "triton.")
                : fmt::format("Qwen3.5/Qwen3-Next hybrid model on SM100 (default would be "
                              "{}): triton with page size 1.",
                              dflt.backend),
            "arg_groups/overrides.py::_qwen3_5_hybrid_overrides"};
        declared_page = 1;
      }
    }
  }

  // R2.10: overrides.py::_attention_backend_default — equal typed prefill and decode backends
  // become the backend; an unset backend gets the default (_get_default_attn_backend).
  std::optional<std::int64_t> page = declared_page ? declared_page : t.page;
  Choice chosen;
  if (t.prefill && t.decode && *t.prefill == *t.decode) {
    chosen = {*t.prefill, "--prefill-attention-backend and --decode-attention-backend agree.",
              "arg_groups/overrides.py::_attention_backend_default"};
  } else if (declared) {
    chosen = *declared;
  } else if (t.backend) {
    chosen = {*t.backend, "Set explicitly.", "arg.attention_backend"};
  } else {
    chosen = default_backend(gpu, m, a.uses_mla, a.tp, t, page);
  }
  // R2.10: overrides.py::_attention_backend_fa3_fp8_fallback — fa3 lacks fp8_e5m2.
  if (chosen.backend == "fa3" && typed_text(ctx.in, "kv_cache_dtype", "auto") == "fp8_e5m2")
    chosen = {"triton", "fa3 supports only fp8_e4m3 of the FP8 KV dtypes: triton.",
              "arg_groups/overrides.py::_attention_backend_fa3_fp8_fallback"};

  const std::string& b = chosen.backend;
  const std::string decode = t.decode.value_or(b);
  const std::string prefill = t.prefill.value_or(b);
  a.attention_backend = b;
  g.add({"attention_backend.resolved",
         b,
         "",
         "R2.10",
         chosen.why,
         chosen.source,
         {"arg.attention_backend", "gpu_compute_capability"}});

  // R2.11: model_overrides/deepseek_v2.py (DSA arm): DeepSeek V3.2 and GLM-5 on a CUDA GPU take
  // page size 64 (× index_kpool, 1 unless the config pools index keys), over a typed one.
  if (m.uses_sparse_mla() && !gpu.is_amd) {
    declared_page = 64;
    page = declared_page;
  }
  // R2.11: overrides.py::_mla_backend_page_constraints — the page snaps of the chosen backends.
  std::string page_why =
      page ? (declared_page ? std::string(m.uses_sparse_mla()
                                              ? "DeepSeek Sparse Attention on CUDA: page size 64."
                                              : "Declared by the model override.")
                            : std::string("--page-size as typed."))
           : std::string("CUDA defaults to page size 1.");
  auto uses = [&](std::string_view name) { return b == name || decode == name; };
  if (uses("flashmla")) {
    page = 64;
    page_why = "FlashMLA only supports page size 64.";
  }
  if (uses("cutlass_mla")) {
    page = 128;
    page_why = "Cutlass MLA only supports page size 128.";
  }
  if (uses("trtllm_mla") && !(page == 32 || page == 64)) {
    page = 64;
    page_why = "TensorRT-LLM MLA supports page size 32 or 64: 64.";
  }
  if ((uses("trtllm_mha") || prefill == "trtllm_mha") &&
      !(page == 16 || page == 32 || page == 64)) {
    page = 64;
    page_why = "TensorRT-LLM MHA supports page size 16, 32 or 64: 64.";
  }
  // R2.11: overrides.py::_fa4_page_constraint — fa4 on SM100 for MHA models uses page 128.
  if ((uses("fa4") || prefill == "fa4") && !a.uses_mla && !gpu.is_amd && gpu.cc_major == 10 &&
      t.topk.value_or(0) <= 1) {
    page = 128;
    page_why = "FA4 on SM100 for MHA models only supports page size 128.";
  }
  // R2.11: overrides.py::_page_size_default — CUDA leaves an unset page size at 1.
  a.page_size = page.value_or(1);
  g.add({"page_size.resolved",
         a.page_size,
         "tokens",
         "R2.11",
         page_why,
         "arg_groups/overrides.py::_mla_backend_page_constraints, _page_size_default",
         {"arg.page_size", "attention_backend.resolved"}});
}

}  // namespace servescope::sglang
