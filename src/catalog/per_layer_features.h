// What some configs say layer by layer beyond one attention shape — full-attention layers with
// heads of their own, layers that read another layer's KV cache, per-layer embeddings — as
// Gemma 4 writes them (transformers Gemma4TextConfig, vLLM models/gemma4.py).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "catalog/model_shape.h"
#include "core/result.h"

namespace servescope {

/// Fills shape.full_head_dim/full_kv_heads, kv_shared_layers, kv_shared_double_mlp and the
/// per-layer embedding sizes from `text` (the text config; `prefix` names it). Nothing to do for
/// a config without these fields. Fails naming a field that is wrong.
Status read_per_layer_features(const nlohmann::json& text, const std::string& prefix,
                               ModelShape& shape);

}  // namespace servescope
