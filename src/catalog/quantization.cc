#include "catalog/quantization.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

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

Status read_quantization_config(const nlohmann::json& qc, Quantization& q) {
  using json = nlohmann::json;
  q.name = qc.value("quant_method", std::string());
  auto list_of = [&](std::string_view key) {
    std::vector<std::string> out;
    if (auto it = qc.find(key); it != qc.end() && it->is_array()) {
      for (const json& e : *it) {
        if (e.is_string())
          out.push_back(e.get<std::string>());
      }
    }
    return out;
  };
  const std::string method = to_lower(q.name);
  if (method == "fp8") {
    q.method = QuantMethod::kFp8;
    q.weight_bits = 8;
    if (auto it = qc.find("weight_block_size"); it != qc.end() && it->is_array() &&
                                                it->size() == 2 && (*it)[0].is_number_integer() &&
                                                (*it)[1].is_number_integer()) {
      q.block_rows = (*it)[0].get<int>();
      q.block_cols = (*it)[1].get<int>();
      q.scale_bits_per_weight = 32.0 / (q.block_rows * q.block_cols);  // one fp32 scale per block
    }
    q.unconverted = list_of("modules_to_not_convert");
  } else if (method == "compressed-tensors") {
    q.method = QuantMethod::kCompressedTensors;
    q.weight_bits = 8;
    if (auto groups = qc.find("config_groups"); groups != qc.end() && groups->is_object()) {
      for (const auto& [name, group] : groups->items()) {
        auto w = group.find("weights");
        if (w == group.end() || !w->is_object())
          continue;
        q.weight_bits = w->value("num_bits", 8);
        if (auto gs = w->find("group_size"); gs != w->end() && gs->is_number_integer()) {
          q.group_size = gs->get<int>();
        }
        break;
      }
    }
    // Per-channel fp8 carries one fp32 scale per output row: negligible; int groups carry
    // an fp16 scale per group.
    if (q.group_size > 0)
      q.scale_bits_per_weight = 16.0 / q.group_size;
    q.unconverted = list_of("ignore");
  } else if (method == "awq" || method == "gptq" || method == "awq_marlin" ||
             method == "gptq_marlin") {
    q.method = method.rfind("awq", 0) == 0 ? QuantMethod::kAwq : QuantMethod::kGptq;
    q.weight_bits = qc.value("bits", qc.value("w_bit", 4));
    q.group_size = qc.value("group_size", qc.value("q_group_size", 128));
    if (q.group_size > 0)
      q.scale_bits_per_weight = (16.0 + q.weight_bits) / q.group_size;
    q.unconverted = list_of("modules_to_not_convert");
  } else if (method == "auto-round" || method == "auto_round" || method == "intel/auto-round") {
    // AutoRound checkpoints are packed as GPTQ or AWQ (packing_format "auto_round:auto_gptq" /
    // ":auto_awq"), and SGLang and vLLM load them with those kernels.
    const std::string packing = to_lower(qc.value("packing_format", std::string("auto_gptq")));
    q.method = packing.find("awq") != std::string::npos ? QuantMethod::kAwq : QuantMethod::kGptq;
    q.weight_bits = qc.value("bits", 4);
    q.group_size = qc.value("group_size", 128);
    if (q.group_size > 0)
      q.scale_bits_per_weight = (16.0 + q.weight_bits) / q.group_size;
    q.unconverted = list_of("modules_to_not_convert");
  } else if (method == "bitsandbytes") {
    // bitsandbytes: 4-bit (nf4/fp4) with an fp32 absmax per 64-weight block, or int8 with an
    // fp32 scale per row (negligible).
    const bool four = qc.value("load_in_4bit", false);
    q.method = QuantMethod::kGptq;  // an integer weight-only scheme of the same weight arithmetic
    q.weight_bits = four ? 4 : 8;
    q.group_size = four ? 64 : 0;
    q.scale_bits_per_weight = four ? 32.0 / 64 : 0.0;
    q.unconverted = list_of("llm_int8_skip_modules");
  } else if (method == "mxfp4") {
    q.method = QuantMethod::kMxfp4;
    q.weight_bits = 4;
    q.group_size = 32;
    q.scale_bits_per_weight = 8.0 / 32;  // e8m0 scale per 32 elements
    q.unconverted = list_of("modules_to_not_convert");
  } else if (method == "modelopt" || method == "modelopt_fp4" || method == "nvfp4") {
    const std::string algo =
        to_lower(qc.value("quant_algo", std::string(method == "modelopt" ? "fp8" : "nvfp4")));
    if (algo == "nvfp4" || method != "modelopt") {
      q.method = QuantMethod::kNvfp4;
      q.weight_bits = 4;
      q.group_size = 16;
      q.scale_bits_per_weight = 8.0 / 16;  // fp8 scale per 16 elements
    } else {
      q.method = QuantMethod::kModeloptFp8;
      q.weight_bits = 8;
    }
    q.unconverted = list_of("exclude_modules");
    q.kv_cache_quant_algo = qc.value("kv_cache_quant_algo", std::string());
  } else {
    return fail(
        fmt::format("quantization_config.quant_method '{}' is not modelled; supported: "
                    "fp8, compressed-tensors, awq, gptq, auto-round, bitsandbytes, mxfp4, "
                    "modelopt (fp8/nvfp4)",
                    q.name));
  }
  q.index_unconverted();
  return ok_status();
}

Quantization quantization_named(std::string_view method) {
  Quantization q;
  const nlohmann::json qc = {{"quant_method", std::string(method)}};
  if (!read_quantization_config(qc, q))
    return Quantization{};
  return q;
}

}  // namespace servescope
