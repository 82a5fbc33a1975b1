#include "report/coverage_report.h"

#include <fmt/format.h>

#include <map>

#include "report/format.h"

namespace servescope {
namespace {

struct KindTally {
  int registered = 0, modelled = 0, gaps = 0, not_modelled = 0;
};

std::map<std::string, KindTally> tally(const std::vector<ArchitectureCoverage>& coverage) {
  std::map<std::string, KindTally> out;
  for (const ArchitectureCoverage& c : coverage) {
    KindTally& t = out[c.registered.kind];
    ++t.registered;
    switch (c.status) {
      case CoverageStatus::kModelled:
        ++t.modelled;
        break;
      case CoverageStatus::kGaps:
        ++t.gaps;
        break;
      case CoverageStatus::kNotModelled:
        ++t.not_modelled;
        break;
    }
  }
  return out;
}

double percent(int part, int whole) {
  return whole == 0 ? 0.0 : 100.0 * part / whole;
}

}  // namespace

nlohmann::json coverage_to_json(const ArchitectureRegistry& registry,
                                const std::vector<ArchitectureCoverage>& coverage) {
  nlohmann::json out = {
      {"engine", registry.engine}, {"release", registry.release}, {"source", registry.header}};
  nlohmann::json summary = nlohmann::json::object();
  for (const auto& [kind, t] : tally(coverage)) {
    summary[kind] = {{"registered", t.registered},
                     {"modelled", t.modelled},
                     {"gaps", t.gaps},
                     {"not_modelled", t.not_modelled}};
  }
  out["summary"] = summary;
  nlohmann::json rows = nlohmann::json::array();
  for (const ArchitectureCoverage& c : coverage) {
    rows.push_back({{"architecture", c.registered.architecture},
                    {"kind", c.registered.kind},
                    {"status", coverage_status_name(c.status)},
                    {"reason", c.reason},
                    {"model_type", c.model_type},
                    {"family", c.family},
                    {"module", c.registered.module}});
  }
  out["architectures"] = rows;
  return out;
}

std::string coverage_to_text(const ArchitectureRegistry& registry,
                             const std::vector<ArchitectureCoverage>& coverage, bool all) {
  std::string out =
      fmt::format("{} {}: the text and multimodal architectures its model registry lists\n",
                  registry.engine, registry.release);
  const auto tallies = tally(coverage);
  for (const char* kind : {"text", "multimodal"}) {
    const auto it = tallies.find(kind);
    if (it == tallies.end())
      continue;
    const KindTally& t = it->second;
    out += fmt::format(
        "  {:<11} {:>4} registered  {:>4} modelled ({:.1f}%)  {:>3} with gaps  "
        "{:>4} not modelled\n",
        kind, t.registered, t.modelled, percent(t.modelled, t.registered), t.gaps, t.not_modelled);
  }
  if (!all) {
    out += "\n  Every architecture with its status: servescope models --coverage --all\n";
    return out;
  }
  std::vector<std::vector<std::string>> rows = {
      {"ARCHITECTURE", "KIND", "STATUS", "READER", "MODEL_TYPE", "WHY"}};
  for (const ArchitectureCoverage& c : coverage) {
    rows.push_back({c.registered.architecture, c.registered.kind,
                    std::string(coverage_status_name(c.status)), c.family.empty() ? "-" : c.family,
                    c.model_type.empty() ? "-" : c.model_type, c.reason});
  }
  return out + "\n" + render_columns(rows);
}

}  // namespace servescope
