#include "catalog/embedded_data.h"

namespace servescope {

const std::string_view* find_embedded_file(std::string_view path) {
  for (const EmbeddedFile& f : embedded_files()) {
    if (f.path == path)
      return &f.contents;
  }
  return nullptr;
}

}  // namespace servescope
