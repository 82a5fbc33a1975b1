#include "load/bench_verdict.h"

#include <fmt/format.h>

namespace servescope {
namespace {

std::string label(const BenchPoint& p) {
  if (p.closed_loop)
    return fmt::format("concurrency {}", p.concurrency);
  return fmt::format("rate {:g}/s", p.rate);
}

// "4 connect", "1 timeout, 2 HTTP status" — the kinds that occurred.
std::string kinds(const BenchErrors& e) {
  std::string out;
  for (const auto& [kind, n] : e.by_kind) {
    if (n > 0)
      out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, kind);
  }
  return out;
}

std::optional<std::string> point_failure(const BenchPoint& p, double max_error_rate) {
  if (p.requests_sent > 0 && p.requests_completed == 0) {
    return fmt::format("{}: none of {} requests completed ({})", label(p), p.requests_sent,
                       kinds(p.errors));
  }
  const double share = p.requests_sent > 0 ? static_cast<double>(p.requests_failed) /
                                                 static_cast<double>(p.requests_sent)
                                           : 0;
  if (share > max_error_rate) {
    return fmt::format("{}: {} of {} requests failed ({:.1f}%: {}), above --max-error-rate {:g}%",
                       label(p), p.requests_failed, p.requests_sent, share * 100, kinds(p.errors),
                       max_error_rate * 100);
  }
  if (!p.cross_check.empty() && !p.cross_check_agrees)
    return fmt::format("{}: the server's view contradicts the expectation: {}", label(p),
                       p.cross_check);
  if (p.slo && !p.slo->percentiles_met) {
    for (const SloPercentile& s : p.slo->percentiles) {
      if (!s.met) {
        return s.measured ? fmt::format("{}: missed the objective {} ({:.1f} ms)", label(p),
                                        s.threshold.text, s.value_ms)
                          : fmt::format(
                                "{}: cannot judge the objective {}: no request had a "
                                "{} to measure",
                                label(p), s.threshold.text, s.threshold.metric);
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> bench_failure(const BenchReport& report, double max_error_rate) {
  std::optional<std::string> first;
  std::size_t failed = 0;
  for (const BenchPoint& p : report.points) {
    if (auto why = point_failure(p, max_error_rate)) {
      ++failed;
      if (!first)
        first = std::move(why);
    }
  }
  if (!first)
    return std::nullopt;
  if (failed == 1)
    return fmt::format("bench failed at {}", *first);
  return fmt::format("bench failed at {} of {} points; the first, {}", failed, report.points.size(),
                     *first);
}

}  // namespace servescope
