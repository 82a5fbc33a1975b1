// The real BenchProbe: one `bench` load point (servescope's load generator, src/load) against
// the ready server per measurement. The metric names the load point ("c=64": 64 clients in a
// closed loop; "rate=4": Poisson arrivals at 4 requests/s) and the figure read from it;
// `--bench 'OPTIONS'` sets the rest with bench's own option names.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lab/bench_probe.h"

namespace servescope {

struct LoadProbeOptions {
  std::int64_t requests = 0;  // per measurement; 0: the default for the load point
  double duration_s = 0;      // instead of a count
  std::int64_t warmup = 0;
  std::string input_len = "1024";
  std::string output_len = "256";
  bool output_len_given = false;
  std::string dataset = "random";
  std::string api = "openai-completions";
  std::string model;  // "" asks the server
  std::uint64_t seed = 1;
  double timeout_s = 300;
  bool stream = true;
  bool server_view = false;  // scrape the server's metrics during the run
};

/// Parses the `--bench` text: --requests N, --duration D, --warmup N, --input-len SPEC,
/// --output-len SPEC, --dataset SRC, --api NAME, --model NAME, --seed S, --timeout D,
/// --no-stream, --server-view. Fails with one line naming the option and the fix.
Result<LoadProbeOptions> parse_load_probe_options(std::string_view text);

/// Requests per measurement when --bench gives neither --requests nor --duration: enough for
/// every client to finish a few (closed loop) or a few seconds of arrivals (open loop).
std::int64_t default_probe_requests(const MetricSpec& metric);

class LoadBenchProbe final : public BenchProbe {
 public:
  explicit LoadBenchProbe(LoadProbeOptions options) : options_(std::move(options)) {}
  Result<double> measure(const std::string& base_url, const MetricSpec& metric,
                         const std::string& json_path) override;

 private:
  LoadProbeOptions options_;
};

}  // namespace servescope
