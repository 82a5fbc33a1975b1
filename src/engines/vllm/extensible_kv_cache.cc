// V2.9: vLLM 0.34's extensible KV cache. Whether it is on (config/vllm.py::VllmConfig.
// _resolve_extensible_kv_cache), the utilization it resolves (config/cache.py::CacheConfig.
// resolved_gpu_memory_utilization) and the size measured after warmup and CUDA-graph capture
// (v1/worker/extensible_kv_cache.py::measure_kv_cache_bytes and ExtensibleKVCache.blocks_within).
#include "engines/vllm/extensible_kv_cache.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/text.h"

namespace servescope::vllm {
namespace {

constexpr char kResolve[] = "vllm/config/vllm.py::VllmConfig._resolve_extensible_kv_cache";
constexpr char kMeasure[] = "vllm/v1/worker/extensible_kv_cache.py::measure_kv_cache_bytes";
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// The connectors named in --kv-transfer-config, MultiConnector's children included.
std::vector<std::string> connectors(const std::string& config_text) {
  std::vector<std::string> out;
  const auto j = nlohmann::json::parse(config_text, nullptr, false);
  if (!j.is_object())
    return out;
  const std::string name = j.value("kv_connector", std::string());
  if (name == "MultiConnector") {
    const auto extra = j.find("kv_connector_extra_config");
    if (extra != j.end() && extra->is_object()) {
      for (const auto& child : extra->value("connectors", nlohmann::json::array())) {
        if (child.is_object())
          out.push_back(child.value("kv_connector", std::string()));
      }
    }
  } else if (!name.empty()) {
    out.push_back(name);
  }
  return out;
}

bool has(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The reason the platform or the flags rule the cache out, "" when they do not.
std::string unsupported_reason(PlanContext& ctx, const std::vector<std::string>& names) {
  const GpuSpec& gpu = ctx.scenario.hardware.gpu;
  if (gpu.is_cpu)
    return "it is only supported on CUDA and ROCm";
  if (ctx.args.kv_cache_memory_bytes)
    return "it sizes the KV cache from measured memory, which kv_cache_memory_bytes overrides";
  if (ctx.args.num_gpu_blocks_override)
    return "it sizes the KV cache from measured memory, which num_gpu_blocks_override overrides";
  if (ctx.in.optional_boolean("enable_elastic_ep").value_or(false))
    return "elastic EP scale-up skips warmup and reuses the profiled KV cache size, so no "
           "measurement would size the cache";
  if (has(names, "LMCacheMPConnector"))
    return "a KV connector (e.g. LMCacheMPConnector) shares the KV cache through legacy CUDA "
           "IPC, which cannot export driver-mapped memory";
  const bool registers = has(names, "NixlConnector") || has(names, "MooncakeConnector") ||
                         has(names, "MoRIIOConnector") || has(names, "UMBPConnector");
  if (gpu.is_amd && registers)
    return "on ROCm, UCX and RDMA cannot yet register driver-mapped memory, which connectors "
           "that register the KV cache (e.g. NIXL, Mooncake, MoRIIO, UMBP) require";
  return "";
}

// The runtime fallback: a rank without CUDA virtual memory management (WSL2 sets
// WSL_DISTRO_NAME in every shell; vmm_driver.py::vmm_unavailable_reason fails there).
std::string vmm_unavailable(PlanContext& ctx) {
  const auto& env = ctx.scenario.environment;
  if (env.count("WSL_DISTRO_NAME") > 0 || env.count("WSL_INTEROP") > 0)
    return "CUDA virtual memory management is unavailable (WSL2)";
  return "";
}

}  // namespace

Status resolve_extensible_kv_cache(PlanContext& ctx) {
  ResolvedArgs& a = ctx.args;
  Derivation& g = ctx.graph();
  const auto typed = ctx.in.optional_boolean("enable_extensible_kv_cache");
  a.utilization_typed = ctx.in.setting_for("gpu_memory_utilization") != nullptr;
  if (!ctx.rules.extensible_kv_cache) {
    a.extensible_kv_cache = false;
    a.gpu_memory_utilization =
        ctx.in.real("gpu_memory_utilization", ctx.rules.default_gpu_memory_utilization);
    return ok_status();
  }
  const auto transfer = ctx.in.optional_text("kv_transfer_config");
  const std::vector<std::string> names =
      transfer ? connectors(*transfer) : std::vector<std::string>{};
  const std::string unsupported = unsupported_reason(ctx, names);
  std::string why;
  if (typed && *typed && !unsupported.empty()) {
    return fail(fmt::format("{}: ValueError: enable_extensible_kv_cache: {}.",
                            ctx.in.typed("enable_extensible_kv_cache"), unsupported));
  }
  if (typed) {
    a.extensible_kv_cache = *typed;
    why = "As typed.";
  } else if (!unsupported.empty()) {
    a.extensible_kv_cache = false;
    why = fmt::format("Off, silently: {}.", unsupported);
  } else if (ctx.scenario.calibration.kv_measured_after_warmup == false) {
    // The engine prints 'Memory after warmup' before the KV size whenever it measures, and the
    // CUDA-graph estimate only when it does not.
    a.extensible_kv_cache = false;
    why =
        "Off: the log shows the KV cache sized from the profile (its KV size or CUDA-graph "
        "estimate line, and no 'Memory after warmup').";
  } else if (!ctx.scenario.hardware.gpu.is_amd && has(names, "NixlConnector")) {
    // NIXL exports FABRIC handles, which need an IMEX channel (GB200 NVL racks have one).
    a.extensible_kv_cache = false;
    why =
        "Off: NIXL's FABRIC export needs an IMEX channel, assumed absent (\"Extensible KV "
        "cache off: without an IMEX channel …\"); type --enable-extensible-kv-cache where one "
        "exists.";
  } else {
    a.extensible_kv_cache = true;
    why = fmt::format("On by default on {} (0.34.0).",
                      ctx.scenario.hardware.gpu.is_amd ? "ROCm" : "CUDA");
  }
  // engine/core.py: a rank that cannot map driver memory turns it off at run time.
  const std::string no_vmm = a.extensible_kv_cache ? vmm_unavailable(ctx) : std::string();
  if (!no_vmm.empty()) {
    a.extensible_kv_cache = false;
    why += fmt::format(
        " Then off at run time: {} (\"Disabling the extensible KV cache: …\"); an "
        "unset utilization falls back to {}.",
        no_vmm, ctx.rules.default_gpu_memory_utilization);
    ctx.finding(Severity::kInfo, "extensible-kv-cache-fallback", {},
                fmt::format("Disabling the extensible KV cache: {}. The KV cache will be sized "
                            "from profiling estimates instead of measured memory.",
                            no_vmm),
                "V2.9", "vllm/v1/engine/core.py; vllm/utils/vmm_driver.py::vmm_unavailable_reason");
  }
  g.add({"extensible_kv_cache",
         a.extensible_kv_cache,
         "",
         "V2.9",
         why,
         kResolve,
         {"arg.enable_extensible_kv_cache", "arg.kv_cache_memory_bytes",
          "arg.num_gpu_blocks_override", "arg.kv_transfer_config", "gpu.compute_capability"}});
  // CacheConfig.resolved_gpu_memory_utilization: unset means the whole device when the cache is
  // measured, the 0.92 default otherwise.
  a.gpu_memory_utilization =
      ctx.in.real("gpu_memory_utilization",
                  a.extensible_kv_cache ? 1.0 : ctx.rules.default_gpu_memory_utilization);
  return ok_status();
}

std::int64_t segment_bytes(std::int64_t blocks, const std::vector<std::int64_t>& strides,
                           std::int64_t granule) {
  std::int64_t total = 0;
  for (std::int64_t stride : strides)
    total += (blocks * stride + granule - 1) / granule * granule;
  return total;
}

std::int64_t blocks_within(std::int64_t bytes, const std::vector<std::int64_t>& strides,
                           std::int64_t capacity, std::int64_t granule) {
  std::int64_t per_block = 0;
  for (std::int64_t s : strides)
    per_block += s;
  if (per_block <= 0 || bytes <= 0)
    return 0;
  std::int64_t n = std::min(bytes / per_block, capacity);
  // Each segment rounds up by less than a granule: step down by whole blocks of the worst case
  // first, then one at a time (the engine's loop, in fewer steps).
  while (n > 0 && segment_bytes(n, strides, granule) > bytes) {
    const std::int64_t over = segment_bytes(n, strides, granule) - bytes;
    n -= std::max<std::int64_t>(1, over / per_block);
  }
  while (n + 1 <= capacity && segment_bytes(n + 1, strides, granule) <= bytes)
    ++n;  // the coarse steps may undershoot
  return std::max<std::int64_t>(n, 0);
}

MeasuredKv measure_kv_cache(PlanContext& ctx, const MeasuredKvInputs& in) {
  Derivation& g = ctx.graph();
  const bool rocm = ctx.scenario.hardware.gpu.is_amd;
  MeasuredKv out;
  const double floor_bytes = (rocm ? 3.0 : 1.0) * kGiB;
  const double margin = std::max(floor_bytes, std::floor(in.transient_peak_bytes * 0.75));
  const double kept = std::max(in.transient_peak_bytes, in.torch_growth_bytes);
  const double headroom = in.free_after_warmup_bytes + in.committed_bytes;
  const double non_kv_used = in.free_at_startup_bytes - headroom;
  const double by_budget = in.requested_bytes - non_kv_used;
  const double by_device = headroom - margin;
  out.bytes = std::max(0.0, std::min(by_budget, by_device) - kept);
  out.capped_by_utilization = by_budget < by_device;
  const std::string est = in.estimated ? "~" : "";
  g.add({"kv_after_warmup_headroom_gib", headroom / kGiB, "GiB", "V2.9",
         in.estimated
             ? fmt::format("Estimate: free at startup {:.2f} − weights, non-torch, the CUDA-graph "
                           "pool and buffers kept after warmup ({:.2f} GiB): what is free after "
                           "warmup plus what warmup committed to the cache.",
                           in.free_at_startup_bytes / kGiB, non_kv_used / kGiB)
             : "The log's 'Memory after warmup': free + committed to the KV cache.",
         kMeasure, in.inputs, in.estimated ? Origin::kEstimate : Origin::kCalibration});
  g.add({"kv_cache_margin_gib",
         margin / kGiB,
         "GiB",
         "V2.9",
         fmt::format("max({} GiB on {}, ⌊0.75 × transient peak {:.2f} GiB⌋).", rocm ? 3 : 1,
                     rocm ? "ROCm" : "CUDA", in.transient_peak_bytes / kGiB),
         "vllm/v1/worker/extensible_kv_cache.py::KV_CACHE_MARGIN_FLOOR_BYTES",
         {"activation_peak_gib"}});
  g.add({"measured_kv_cache_bytes",
         out.bytes,
         "bytes",
         "V2.9",
         fmt::format("{}min(R {:.2f} − non-KV use {:.2f}, headroom {:.2f} − margin {:.2f}) − "
                     "max(transient peak {:.2f}, torch growth {:.2f}) GiB{}.",
                     est, in.requested_bytes / kGiB, non_kv_used / kGiB, headroom / kGiB,
                     margin / kGiB, in.transient_peak_bytes / kGiB, in.torch_growth_bytes / kGiB,
                     out.capped_by_utilization ? ": the utilization cap binds" : ""),
         kMeasure,
         {"kv_after_warmup_headroom_gib", "kv_cache_margin_gib", "requested_memory_gib"},
         in.estimated ? Origin::kEstimate : Origin::kDerived});
  // measure_kv_cache_blocks: an explicit utilization in (0.7, 1) that withholds ≥ 1 GiB warns.
  const double u = ctx.args.gpu_memory_utilization;
  if (ctx.args.utilization_typed && u > 0.7 && u < 1.0) {
    const double uncapped =
        std::max(0.0, std::min(in.free_at_startup_bytes - non_kv_used, by_device) - kept);
    const double withheld = uncapped - out.bytes;
    if (withheld >= kGiB) {
      ctx.finding(Severity::kWarning, "utilization-caps-extensible-kv",
                  {ctx.in.typed("gpu_memory_utilization")},
                  fmt::format("gpu_memory_utilization={} caps this instance at {:.2f} GiB, keeping "
                              "{}{:.2f} GiB of free device memory out of the KV cache; the "
                              "extensible KV cache measures vLLM's own use, so leave the "
                              "utilization unset unless other processes share the GPU",
                              u, in.requested_bytes / kGiB, est, withheld / kGiB),
                  "V2.9", "vllm/v1/worker/extensible_kv_cache.py::measure_kv_cache_blocks");
    }
  }
  return out;
}

void resolve_measured_kv(PlanContext& ctx, const ProfileFigures& p) {
  const Calibration& cal = ctx.scenario.calibration;
  MeasuredKvInputs in;
  in.free_at_startup_bytes = p.free_at_startup_gib * kGiB;
  in.requested_bytes = p.requested_bytes;
  if (cal.free_after_warmup_gib && cal.kv_committed_gib && cal.transient_peak_gib) {
    // Every input of the formula, as the log prints it (two decimals of GiB).
    in.estimated = false;
    in.free_after_warmup_bytes = *cal.free_after_warmup_gib * kGiB;
    in.committed_bytes = *cal.kv_committed_gib * kGiB;
    in.transient_peak_bytes = *cal.transient_peak_gib * kGiB;
    in.torch_growth_bytes = cal.torch_growth_gib.value_or(0) * kGiB;
    in.inputs = {"free_at_startup_gib"};
  } else {
    // What stays resident after warmup and graph capture besides the cache: the weights, the
    // non-torch growth and the graphs' pool (buffers kept after warmup are not estimated). The
    // transient peak is the profile's; torch's growth over the sizing step is taken as equal.
    const double non_kv = p.weights_gib + p.non_torch_gib + p.graph_pool_gib;
    in.free_after_warmup_bytes = (p.free_at_startup_gib - non_kv) * kGiB;
    in.committed_bytes = 0;
    in.transient_peak_bytes = p.activation_gib * kGiB;
    in.torch_growth_bytes = in.transient_peak_bytes;
    in.inputs = {"free_at_startup_gib", p.weights_id, "non_torch_gib", "cuda_graph_pool_gib"};
  }
  measure_kv_cache(ctx, in);
}

}  // namespace servescope::vllm
