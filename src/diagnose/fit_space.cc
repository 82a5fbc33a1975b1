#include "diagnose/fit_space.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace servescope {

std::vector<HardwarePoint> hardware_points(const FitSpace& space, int command_tp, int command_pp,
                                           int command_dp) {
  std::vector<HardwarePoint> out;
  const int max_gpus = space.gpu_count.value_or(space.max_gpus);
  for (std::size_t g = 0; g < space.gpus.size(); ++g) {
    const GpuSpec& gpu = space.gpus[g];
    for (int count = space.gpu_count.value_or(1); count <= max_gpus; ++count) {
      // A count beyond one node takes whole nodes (as they are rented and scheduled).
      const int nodes = (count + space.gpus_per_node - 1) / space.gpus_per_node;
      if (nodes > space.max_nodes || (nodes > 1 && count % space.gpus_per_node != 0))
        continue;
      for (int dp = 1; dp <= count; ++dp) {
        if (count % dp != 0 || (dp != command_dp && !space.vary_data_parallel))
          continue;
        const int replica = count / dp;  // GPUs of one replica
        for (int tp = replica; tp >= 1; --tp) {
          if (replica % tp != 0)
            continue;
          const int pp = replica / tp;
          if (!space.vary_parallelism && (tp != command_tp || pp != command_pp))
            continue;
          HardwarePoint p;
          p.gpu = &gpu;
          p.gpus = count;
          p.nodes = nodes;
          p.tensor_parallel = tp;
          p.pipeline_parallel = pp;
          p.data_parallel = dp;
          auto price = space.price_per_gpu_hour.find(gpu.key);
          p.cost = price != space.price_per_gpu_hour.end() ? price->second * count
                                                           : static_cast<double>(count);
          out.push_back(p);
        }
      }
    }
  }
  // Stable: points of equal cost keep the catalog's order and the widest tensor split first.
  std::stable_sort(out.begin(), out.end(), [](const HardwarePoint& a, const HardwarePoint& b) {
    if (a.cost != b.cost)
      return a.cost < b.cost;
    return a.nodes < b.nodes;
  });
  return out;
}

std::vector<FlagOption> flag_options(const FitSpace& space, const FitKnobs& knobs,
                                     const Scenario& base) {
  // Each dimension: the alternatives to the command as it is.
  std::vector<std::vector<FlagOption::Setting>> dims;
  if (space.vary_kv_dtype) {
    const FlagSetting* typed = base.command.find(knobs.kv_cache_dtype);
    if (typed == nullptr || typed->value() == "auto")
      dims.push_back({{knobs.kv_cache_dtype, knobs.kv_cache_dtype, knobs.fp8_kv_cache}});
  }
  // The command's own capacity flags, each back to the engine's default.
  if (space.vary_typed_flags) {
    const std::vector<std::string> fit_sets = {
        knobs.tensor_parallel, knobs.pipeline_parallel, knobs.data_parallel, knobs.nodes,
        knobs.node_rank,       knobs.memory_fraction,   knobs.context,       knobs.request_limit,
        knobs.kv_cache_dtype,  knobs.model_canonical};
    std::size_t taken = 0;
    for (const FlagSetting& f : base.command.flags) {
      const bool fit_owned = std::find(fit_sets.begin(), fit_sets.end(), f.name) != fit_sets.end();
      const bool kept = std::find(space.kept_flags.begin(), space.kept_flags.end(), f.name) !=
                        space.kept_flags.end();
      const bool varied = std::any_of(space.extra.begin(), space.extra.end(),
                                      [&](const FitVariation& v) { return v.flag == f.name; });
      if (!f.modelled || fit_owned || kept || varied || f.spelled.empty() ||
          taken == space.max_typed_removals) {
        continue;
      }
      dims.push_back({{f.name, f.spelled, "", true}});
      ++taken;
    }
  }
  for (const FitVariation& v : space.extra) {
    std::vector<FlagOption::Setting> alts;
    const FlagSetting* typed = base.command.find(v.flag);
    for (const std::string& value : v.values) {
      if (typed != nullptr && typed->value() == value)
        continue;
      alts.push_back({v.flag, v.spelled, value});
    }
    if (!alts.empty())
      dims.push_back(std::move(alts));
  }
  // Index tuples over the dimensions (0 = as it is), fewest changes first.
  std::vector<std::vector<int>> tuples{{}};
  for (const auto& dim : dims) {
    std::vector<std::vector<int>> next;
    for (const auto& t : tuples) {
      for (int i = 0; i <= static_cast<int>(dim.size()); ++i) {
        auto u = t;
        u.push_back(i);
        next.push_back(std::move(u));
      }
    }
    tuples = std::move(next);
  }
  auto changed = [](const std::vector<int>& t) {
    return std::count_if(t.begin(), t.end(), [](int i) { return i != 0; });
  };
  std::stable_sort(tuples.begin(), tuples.end(),
                   [&](const auto& a, const auto& b) { return changed(a) < changed(b); });
  std::vector<FlagOption> out;
  for (const auto& t : tuples) {
    FlagOption o;
    for (std::size_t d = 0; d < t.size(); ++d) {
      if (t[d] != 0)
        o.settings.push_back(dims[d][t[d] - 1]);
    }
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<double> fraction_grid(const FitSpace& space, const FitKnobs& knobs, double in_force) {
  std::vector<double> out;
  if (!space.vary_fraction)
    return out;
  const double lo = space.fraction_low.value_or(knobs.fraction_low);
  const double hi = space.fraction_high.value_or(knobs.fraction_high);
  const double step = knobs.fraction_step;
  // Integer steps, so 0.80 + 15 × 0.01 prints as 0.95 and not 0.9500000001.
  const int steps = static_cast<int>(std::floor((hi - lo) / step + 1e-9));
  for (int i = 0; i <= steps; ++i) {
    const double f = std::round((lo + i * step) * 1000) / 1000;
    // Pruned, only fractions above the one in force: below it the KV budget is no larger
    // (monotone, fit.cc), so none meets where the fraction in force does not.
    if (!space.prune || f > in_force + 1e-9)
      out.push_back(f);
  }
  return out;
}

}  // namespace servescope
