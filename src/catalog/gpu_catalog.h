// The GPU catalog (data/gpus.csv): memory as nvidia-smi reports it, compute capability,
// bandwidth and peak FLOPs, each row with its source note.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace servescope {

struct GpuSpec {
  std::string key;                 // catalog key, e.g. "rtx-pro-6000"
  std::string smi_name;            // what `nvidia-smi --query-gpu=name` prints
  std::int64_t memory_mib = 0;     // NVML total, what SGLang's get_nvgpu_memory_capacity reads
  std::string compute_capability;  // "12.0", or "gfx942" for AMD
  int cc_major = 0;                // 0 for AMD
  int cc_minor = 0;
  bool is_amd = false;
  bool is_cpu = false;  // the host CPU (vLLM's CPU platform); memory_mib is its NUMA node's
  std::string arch;
  double mem_bw_tbps = 0;
  double bf16_dense_tflops = 0;  // 0 where the table is empty
  double fp8_dense_tflops = 0;
  double fp4_dense_tflops = 0;
  std::string interconnect;
  double interconnect_gbps = 0;
  double tdp_w = 0;
  bool integrated = false;   // unified memory shared with the CPU (GB10, Jetson, MI300A)
  std::string mig_profiles;  // "1g.10gb;...;7g.80gb", empty where the GPU has no MIG
  std::string source_note;
};

/// A catalog entry whose name is close to a wanted one but is a different GPU.
struct NearMatch {
  const GpuSpec* spec = nullptr;
  std::string differs;  // e.g. "'D' in the name: the China-market variant, fewer SMs ..."
};

struct GpuMatch {
  const GpuSpec* spec = nullptr;
  std::string note;  // e.g. which other rows a truncated name also matched
};

class GpuCatalog {
 public:
  /// Parses CSV text in the data/gpus.csv layout.
  static Result<GpuCatalog> parse(std::string_view csv_text);
  /// The catalog compiled into the binary.
  static const GpuCatalog& builtin();

  /// Finds a GPU by catalog key, by the full nvidia-smi name (with or without the
  /// "NVIDIA " prefix old drivers dropped), or by the name cut short as nvidia-smi's default
  /// table prints it ("NVIDIA RTX PRO 6000 Blac..."). An unknown name is an error listing
  /// the closest keys.
  /// An unknown name is never replaced by another GPU: the error names the near-matches
  /// (near_matches) and what differs. A name cut short only matches names long enough to
  /// have been cut.
  Result<GpuMatch> find(std::string_view name) const;

  /// Entries whose names differ from `name` by a word more, less or changed ("RTX 4090 D" vs
  /// "RTX 4090", "... Laptop GPU"), each with what that difference means; at most three.
  std::vector<NearMatch> near_matches(std::string_view name) const;

  const std::vector<GpuSpec>& gpus() const { return gpus_; }
  std::vector<std::string> keys() const;

 private:
  std::vector<GpuSpec> gpus_;
};

/// The host CPU as vLLM's CPU platform sees it: key "cpu", memory = the NUMA node's MemTotal
/// (0 when not known: only the automatic KV size needs it).
GpuSpec cpu_host(std::int64_t node_memory_mib);

/// Whether a --gpu value names the host CPU ("cpu", any case).
bool names_cpu_host(std::string_view name);

struct DeviceMatch {
  GpuSpec spec;
  std::string note;
};

/// A device by name: the host CPU (with its node memory when known) or a catalog GPU.
Result<DeviceMatch> find_device(std::string_view name, std::optional<double> host_total_gib);

/// The catalog GPUs a memory figure a log printed can come from: the smallest memory class
/// (totals within 3% of the smallest) whose total holds `gib` — strictly above it when the
/// figure is free memory (the CUDA context already took some), at least it when it is the
/// device total. Empty when no GPU is that large. Unified-memory devices are never candidates.
std::vector<GpuSpec> gpus_holding(double gib, bool figure_is_free_memory);

}  // namespace servescope
