// libFuzzer target: what bench and simulate read from files and options users give them —
// --slo objectives, two bench --json results for --compare, a run for simulate's
// --calibrate-from, and a saved calibration.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "load/run_compare.h"
#include "load/slo.h"
#include "twin/calibration.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace servescope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)parse_slo(text.substr(0, 512));
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded())
    return 0;
  CompareOptions o;
  o.resamples = 20;
  if (auto c = compare_runs(doc, doc, "a", "b", o)) {
    (void)render_comparison_text(*c);
    (void)render_comparison_markdown(*c);
    (void)comparison_json(*c);
  }
  (void)measured_points(doc);
  (void)efficiency_items_from(doc);
  return 0;
}
