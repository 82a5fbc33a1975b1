#include "catalog/kimi_delta_layout.h"

#include <fmt/format.h>

#include <string_view>

namespace servescope {

// vLLM models/kimi_k3: KimiLinearConfig.is_kda_layer(i) is (i + 1) in kda_layers; the state is
// mamba_utils.py::kda_state_shape(num_heads, head_dim, short_conv_kernel_size) — GDN's shapes
// with as many key as value heads — and its recurrent part is float32 unless
// --mamba-ssm-cache-dtype says otherwise (MambaStateDtypeCalculator.kda_state_dtype).
Status read_kimi_delta_layout(const nlohmann::json& text, const nlohmann::json& kda,
                              const std::string& prefix, ModelShape& shape) {
  const std::string where = prefix + "linear_attn_config.";
  std::string missing;
  const auto dim = [&](std::string_view key) -> int {
    auto it = kda.find(key);
    if (it != kda.end() && it->is_number_integer() && it->get<int>() > 0)
      return it->get<int>();
    if (missing.empty())
      missing = where + std::string(key);
    return 0;
  };
  LinearAttentionDims l;
  l.kind = RecurrentKind::kKimiDelta;
  l.num_key_heads = l.num_value_heads = dim("num_heads");
  l.key_head_dim = l.value_head_dim = dim("head_dim");
  l.conv_kernel = dim("short_conv_kernel_size");
  l.ssm_dtype = "float32";
  if (!missing.empty())
    return fail(fmt::format("field '{}' is missing or not a positive integer", missing));
  const auto layers = kda.find("kda_layers");
  if (layers == kda.end() || !layers->is_array())
    return fail(fmt::format("field '{}kda_layers' is missing (the KDA layers, from 1)", where));
  const LayerKind attention = shape.mla ? LayerKind::kMla : LayerKind::kFullAttention;
  shape.layer_kinds.assign(static_cast<std::size_t>(shape.num_layers), attention);
  for (const nlohmann::json& n : *layers) {
    const int index = n.is_number_integer() ? n.get<int>() - 1 : -1;
    if (index < 0 || index >= shape.num_layers)
      return fail(fmt::format("{}kda_layers lists {}, not a layer from 1 to {}", where, n.dump(),
                              shape.num_layers));
    shape.layer_kinds[static_cast<std::size_t>(index)] = LayerKind::kLinearAttention;
  }
  if (shape.mla)
    shape.v_head_dim = shape.mla->v_head_dim;
  shape.attention_output_gate = text.value("mla_use_output_gate", false);  // mla.py g_proj
  shape.linear = l;
  return ok_status();
}

}  // namespace servescope
