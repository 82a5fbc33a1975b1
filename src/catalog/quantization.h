// The checkpoint's quantization (config.json `quantization_config`) and what it means for
// the bytes a weight takes on the GPU.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace servescope {

enum class QuantMethod {
  kNone,               // the checkpoint dtype (bf16/fp16/fp32)
  kFp8,                // quant_method "fp8": per-tensor, or blocks (weight_block_size)
  kCompressedTensors,  // llm-compressor: fp8 or int formats by config_groups
  kAwq,
  kGptq,
  kMxfp4,  // OCP microscaling FP4 (gpt-oss)
  kNvfp4,  // NVIDIA FP4 (modelopt)
  kModeloptFp8,
};

struct Quantization {
  QuantMethod method = QuantMethod::kNone;
  std::string name;                  // as written in config.json ("fp8", "compressed-tensors", ...)
  double weight_bits = 16;           // bits per quantized weight element
  double scale_bits_per_weight = 0;  // scale/zero-point overhead, amortised per weight
  int block_rows = 0;                // fp8 block quantisation (weight_block_size), 0 if none
  int block_cols = 0;
  int group_size = 0;                    // int4 / fp4 group size
  std::vector<std::string> unconverted;  // module patterns kept in the checkpoint dtype, as written
  std::string kv_cache_quant_algo;       // e.g. "FP8" when the checkpoint ships KV scales

  /// Bytes per element of a quantized linear weight, scales included.
  double bytes_per_quantized_weight() const { return (weight_bits + scale_bits_per_weight) / 8.0; }
  /// Whether a module (e.g. "layers.3.linear_attn.in_proj_a", "self_attn.q_proj") is kept
  /// unquantized by the checkpoint's exclusion list.
  bool keeps_unquantized(std::string_view module_path) const;
  /// Normalises `unconverted` once (layer numbers become "*"); keeps_unquantized reads it.
  void index_unconverted();

 private:
  std::vector<std::string> unconverted_patterns_;

 public:
  std::string describe() const;
};

std::string_view quant_method_name(QuantMethod m);

/// Reads a config.json `quantization_config` object into `q`. Fails naming an unmodelled
/// quant_method.
Status read_quantization_config(const nlohmann::json& qc, Quantization& q);

/// A quantization known by name alone ("auto_round", "awq", "fp8": what --quantization says
/// when the config at hand is the base model's), with each format's defaults (4 bits in groups
/// of 128 for the integer formats); method kNone when the name is not one.
Quantization quantization_named(std::string_view method);

}  // namespace servescope
