// How a fit target reads in the output: "64 requests of 32768 tokens resident at once".
#include <fmt/format.h>

#include "diagnose/fit.h"

namespace servescope {

std::string FitTarget::describe() const {
  std::vector<std::string> parts;
  if (concurrency && longest_context) {
    parts.push_back(
        fmt::format("the longest context at which {} requests are resident at once", *concurrency));
  } else if (concurrency && context) {
    parts.push_back(
        fmt::format("{} requests of {} tokens resident at once", *concurrency, *context));
  } else if (concurrency) {
    parts.push_back(fmt::format("{} requests of the full context resident at once", *concurrency));
  } else if (longest_context) {
    parts.push_back("the longest context that starts");
  } else if (context) {
    parts.push_back(fmt::format("a context of {} tokens", *context));
  }
  if (kv_tokens)
    parts.push_back(fmt::format("{} tokens of KV cache", *kv_tokens));
  if (max_running_requests)
    parts.push_back(fmt::format("a running-request limit of {}", *max_running_requests));
  if (parts.empty() && starts_only)
    parts.push_back("the engine starts");
  std::string out;
  for (const std::string& p : parts)
    out += (out.empty() ? "" : ", ") + p;
  return out;
}

}  // namespace servescope
