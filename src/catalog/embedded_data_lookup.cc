#include <stdexcept>

#include "catalog/embedded_data.h"
#include "core/csv.h"
#include "core/text.h"

namespace servescope {

const std::string_view* find_embedded_file(std::string_view path) {
  for (const EmbeddedFile& f : embedded_files()) {
    if (f.path == path)
      return &f.contents;
  }
  return nullptr;
}

std::vector<std::vector<std::string>> embedded_csv(std::string_view path) {
  const std::string_view* text = find_embedded_file(path);
  if (text == nullptr)
    throw std::logic_error("data/" + std::string(path) + " was not embedded");
  auto rows = read_csv(*text);
  if (!rows)
    throw std::logic_error("data/" + std::string(path) + ": " + rows.message());
  return std::move(rows).value();
}

std::vector<std::vector<std::string_view>> tsv_rows(std::string_view text) {
  std::vector<std::vector<std::string_view>> rows;
  bool header = true;
  for (std::string_view line : split(text, '\n')) {
    if (line.empty() || line.front() == '#')
      continue;
    if (header) {
      header = false;
      continue;
    }
    rows.push_back(split(line, '\t'));
  }
  return rows;
}

std::vector<std::vector<std::string_view>> embedded_tsv(std::string_view path) {
  const std::string_view* text = find_embedded_file(path);
  if (text == nullptr)
    throw std::logic_error("data/" + std::string(path) + " was not embedded");
  return tsv_rows(*text);
}

}  // namespace servescope
