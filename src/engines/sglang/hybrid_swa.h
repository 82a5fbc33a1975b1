// R4.10: which models SGLang gives separate full and sliding-window KV pools.
#pragma once

#include <string_view>

#include "catalog/model_shape.h"
#include "engines/scenario.h"

namespace servescope::sglang {

/// Whether the version sizes a hybrid-SWA pool (HybridSWAPoolConfigurator) for the model
/// (configs/model_config.py::is_hybrid_swa_model, 0.5.8+: the architectures of
/// data/sglang/hybrid-swa-architectures.tsv that have sliding layers; before 0.5.8 every model
/// with sliding layers but Gemma 3, as the rule first dated 2025-06-27 reads). A main-branch date
/// takes the list of the newest release cut by then (data/sglang/releases.csv).
bool hybrid_swa_pools(const EngineVersion& version, const ModelShape& m);

}  // namespace servescope::sglang
