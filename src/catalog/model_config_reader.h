// Reads a Hugging Face config.json into a ModelShape.
#pragma once

#include <string>
#include <string_view>

#include "catalog/model_shape.h"
#include "core/result.h"

namespace servescope {

/// Parses config.json text. `source` names the file in error messages. Fails with one line
/// naming the file and the field for malformed JSON, a missing or mistyped field, or an
/// architecture servescope does not model.
Result<ModelShape> read_model_config(std::string_view json_text, std::string_view source);

/// The model_type values servescope models, for error messages and `servescope models`.
const std::vector<std::string>& supported_model_types();

}  // namespace servescope
