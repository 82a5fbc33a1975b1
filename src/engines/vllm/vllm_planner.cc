#include "engines/vllm/vllm_planner.h"

#include <fmt/format.h>

#include <algorithm>

#include "engines/architecture_coverage.h"
#include "engines/release_flags.h"
#include "engines/vllm/capacity_rules.h"
#include "engines/vllm/cpu_platform.h"
#include "engines/vllm/vllm_flags.h"

namespace servescope::vllm {
namespace {

constexpr char kArgparse[] =
    "vllm/utils/argparse_utils.py::FlexibleArgumentParser.parse_args (argparse)";

void report_flags(PlanContext& ctx, std::vector<ParseNote> notes) {
  // A published release is judged by its own parser's table (data/vllm/flags-RELEASE.tsv): it
  // replaces the verdicts against the modelled main surfaces.
  const std::string& release = ctx.scenario.version.release;
  const ReleaseFlagTables& tables = ReleaseFlagTables::of("vllm");
  const bool by_release = !release.empty() && tables.table(release) != nullptr;
  if (by_release) {
    std::erase_if(notes, [](const ParseNote& n) {
      return n.code == "ambiguous-flag" || n.code == "unknown-flag";
    });
    for (const FlagSetting& f : ctx.scenario.command.flags) {
      // The option as typed, without a dotted JSON key (--compilation-config.mode).
      std::string option = f.spelled.substr(0, f.spelled.find('.', 2));
      if (option.rfind("--", 0) != 0)
        continue;  // the positional model, -O
      if (auto n = tables.note(option, release)) {
        ctx.finding(n->error ? Severity::kError : Severity::kWarning, n->code, {f.as_typed()},
                    n->message, "CLI",
                    fmt::format("data/vllm/flags-{}.tsv ({})", release, kArgparse));
      }
    }
  }
  for (const ParseNote& n : notes) {
    const Severity s = n.code == "ambiguous-flag" || n.code == "unknown-flag" ? Severity::kError
                                                                              : Severity::kWarning;
    ctx.finding(s, n.code, {n.flag}, n.message, "CLI", kArgparse);
  }
  const std::vector<CliFlag>& surface = cli_surface(ctx.scenario.version.main_date);
  for (const FlagSetting& f : ctx.scenario.command.flags) {
    const std::string spelled = f.spelled.empty() ? f.name : f.spelled;
    if (!by_release && f.known && f.name.rfind("--", 0) == 0) {
      const bool in_version = std::any_of(surface.begin(), surface.end(),
                                          [&](const CliFlag& c) { return c.name == f.name; });
      if (!in_version) {
        ctx.finding(Severity::kError, "flag-not-in-version", {f.as_typed()},
                    fmt::format("{} is not a `vllm serve` flag on main {} (argparse exits with "
                                "'unrecognized arguments'); it belongs to a newer release",
                                spelled, ctx.scenario.version.main_date),
                    "CLI", kArgparse);
      }
    }
    if (!f.modelled && f.known) {
      ctx.finding(
          Severity::kInfo, "unmodelled-flag", {f.as_typed()},
          fmt::format("{} is kept but not modelled: no capacity rule here reads it", spelled), "",
          "");
    }
  }
  for (const auto& [name, value] : ctx.scenario.environment) {
    const EnvSpec* env = find_capacity_env(name);
    if (name == "VLLM_ATTENTION_BACKEND") {
      ctx.finding(Severity::kWarning, "removed-env", {name + "=" + value},
                  "VLLM_ATTENTION_BACKEND is no longer read (vLLM warns 'Unknown vLLM environment "
                  "variable detected'); use --attention-backend",
                  "V8.2", "vllm/envs.py");
    } else if (env == nullptr && name.rfind("VLLM_", 0) == 0) {
      ctx.finding(Severity::kInfo, "unmodelled-env", {name + "=" + value},
                  fmt::format("{} is kept but not modelled: no capacity rule here reads it", name),
                  "", "");
    }
  }
}

Status check_json_flags(const VllmArgs& in) {
  for (const char* field :
       {"compilation_config", "speculative_config", "kv_transfer_config", "hf_overrides"}) {
    auto j = in.json_flag(field);
    if (!j)
      return j.error();
  }
  return ok_status();
}

}  // namespace

const std::vector<std::string>& vllm_output_names() {
  static const std::vector<std::string> kNames = {"gpu_kv_cache_size_tokens",
                                                  "maximum_concurrency",
                                                  "num_gpu_blocks",
                                                  "max_num_seqs",
                                                  "max_num_batched_tokens",
                                                  "available_kv_cache_memory_gib",
                                                  "gpu_memory_utilization",
                                                  "max_model_len",
                                                  "block_size",
                                                  "kv_page_bytes",
                                                  "kv_cache_groups",
                                                  "blocks_per_request",
                                                  "runtime_cudagraph_mode",
                                                  "cudagraph_capture_sizes",
                                                  "max_cudagraph_capture_size",
                                                  "attention_backend",
                                                  "kv_cache_dtype",
                                                  "fuse_allreduce_rms"};
  return kNames;
}

Result<Plan> plan_vllm(const Scenario& scenario, const std::vector<ParseNote>& notes) {
  Plan plan;
  plan.engine = "vllm";
  plan.version = scenario.version.label;
  plan.rules_date = scenario.version.main_date;
  plan.release = scenario.version.release;
  plan.version_basis = scenario.version.basis;
  plan.graph.pin_estimates(scenario.estimate_pins);
  VllmArgs inputs(scenario.command, scenario.environment, plan.graph);
  const VllmRules rules = rules_for_date(scenario.version.main_date);
  PlanContext ctx{scenario, rules, plan, inputs, {}, {}};
  if (!scenario.hardware.gpu_note.empty()) {
    ctx.finding(Severity::kInfo, "gpu-name-ambiguous", {}, scenario.hardware.gpu_note, "", "");
  }
  if (scenario.calibration.free_after_load_gib) {
    ctx.finding(Severity::kInfo, "calibration-unused", {"--free-after-load"},
                "vLLM logs no free memory after the weight load; give the weights it measured "
                "('Model loading took X GiB') with --weights instead",
                "V2.6", "vllm/v1/worker/gpu_model_runner.py::GPUModelRunner.load_model");
  }
  if (Status st = check_json_flags(inputs); !st)
    return st.error();
  if (!scenario.version.rules_gap.empty()) {
    ctx.finding(scenario.version.newer_than_known || scenario.version.unmodelled_changes
                    ? Severity::kWarning
                    : Severity::kInfo,
                "version-newer-than-modelled", {}, scenario.version.rules_gap, "versions",
                scenario.version.basis);
  }
  if (const std::string unregistered =
          unregistered_architecture("vllm", scenario.version.release, scenario.model.architecture);
      !unregistered.empty()) {
    ctx.finding(Severity::kWarning, "architecture-not-registered", {}, unregistered, "registry",
                "vllm/model_executor/models/registry.py::_ModelRegistry._raise_for_unsupported");
  }
  if (const std::string gap = layout_gap_note("vllm", scenario.model.architecture); !gap.empty())
    ctx.finding(Severity::kWarning, "layout-gap", {}, gap, "layouts", "data/model-layout-gaps.tsv");
  report_flags(ctx, notes);
  if (Status st = resolve_engine_config(ctx); !st)
    return st.error();
  resolve_compilation(ctx);
  resolve_attention(ctx);
  resolve_kv_specs(ctx);
  if (on_cpu_platform(ctx)) {
    if (Status st = resolve_cpu_memory(ctx); !st)
      return st.error();
  } else {
    resolve_memory_profile(ctx);
  }
  if (plan.starts)
    resolve_kv_cache(ctx);
  if (plan.starts && on_cpu_platform(ctx))
    check_cpu_kernel_block(ctx);
  if (plan.starts)
    resolve_runtime_cudagraphs(ctx);
  if (plan.starts)
    fill_capacity_account(ctx);
  if (ctx.args.dp > 1) {
    ctx.finding(Severity::kInfo, "data-parallel-engines", {ctx.in.typed("data_parallel_size")},
                fmt::format("each of the {} DP ranks is its own engine core with these numbers; "
                            "the /metrics num_gpu_blocks label sums them",
                            ctx.args.dp),
                "V2.5", "vllm/v1/engine/core.py::EngineCore._initialize_kv_caches");
  }
  // Whether the engine starts: a log that shows it failing (or serving) is held against it.
  plan.graph.add({"starts",
                  plan.starts,
                  "",
                  "V0",
                  plan.starts ? "No rule here makes the engine refuse this configuration."
                              : "The engine refuses to start: " + plan.startup_error,
                  "",
                  {}});
  for (const std::string& id : vllm_output_names()) {
    if (plan.graph.find(id) != nullptr)
      plan.outputs.push_back(id);
  }
  for (const std::string& e : plan.estimated) {
    ctx.finding(Severity::kInfo, "estimated-input", {},
                fmt::format("{} is an estimate; give the log's figures (--total-memory, --weights, "
                            "--activation-peak, --non-torch, --cuda-graph-memory or --kv-memory) "
                            "for exact numbers",
                            e),
                "V2.2", "");
  }
  return plan;
}

}  // namespace servescope::vllm
