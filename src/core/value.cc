#include "core/value.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace servescope {

double Value::as_number() const {
  if (is_int())
    return static_cast<double>(as_int());
  if (is_double())
    return std::get<3>(v_);
  return 0.0;
}

std::string Value::to_string() const {
  switch (v_.index()) {
    case 0:
      return "none";
    case 1:
      return as_bool() ? "true" : "false";
    case 2:
      return fmt::format("{}", as_int());
    case 3:
      return fmt::format("{}", std::get<3>(v_));
    case 4:
      return as_string();
    default:
      if (list_goes_on(as_list()))
        return fmt::format("[{}, ...]", fmt::join(as_list().begin(), as_list().end() - 1, ", "));
      return fmt::format("[{}]", fmt::join(as_list(), ", "));
  }
}

std::string Value::to_display() const {
  if (is_double()) {
    const double d = std::get<3>(v_);
    if (d != 0 && (d >= 1e6 || d < 1e-3))
      return fmt::format("{:.4g}", d);
    std::string s = fmt::format("{:.4f}", d);
    while (!s.empty() && s.back() == '0')
      s.pop_back();
    if (!s.empty() && s.back() == '.')
      s.pop_back();
    return s;
  }
  if (is_list()) {
    const IntList& l = as_list();
    if (l.size() <= 8 || list_goes_on(l))
      return to_string();
    return fmt::format("[{}, … {}] ({} sizes)", fmt::join(l.begin(), l.begin() + 4, ", "),
                       fmt::join(l.end() - 2, l.end(), ", "), l.size());
  }
  return to_string();
}

}  // namespace servescope
