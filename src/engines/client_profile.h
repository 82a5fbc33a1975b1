// ClientProfile: how a load generator talks to an engine's server and reads the server's own
// view of its load — the Prometheus gauges of running and waiting requests, the queue-time
// histogram, a JSON status endpoint with per-worker loads, and the engine's native generation
// API. Engine packs fill it in; src/load asks for it and never names an engine.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace servescope {

/// Prometheus names on the engine's metrics path. Series of one name are summed over their
/// label sets (one per data-parallel worker).
struct MetricNames {
  std::string path = "/metrics";
  std::string running;             // gauge: requests the scheduler runs now
  std::string queued;              // gauge: requests waiting to be scheduled
  std::string queue_time_seconds;  // histogram base name: time a request waited ("" if none)
  // Counters of prompt tokens looked up in the prefix cache and of those it held ("" if the
  // engine exports none).
  std::string prefix_cache_queries;
  std::string prefix_cache_hits;
};

/// A JSON endpoint reporting per-worker load: `list_key` holds an array of objects.
struct LoadsEndpoint {
  std::string path;  // "" when the engine has none
  std::string list_key;
  std::string running_key;
  std::string queued_key;
  std::string max_running_key;  // the worker's enforced running limit ("" if not reported)
};

/// The engine's own (non-OpenAI) generation API, as a client uses it.
struct NativeApi {
  std::string name;  // as `bench --api` takes it
  std::string path;
  std::string text_key;          // the output text
  bool text_cumulative = false;  // each stream event repeats all output so far
  std::string meta_key;          // object holding the token counts ("" for top level)
  std::string prompt_tokens_key;
  std::string completion_tokens_key;  // cumulative in stream events
  /// The request body: `prompt` as text (already a JSON-escaped string, quotes included).
  std::string (*body)(std::string_view quoted_prompt, std::int64_t max_tokens, bool stream,
                      bool ignore_eos) = nullptr;
};

struct ClientProfile {
  std::string engine;
  MetricNames metrics;
  LoadsEndpoint loads;
  NativeApi native;  // name "" when the engine has none
};

}  // namespace servescope
