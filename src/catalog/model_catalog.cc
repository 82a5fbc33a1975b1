#include "catalog/model_catalog.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "catalog/embedded_data.h"
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

Result<ModelShape> load_model(std::string_view spec_view) {
  const std::string spec(trim(spec_view));
  if (spec.empty())
    return fail("--model: empty; give a config.json path, a model directory or a Hugging Face id");
  if (is_regular_file(spec)) {
    auto text = read_file(spec);
    if (!text)
      return text.error();
    return read_model_config(*text, spec);
  }
  if (is_directory(spec)) {
    const std::string path = spec + "/config.json";
    if (!is_regular_file(path)) {
      return fail(fmt::format("--model {}: directory has no config.json", spec));
    }
    auto text = read_file(path);
    if (!text)
      return text.error();
    return read_model_config(*text, path);
  }
  const std::string id = resolve_bundled_id(spec);
  if (!id.empty()) {
    const std::string_view* text = find_embedded_file(path_from_id(id));
    auto shape = read_model_config(*text, "bundled " + id + " config.json");
    if (shape)
      shape->source = id;
    return shape;
  }
  return fail(
      fmt::format("model '{}': no config.json at that path and no bundled config for it; "
                  "pass --model PATH/config.json (closest bundled: {})",
                  spec, fmt::join(closest_models(spec, bundled_model_ids(), 3), ", ")));
}

}  // namespace servescope
