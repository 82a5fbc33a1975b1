#include "core/duration.h"

#include <cmath>

#include "core/text.h"

namespace servescope {

std::optional<double> parse_duration_seconds(std::string_view text) {
  text = trim(text);
  struct Unit {
    std::string_view suffix;
    double seconds;
  };
  // Longest suffixes first: "ms" before "s".
  constexpr Unit kUnits[] = {{"ms", 1e-3}, {"s", 1}, {"m", 60}, {"h", 3600}};
  double scale = 1;
  for (const Unit& u : kUnits) {
    if (text.size() > u.suffix.size() && text.substr(text.size() - u.suffix.size()) == u.suffix) {
      text.remove_suffix(u.suffix.size());
      scale = u.seconds;
      break;
    }
  }
  auto v = parse_double(text);
  if (!v || !std::isfinite(*v) || *v < 0)
    return std::nullopt;
  return *v * scale;
}

}  // namespace servescope
