#include "lab/metric.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/text.h"

namespace servescope {

const std::vector<std::string>& bench_figure_names() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> out = {"output_throughput", "request_throughput", "input_throughput"};
    for (const char* latency : {"ttft", "itl", "tpot", "e2e", "queue"}) {
      for (const char* stat : {"mean", "p50", "p90", "p95", "p99", "p999", "max"})
        out.push_back(fmt::format("{}_{}", latency, stat));
    }
    return out;
  }();
  return kNames;
}

Result<MetricSpec> parse_metric(std::string_view name,
                                const std::vector<std::string>& capacity_outputs) {
  MetricSpec m;
  m.name = std::string(trim(name));
  if (m.name.empty())
    return fail(
        "--metric: give a metric: startup, a capacity output such as max_running_requests, "
        "or a bench figure such as output_throughput@c=64");
  if (m.name == "startup") {
    m.kind = MetricSpec::Kind::kStartup;
    return m;
  }
  const auto at = m.name.find('@');
  if (at != std::string::npos) {
    m.kind = MetricSpec::Kind::kBench;
    m.figure = m.name.substr(0, at);
    m.load = m.name.substr(at + 1);
    const auto& names = bench_figure_names();
    if (std::find(names.begin(), names.end(), m.figure) == names.end()) {
      const auto near = closest(m.figure, names, 1);
      return fail(fmt::format("--metric {}: no bench figure '{}'{}; bench figures: {}", m.name,
                              m.figure, near.empty() ? "" : " (did you mean " + near[0] + "?)",
                              fmt::join(names, ", ")));
    }
    const auto eq = m.load.find('=');
    const std::string key = m.load.substr(0, eq);
    const auto value = eq == std::string::npos ? std::nullopt : parse_double(m.load.substr(eq + 1));
    if ((key != "c" && key != "rate") || !value || !(*value > 0))
      return fail(fmt::format(
          "--metric {}: the load point '{}' must be c=N (concurrency) or rate=R (requests/s)",
          m.name, m.load));
    m.higher_is_better = contains(m.figure, "throughput");
    return m;
  }
  if (std::find(capacity_outputs.begin(), capacity_outputs.end(), m.name) !=
      capacity_outputs.end()) {
    m.kind = MetricSpec::Kind::kCapacity;
    m.figure = m.name;
    return m;
  }
  if (capacity_outputs.empty())
    return fail(fmt::format(
        "--metric {}: not startup or a bench figure, and the template launches no modelled "
        "engine whose log states capacity figures",
        m.name));
  std::vector<std::string> all = capacity_outputs;
  all.insert(all.begin(), "startup");
  const auto near = closest(m.name, all, 1);
  return fail(
      fmt::format("--metric {}: no such metric{}; use startup, {}, or a bench figure such "
                  "as output_throughput@c=64",
                  m.name, near.empty() ? "" : " (did you mean " + near[0] + "?)",
                  fmt::join(capacity_outputs, ", ")));
}

}  // namespace servescope
