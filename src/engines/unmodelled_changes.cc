#include "engines/unmodelled_changes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <vector>

#include "catalog/embedded_data.h"

namespace servescope {
namespace {

using Changes = std::map<std::string, std::vector<std::string>>;  // release → changes

Changes changes_in(const std::vector<std::vector<std::string>>& rows) {
  Changes out;
  for (std::size_t i = 1; i < rows.size(); ++i) {  // release,change,source
    const auto& row = rows[i];
    if (row.size() >= 2 && !row[0].empty())
      out[row[0]].push_back(row[1]);
  }
  return out;
}

const Changes& changes_of(std::string_view engine) {
  static const Changes kSglang = changes_in(embedded_csv("sglang/unmodelled-changes.csv"));
  static const Changes kVllm = changes_in(embedded_csv("vllm/unmodelled-changes.csv"));
  return engine == "sglang" ? kSglang : kVllm;
}

std::string listed(const Changes& changes, std::string release) {
  for (std::string_view suffix : {".post", ".dev", "rc"}) {
    if (const auto at = release.find(suffix); at != std::string::npos)
      release.erase(at);
  }
  const auto it = changes.find(release);
  if (it == changes.end())
    return "";
  return fmt::format("; its own changes found in its wheel and not modelled: {}",
                     fmt::join(it->second, "; "));
}

}  // namespace

std::string unmodelled_changes_of(std::string_view engine, std::string release) {
  return listed(changes_of(engine), std::move(release));
}

std::string unmodelled_changes_in(const std::vector<std::vector<std::string>>& rows,
                                  std::string release) {
  return listed(changes_in(rows), std::move(release));
}

}  // namespace servescope
