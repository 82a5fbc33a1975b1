// libFuzzer target: what the cluster launchers read back from their schedulers — a
// `scontrol show job -o` record and the job state derived from it, sbatch's job id, and
// `kubectl get pods -o json` with the experiment state derived from it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lab/k8s_manifest.h"
#include "lab/slurm_job.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace servescope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const SlurmJobState s = slurm_job_state(parse_scontrol_record(text));
  (void)s.pending();
  (void)s.finished();
  (void)first_node(text.substr(0, 256));
  (void)parse_sbatch_job_id(text);
  if (auto pods = parse_k8s_pods(text)) {
    K8sJobState k;
    k.pods = std::move(*pods);
    (void)k.pending();
    (void)k.finished();
    (void)k.exit_status();
    (void)k.state();
    (void)k.reason();
  }
  return 0;
}
