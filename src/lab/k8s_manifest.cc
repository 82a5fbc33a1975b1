#include "lab/k8s_manifest.h"

#include <fmt/format.h>
#include <re2/re2.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "engines/engine.h"
#include "engines/twin_profile.h"

namespace servescope {
namespace {

constexpr const char* kLwsApiVersion = "leaderworkerset.x-k8s.io/v1";
constexpr int kDefaultGraceSeconds = 30;  // Kubernetes' own default

// A string scalar: tagged "!" so the emitter quotes it where a YAML reader would take the
// plain text for a number, a boolean or null ("8", "0.7", "true", "on", "~").
YAML::Node str(std::string_view s) {
  YAML::Node n(std::string{s});
  n.SetTag("!");
  return n;
}

bool reads_as_non_string(const std::string& s) {
  // YAML 1.1 (what kubectl's reader follows) and 1.2 core: null, booleans, numbers.
  static const RE2 kWord(
      "(?i)(~|null|y|n|yes|no|true|false|on|off|\\.inf|[-+]\\.inf|\\.nan)|[-+.]?[0-9][0-9_:.eExXa-"
      "fA-F+-]*|");
  return RE2::FullMatch(s, kWord);
}

bool is_string_tag(const std::string& tag) {
  return tag == "!" || tag == "tag:yaml.org,2002:str" || tag == "!!str";
}

void emit(YAML::Emitter& out, const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      out << YAML::Null;
      break;
    case YAML::NodeType::Scalar:
      if (is_string_tag(n.Tag()) && reads_as_non_string(n.Scalar()))
        out << YAML::DoubleQuoted << n.Scalar();
      else
        out << n.Scalar();
      break;
    case YAML::NodeType::Sequence:
      out << YAML::BeginSeq;
      for (const auto& item : n)
        emit(out, item);
      out << YAML::EndSeq;
      break;
    case YAML::NodeType::Map:
      out << YAML::BeginMap;
      for (const auto& item : n) {
        out << YAML::Key;
        emit(out, item.first);
        out << YAML::Value;
        emit(out, item.second);
      }
      out << YAML::EndMap;
      break;
  }
}

// The map at n[key], made one when absent; fails when the template has something else there.
Result<YAML::Node> map_at(YAML::Node n, const char* key, std::string_view where) {
  YAML::Node child = n[key];
  if (!child.IsDefined() || child.IsNull())
    n[key] = YAML::Node(YAML::NodeType::Map);
  else if (!child.IsMap())
    return fail(fmt::format("{}.{} is not a mapping", where, key));
  return n[key];
}

Result<YAML::Node> seq_at(YAML::Node n, const char* key, std::string_view where) {
  YAML::Node child = n[key];
  if (!child.IsDefined() || child.IsNull())
    n[key] = YAML::Node(YAML::NodeType::Sequence);
  else if (!child.IsSequence())
    return fail(fmt::format("{}.{} is not a list", where, key));
  return n[key];
}

// Sets name → value in a list of {name: ..., <value_key>: ...} entries, replacing one of the
// same name.
void set_named(YAML::Node list, const std::string& name, const YAML::Node& entry) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i].IsMap() && list[i]["name"] && list[i]["name"].Scalar() == name) {
      list[i] = entry;
      return;
    }
  }
  list.push_back(entry);
}

bool has_named(const YAML::Node& list, const std::string& name, const char* key = "name") {
  for (const auto& item : list)
    if (item.IsMap() && item[key] && item[key].Scalar() == name)
      return true;
  return false;
}

struct PodRole {
  bool leader = true;
  bool job = true;  // a Job's pod: restartPolicy Never (a LeaderWorkerSet's must be Always)
};

Status fill_labels(YAML::Node meta, const KubernetesOptions&, const K8sExperiment& x,
                   std::string_view where) {
  auto labels = map_at(meta, "labels", where);
  if (!labels)
    return labels.error();
  (*labels)["app.kubernetes.io/name"] = str("servescope");
  (*labels)["app.kubernetes.io/managed-by"] = str("servescope");
  (*labels)[kK8sExperimentLabel] = str(x.spec.name.empty() ? "servescope" : x.spec.name);
  (*labels)[kK8sJobLabel] = str(x.object_name);
  return ok_status();
}

Status fill_pod(YAML::Node tmpl, const KubernetesOptions& o, const K8sExperiment& x, PodRole role,
                std::string_view where) {
  auto meta = map_at(tmpl, "metadata", where);
  if (!meta)
    return meta.error();
  if (Status st = fill_labels(*meta, o, x, fmt::format("{}.metadata", where)); !st)
    return st;
  auto pod = map_at(tmpl, "spec", where);
  if (!pod)
    return pod.error();
  const std::string pod_where = fmt::format("{}.spec", where);
  if (role.job)
    (*pod)["restartPolicy"] = str("Never");
  else if ((*pod)["restartPolicy"])
    pod->remove("restartPolicy");  // a LeaderWorkerSet's StatefulSets accept Always only
  if (!(*pod)["terminationGracePeriodSeconds"])
    (*pod)["terminationGracePeriodSeconds"] = kDefaultGraceSeconds;
  auto containers = seq_at(*pod, "containers", pod_where);
  if (!containers)
    return containers.error();
  // The engine's container: the one named "engine", else the first, else a new one.
  std::size_t engine = 0;
  for (std::size_t i = containers->size(); i-- > 0;) {
    const YAML::Node name = (*containers)[i]["name"];
    if (name && name.IsScalar() && name.Scalar() == "engine")
      engine = i;
  }
  if (containers->size() == 0)
    containers->push_back(YAML::Node(YAML::NodeType::Map));
  YAML::Node c = (*containers)[engine];  // a handle on the element, not a copy
  if (!c.IsMap())
    return fail(fmt::format("{}.containers[0] is not a mapping", pod_where));
  if (!c["name"])
    c["name"] = str("engine");
  c["image"] = str(o.image);
  YAML::Node command(YAML::NodeType::Sequence);
  for (const std::string& w : x.spec.argv)
    command.push_back(str(w));
  c["command"] = command;
  if (c["args"])
    c.remove("args");  // the launch command is the whole command line
  if (!x.spec.cwd.empty())
    c["workingDir"] = str(x.spec.cwd);
  if (!x.spec.env.empty()) {
    auto env = seq_at(c, "env", pod_where + ".containers[engine]");
    if (!env)
      return env.error();
    for (const auto& [k, v] : x.spec.env) {
      YAML::Node e;
      e["name"] = str(k);
      e["value"] = str(v);
      set_named(*env, k, e);
    }
  }
  if (o.gpus > 0) {
    auto resources = map_at(c, "resources", pod_where + ".containers[engine]");
    if (!resources)
      return resources.error();
    auto limits = map_at(*resources, "limits", pod_where + ".containers[engine].resources");
    if (!limits)
      return limits.error();
    (*limits)["nvidia.com/gpu"] = o.gpus;
  }
  const auto port = engine_port(x.spec.argv);
  if (role.leader && port) {
    auto ports = seq_at(c, "ports", pod_where + ".containers[engine]");
    if (!ports)
      return ports.error();
    if (!has_named(*ports, std::to_string(*port), "containerPort")) {
      YAML::Node p;
      p["name"] = str("http");
      p["containerPort"] = *port;
      p["protocol"] = str("TCP");
      if (has_named(*ports, "http"))
        p.remove("name");
      ports->push_back(p);
    }
    if (!c["readinessProbe"]) {
      YAML::Node probe;
      probe["httpGet"]["path"] = str("/health");
      probe["httpGet"]["port"] = *port;
      probe["periodSeconds"] = 5;
      probe["failureThreshold"] = 3;
      c["readinessProbe"] = probe;
    }
  }
  // /dev/shm as memory: NCCL and the engines' tokenizer/detokenizer processes need more than
  // the container runtime's 64 MiB default.
  auto mounts = seq_at(c, "volumeMounts", pod_where + ".containers[engine]");
  if (!mounts)
    return mounts.error();
  if (has_named(*mounts, "/dev/shm", "mountPath"))
    return ok_status();  // the template's own
  YAML::Node m;
  m["name"] = str("dshm");
  m["mountPath"] = str("/dev/shm");
  mounts->push_back(m);
  auto volumes = seq_at(*pod, "volumes", pod_where);
  if (!volumes)
    return volumes.error();
  if (!has_named(*volumes, "dshm")) {
    YAML::Node v;
    v["name"] = str("dshm");
    v["emptyDir"]["medium"] = str("Memory");
    volumes->push_back(v);
  }
  return ok_status();
}

std::string scalar_or(const YAML::Node& n, const std::string& fallback) {
  return n && n.IsScalar() ? n.Scalar() : fallback;
}

}  // namespace

std::string k8s_resource(const KubernetesOptions& options) {
  return options.nodes > 1 ? "leaderworkerset" : "job";
}

std::optional<int> engine_port(const std::vector<std::string>& argv) {
  std::optional<int> port;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& w = argv[i];
    std::optional<long long> p;
    if (w == "--port" && i + 1 < argv.size())
      p = parse_int(argv[i + 1]);
    else if (w.rfind("--port=", 0) == 0)
      p = parse_int(std::string_view(w).substr(7));
    if (p && *p > 0 && *p < 65536)
      port = static_cast<int>(*p);
  }
  if (port)
    return port;
  // No --port: the engine's own default, as its twin profile knows it.
  auto engine = engine_for_command(argv);
  if (!engine || (*engine)->twin_profile() == nullptr)
    return std::nullopt;
  auto command = (*engine)->parse_command(argv);
  if (!command)
    return std::nullopt;
  const int fallback = (*engine)->twin_profile()->endpoint(*command).port;
  return fallback > 0 ? std::optional<int>(fallback) : std::nullopt;
}

Result<std::string> render_k8s_manifest(const KubernetesOptions& o, const K8sExperiment& x,
                                        std::string_view template_yaml) {
  const bool lws = o.nodes > 1;
  const std::string kind = lws ? "LeaderWorkerSet" : "Job";
  YAML::Node root(YAML::NodeType::Map);
  if (!trim(template_yaml).empty()) {
    try {
      root = YAML::Load(std::string(template_yaml));
    } catch (const YAML::Exception& e) {
      return fail(fmt::format("not YAML: {}", e.what()));
    }
    if (!root.IsMap())
      return fail("give a Job or LeaderWorkerSet manifest (a YAML mapping)");
    const std::string have = scalar_or(root["kind"], kind);
    if (have != kind)
      return fail(fmt::format(
          "it is a {}; with --k8s-nodes {} the template is a {} (kind: {}), or give none", have,
          o.nodes, kind, kind));
  }
  root["apiVersion"] = str(lws ? kLwsApiVersion : "batch/v1");
  root["kind"] = str(kind);
  auto meta = map_at(root, "metadata", "the manifest");
  if (!meta)
    return meta.error();
  (*meta)["name"] = str(x.object_name);
  const std::string ns = scalar_or((*meta)["namespace"], "");
  if (!o.namespace_.empty())
    (*meta)["namespace"] = str(o.namespace_);
  else if (!ns.empty())
    return fail(fmt::format(
        "its metadata.namespace is {}; give it as --k8s-namespace {} so servescope looks there", ns,
        ns));
  if (Status st = fill_labels(*meta, o, x, "metadata"); !st)
    return st.error();
  if (!x.spec.stdout_path.empty()) {
    auto annotations = map_at(*meta, "annotations", "metadata");
    if (!annotations)
      return annotations.error();
    const auto slash = x.spec.stdout_path.rfind('/');
    (*annotations)[kK8sRunDirAnnotation] =
        str(slash == std::string::npos ? "." : x.spec.stdout_path.substr(0, slash));
  }
  auto spec = map_at(root, "spec", "the manifest");
  if (!spec)
    return spec.error();
  if (!lws) {
    (*spec)["backoffLimit"] = 0;  // a failed start is a result, never retried
    auto tmpl = map_at(*spec, "template", "spec");
    if (!tmpl)
      return tmpl.error();
    if (Status st = fill_pod(*tmpl, o, x, {true, true}, "spec.template"); !st)
      return st.error();
  } else {
    (*spec)["replicas"] = 1;
    if (!(*spec)["startupPolicy"])
      (*spec)["startupPolicy"] = str("LeaderCreated");
    auto lwt = map_at(*spec, "leaderWorkerTemplate", "spec");
    if (!lwt)
      return lwt.error();
    (*lwt)["size"] = o.nodes;
    // One failed pod ends the experiment: no group recreated behind the runner's back.
    (*lwt)["restartPolicy"] = str("None");
    auto worker = map_at(*lwt, "workerTemplate", "spec.leaderWorkerTemplate");
    if (!worker)
      return worker.error();
    if (!(*lwt)["leaderTemplate"] || (*lwt)["leaderTemplate"].IsNull())
      (*lwt)["leaderTemplate"] = YAML::Clone(*worker);
    auto leader = map_at(*lwt, "leaderTemplate", "spec.leaderWorkerTemplate");
    if (!leader)
      return leader.error();
    if (Status st =
            fill_pod(*leader, o, x, {true, false}, "spec.leaderWorkerTemplate.leaderTemplate");
        !st)
      return st.error();
    if (Status st =
            fill_pod(*worker, o, x, {false, false}, "spec.leaderWorkerTemplate.workerTemplate");
        !st)
      return st.error();
  }
  YAML::Emitter out;
  out.SetIndent(2);
  emit(out, root);
  if (!out.good())
    return fail(fmt::format("cannot write the manifest: {}", out.GetLastError()));
  return std::string(out.c_str()) + "\n";
}

// ---- reading pods back ----------------------------------------------------------------------

Result<std::vector<K8sPod>> parse_k8s_pods(std::string_view text) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("items") || !doc["items"].is_array())
    return fail(fmt::format("kubectl get pods printed no pod list ('{}')",
                            trim(text.substr(0, std::min<std::size_t>(text.size(), 120)))));
  auto s = [](const nlohmann::json& j, const char* key) {
    return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>()
                                                                  : std::string();
  };
  static const char* kFatalWaiting[] = {"ImagePullBackOff",     "InvalidImageName",
                                        "ErrImageNeverPull",    "CreateContainerConfigError",
                                        "CreateContainerError", "RunContainerError"};
  std::vector<K8sPod> pods;
  for (const auto& item : doc["items"]) {
    const auto& meta = item.value("metadata", nlohmann::json::object());
    const auto& spec = item.value("spec", nlohmann::json::object());
    const auto& status = item.value("status", nlohmann::json::object());
    K8sPod p;
    p.name = s(meta, "name");
    p.phase = s(status, "phase");
    p.node = s(spec, "nodeName");
    p.ip = s(status, "podIP");
    if (spec.contains("terminationGracePeriodSeconds") &&
        spec["terminationGracePeriodSeconds"].is_number_integer())
      p.grace_s = spec["terminationGracePeriodSeconds"].get<int>();
    p.deleting = meta.contains("deletionTimestamp") && !meta["deletionTimestamp"].is_null();
    const auto labels = meta.value("labels", nlohmann::json::object());
    const std::string index = s(labels, "leaderworkerset.sigs.k8s.io/worker-index");
    p.leader = index.empty() || index == "0";
    p.reason = s(status, "reason");  // Evicted, ...
    for (const auto& c : status.value("conditions", nlohmann::json::array())) {
      if (s(c, "type") == "PodScheduled" && s(c, "status") == "False") {
        p.reason = s(c, "reason");
        if (const std::string m = s(c, "message"); !m.empty())
          p.reason += ": " + m;
      }
    }
    // The engine's container: "engine", else the first.
    const auto statuses = status.value("containerStatuses", nlohmann::json::array());
    const nlohmann::json* cs = nullptr;
    for (const auto& c : statuses)
      if (s(c, "name") == "engine")
        cs = &c;
    if (cs == nullptr && !statuses.empty())
      cs = &statuses[0];
    if (cs != nullptr) {
      const auto state = cs->value("state", nlohmann::json::object());
      const auto last = cs->value("lastState", nlohmann::json::object());
      if (state.contains("waiting")) {
        const std::string why = s(state["waiting"], "reason");
        if (!why.empty()) {
          p.reason = why;
          if (const std::string m = s(state["waiting"], "message"); !m.empty())
            p.reason += ": " + m;
        }
        for (const char* f : kFatalWaiting)
          p.fatal = p.fatal || why == f;
      }
      // Terminated now, or restarted in place after it terminated (a LeaderWorkerSet's pods
      // restart their containers): the first exit is the experiment's.
      for (const auto* t : {&state, &last}) {
        if (!p.exit_code && t->contains("terminated") && (*t)["terminated"].contains("exitCode") &&
            (*t)["terminated"]["exitCode"].is_number_integer()) {
          p.exit_code = (*t)["terminated"]["exitCode"].get<int>();
          if (const std::string why = s((*t)["terminated"], "reason"); !why.empty())
            p.reason = why;
        }
      }
    }
    pods.push_back(std::move(p));
  }
  return pods;
}

const K8sPod* K8sJobState::leader() const {
  for (const K8sPod& p : pods)
    if (p.leader)
      return &p;
  return nullptr;
}

bool K8sJobState::finished() const {
  const K8sPod* l = leader();
  if (l == nullptr)
    return !object_exists || object_deleting;
  return l->exit_code.has_value() || l->phase == "Succeeded" || l->phase == "Failed" || l->fatal;
}

bool K8sJobState::pending() const {
  if (finished())
    return false;
  const K8sPod* l = leader();
  return l == nullptr || l->phase == "Pending" || l->phase.empty();
}

std::optional<int> K8sJobState::exit_status() const {
  if (!finished())
    return std::nullopt;
  const K8sPod* l = leader();
  if (l != nullptr && l->exit_code)
    return l->exit_code;
  if (l != nullptr && l->fatal)
    return 127;  // the engine never ran: like a program that cannot be executed
  if (l != nullptr && l->phase == "Succeeded")
    return 0;
  return 128 + 15;  // deleted: its pods got SIGTERM
}

std::string K8sJobState::state() const {
  const K8sPod* l = leader();
  if (l == nullptr)
    return object_exists && !object_deleting ? "PENDING" : "GONE";
  if (l->fatal)
    return "FAILED";
  return to_upper(l->phase.empty() ? "Pending" : l->phase);
}

std::string K8sJobState::reason() const {
  const K8sPod* l = leader();
  if (l == nullptr)
    return object_exists ? "no pod yet" : "";
  return l->reason;
}

}  // namespace servescope
