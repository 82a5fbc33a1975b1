#include "report/bench_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/bench_slo.h"
#include "report/format.h"

namespace servescope {
namespace {

std::string label(const BenchPoint& p) {
  if (p.closed_loop)
    return fmt::format("{}", p.concurrency);
  return p.concurrency > 0 ? fmt::format("{:g}/s ≤{}", p.rate, p.concurrency)
                           : fmt::format("{:g}/s", p.rate);
}

std::string ms3(const LatencySummary& s) {
  if (s.count == 0)
    return "–";
  const int digits = s.p99 < 10 ? 2 : 1;
  return fmt::format("{:.{}f}/{:.{}f}/{:.{}f}", s.p50, digits, s.p90, digits, s.p99, digits);
}

std::string s2(const LatencySummary& s) {
  if (s.count == 0)
    return "–";
  return fmt::format("{:.2f}/{:.2f}", s.p50 / 1e3, s.p99 / 1e3);
}

std::string errors_line(const BenchPoint& p) {
  std::string out;
  for (const auto& [kind, n] : p.errors.by_kind) {
    if (n == 0)
      continue;
    if (!out.empty())
      out += ", ";
    out += fmt::format("{} {}", n, kind);
    if (kind == "http_status" && !p.errors.by_status.empty()) {
      std::string codes;
      for (const auto& [code, k] : p.errors.by_status)
        codes += fmt::format("{}{} ×{}", codes.empty() ? "" : ", ", code, k);
      out += " (" + codes + ")";
    }
  }
  return out;
}

// hyperfine's way: mean ± standard deviation, then the range, of each run's throughput.
std::string runs_line(const std::vector<RunFigures>& runs) {
  auto spread = [&](double RunFigures::*field, int digits, const char* unit) {
    double sum = 0, lo = 1e300, hi = -1e300;
    for (const RunFigures& r : runs) {
      sum += r.*field;
      lo = std::min(lo, r.*field);
      hi = std::max(hi, r.*field);
    }
    const double mean = sum / static_cast<double>(runs.size());
    double ss = 0;
    for (const RunFigures& r : runs)
      ss += (r.*field - mean) * (r.*field - mean);
    const double sd = std::sqrt(ss / static_cast<double>(runs.size() - 1));
    return fmt::format("{:.{}f} ± {:.{}f} {} (range {:.{}f} … {:.{}f})", mean, digits, sd, digits,
                       unit, lo, digits, hi, digits);
  };
  return fmt::format("{} runs · {} · {} · latency over every run's requests", runs.size(),
                     spread(&RunFigures::requests_per_s, 2, "req/s"),
                     spread(&RunFigures::output_tokens_per_s, 1, "out tok/s"));
}

}  // namespace

std::string render_bench_text(const BenchReport& r) {
  std::string out = fmt::format("servescope bench · {} · {}{} · {}\n", r.url, r.api,
                                r.model.empty() ? "" : " · model " + r.model,
                                r.stream ? "streaming" : "not streaming");
  std::string bound = r.requests > 0
                          ? fmt::format("{} requests per point", with_thousands(r.requests))
                          : fmt::format("{:g} s per point", r.duration_s);
  if (r.runs_per_point > 1)
    bound += fmt::format(" × {} runs", r.runs_per_point);
  out += fmt::format("  workload  {} · {} · timeout {:g} s · seed {}\n\n", r.dataset, bound,
                     r.timeout_s, r.seed);
  const bool closed = !r.points.empty() && r.points.front().closed_loop;
  std::vector<std::vector<std::string>> rows = {
      {closed ? "concurrency" : "rate", "req/s", "out tok/s", "TTFT ms p50/90/99",
       "ITL ms p50/90/99", "TPOT ms p50/90/99", "E2E s p50/99", "from intended s p50/99",
       "in flight max", "server ran max", "errors"}};
  for (const BenchPoint& p : r.points) {
    rows.push_back({label(p), fmt::format("{:.2f}", p.requests_per_s),
                    fmt::format("{:.1f}", p.output_tokens_per_s), ms3(p.ttft_ms), ms3(p.itl_ms),
                    ms3(p.tpot_ms), s2(p.e2e_ms), s2(p.e2e_from_intended_ms),
                    fmt::format("{}", p.in_flight_max),
                    p.server.available && !p.server.samples.empty()
                        ? fmt::format("{:g}", p.server.max_running)
                        : "–",
                    fmt::format("{}", p.errors.total())});
  }
  out += render_columns(rows);

  for (const BenchPoint& p : r.points) {
    out += fmt::format("\n  {} · {} sent, {} completed, {} failed in {:.2f} s · {:.0f} events/s\n",
                       label(p), with_thousands(static_cast<long long>(p.requests_sent)),
                       with_thousands(static_cast<long long>(p.requests_completed)),
                       with_thousands(static_cast<long long>(p.requests_failed)), p.duration_s,
                       p.sse_events_per_s);
    if (p.runs.size() > 1)
      out += "    runs      " + runs_line(p.runs) + "\n";
    const ServerView& v = p.server;
    if (v.available && !v.samples.empty()) {
      std::string s =
          fmt::format("ran at most {:g}, at most {:g} waited", v.max_running, v.max_queued);
      if (v.effective_running_limit)
        s += fmt::format(" · enforced limit {:g} (the most it ran while others waited)",
                         *v.effective_running_limit);
      else if (v.max_running <= 0 && p.requests_completed > 0)
        s += fmt::format(
            " · {} samples missed every request: the run was too short for the "
            "scrape interval (--scrape-interval)",
            // The baseline, read before the first send (t < 0), could not see one.
            std::count_if(v.samples.begin(), v.samples.end(),
                          [](const ServerSample& x) { return x.t_s >= 0; }));
      else
        s += " · nothing waited: the limit was not reached";
      if (v.stated_max_running)
        s += fmt::format(" · states max_running_requests {:g}", *v.stated_max_running);
      out += fmt::format("    server    {}\n", s);
      if (v.queueing_began_s)
        out += fmt::format("              queueing began at {:.2f} s with {} in flight\n",
                           *v.queueing_began_s, v.in_flight_when_queueing_began);
      if (v.queue_count > 0)
        out += fmt::format(
            "              server queue time: mean {:.3f} s{} over {} requests ({} histogram)\n",
            v.queue_mean_ms / 1e3,
            v.queue_median_ms ? fmt::format(", median {:.3f} s", *v.queue_median_ms / 1e3) : "",
            v.queue_count, v.sources.substr(0, v.sources.find(',')));
      if (v.prefix_cache_hit_rate)
        out += fmt::format(
            "              prefix cache: {:.1f}% of {:.0f} prompt tokens looked up "
            "were cached (the server's counters)\n",
            100.0 * *v.prefix_cache_hit_rate, v.prefix_cache_queried_tokens);
    } else {
      out += fmt::format("    server    its own view is not available: {}\n",
                         v.why_unavailable.empty() ? "no sample" : v.why_unavailable);
    }
    out += fmt::format(
        "    latency   E2E mean {:.3f} s from the send, {:.3f} s from the intended "
        "send · client queue p50 {:.1f} ms p99 {:.1f} ms · TTFT from intended p50 "
        "{:.1f} ms\n",
        p.e2e_ms.mean / 1e3, p.e2e_from_intended_ms.mean / 1e3, p.queue_ms.p50, p.queue_ms.p99,
        p.ttft_from_intended_ms.p50);
    if (!p.closed_loop)
      out += fmt::format(
          "    schedule  requested {:g}/s · scheduled {:.2f}/s · achieved {:.2f}/s · lag p50 "
          "{:.3f} ms p99 {:.3f} ms max {:.3f} ms · {} late ({:.2f}%)\n",
          p.rate, p.scheduled_rate, p.achieved_rate, p.schedule_lag_ms.p50, p.schedule_lag_ms.p99,
          p.schedule_lag_ms.max, p.late_sends, p.late_share * 100);
    else
      out += fmt::format("    schedule  lag p50 {:.3f} ms p99 {:.3f} ms · {} late ({:.2f}%)\n",
                         p.schedule_lag_ms.p50, p.schedule_lag_ms.p99, p.late_sends,
                         p.late_share * 100);
    std::string lengths = fmt::format("input {:.0f} asked", p.input_tokens_requested.mean);
    if (p.input_tokens_reported.count > 0)
      lengths += fmt::format(" → {:.0f} reported (p50 {:.0f}, {} differ by >5%)",
                             p.input_tokens_reported.mean, p.input_tokens_reported.p50,
                             p.input_mismatched);
    else
      lengths += " (the server reported no prompt tokens)";
    lengths += fmt::format(" · output {:.0f} mean", p.output_tokens.mean);
    if (p.output_short > 0)
      lengths += fmt::format(" ({} short)", p.output_short);
    out += fmt::format("    lengths   {}\n", lengths);
    if (p.itl_ms.count > 0)
      out += fmt::format("    ITL       {} · per event p50 {:.2f} ms p99 {:.2f} ms\n", p.itl_basis,
                         p.itl_per_event_ms.p50, p.itl_per_event_ms.p99);
    const std::string errors = errors_line(p);
    if (!errors.empty()) {
      out += fmt::format("    errors    {}\n", errors);
      for (const auto& [kind, example] : p.errors.example)
        out += fmt::format("              first {}: {:.160}\n", kind, example);
    }
    if (!p.cross_check.empty())
      out += fmt::format("    check     {}\n", p.cross_check);
    if (p.slo)
      out += fmt::format("    SLO       {}\n", slo_sentence(*p.slo, r.slo));
    for (const std::string& w : p.warnings)
      out += fmt::format("    warning   {}\n", w);
  }
  return out;
}

std::string render_bench_progress(int point, int points, double elapsed_s, std::uint64_t done,
                                  std::uint64_t failed, std::uint64_t total, double duration_s,
                                  int in_flight) {
  const double rate = elapsed_s > 0 ? static_cast<double>(done) / elapsed_s : 0;
  std::string eta = "–";
  if (total > 0 && rate > 0)
    eta = fmt::format("{:.0f} s", static_cast<double>(total - std::min(total, done)) / rate);
  else if (total == 0)
    eta = fmt::format("{:.0f} s", std::max(0.0, duration_s - elapsed_s));
  return fmt::format("point {}/{} · {}{} done · {:.1f} req/s · {} in flight · {} errors · ETA {}",
                     point, points, with_thousands(static_cast<long long>(done)),
                     total > 0 ? "/" + with_thousands(static_cast<long long>(total)) : "", rate,
                     in_flight, failed, eta);
}

}  // namespace servescope
