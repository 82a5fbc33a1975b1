#include "lab/load_bench_probe.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "core/duration.h"
#include "core/text.h"
#include "load/bench_session.h"
#include "report/bench_export.h"

namespace servescope {
namespace {

constexpr const char* kKnown =
    "--requests, --duration, --warmup, --input-len, --output-len, --dataset, --api, --model, "
    "--seed, --timeout, --no-stream, --server-view";

const LatencySummary* latency_of(const BenchPoint& p, std::string_view name) {
  if (name == "ttft")
    return &p.ttft_ms;
  if (name == "itl")
    return &p.itl_ms;
  if (name == "tpot")
    return &p.tpot_ms;
  if (name == "e2e")
    return &p.e2e_ms;
  if (name == "queue")
    return &p.queue_ms;
  return nullptr;
}

std::optional<double> stat_of(const LatencySummary& s, std::string_view stat) {
  if (s.count == 0)
    return std::nullopt;
  if (stat == "mean")
    return s.mean;
  if (stat == "p50")
    return s.p50;
  if (stat == "p90")
    return s.p90;
  if (stat == "p95")
    return s.p95;
  if (stat == "p99")
    return s.p99;
  if (stat == "p999")
    return s.p999;
  if (stat == "max")
    return s.max;
  return std::nullopt;
}

// The figure a metric names, read from one bench point.
Result<double> figure_of(const BenchPoint& p, const std::string& figure) {
  if (figure == "output_throughput")
    return p.output_tokens_per_s;
  if (figure == "request_throughput")
    return p.requests_per_s;
  if (figure == "input_throughput")
    return p.input_tokens_per_s;
  const auto underscore = figure.rfind('_');
  const LatencySummary* s =
      underscore == std::string::npos ? nullptr : latency_of(p, figure.substr(0, underscore));
  if (s == nullptr)
    return fail(fmt::format("no bench figure '{}'", figure));
  auto v = stat_of(*s, figure.substr(underscore + 1));
  if (!v)
    return fail(fmt::format("the run has no {} samples", figure.substr(0, underscore)));
  return *v;
}

}  // namespace

Result<LoadProbeOptions> parse_load_probe_options(std::string_view text) {
  LoadProbeOptions o;
  auto words = split_command_line(text);
  if (!words)
    return fail(fmt::format("--bench '{}': unbalanced quotes", text));
  const std::vector<std::string>& w = *words;
  for (std::size_t i = 0; i < w.size(); ++i) {
    std::string name = w[i], value;
    bool has_value = false;
    if (const auto eq = name.find('='); eq != std::string::npos && name.rfind("--", 0) == 0) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    if (name == "--no-stream" || name == "--server-view") {
      if (has_value)
        return fail(fmt::format("--bench: {} takes no value", name));
      (name == "--no-stream" ? o.stream : o.server_view) = name != "--no-stream";
      continue;
    }
    static const std::vector<std::string> kValued = {
        "--requests", "--duration", "--warmup", "--input-len", "--output-len",
        "--dataset",  "--api",      "--model",  "--seed",      "--timeout"};
    if (std::find(kValued.begin(), kValued.end(), name) == kValued.end())
      return fail(fmt::format("--bench: unknown option '{}'; use {}", w[i], kKnown));
    if (!has_value) {
      if (i + 1 >= w.size())
        return fail(fmt::format("--bench: {} needs a value", name));
      value = w[++i];
    }
    auto whole = [&](std::int64_t& out) -> Status {
      const auto v = parse_int(value);
      if (!v || *v < 0)
        return fail(fmt::format("--bench: {} {}: give a whole number ≥ 0", name, value));
      out = *v;
      return ok_status();
    };
    auto seconds = [&](double& out) -> Status {
      const auto v = parse_duration_seconds(value);
      if (!v || !(*v > 0))
        return fail(
            fmt::format("--bench: {} {}: give a positive duration such as 30s", name, value));
      out = *v;
      return ok_status();
    };
    Status st = ok_status();
    if (name == "--requests") {
      st = whole(o.requests);
    } else if (name == "--warmup") {
      st = whole(o.warmup);
    } else if (name == "--seed") {
      std::int64_t s = 0;
      st = whole(s);
      o.seed = static_cast<std::uint64_t>(s);
    } else if (name == "--duration") {
      st = seconds(o.duration_s);
    } else if (name == "--timeout") {
      st = seconds(o.timeout_s);
    } else if (name == "--input-len") {
      o.input_len = value;
    } else if (name == "--output-len") {
      o.output_len = value;
      o.output_len_given = true;
    } else if (name == "--dataset") {
      o.dataset = value;
    } else if (name == "--model") {
      o.model = value;
    } else if (name == "--api") {
      if (auto api = resolve_api(value); !api)
        return fail("--bench: " + api.message());
      o.api = value;
    }
    if (!st)
      return fail(st.message());
  }
  if (o.requests > 0 && o.duration_s > 0)
    return fail("--bench: give --requests or --duration, not both");
  return o;
}

std::int64_t default_probe_requests(const MetricSpec& metric) {
  const auto eq = metric.load.find('=');
  const double v =
      eq == std::string::npos ? 1 : parse_double(metric.load.substr(eq + 1)).value_or(1);
  if (metric.load.rfind("c=", 0) == 0)
    return std::max<std::int64_t>(16, static_cast<std::int64_t>(std::ceil(v)) * 4);
  return std::max<std::int64_t>(16, static_cast<std::int64_t>(std::ceil(v * 10)));
}

Result<double> LoadBenchProbe::measure(const std::string& base_url, const MetricSpec& metric,
                                       const std::string& json_path) {
  BenchOptions b;
  auto url = parse_server_url(base_url);
  if (!url)
    return fail(url.message());
  b.url = *url;
  auto api = resolve_api(options_.api);
  if (!api)
    return fail(api.message());
  b.api = *api;
  b.model = options_.model;
  b.stream = options_.stream;
  b.watch_server = options_.server_view;
  b.generator = "servescope bisect";
  PointPlan p;
  const auto eq = metric.load.find('=');
  const double load = parse_double(metric.load.substr(eq + 1)).value_or(0);
  if (metric.load.rfind("c=", 0) == 0) {
    p.closed_loop = true;
    p.concurrency = static_cast<int>(load);
  } else {
    p.closed_loop = false;
    p.rate = load;
  }
  if (!(load > 0))
    return fail(fmt::format("--metric {}: no load point", metric.name));
  p.requests = options_.duration_s > 0 ? 0
               : options_.requests > 0 ? options_.requests
                                       : default_probe_requests(metric);
  p.duration_s = options_.duration_s;
  p.warmup = options_.warmup;
  p.timeout_s = options_.timeout_s;
  p.seed = options_.seed;
  b.points.push_back(p);
  b.dataset.source = options_.dataset;
  b.dataset.input_len = options_.input_len;
  b.dataset.output_len = options_.output_len;
  b.dataset.output_len_given = options_.output_len_given;
  b.dataset.seed = options_.seed;
  auto report = run_bench(b);
  if (!report)
    return fail(report.message());
  std::ofstream(json_path, std::ios::binary) << bench_json(*report, false).dump(2) << "\n";
  const BenchPoint& point = report->points.front();
  if (point.requests_completed == 0)
    return fail(fmt::format("no request completed ({} failed)", point.requests_failed));
  return figure_of(point, metric.figure);
}

}  // namespace servescope
