#include <algorithm>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "catalog/embedded_data.h"
#include "core/csv.h"
#include "core/text.h"

namespace servescope {

namespace {

const char* data_dir() {
  const char* dir = std::getenv("SERVESCOPE_DATA_DIR");
  return dir != nullptr && *dir != '\0' ? dir : nullptr;
}

}  // namespace

std::string data_dir_error() {
  const char* dir = data_dir();
  std::error_code ec;
  if (dir == nullptr || std::filesystem::is_directory(dir, ec))
    return {};
  return std::string("SERVESCOPE_DATA_DIR=") + dir +
         " is not a folder: point it at a copy of the repository's data/ (or unset it)";
}

const std::vector<EmbeddedFile>& embedded_files() {
  static const std::vector<EmbeddedFile> kFiles = [] {
    std::vector<EmbeddedFile> out = built_in_files();
    const char* dir = data_dir();
    if (dir == nullptr || !data_dir_error().empty())
      return out;
    // The overlay's bytes live as long as the process (views point into them).
    static std::deque<std::string> held;
    namespace fs = std::filesystem;
    std::vector<fs::path> found;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      if (entry.is_regular_file())
        found.push_back(entry.path());
    }
    std::sort(found.begin(), found.end());
    for (const fs::path& p : found) {
      std::ifstream in(p, std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      const std::string_view path = held.emplace_back(fs::relative(p, dir).generic_string());
      const std::string_view contents = held.emplace_back(text.str());
      auto same = std::find_if(out.begin(), out.end(),
                               [&](const EmbeddedFile& f) { return f.path == path; });
      if (same != out.end())
        same->contents = contents;
      else
        out.push_back({path, contents});
    }
    return out;
  }();
  return kFiles;
}

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
