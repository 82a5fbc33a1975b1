// How a load generator reads a vLLM server: the scheduler gauges and the queue-time histogram
// of /metrics (v1/metrics/loggers.py, PrometheusStatLogger: vllm:num_requests_running,
// vllm:num_requests_waiting, vllm:request_queue_time_seconds). vLLM has no per-worker loads
// endpoint and no native generation API in this profile.
#include "engines/client_profile.h"
#include "engines/vllm/vllm_engine.h"

namespace servescope::vllm {
namespace {

ClientProfile make_profile() {
  ClientProfile p;
  p.engine = "vllm";
  p.metrics.running = "vllm:num_requests_running";
  p.metrics.queued = "vllm:num_requests_waiting";
  p.metrics.queue_time_seconds = "vllm:request_queue_time_seconds";
  p.metrics.prefix_cache_queries = "vllm:prefix_cache_queries_total";
  p.metrics.prefix_cache_hits = "vllm:prefix_cache_hits_total";
  return p;
}

}  // namespace

const ClientProfile* VllmEngine::client_profile() const {
  static const ClientProfile kProfile = make_profile();
  return &kProfile;
}

}  // namespace servescope::vllm
