// What this binary was built from (cmake/build_info.cmake writes the definitions at build time):
// `servescope --version`.
#pragma once

#include <string_view>

namespace servescope {

std::string_view build_version();      // the project version, "0.1.0"
std::string_view build_commit();       // "8b233b5", "8b233b5+changes" or "unknown"
std::string_view build_commit_date();  // "2026-12-07" or "unknown"

}  // namespace servescope
