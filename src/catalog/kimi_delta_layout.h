// Kimi-Linear's layers: Kimi Delta Attention (KDA) layers with a recurrent state, and latent
// attention between them, read from config.json's linear_attn_config.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "catalog/model_shape.h"
#include "core/result.h"

namespace servescope {

/// Fills shape.linear (kind kKimiDelta), shape.layer_kinds (KDA layers from `kda`'s kda_layers,
/// numbered from 1; the others MLA when shape.mla is read, else full attention) and the latent
/// attention's output gate, from `text` (the text model's config; `prefix` names it in messages)
/// and its linear_attn_config `kda`. shape.num_layers and shape.mla are read already. Fails
/// naming the field that is missing or wrong.
Status read_kimi_delta_layout(const nlohmann::json& text, const nlohmann::json& kda,
                              const std::string& prefix, ModelShape& shape);

}  // namespace servescope
