// Which config reader a model goes through: data/model-layouts.tsv, keyed by the config's
// architectures[0] or its model_type.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace servescope {

/// How a family's config.json maps to layers (model_config_reader.cc reads each).
enum class LayoutFamily { kDense, kMoe, kMla, kHybridLinear, kSlidingWindow, kMambaHybrid };

struct LayoutRow {
  bool by_architecture = false;  // false: `match` is a model_type
  std::string match;
  LayoutFamily family = LayoutFamily::kDense;
  std::string note;
  std::string reads_as;              // the model_type the config is read as; "" = its own
  std::vector<std::string> checked;  // engines whose own code the row was held against
};

/// The rows of data/model-layouts.tsv, in file order.
const std::vector<LayoutRow>& model_layouts();

/// The row of a config: the one naming its architecture, else the one naming its model_type.
const LayoutRow* layout_row(std::string_view architecture, std::string_view model_type);

/// The family of a config (its layout_row's), if any row covers it.
std::optional<LayoutFamily> layout_family(std::string_view architecture,
                                          std::string_view model_type);

/// "dense", "moe", "mla", "hybrid_linear", "sliding_window".
std::string_view family_name(LayoutFamily family);

/// The cache layers vLLM's own model code builds for an architecture ("28 mamba + 4 full"), from
/// data/layer-kinds.tsv; "" when it was not built.
std::string engine_layer_kinds(std::string_view architecture);

/// One line for a config no row covers: the architecture, what the engine builds it with, and
/// the nearest modelled family.
std::string not_modelled_reason(std::string_view architecture, std::string_view model_type);

}  // namespace servescope
