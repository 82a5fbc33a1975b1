// An environment variable's value, or a fallback when it is unset or empty.
#pragma once

#include <cstdlib>
#include <string>

namespace servescope {

inline std::string env_or(const char* name, const std::string& fallback = "") {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

}  // namespace servescope
