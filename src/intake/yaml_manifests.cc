#include "intake/yaml_manifests.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "intake/shell_words.h"

namespace servescope {
namespace {

// The documents of a YAML stream, each parsed with YAML::Load: yaml-cpp 0.7's LoadAll never
// returns on a document that starts with a stray ',' (found by fuzz/launch_input_fuzz.cc), so
// the stream is split at its `---` lines here. A document that does not parse is left out;
// line numbers stay those of the whole text (each document is padded to its first line).
std::vector<YAML::Node> load_documents(std::string_view text) {
  std::vector<YAML::Node> docs;
  std::string current;
  int lines_before = 0, line = 0;
  auto flush = [&] {
    try {
      docs.push_back(
          YAML::Load(std::string(static_cast<std::size_t>(lines_before), '\n') + current));
    } catch (const YAML::Exception&) {
    }
    current.clear();
  };
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view l = text.substr(pos, end - pos);
    pos = end + 1;
    if (l.rfind("---", 0) == 0 && (l.size() == 3 || l[3] == ' ' || l[3] == '\r')) {
      flush();
      lines_before = line + 1;
    } else {
      current.append(l.data(), l.size());
      current += '\n';
    }
    ++line;
  }
  flush();
  return docs;
}

// n[a][b]... without yaml-cpp's InvalidNode exception when a key on the way is missing.
YAML::Node at(const YAML::Node& n, std::initializer_list<const char*> path) {
  YAML::Node cur;
  cur.reset(n);  // reset, not operator=: yaml-cpp's assignment writes through to the node
  for (const char* key : path) {
    if (!cur || !cur.IsMap())
      return YAML::Node(YAML::NodeType::Undefined);
    const YAML::Node& parent = cur;
    YAML::Node next = parent[key];
    if (!next)
      return YAML::Node(YAML::NodeType::Undefined);
    cur.reset(next);
  }
  return cur;
}

int line_of(const YAML::Node& n) {
  return n.Mark().line + 1;
}

// The line of `key:` in a map (a block sequence's own mark is its first item's line); the
// map's line when the key is absent.
int key_line(const YAML::Node& map, const char* key) {
  if (map.IsMap()) {
    for (const auto& kv : map) {
      if (kv.first.as<std::string>("") == key)
        return line_of(kv.first);
    }
  }
  return line_of(map);
}

// A command field: a list of words, or a string split as compose splits it (shell words, no
// shell run).
std::vector<std::string> command_words(const YAML::Node& n) {
  std::vector<std::string> out;
  if (!n)
    return out;
  if (n.IsSequence()) {
    for (const YAML::Node& w : n)
      out.push_back(w.as<std::string>(""));
  } else if (n.IsScalar()) {
    if (auto words = split_shell_words(n.as<std::string>("")))
      out = std::move(*words);
  }
  return out;
}

// environment: {K: V} or [K=V, ...]; K8s env: [{name, value}] (valueFrom is not ours to read).
void read_environment(const YAML::Node& n, std::map<std::string, std::string>& env,
                      std::vector<std::string>& notes) {
  if (!n)
    return;
  if (n.IsMap()) {
    for (const auto& kv : n)
      env[kv.first.as<std::string>("")] = kv.second.IsNull() ? "" : kv.second.as<std::string>("");
    return;
  }
  if (!n.IsSequence())
    return;
  for (const YAML::Node& item : n) {
    if (item.IsScalar()) {
      const std::string s = item.as<std::string>("");
      const auto eq = s.find('=');
      if (eq != std::string::npos && eq > 0)
        env[s.substr(0, eq)] = s.substr(eq + 1);
    } else if (item.IsMap() && item["name"]) {
      const std::string name = item["name"].as<std::string>("");
      if (item["value"]) {
        env[name] = item["value"].as<std::string>("");
      } else if (item["valueFrom"]) {
        notes.push_back(fmt::format("env {} comes from a secret or field (line {}); not read", name,
                                    line_of(item)));
      }
    }
  }
}

Result<LaunchInput> finish(std::vector<std::string> words, std::map<std::string, std::string> env,
                           std::vector<std::string> notes, const LaunchRecognizer& launches) {
  auto found = launch_in_words(words, launches);
  if (!found)
    return fail("");
  for (auto& [k, v] : env)
    found->environment.emplace(k, v);
  found->notes.insert(found->notes.begin(), notes.begin(), notes.end());
  return std::move(*found);
}

std::optional<int> gpu_limit(const YAML::Node& resources, std::string* source) {
  for (const char* part : {"limits", "requests"}) {
    const YAML::Node p = resources[part];
    if (!p || !p.IsMap())
      continue;
    for (const char* key : {"nvidia.com/gpu", "amd.com/gpu"}) {
      if (p[key]) {
        *source = fmt::format("resources.{}.{}: {} (line {})", part, key,
                              p[key].as<std::string>(""), line_of(p[key]));
        try {
          return p[key].as<int>();
        } catch (const YAML::Exception&) {
          return std::nullopt;
        }
      }
    }
  }
  return std::nullopt;
}

// The pod specs of one Kubernetes object, with where they sit.
void pod_specs(const YAML::Node& doc, std::vector<std::pair<YAML::Node, std::string>>& out) {
  const std::string kind = doc["kind"].as<std::string>("");
  if (kind == "List") {
    for (const YAML::Node& item : at(doc, {"items"}))
      pod_specs(item, out);
  } else if (kind == "Pod") {
    out.emplace_back(at(doc, {"spec"}), "Pod");
  } else if (kind == "CronJob") {
    out.emplace_back(at(doc, {"spec", "jobTemplate", "spec", "template", "spec"}), kind);
  } else if (kind == "LeaderWorkerSet") {
    const YAML::Node lwt = at(doc, {"spec", "leaderWorkerTemplate"});
    if (YAML::Node leader = at(lwt, {"leaderTemplate", "spec"}))
      out.emplace_back(leader, "LeaderWorkerSet leaderTemplate");
    if (YAML::Node worker = at(lwt, {"workerTemplate", "spec"}))
      out.emplace_back(worker, "LeaderWorkerSet workerTemplate");
  } else if (YAML::Node spec = at(doc, {"spec", "template", "spec"})) {
    out.emplace_back(spec, kind);
  }
}

}  // namespace

YamlKind yaml_kind(std::string_view text) {
  try {
    for (const YAML::Node& doc : load_documents(text)) {
      if (!doc.IsMap())
        continue;
      if (doc["services"] && doc["services"].IsMap())
        return YamlKind::kCompose;
      if (doc["apiVersion"] && doc["kind"])
        return YamlKind::kKubernetes;
    }
  } catch (const YAML::Exception&) {
  }
  return YamlKind::kNone;
}

Result<LaunchInput> launch_in_compose(std::string_view text, std::string_view name,
                                      const LaunchRecognizer& launches) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return fail(fmt::format("{}: not YAML: {}", name, e.what()));
  }
  try {
    for (const auto& service : root["services"]) {
      const std::string service_name = service.first.as<std::string>("");
      const YAML::Node s = service.second;
      const std::string image = s["image"].as<std::string>("");
      std::vector<std::string> words = command_words(s["entrypoint"]);
      std::vector<std::string> command = command_words(s["command"]);
      if (words.empty() && (command.empty() || command.front().rfind("-", 0) == 0))
        words = launches.entrypoint_of(image);
      words.insert(words.end(), command.begin(), command.end());
      std::map<std::string, std::string> env;
      std::vector<std::string> notes;
      read_environment(s["environment"], env, notes);
      auto found = finish(words, env, notes, launches);
      if (!found)
        continue;
      const int line = key_line(s, s["command"] ? "command" : "entrypoint");
      found->origin = fmt::format("{}:{}, service {}", name, line, service_name);
      found->image = image;
      found->image_version = version_from_image(image);
      // deploy.resources.reservations.devices: [{count: 2 | all, device_ids: [...]}]
      for (const YAML::Node& d : at(s, {"deploy", "resources", "reservations", "devices"})) {
        if (d["device_ids"] && d["device_ids"].IsSequence()) {
          found->gpu_count = static_cast<int>(d["device_ids"].size());
          found->gpu_count_source = fmt::format("device_ids (line {})", line_of(d["device_ids"]));
        } else if (d["count"] && d["count"].as<std::string>("") != "all") {
          found->gpu_count = d["count"].as<int>(0);
          found->gpu_count_source =
              fmt::format("count: {} (line {})", *found->gpu_count, line_of(d["count"]));
        }
      }
      count_visible_gpus(*found);
      return std::move(*found);
    }
  } catch (const YAML::Exception& e) {
    return fail(fmt::format("{}: {}", name, e.what()));
  }
  return fail(fmt::format("{}: no service's command launches SGLang or vLLM", name));
}

Result<LaunchInput> launch_in_kubernetes(std::string_view text, std::string_view name,
                                         const LaunchRecognizer& launches) {
  const std::vector<YAML::Node> docs = load_documents(text);
  try {
    for (const YAML::Node& doc : docs) {
      if (!doc.IsMap())
        continue;
      std::vector<std::pair<YAML::Node, std::string>> specs;
      pod_specs(doc, specs);
      std::string object = doc["kind"].as<std::string>("");
      if (const std::string named = at(doc, {"metadata", "name"}).as<std::string>("");
          !named.empty())
        object += " " + named;
      for (const auto& [spec, where] : specs) {
        for (const YAML::Node& c : at(spec, {"containers"})) {
          std::vector<std::string> words = command_words(c["command"]);
          std::vector<std::string> args = command_words(c["args"]);
          const std::string image = c["image"].as<std::string>("");
          if (words.empty())
            words = launches.entrypoint_of(image);
          words.insert(words.end(), args.begin(), args.end());
          std::map<std::string, std::string> env;
          std::vector<std::string> notes;
          read_environment(c["env"], env, notes);
          auto found = finish(words, env, notes, launches);
          if (!found)
            continue;
          found->origin = fmt::format("{}:{}, {} container {}", name,
                                      key_line(c, c["command"] ? "command" : "args"), object,
                                      c["name"].as<std::string>(""));
          if (where != doc["kind"].as<std::string>(""))
            found->notes.push_back("from the " + where);
          found->image = image;
          found->image_version = version_from_image(image);
          std::string source;
          if (auto n = gpu_limit(at(c, {"resources"}), &source)) {
            found->gpu_count = n;
            found->gpu_count_source = source;
          }
          return std::move(*found);
        }
      }
    }
  } catch (const YAML::Exception& e) {
    return fail(fmt::format("{}: {}", name, e.what()));
  }
  return fail(fmt::format("{}: no container's command launches SGLang or vLLM", name));
}

}  // namespace servescope
