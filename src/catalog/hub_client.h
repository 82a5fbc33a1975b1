// Downloads a model's small files (config.json, hf_quant_config.json) from the Hugging Face
// Hub into the hub cache, so the next run is offline. http_get.h does the HTTP(S); the Hub's
// resolve endpoint is {HF_ENDPOINT}/{id}/resolve/{revision}/{file}, which answers the commit
// in X-Repo-Commit and the blob's ETag (X-Linked-Etag for files kept in LFS).
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace servescope {

struct HubSettings {
  std::string endpoint = "https://huggingface.co";  // HF_ENDPOINT
  std::string token;                                // HF_TOKEN (or HUGGING_FACE_HUB_TOKEN)
  bool offline = false;                             // HF_HUB_OFFLINE=1
  long timeout_seconds = 10;                        // HF_HUB_DOWNLOAD_TIMEOUT
  /// From the environment, as huggingface_hub reads it.
  static HubSettings from_environment();
};

struct HubFile {
  std::string content;
  std::string commit;  // X-Repo-Commit
  std::string etag;
};

enum class HubMiss { kNone, kNotFound, kOther };

struct HubResult {
  Result<HubFile> file = fail("");
  HubMiss miss = HubMiss::kNone;  // why it failed: a missing file is not always an error
};

/// GETs one file of a model repository. Errors are one line naming the model and the fix:
/// 401/403 (gated: HF_TOKEN), 404, timeouts, a connection that breaks mid-body.
HubResult fetch_hub_file(const HubSettings& hub, std::string_view id, std::string_view revision,
                         std::string_view filename);

}  // namespace servescope
