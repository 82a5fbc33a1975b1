// libFuzzer target: the nvidia-smi paste reader behind `servescope gpus --from`.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "catalog/gpu_catalog.h"
#include "catalog/gpu_evidence.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const auto& gpu : servescope::read_gpu_evidence(text, servescope::GpuCatalog::builtin()))
    (void)servescope::describe_evidence(gpu);
  (void)servescope::GpuCatalog::builtin().near_matches(text.substr(0, 200));
  return 0;
}
