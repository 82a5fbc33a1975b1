#include "catalog/model_catalog.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "catalog/embedded_data.h"
#include "catalog/hf_cache.h"
#include "catalog/hub_client.h"
#include "catalog/model_config_reader.h"
#include "core/file.h"
#include "core/text.h"

namespace servescope {
namespace {

constexpr std::string_view kModelsDir = "models/";
constexpr std::string_view kJson = ".json";

// "models/Qwen--Qwen3-8B.json" -> "Qwen/Qwen3-8B"
std::string id_from_path(std::string_view path) {
  path.remove_prefix(kModelsDir.size());
  path.remove_suffix(kJson.size());
  std::string id(path);
  auto sep = id.find("--");
  if (sep != std::string::npos)
    id.replace(sep, 2, "/");
  return id;
}

std::string path_from_id(std::string_view id) {
  std::string name(id);
  auto slash = name.find('/');
  if (slash != std::string::npos)
    name.replace(slash, 1, "--");
  return std::string(kModelsDir) + name + std::string(kJson);
}

std::string last_component(std::string_view spec) {
  while (!spec.empty() && spec.back() == '/')
    spec.remove_suffix(1);
  auto slash = spec.rfind('/');
  return std::string(slash == std::string_view::npos ? spec : spec.substr(slash + 1));
}

// Lower-case words of a model id: "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8" → qwen, qwen3, 235b,
// a22b, instruct, 2507, fp8.
std::vector<std::string> id_words(std::string_view id) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : id) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!cur.empty()) {
      out.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty())
    out.push_back(std::move(cur));
  return out;
}

// The letters a model name starts with: its family ("qwen" of Qwen3-8B, "llama" of
// Llama-2-7b-chat-hf).
std::string family_of(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (!std::isalpha(static_cast<unsigned char>(c)))
      break;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// Bundled ids nearest a model that is not bundled: the same family first, then the most words
// in common (size, variant, quantization), then spelling. Plain edit distance ranked
// "Qwen/Qwen2-7B" above "Qwen/Qwen3-235B-A22B-FP8" for "Qwen3-235B-A22B-Instruct-2507-FP8".
std::vector<std::string> closest_models(std::string_view spec, const std::vector<std::string>& ids,
                                        std::size_t limit) {
  const std::string name = last_component(spec);
  const std::string family = family_of(name);
  const std::vector<std::string> words = id_words(spec);
  struct Scored {
    int score;
    std::size_t distance;
    std::string id;
  };
  std::vector<Scored> scored;
  for (const std::string& id : ids) {
    const std::string other = last_component(id);
    const std::vector<std::string> theirs = id_words(id);
    // The same family, or one name's family among the other's words ("Meta-Llama-3.1-70B…" and
    // "Llama-3.1-70B…").
    const std::string other_family = family_of(other);
    const bool same_family =
        !family.empty() && (other_family == family ||
                            std::find(words.begin(), words.end(), other_family) != words.end() ||
                            std::find(theirs.begin(), theirs.end(), family) != theirs.end());
    int score = same_family ? 100 : 0;
    for (const std::string& w : words)
      score += std::find(theirs.begin(), theirs.end(), w) != theirs.end() ? 10 : 0;
    scored.push_back({score, edit_distance(to_lower(name), to_lower(other)), id});
  }
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    return a.score != b.score ? a.score > b.score : a.distance < b.distance;
  });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < limit; ++i)
    out.push_back(scored[i].id);
  return out;
}

}  // namespace

std::vector<std::string> bundled_model_ids() {
  std::vector<std::string> ids;
  for (const EmbeddedFile& f : embedded_files()) {
    if (f.path.rfind(kModelsDir, 0) == 0 && f.path.size() > kJson.size() &&
        f.path.substr(f.path.size() - kJson.size()) == kJson) {
      ids.push_back(id_from_path(f.path));
    }
  }
  return ids;
}

std::string resolve_bundled_id(std::string_view spec) {
  const std::vector<std::string> ids = bundled_model_ids();
  for (const std::string& id : ids) {
    if (iequals(id, spec))
      return id;
  }
  // A local copy ("/models/Qwen3-8B", "~/hf/Qwen--Qwen3-8B") names the model by its last
  // path component; match it against the bundled names without their organisation.
  const std::string tail = last_component(spec);
  if (tail.empty())
    return {};
  for (const std::string& id : ids) {
    const std::string name = last_component(id);
    std::string dashed = id;
    if (auto slash = dashed.find('/'); slash != std::string::npos)
      dashed.replace(slash, 1, "--");
    if (iequals(name, tail) || iequals(dashed, tail))
      return id;
  }
  return {};
}

namespace {

// Reads config.json, merging hf_quant_config.json (ModelOpt checkpoints that predate
// quantization_config in config.json) when it is there and config.json has no quantization.
Result<ModelShape> read_config_with_quant(std::string text, std::string_view quant_text,
                                          const std::string& source) {
  if (!quant_text.empty()) {
    nlohmann::json config = nlohmann::json::parse(text, nullptr, false);
    nlohmann::json quant = nlohmann::json::parse(quant_text, nullptr, false);
    if (config.is_object() && !config.contains("quantization_config") && quant.is_object() &&
        quant.contains("quantization") && quant["quantization"].is_object()) {
      nlohmann::json qc = quant["quantization"];
      qc["quant_method"] = "modelopt";
      config["quantization_config"] = qc;
      text = config.dump();
    }
  }
  return read_model_config(text, source);
}

Result<ModelShape> read_directory(const std::string& dir, const std::string& origin) {
  const std::string path = dir + "/config.json";
  auto text = read_file(path);
  if (!text)
    return text.error();
  std::string quant;
  if (is_regular_file(dir + "/hf_quant_config.json")) {
    if (auto q = read_file(dir + "/hf_quant_config.json"))
      quant = *q;
  }
  auto shape = read_config_with_quant(*text, quant, path);
  if (shape && !origin.empty())
    shape->origin = origin;
  return shape;
}

Result<ModelShape> read_snapshot(const CachedSnapshot& snap) {
  auto shape = read_directory(snap.directory, "");
  if (!shape)
    return shape.error();
  shape->source = snap.id;
  shape->origin = snap.revision.empty()
                      ? fmt::format("{} ({})", snap.cache, snap.directory)
                      : fmt::format("{}, snapshot {}", snap.cache, snap.revision.substr(0, 12));
  return shape;
}

Result<ModelShape> read_bundled(const std::string& id) {
  const std::string_view* text = find_embedded_file(path_from_id(id));
  auto shape = read_model_config(*text, "bundled " + id + " config.json");
  if (shape) {
    shape->source = id;
    shape->origin = "bundled config.json";
  }
  return shape;
}

bool is_hub_id(std::string_view spec) {
  const auto slash = spec.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == spec.size() ||
      spec.find('/', slash + 1) != std::string_view::npos)
    return false;
  return std::all_of(spec.begin(), spec.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
           c == '/';
  });
}

// The Hub, as a last resort: config.json (validated before it is cached: a truncated or
// foreign answer is never written) and hf_quant_config.json when the repository has one.
Result<ModelShape> download_model(const std::string& id, std::string_view revision) {
  const HubSettings hub = HubSettings::from_environment();
  HubResult config = fetch_hub_file(hub, id, revision, "config.json");
  if (!config.file)
    return config.file.error();
  auto shape = read_model_config(config.file->content, id + " config.json (Hub)");
  if (!shape)
    return shape.error();
  HubResult quant = fetch_hub_file(hub, id, revision, "hf_quant_config.json");
  const std::string rev = revision.empty() ? std::string("main") : std::string(revision);
  auto dir = write_cached_file(id, rev, config.file->commit, config.file->etag, "config.json",
                               config.file->content);
  if (!dir)
    return dir.error();
  if (quant.file) {
    if (!write_cached_file(id, rev, quant.file->commit, quant.file->etag, "hf_quant_config.json",
                           quant.file->content))
      return fail("cannot write hf_quant_config.json into the Hugging Face cache");
  } else if (quant.miss != HubMiss::kNotFound) {
    return quant.file.error();
  }
  auto cached = find_cached_model(id, config.file->commit);
  if (!cached)
    return fail(fmt::format("model '{}': downloaded, but the cache {} does not read back", id,
                            hub_cache_dir()));
  auto read = read_snapshot(*cached);
  if (read)
    read->origin = fmt::format("downloaded from {} into {}", hub.endpoint, *dir);
  return read;
}

}  // namespace

Result<ModelShape> load_model(std::string_view spec_view, std::string_view revision) {
  const std::string spec(trim(spec_view));
  if (spec.empty())
    return fail("--model: empty; give a config.json path, a model directory or a Hugging Face id");
  if (is_regular_file(spec)) {
    auto text = read_file(spec);
    if (!text)
      return text.error();
    const std::string dir =
        spec.rfind('/') == std::string::npos ? "." : spec.substr(0, spec.rfind('/'));
    std::string quant;
    if (is_regular_file(dir + "/hf_quant_config.json")) {
      if (auto q = read_file(dir + "/hf_quant_config.json"))
        quant = *q;
    }
    return read_config_with_quant(*text, quant, spec);
  }
  if (is_directory(spec)) {
    if (!is_regular_file(spec + "/config.json"))
      return fail(fmt::format("--model {}: directory has no config.json", spec));
    return read_directory(spec, "");
  }
  // A path in the hub cache layout, printed by a log from another machine: the model and the
  // revision it pins, looked up in this machine's cache.
  if (auto cache_path = parse_cache_path(spec)) {
    const std::string rev = !revision.empty() ? std::string(revision) : cache_path->revision;
    if (auto snap = find_cached_model(cache_path->id, rev))
      return read_snapshot(*snap);
    if (auto snap = find_cached_model(cache_path->id, ""); snap && !rev.empty()) {
      auto shape = read_snapshot(*snap);
      if (shape)
        shape->origin += fmt::format(" (the path pins {}, which is not cached)", rev.substr(0, 12));
      return shape;
    }
    const std::string bundled = resolve_bundled_id(cache_path->id);
    if (!bundled.empty())
      return read_bundled(bundled);
    return download_model(cache_path->id, rev);
  }
  const std::string id = resolve_bundled_id(spec);
  if (!id.empty() && revision.empty())
    return read_bundled(id);
  if (auto snap = find_cached_model(spec, revision))
    return read_snapshot(*snap);
  if (!id.empty())
    return read_bundled(id);
  if (is_hub_id(spec)) {
    auto downloaded = download_model(spec, revision);
    if (downloaded)
      return downloaded;
    return fail(fmt::format("{} (closest bundled: {})", downloaded.message(),
                            fmt::join(closest_models(spec, bundled_model_ids(), 3), ", ")));
  }
  // A local directory that is not on this machine: its last component may name a cached
  // model of one organisation.
  const std::string name = last_component(spec);
  if (auto snap = find_cached_model_by_name(name))
    return read_snapshot(*snap);
  return fail(fmt::format(
      "model '{}': no config.json at that path, none in the Hugging Face cache ({}) "
      "and no bundled config for it; pass --model PATH/config.json or the model's "
      "Hugging Face id (closest bundled: {})",
      spec, hub_cache_dir(), fmt::join(closest_models(spec, bundled_model_ids(), 3), ", ")));
}

}  // namespace servescope
