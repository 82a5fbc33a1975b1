#include "catalog/model_layouts.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "catalog/embedded_data.h"
#include "core/text.h"

namespace servescope {
namespace {

constexpr struct {
  std::string_view name;
  LayoutFamily family;
} kFamilyNames[] = {
    {"dense", LayoutFamily::kDense},
    {"moe", LayoutFamily::kMoe},
    {"mla", LayoutFamily::kMla},
    {"hybrid_linear", LayoutFamily::kHybridLinear},
    {"sliding_window", LayoutFamily::kSlidingWindow},
    {"mamba_hybrid", LayoutFamily::kMambaHybrid},
};

// The file is part of the build: a malformed row is a build defect, not a user error.
std::vector<LayoutRow> read_layouts() {
  std::vector<LayoutRow> rows;
  for (const auto& cols : embedded_tsv("model-layouts.tsv")) {
    if (cols.size() < 3 || (cols[0] != "model_type" && cols[0] != "architecture"))
      throw std::logic_error("data/model-layouts.tsv: bad row naming " +
                             std::string(cols.size() > 1 ? cols[1] : cols[0]));
    LayoutRow row;
    row.by_architecture = cols[0] == "architecture";
    row.match = std::string(cols[1]);
    bool known = false;
    for (const auto& f : kFamilyNames) {
      if (f.name == cols[2]) {
        row.family = f.family;
        known = true;
      }
    }
    if (!known)
      throw std::logic_error("data/model-layouts.tsv: unknown family " + std::string(cols[2]));
    if (cols.size() > 3)
      row.note = std::string(cols[3]);
    if (cols.size() > 4)
      row.reads_as = std::string(cols[4]);
    if (cols.size() > 5) {
      for (std::string_view e : split(cols[5], ' ')) {
        if (!e.empty())
          row.checked.emplace_back(e);
      }
    }
    if (cols.size() > 6) {
      for (std::string_view e : split(cols[6], ' ')) {
        if (!e.empty())
          row.traits.emplace_back(e);
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

bool LayoutRow::has(std::string_view trait) const {
  return std::find(traits.begin(), traits.end(), trait) != traits.end();
}

std::string_view config_key_alias(std::string_view model_type, std::string_view key) {
  static const auto* table = [] {
    auto* out = new std::map<std::pair<std::string, std::string>, std::string>();
    for (const auto& cols : embedded_tsv("config-key-aliases.tsv")) {
      if (cols.size() >= 3 && cols[0] != "model_type")
        (*out)[{std::string(cols[0]), std::string(cols[1])}] = std::string(cols[2]);
    }
    return out;
  }();
  auto it = table->find({std::string(model_type), std::string(key)});
  return it == table->end() ? std::string_view() : std::string_view(it->second);
}

std::optional<int> vision_config_default(std::string_view vision_model_type, std::string_view key) {
  static const auto* table = [] {
    auto* out = new std::map<std::pair<std::string, std::string>, int, std::less<>>();
    for (const auto& cols : embedded_tsv("vision-config-defaults.tsv")) {
      if (cols.size() >= 3 && cols[0] != "model_type")
        (*out)[{std::string(cols[0]), std::string(cols[1])}] = std::stoi(std::string(cols[2]));
    }
    return out;
  }();
  auto it = table->find({std::string(vision_model_type), std::string(key)});
  return it == table->end() ? std::nullopt : std::optional<int>(it->second);
}

bool ties_embeddings_by_default(std::string_view model_type) {
  static const auto* tied = [] {
    auto* out = new std::set<std::string, std::less<>>();
    for (const auto& cols : embedded_tsv("config-defaults.tsv")) {
      if (cols.size() >= 2 && cols[0] != "model_type" && cols[1] == "true")
        out->emplace(cols[0]);
    }
    return out;
  }();
  return tied->count(model_type) > 0;
}

const std::vector<LayoutRow>& model_layouts() {
  static const std::vector<LayoutRow> kRows = read_layouts();
  return kRows;
}

const LayoutRow* layout_row(std::string_view architecture, std::string_view model_type) {
  const LayoutRow* by_type = nullptr;
  for (const LayoutRow& r : model_layouts()) {
    if (r.by_architecture && r.match == architecture)
      return &r;
    if (!r.by_architecture && r.match == model_type && by_type == nullptr)
      by_type = &r;
  }
  return by_type;
}

std::optional<LayoutFamily> layout_family(std::string_view architecture,
                                          std::string_view model_type) {
  const LayoutRow* row = layout_row(architecture, model_type);
  return row == nullptr ? std::nullopt : std::optional<LayoutFamily>(row->family);
}

std::optional<AudioEncoderSpec> audio_encoder_spec(std::string_view encoder_model_type) {
  for (const auto& cols : embedded_tsv("audio-encoders.tsv")) {
    if (cols.size() >= 4 && cols[0] == encoder_model_type)
      return AudioEncoderSpec{cols[1] == "learned", cols[2] == "yes", std::string(cols[3])};
  }
  return std::nullopt;
}

std::string engine_model_type(std::string_view architecture) {
  for (const auto& cols : embedded_tsv("layer-kinds.tsv")) {
    if (cols.size() >= 3 && cols[0] == architecture)
      return std::string(cols[1]);
  }
  return {};
}

std::string engine_layer_kinds(std::string_view architecture) {
  for (const auto& cols : embedded_tsv("layer-kinds.tsv")) {
    if (cols.size() >= 3 && cols[0] == architecture)
      return std::string(cols[2]);
  }
  return {};
}

namespace {

bool has_kind(std::string_view kinds, std::string_view kind) {
  for (std::string_view part : split(kinds, '+')) {
    const std::string_view p = trim(part);
    const auto space = p.find(' ');
    if (space != std::string_view::npos && p.substr(space + 1) == kind)
      return true;
  }
  return false;
}

// The modelled family whose layers are closest to what the engine builds.
std::string nearest_family(std::string_view kinds) {
  if (has_kind(kinds, "cross_attention"))
    return "none: its cross-attention layers are a kind servescope does not model";
  if (has_kind(kinds, "mamba"))
    return "mamba_hybrid or hybrid_linear (Mamba2, Mamba1, short-convolution or Gated-DeltaNet "
           "state beside attention): a row in data/recurrent-state.tsv naming its state fields";
  if (has_kind(kinds, "mla"))
    return "mla (DeepSeek-style latent attention)";
  if (has_kind(kinds, "sliding_window") || has_kind(kinds, "chunked_local"))
    return "sliding_window (windowed layers beside full attention)";
  if (has_kind(kinds, "full"))
    return "dense or moe (full attention in every layer): a row in data/model-layouts.tsv once "
           "the oracle agrees";
  return "none";
}

}  // namespace

std::string not_modelled_reason(std::string_view architecture, std::string_view model_type) {
  std::string out = "architecture '" + std::string(architecture) + "' (model_type '" +
                    std::string(model_type) + "') is not modelled";
  const std::string kinds = engine_layer_kinds(architecture);
  if (kinds.empty())
    return out + "; `servescope models --coverage` lists the architectures servescope plans";
  return out + "; vLLM builds it with " + kinds +
         " layers; nearest modelled kind: " + nearest_family(kinds);
}

std::string_view family_name(LayoutFamily family) {
  for (const auto& f : kFamilyNames) {
    if (f.family == family)
      return f.name;
  }
  return "?";
}

}  // namespace servescope
