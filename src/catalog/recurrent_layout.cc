#include "catalog/recurrent_layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "catalog/embedded_data.h"
#include "core/text.h"

namespace servescope {
namespace {

using nlohmann::json;

struct RecurrentRow {
  RecurrentKind kind = RecurrentKind::kMamba2;
  std::string intermediate_size, n_groups, num_heads, head_dim, state_size, conv_kernel;
  std::string ssm_dtype;
  std::vector<std::string> layer_keys;
  bool one_block_per_layer = false;
  bool parallel = false;  // blocks "parallel": attention and the mixer side by side in every layer
  // layers "=mamba": every layer is the mixer, none has attention (MambaForCausalLM).
  bool attention_free = false;
};

const std::map<std::string, RecurrentRow, std::less<>>& rows() {
  static const auto* table = [] {
    auto* out = new std::map<std::string, RecurrentRow, std::less<>>();
    for (const auto& c : embedded_tsv("recurrent-state.tsv")) {
      if (c.size() < 11 || c[0] == "model_type")
        continue;
      RecurrentRow r;
      r.kind = c[1] == "mamba1"       ? RecurrentKind::kMamba1
               : c[1] == "short_conv" ? RecurrentKind::kShortConv
                                      : RecurrentKind::kMamba2;
      r.intermediate_size = c[2];
      r.n_groups = c[3];
      r.num_heads = c[4];
      r.head_dim = c[5];
      r.state_size = c[6];
      r.conv_kernel = c[7];
      r.ssm_dtype = c[8];
      for (std::string_view k : split(c[9], ' ')) {
        if (!k.empty())
          r.layer_keys.emplace_back(k);
      }
      r.one_block_per_layer = c[10] == "one";
      r.parallel = c[10] == "parallel";
      r.attention_free =
          r.layer_keys.size() == 1 && (r.layer_keys[0] == "=mamba" || r.layer_keys[0] == "=conv");
      out->emplace(std::string(c[0]), std::move(r));
    }
    return out;
  }();
  return *table;
}

bool is_set(const json& text, std::string_view key) {
  auto it = text.find(key);
  return it != text.end() && !it->is_null();
}

// A product of fields and numbers ("mamba_expand*hidden_size"); nullopt when a factor is unset.
std::optional<double> product(const json& text, std::string_view expr, std::string& missing) {
  double value = 1;
  for (std::string_view factor : split(expr, '*')) {
    if (auto n = parse_double(factor)) {
      value *= *n;
      continue;
    }
    auto it = text.find(factor);
    if (it == text.end() || !it->is_number()) {
      missing = std::string(factor);
      return std::nullopt;
    }
    value *= it->get<double>();
  }
  return value;
}

// An expression of data/recurrent-state.tsv as an integer: the first alternative that is set.
// `missing` names the first alternative's unset field when none is set.
std::optional<int> evaluate(const json& text, std::string_view expr, std::string& missing) {
  std::string first_missing;
  for (std::string_view alternative : split(expr, '|')) {
    std::string unset;
    if (auto v = product(text, alternative, unset))
      return static_cast<int>(std::floor(*v));  // vLLM: int(mamba_expand * hidden_size)
    if (first_missing.empty())
      first_missing = unset;
  }
  missing = first_missing;
  return std::nullopt;
}

// The text of a dtype expression: the first alternative field the config sets; the last of
// several alternatives, when the config does not set it, is a word (the class default:
// "float32"); "" (the model's dtype) otherwise.
std::string evaluate_word(const json& text, std::string_view expr) {
  const std::vector<std::string_view> alternatives = split(expr, '|');
  for (std::string_view alternative : alternatives) {
    auto it = text.find(alternative);
    if (it != text.end() && it->is_string())
      return it->get<std::string>();
  }
  const std::string_view last = alternatives.back();
  return alternatives.size() > 1 && !text.contains(last) ? std::string(last) : std::string();
}

// One layer's name in a layer list or pattern.
std::optional<LayerKind> kind_of(std::string_view name) {
  if (name == "parallel")
    return LayerKind::kFullAttention;
  if (name == "M" || name == "mamba" || name == "linear_attention" || name == "conv")
    return LayerKind::kLinearAttention;
  if (name == "*" || name == "attention" || name == "full_attention")
    return LayerKind::kFullAttention;
  if (name == "sliding_attention")  // LFM3: windowed attention beside full and convolutions
    return LayerKind::kSlidingAttention;
  if (name == "-" || name == "E" || name == "mlp" || name == "moe")
    return LayerKind::kNone;
  return std::nullopt;
}

bool is_moe_block(std::string_view name) {
  return name == "E" || name == "moe";
}

// The names of the layers, from the first key of the row the config has.
Result<std::vector<std::string>> layer_names(const json& text, const RecurrentRow& row,
                                             const std::string& prefix, int num_layers) {
  if (row.parallel)  // every layer is attention, with the mixer beside it
    return std::vector<std::string>(static_cast<std::size_t>(num_layers), "parallel");
  for (const std::string& key : row.layer_keys) {
    // "=NAME": every layer is NAME (a Mamba model: each layer is the mixer alone).
    if (key.size() > 1 && key[0] == '=')
      return std::vector<std::string>(static_cast<std::size_t>(num_layers), key.substr(1));
    if (auto slash = key.find('/'); slash != std::string::npos) {
      const std::string period_key = key.substr(0, slash), offset_key = key.substr(slash + 1);
      if (!is_set(text, period_key))
        continue;
      const int period = text[period_key].is_number_integer() ? text[period_key].get<int>() : 0;
      const int offset = text.value(offset_key, 0);
      if (period <= 0)
        return fail(fmt::format("field '{}{}' must be a positive integer", prefix, period_key));
      std::vector<std::string> names;
      for (int i = 0; i < num_layers; ++i)
        names.push_back(i % period == offset ? "attention" : "mamba");
      return names;
    }
    auto it = text.find(key);
    if (it == text.end() || it->is_null())
      continue;
    std::vector<std::string> names;
    if (it->is_string()) {
      for (char c : it->get<std::string>())
        names.emplace_back(1, c);
    } else if (it->is_array()) {
      for (const json& e : *it)
        names.push_back(e.is_string() ? e.get<std::string>() : std::string("?"));
    } else {
      return fail(fmt::format("field '{}{}' is neither a list nor a pattern", prefix, key));
    }
    return names;
  }
  std::string keys;
  for (const std::string& k : row.layer_keys)
    keys += (keys.empty() ? "" : " or ") + prefix + k;
  return fail(fmt::format("field {} is missing (it says which layers are recurrent)", keys));
}

}  // namespace

bool has_recurrent_layout(std::string_view model_type) {
  return rows().count(model_type) > 0;
}

bool recurrent_attention_free(std::string_view model_type) {
  auto row = rows().find(model_type);
  return row != rows().end() && row->second.attention_free;
}

std::optional<int> recurrent_layer_count(std::string_view model_type, const json& text) {
  auto row = rows().find(model_type);
  if (row == rows().end())
    return std::nullopt;
  if (row->second.parallel || row->second.attention_free)
    return std::nullopt;
  auto names = layer_names(text, row->second, "", 0);
  if (!names || names->empty())
    return std::nullopt;
  return static_cast<int>(names->size());
}

Status read_recurrent_layout(const json& text, const std::string& prefix, ModelShape& shape,
                             std::vector<bool>& moe_blocks) {
  auto row_it = rows().find(shape.model_type);
  if (row_it == rows().end())
    return fail(
        fmt::format("model_type '{}' has no row in data/recurrent-state.tsv", shape.model_type));
  const RecurrentRow& row = row_it->second;
  LinearAttentionDims l;
  l.kind = row.kind;
  std::string missing;
  auto get = [&](const std::string& expr, int& out) {
    if (expr.empty() || !missing.empty())
      return;
    if (auto v = evaluate(text, expr, missing))
      out = *v;
  };
  get(row.intermediate_size, l.intermediate_size);
  get(row.n_groups, l.n_groups);
  get(row.num_heads, l.num_heads);
  get(row.head_dim, l.head_dim);
  get(row.state_size, l.state_size);
  get(row.conv_kernel, l.conv_kernel);
  // The state's fields matter only when some layer keeps the state (a default LFM2 config's
  // layers are all attention, and transformers' class has no conv_dim).
  auto names = layer_names(text, row, prefix, shape.num_layers);
  if (!names)
    return names.error();
  const bool recurrent =
      row.parallel || std::any_of(names->begin(), names->end(), [](const std::string& n) {
        return kind_of(n) == LayerKind::kLinearAttention;
      });
  shape.parallel_recurrent = row.parallel;
  if (recurrent && !missing.empty())
    return fail(fmt::format("field '{}{}' is missing or not a number", prefix, missing));
  // The state's element counts multiply these: bound them so the products stay exact.
  for (int v :
       {l.intermediate_size, l.n_groups, l.num_heads, l.head_dim, l.state_size, l.conv_kernel}) {
    if (recurrent && v > (1 << 20))
      return fail(fmt::format("the {} state fields of {} are implausibly large ({})",
                              recurrent_kind_name(row.kind), shape.model_type, v));
  }
  if (recurrent && (l.intermediate_size <= 0 || l.conv_kernel <= 0 ||
                    (row.kind == RecurrentKind::kMamba2 && (l.n_groups <= 0 || l.num_heads <= 0 ||
                                                            l.head_dim <= 0 || l.state_size <= 0))))
    return fail(fmt::format("the {} state fields of {} must be positive",
                            recurrent_kind_name(row.kind), shape.model_type));
  if (row.kind == RecurrentKind::kMamba1) {
    // MambaMixer's time_step_rank: the config's, or "auto" = ceil(hidden_size / 16).
    l.dt_rank = (shape.hidden_size + 15) / 16;
    for (std::string_view key : {"mamba_dt_rank", "time_step_rank"}) {
      if (auto it = text.find(key); it != text.end() && it->is_number_integer()) {
        l.dt_rank = it->get<int>();
        break;
      }
    }
  }
  if (!row.ssm_dtype.empty())
    l.ssm_dtype = evaluate_word(text, row.ssm_dtype);

  if (static_cast<int>(names->size()) != shape.num_layers)
    return fail(fmt::format("the layer list has {} entries for {} layers ({}num_hidden_layers)",
                            names->size(), shape.num_layers, prefix));
  shape.layer_kinds.assign(names->size(), LayerKind::kFullAttention);
  shape.ffn_layers.clear();
  moe_blocks.clear();
  for (std::size_t i = 0; i < names->size(); ++i) {
    auto kind = kind_of((*names)[i]);
    if (!kind)
      return fail(fmt::format("layer {} of {} is '{}', which is not a layer kind servescope knows",
                              i, shape.model_type, (*names)[i]));
    shape.layer_kinds[i] = *kind;
    moe_blocks.push_back(is_moe_block((*names)[i]));
  }
  if (row.one_block_per_layer) {
    for (LayerKind k : shape.layer_kinds)
      shape.ffn_layers.push_back(k == LayerKind::kNone);
  }
  if (!row.one_block_per_layer)
    moe_blocks.clear();
  // Without a recurrent layer the model is plain attention (the engine builds no state).
  if (recurrent)
    shape.linear = l;
  return ok_status();
}

RecurrentStateSize recurrent_state_size(const LinearAttentionDims& l, int tp, int spec_k) {
  RecurrentStateSize out;
  const std::int64_t t = std::max(1, tp);
  switch (l.kind) {
    case RecurrentKind::kGatedDeltaNet:
    case RecurrentKind::kKimiDelta: {
      const std::int64_t conv_dim =
          static_cast<std::int64_t>(l.key_head_dim) * l.num_key_heads * 2 +
          static_cast<std::int64_t>(l.value_head_dim) * l.num_value_heads;
      out.conv_elements = conv_dim / t * (l.conv_kernel - 1 + spec_k);
      out.ssm_elements =
          static_cast<std::int64_t>(l.num_value_heads) / t * l.value_head_dim * l.key_head_dim;
      out.conv_formula = fmt::format("({}/tp {}) channels × (conv kernel {} − 1 + k {}) rows",
                                     conv_dim, t, l.conv_kernel, spec_k);
      out.ssm_formula = fmt::format("{}/tp value heads × {} × {}", l.num_value_heads,
                                    l.value_head_dim, l.key_head_dim);
      break;
    }
    case RecurrentKind::kMamba2: {
      // extra_groups_for_head_shards: groups are replicated so each head shard has its own.
      const std::int64_t groups = l.n_groups % t == 0 ? l.n_groups : l.n_groups + (t - l.n_groups);
      const std::int64_t conv_dim = l.intermediate_size + 2 * groups * l.state_size;
      out.conv_elements = conv_dim / t * (l.conv_kernel - 1 + spec_k);
      out.ssm_elements = static_cast<std::int64_t>(l.num_heads) / t * l.head_dim * l.state_size;
      out.conv_formula = fmt::format(
          "(intermediate {} + 2 × {} groups × state {})/tp {} channels × (conv kernel {} − 1 + "
          "k {}) rows",
          l.intermediate_size, groups, l.state_size, t, l.conv_kernel, spec_k);
      out.ssm_formula = fmt::format("{}/tp heads × head dim {} × state {}", l.num_heads, l.head_dim,
                                    l.state_size);
      break;
    }
    case RecurrentKind::kMamba1:
      out.conv_elements = l.intermediate_size / t * (l.conv_kernel - 1);
      out.ssm_elements = l.intermediate_size / t * l.state_size;
      out.conv_formula = fmt::format("{}/tp {} channels × (conv kernel {} − 1) rows",
                                     l.intermediate_size, t, l.conv_kernel);
      out.ssm_formula = fmt::format("{}/tp channels × state {}", l.intermediate_size, l.state_size);
      break;
    case RecurrentKind::kShortConv:
      out.conv_elements = l.intermediate_size / t * (l.conv_kernel - 1 + spec_k);
      out.conv_formula = fmt::format("{}/tp {} channels × (L_cache {} − 1 + k {}) rows",
                                     l.intermediate_size, t, l.conv_kernel, spec_k);
      out.ssm_formula = "no SSM state";
      break;
  }
  return out;
}

std::string_view recurrent_kind_name(RecurrentKind kind) {
  switch (kind) {
    case RecurrentKind::kGatedDeltaNet:
      return "gated_delta_net";
    case RecurrentKind::kMamba2:
      return "mamba2";
    case RecurrentKind::kMamba1:
      return "mamba1";
    case RecurrentKind::kShortConv:
      return "short_conv";
    case RecurrentKind::kKimiDelta:
      return "kda";
  }
  return "?";
}

}  // namespace servescope
