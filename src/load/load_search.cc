#include "load/load_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace servescope {
namespace {

constexpr double kZ = 1.96;  // 95%
constexpr double kInf = std::numeric_limits<double>::infinity();

double row_value(const BenchRequestRow& r, const std::string& metric) {
  if (!r.error.empty())
    return kInf;  // a failed request's latency is unbounded
  if (metric == "ttft")
    return r.ttft_ms < 0 ? kInf : r.ttft_ms;
  if (metric == "tpot")
    return r.tpot_ms;  // -1: one output token, no TPOT
  return r.e2e_ms < 0 ? kInf : r.e2e_ms;
}

// The order-statistic 95% interval of the p-quantile of sorted samples (distribution-free):
// ranks n·p ∓ z·sqrt(n·p·(1−p)). An upper rank beyond the sample leaves the bound open.
ObjectiveVerdict percentile_verdict(std::vector<double> v, const SloThreshold& t) {
  ObjectiveVerdict out;
  out.objective = t.text;
  out.limit = t.limit_ms;
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  if (v.empty()) {
    out.estimate = out.low = out.high = kInf;
    out.settled = true;  // nothing measured at all: a miss
    return out;
  }
  const double p = t.percentile == 999 ? 0.999 : t.percentile / 100.0;
  const double sd = std::sqrt(n * p * (1 - p));
  const auto at = [&](double rank) {  // 1-based
    return v[static_cast<std::size_t>(std::clamp(rank, 1.0, n)) - 1];
  };
  out.estimate = at(std::ceil(n * p));
  out.low = at(std::floor(n * p - kZ * sd));
  const double high_rank = std::ceil(n * p + kZ * sd) + 1;
  out.high = high_rank > n ? kInf : at(high_rank);
  out.met = out.estimate <= t.limit_ms;
  out.settled = out.high <= t.limit_ms || out.low > t.limit_ms;
  return out;
}

// Wilson's 95% interval of a share.
std::pair<double, double> wilson(double met, double n) {
  if (n == 0)
    return {0, 1};
  const double p = met / n, z2 = kZ * kZ;
  const double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const double half = kZ * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n);
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

std::string load_text(double load, bool by_rate) {
  return by_rate ? fmt::format("rate {:g}/s", load) : fmt::format("concurrency {:g}", load);
}

// Which limit binds where the objectives were first missed, from the server's own view.
std::string binding_at(const SearchedLoad& s) {
  const BenchPoint& p = s.last;
  if (p.server.available && p.server.max_queued > 0 && p.server.effective_running_limit) {
    return fmt::format(
        "the server's running-request limit: it ran at most {:g} requests while others waited "
        "(up to {:g} queued)",
        *p.server.effective_running_limit, p.server.max_queued);
  }
  if (p.server.available && p.server.max_queued > 0)
    return fmt::format("the server's queue: up to {:g} requests waited", p.server.max_queued);
  // Too few samples of the server to say it never queued: the point was short beside the
  // scrape interval.
  if (p.server.available && p.server.scrapes < 5) {
    return fmt::format(
        "unknown: the server was read only {} times in a point of {:.2f} s; lengthen the point "
        "(--requests) or shorten --scrape-interval",
        p.server.scrapes, p.duration_s);
  }
  // No queue at the server: a client that could not send on time held the load back.
  if (p.late_share > 0.01) {
    return fmt::format(
        "the client: {:.1f}% of sends were late, so the load was not offered as "
        "asked",
        p.late_share * 100);
  }
  if (!p.server.available)
    return "unknown: the server's view was not available (" + p.server.why_unavailable + ")";
  return "the server's step time: no request waited, the latency grew with the batch";
}

}  // namespace

std::vector<ObjectiveVerdict> judge_objectives(const std::vector<BenchRequestRow>& rows,
                                               const std::vector<SloThreshold>& slo,
                                               double min_attainment) {
  std::vector<ObjectiveVerdict> out;
  std::string per_request;
  double met = 0;
  for (const SloThreshold& t : slo) {
    if (t.percentile != 0) {
      std::vector<double> v;
      for (const BenchRequestRow& r : rows) {
        const double x = row_value(r, t.metric);
        if (x >= 0)
          v.push_back(x);
      }
      out.push_back(percentile_verdict(std::move(v), t));
    } else {
      per_request += (per_request.empty() ? "" : ", ") + t.text;
    }
  }
  if (!per_request.empty()) {
    for (const BenchRequestRow& r : rows) {
      bool ok = r.error.empty();
      for (const SloThreshold& t : slo) {
        if (t.percentile != 0)
          continue;
        const double x = row_value(r, t.metric);
        if ((t.metric != "tpot" && x < 0) || x > t.limit_ms)
          ok = false;
      }
      met += ok ? 1 : 0;
    }
    const double n = static_cast<double>(rows.size());
    ObjectiveVerdict a;
    a.objective = fmt::format("attainment of {} ≥ {:g}%", per_request, min_attainment * 100);
    a.limit = min_attainment;
    a.estimate = n > 0 ? met / n : 0;
    std::tie(a.low, a.high) = wilson(met, n);
    a.met = a.estimate >= min_attainment;
    a.settled = a.low >= min_attainment || a.high < min_attainment;
    out.push_back(std::move(a));
  }
  return out;
}

Result<LoadSearchResult> find_max_load(const BenchOptions& base, const PointPlan& point,
                                       const LoadSearchOptions& o,
                                       const std::function<void(const std::string&)>& progress) {
  if (base.slo.empty())
    return fail("bench --find-max: give the objectives with --slo, e.g. ttft_p99:500ms");
  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  LoadSearchResult r;
  // One load, repeated while its verdict is unsettled (requests pooled).
  auto measure = [&](double load) -> Result<SearchedLoad> {
    SearchedLoad s;
    s.load = load;
    std::vector<BenchRequestRow> rows;
    while (s.runs < o.max_repeats) {
      BenchOptions b = base;
      b.details = true;
      PointPlan p = point;
      p.closed_loop = !o.by_rate;
      if (o.by_rate)
        p.rate = load;
      else
        p.concurrency = static_cast<int>(load);
      p.seed = point.seed + static_cast<std::uint64_t>(s.runs);  // fresh prompts per run
      b.points = {p};
      auto report = run_bench(b);
      if (!report)
        return report.error();
      BenchPoint& bp = report->points.front();
      rows.insert(rows.end(), bp.requests.begin(), bp.requests.end());
      bp.requests.clear();
      s.last = std::move(bp);
      ++s.runs;
      s.verdicts = judge_objectives(rows, base.slo, o.min_attainment);
      s.settled = std::all_of(s.verdicts.begin(), s.verdicts.end(),
                              [](const ObjectiveVerdict& v) { return v.settled; }) ||
                  std::any_of(s.verdicts.begin(), s.verdicts.end(),
                              [](const ObjectiveVerdict& v) { return v.settled && !v.met; });
      if (s.settled || elapsed() > o.budget_s)
        break;
    }
    s.requests = rows.size();
    s.meets = std::all_of(s.verdicts.begin(), s.verdicts.end(),
                          [](const ObjectiveVerdict& v) { return v.met; });
    if (progress) {
      progress(fmt::format("{}: {}{} ({} run{}, {} requests)", load_text(load, o.by_rate),
                           s.meets ? "meets" : "misses", s.settled ? "" : ", unsettled", s.runs,
                           s.runs == 1 ? "" : "s", s.requests));
    }
    return s;
  };
  auto step = [&](double load) -> Result<bool> {
    auto s = measure(load);
    if (!s)
      return s.error();
    const bool meets = s->meets;
    r.loads.push_back(std::move(*s));
    return meets;
  };
  const double min_load = o.by_rate ? o.start / 1024 : 1;
  const auto normalize = [&](double x) { return o.by_rate ? x : std::max(1.0, std::round(x)); };
  double pass = 0, miss = 0;
  // Bracket: double from the start until a load misses; halve when the start already misses.
  double load = normalize(o.start);
  while (elapsed() < o.budget_s) {
    auto met = step(load);
    if (!met)
      return met.error();
    if (*met) {
      pass = load;
      if (miss > 0 || load >= o.max_load)
        break;
      load = normalize(std::min(o.max_load, load * 2));
    } else {
      miss = load;
      if (pass > 0 || load <= min_load)
        break;
      load = normalize(load / 2);
      if (load == miss)
        break;
    }
  }
  // Bisect between the highest load that met and the lowest that did not.
  const auto narrow_enough = [&] {
    return o.by_rate ? (miss - pass) / pass <= o.precision : miss - pass <= 1;
  };
  while (pass > 0 && miss > 0 && !narrow_enough() && elapsed() < o.budget_s) {
    const double mid = normalize((pass + miss) / 2);
    if (mid <= pass || mid >= miss)
      break;
    auto met = step(mid);
    if (!met)
      return met.error();
    (*met ? pass : miss) = mid;
  }
  r.budget_exhausted = elapsed() >= o.budget_s;
  r.elapsed_s = elapsed();
  if (pass > 0)
    r.found = pass;
  if (miss > 0) {
    r.first_miss = miss;
    for (const SearchedLoad& s : r.loads) {
      if (s.load == miss)
        r.binding = binding_at(s);
    }
  }
  return r;
}

std::string render_search_text(const LoadSearchResult& r, const LoadSearchOptions& o) {
  std::string out = fmt::format("find-max {}: {} loads measured in {:.1f} s{}\n",
                                o.by_rate ? "rate" : "concurrency", r.loads.size(), r.elapsed_s,
                                r.budget_exhausted ? " (budget exhausted)" : "");
  for (const SearchedLoad& s : r.loads) {
    out += fmt::format("  {:<18} {:<7} {:>2} run{} {:>6} requests", load_text(s.load, o.by_rate),
                       s.meets ? "meets" : "misses", s.runs, s.runs == 1 ? " " : "s", s.requests);
    for (const ObjectiveVerdict& v : s.verdicts) {
      const bool share = v.objective.rfind("attainment", 0) == 0;
      const auto num = [&](double x) {
        return std::isinf(x) ? std::string("∞")
               : share       ? fmt::format("{:.1f}%", x * 100)
                             : fmt::format("{:.1f}", x);
      };
      out += fmt::format(" · {} {} (95% {}–{}{})", v.objective, num(v.estimate), num(v.low),
                         num(v.high), v.settled ? "" : ", unsettled");
    }
    out += "\n";
  }
  if (r.found && !r.first_miss && *r.found >= o.max_load) {
    out += fmt::format(
        "\nEvery load up to the search's ceiling meets the objectives: {}{}.\n",
        load_text(*r.found, o.by_rate),
        o.by_rate ? "" : " (a point sends no more requests than that; raise --requests to go on)");
  } else if (r.found) {
    out += fmt::format("\nThe highest load that meets the objectives: {}",
                       load_text(*r.found, o.by_rate));
    if (r.first_miss)
      out += fmt::format(" (the answer lies in [{:g}, {:g}))", *r.found, *r.first_miss);
    out += ".\n";
  } else {
    out += "\nNo load tried meets the objectives.\n";
  }
  if (!r.binding.empty())
    out += fmt::format("What binds at {}: {}.\n", load_text(*r.first_miss, o.by_rate), r.binding);
  out +=
      "Verdicts: order-statistic 95% intervals on percentiles, Wilson 95% on attainment; an "
      "unsettled load was repeated up to " +
      std::to_string(o.max_repeats) + " times, then decided on its estimate.\n";
  return out;
}

nlohmann::json search_json(const LoadSearchResult& r, const LoadSearchOptions& o) {
  auto num = [](double x) { return std::isinf(x) ? nlohmann::json(nullptr) : nlohmann::json(x); };
  nlohmann::json loads = nlohmann::json::array();
  for (const SearchedLoad& s : r.loads) {
    nlohmann::json verdicts = nlohmann::json::array();
    for (const ObjectiveVerdict& v : s.verdicts) {
      verdicts.push_back({{"objective", v.objective},
                          {"estimate", num(v.estimate)},
                          {"ci_low", num(v.low)},
                          {"ci_high", num(v.high)},
                          {"limit", v.limit},
                          {"met", v.met},
                          {"settled", v.settled}});
    }
    loads.push_back({{"load", s.load},
                     {"runs", s.runs},
                     {"requests", s.requests},
                     {"meets", s.meets},
                     {"settled", s.settled},
                     {"verdicts", verdicts},
                     {"requests_per_s", s.last.requests_per_s},
                     {"server_max_running", s.last.server.max_running},
                     {"server_max_queued", s.last.server.max_queued}});
  }
  return {{"find_max", o.by_rate ? "rate" : "concurrency"},
          {"found", r.found ? nlohmann::json(*r.found) : nlohmann::json(nullptr)},
          {"first_miss", r.first_miss ? nlohmann::json(*r.first_miss) : nlohmann::json(nullptr)},
          {"binding", r.binding},
          {"budget_exhausted", r.budget_exhausted},
          {"elapsed_s", r.elapsed_s},
          {"loads", loads}};
}

}  // namespace servescope
