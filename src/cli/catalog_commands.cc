// servescope gpus / servescope models: what the catalogs hold.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "catalog/gpu_catalog.h"
#include "catalog/gpu_evidence.h"
#include "catalog/model_catalog.h"
#include "cli/command.h"
#include "cli/scenario_cli.h"
#include "core/file.h"
#include "engines/architecture_coverage.h"
#include "report/coverage_report.h"
#include "report/format.h"

namespace servescope {

// gpus --from FILE: each GPU a pasted nvidia-smi output shows, its catalog entry and what the
// paste lacks.
ExitStatus run_gpus_from(const std::string& path) {
  auto text = read_file(path);
  if (!text)
    return usage_error(fmt::format("gpus --from {}: cannot read it: {}", path, text.message()));
  const auto gpus = read_gpu_evidence(*text, GpuCatalog::builtin());
  if (gpus.empty()) {
    return usage_error(
        fmt::format("gpus --from {}: no GPU found (expected nvidia-smi's table, nvidia-smi -L, or "
                    "nvidia-smi --query-gpu=name,memory.total --format=csv)",
                    path));
  }
  for (const EvidenceGpu& g : gpus)
    std::cout << describe_evidence(g) << "\n";
  return ExitStatus::kOk;
}

ExitStatus run_gpus(const CommandArgs& args) {
  if (args.options.size() == 2 && args.options[0] == "--from")
    return run_gpus_from(args.options[1]);
  if (args.options.size() == 1 && args.options[0].rfind("--from=", 0) == 0)
    return run_gpus_from(args.options[0].substr(7));
  if (!args.options.empty())
    return usage_error("gpus: takes no arguments but --from FILE (a pasted nvidia-smi output)");
  std::vector<std::vector<std::string>> rows = {
      {"KEY", "NVIDIA-SMI NAME", "MiB", "CC", "TB/s", "BF16 TFLOPS"}};
  for (const GpuSpec& g : GpuCatalog::builtin().gpus()) {
    rows.push_back({g.key, g.smi_name, with_thousands(g.memory_mib), g.compute_capability,
                    fmt::format("{:.2f}", g.mem_bw_tbps),
                    fmt::format("{:.0f}", g.bf16_dense_tflops)});
  }
  std::cout << render_columns(rows, "");
  return ExitStatus::kOk;
}

// models --coverage [--engine NAME[@VERSION]] [--all] [--json]: the architectures a release's
// model registry lists and whether servescope plans each; every engine's newest release when no
// --engine is given.
ExitStatus run_models_coverage(const std::string& engine_spec, bool all, bool json) {
  std::vector<std::string> specs = {engine_spec};
  if (engine_spec.empty())
    specs = registry_engines();
  nlohmann::json docs = nlohmann::json::array();
  for (const std::string& spec : specs) {
    const auto at = spec.find('@');
    const std::string engine = spec.substr(0, at);
    const std::string version = at == std::string::npos ? "" : spec.substr(at + 1);
    auto registry = architecture_registry(engine, version);
    if (!registry)
      return usage_error(
          fmt::format("models --coverage --engine {}: {}", spec, registry.message()));
    const auto coverage = architecture_coverage(*registry);
    if (json)
      docs.push_back(coverage_to_json(*registry, coverage));
    else
      std::cout << coverage_to_text(*registry, coverage, all)
                << (&spec == &specs.back() ? "" : "\n");
  }
  if (json)
    std::cout << (docs.size() == 1 ? docs[0] : nlohmann::json{{"engines", docs}}).dump(2) << "\n";
  return ExitStatus::kOk;
}

ExitStatus run_models(const CommandArgs& args) {
  CLI::App app(
      "List the bundled model configs, or which architectures an engine release "
      "serves and whether servescope plans them.",
      "models");
  bool coverage = false, all = false, json = false;
  std::string engine;
  app.add_flag("--coverage", coverage,
               "Each architecture the engine's model registry lists: modelled, modelled with "
               "named gaps, or not modelled and why");
  app.add_option("--engine", engine,
                 "NAME[@VERSION]: one engine's registry at that release (default: every engine "
                 "at its newest release read)");
  app.add_flag("--all", all, "With --coverage: a row per architecture");
  app.add_flag("--json", json,
               "With --coverage: JSON (one engine's document, or {\"engines\": [...]} for all)");
  if (auto exit = parse_command_line(app, args))
    return *exit;
  if (coverage)
    return run_models_coverage(engine, all, json);
  if (all || json || !engine.empty())
    return usage_error("models: --engine, --all and --json go with --coverage");
  for (const std::string& id : bundled_model_ids())
    std::cout << id << "\n";
  return ExitStatus::kOk;
}

}  // namespace servescope
