// A GPU known from its own evidence: what a pasted `nvidia-smi` table, `nvidia-smi -L` or
// `nvidia-smi --query-gpu=name,memory.total --format=csv` output says about each GPU, which
// catalog entry it is, and which figures the paste lacks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/gpu_catalog.h"

namespace servescope {

struct EvidenceGpu {
  std::optional<int> index;  // the GPU number the paste gives
  std::string name;          // as printed; may be cut short ("NVIDIA RTX PRO 6000 Blac...")
  std::optional<std::int64_t> total_mib;
  bool memory_not_supported = false;  // "Not Supported" / "[N/A]": a unified-memory device
  std::optional<double> power_cap_w;
  std::string form;                // "nvidia-smi table", "--query-gpu csv", "nvidia-smi -L"
  const GpuSpec* match = nullptr;  // the catalog entry, when one is certain
  std::string note;                // why there is no match, or where the paste and catalog differ
  std::vector<std::string> lacks;  // figures the paste does not state
};

/// Reads every GPU the text shows. Never throws; text it does not recognise yields nothing.
std::vector<EvidenceGpu> read_gpu_evidence(std::string_view text, const GpuCatalog& catalog);

/// One line for `servescope gpus --from FILE`.
std::string describe_evidence(const EvidenceGpu& gpu);

}  // namespace servescope
