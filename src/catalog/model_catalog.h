// Finds a model's config.json: a path, a model directory, or a bundled Hugging Face id.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "catalog/model_shape.h"
#include "core/result.h"

namespace servescope {

/// Loads a model shape from `spec`: a config.json path, a directory holding config.json, a
/// bundled Hugging Face id ("Qwen/Qwen3-8B"), or a local path whose last component names a
/// bundled model ("/models/Qwen3-8B"). Fails naming the spec and the closest bundled ids.
Result<ModelShape> load_model(std::string_view spec);

/// Bundled Hugging Face ids, e.g. "Qwen/Qwen3.5-122B-A10B-FP8".
std::vector<std::string> bundled_model_ids();

/// The bundled id a model path or id resolves to, or "" when none does.
std::string resolve_bundled_id(std::string_view spec);

}  // namespace servescope
