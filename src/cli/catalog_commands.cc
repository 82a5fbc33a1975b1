// servescope gpus / servescope models: what the catalogs hold.
#include <fmt/format.h>

#include <iostream>

#include "catalog/gpu_catalog.h"
#include "catalog/gpu_evidence.h"
#include "catalog/model_catalog.h"
#include "cli/command.h"
#include "core/file.h"
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

ExitStatus run_models(const CommandArgs& args) {
  if (!args.options.empty())
    return usage_error("models: takes no arguments");
  for (const std::string& id : bundled_model_ids())
    std::cout << id << "\n";
  return ExitStatus::kOk;
}

}  // namespace servescope
