// What servescope says to Kubernetes and reads back, as pure functions: the manifest of one
// experiment (a batch/v1 Job on one node, a LeaderWorkerSet of leader + workers on several),
// rendered from the options or from a user's template, and the state of the experiment's pods
// as `kubectl get pods -o json` prints them. KubernetesHost (lab/k8s_host.h) runs kubectl.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "lab/process_host.h"

namespace servescope {

/// How each experiment's object is shaped: from the --k8s-* options.
struct KubernetesOptions {
  std::string image;              // the engine's container image (required)
  std::string namespace_;         // "" = the kubectl context's namespace
  int gpus = 0;                   // nvidia.com/gpu limit per pod (0: none asked)
  int nodes = 1;                  // pods per experiment; more than one is a LeaderWorkerSet
  std::string template_path;      // --k8s-template: a Job or LeaderWorkerSet YAML to start from
  bool dry_run = false;           // write the manifests, apply nothing
  double poll_s = 2;              // kubectl is asked about an experiment at most this often
  double command_timeout_s = 60;  // the longest an apply, get or delete may take
};

/// The labels every object and pod of servescope carries; the annotation holds the run folder
/// (for --resume: the log of a re-attached experiment goes back there).
inline constexpr const char* kK8sJobLabel = "servescope.io/job";
inline constexpr const char* kK8sExperimentLabel = "servescope.io/experiment";
inline constexpr const char* kK8sRunDirAnnotation = "servescope.io/run-dir";

/// One experiment's object, as the renderer needs it.
struct K8sExperiment {
  std::string object_name;  // the Job's or LeaderWorkerSet's name: "servescope-003-k3x9q"
  LaunchSpec spec;          // argv → command, env, cwd → workingDir, name → experiment label
};

/// "job" or "leaderworkerset": the kind of object the options render, as kubectl names it.
std::string k8s_resource(const KubernetesOptions& options);

/// The port the engine listens on, from the command's --port (else the engine's default:
/// 30000 for SGLang, 8000 for vLLM); nullopt when neither says.
std::optional<int> engine_port(const std::vector<std::string>& argv);

/// The manifest of one experiment as YAML. Without a template: a Job (restartPolicy Never,
/// backoffLimit 0) or, for nodes > 1, a LeaderWorkerSet of size nodes whose leader and workers
/// run the same command (Kubernetes expands $(LWS_LEADER_ADDRESS), $(LWS_WORKER_INDEX) and
/// $(LWS_GROUP_SIZE) in it). The container "engine" gets the image, the command, the
/// environment, nvidia.com/gpu limits, a readiness probe on /health at the engine's port (the
/// leader's only) and /dev/shm as a memory-backed emptyDir. With `template_yaml` (the text of
/// --k8s-template), everything the template sets and these do not is kept.
Result<std::string> render_k8s_manifest(const KubernetesOptions& options,
                                        const K8sExperiment& experiment,
                                        std::string_view template_yaml = {});

/// A pod of an experiment as servescope needs it.
struct K8sPod {
  std::string name;
  std::string phase;      // Pending, Running, Succeeded, Failed, Unknown
  std::string node;       // spec.nodeName ("" until scheduled)
  std::string ip;         // status.podIP ("" until it runs)
  bool leader = true;     // a Job's pod, or worker index 0 of a LeaderWorkerSet
  bool deleting = false;  // metadata.deletionTimestamp is set
  std::string reason;     // why it waits or ended: Unschedulable: 0/4 nodes ..., ImagePullBackOff
  bool fatal = false;     // it waits for something that will not come (a bad image, config)
  std::optional<int> exit_code;  // the engine container's, once it terminated (or restarted)
  std::optional<int> grace_s;    // spec.terminationGracePeriodSeconds
};

/// The pods of `kubectl get pods -l ... -o json`; fails on output that is not a PodList.
Result<std::vector<K8sPod>> parse_k8s_pods(std::string_view json);

/// An experiment's state, from its object and its pods.
struct K8sJobState {
  bool object_exists = true;     // the Job or LeaderWorkerSet is still there
  bool object_deleting = false;  // its deletionTimestamp is set
  std::vector<K8sPod> pods;

  const K8sPod* leader() const;
  /// Waits in the queue: no pod yet, or the leader is Pending for a reason that may pass.
  bool pending() const;
  /// Nothing of it runs any more: the leader terminated, or object and pods are gone.
  bool finished() const;
  /// The engine's exit status once finished (nullopt: not known).
  std::optional<int> exit_status() const;
  std::string state() const;   // PENDING, RUNNING, SUCCEEDED, FAILED, GONE
  std::string reason() const;  // the leader's reason
};

}  // namespace servescope
