#include "engines/sglang/sglang_lint.h"

#include <fmt/format.h>

#include "core/text.h"
#include "engines/sglang/sglang_flags.h"
#include "engines/sglang/sglang_rules.h"

namespace servescope::sglang {
namespace {

class Linter {
 public:
  Linter(const Scenario& s, const Plan& p) : s_(s), p_(p) {}

  std::vector<Finding> run() {
    noop_flags();
    contradictions();
    gpu_support();
    engine_overrides();
    return std::move(out_);
  }

 private:
  const FlagSetting* typed(std::string_view canonical) const {
    return s_.command.find(std::string(canonical));
  }
  std::string text_of(std::string_view id) const {
    const Node* n = p_.graph.find(id);
    return n == nullptr ? std::string() : n->value.to_string();
  }
  std::int64_t int_of(std::string_view id, std::int64_t fallback = 0) const {
    const Node* n = p_.graph.find(id);
    return n == nullptr || !n->value.is_number() ? fallback
                                                 : static_cast<std::int64_t>(n->value.as_number());
  }
  void add(Severity sev, std::string code, std::vector<std::string> flags, std::string message,
           std::string rule, std::string source) {
    out_.push_back({sev, std::move(code), std::move(flags), std::move(message), std::move(rule),
                    std::move(source)});
  }

  void noop_flags() {
    const ModelShape& m = s_.model;
    if (const FlagSetting* f = typed("--enable-fused-moe-sum-all-reduce")) {
      // §9.2: used only in the Triton fused-MoE runner, not no_combine, top-k > 2, not w4a16/w8a16.
      std::string why;
      if (!m.moe) {
        why = fmt::format("{} has no MoE layers", m.source);
      } else if (m.moe->experts_per_token <= 2) {
        why = fmt::format("{} routes each token to {} expert(s); the fused sum needs top-k > 2",
                          m.source, m.moe->experts_per_token);
      } else if (m.quant.method == QuantMethod::kAwq || m.quant.method == QuantMethod::kGptq) {
        why = "int4 (w4a16) checkpoints take a MoE path without the fused sum";
      } else if (!s_.hardware.gpu.is_amd && s_.hardware.gpu.cc_major == 10 &&
                 contains(m.architecture, "Qwen3") && m.moe) {
        why =
            "on SM100 the Qwen3 MoE family runs the flashinfer_trtllm MoE runner, not the Triton "
            "one";
      }
      if (!why.empty()) {
        add(Severity::kWarning, "flag-is-noop", {f->as_typed()},
            fmt::format("{} does nothing here: {}", f->spelled, why), "R9.2",
            "layers/moe/moe_runner/triton_utils/fused_moe.py");
      } else {
        add(Severity::kInfo, "runtime-only-flag", {f->as_typed()},
            fmt::format("{} changes the MoE kernel at run time (top-k {} > 2) and sizes no pool: "
                        "it cannot move "
                        "max_total_num_tokens or max_running_requests",
                        f->spelled, m.moe->experts_per_token),
            "R9.2", "layers/moe/moe_runner/triton_utils/fused_moe.py");
      }
    }
    if (!m.is_hybrid_linear()) {
      for (const char* flag :
           {"--mamba-ssm-dtype", "--mamba-full-memory-ratio", "--max-mamba-cache-size",
            "--mamba-radix-cache-strategy", "--mamba-scheduler-strategy", "--mamba-track-interval",
            "--linear-attn-backend"}) {
        if (const FlagSetting* f = typed(flag)) {
          add(Severity::kWarning, "flag-is-noop", {f->as_typed()},
              fmt::format("{} does nothing: {} has no linear-attention (mamba) layers", f->spelled,
                          m.source),
              "R6",
              "mem_cache/kv_cache_configurator.py::KVCacheConfigurator._handle_max_mamba_cache");
        }
      }
    }
    if (const FlagSetting* f = typed("--language-only"); f != nullptr && !m.multimodal) {
      add(Severity::kWarning, "flag-is-noop", {f->as_typed()},
          fmt::format("--language-only does nothing: {} is not multimodal", m.source), "R2.8",
          "server_args.py::ServerArgs.adjust_mem_fraction_for_vlm");
    }
    if (!typed("--speculative-algorithm")) {
      for (const char* flag :
           {"--speculative-num-steps", "--speculative-eagle-topk", "--speculative-num-draft-tokens",
            "--speculative-draft-model-path"}) {
        if (const FlagSetting* f = typed(flag)) {
          add(Severity::kWarning, "flag-is-noop", {f->as_typed()},
              fmt::format("{} does nothing without --speculative-algorithm", f->spelled), "R7.2",
              "arg_groups/speculative_hook.py");
        }
      }
    }
    if (const FlagSetting* f = typed("--enable-dp-attention");
        f != nullptr && int_of("arg.dp_size", 1) <= 1) {
      add(Severity::kWarning, "flag-is-noop", {f->as_typed()},
          "--enable-dp-attention does nothing with --dp-size 1 (SGLang resets it)", "R8.1",
          "arg_groups/overrides.py::_data_parallelism_defaults");
    }
    if (const FlagSetting* f = typed("--mamba-radix-cache-strategy");
        f != nullptr && typed("--disable-radix-cache")) {
      add(Severity::kWarning, "flag-is-noop", {f->as_typed(), "--disable-radix-cache"},
          "--mamba-radix-cache-strategy does nothing with --disable-radix-cache (no prefix cache, "
          "one slot per request)",
          "R5.9", "arg_groups/overrides.py::_mamba_radix_cache_resolution");
    }
    for (const char* flag : {"--disable-piecewise-cuda-graph", "--disable-prefill-cuda-graph"}) {
      const FlagSetting* f = typed(flag);
      if (f == nullptr)
        continue;
      // No-op when the prefill graph would be off anyway: plan it without the flag.
      const std::string why = prefill_off_without(f->name);
      if (!why.empty()) {
        add(Severity::kInfo, "flag-is-noop", {f->as_typed()},
            fmt::format("{} changes nothing here: {}", f->spelled, why), "R9.3",
            "server_args.py::ServerArgs._handle_piecewise_cuda_graph");
      }
    }
  }

  // Why the prefill graph would be disabled even without `flag` ("" when it would be on).
  std::string prefill_off_without(const std::string& flag) const {
    const Node* n = p_.graph.find("cuda_graph_backend_prefill.resolved");
    if (n == nullptr)
      return "";
    const RuleVariant v = rules_for_date(s_.version.main_date, s_.version.cherry_picks);
    if (v.rules.prefill_graph == PrefillGraphEra::kAbsent)
      return "this version has no prefill CUDA graph";
    if (v.rules.prefill_graph == PrefillGraphEra::kOptIn) {
      return "the piecewise prefill graph is opt-in in this version (off unless "
             "--enable-piecewise-cuda-graph)";
    }
    (void)flag;
    if (v.rules.prefill_graph == PrefillGraphEra::kDefaultOn && s_.model.multimodal) {
      return fmt::format(
          "{} is multimodal, which auto-disables the piecewise graph in this version (2026-03-02 … "
          "06-08), before the memory reserve is computed",
          s_.model.architecture);
    }
    return "";
  }

  void contradictions() {
    const FlagSetting* off = typed("--enforce-disable-flashinfer-allreduce-fusion");
    for (const char* flag :
         {"--enable-flashinfer-allreduce-fusion", "--flashinfer-allreduce-fusion-backend"}) {
      if (const FlagSetting* on = typed(flag); on != nullptr && off != nullptr) {
        add(Severity::kWarning, "contradicting-flags", {on->as_typed(), off->as_typed()},
            fmt::format("{} and {} contradict; the enforce-disable switch wins", on->spelled,
                        off->spelled),
            "R9.1", "arg_groups/overrides.py::_enforce_disable_allreduce_fusion");
      }
    }
    if (const FlagSetting* lazy = typed("--mamba-radix-cache-strategy");
        lazy != nullptr && lazy->value() == "extra_buffer_lazy" &&
        typed("--disable-overlap-schedule")) {
      add(Severity::kError, "contradicting-flags", {lazy->as_typed(), "--disable-overlap-schedule"},
          "extra_buffer_lazy requires the overlap schedule: SGLang fails an assertion with "
          "--disable-overlap-schedule",
          "R5.8", "kv_cache_configurator.py::KVCacheConfigurator._calculate_mamba_ratio");
    }
    if (const FlagSetting* dcg = typed("--disable-cuda-graph")) {
      for (const char* flag : {"--cuda-graph-max-bs", "--cuda-graph-max-bs-decode",
                               "--cuda-graph-bs", "--cuda-graph-bs-decode"}) {
        if (const FlagSetting* f = typed(flag)) {
          add(Severity::kWarning, "contradicting-flags", {f->as_typed(), dcg->as_typed()},
              fmt::format(
                  "{} sets decode graph sizes while --disable-cuda-graph turns the graphs off",
                  f->spelled),
              "R2.2", "server_args.py::ServerArgs._parse_cuda_graph_config");
        }
      }
    }
  }

  void gpu_support() {
    const GpuSpec& gpu = s_.hardware.gpu;
    const bool sm100 = !gpu.is_amd && gpu.cc_major == 10;
    if (const FlagSetting* f = typed("--moe-runner-backend");
        f != nullptr && contains(f->value(), "flashinfer_trtllm") && !sm100) {
      add(Severity::kError, "flag-unsupported-on-gpu", {f->as_typed()},
          fmt::format("{} needs SM100 (TRT-LLM MoE kernels); {} is SM{}", f->as_typed(), gpu.key,
                      gpu.compute_capability),
          "R2.10", "arg_groups/overrides.py::_moe_runner_backend_quant_constraints");
    }
    for (const char* flag :
         {"--attention-backend", "--decode-attention-backend", "--prefill-attention-backend"}) {
      if (const FlagSetting* f = typed(flag);
          f != nullptr && (f->value() == "trtllm_mla" || f->value() == "cutlass_mla") && !sm100) {
        add(Severity::kError, "flag-unsupported-on-gpu", {f->as_typed()},
            fmt::format("{} needs SM100; {} is SM{}", f->as_typed(), gpu.key,
                        gpu.compute_capability),
            "R2.10", "server_args.py::ServerArgs._handle_attention_backend_compatibility");
      }
    }
  }

  void engine_overrides() {
    const std::int64_t running = int_of("max_running_requests", -1);
    const std::int64_t decode_max = int_of("cuda_graph_max_bs_decode.resolved", -1);
    for (const char* flag : {"--cuda-graph-max-bs", "--cuda-graph-max-bs-decode"}) {
      if (const FlagSetting* f = typed(flag); f != nullptr && running > 0 && decode_max > running) {
        add(Severity::kInfo, "value-clamped", {f->as_typed()},
            fmt::format("decode graphs are captured only up to max_running_requests {}, not {}",
                        running, decode_max),
            "R5.15", "runner/base_cuda_graph_runner.py::get_batch_sizes_to_capture");
      }
    }
    if (const Node* dpa = p_.graph.find("attn_dp_size");
        dpa != nullptr && dpa->value.as_int() > 1) {
      if (const FlagSetting* f = typed("--max-running-requests")) {
        add(Severity::kInfo, "value-divided", {f->as_typed(), "--enable-dp-attention"},
            fmt::format(
                "--max-running-requests is server-wide: each of the {} DP workers runs at most {}",
                dpa->value.as_int(), parse_int(f->value()).value_or(0) / dpa->value.as_int()),
            "R5.4", "kv_cache_configurator.py::KVCacheConfigurator.resolve_max_num_reqs");
      }
      if (const Node* chunk = p_.graph.find("chunked_prefill_size");
          chunk != nullptr && !chunk->why.empty() && contains(chunk->why, "divides")) {
        add(Severity::kInfo, "value-divided", {"--enable-dp-attention"}, chunk->why, "R8.2",
            "server_args.py::ServerArgs._handle_data_parallelism");
      }
    }
    for (const ResolvedSetting& r : p_.resolved) {
      if (r.name == "cuda_graph_backend_prefill" && r.resolved == "disabled") {
        add(Severity::kInfo, "setting-auto-disabled", {},
            fmt::format("SGLang turns the prefill CUDA graph off on its own: {}", r.why), "R9.3",
            "server_args.py::ServerArgs._apply_cuda_graph_compatibility");
      }
    }
  }

  const Scenario& s_;
  const Plan& p_;
  std::vector<Finding> out_;
};

}  // namespace

std::vector<Finding> lint_sglang(const Scenario& scenario, const Plan& plan) {
  return Linter(scenario, plan).run();
}

}  // namespace servescope::sglang
