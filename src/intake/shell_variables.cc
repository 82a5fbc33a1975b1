#include "intake/shell_variables.h"

#include <cctype>

namespace servescope {
namespace {

bool name_char(char c, bool first) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
         (!first && std::isdigit(static_cast<unsigned char>(c)));
}

}  // namespace

Expanded expand_variables(std::string_view w, const std::map<std::string, std::string>& vars) {
  Expanded out;
  std::size_t i = 0;
  while (i < w.size()) {
    if (w[i] != '$' || i + 1 >= w.size()) {
      out.text += w[i++];
      continue;
    }
    std::size_t start = i;
    std::string name, fallback;
    bool has_fallback = false;
    if (w[i + 1] == '{') {
      const std::size_t close = w.find('}', i + 2);
      if (close == std::string_view::npos) {
        out.text += w.substr(i);
        break;
      }
      std::string_view inner = w.substr(i + 2, close - i - 2);
      if (auto dash = inner.find(":-"); dash != std::string_view::npos) {
        fallback = std::string(inner.substr(dash + 2));
        has_fallback = true;
        inner = inner.substr(0, dash);
      }
      name = std::string(inner);
      i = close + 1;
    } else if (name_char(w[i + 1], true)) {
      i += 1;
      while (i < w.size() && name_char(w[i], name.empty()))
        name += w[i++];
    } else {
      out.text += w[i++];
      continue;
    }
    bool valid = !name.empty() && name_char(name[0], true);
    for (char c : name)
      valid = valid && name_char(c, false);
    auto it = vars.find(name);
    if (valid && it != vars.end()) {
      out.text += it->second;
    } else if (valid && has_fallback) {
      out.text += fallback;
    } else {
      out.text += w.substr(start, i - start);
      if (valid)
        out.unknown.push_back(name);
    }
  }
  return out;
}

}  // namespace servescope
