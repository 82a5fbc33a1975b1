#include "catalog/hub_client.h"

#include <fmt/format.h>

#include <cstdlib>

#include "catalog/http_get.h"
#include "core/env.h"
#include "core/text.h"

namespace servescope {
namespace {}  // namespace

HubSettings HubSettings::from_environment() {
  HubSettings s;
  if (std::string e = env_or("HF_ENDPOINT"); !e.empty()) {
    while (!e.empty() && e.back() == '/')
      e.pop_back();
    s.endpoint = e;
  }
  s.token = env_or("HF_TOKEN");
  if (s.token.empty())
    s.token = env_or("HUGGING_FACE_HUB_TOKEN");
  const std::string offline = to_lower(env_or("HF_HUB_OFFLINE"));
  s.offline = offline == "1" || offline == "true" || offline == "yes" || offline == "on";
  if (const std::string t = env_or("HF_HUB_DOWNLOAD_TIMEOUT"); !t.empty()) {
    char* end = nullptr;
    const long v = std::strtol(t.c_str(), &end, 10);
    if (end != nullptr && *end == '\0' && v > 0)
      s.timeout_seconds = v;
  }
  return s;
}

HubResult fetch_hub_file(const HubSettings& hub, std::string_view id, std::string_view revision,
                         std::string_view filename) {
  HubResult out;
  if (hub.offline) {
    out.file =
        fail(fmt::format("model '{}': not in the Hugging Face cache and HF_HUB_OFFLINE is "
                         "set; download it, or pass --model PATH/config.json",
                         id));
    out.miss = HubMiss::kOther;
    return out;
  }
  const std::string rev = revision.empty() ? std::string("main") : std::string(revision);
  const std::string url = fmt::format("{}/{}/resolve/{}/{}", hub.endpoint, id, rev, filename);
  HttpGetOptions options;
  options.timeout_s = static_cast<double>(hub.timeout_seconds);
  options.user_agent = "servescope (config.json only)";
  if (!hub.token.empty())
    options.headers.emplace_back("Authorization", "Bearer " + hub.token);
  HttpGetResult got = http_get(url, options);
  out.miss = HubMiss::kOther;
  if (got.error && got.error->timed_out) {
    out.file =
        fail(fmt::format("model '{}': the Hugging Face Hub ({}) did not answer within {} s "
                         "(HF_HUB_DOWNLOAD_TIMEOUT); "
                         "retry, set HF_HUB_OFFLINE=1, or pass --model PATH/config.json",
                         id, hub.endpoint, hub.timeout_seconds));
    return out;
  }
  if (got.error) {
    out.file =
        fail(fmt::format("model '{}': downloading {} failed: {}; pass --model "
                         "PATH/config.json or set HF_ENDPOINT",
                         id, url, got.error->message));
    return out;
  }
  const int status = got.response.status;
  if (status == 401 || status == 403) {
    out.file = fail(fmt::format(
        "model '{}' is gated or private on the Hugging Face Hub (HTTP {}): set HF_TOKEN to a token "
        "that has access{}",
        id, status, hub.token.empty() ? "" : " (the HF_TOKEN given was refused)"));
    return out;
  }
  if (status == 404) {
    out.miss = HubMiss::kNotFound;
    out.file = fail(fmt::format("model '{}' has no {} at revision {} on the Hugging Face Hub ({})",
                                id, filename, rev, hub.endpoint));
    return out;
  }
  if (status != 200) {
    out.file = fail(
        fmt::format("model '{}': the Hugging Face Hub answered HTTP {} for {}", id, status, url));
    return out;
  }
  const auto header = [&](const char* name) {
    const auto it = got.response.headers.find(name);
    return it == got.response.headers.end() ? std::string() : it->second;
  };
  HubFile f;
  f.content = std::move(got.response.body);
  f.commit = header("x-repo-commit").empty() ? rev : header("x-repo-commit");
  f.etag = !header("x-linked-etag").empty() ? header("x-linked-etag") : header("etag");
  out.miss = HubMiss::kNone;
  out.file = std::move(f);
  return out;
}

}  // namespace servescope
