// The attention of a DFlash drafter's layers, which its own config decides apart from its
// model_type's rules (vLLM models/qwen3_dflash.py; DFlash 2 layers derive from the same class).
#pragma once

#include <nlohmann/json.hpp>

#include "catalog/model_shape.h"
#include "core/result.h"

namespace servescope {

/// Whether `config` is a DFlash drafter's: it carries a `dflash_config` object, or its
/// architecture names DFlash.
bool is_dflash_drafter(const nlohmann::json& config, const ModelShape& shape);

/// Sets each layer of `shape` sliding or full as vLLM's
/// models/qwen3_dflash.py::_resolve_layer_attention does (a Laguna DFlash head,
/// models/laguna_dflash.py, keeps every layer full), and the window of the sliding ones:
/// without layer_types (or with an all-full list and dflash_config.use_swa) every layer slides
/// exactly when use_swa is set; otherwise layer_types[i] decides. The window is
/// dflash_config.swa_window_size, else the config's sliding_window; none is the engine's error.
Status read_dflash_layers(const nlohmann::json& config, ModelShape& shape);

}  // namespace servescope
