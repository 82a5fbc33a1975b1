#include "report/format.h"

#include <fmt/format.h>

#include <algorithm>

namespace servescope {
namespace {

// Display width in terminal columns of UTF-8 text (each code point counts one).
std::size_t display_width(const std::string& s) {
  std::size_t w = 0;
  for (unsigned char c : s)
    w += (c & 0xC0) != 0x80 ? 1 : 0;
  return w;
}

}  // namespace

std::string format_value(const Value& v, const std::string& unit) {
  std::string text;
  if (v.is_int()) {
    text = with_thousands(v.as_int());
  } else if (v.is_none()) {
    text = "None";
  } else {
    text = v.to_display();
  }
  if (unit.empty() || v.is_none() || v.is_list() || v.is_string() || v.is_bool() ||
      unit == "fraction")
    return text;
  return text + " " + unit;
}

std::string render_columns(const std::vector<std::vector<std::string>>& rows,
                           const std::string& indent) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size())
      widths.resize(row.size(), 0);
    for (std::size_t i = 0; i < row.size(); ++i)
      widths[i] = std::max(widths[i], display_width(row[i]));
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size())
        line += std::string(widths[i] - display_width(row[i]) + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace servescope
