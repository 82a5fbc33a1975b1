// servescope gpus / servescope models: what the catalogs hold.
#include <fmt/format.h>

#include <iostream>

#include "catalog/gpu_catalog.h"
#include "catalog/model_catalog.h"
#include "cli/command.h"
#include "report/format.h"

namespace servescope {

ExitStatus run_gpus(const CommandArgs& args) {
  if (!args.options.empty())
    return usage_error("gpus: takes no arguments");
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
