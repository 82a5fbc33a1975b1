// vLLM's KV arithmetic in the engine-neutral account (engines/plan.h). By V2.1–V2.3,
//   available = ceil(T·U) − (W + A + N) − G,
// so the fraction multiplies the device total T, and the activation peak, non-torch growth
// and (where estimated) CUDA graphs all come out of the budget. V4.2 then divides by the
// page bytes of every KV layer.
#include "engines/vllm/capacity_rules.h"

namespace servescope::vllm {

void fill_capacity_account(PlanContext& ctx) {
  const Derivation& g = ctx.graph();
  if (g.find("kv_bytes_per_token") == nullptr || g.find("gpu_kv_cache_size_tokens") == nullptr)
    return;
  auto number = [&](const char* id) {
    const Node* n = g.find(id);
    return n != nullptr ? n->value.as_number() : 0.0;
  };
  auto estimated = [&](const char* id) {
    const Node* n = g.find(id);
    return n != nullptr && n->origin == Origin::kEstimate;
  };
  auto present = [&](const char* id) {
    return g.find(id) != nullptr ? std::string(id) : std::string();
  };
  CapacityAccount& acc = ctx.plan.account;
  acc.tokens_output = "gpu_kv_cache_size_tokens";
  acc.request_limit_output = present("max_num_seqs");

  const bool override_bytes = ctx.args.kv_cache_memory_bytes.has_value();
  const char* weights_id =
      g.find("weights_on_gpu_gib") != nullptr ? "weights_on_gpu_gib" : "weights_gib";
  acc.terms = {
      {AccountTermKind::kBase, number("device_total_memory_gib"), "T: the device total",
       "device_total_memory_gib", "", estimated("device_total_memory_gib")},
      {AccountTermKind::kFraction, number("gpu_memory_utilization"), "gpu_memory_utilization",
       "gpu_memory_utilization", "", false},
      {AccountTermKind::kWeights, number(weights_id), "W: weights measured over load_model",
       present(weights_id), "", estimated(weights_id)},
      {AccountTermKind::kActivation, number("activation_peak_gib"),
       "A: the profile run's activation peak", present("activation_peak_gib"), "",
       estimated("activation_peak_gib")},
      {AccountTermKind::kNonTorch, number("non_torch_gib"), "N: non-torch memory growth",
       present("non_torch_gib"), "", estimated("non_torch_gib")},
      {AccountTermKind::kCudaGraphs, number("cuda_graph_memory_subtracted_gib"),
       "G: the CUDA-graph estimate", present("cuda_graph_memory_subtracted_gib"),
       number("cuda_graph_memory_subtracted_gib") == 0
           ? "not subtracted in this version or mode (V2.3); graphs use the unreserved rest"
           : "",
       estimated("cuda_graph_estimate_gib")},
      {AccountTermKind::kOtherPools, 0, "other pools", "",
       "mamba state shares the KV blocks (V9.1), so it is in the bytes per token", false},
      {AccountTermKind::kBytesPerToken, number("kv_bytes_per_token"), "page bytes per token",
       "kv_bytes_per_token", "", false},
  };
  if (override_bytes) {
    // V2.4: the KV cache is the flag's bytes, nothing is profiled out of a fraction.
    acc.terms[0] = {AccountTermKind::kBase,
                    number("available_kv_cache_memory_gib"),
                    "--kv-cache-memory-bytes",
                    "available_kv_cache_memory_gib",
                    "the KV cache is sized by the flag (V2.4)",
                    false};
    acc.terms[1] = {AccountTermKind::kFraction, 1.0, "(the whole override)", "", "", false};
    for (int k = 2; k < 7; ++k) {
      acc.terms[static_cast<std::size_t>(k)].value = 0;
      acc.terms[static_cast<std::size_t>(k)].estimated = false;
      acc.terms[static_cast<std::size_t>(k)].note =
          "not subtracted under --kv-cache-memory-bytes (V2.4)";
    }
  } else if (g.find("available_kv_cache_memory_gib")->origin == Origin::kCalibration) {
    // The log's KV figure replaces R − W − A − N − G; the terms above are what the profile
    // predicts, and the difference lands in the residual.
    acc.terms[2].note =
        "the KV figure is calibrated from the log; the profile terms are shown as predicted";
  }
}

}  // namespace servescope::vllm
