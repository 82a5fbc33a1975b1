#include "catalog/dflash_layers.h"

#include <fmt/format.h>

#include <string>

namespace servescope {

using nlohmann::json;

bool is_dflash_drafter(const json& config, const ModelShape& shape) {
  const auto dc = config.find("dflash_config");
  return (dc != config.end() && dc->is_object()) ||
         shape.architecture.find("DFlash") != std::string::npos;
}

namespace {

// models/laguna_dflash.py: a Laguna DFlash head keeps full KV on every layer (it clears the
// attention's sliding window: "SWA remains a compute-time limit").
bool keeps_full_kv(const ModelShape& shape) {
  return shape.architecture == "DFlashLagunaForCausalLM";
}

}  // namespace

Status read_dflash_layers(const json& config, ModelShape& shape) {
  if (keeps_full_kv(shape)) {
    for (LayerKind& k : shape.layer_kinds) {
      if (k == LayerKind::kSlidingAttention)
        k = LayerKind::kFullAttention;
    }
    shape.model_sliding_window = 0;
    return ok_status();
  }
  const json no_options = json::object();
  const auto dc_it = config.find("dflash_config");
  const json& dc = dc_it != config.end() && dc_it->is_object() ? *dc_it : no_options;
  const bool use_swa = dc.value("use_swa", false);
  const auto lt = config.find("layer_types");
  const bool listed = lt != config.end() && lt->is_array();
  const auto n = shape.layer_kinds.size();
  if (listed && lt->size() != n)
    return fail(
        fmt::format("config.json: layer_types has {} entries for {} layers", lt->size(), n));
  bool any_sliding = false;
  for (std::size_t i = 0; listed && i < n; ++i)
    any_sliding = any_sliding || (*lt)[i] == "sliding_attention";
  int sliding = 0;
  for (std::size_t i = 0; i < n; ++i) {
    // `use_swa` forces every layer to slide, even under an all-full layer_types.
    const bool slides =
        !listed || (use_swa && !any_sliding) ? use_swa : (*lt)[i] == "sliding_attention";
    shape.layer_kinds[i] = slides ? LayerKind::kSlidingAttention : LayerKind::kFullAttention;
    sliding += slides ? 1 : 0;
  }
  shape.model_sliding_window = 0;  // each layer's own window decides (per_layer_sliding_window)
  if (sliding == 0)
    return ok_status();
  // transformers' Qwen3Config keeps sliding_window only with use_sliding_window (its default
  // False); vLLM reads the window from the config object.
  int window = 0;
  if (auto w = dc.find("swa_window_size"); w != dc.end() && w->is_number_integer())
    window = w->get<int>();
  else if (auto top = config.find("sliding_window");
           top != config.end() && top->is_number_integer() &&
           (shape.model_type.rfind("qwen", 0) != 0 || config.value("use_sliding_window", false)))
    window = top->get<int>();
  if (window <= 0)
    return fail(
        "config.json: DFlash sliding attention requires a window size configured in "
        "dflash_config.swa_window_size or the top-level sliding_window (vLLM's ValueError)");
  shape.sliding_window = window;
  return ok_status();
}

}  // namespace servescope
