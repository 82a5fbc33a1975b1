// R3.1–R3.4: the memory profile (mem_cache/kv_cache_configurator.py::
// KVCacheConfigurator._profile_available_bytes).
#include <fmt/format.h>

#include "catalog/weight_estimate.h"
#include "core/text.h"
#include "core/units.h"
#include "engines/sglang/capacity_rules.h"
#include "engines/shared_sysmem.h"

namespace servescope::sglang {
namespace {

// CUDA context, NCCL communicators and custom-allreduce buffers taken before the weights
// load. Read off real logs: total − "Load weight begin. avail mem" is 0.84 GiB on an H100
// at tp 1 and 0.86 GiB on L4s at tp 4 (corpus), so 0.85 GiB is the estimate; an RTX 3090 under
// WSL 2, whose desktop shares the GPU, shows 1.24 GiB: the estimate's interval is 0.84–1.24.
constexpr double kPreLoadOverheadGib = 0.85;
constexpr double kPreLoadOverheadLeastGib = 0.84;
constexpr double kPreLoadOverheadMostGib = 1.24;
// What the OS and its services hold of a unified-memory GPU's total at startup (R3.1): at
// least 7.15 GiB, at most 13.51 GiB in the published DGX Spark logs (tests/gb10/logs: vLLM's
// free-at-startup 114.54 and 108.18 of 121.69 GiB).
constexpr double kIntegratedHeldGib = 7.15;
constexpr double kIntegratedHeldMostGib = 13.51;

}  // namespace

void resolve_memory_budget(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  Plan& plan = ctx.plan;
  const Calibration& cal = ctx.scenario.calibration;
  const ModelShape& m = ctx.scenario.model;
  const double total_gib = a.gpu_memory_mib / 1024.0;
  // R3.1 on a GPU that uses system memory as device memory (engines/shared_sysmem.h):
  // cudaMemGetInfo's free leaves the page cache out, so SGLang reads the system's available
  // memory instead (utils/common.py::get_available_gpu_memory): by SM from release 0.5.4, by
  // torch's is_integrated from 0.5.9; before 0.5.4 cudaMemGetInfo's free.
  const GpuSpec& gpu = ctx.scenario.hardware.gpu;
  const bool integrated = is_integrated_cuda_device(gpu);
  const SystemMemoryAsFree rule = ctx.rules.system_memory_as_free;
  const bool psutil = reads_system_memory_as_free(rule, gpu);

  // R3.1 P: free memory after torch.distributed/NCCL init, before any weight.
  double p = 0;
  if (cal.free_before_load_gib) {
    p = *cal.free_before_load_gib;
    g.input("free_before_load_gib", p, "GiB", Origin::kCalibration, cal.source,
            "P: free memory before the weights load (\"Load weight begin. avail mem\").");
  } else if (integrated) {
    // R3.1 on a unified-memory GPU P is the system's available memory (below): the OS and its
    // services hold part of it. The least a published DGX Spark startup left out of 121.69 GiB
    // is 7.15 GiB (vLLM's snapshot of the same psutil figure, 114.54 free, an idle Spark).
    p = g.estimate(
        {"free_before_load_gib", total_gib - kIntegratedHeldGib, "GiB", "",
         psutil ? "P: on a unified-memory GPU the system's available memory (R3.1), estimated; "
                  "give --free-before-load as `free -g`'s 'available' for an exact plan."
                : "P: this release reads cudaMemGetInfo's free, the kernel's MemFree, so the page "
                  "cache is out of it too (not estimated); give --free-before-load as `free -g`'s "
                  "'free' for an exact plan.",
         fmt::format("estimate: {:.2f} GiB total − {:.2f} GiB held by the OS and its services "
                     "(the least a published DGX Spark startup shows; the most, {:.2f}); every "
                     "other process on the machine lowers it further",
                     total_gib, kIntegratedHeldGib, kIntegratedHeldMostGib)},
        total_gib - kIntegratedHeldMostGib, total_gib - kIntegratedHeldGib);
    plan.estimated.push_back("free_before_load");
  } else {
    p = g.estimate(
        {"free_before_load_gib", total_gib - kPreLoadOverheadGib, "GiB", "",
         "P estimated; give --free-before-load (or --calibrate-from LOG) for an exact plan.",
         fmt::format("estimate: {:.2f} GiB total − {:.2f} GiB CUDA context and NCCL (published "
                     "logs: {:.2f}–{:.2f} GiB)",
                     total_gib, kPreLoadOverheadGib, kPreLoadOverheadLeastGib,
                     kPreLoadOverheadMostGib)},
        total_gib - kPreLoadOverheadMostGib, total_gib - kPreLoadOverheadLeastGib);
    plan.estimated.push_back("free_before_load");
  }
  if (integrated) {
    const std::string reading =
        !psutil ? "this SGLang (before 0.5.4) takes free memory from cudaMemGetInfo, which on "
                  "this device is the kernel's MemFree: the page cache counts as used, so a "
                  "model file just read or downloaded shrinks P and the KV pool until the cache "
                  "is dropped"
                : fmt::format(
                      "SGLang takes free memory as the system's available memory "
                      "({}; psutil: page cache counts as free), so the OS, the page "
                      "cache it cannot drop and every other process on the machine come "
                      "out of P and of the KV pool",
                      rule == SystemMemoryAsFree::kSharedSysmemSms
                          ? fmt::format("SM {}.{}, one of the three this release lists",
                                        gpu.cc_major, gpu.cc_minor)
                          : std::string("torch: is_integrated"));
    ctx.finding(
        Severity::kInfo, "unified-memory", {},
        fmt::format("{} shares its memory with the CPU: {}; --mem-fraction-static "
                    "applies to that P, not to the device's total, and what other "
                    "tenants take between the weight load and the pool's allocation is "
                    "lost to the pool. Give --free-before-load as the {} with the "
                    "machine as it will serve.",
                    gpu.smi_name, reading,
                    psutil ? "'available' column of `free -g`" : "'free' column of `free -g`"),
        "R3.1", "python/sglang/srt/utils/common.py::get_available_gpu_memory");
    // R3.1/R3.2 with P and A from a log: SGLang reads P at the end of init_torch_distributed,
    // before "Load weight begin" prints its own reading, and re-reads A in
    // profile_max_num_token, after "Load weight end". Memory shared with the CPU (psutil's
    // available or MemFree alike) drops with the host memory the process takes in between (the
    // model-class imports: ~0.1 GiB in published Spark boots), so P is at least the logged
    // reading and A at most: the pools computed from the log are the most the engine could
    // have made.
    const bool from_log = cal.source.rfind("log", 0) == 0;
    if (from_log && cal.free_before_load_gib) {
      const std::string why = fmt::format(
          "on {} SGLang reads P and A from memory it shares with the CPU, before and after the "
          "'Load weight' lines print theirs, and host memory the process takes in between is "
          "not in the log (R3.1)",
          gpu.smi_name);
      plan.upper_bounds["max_total_num_tokens"] = why;
      plan.upper_bounds["max_mamba_cache_size"] = why;
    }
  }

  // R3.2 A: free memory after the target and draft weights load.
  const bool loads_draft = a.speculative() && a.speculative_algorithm != "NGRAM";
  double avail = 0;
  if (cal.free_after_load_gib) {
    avail = *cal.free_after_load_gib;
    g.input("free_after_load_gib", avail, "GiB", Origin::kCalibration, cal.source,
            "A: free memory after target and draft weights (\"Load weight end. avail mem\").");
    plan.memory.push_back({"weights + draft (P − A)", p - avail, "calibration"});
  } else {
    WeightLayout layout;
    layout.tp = static_cast<int>(a.tp);
    layout.include_vision = !a.language_only;
    const WeightEstimate weights = estimate_weights(m, layout);
    const double estimated_gib = weights.bytes_per_gpu / kGiB;
    const double draft_gib = loads_draft ? weights.draft_bytes_per_gpu / kGiB : 0.0;
    const auto [least_gib, most_gib] = weight_estimate_range(estimated_gib);
    const double weight_gib = g.estimate(
        {"weights_gib", estimated_gib, "GiB", "",
         "Weight bytes per GPU estimated from the model shape.",
         fmt::format("estimate from config.json: {:.1f} B parameters, {}, split over tp {} ({})",
                     weights.total_params / 1e9,
                     m.quant.method == QuantMethod::kNone ? m.dtype : m.quant.describe(), a.tp,
                     kWeightEstimateSpreadNote)},
        least_gib, most_gib);
    std::vector<std::string> inputs = {"free_before_load_gib", "weights_gib"};
    if (loads_draft) {
      g.input("draft_weights_gib", draft_gib, "GiB", Origin::kEstimate,
              fmt::format("estimate: {} MTP/draft layer(s)", std::max(1, m.mtp_layers)),
              "Draft weights load before sizing (R3.2).");
      inputs.push_back("draft_weights_gib");
    }
    avail = p - weight_gib - draft_gib;
    g.add({"free_after_load_gib", avail, "GiB", "R3.2",
           "A estimated as P − weights − draft weights; give --free-after-load for an exact plan.",
           "kv_cache_configurator.py::KVCacheConfigurator._profile_available_bytes", inputs});
    plan.estimated.push_back("free_after_load");
    plan.memory.push_back({"weights", weight_gib, "estimate"});
    if (loads_draft)
      plan.memory.push_back({"draft weights", draft_gib, "estimate"});
  }

  // R3.3 slack and R3.4 rest.
  const double mfs = g.value("mem_fraction_static").as_number();
  const double slack = p * (1 - mfs);
  g.add({"slack_gib",
         slack,
         "GiB",
         "R3.3",
         fmt::format("P·(1 − mem_fraction_static) = {:.3f}·(1 − {:.4f}): runtime headroom for "
                     "activations, CUDA graphs and the request table.",
                     p, mfs),
         "kv_cache_configurator.py::KVCacheConfigurator._profile_available_bytes",
         {"free_before_load_gib", "mem_fraction_static"}});
  double rest = avail - slack;
  std::string rest_why = fmt::format(
      "A − slack = {:.3f} − {:.3f}: what the KV cache and mamba state may use.", avail, slack);
  std::vector<std::string> rest_inputs = {"free_after_load_gib", "slack_gib"};
  if (ctx.rules.mm_kv_reservation && a.multimodal) {
    // S23 (#34141, 2026-08-12): multimodal allocations made after the pools are sized (the
    // embedding cache, SGLANG_VLM_CACHE_SIZE_MB, 100 by default) come out of the KV budget
    // (kv_cache_configurator.py::mm_runtime_reservation_gb).
    const auto& env = ctx.scenario.environment;
    const auto it = env.find("SGLANG_VLM_CACHE_SIZE_MB");
    const double mb = it == env.end() ? 100.0 : parse_double(it->second).value_or(100.0);
    const double reservation = mb / 1024;
    g.add({"mm_reservation_gib",
           reservation,
           "GiB",
           "R3.4",
           fmt::format("SGLANG_VLM_CACHE_SIZE_MB {:.0f} for the multimodal embedding cache, "
                       "allocated after the pools.",
                       mb),
           "kv_cache_configurator.py::mm_runtime_reservation_gb",
           {}});
    rest -= reservation;
    rest_why = fmt::format(
        "A − slack − multimodal reservation = {:.3f} − {:.3f} − {:.3f}: what the KV cache and "
        "mamba state may use.",
        avail, slack, reservation);
    rest_inputs.push_back("mm_reservation_gib");
  }
  g.add({"rest_gib", rest, "GiB", "R3.4", rest_why,
         "kv_cache_configurator.py::KVCacheConfigurator._profile_available_bytes", rest_inputs});
  plan.memory.insert(plan.memory.begin(), {"GPU memory (nvidia-smi)", total_gib, "catalog"});
  plan.memory.insert(
      plan.memory.begin() + 1,
      {"free before weight load (P)", p, cal.free_before_load_gib ? "calibration" : "estimate"});
  plan.memory.push_back(
      {"free after weight load (A)", avail, cal.free_after_load_gib ? "calibration" : "estimate"});
  plan.memory.push_back({"runtime slack P·(1−mfs)", slack, "rule"});
}

}  // namespace servescope::sglang
