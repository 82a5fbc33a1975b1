// The Kubernetes launcher: each experiment is a Job (or, multi-node, a LeaderWorkerSet) that
// `kubectl apply -f` creates from the manifest written into the run folder. Its state comes
// from `kubectl get pods -l servescope.io/job=NAME -o json` (queued while the leader pod is
// Pending: unschedulable, pulling the image), its address is the leader pod's IP (servescope
// runs where pod IPs route: inside the cluster, or on a node), its log is `kubectl logs -f`
// of the leader's engine container into the run folder's stdout.log. Teardown: `kubectl
// delete` of the object with --grace-period (the pod's terminationGracePeriodSeconds), then on
// SIGKILL a forced delete of its pods. With dry_run, launch() only writes the manifest.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "lab/k8s_manifest.h"
#include "lab/posix_process_host.h"
#include "lab/tool_run.h"

namespace servescope {

class KubernetesHost final : public ProcessHost {
 public:
  /// `scratch_dir` holds kubectl's captured output; `manifest_dir` ("" = none) gets a copy of
  /// every manifest (--out). `template_yaml` is the text of --k8s-template ("" = none).
  /// `run_token` makes object names unique per bisection ("" = a random one).
  KubernetesHost(KubernetesOptions options, std::string template_yaml, std::string scratch_dir,
                 std::string manifest_dir, std::string run_token = "");

  Result<std::unique_ptr<ServerProcess>> launch(const LaunchSpec& spec) override;
  /// `job_id` is what Placement::job_id says: "job/NAME" or "leaderworkerset/NAME".
  Result<std::unique_ptr<ServerProcess>> attach(const std::string& job_id) override;
  HttpReply http_get(const std::string& url, std::chrono::milliseconds timeout) override {
    return local_.http_get(url, timeout);
  }
  /// A pod has its own network namespace: its ports are never taken by this machine's.
  bool port_free(int) override { return true; }
  int pick_port() override { return local_.pick_port(); }
  double now() override { return local_.now(); }
  double wall_time() override { return local_.wall_time(); }
  void sleep(double seconds) override { local_.sleep(seconds); }

  /// Runs kubectl (with -n NAMESPACE when given) to its end, at most the command timeout.
  Result<ToolRun> kubectl(std::vector<std::string> args);
  /// The object's and its pods' state (`kubectl get`).
  Result<K8sJobState> query(const std::string& resource, const std::string& name);
  /// Starts `kubectl logs -f` of `pod` into `path` (stdout) and `err_path`.
  Result<std::unique_ptr<ServerProcess>> follow_logs(const std::string& pod,
                                                     const std::string& path,
                                                     const std::string& err_path);
  const KubernetesOptions& options() const { return options_; }

 private:
  KubernetesOptions options_;
  std::string template_yaml_;
  std::string scratch_dir_;
  std::string manifest_dir_;
  std::string run_token_;
  PosixProcessHost local_;
  ToolRunner tools_;
};

/// A DNS-1123 name for the object of experiment `experiment` ("servescope-003") of run
/// `token`: lower case, at most 52 characters (a Job's pods add a suffix).
std::string k8s_object_name(const std::string& experiment, const std::string& token);

}  // namespace servescope
