#include "catalog/quantization.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/text.h"

namespace servescope {
namespace {

// "model.language_model.layers.12.mlp.gate" -> "layers.*.mlp.gate"; wildcards kept.
std::string normalise_module(std::string_view path) {
  std::string out;
  for (std::string_view part : split(path, '.')) {
    bool digits = !part.empty();
    for (char c : part)
      digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (!out.empty())
      out += '.';
    out += digits ? std::string("*") : std::string(part);
  }
  return out;
}

bool ends_with_segments(std::string_view haystack, std::string_view needle) {
  if (needle.size() > haystack.size())
    return false;
  if (haystack.substr(haystack.size() - needle.size()) != needle)
    return false;
  return haystack.size() == needle.size() || haystack[haystack.size() - needle.size() - 1] == '.';
}

}  // namespace

std::string_view quant_method_name(QuantMethod m) {
  switch (m) {
    case QuantMethod::kNone:
      return "none";
    case QuantMethod::kFp8:
      return "fp8";
    case QuantMethod::kCompressedTensors:
      return "compressed-tensors";
    case QuantMethod::kAwq:
      return "awq";
    case QuantMethod::kGptq:
      return "gptq";
    case QuantMethod::kMxfp4:
      return "mxfp4";
    case QuantMethod::kNvfp4:
      return "nvfp4";
    case QuantMethod::kModeloptFp8:
      return "modelopt-fp8";
  }
  return "?";
}

bool Quantization::keeps_unquantized(std::string_view module_path) const {
  // An entry names one module ("model.layers.3.mlp.gate") or a whole block
  // ("model.layers.*.self_attn"); entries carry model prefixes the caller does not know, so
  // match on trailing path segments: the module itself or any parent of at least two segments.
  const std::string wanted = normalise_module(module_path);
  for (const std::string& pattern : unconverted_patterns_) {
    std::string_view probe = wanted;
    while (true) {
      if (ends_with_segments(pattern, probe))
        return true;
      auto dot = probe.rfind('.');
      if (dot == std::string_view::npos)
        break;
      probe = probe.substr(0, dot);
      if (probe.find('.') == std::string_view::npos)
        break;  // keep at least two segments
    }
  }
  return false;
}

void Quantization::index_unconverted() {
  unconverted_patterns_.clear();
  for (const std::string& raw : unconverted) {
    std::string p = normalise_module(raw);
    if (std::find(unconverted_patterns_.begin(), unconverted_patterns_.end(), p) ==
        unconverted_patterns_.end()) {
      unconverted_patterns_.push_back(std::move(p));
    }
  }
}

std::string Quantization::describe() const {
  switch (method) {
    case QuantMethod::kNone:
      return "unquantized";
    case QuantMethod::kFp8:
      return block_rows > 0 ? fmt::format("fp8, {}x{} blocks", block_rows, block_cols)
                            : std::string("fp8, per-tensor");
    case QuantMethod::kCompressedTensors:
      return fmt::format("compressed-tensors, {}-bit weights", weight_bits);
    case QuantMethod::kAwq:
      return fmt::format("awq int{}, group {}", weight_bits, group_size);
    case QuantMethod::kGptq:
      return fmt::format("gptq int{}, group {}", weight_bits, group_size);
    case QuantMethod::kMxfp4:
      return "mxfp4 (fp4 + e8m0 scale per 32)";
    case QuantMethod::kNvfp4:
      return "nvfp4 (fp4 + fp8 scale per 16)";
    case QuantMethod::kModeloptFp8:
      return "modelopt fp8";
  }
  return name;
}

}  // namespace servescope
