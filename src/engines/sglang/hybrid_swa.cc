// R4.10: SGLang's hybrid-SWA allowlist (configs/model_config.py::is_hybrid_swa_model). A model with
// sliding-window layers that the release does not list (Gemma 2, Cohere 2, EXAONE 4, Llama 4's
// text-only class) keeps one full pool: every layer caches every token.
#include "engines/sglang/hybrid_swa.h"

#include <string>
#include <utility>
#include <vector>

#include "catalog/embedded_data.h"
#include "core/text.h"
#include "engines/pypi_releases.h"

namespace servescope::sglang {
namespace {

constexpr char kTable[] = "sglang/hybrid-swa-architectures.tsv";

struct Span {
  std::string architecture;
  std::vector<int> since, until;
};

// The table's rows, and the first and newest release it read (the first has the allowlist).
struct Allowlist {
  std::vector<Span> spans;
  std::vector<int> first_release, newest_release;
  std::vector<std::pair<std::string, std::string>> cuts;  // release read, its main-branch cut
};

const Allowlist& allowlist() {
  static const Allowlist kList = [] {
    Allowlist out;
    const std::string_view text = *find_embedded_file(kTable);
    const std::string_view marker = "# releases read: ";
    if (const auto at = text.find(marker); at != std::string_view::npos) {
      const auto start = at + marker.size();
      const std::string_view read = text.substr(start, text.find('\n', start) - start);
      out.first_release = release_numbers(read.substr(0, read.find(' ')));
      out.newest_release = release_numbers(read.substr(read.rfind(' ') + 1));
      for (const auto& row : embedded_csv("sglang/releases.csv")) {
        for (std::string_view name : split(read, ' ')) {
          if (row.size() >= 2 && row[0] == name)
            out.cuts.emplace_back(row[0], row[1]);
        }
      }
    }
    for (const auto& cols : tsv_rows(text)) {
      if (cols.size() >= 3 && cols[0] != "architecture")
        out.spans.push_back(
            {std::string(cols[0]), release_numbers(cols[1]), release_numbers(cols[2])});
    }
    return out;
  }();
  return kList;
}

// The newest release read whose main-branch cut (data/sglang/releases.csv) is on or before
// `date`, or "" when none is.
std::string release_cut_by(std::string_view date, const Allowlist& list) {
  std::string out;
  for (const auto& [release, cut] : list.cuts) {
    if (cut <= date && (out.empty() || release_numbers(release) > release_numbers(out)))
      out = release;
  }
  return out;
}

}  // namespace

bool hybrid_swa_pools(const EngineVersion& version, const ModelShape& m) {
  if (!m.has_sliding_window())
    return false;
  const Allowlist& list = allowlist();
  const std::string release =
      version.release.empty() ? release_cut_by(version.main_date, list) : version.release;
  const std::vector<int> r = release_numbers(release);
  if (r < list.first_release)
    return m.model_type != "gemma3" && m.model_type != "gemma3_text";
  // A release newer than the table's newest is taken as the newest (its spans end there).
  for (const Span& s : list.spans) {
    const bool open_ended = s.until >= list.newest_release;
    if (s.architecture == m.architecture && s.since <= r && (r <= s.until || open_ended))
      return true;
  }
  return false;
}

}  // namespace servescope::sglang
