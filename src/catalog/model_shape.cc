#include "catalog/model_shape.h"

#include <fmt/format.h>

#include "core/text.h"

namespace servescope {

int ModelShape::count_layers(LayerKind kind) const {
  int n = 0;
  for (LayerKind k : layer_kinds)
    n += k == kind ? 1 : 0;
  return n;
}

std::vector<int> ModelShape::full_attention_layer_ids() const {
  std::vector<int> ids;
  for (std::size_t i = 0; i < layer_kinds.size(); ++i) {
    if (layer_kinds[i] != LayerKind::kLinearAttention && layer_kinds[i] != LayerKind::kNone)
      ids.push_back(static_cast<int>(i));
  }
  return ids;
}

std::string ModelShape::summary() const {
  std::string layers = fmt::format("{} layers", num_layers);
  if (is_hybrid_linear()) {
    layers += fmt::format(" ({} full + {} linear)", count_layers(LayerKind::kFullAttention),
                          recurrent_layers());
  } else if (has_sliding_window()) {
    layers += fmt::format(" ({} full + {} sliding {})", count_layers(LayerKind::kFullAttention),
                          count_layers(LayerKind::kSlidingAttention), sliding_window);
  } else if (uses_mla()) {
    layers += " MLA";
  }
  std::string ffn = moe ? fmt::format(", MoE {}x{}", moe->num_experts, moe->experts_per_token)
                        : std::string(", dense");
  return fmt::format("{}: {}{}, {}", model_type, layers, ffn,
                     quant.method == QuantMethod::kNone ? dtype : quant.describe());
}

double dtype_bytes(std::string_view dtype) {
  const std::string d = to_lower(dtype);
  if (d == "float32" || d == "fp32" || d == "float")
    return 4;
  if (d == "bfloat16" || d == "bf16" || d == "float16" || d == "fp16" || d == "half")
    return 2;
  if (d.rfind("fp8", 0) == 0 || d.rfind("float8", 0) == 0 || d == "int8")
    return 1;
  if (d.rfind("fp4", 0) == 0)
    return 0.5;
  return 0;
}

}  // namespace servescope
