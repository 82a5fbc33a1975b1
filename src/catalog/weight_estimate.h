// Parameter count and weight bytes per GPU, estimated from a ModelShape. Used only when no
// log gives the real "Load weight end ... mem usage"; the plan marks it as an estimate.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "catalog/model_shape.h"

namespace servescope {

// How far a weight estimate may be off, and why that far: the layouts oracles
// (tests/oracle/layouts/) hold every modelled architecture's weights within 1% of the engines'
// own parameter counts. check plans a figure resting on the estimate at both ends.
constexpr double kWeightEstimateSpread = 0.01;
constexpr char kWeightEstimateSpreadNote[] =
    "±1%: the layouts oracles hold modelled architectures' weights within 1% of the engines' own";
/// The interval a weight estimate of `v` states (any unit): v ± kWeightEstimateSpread.
inline std::pair<double, double> weight_estimate_range(double v) {
  return {v * (1 - kWeightEstimateSpread), v * (1 + kWeightEstimateSpread)};
}

struct WeightPart {
  std::string name;   // "attention", "experts", "embeddings", ...
  double params = 0;  // whole model
  double bytes_per_gpu = 0;
};

struct WeightEstimate {
  std::vector<WeightPart> parts;
  double total_params = 0;
  double bytes_per_gpu = 0;
  double draft_bytes_per_gpu = 0;  // MTP/NextN layers, loaded only with speculative decoding
};

struct WeightLayout {
  int tp = 1;                  // tensor parallel size (attention and dense MLP shards)
  bool include_vision = true;  // false with --language-only
};

WeightEstimate estimate_weights(const ModelShape& shape, const WeightLayout& layout);

}  // namespace servescope
