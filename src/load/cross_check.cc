#include "load/cross_check.h"

#include <fmt/format.h>

#include <cmath>

namespace servescope {
namespace {

std::string number(double v) {
  return std::abs(v - std::round(v)) < 1e-9 ? fmt::format("{:.0f}", v) : fmt::format("{:.1f}", v);
}

std::string load_words(const BenchPoint& p) {
  if (p.closed_loop)
    return fmt::format("at concurrency {}", p.concurrency);
  if (p.concurrency > 0)
    return fmt::format("at {} requests/s (at most {} in flight)", number(p.rate), p.concurrency);
  return fmt::format("at {} requests/s", number(p.rate));
}

}  // namespace

void cross_check_point(BenchPoint& p, const BenchExpectation& e) {
  const double want = e.max_running_requests;
  std::string s =
      fmt::format("{} says max_running_requests={}; {} ", e.source, number(want), load_words(p));
  const ServerView& v = p.server;
  if (!v.available || v.samples.empty()) {
    s += fmt::format("at most {} were in flight; the server's own view was not available ({})",
                     p.in_flight_max, v.why_unavailable.empty() ? "no scrape" : v.why_unavailable);
    p.cross_check = s;
    p.cross_check_agrees = true;
    return;
  }
  if (v.max_running <= 0 && v.max_queued <= 0 && p.requests_completed > 0) {
    // Every sample fell outside the requests' lifetimes: too few samples to say anything.
    s += fmt::format(
        "{} requests completed but none of the server's {} samples saw one running: the run "
        "({:.2f} s) was too short for the scrape interval, so the limit was not tested",
        p.requests_completed, v.samples.size(), p.duration_s);
    p.cross_check = s;
    p.cross_check_agrees = true;
    return;
  }
  s += fmt::format("the server ran at most {}", number(v.max_running));
  if (v.max_queued > 0)
    s += fmt::format(", {} waited", number(v.max_queued));
  else
    s += ", none waited";
  if (v.queue_median_ms)
    s += fmt::format(", median queue {:.1f} s", *v.queue_median_ms / 1000.0);
  if (v.max_running > want + 1e-9) {
    s += fmt::format(
        " — more than {} allows: the server is not running the configuration it "
        "was expected to",
        number(want));
    p.cross_check_agrees = false;
  } else if (v.effective_running_limit) {
    if (std::abs(*v.effective_running_limit - want) < 1e-9) {
      s += " — the limit holds";
      p.cross_check_agrees = true;
    } else {
      s += fmt::format(
          " — requests waited while it ran {}: the server enforced a lower "
          "limit than {} (another bound, such as KV tokens, or a different "
          "configuration)",
          number(*v.effective_running_limit), number(want));
      p.cross_check_agrees = false;
    }
  } else {
    s += " — the load never reached the limit, so it was not tested";
    p.cross_check_agrees = true;
  }
  p.cross_check = s;
}

}  // namespace servescope
