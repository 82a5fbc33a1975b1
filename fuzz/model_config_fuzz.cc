// libFuzzer target: the config.json reader.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "catalog/model_config_reader.h"
#include "catalog/weight_estimate.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto shape = servescope::read_model_config(text, "fuzz.json");
  if (shape) {
    (void)shape->summary();
    (void)servescope::estimate_weights(*shape, {2, true});
  }
  return 0;
}
