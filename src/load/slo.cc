#include "load/slo.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

#include "core/duration.h"
#include "core/text.h"

namespace servescope {
namespace {

// A duration with its unit: a bare number is refused, as "500" could mean ms or s.
Result<double> parse_ms(std::string_view text, std::string_view item) {
  const bool has_unit = !text.empty() && std::isalpha(static_cast<unsigned char>(text.back()));
  const auto seconds = has_unit ? parse_duration_seconds(text) : std::nullopt;
  if (!seconds || !(*seconds > 0))
    return fail(
        fmt::format("--slo {}: give a positive duration with its unit, e.g. 500ms or 2s", item));
  return *seconds * 1000;
}

const LatencySummary& summary_of(const BenchPoint& p, const std::string& metric) {
  if (metric == "ttft")
    return p.ttft_ms;
  if (metric == "tpot")
    return p.tpot_ms;
  return p.e2e_ms;
}

double percentile_of(const LatencySummary& s, int pct) {
  switch (pct) {
    case 50:
      return s.p50;
    case 90:
      return s.p90;
    case 95:
      return s.p95;
    case 999:
      return s.p999;
    default:
      return s.p99;
  }
}

}  // namespace

Result<std::vector<SloThreshold>> parse_slo(std::string_view text) {
  std::vector<SloThreshold> out;
  for (std::string_view item : split(text, ',')) {
    const auto colon = item.find(':');
    if (colon == std::string_view::npos)
      return fail(fmt::format("--slo {}: expected METRIC:DURATION, e.g. ttft:500ms", item));
    std::string name(item.substr(0, colon));
    SloThreshold t;
    if (const auto us = name.find("_p"); us != std::string::npos) {
      auto pct = parse_int(name.substr(us + 2));
      if (!pct || (*pct != 50 && *pct != 90 && *pct != 95 && *pct != 99 && *pct != 999))
        return fail(
            fmt::format("--slo {}: the percentile is one of p50, p90, p95, p99, p999", item));
      t.percentile = static_cast<int>(*pct);
      name.resize(us);
    }
    if (name != "ttft" && name != "tpot" && name != "e2e")
      return fail(fmt::format("--slo {}: the metric is ttft, tpot or e2e", item));
    auto ms = parse_ms(item.substr(colon + 1), item);
    if (!ms)
      return ms.error();
    t.metric = name;
    t.limit_ms = *ms;
    t.text =
        fmt::format("{}{}:{:g}ms", name,
                    t.percentile == 0 ? std::string() : fmt::format("_p{}", t.percentile), *ms);
    out.push_back(std::move(t));
  }
  if (out.empty())
    return fail("--slo: give at least one objective, e.g. ttft:500ms");
  return out;
}

SloResult judge_slo(const std::vector<SloThreshold>& slo, const PointTally& tally,
                    const BenchPoint& point) {
  SloResult r;
  r.requests = tally.sent;
  r.met = tally.slo_met;
  r.attainment = tally.sent > 0 ? static_cast<double>(r.met) / static_cast<double>(tally.sent) : 0;
  if (point.duration_s > 0) {
    r.goodput_rps = static_cast<double>(r.met) / point.duration_s;
    r.goodput_tokens_per_s = tally.slo_met_tokens / point.duration_s;
  }
  for (const SloThreshold& t : slo) {
    if (t.percentile == 0)
      continue;
    const LatencySummary& s = summary_of(point, t.metric);
    SloPercentile p{t, percentile_of(s, t.percentile), s.count > 0, false};
    p.met = p.measured && p.value_ms <= t.limit_ms;
    r.percentiles_met = r.percentiles_met && p.met;
    r.percentiles.push_back(std::move(p));
  }
  return r;
}

}  // namespace servescope
