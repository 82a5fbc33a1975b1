#include "engines/rules_currency.h"

#include <fmt/format.h>

#include <map>
#include <stdexcept>

#include "catalog/embedded_data.h"

namespace servescope {
namespace {

// The release's cut from data/<engine>/releases.csv (release,main_date,...).
std::string cut_of(std::string_view engine, std::string_view release) {
  for (const auto& row : embedded_csv(fmt::format("{}/releases.csv", engine))) {
    if (row.size() >= 2 && row[0] == release)
      return row[1];
  }
  throw std::logic_error(
      fmt::format("data/{}/releases.csv has no cut date for {} {}", engine, engine, release));
}

}  // namespace

const RulesCurrency& rules_currency(std::string_view engine) {
  static const std::map<std::string, RulesCurrency, std::less<>> kAll = [] {
    std::map<std::string, RulesCurrency, std::less<>> out;
    for (const auto& cols : embedded_tsv("rules-currency.tsv")) {
      if (cols.size() >= 2 && cols[0] != "engine")
        out[std::string(cols[0])] = {std::string(cols[1]), cut_of(cols[0], cols[1])};
    }
    return out;
  }();
  const auto it = kAll.find(engine);
  if (it == kAll.end())
    throw std::logic_error(fmt::format("data/rules-currency.tsv has no row for {}", engine));
  return it->second;
}

}  // namespace servescope
