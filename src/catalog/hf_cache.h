// The Hugging Face hub cache layout (huggingface_hub's file_download.py, "cache system"):
//   HUB/models--ORG--NAME/refs/REVISION         the commit a branch or tag points at
//   HUB/models--ORG--NAME/snapshots/COMMIT/FILE  the file (a link into blobs/)
//   HUB/models--ORG--NAME/blobs/ETAG             the content
// where HUB is $HF_HUB_CACHE, else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
// ~/.cache/huggingface/hub. ModelScope's cache ($MODELSCOPE_CACHE, else
// ~/.cache/modelscope/hub) keeps models/ORG/NAME/ (older releases: ORG/NAME/).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace servescope {

/// A model named by a path in the hub cache layout ("/models/hub/models--Qwen--Qwen3-8B/
/// snapshots/9c9f…"): its id and the revision the path pins ("" when it names no snapshot).
struct CachePath {
  std::string id;
  std::string revision;
};
std::optional<CachePath> parse_cache_path(std::string_view path);

/// The hub cache directory, from the environment as huggingface_hub reads it.
std::string hub_cache_dir();
/// The ModelScope cache directory.
std::string modelscope_cache_dir();

/// A snapshot directory found in a cache.
struct CachedSnapshot {
  std::string id;         // as the cache spells it ("Qwen/Qwen3-8B")
  std::string revision;   // the commit
  std::string directory;  // holds config.json
  std::string cache;      // "Hugging Face cache HUB" or "ModelScope cache DIR"
};

/// Finds `id` (case-insensitive, as the Hub resolves ids) at `revision` (a branch, a tag or a
/// commit; "" = main, else the newest snapshot) in the hub cache, then in ModelScope's.
/// Only snapshots that hold a config.json count.
std::optional<CachedSnapshot> find_cached_model(std::string_view id, std::string_view revision);

/// Finds a model by its name alone ("Qwen3-30B-A3B" from a local path /models/Qwen3-30B-A3B):
/// the cached repositories of any organisation with that name; nullopt when none or several.
std::optional<CachedSnapshot> find_cached_model_by_name(std::string_view name);

/// Writes a downloaded file into the hub cache as huggingface_hub does: the blob under its
/// ETag, a snapshot link to it, and refs/REVISION → commit when REVISION is not the commit.
/// Returns the snapshot directory.
Result<std::string> write_cached_file(std::string_view id, std::string_view revision,
                                      std::string_view commit, std::string_view etag,
                                      std::string_view filename, std::string_view content);

}  // namespace servescope
