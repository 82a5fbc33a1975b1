// How far each engine pack's capacity rules reach: the newest release whose change points are
// written (data/rules-currency.tsv) and the main-branch date it was cut from.
#pragma once

#include <string>
#include <string_view>

namespace servescope {

struct RulesCurrency {
  std::string release;    // "0.5.23"
  std::string main_date;  // its cut, data/<engine>/releases.csv: "2026-10-26"
};

/// The engine's row of data/rules-currency.tsv with its release's cut; throws std::logic_error
/// when the data lacks either (a build whose data is inconsistent, caught by its tests).
const RulesCurrency& rules_currency(std::string_view engine);

}  // namespace servescope
