// The candidates `fit` plans: hardware points (GPU kind × count × the tensor/pipeline split of
// that count, over nodes) and, per point, the flag options in the order fit prefers them.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "diagnose/fit.h"

namespace servescope {

struct HardwarePoint {
  const GpuSpec* gpu = nullptr;
  int gpus = 1;  // in all
  int nodes = 1;
  int tensor_parallel = 1;
  int pipeline_parallel = 1;
  int data_parallel = 1;
  double cost = 0;
};

/// Every hardware point of the space, cheapest first (then fewer nodes, then the catalog's
/// order, then the wider tensor split). With parallelism kept, the command's own split.
std::vector<HardwarePoint> hardware_points(const FitSpace& space, int command_tp, int command_pp,
                                           int command_dp = 1);

/// One way to set the flags fit may vary besides the fraction: each entry sets one flag.
struct FlagOption {
  struct Setting {
    std::string flag;
    std::string spelled;
    std::string value;    // "" for a store-true flag
    bool remove = false;  // take the flag out of the command instead
  };
  std::vector<Setting> settings;  // empty: the command as it is
};

/// The flag options in preference order: the command as it is first, then one change, then
/// two…; within a count, the dimensions in order (the KV-cache dtype first, then --vary'd
/// flags in the order given).
std::vector<FlagOption> flag_options(const FitSpace& space, const FitKnobs& knobs,
                                     const Scenario& base);

/// The memory fractions the space lets fit try, ascending: pruned, those above `in_force`;
/// unpruned, the whole range (brute force, whose answer shows the monotone argument holds).
std::vector<double> fraction_grid(const FitSpace& space, const FitKnobs& knobs, double in_force);

}  // namespace servescope
