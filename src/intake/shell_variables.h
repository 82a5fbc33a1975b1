// $NAME, ${NAME} and ${NAME:-default} in a word, replaced from variables a script or unit set
// itself; references to anything else stay as typed (their value is on someone else's machine).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace servescope {

struct Expanded {
  std::string text;
  std::vector<std::string> unknown;  // names referenced but not set
};

Expanded expand_variables(std::string_view word, const std::map<std::string, std::string>& vars);

}  // namespace servescope
