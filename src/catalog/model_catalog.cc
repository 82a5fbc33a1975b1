#include "catalog/model_catalog.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

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
                  spec, fmt::join(closest(last_component(spec), bundled_model_ids(), 3), ", ")));
}

}  // namespace servescope
