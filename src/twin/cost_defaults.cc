#include "twin/cost_defaults.h"

#include <fmt/format.h>

#include <optional>
#include <stdexcept>

#include "catalog/embedded_data.h"
#include "core/text.h"

namespace servescope {
namespace {

// data/cost-defaults.tsv: engine, family, then the factors, then the fit's counts and errors.
enum Column {
  kEngine,
  kFamily,
  kBandwidth,
  kCompute,
  kStepOverhead,
  kPerSequence,
  kLayerOverhead,
  kRequestOverhead,
  kPoints,
  kSweeps,
  kTpotError,
  kThroughputError,
  kTtftError,
  kColumns
};

double number(std::string_view text) {
  const auto v = parse_double(text);
  if (!v)
    throw std::logic_error(fmt::format("data/cost-defaults.tsv: '{}' is not a number", text));
  return *v;
}

CostDefaults from_row(const std::vector<std::string_view>& row) {
  if (row.size() != kColumns)
    throw std::logic_error(fmt::format("data/cost-defaults.tsv: a row has {} columns, not {}",
                                       row.size(), static_cast<int>(kColumns)));
  CostDefaults d;
  d.engine = std::string(row[kEngine]);
  d.family = std::string(row[kFamily]);
  d.fitted = true;
  d.efficiency.bandwidth = number(row[kBandwidth]);
  d.efficiency.compute = number(row[kCompute]);
  d.efficiency.step_overhead_us = number(row[kStepOverhead]);
  d.efficiency.per_sequence_us = number(row[kPerSequence]);
  d.efficiency.layer_overhead_us = number(row[kLayerOverhead]);
  d.efficiency.request_overhead_us = number(row[kRequestOverhead]);
  d.points = static_cast<int>(number(row[kPoints]));
  d.sweeps = static_cast<int>(number(row[kSweeps]));
  d.tpot_error = number(row[kTpotError]);
  d.throughput_error = number(row[kThroughputError]);
  d.ttft_error = number(row[kTtftError]);
  return d;
}

}  // namespace

std::string gpu_family(const GpuSpec& gpu) {
  if (gpu.is_cpu)
    return "cpu";
  std::string_view arch = gpu.arch;
  if (const auto paren = arch.find(" ("); paren != std::string_view::npos)
    arch = arch.substr(0, paren);
  return std::string(trim(arch));
}

CostDefaults cost_defaults(std::string_view engine, const GpuSpec& gpu) {
  const std::string family = gpu_family(gpu);
  if (family != "cpu" && find_embedded_file("cost-defaults.tsv") != nullptr) {
    std::optional<CostDefaults> any;
    for (const auto& row : embedded_tsv("cost-defaults.tsv")) {
      if (row.empty() || row[kEngine] != engine)
        continue;
      if (row.size() > kFamily && row[kFamily] == family)
        return from_row(row);
      if (row.size() > kFamily && row[kFamily] == "*")
        any = from_row(row);
    }
    if (any)
      return *any;
  }
  CostDefaults hand;
  hand.engine = std::string(engine);
  hand.family = family;
  return hand;
}

std::string CostDefaults::describe() const {
  if (!fitted)
    return "hand-set factors: no published result behind them, no accuracy claimed";
  const std::string where =
      family == "*" ? "GPUs of every family (too few for this one alone)" : family + " GPUs";
  auto error = [](double e) {
    return e < 0 ? std::string("unknown") : fmt::format("{:.0f}%", e * 100);
  };
  return fmt::format(
      "factors fitted on {} published {} results ({} sweeps) on {}; median error there on results "
      "the fit did not see: TPOT {}, output throughput {}, TTFT {}",
      points, engine, sweeps, where, error(tpot_error), error(throughput_error), error(ttft_error));
}

}  // namespace servescope
