#include "catalog/hf_cache.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/env.h"
#include "core/file.h"
#include "core/text.h"

namespace servescope {
namespace fs = std::filesystem;
namespace {

std::string home_cache() {
  const std::string xdg = env_or("XDG_CACHE_HOME", "");
  if (!xdg.empty())
    return xdg;
  return env_or("HOME", "/root") + "/.cache";
}

bool is_commit(std::string_view rev) {
  return rev.size() == 40 && std::all_of(rev.begin(), rev.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::string read_ref(const fs::path& repo, std::string_view revision) {
  auto text = read_file((repo / "refs" / std::string(revision)).string());
  return text ? std::string(trim(*text)) : std::string();
}

bool has_config(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "config.json", ec);
}

// The snapshot of a hub-layout repository directory at `revision`.
std::optional<CachedSnapshot> snapshot_of(const fs::path& repo, std::string id,
                                          std::string_view revision, const std::string& cache) {
  std::string commit;
  if (is_commit(revision))
    commit = std::string(revision);
  else
    commit = read_ref(repo, revision.empty() ? "main" : revision);
  std::error_code ec;
  if (!commit.empty() && has_config(repo / "snapshots" / commit))
    return CachedSnapshot{id, commit, (repo / "snapshots" / commit).string(), cache};
  if (!revision.empty())
    return std::nullopt;  // a pinned revision that is not cached is not another revision
  // No refs/main (a cache copied by hand): the newest snapshot with a config.
  std::optional<CachedSnapshot> best;
  fs::file_time_type newest{};
  for (const auto& e : fs::directory_iterator(repo / "snapshots", ec)) {
    if (!has_config(e.path()))
      continue;
    const auto t = fs::last_write_time(e.path(), ec);
    if (!best || t > newest) {
      newest = t;
      best = CachedSnapshot{id, e.path().filename().string(), e.path().string(), cache};
    }
  }
  return best;
}

// "models--Qwen--Qwen3-8B" → "Qwen/Qwen3-8B"
std::string id_of_repo_dir(std::string_view dir) {
  dir.remove_prefix(std::string_view("models--").size());
  std::string id(dir);
  if (auto sep = id.find("--"); sep != std::string::npos)
    id.replace(sep, 2, "/");
  return id;
}

// Every models--* directory of the hub cache.
std::vector<fs::path> hub_repos() {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(hub_cache_dir(), ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("models--", 0) == 0 && e.is_directory(ec))
      out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<CachedSnapshot> find_in_modelscope(std::string_view id) {
  const std::string base = modelscope_cache_dir();
  for (const std::string& dir :
       {base + "/models/" + std::string(id), base + "/" + std::string(id)}) {
    if (has_config(dir))
      return CachedSnapshot{std::string(id), "", dir, "ModelScope cache " + base};
  }
  return std::nullopt;
}

}  // namespace

std::optional<CachePath> parse_cache_path(std::string_view path) {
  const auto at = path.find("models--");
  if (at == std::string_view::npos)
    return std::nullopt;
  std::string_view rest = path.substr(at);
  const auto slash = rest.find('/');
  const std::string_view repo = rest.substr(0, slash);
  if (repo.find("--", std::string_view("models--").size()) == std::string_view::npos)
    return std::nullopt;  // models--NAME without an organisation is not the layout
  CachePath out{id_of_repo_dir(repo), ""};
  if (slash != std::string_view::npos) {
    std::string_view after = rest.substr(slash + 1);
    if (after.rfind("snapshots/", 0) == 0) {
      after.remove_prefix(10);
      out.revision = std::string(after.substr(0, after.find('/')));
    }
  }
  return out;
}

std::string hub_cache_dir() {
  const std::string hub = env_or("HF_HUB_CACHE", env_or("HUGGINGFACE_HUB_CACHE", ""));
  if (!hub.empty())
    return hub;
  const std::string home = env_or("HF_HOME", "");
  if (!home.empty())
    return home + "/hub";
  return home_cache() + "/huggingface/hub";
}

std::string modelscope_cache_dir() {
  const std::string ms = env_or("MODELSCOPE_CACHE", "");
  return ms.empty() ? home_cache() + "/modelscope/hub" : ms;
}

std::optional<CachedSnapshot> find_cached_model(std::string_view id, std::string_view revision) {
  const std::string cache = "Hugging Face cache " + hub_cache_dir();
  for (const fs::path& repo : hub_repos()) {
    const std::string repo_id = id_of_repo_dir(repo.filename().string());
    if (iequals(repo_id, id))
      return snapshot_of(repo, repo_id, revision, cache);
  }
  if (revision.empty())
    return find_in_modelscope(id);
  return std::nullopt;
}

std::optional<CachedSnapshot> find_cached_model_by_name(std::string_view name) {
  std::optional<CachedSnapshot> found;
  const std::string cache = "Hugging Face cache " + hub_cache_dir();
  for (const fs::path& repo : hub_repos()) {
    const std::string repo_id = id_of_repo_dir(repo.filename().string());
    const auto slash = repo_id.find('/');
    if (slash == std::string::npos || !iequals(std::string_view(repo_id).substr(slash + 1), name))
      continue;
    if (found)
      return std::nullopt;  // two organisations publish that name: not ours to pick
    found = snapshot_of(repo, repo_id, "", cache);
  }
  return found;
}

Result<std::string> write_cached_file(std::string_view id, std::string_view revision,
                                      std::string_view commit, std::string_view etag,
                                      std::string_view filename, std::string_view content) {
  std::string dirname(id);
  if (auto slash = dirname.find('/'); slash != std::string::npos)
    dirname.replace(slash, 1, "--");
  const fs::path repo = fs::path(hub_cache_dir()) / ("models--" + dirname);
  const fs::path blobs = repo / "blobs", snapshot = repo / "snapshots" / std::string(commit);
  std::error_code ec;
  fs::create_directories(blobs, ec);
  fs::create_directories(snapshot, ec);
  if (ec)
    return fail(
        fmt::format("cannot write the Hugging Face cache {}: {}", repo.string(), ec.message()));
  std::string blob_name(etag.empty() ? commit : etag);
  blob_name.erase(std::remove(blob_name.begin(), blob_name.end(), '"'), blob_name.end());
  if (blob_name.rfind("W/", 0) == 0)
    blob_name.erase(0, 2);
  const fs::path blob = blobs / blob_name;
  {
    // Written beside the blob and renamed, so a reader never sees half a file.
    const fs::path tmp = blob.string() + ".incomplete";
    std::ofstream out(tmp, std::ios::binary);
    out << content;
    out.close();
    if (!out)
      return fail(fmt::format("cannot write {}", tmp.string()));
    fs::rename(tmp, blob, ec);
    if (ec)
      return fail(fmt::format("cannot write {}: {}", blob.string(), ec.message()));
  }
  const fs::path link = snapshot / std::string(filename);
  fs::remove(link, ec);
  fs::create_symlink(fs::path("../../blobs") / blob_name, link, ec);
  if (ec) {
    ec.clear();
    fs::copy_file(blob, link, fs::copy_options::overwrite_existing, ec);  // no symlinks here
  }
  if (revision != commit) {
    fs::create_directories(
        (repo / "refs" / std::string(revision.empty() ? "main" : revision)).parent_path(), ec);
    std::ofstream ref(repo / "refs" / std::string(revision.empty() ? "main" : revision));
    ref << commit;
  }
  return snapshot.string();
}

}  // namespace servescope
