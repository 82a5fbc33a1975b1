#include "engines/shared_sysmem.h"

namespace servescope {

bool is_integrated_cuda_device(const GpuSpec& gpu) {
  return gpu.integrated && !gpu.is_amd && !gpu.is_cpu;
}

bool reads_system_memory_as_free(SystemMemoryAsFree rule, const GpuSpec& gpu) {
  switch (rule) {
    case SystemMemoryAsFree::kNever:
      return false;
    case SystemMemoryAsFree::kSharedSysmemSms: {
      if (gpu.is_amd || gpu.is_cpu)
        return false;
      const int sm = gpu.cc_major * 10 + gpu.cc_minor;
      return sm == 87 || sm == 110 || sm == 121;
    }
    case SystemMemoryAsFree::kIsIntegrated:
      return is_integrated_cuda_device(gpu);
  }
  return false;
}

}  // namespace servescope
