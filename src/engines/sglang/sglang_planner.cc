#include "engines/sglang/sglang_planner.h"

#include <fmt/format.h>

#include "engines/architecture_coverage.h"
#include "engines/release_flags.h"
#include "engines/sglang/capacity_rules.h"
#include "engines/sglang/server_args_resolution.h"
#include "engines/sglang/sglang_flags.h"

namespace servescope::sglang {
namespace {

constexpr char kArgparse[] = "server_args.py::ServerArgs.add_cli_args (argparse)";

void report_flags(PlanContext& ctx, std::vector<ParseNote> notes) {
  // A published release is judged by its own parser's table (data/sglang/flags-RELEASE.tsv):
  // it replaces the verdicts against the modelled main surface.
  const std::string& release = ctx.scenario.version.release;
  const ReleaseFlagTables& tables = ReleaseFlagTables::of("sglang");
  const bool by_release = !release.empty() && tables.table(release) != nullptr;
  if (by_release) {
    std::erase_if(notes, [](const ParseNote& n) {
      return n.code == "ambiguous-flag" || n.code == "flag-not-in-version" ||
             n.code == "unknown-flag";
    });
    for (const FlagSetting& f : ctx.scenario.command.flags) {
      if (f.spelled.empty())
        continue;  // the positional model path
      if (auto n = tables.note(f.spelled, release)) {
        ctx.finding(n->error ? Severity::kError : Severity::kWarning, n->code, {f.as_typed()},
                    n->message, "CLI",
                    fmt::format("data/sglang/flags-{}.tsv ({})", release, kArgparse));
      }
    }
  }
  for (const ParseNote& n : notes) {
    ctx.finding(n.code == "ambiguous-flag" ? Severity::kError : Severity::kWarning, n.code,
                {n.flag}, n.message, "CLI", kArgparse);
  }
  for (const FlagSetting& f : ctx.scenario.command.flags) {
    if (const FlagSpec* spec = find_capacity_flag(f.name);
        !by_release && spec != nullptr && !spec->deprecated_for.empty()) {
      ctx.finding(Severity::kWarning, "deprecated-flag", {f.as_typed()},
                  fmt::format("{} is deprecated; SGLang reads it as {}",
                              f.spelled.empty() ? f.name : f.spelled, spec->deprecated_for),
                  "CLI", "server_args.py::ServerArgs._handle_deprecated_args");
    }
    if (!f.modelled && f.known) {
      ctx.finding(
          Severity::kInfo, "unmodelled-flag", {f.as_typed()},
          fmt::format("{} is kept but not modelled: no capacity rule here reads it", f.spelled), "",
          "");
    }
  }
}

// §9.1: an explicit FlashInfer allreduce fusion on a GPU that lacks it.
void check_allreduce_fusion(PlanContext& ctx) {
  const ResolvedArgs& a = ctx.args;
  const GpuSpec& gpu = ctx.scenario.hardware.gpu;
  if (a.fusion_backend.empty())
    return;
  const bool supported = !gpu.is_amd && (gpu.cc_major == 9 || gpu.cc_major == 10);
  if (supported)
    return;
  std::string flag = ctx.typed("enable_flashinfer_allreduce_fusion");
  if (flag.empty())
    flag = ctx.typed("flashinfer_allreduce_fusion_backend");
  const std::string source = "layers/flashinfer_comm_fusion.py::_resolve_backend";
  switch (ctx.rules.fusion_on_unsupported_gpu) {
    case FusionOnUnsupportedGpu::kStartupFailure:
      ctx.plan.starts = false;
      ctx.plan.startup_error =
          "ValueError: FlashInfer allreduce fusion requires SM90 or SM10X NVIDIA GPUs.";
      ctx.finding(
          Severity::kError, "fusion-unsupported-gpu", {flag},
          fmt::format("FlashInfer allreduce fusion needs SM90 or SM10x; on {} (SM{}) this version "
                      "sizes the pools, "
                      "then fails in warmup with ValueError, before the max_total_num_tokens line",
                      gpu.key, gpu.compute_capability),
          "R9.1", source);
      break;
    case FusionOnUnsupportedGpu::kWorkspaceWarning:
      ctx.finding(Severity::kWarning, "fusion-unsupported-gpu", {flag},
                  fmt::format("FlashInfer allreduce fusion is unsupported on {} (SM{}): workspace "
                              "creation fails with a "
                              "warning and the fusion stays off; capacity is unchanged",
                              gpu.key, gpu.compute_capability),
                  "R9.1", source);
      break;
    case FusionOnUnsupportedGpu::kSilentlyInactive:
      ctx.finding(Severity::kWarning, "fusion-unsupported-gpu", {flag},
                  fmt::format("FlashInfer allreduce fusion is silently inactive on {} (SM{}); "
                              "capacity is unchanged",
                              gpu.key, gpu.compute_capability),
                  "R9.1", "layers/communicator.py::apply_flashinfer_allreduce_fusion");
      break;
    case FusionOnUnsupportedGpu::kCrashAtCapture:
      ctx.plan.starts = false;
      ctx.plan.startup_error =
          "Capture cuda graph failed: No supported CUDA architectures found for major versions [9, "
          "10]";
      ctx.finding(Severity::kError, "fusion-unsupported-gpu", {flag},
                  fmt::format("FlashInfer allreduce fusion on {} (SM{}) crashes at CUDA-graph "
                              "capture in this version "
                              "(#15650)",
                              gpu.key, gpu.compute_capability),
                  "R9.1", source);
      break;
  }
}

}  // namespace

Result<Plan> plan_sglang(const Scenario& scenario, const std::vector<ParseNote>& notes) {
  Plan plan;
  plan.engine = "sglang";
  plan.version = scenario.version.label;
  plan.rules_date = scenario.version.main_date;
  plan.release = scenario.version.release;
  plan.version_basis = scenario.version.basis;
  // SGLang sizes an attention-free model's pools on a path of its own (no KV pool at all);
  // servescope has modelled it from vLLM's code only.
  if (scenario.model.attention_free()) {
    return fail(fmt::format(
        "{} ({}) has no attention layer: SGLang's pools for an attention-free model are not "
        "modelled yet; plan it on vLLM (--engine vllm), whose layout is checked",
        scenario.model.architecture, scenario.model.model_type));
  }
  plan.graph.pin_estimates(scenario.estimate_pins);
  SglangInputs inputs(scenario.command, plan.graph);
  const RuleVariant variant =
      rules_for_date(scenario.version.main_date, scenario.version.cherry_picks);
  PlanContext ctx{scenario, variant, variant.rules, plan, inputs, {}};
  plan.version_basis = scenario.version.basis + "; " + variant.describe();
  if (!scenario.hardware.gpu_note.empty()) {
    ctx.finding(Severity::kInfo, "gpu-name-ambiguous", {}, scenario.hardware.gpu_note, "", "");
  }
  Status st = resolve_server_args(ctx);
  if (!st)
    return st.error();
  if (!scenario.version.rules_gap.empty()) {
    ctx.finding(scenario.version.newer_than_known || scenario.version.unmodelled_changes
                    ? Severity::kWarning
                    : Severity::kInfo,
                "version-newer-than-modelled", {}, scenario.version.rules_gap, "versions",
                scenario.version.basis);
  }
  if (const std::string unregistered = unregistered_architecture("sglang", scenario.version.release,
                                                                 scenario.model.architecture);
      !unregistered.empty()) {
    ctx.finding(Severity::kWarning, "architecture-not-registered", {}, unregistered, "registry",
                "sglang/srt/models/registry.py::_ModelRegistry._raise_for_unsupported");
  }
  if (const std::string gap = layout_gap_note("sglang", scenario.model.architecture); !gap.empty())
    ctx.finding(Severity::kWarning, "layout-gap", {}, gap, "layouts", "data/model-layout-gaps.tsv");
  report_flags(ctx, notes);
  // Sizing stops where SGLang raises: later rules would describe pools that never exist.
  resolve_mem_fraction(ctx);
  resolve_dp_attention_chunking(ctx);
  resolve_memory_budget(ctx);
  resolve_mamba_pool(ctx);
  if (plan.starts)
    resolve_kv_pool(ctx);
  if (plan.starts)
    resolve_running_requests(ctx);
  check_allreduce_fusion(ctx);
  if (plan.starts)
    fill_capacity_account(ctx);

  for (const char* id :
       {"max_total_num_tokens", "max_running_requests", "max_mamba_cache_size",
        "mem_fraction_static", "chunked_prefill_size", "cuda_graph_max_bs", "cuda_graph_bs",
        "context_len", "kv_cell_bytes", "mamba_ratio", "mamba_state_bytes_per_request"}) {
    if (plan.graph.find(id) != nullptr)
      plan.outputs.emplace_back(id);
  }
  for (const std::string& e : plan.estimated) {
    ctx.finding(Severity::kInfo, "estimated-input", {},
                fmt::format("{} is an estimate; give --free-before-load and --free-after-load (or "
                            "--calibrate-from LOG) "
                            "for exact numbers",
                            e),
                "R3.1", "");
  }
  return plan;
}

}  // namespace servescope::sglang
