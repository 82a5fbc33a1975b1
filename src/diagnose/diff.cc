#include "diagnose/diff.h"

namespace servescope {

Result<DiffResult> diff_scenarios(const Engine& engine, const Scenario& a, const Scenario& b) {
  DiffResult out;
  Counterfactuals cf(engine, a, changes_between(a, b));
  out.inputs = cf.changes();
  out.a = cf.baseline();
  out.b = cf.all();
  out.attribution = attribute(cf, engine, engine.output_names());
  return out;
}

}  // namespace servescope
