#include "diagnose/diff.h"

namespace servescope {

Result<DiffResult> diff_scenarios(const Engine& engine, const Scenario& a, const Scenario& b) {
  DiffResult out;
  Counterfactuals cf(engine, a, changes_between(a, b));
  out.inputs = cf.changes();
  out.a = cf.baseline();
  out.b = cf.all();
  std::vector<std::string> outputs = engine.output_names();
  for (const std::string& s : engine.setting_names())
    outputs.push_back(s);
  out.attribution = attribute(cf, engine, outputs);
  return out;
}

}  // namespace servescope
