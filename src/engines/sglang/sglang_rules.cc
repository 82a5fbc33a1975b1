#include "engines/sglang/sglang_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "catalog/embedded_data.h"
#include "core/text.h"

namespace servescope::sglang {
namespace {

constexpr std::string_view kNewestDate = "2026-07-20";

std::vector<SglangRules> build_variants() {
  // Newest first, then each older variant is the newer one with the switches that changed.
  std::vector<SglangRules> newest_first;
  SglangRules head;
  head.from_date = "2026-07-01";
  head.description =
      "main 2026-07-20 (8905cbd42): breakable prefill graph by default, "
      "per-phase cuda_graph_config, explicit --max-running-requests respected";
  newest_first.push_back(head);
  std::vector<SglangRules> out(newest_first.rbegin(), newest_first.rend());
  return out;
}

bool is_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-')
    return false;
  for (std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u}) {
    if (!std::isdigit(static_cast<unsigned char>(s[i])))
      return false;
  }
  return true;
}

struct Release {
  std::string name;
  std::string date;
  std::string evidence;
};

std::vector<Release> load_releases() {
  std::vector<Release> out;
  const std::string_view* csv = find_embedded_file("sglang/releases.csv");
  if (csv == nullptr)
    return out;
  bool header = true;
  for (std::string_view line : split(*csv, '\n')) {
    if (line.empty() || line.front() == '#')
      continue;
    if (header) {
      header = false;
      continue;
    }
    auto cols = split(line, ',');
    if (cols.size() < 2)
      continue;
    std::string evidence;
    for (std::size_t i = 2; i < cols.size(); ++i)
      evidence += (i > 2 ? "," : "") + std::string(cols[i]);
    out.push_back({std::string(trim(cols[0])), std::string(trim(cols[1])), evidence});
  }
  return out;
}

}  // namespace

const std::vector<SglangRules>& all_rule_variants() {
  static const std::vector<SglangRules> kVariants = build_variants();
  return kVariants;
}

const SglangRules& rules_for_date(std::string_view date) {
  const auto& variants = all_rule_variants();
  const SglangRules* chosen = &variants.front();
  for (const SglangRules& r : variants) {
    if (r.from_date <= date)
      chosen = &r;
  }
  return *chosen;
}

Result<EngineVersion> resolve_sglang_version(std::string_view spec_view) {
  std::string spec(trim(spec_view));
  if (spec.empty() || spec == "latest" || spec == "main") {
    return EngineVersion{std::string(kNewestDate), std::string(kNewestDate),
                         "newest modelled: main 2026-07-20 (8905cbd42)"};
  }
  if (is_date(spec)) {
    if (spec > kNewestDate) {
      return EngineVersion{
          spec, std::string(kNewestDate),
          fmt::format("main {} is newer than the newest modelled date; rules of {} apply", spec,
                      kNewestDate)};
    }
    return EngineVersion{spec, spec, "main-branch date"};
  }
  std::string name = spec;
  if (!name.empty() && (name[0] == 'v' || name[0] == 'V'))
    name.erase(0, 1);
  std::vector<Release> releases = load_releases();
  // Exact release, else the release line without its .postN suffix.
  for (int pass = 0; pass < 2; ++pass) {
    for (const Release& r : releases) {
      std::string candidate = name;
      if (pass == 1) {
        auto post = candidate.find(".post");
        if (post != std::string::npos)
          candidate.erase(post);
        auto dev = candidate.find(".dev");
        if (dev != std::string::npos)
          candidate.erase(dev);
      }
      if (r.name == candidate) {
        return EngineVersion{spec, r.date,
                             fmt::format("release {} ≈ main {} ({})", r.name, r.date, r.evidence)};
      }
    }
  }
  std::vector<std::string> names;
  for (const Release& r : releases)
    names.push_back(r.name);
  return fail(
      fmt::format("--engine sglang@{}: unknown version; give a release ({}) or a main "
                  "date YYYY-MM-DD",
                  spec,
                  names.empty() ? std::string("none modelled")
                                : fmt::format("{} … {}", names.front(), names.back())));
}

}  // namespace servescope::sglang
