// R4.10: which models SGLang gives separate full and sliding-window KV pools.
#pragma once

#include <string_view>

#include "catalog/model_shape.h"

namespace servescope::sglang {

/// Whether `release` sizes a hybrid-SWA pool (HybridSWAPoolConfigurator) for the model
/// (configs/model_config.py::is_hybrid_swa_model, 0.5.8+: the architectures of
/// data/sglang/hybrid-swa-architectures.tsv that have sliding layers; before 0.5.8 every model
/// with sliding layers but Gemma 3, as the rule first dated 2025-06-27 reads).
bool hybrid_swa_pools(std::string_view release, const ModelShape& m);

}  // namespace servescope::sglang
