#include "engines/scenario.h"

namespace servescope {

std::optional<double>* calibration_field(Calibration& c, std::string_view name) {
  if (name == "free_before_load")
    return &c.free_before_load_gib;
  if (name == "free_after_load")
    return &c.free_after_load_gib;
  if (name == "total_memory")
    return &c.total_memory_gib;
  if (name == "weights")
    return &c.weights_gib;
  if (name == "activation_peak")
    return &c.activation_peak_gib;
  if (name == "non_torch")
    return &c.non_torch_gib;
  if (name == "cuda_graph")
    return &c.cuda_graph_gib;
  if (name == "kv_memory")
    return &c.kv_memory_gib;
  if (name == "free_after_warmup")
    return &c.free_after_warmup_gib;
  if (name == "kv_committed")
    return &c.kv_committed_gib;
  if (name == "transient_peak")
    return &c.transient_peak_gib;
  if (name == "torch_growth")
    return &c.torch_growth_gib;
  return nullptr;
}

const std::vector<std::string>& calibration_field_names() {
  static const std::vector<std::string> kNames = {
      "free_before_load",  "free_after_load", "total_memory",   "weights",
      "activation_peak",   "non_torch",       "cuda_graph",     "kv_memory",
      "free_after_warmup", "kv_committed",    "transient_peak", "torch_growth"};
  return kNames;
}

}  // namespace servescope
