// The agreement figures a test measures, written for `make accuracy` (tools/accuracy/render.py)
// when SERVESCOPE_ACCURACY_OUT names a folder: one JSON file per record, named by its id. The
// docs' accuracy tables are rendered from these, never typed by hand.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace servescope::testing {

inline void record_accuracy(std::string id, const nlohmann::json& record) {
  const char* dir = std::getenv("SERVESCOPE_ACCURACY_OUT");
  if (dir == nullptr || *dir == '\0')
    return;
  for (char& c : id) {
    if (c == ' ' || c == '/')
      c = '-';
  }
  std::ofstream(std::filesystem::path(dir) / (id + ".json")) << record.dump(1) << "\n";
}

}  // namespace servescope::testing
