// Finds a model's config.json: a path, a model directory, or a bundled Hugging Face id.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "catalog/model_shape.h"
#include "core/result.h"

namespace servescope {

/// Loads a model shape from `spec` the way the engines resolve a model path: a config.json
/// path, a directory holding config.json (with hf_quant_config.json beside it), a path in the
/// hub cache layout (".../models--ORG--NAME/snapshots/REV", read from the local cache), a
/// bundled Hugging Face id (case-insensitive), the local Hugging Face or ModelScope cache, a
/// local path whose last component names a bundled or cached model ("/models/Qwen3-8B"), and
/// last the Hugging Face Hub (catalog/hub_client.h; written into the cache, so the next run is
/// offline; never with HF_HUB_OFFLINE=1). `revision` pins a branch, tag or commit ("" = main).
/// Fails with one line naming the spec and the fix.
Result<ModelShape> load_model(std::string_view spec, std::string_view revision = "");

/// Bundled Hugging Face ids, e.g. "Qwen/Qwen3.5-122B-A10B-FP8".
std::vector<std::string> bundled_model_ids();

/// The bundled id a model path or id resolves to, or "" when none does.
std::string resolve_bundled_id(std::string_view spec);

}  // namespace servescope
