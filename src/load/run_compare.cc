#include "load/run_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/json_read.h"

namespace servescope {
namespace {

using nlohmann::json;

std::string point_name(const json& p) {
  const bool has_rate = p.is_object() && p.contains("rate") && p["rate"].is_number();
  if (json_bool(p, "closed_loop", true) || !has_rate)
    return fmt::format("concurrency {:g}", json_num(p, "concurrency"));
  return fmt::format("rate {:g}/s", json_num(p, "rate"));
}

std::vector<double> samples(const json& p, const char* field) {
  std::vector<double> out;
  for (const json& row : json_arr(p, "requests")) {
    if (row.is_object() && (!row.contains("error") || row["error"].is_null()) &&
        row.contains(field) && row[field].is_number())
      out.push_back(row[field].get<double>());
  }
  return out;
}

// The q-quantile (0..1) by the nearest rank on a copy.
double quantile(std::vector<double>& v, double q) {
  const auto k = static_cast<std::size_t>(std::min<double>(
      static_cast<double>(v.size() - 1), std::ceil(q * static_cast<double>(v.size())) - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

struct Interval {
  double low = 0, high = 0;
};

// Percentile bootstrap of quantile(B)/quantile(A) − 1, resampling each run's requests.
Interval bootstrap(const std::vector<double>& a, const std::vector<double>& b, double q,
                   const CompareOptions& o) {
  std::mt19937_64 rng(o.seed);
  std::vector<double> ra(a.size()), rb(b.size()), changes;
  changes.reserve(static_cast<std::size_t>(o.resamples));
  for (int r = 0; r < o.resamples; ++r) {
    for (double& x : ra)
      x = a[rng() % a.size()];
    for (double& x : rb)
      x = b[rng() % b.size()];
    const double qa = quantile(ra, q);
    if (qa > 0)
      changes.push_back(quantile(rb, q) / qa - 1);
  }
  if (changes.empty())
    return {};
  std::sort(changes.begin(), changes.end());
  const auto at = [&](double p) {
    return changes[static_cast<std::size_t>(p * static_cast<double>(changes.size() - 1))];
  };
  return {at(0.025), at(0.975)};
}

std::vector<double> run_values(const json& p, const char* field) {
  std::vector<double> out;
  for (const json& run : json_arr(p, "runs")) {
    if (run.is_object() && run.contains(field) && run[field].is_number())
      out.push_back(run[field].get<double>());
  }
  return out;
}

std::string percent(double x) {
  const double p = std::round(x * 1000) / 10;
  return fmt::format("{:.1f}%", p == 0 ? 0.0 : p);  // no "-0.0%"
}

void describe(MetricChange& m, double min_effect, const std::string& b_name) {
  const bool better = m.lower_is_better ? m.change < 0 : m.change > 0;
  std::string head = fmt::format("{} is {} {} in {}", m.metric, percent(std::abs(m.change)),
                                 m.change < 0 ? "lower" : "higher", b_name);
  if (m.change == 0)
    head = fmt::format("{} is the same in {}", m.metric, b_name);
  if (!m.low) {
    m.sentence = head + ": one figure per run, no interval (bench --repeat 3 or more to judge it)";
    return;
  }
  head += fmt::format(" (95% CI {} to {})", percent(*m.low), percent(*m.high));
  const bool excludes_zero = *m.low > 0 || *m.high < 0;
  m.real = excludes_zero && std::abs(m.change) >= min_effect;
  if (m.real)
    m.sentence = head + fmt::format(": a real difference ({})", better ? "better" : "worse");
  else if (excludes_zero)
    m.sentence = head + fmt::format(": a difference below the {} that counts", percent(min_effect));
  else
    m.sentence = head + ": no difference beyond noise";
}

}  // namespace

std::optional<std::pair<double, double>> mean_change_interval(const std::vector<double>& a,
                                                              const std::vector<double>& b,
                                                              const CompareOptions& o) {
  if (a.size() < kMinRunsForInterval || b.size() < kMinRunsForInterval)
    return std::nullopt;
  std::mt19937_64 rng(o.seed);
  std::vector<double> changes;
  changes.reserve(static_cast<std::size_t>(o.resamples));
  for (int r = 0; r < o.resamples; ++r) {
    double sa = 0, sb = 0;
    for (std::size_t k = 0; k < a.size(); ++k)
      sa += a[rng() % a.size()];
    for (std::size_t k = 0; k < b.size(); ++k)
      sb += b[rng() % b.size()];
    if (sa > 0)
      changes.push_back(
          (sb / static_cast<double>(b.size())) / (sa / static_cast<double>(a.size())) - 1);
  }
  if (changes.empty())
    return std::nullopt;
  std::sort(changes.begin(), changes.end());
  const auto at = [&](double p) {
    return changes[static_cast<std::size_t>(p * static_cast<double>(changes.size() - 1))];
  };
  return std::pair{at(0.025), at(0.975)};
}

Result<RunComparison> compare_runs(const json& a, const json& b, const std::string& a_name,
                                   const std::string& b_name, const CompareOptions& o) {
  for (const auto& [doc, name] : {std::pair{&a, &a_name}, std::pair{&b, &b_name}}) {
    if (!doc->is_object() || !doc->contains("points") || !(*doc)["points"].is_array())
      return fail(fmt::format("bench --compare {}: not a bench --json result", *name));
  }
  const json& pa = a["points"];
  const json& pb = b["points"];
  if (pa.size() != pb.size()) {
    return fail(
        fmt::format("bench --compare: {} has {} points and {} has {}; compare runs of "
                    "the same sweep",
                    a_name, pa.size(), b_name, pb.size()));
  }
  RunComparison c;
  c.a_name = a_name;
  c.b_name = b_name;
  c.min_effect = o.min_effect;
  c.resamples = o.resamples;
  for (std::size_t i = 0; i < pa.size(); ++i) {
    const std::string point = point_name(pa[i]);
    if (point != point_name(pb[i])) {
      return fail(fmt::format("bench --compare: point {} is {} in {} but {} in {}", i + 1, point,
                              a_name, point_name(pb[i]), b_name));
    }
    bool noted = false;
    for (const auto& [field, label] :
         {std::pair{"ttft_ms", "TTFT"}, std::pair{"tpot_ms", "TPOT"}, std::pair{"e2e_ms", "E2E"}}) {
      std::vector<double> sa = samples(pa[i], field), sb = samples(pb[i], field);
      for (const auto& [q, qname] :
           {std::pair{0.5, "p50"}, std::pair{0.9, "p90"}, std::pair{0.99, "p99"}}) {
        MetricChange m;
        m.point = point;
        m.metric = fmt::format("{} {}", label, qname);
        m.a = json_num(json_obj(pa[i], field), qname);
        m.b = json_num(json_obj(pb[i], field), qname);
        if (m.a <= 0)
          continue;
        m.change = m.b / m.a - 1;
        if (sa.size() >= 10 && sb.size() >= 10) {
          const Interval ci = bootstrap(sa, sb, q, o);
          m.low = ci.low;
          m.high = ci.high;
        } else if (!noted) {
          c.notes.push_back(
              fmt::format("{}: fewer than 10 recorded requests in a run, so no "
                          "intervals; run bench with --details",
                          point));
          noted = true;
        }
        describe(m, o.min_effect, "B");
        c.changes.push_back(std::move(m));
      }
    }
    for (const auto& [field, label] : {std::pair{"requests_per_s", "requests/s"},
                                       std::pair{"output_tokens_per_s", "output tokens/s"}}) {
      MetricChange m;
      m.point = point;
      m.metric = label;
      m.lower_is_better = false;
      m.a = json_num(pa[i], field);
      m.b = json_num(pb[i], field);
      if (m.a <= 0)
        continue;
      m.change = m.b / m.a - 1;
      // Throughput is one figure per run: an interval needs runs (bench --repeat N).
      if (auto ci = mean_change_interval(run_values(pa[i], field), run_values(pb[i], field), o)) {
        m.low = ci->first;
        m.high = ci->second;
      }
      describe(m, o.min_effect, "B");
      c.changes.push_back(std::move(m));
    }
  }
  return c;
}

std::string render_comparison_text(const RunComparison& c) {
  std::string out = fmt::format("bench --compare: A = {}, B = {}\n", c.a_name, c.b_name);
  out += fmt::format(
      "  95% intervals by percentile bootstrap ({} resamples) over each run's requests for "
      "latency, over each side's runs (bench --repeat) for throughput; a difference counts from "
      "{}\n",
      c.resamples, percent(c.min_effect));
  std::string point;
  for (const MetricChange& m : c.changes) {
    if (m.point != point) {
      point = m.point;
      out += fmt::format("\n  {}\n", point);
    }
    out += fmt::format("    {:<16} {:>10.2f} → {:<10.2f} {}\n", m.metric, m.a, m.b, m.sentence);
  }
  for (const std::string& n : c.notes)
    out += "  note: " + n + "\n";
  return out;
}

json comparison_json(const RunComparison& c) {
  json rows = json::array();
  for (const MetricChange& m : c.changes) {
    rows.push_back({{"point", m.point},
                    {"metric", m.metric},
                    {"a", m.a},
                    {"b", m.b},
                    {"change", m.change},
                    {"ci_low", m.low ? json(*m.low) : json(nullptr)},
                    {"ci_high", m.high ? json(*m.high) : json(nullptr)},
                    {"real_difference", m.real},
                    {"lower_is_better", m.lower_is_better},
                    {"verdict", m.sentence}});
  }
  return {{"compare", {{"a", c.a_name}, {"b", c.b_name}}},
          {"min_effect", c.min_effect},
          {"resamples", c.resamples},
          {"differences", rows},
          {"notes", c.notes}};
}

}  // namespace servescope
