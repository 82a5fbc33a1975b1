#include "catalog/per_layer_features.h"

#include <fmt/format.h>

namespace servescope {
namespace {

using nlohmann::json;

std::optional<int> int_field(const json& obj, std::string_view key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_integer())
    return std::nullopt;
  return it->get<int>();
}

}  // namespace

Status read_per_layer_features(const json& text, const std::string& prefix, ModelShape& shape) {
  // Gemma 4 (Gemma4TextConfig.__post_init__): full-attention layers take global_head_dim
  // (default 512) and, with attention_k_eq_v, num_global_key_value_heads; transformers saves
  // them per layer as per_layer_config, which wins.
  const bool gemma4 = shape.model_type.rfind("gemma4", 0) == 0;
  if (auto plc = text.find("per_layer_config"); plc != text.end() && plc->is_object()) {
    for (const auto& [index, layer] : plc->items()) {
      if (!layer.is_object())
        return fail(fmt::format("field '{}per_layer_config.{}' is not an object", prefix, index));
      if (auto hd = int_field(layer, "head_dim"))
        shape.full_head_dim = *hd;
      if (auto kv = int_field(layer, "num_key_value_heads"))
        shape.full_kv_heads = *kv;
    }
  } else if (gemma4) {
    shape.full_head_dim = int_field(text, "global_head_dim").value_or(512);
    if (text.value("attention_k_eq_v", false))
      shape.full_kv_heads = int_field(text, "num_global_key_value_heads").value_or(0);
  }
  if (shape.full_head_dim == shape.head_dim)
    shape.full_head_dim = 0;
  if (shape.full_kv_heads == shape.num_kv_heads)
    shape.full_kv_heads = 0;
  shape.kv_shared_layers = int_field(text, "num_kv_shared_layers").value_or(0);
  if (shape.kv_shared_layers < 0 || shape.kv_shared_layers >= shape.num_layers)
    return fail(
        fmt::format("field '{}num_kv_shared_layers' must be at least 0 and below "
                    "num_hidden_layers {}",
                    prefix, shape.num_layers));
  shape.kv_shared_double_mlp = text.value("use_double_wide_mlp", false);
  // Per-layer embeddings: on when hidden_size_per_layer_input is positive (the class default 256).
  if (gemma4) {
    shape.per_layer_input_size =
        int_field(text, "hidden_size_per_layer_input")
            .value_or(text.contains("hidden_size_per_layer_input") ? 0 : 256);
    shape.per_layer_vocab = int_field(text, "vocab_size_per_layer_input").value_or(262144);
  }
  return ok_status();
}

}  // namespace servescope
