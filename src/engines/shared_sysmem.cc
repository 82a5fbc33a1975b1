#include "engines/shared_sysmem.h"

namespace servescope {

bool reads_system_memory_as_free(const GpuSpec& gpu) {
  if (gpu.is_amd || gpu.is_cpu)
    return false;
  const int sm = gpu.cc_major * 10 + gpu.cc_minor;
  return sm == 87 || sm == 110 || sm == 121;
}

}  // namespace servescope
