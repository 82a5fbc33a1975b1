// V2.1–V2.8: the worker's memory profile and the bytes left for the KV cache
// (vllm/v1/worker/gpu_worker.py::Worker.determine_available_memory, vllm/utils/mem_utils.py).
#include <fmt/format.h>

#include <cmath>

#include "catalog/embedded_data.h"
#include "catalog/weight_estimate.h"
#include "core/text.h"
#include "core/units.h"
#include "engines/shared_sysmem.h"
#include "engines/vllm/capacity_rules.h"
#include "engines/vllm/extensible_kv_cache.h"

namespace servescope::vllm {
namespace {

constexpr char kWorker[] = "vllm/v1/worker/gpu_worker.py::Worker.determine_available_memory";

// Estimates fitted to the 59 runs of the v0.19.0 H100 sweep (corpus), for plans without a log.
// A: the sampler's dummy run over min(max_num_seqs, tokens) rows of full-vocabulary fp32 logits
// dominates; 3.05 × that tensor + 0.40 GiB reproduces the dense models within ±0.5 GiB.
constexpr double kActivationLogitsFactor = 3.05;
constexpr double kActivationBaseGib = 0.40;
constexpr double kActivationSpreadGib = 0.5;
// N: 0.24–0.27 GiB at TP 1 (granite 0.46); 2.06–2.21 GiB at TP 2–4 on H100, where the
// FlashInfer allreduce-fusion workspace is allocated.
constexpr double kNonTorchTp1Gib = 0.25;
constexpr double kNonTorchTp1LeastGib = 0.24;
constexpr double kNonTorchTp1MostGib = 0.46;
constexpr double kNonTorchFusionGib = 2.1;
constexpr double kNonTorchFusionLeastGib = 2.06;
constexpr double kNonTorchFusionMostGib = 2.21;
constexpr double kNonTorchTpGib = 0.5;
// G: the sweep's graph pools took 0.51–1.85 GiB.
constexpr double kCudaGraphGib = 1.0;
constexpr double kCudaGraphLeastGib = 0.51;
constexpr double kCudaGraphMostGib = 1.85;
// Memory in use before the init snapshot (CUDA context, NCCL): 0.51 GiB at TP 1 (all 42 runs),
// 1.43–2.07 GiB at TP 2–4, 1.53 the most common (sweep "Free memory on device (F/T GiB)").
constexpr double kPreSnapshotTp1Gib = 0.51;
constexpr double kPreSnapshotTpGib = 1.53;
constexpr double kPreSnapshotTpLeastGib = 1.43;
constexpr double kPreSnapshotTpMostGib = 2.07;
// On a unified-memory GPU the snapshot's free memory is psutil's available memory, so the OS and
// its services come out of it too: the least a published DGX Spark log left out of 121.69 GiB is
// 7.15 GiB ("Free memory on device (114.54/121.69 GiB)", an idle Spark, vLLM 0.27.1); an idle
// head node of a two-Spark kit reported 110.37 (MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks#47).
constexpr double kIntegratedHeldGib = 7.15;
constexpr double kIntegratedHeldMostGib = 13.51;  // 108.18 of 121.69 free (tests/gb10/logs)
constexpr double kIntegratedIdleFreeGib = 110.37;
constexpr double kIntegratedIdleTotalGib = 121.69;

struct DeviceTotal {
  std::string key;
  double mib = 0;
  std::string evidence;
};

const std::vector<DeviceTotal>& device_totals() {
  static const std::vector<DeviceTotal> kTotals = [] {
    std::vector<DeviceTotal> out;
    const auto rows = embedded_csv("vllm/device-total-memory.csv");
    for (std::size_t i = 1; i < rows.size(); ++i) {
      const auto& row = rows[i];
      if (row.size() < 3 || row[0].empty() || row[0][0] == '#')
        continue;
      out.push_back({row[0], parse_double(row[1]).value_or(0), row[2]});
    }
    return out;
  }();
  return kTotals;
}

double gib(const Derivation& g, std::string_view id) {
  return g.value(id).as_number();
}

}  // namespace

double device_total_gib(PlanContext& ctx) {
  Derivation& g = ctx.graph();
  if (const Node* n = g.find("device_total_memory_gib"))
    return n->value.as_number();
  const Calibration& cal = ctx.scenario.calibration;
  const GpuSpec& gpu = ctx.scenario.hardware.gpu;
  if (cal.total_memory_gib) {
    g.input("device_total_memory_gib", *cal.total_memory_gib, "GiB", Origin::kCalibration,
            cal.source.rfind("log", 0) == 0 ? cal.source : std::string("--total-memory"),
            "T: the device total the worker's memory snapshot reports.");
    return *cal.total_memory_gib;
  }
  for (const DeviceTotal& d : device_totals()) {
    if (d.key == gpu.key) {
      g.input("device_total_memory_gib", d.mib / 1024.0, "GiB", Origin::kCatalog,
              "data/vllm/device-total-memory.csv " + d.key + ": " + d.evidence,
              gpu.integrated
                  ? "T: cudaMemGetInfo total, on a unified-memory GPU the system's MemTotal, "
                    "shared with the CPU and the OS (V2.1); give --total-memory for another "
                    "kernel's figure."
                  : "T: cudaMemGetInfo total (below the NVML total); varies with the driver by a "
                    "few MiB.");
      return d.mib / 1024.0;
    }
  }
  const double nvml = static_cast<double>(gpu.memory_mib) / 1024.0;
  const double t = g.estimate(
      {"device_total_memory_gib", nvml - 0.6, "GiB", "",
       "T estimated; give --total-memory (the log's total_memory) for an exact plan.",
       fmt::format("estimate: NVML total {:.2f} GiB − 0.6 GiB (data/GPUS-SOURCES.md: the CUDA "
                   "total is 0.3–0.9 GiB lower)",
                   nvml)},
      nvml - 0.9, nvml - 0.3);
  ctx.plan.estimated.push_back("device_total_memory");
  return t;
}

namespace {

// V2.9: the graphs' pool the measurement sees (the log's actual figure, else the estimate),
// then the measured KV size.
void resolve_extensible_memory(PlanContext& ctx, ProfileFigures p) {
  const Calibration& cal = ctx.scenario.calibration;
  const bool graphs = ctx.args.cudagraph_mode != "NONE" && !ctx.args.enforce_eager;
  constexpr char kPoolWhy[] = "The CUDA graphs' pool, resident when the cache is measured.";
  if (graphs && !cal.cuda_graph_gib) {
    p.graph_pool_gib =
        ctx.graph().estimate({"cuda_graph_pool_gib", kCudaGraphGib, "GiB", "", kPoolWhy,
                              "estimate: the v0.19.0 sweep's graph pools took 0.51–1.85 GiB"},
                             kCudaGraphLeastGib, kCudaGraphMostGib);
  } else {
    p.graph_pool_gib = !graphs ? 0 : *cal.cuda_graph_gib;
    ctx.graph().input("cuda_graph_pool_gib", p.graph_pool_gib, "GiB",
                      graphs ? Origin::kCalibration : Origin::kDerived,
                      !graphs ? "no CUDA graphs are captured" : "the log's actual CUDAGraph memory",
                      kPoolWhy);
  }
  resolve_measured_kv(ctx, p);
}

}  // namespace

void resolve_memory_profile(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  Plan& plan = ctx.plan;
  const Calibration& cal = ctx.scenario.calibration;
  // V2.1 on a GPU that uses system memory as device memory (engines/shared_sysmem.h): from
  // 0.11.1 the snapshot's free memory is the system's available memory
  // (utils/mem_utils.py::MemorySnapshot.measure); before, cudaMemGetInfo's, the kernel's MemFree.
  const GpuSpec& gpu = ctx.scenario.hardware.gpu;
  const bool integrated = is_integrated_cuda_device(gpu);
  const bool psutil_free = reads_system_memory_as_free(ctx.rules.system_memory_as_free, gpu);
  const ModelShape& m = ctx.scenario.model;
  // A log reader names the log line; options typed by hand name the option.
  const bool from_log = cal.source.rfind("log", 0) == 0;
  auto cal_source = [&](const char* option) { return from_log ? cal.source : std::string(option); };

  // V2.1 requested memory R = ceil(T × U) and the startup check against the init snapshot.
  const double total = device_total_gib(ctx);
  const double total_bytes = total * kGiB;
  const double requested_bytes = std::ceil(total_bytes * a.gpu_memory_utilization);
  g.add({"gpu_memory_utilization",
         a.gpu_memory_utilization,
         "",
         "V2.1",
         ctx.in.setting_for("gpu_memory_utilization") != nullptr
             ? "As typed: a fraction of the device's total memory."
         : a.extensible_kv_cache
             ? "Unset with the extensible KV cache: 1.0, the whole device "
               "(CacheConfig.resolved_gpu_memory_utilization); the cache is measured instead."
             : fmt::format("vLLM's default on this date ({}).",
                           ctx.rules.default_gpu_memory_utilization == 0.92
                               ? "0.92 since #38284, 2026-04-21"
                               : "0.9 before #38284"),
         "vllm/config/cache.py::CacheConfig.gpu_memory_utilization",
         {"arg.gpu_memory_utilization"}});
  g.add({"requested_memory_gib",
         requested_bytes / kGiB,
         "GiB",
         "V2.1",
         fmt::format("R = ceil(T × U) = ceil({:.2f} GiB × {}).", total, a.gpu_memory_utilization),
         "vllm/v1/worker/utils.py::request_memory",
         {"device_total_memory_gib", "gpu_memory_utilization"}});
  plan.memory.push_back(
      {"device total T (cudaMemGetInfo)", total,
       g.find("device_total_memory_gib")->origin == Origin::kCalibration
           ? "log"
           : (g.find("device_total_memory_gib")->origin == Origin::kEstimate ? "estimate"
                                                                             : "catalog")});
  plan.memory.push_back({"requested R = ceil(T·U)", requested_bytes / kGiB, "rule"});

  double free_at_start = 0;
  if (cal.free_before_load_gib) {
    free_at_start = *cal.free_before_load_gib;
    g.input("free_at_startup_gib", free_at_start, "GiB", Origin::kCalibration,
            cal_source("--free-before-load"),
            "Free memory in the worker's init snapshot (after NCCL, before the weights).");
  } else if (integrated) {
    free_at_start = g.estimate(
        {"free_at_startup_gib", total - kIntegratedHeldGib, "GiB", "",
         psutil_free
             ? "Free memory at the init snapshot: on a unified-memory GPU the system's available "
               "memory (V2.1), estimated; give --free-before-load as `free -g`'s 'available'."
             : "Free memory at the init snapshot: this release reads cudaMemGetInfo's free, the "
               "kernel's MemFree, so the page cache is out of it too (not estimated); give "
               "--free-before-load as `free -g`'s 'free'.",
         fmt::format("estimate: T − {:.2f} GiB held by the OS and its services, the least a "
                     "published DGX Spark log shows (114.54 of 121.69 GiB free at startup; the "
                     "most, {:.2f}); every other process on the machine lowers it further",
                     kIntegratedHeldGib, kIntegratedHeldMostGib)},
        total - kIntegratedHeldMostGib, total - kIntegratedHeldGib);
  } else {
    const bool tp1 = a.tp * a.pp == 1;
    const double used = tp1 ? kPreSnapshotTp1Gib : kPreSnapshotTpGib;
    const double least = tp1 ? kPreSnapshotTp1Gib : kPreSnapshotTpLeastGib;
    const double most = tp1 ? kPreSnapshotTp1Gib : kPreSnapshotTpMostGib;
    free_at_start = g.estimate(
        {"free_at_startup_gib", total - used, "GiB", "",
         "Free memory at the init snapshot, estimated; give --free-before-load.",
         fmt::format("estimate: T − {:.2f} GiB CUDA context and NCCL (v0.19.0 sweep: {:.2f}–{:.2f} "
                     "GiB at this TP)",
                     used, least, most)},
        total - most, total - least);
  }
  if (integrated && !psutil_free) {
    ctx.finding(
        Severity::kInfo, "unified-memory", {ctx.in.typed("gpu_memory_utilization")},
        fmt::format("{} shares its memory with the CPU, and this release reads free memory as "
                    "cudaMemGetInfo's (the kernel's MemFree: the page cache counts as used; "
                    "psutil's available memory only from 0.11.1), then requests ceil(total × "
                    "gpu_memory_utilization) of it at startup: model files read before the start "
                    "can fail it until `sync; echo 3 > /proc/sys/vm/drop_caches`. Give "
                    "--free-before-load as the 'free' column of `free -g`.",
                    gpu.smi_name),
        "V2.1", "vllm/utils/__init__.py::MemorySnapshot.measure (torch.cuda.mem_get_info)");
  }
  if (psutil_free) {
    const bool by_sm = ctx.rules.system_memory_as_free == SystemMemoryAsFree::kSharedSysmemSms;
    ctx.finding(
        Severity::kInfo, "unified-memory", {ctx.in.typed("gpu_memory_utilization")},
        fmt::format("{} shares its memory with the CPU{}: vLLM reads free memory as the "
                    "system's available memory (psutil; page cache counts as free), not "
                    "cudaMemGetInfo, "
                    "and requests ceil(total × gpu_memory_utilization) of it at startup; the OS "
                    "and every other process share that memory, so what they hold or take "
                    "between the profile and the KV allocation fails the start or is lost to "
                    "the KV cache. Give --free-before-load as the 'available' column of `free "
                    "-g` with the machine as it will serve.",
                    gpu.smi_name,
                    by_sm ? fmt::format(" (SM {}.{}, one of the three this release lists)",
                                        gpu.cc_major, gpu.cc_minor)
                          : std::string(" (torch: is_integrated)")),
        "V2.1", "vllm/utils/mem_utils.py::MemorySnapshot.measure");
    // Published Spark logs: 99.33 to 114.54 GiB of 121.69 free at startup. A request above an
    // idle head node's 110.37 GiB already fails on some machines as they come.
    const double idle_free = total - (kIntegratedIdleTotalGib - kIntegratedIdleFreeGib);
    if (!cal.free_before_load_gib && requested_bytes > idle_free * kGiB) {
      ctx.finding(Severity::kWarning, "integrated-startup-margin",
                  {ctx.in.typed("gpu_memory_utilization")},
                  fmt::format("gpu_memory_utilization {} requests {:.2f} GiB of {:.2f}: more than "
                              "the {:.2f} GiB an idle DGX Spark head node had free at startup "
                              "({:.2f} of {:.2f}, MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks#47); "
                              "vLLM refuses to start whenever the OS, the page cache it cannot "
                              "drop and other processes leave less. Measure `free -g` "
                              "'available' and pass it as --free-before-load.",
                              a.gpu_memory_utilization, requested_bytes / kGiB, total, idle_free,
                              kIntegratedIdleFreeGib, kIntegratedIdleTotalGib),
                  "V2.1", "vllm/v1/worker/utils.py::request_memory");
    }
  }
  // V2.9: request_memory skips the startup check when the cache is measured after warmup.
  if (free_at_start * kGiB < requested_bytes && !a.extensible_kv_cache) {
    const std::string error = fmt::format(
        "ValueError: Free memory on device ({:.2f}/{:.2f} GiB) on startup is less than desired "
        "GPU memory utilization ({}, {:.2f} GiB). Decrease GPU memory utilization or reduce GPU "
        "memory used by other processes.",
        free_at_start, total, a.gpu_memory_utilization, requested_bytes / kGiB);
    if (cal.free_before_load_gib) {
      ctx.refuse(error);
      ctx.finding(Severity::kError, "startup-free-memory", {ctx.in.typed("gpu_memory_utilization")},
                  error, "V2.1", "vllm/v1/worker/utils.py::request_memory");
    } else {
      ctx.finding(Severity::kWarning, "startup-free-memory",
                  {ctx.in.typed("gpu_memory_utilization")},
                  "with the estimated free memory at startup, vLLM would refuse to start: " + error,
                  "V2.1", "vllm/v1/worker/utils.py::request_memory");
    }
  }

  // V2.4 --kv-cache-memory-bytes: no profiling subtraction and no CUDA-graph estimate.
  if (a.kv_cache_memory_bytes) {
    const double kv = static_cast<double>(*a.kv_cache_memory_bytes);
    g.add({"available_kv_cache_memory_bytes",
           kv,
           "bytes",
           "V2.4",
           "--kv-cache-memory-bytes, used verbatim per GPU: no memory profiling is subtracted "
           "and gpu_memory_utilization only gates startup.",
           "vllm/v1/worker/gpu_worker.py::Worker.determine_available_memory",
           {"arg.kv_cache_memory_bytes"}});
    g.add({"available_kv_cache_memory_gib",
           kv / kGiB,
           "GiB",
           "V2.4",
           "The override in GiB (vLLM prints no 'Available KV cache memory' line).",
           kWorker,
           {"available_kv_cache_memory_bytes"}});
    plan.memory.push_back({"KV cache (--kv-cache-memory-bytes)", kv / kGiB, "flag"});
    return;
  }

  // V2.6 W: weights (and drafter weights) measured over load_model.
  double weights = 0;
  if (cal.weights_gib) {
    weights = *cal.weights_gib;
    g.input("weights_gib", weights, "GiB", Origin::kCalibration, cal_source("--weights"),
            "W: torch memory allocated by load_model ('Model loading took W GiB'), drafter "
            "included.");
  } else {
    WeightLayout layout;
    layout.tp = static_cast<int>(a.tp);
    // The weights as loaded: in the runtime dtype, and FP8 when --quantization fp8 quantizes
    // a 16-bit checkpoint online.
    ModelShape loaded = m;
    loaded.dtype = ctx.graph().value("model_dtype").as_string();
    const auto online = ctx.in.optional_text("quantization");
    if (online && online->find("fp8") != std::string::npos &&
        m.quant.method == QuantMethod::kNone) {
      loaded.quant.method = QuantMethod::kFp8;
      loaded.quant.name = "fp8 (online)";
      loaded.quant.weight_bits = 8;
    }
    const WeightEstimate w = estimate_weights(loaded, layout);
    weights = (w.bytes_per_gpu + (a.spec_method == "mtp" ? w.draft_bytes_per_gpu : 0)) / kGiB;
    // A separate draft model loads its own weights beside the target's (V2.6: load_model
    // measures both). EAGLE heads share the target's embeddings and are small: not added.
    if (a.spec_method == "draft_model" && ctx.scenario.draft_model)
      weights += estimate_weights(*ctx.scenario.draft_model, layout).bytes_per_gpu / kGiB;
    weights /= static_cast<double>(a.pp);
    const auto [least, most] = weight_estimate_range(weights);
    weights = g.estimate(
        {"weights_gib", weights, "GiB", "",
         "W estimated from the model shape; give --weights (the log's 'Model loading took').",
         fmt::format("estimate from config.json: {:.1f} B parameters, {}, split over tp {} and pp "
                     "{} ({})",
                     w.total_params / 1e9,
                     m.quant.method == QuantMethod::kNone ? m.dtype : m.quant.describe(), a.tp,
                     a.pp, kWeightEstimateSpreadNote)},
        least, most);
    if (!cal.kv_memory_gib)
      plan.estimated.push_back("weights");
  }
  const double offload = ctx.in.real("cpu_offload_gb", 0, "GiB");
  if (offload > 0 && !cal.weights_gib) {
    weights = std::max(0.0, weights - offload);
    g.add({"weights_on_gpu_gib",
           weights,
           "GiB",
           "V2.6",
           fmt::format("{:.2f} GiB of weights stay in CPU memory (--cpu-offload-gb).", offload),
           "vllm/model_executor/models/utils.py::maybe_offload_to_cpu",
           {"weights_gib", "arg.cpu_offload_gb"}});
  }
  const std::string weights_id =
      offload > 0 && !cal.weights_gib ? "weights_on_gpu_gib" : "weights_gib";

  // V2.7 A: the activation peak of the profile run.
  double activation = 0;
  if (cal.activation_peak_gib) {
    activation = *cal.activation_peak_gib;
    g.input("activation_peak_gib", activation, "GiB", Origin::kCalibration,
            cal_source("--activation-peak"),
            "A: torch peak increase over profile_run ('torch peak memory increase').");
  } else {
    const double rows = static_cast<double>(std::min(a.max_num_seqs, a.max_num_batched_tokens));
    const double logits_gib = rows * m.vocab_size * 4.0 / kGiB;
    activation = kActivationLogitsFactor * logits_gib + kActivationBaseGib;
    activation = g.estimate(
        {"activation_peak_gib",
         activation,
         "GiB",
         "V2.7",
         fmt::format("Estimate: {} × the sampler's fp32 logits ({:.0f} rows × vocab {}) + {} "
                     "GiB, fitted to the v0.19.0 H100 sweep (±0.5 GiB; MoE workspaces and "
                     "multimodal encoders add more); give --activation-peak.",
                     kActivationLogitsFactor, rows, m.vocab_size, kActivationBaseGib),
         "vllm/v1/worker/gpu_model_runner.py::GPUModelRunner.profile_run",
         {"max_num_seqs", "max_num_batched_tokens"}},
        std::max(0.0, activation - kActivationSpreadGib), activation + kActivationSpreadGib);
    if (!cal.kv_memory_gib)
      plan.estimated.push_back("activation_peak");
  }

  // V2.8 N: non-torch growth (NCCL, cuBLAS, allreduce workspaces).
  double non_torch = 0;
  if (cal.non_torch_gib) {
    non_torch = *cal.non_torch_gib;
    g.input("non_torch_gib", non_torch, "GiB", Origin::kCalibration, cal_source("--non-torch"),
            "N: CUDA memory outside torch's allocator grown by profiling ('non-torch forward "
            "increase memory').");
  } else {
    non_torch =
        a.tp == 1 ? kNonTorchTp1Gib : (a.fuse_allreduce_rms ? kNonTorchFusionGib : kNonTorchTpGib);
    Node estimate{"non_torch_gib",
                  non_torch,
                  "GiB",
                  "V2.8",
                  a.tp == 1
                      ? "Estimate: 0.25 GiB at TP 1 (v0.19.0 H100 sweep); give --non-torch."
                      : (a.fuse_allreduce_rms
                             ? "Estimate: 2.1 GiB at TP > 1 with the FlashInfer allreduce-fusion "
                               "workspace (v0.19.0 H100 sweep); give --non-torch."
                             : "Estimate: 0.5 GiB at TP > 1 without allreduce fusion (not "
                               "measured); give --non-torch."),
                  "vllm/utils/mem_utils.py::memory_profiling",
                  {"arg.tensor_parallel_size"},
                  Origin::kEstimate};
    // Measured only at TP 1 and with the fusion workspace: those estimates state an interval.
    if (a.tp == 1)
      non_torch = g.estimate(std::move(estimate), kNonTorchTp1LeastGib, kNonTorchTp1MostGib);
    else if (a.fuse_allreduce_rms)
      non_torch = g.estimate(std::move(estimate), kNonTorchFusionLeastGib, kNonTorchFusionMostGib);
    else
      g.add(std::move(estimate));
    if (!cal.kv_memory_gib)
      plan.estimated.push_back("non_torch");
  }

  // V2.3 G: the CUDA-graph estimate and whether this version subtracts it.
  const bool graphs = a.cudagraph_mode != "NONE" && !a.enforce_eager;
  double graph_estimate = 0;
  bool applied = false;
  std::string applied_why;
  const auto env = ctx.in.env("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS",
                              ctx.rules.cudagraph_profiling == CudaGraphProfiling::kDefaultOn
                                  ? "1 since #38284"
                                  : "0 before #38284");
  if (a.extensible_kv_cache) {
    applied_why =
        "With the extensible KV cache profile_cudagraph_memory returns 0: the graphs' pool is "
        "measured after capture instead (V2.9).";
  } else if (ctx.rules.cudagraph_profiling == CudaGraphProfiling::kAbsent) {
    applied_why =
        "This version does not estimate CUDA-graph memory before sizing the KV cache "
        "(#30515, 2026-03-07).";
  } else if (!graphs) {
    applied_why = "No CUDA graphs are captured (cudagraph_mode NONE or --enforce-eager).";
  } else {
    const bool env_on = env ? (*env != "0" && !env->empty())
                            : ctx.rules.cudagraph_profiling == CudaGraphProfiling::kDefaultOn;
    applied = env_on;
    applied_why = env_on ? "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS is on: the estimate is "
                           "subtracted."
                         : "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS is 0: the estimate is only "
                           "logged, not subtracted.";
  }
  if (ctx.rules.cudagraph_profiling != CudaGraphProfiling::kAbsent && graphs &&
      !a.extensible_kv_cache) {
    if (cal.cuda_graph_gib) {
      graph_estimate = *cal.cuda_graph_gib;
      g.input("cuda_graph_estimate_gib", graph_estimate, "GiB", Origin::kCalibration,
              cal_source("--cuda-graph-memory"), "G: 'Estimated CUDA graph memory: G GiB total'.");
    } else if (applied) {
      graph_estimate = g.estimate(
          {"cuda_graph_estimate_gib", kCudaGraphGib, "GiB", "",
           "G estimated; give --cuda-graph-memory (the log's 'Estimated CUDA graph memory').",
           "estimate: the v0.19.0 sweep's graph pools took 0.51–1.85 GiB"},
          kCudaGraphLeastGib, kCudaGraphMostGib);
      if (!cal.kv_memory_gib)
        plan.estimated.push_back("cuda_graph_estimate");
    }
  }
  const double graph_applied = applied ? graph_estimate : 0;
  std::vector<std::string> g_inputs = {"env.VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS"};
  if (g.find("cuda_graph_estimate_gib") != nullptr)
    g_inputs.push_back("cuda_graph_estimate_gib");
  g.add({"cuda_graph_memory_subtracted_gib", graph_applied, "GiB", "V2.3", applied_why, kWorker,
         g_inputs});

  // V2.2 available KV memory = R − (W + A + N) − G.
  const double available_bytes =
      std::floor(requested_bytes - (weights + activation + non_torch + graph_applied) * kGiB);
  const std::vector<std::string> inputs = {"requested_memory_gib", weights_id,
                                           "activation_peak_gib", "non_torch_gib",
                                           "cuda_graph_memory_subtracted_gib"};
  if (cal.kv_memory_gib) {
    const double predicted_gib = available_bytes / kGiB;
    g.input("available_kv_cache_memory_gib", *cal.kv_memory_gib, "GiB", Origin::kCalibration,
            cal_source("--kv-memory"),
            "The log's 'Available KV cache memory' (replaces R − W − A − N − G).");
    g.add({"available_kv_cache_memory_bytes",
           *cal.kv_memory_gib * kGiB,
           "bytes",
           "V2.2",
           fmt::format("The calibrated figure in bytes (the profile predicts {:.2f} GiB).",
                       predicted_gib),
           kWorker,
           {"available_kv_cache_memory_gib"}});
    if (cal.weights_gib && cal.activation_peak_gib && cal.non_torch_gib &&
        std::fabs(predicted_gib - *cal.kv_memory_gib) > 0.03) {
      ctx.finding(Severity::kWarning, "calibration-mismatch", {},
                  fmt::format("R − W − A − N − G gives {:.2f} GiB for the KV cache, the log says "
                              "{:.2f} GiB: the figures come from different runs, or T or G differ",
                              predicted_gib, *cal.kv_memory_gib),
                  "V2.2", kWorker);
    }
  } else {
    g.add({"available_kv_cache_memory_bytes", available_bytes, "bytes", "V2.2",
           fmt::format("R − (W + A + N) − G = {:.3f} − ({:.3f} + {:.3f} + {:.3f}) − {:.3f} GiB.",
                       requested_bytes / kGiB, weights, activation, non_torch, graph_applied),
           kWorker, inputs});
    g.add({"available_kv_cache_memory_gib",
           python_round(available_bytes / kGiB, 2),
           "GiB",
           "V2.2",
           "As vLLM prints it: 'Available KV cache memory: X GiB' (round(x, 2)).",
           kWorker,
           {"available_kv_cache_memory_bytes"}});
  }
  if (a.extensible_kv_cache)
    resolve_extensible_memory(
        ctx, {free_at_start, weights, activation, non_torch, 0, requested_bytes, weights_id});
  plan.memory.push_back({"weights W", weights, cal.weights_gib ? "log" : "estimate"});
  plan.memory.push_back(
      {"activation peak A", activation, cal.activation_peak_gib ? "log" : "estimate"});
  plan.memory.push_back({"non-torch N", non_torch, cal.non_torch_gib ? "log" : "estimate"});
  if (graph_applied > 0)
    plan.memory.push_back(
        {"CUDA graphs G", graph_applied, cal.cuda_graph_gib ? "log" : "estimate"});
  if (a.extensible_kv_cache) {
    const bool measured_from_log = g.find("measured_kv_cache_bytes")->origin != Origin::kEstimate;
    plan.memory.push_back({"KV capacity (address space, V2.9)",
                           gib(g, "available_kv_cache_memory_bytes") / kGiB,
                           cal.kv_memory_gib ? "log" : "rule"});
    plan.memory.push_back({"CUDA graph pool", gib(g, "cuda_graph_pool_gib"),
                           cal.cuda_graph_gib ? "log" : "estimate"});
    plan.memory.push_back({"margin (V2.9)", gib(g, "kv_cache_margin_gib"), "rule"});
    plan.memory.push_back({"KV cache measured after warmup",
                           gib(g, "measured_kv_cache_bytes") / kGiB,
                           measured_from_log ? "log" : "estimate"});
    return;
  }
  plan.memory.push_back({"KV cache", gib(g, "available_kv_cache_memory_bytes") / kGiB,
                         cal.kv_memory_gib ? "log" : "rule"});
}

}  // namespace servescope::vllm
