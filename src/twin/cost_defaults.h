// The cost model's starting factors per engine and GPU family, fitted on the published serving
// results (tests/published-results/, `make cost-defaults` writes data/cost-defaults.tsv), with
// the error the fit leaves on results it was not fitted on. A GPU family without enough
// published results takes its engine's fit over every family; the host CPU and an engine with
// no fit keep the hand-set factors (Efficiency{}), and say that no error is known. The rows name
// the factors of cost_model.h: bandwidth, compute, step, per-sequence, layer and request costs.
#pragma once

#include <string>
#include <string_view>

#include "catalog/gpu_catalog.h"
#include "twin/cost_model.h"

namespace servescope {

struct CostDefaults {
  Efficiency efficiency;
  std::string engine, family;  // the row used ("*": every family of the engine)
  bool fitted = false;         // false: the hand-set factors, no published result behind them
  int points = 0, sweeps = 0;  // published results the factors were fitted on
  // Median absolute relative error on published results the fit did not see (two folds by
  // sweep), per figure; < 0 where unknown.
  double tpot_error = -1, throughput_error = -1, ttft_error = -1;

  /// "fitted on 57 published vLLM results on Hopper GPUs; expected error ..." or why not.
  std::string describe() const;
};

/// The GPU's family for the defaults: its architecture without the die ("Hopper", "Ampere",
/// "Ada Lovelace", "Blackwell", "Blackwell Ultra", "CDNA 3"); "cpu" for the host CPU.
std::string gpu_family(const GpuSpec& gpu);

/// The defaults for an engine ("vllm", "sglang") on a GPU, from data/cost-defaults.tsv.
CostDefaults cost_defaults(std::string_view engine, const GpuSpec& gpu);

}  // namespace servescope
