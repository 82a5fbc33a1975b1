// Files under data/ compiled into the binary (see cmake/embed_data.cmake).
#pragma once

#include <string_view>
#include <vector>

namespace servescope {

struct EmbeddedFile {
  std::string_view path;  // relative to data/, e.g. "models/Qwen--Qwen3-8B.json"
  std::string_view contents;
};

const std::vector<EmbeddedFile>& embedded_files();

/// The contents of data/<path>, or nullptr when no such file was embedded.
const std::string_view* find_embedded_file(std::string_view path);

}  // namespace servescope
