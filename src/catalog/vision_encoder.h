// The parameters of a multimodal model's vision encoder, by the encoder's own structure where
// servescope knows it exactly (Qwen2-VL, Qwen2.5-VL, Qwen3-VL/Qwen3.5), split into what tensor
// parallelism shards and what every rank keeps (norms, patch and position embeddings, the biases
// of row-parallel layers), as vLLM's vision towers lay them out.
#pragma once

#include <optional>

#include "catalog/model_shape.h"

namespace servescope {

struct VisionParams {
  double sharded = 0;     // split over the tensor-parallel ranks
  double replicated = 0;  // on every rank
};

/// The encoder's parameters (projector/merger included), or nullopt for an encoder whose
/// structure is not modelled (the caller estimates it as a plain ViT).
std::optional<VisionParams> vision_encoder_params(const VisionDims& vision);

}  // namespace servescope
