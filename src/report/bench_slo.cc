#include "report/bench_slo.h"

#include <fmt/format.h>

namespace servescope {

std::string slo_sentence(const SloResult& slo, const std::vector<SloThreshold>& objectives) {
  std::string per_request;
  for (const SloThreshold& t : objectives) {
    if (t.percentile == 0)
      per_request += (per_request.empty() ? "" : ", ") + t.text;
  }
  std::string out;
  if (!per_request.empty()) {
    out = fmt::format(
        "{}: {} of {} requests met every objective ({:.1f}%) · goodput {:.2f} "
        "req/s, {:.1f} out tok/s",
        per_request, slo.met, slo.requests, slo.attainment * 100, slo.goodput_rps,
        slo.goodput_tokens_per_s);
  }
  for (const SloPercentile& p : slo.percentiles) {
    out += fmt::format("{}{} {} {}", out.empty() ? "" : " · ", p.threshold.text,
                       p.measured ? fmt::format("{:.1f} ms", p.value_ms) : "(no samples)",
                       p.met ? "met" : "MISSED");
  }
  return out;
}

}  // namespace servescope
