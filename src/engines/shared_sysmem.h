// Which GPUs the engines treat as using system memory as device memory. Both SGLang and vLLM
// key it on the CUDA compute capability, not on "unified memory" in general: Jetson Orin (8.7),
// Jetson Thor (11.0) and DGX Spark's GB10 (12.1). There cudaMemGetInfo leaves the page cache out
// of "free", so they read psutil.virtual_memory().available instead. An AMD MI300A shares its
// memory too, but neither engine does this on ROCm.
//   SGLang: python/sglang/srt/utils/common.py::get_available_gpu_memory,
//           SHARED_SYSMEM_DEVICE_MEM_SMS = (87, 110, 121)
//   vLLM:   vllm/utils/mem_utils.py::MemorySnapshot.measure,
//           shared_sysmem_device_mem_sms = ((8, 7), (11, 0), (12, 1))
#pragma once

#include "catalog/gpu_catalog.h"

namespace servescope {

/// True when the engines read this GPU's free memory as the system's available memory.
bool reads_system_memory_as_free(const GpuSpec& gpu);

}  // namespace servescope
