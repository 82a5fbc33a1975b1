#include "catalog/hub_client.h"

#include <curl/curl.h>
#include <fmt/format.h>

#include <cstdlib>
#include <memory>

#include "core/text.h"

namespace servescope {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

size_t on_body(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

struct Headers {
  std::string commit, etag, linked_etag;
};

size_t on_header(char* data, size_t size, size_t n, void* out) {
  std::string_view line(data, size * n);
  auto* h = static_cast<Headers*>(out);
  const auto colon = line.find(':');
  if (colon != std::string_view::npos) {
    const std::string name = to_lower(line.substr(0, colon));
    const std::string value(trim(line.substr(colon + 1)));
    if (name == "x-repo-commit")
      h->commit = value;
    else if (name == "etag")
      h->etag = value;
    else if (name == "x-linked-etag")
      h->linked_etag = value;
  }
  return size * n;
}

}  // namespace

HubSettings HubSettings::from_environment() {
  HubSettings s;
  if (std::string e = env("HF_ENDPOINT"); !e.empty()) {
    while (!e.empty() && e.back() == '/')
      e.pop_back();
    s.endpoint = e;
  }
  s.token = env("HF_TOKEN");
  if (s.token.empty())
    s.token = env("HUGGING_FACE_HUB_TOKEN");
  const std::string offline = to_lower(env("HF_HUB_OFFLINE"));
  s.offline = offline == "1" || offline == "true" || offline == "yes" || offline == "on";
  if (const std::string t = env("HF_HUB_DOWNLOAD_TIMEOUT"); !t.empty()) {
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
  static const bool initialised = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  std::unique_ptr<CURL, void (*)(CURL*)> curl(initialised ? curl_easy_init() : nullptr,
                                              curl_easy_cleanup);
  if (!curl) {
    out.file = fail("cannot start libcurl to reach the Hugging Face Hub");
    out.miss = HubMiss::kOther;
    return out;
  }
  const std::string rev = revision.empty() ? std::string("main") : std::string(revision);
  const std::string url = fmt::format("{}/{}/resolve/{}/{}", hub.endpoint, id, rev, filename);
  std::string body;
  Headers headers;
  curl_slist* request_headers = nullptr;
  if (!hub.token.empty())
    request_headers =
        curl_slist_append(request_headers, ("Authorization: Bearer " + hub.token).c_str());
  std::unique_ptr<curl_slist, void (*)(curl_slist*)> header_list(request_headers,
                                                                 curl_slist_free_all);
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, hub.timeout_seconds);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, hub.timeout_seconds);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "servescope (config.json only)");
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &headers);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, header_list.get());
  curl_easy_setopt(c, CURLOPT_MAXFILESIZE, 64L << 20);  // configs are kilobytes
  const CURLcode rc = curl_easy_perform(c);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  out.miss = HubMiss::kOther;
  if (rc == CURLE_OPERATION_TIMEDOUT) {
    out.file =
        fail(fmt::format("model '{}': the Hugging Face Hub ({}) did not answer within {} s "
                         "(HF_HUB_DOWNLOAD_TIMEOUT); "
                         "retry, set HF_HUB_OFFLINE=1, or pass --model PATH/config.json",
                         id, hub.endpoint, hub.timeout_seconds));
    return out;
  }
  if (rc != CURLE_OK) {
    out.file =
        fail(fmt::format("model '{}': downloading {} failed: {}; pass --model "
                         "PATH/config.json or set HF_ENDPOINT",
                         id, url, curl_easy_strerror(rc)));
    return out;
  }
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
  HubFile f;
  f.content = std::move(body);
  f.commit = headers.commit.empty() ? rev : headers.commit;
  f.etag = !headers.linked_etag.empty() ? headers.linked_etag : headers.etag;
  out.miss = HubMiss::kNone;
  out.file = std::move(f);
  return out;
}

}  // namespace servescope
