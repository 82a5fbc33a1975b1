// The capacity changes of a release that a reading of its own code found (a wheel diff, its
// oracle) and no change point models yet: data/<engine>/unmodelled-changes.csv, which
// `make engine-release` appends to and a person empties by writing the change points. Plans on
// such a release warn with the list.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace servescope {

/// "; its own changes found in its wheel and not modelled: A; B" for a release of `engine`
/// whose unmodelled changes are listed (a .postN, rcN or .devN build counts as its release),
/// else "".
std::string unmodelled_changes_of(std::string_view engine, std::string release);

/// The same over rows in the CSV's layout (header first: release,change,source).
std::string unmodelled_changes_in(const std::vector<std::vector<std::string>>& rows,
                                  std::string release);

}  // namespace servescope
