#include "engines/pypi_releases.h"

#include <fmt/format.h>

#include <cctype>
#include <map>
#include <mutex>

#include "catalog/embedded_data.h"
#include "core/text.h"

namespace servescope {

const std::vector<PypiRelease>& pypi_releases(std::string_view engine) {
  static std::mutex mu;
  static std::map<std::string, std::vector<PypiRelease>, std::less<>> cache;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(engine); it != cache.end())
    return it->second;
  std::vector<PypiRelease> out;
  if (const std::string_view* csv =
          find_embedded_file(fmt::format("{}/pypi-releases.csv", engine))) {
    bool header = false;
    for (std::string_view line : split(*csv, '\n')) {
      if (line.empty() || line.front() == '#')
        continue;
      if (!header) {
        header = true;  // release,pypi_date,first_upload_utc,kind,files,yanked
        continue;
      }
      auto cols = split(line, ',');
      if (cols.size() >= 4)
        out.push_back({std::string(cols[0]), std::string(cols[1]), std::string(cols[3])});
    }
  }
  return cache.emplace(std::string(engine), std::move(out)).first->second;
}

const PypiRelease* find_pypi_release(std::string_view engine, std::string_view spec) {
  spec = trim(spec);
  if (!spec.empty() && (spec.front() == 'v' || spec.front() == 'V'))
    spec.remove_prefix(1);
  for (const PypiRelease& r : pypi_releases(engine)) {
    if (r.name == spec)
      return &r;
  }
  return nullptr;
}

std::vector<int> release_numbers(std::string_view version) {
  std::vector<int> out;
  int n = -1;
  for (char c : version) {
    if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
      n = (n < 0 ? 0 : n * 10) + (c - '0');
    } else {
      if (n >= 0)
        out.push_back(n);
      n = -1;
      if (c == '+' || c == 'r' || c == 'd')
        break;  // a local version, an rc or a dev build: the release numbers end here
    }
  }
  if (n >= 0)
    out.push_back(n);
  return out;
}

}  // namespace servescope
