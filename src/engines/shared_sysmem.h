// Which GPUs the engines treat as using system memory as device memory. There cudaMemGetInfo's
// free is the kernel's MemFree, which leaves the page cache out, so the engines read
// psutil.virtual_memory().available instead. Each engine first keyed it on the CUDA compute
// capability (Jetson Orin 8.7, Jetson Thor 11.0, DGX Spark's GB10 12.1), then on torch's
// is_integrated (cudaDevAttrIntegrated); before either, cudaMemGetInfo everywhere:
//   SGLang: python/sglang/srt/utils/common.py::get_available_gpu_memory,
//           SHARED_SYSMEM_DEVICE_MEM_SMS = (87, 110, 121) in 0.5.4 … 0.5.8.post1,
//           props.is_integrated from 0.5.9
//   vLLM:   vllm/utils/mem_utils.py::MemorySnapshot.measure,
//           shared_sysmem_device_mem_sms = ((8, 7), (11, 0), (12, 1)) in 0.11.1 … 0.19.1,
//           current_platform.is_integrated_gpu from 0.20.0 (#35356)
// (dated by tools/engine-sync/wheel_grep.py: data/integrated-gpu-rules.md). An AMD MI300A
// shares its memory too: vLLM's ROCm platform never says integrated; whether torch's ROCm build
// does for SGLang is not verified, so servescope applies neither rule there.
#pragma once

#include "catalog/gpu_catalog.h"

namespace servescope {

/// How a release picks the GPUs whose free memory is psutil's available memory.
enum class SystemMemoryAsFree {
  kNever,            // cudaMemGetInfo's free on every GPU
  kSharedSysmemSms,  // compute capability 8.7, 11.0 or 12.1
  kIsIntegrated,     // torch's is_integrated
};

/// True when a release following `rule` reads this GPU's free memory as the system's available
/// memory.
bool reads_system_memory_as_free(SystemMemoryAsFree rule, const GpuSpec& gpu);

/// True for a CUDA device torch calls integrated (cudaDevAttrIntegrated).
bool is_integrated_cuda_device(const GpuSpec& gpu);

}  // namespace servescope
