#include "intake/config_file.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "core/file.h"

namespace servescope {

Result<ConfigExpansion> expand_config_file(const std::vector<std::string>& argv,
                                           const std::string& base_dir, bool must_exist) {
  ConfigExpansion out;
  std::size_t at = argv.size();
  std::string path;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "--config" && i + 1 < argv.size()) {
      at = i;
      path = argv[i + 1];
    } else if (argv[i].rfind("--config=", 0) == 0) {
      at = i;
      path = argv[i].substr(9);
    }
  }
  if (at == argv.size()) {
    out.argv = argv;
    return out;
  }
  const std::string full =
      !path.empty() && path.front() != '/' && !base_dir.empty() ? base_dir + "/" + path : path;
  if (!is_regular_file(full)) {
    if (must_exist)
      return fail(fmt::format("--config {}: no such file; give the path of the YAML file", path));
    out.argv = argv;
    out.note = fmt::format("--config {}: not on this machine; its flags are not read", path);
    return out;
  }
  std::vector<std::string> flags;
  std::size_t settings = 0;
  try {
    const YAML::Node root = YAML::LoadFile(full);
    if (!root.IsMap())
      return fail(fmt::format("--config {}: expected a YAML map of flag: value", path));
    for (const auto& kv : root) {
      ++settings;
      std::string key = kv.first.as<std::string>("");
      std::replace(key.begin(), key.end(), '_', '-');
      const std::string flag = "--" + key;
      const YAML::Node& v = kv.second;
      if (v.IsSequence()) {
        flags.push_back(flag);
        for (const YAML::Node& item : v)
          flags.push_back(item.as<std::string>(""));
      } else if (v.IsMap()) {
        YAML::Emitter e;
        e << YAML::Flow << YAML::DoubleQuoted << v;
        flags.push_back(flag);
        flags.push_back(e.c_str());
      } else {
        const std::string value = v.as<std::string>("");
        if (value == "true" || value == "True") {
          flags.push_back(flag);
        } else if (value == "false" || value == "False") {
          continue;
        } else {
          flags.push_back(flag);
          flags.push_back(value);
        }
      }
    }
  } catch (const YAML::Exception& e) {
    return fail(fmt::format("--config {}: {}", path, e.what()));
  }
  // The file's flags stand where the first typed flag stood (after the program and any
  // positional model), the typed flags after them.
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (i == at) {
      i += argv[i] == "--config" ? 1 : 0;
      continue;
    }
    rest.push_back(argv[i]);
  }
  std::size_t first_flag = 0;
  while (first_flag < rest.size() && rest[first_flag].rfind("--", 0) != 0)
    ++first_flag;
  out.argv.assign(rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(first_flag));
  out.argv.insert(out.argv.end(), flags.begin(), flags.end());
  out.argv.insert(out.argv.end(), rest.begin() + static_cast<std::ptrdiff_t>(first_flag),
                  rest.end());
  out.note = fmt::format("{} setting(s) read from --config {}", settings, path);
  return out;
}

}  // namespace servescope
