// The layers of a model whose recurrent layers keep a Mamba or short-convolution state
// (Nemotron-H, Granite-4.0-H, Jamba, LFM2): which layer is recurrent, attention or an MLP/MoE
// block alone, and the state's dimensions — read from config.json by data/recurrent-state.tsv,
// which names, per model_type, the fields vLLM's own model class passes to its state-shape
// calculator. A new model of a known kind is a row there, not code here.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/model_shape.h"
#include "core/result.h"

namespace servescope {

/// Whether data/recurrent-state.tsv has a row for the model type.
bool has_recurrent_layout(std::string_view model_type);
// Whether the model_type's every layer is a recurrent mixer (no attention heads in its config).
bool recurrent_attention_free(std::string_view model_type);

/// The number of layers the config's layer list or pattern gives, when num_hidden_layers is
/// absent (transformers derives it from them for Nemotron-H).
std::optional<int> recurrent_layer_count(std::string_view model_type, const nlohmann::json& text);

/// Fills shape.linear (the state dims), shape.layer_kinds and shape.ffn_layers from `text` (the
/// text model's config; `prefix` names it in messages, "text_config."). shape.num_layers and
/// hidden_size are read already. `moe_blocks` gets, for a model of one block per layer, which
/// blocks route to experts. Fails naming the field that is missing or wrong.
Status read_recurrent_layout(const nlohmann::json& text, const std::string& prefix,
                             ModelShape& shape, std::vector<bool>& moe_blocks);

/// Per-rank element counts of one recurrent layer's state (the engines'
/// MambaStateShapeCalculator): the convolution state with `spec_k` speculative rows, and the
/// SSM (temporal) state; with the formulas for the output.
struct RecurrentStateSize {
  std::int64_t conv_elements = 0;
  std::int64_t ssm_elements = 0;
  std::string conv_formula;
  std::string ssm_formula;
};
RecurrentStateSize recurrent_state_size(const LinearAttentionDims& dims, int tp, int spec_k);

/// "mamba2", "mamba1", "short_conv", "gated_delta_net".
std::string_view recurrent_kind_name(RecurrentKind kind);

}  // namespace servescope
