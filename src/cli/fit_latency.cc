#include "cli/fit_latency.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engines/twin_profile.h"
#include "twin/cost_defaults.h"
#include "twin/cost_model.h"
#include "twin/simulation.h"

namespace servescope {

std::string LatencyTarget::describe() const {
  std::string out = fmt::format("{:g} requests/s", rate);
  if (ttft_p99_ms)
    out += fmt::format(" with p99 TTFT ≤ {:g} ms", *ttft_p99_ms);
  if (tpot_p99_ms)
    out += fmt::format("{} p99 TPOT ≤ {:g} ms", ttft_p99_ms ? " and" : " with", *tpot_p99_ms);
  return out + fmt::format(" ({} → {} tokens, simulated)", input.describe(), output.describe());
}

namespace {

Result<FitConfiguration::Simulated> simulate_one(const Engine& engine, const Scenario& scenario,
                                                 const LatencyTarget& t) {
  const TwinProfile* profile = engine.twin_profile();
  if (profile == nullptr)
    return fail(fmt::format("fit --rate: {} has no serving model", engine.name()));
  auto plan = engine.plan(scenario);
  if (!plan)
    return plan.error();
  auto shape = profile->serving_shape(scenario, *plan);
  if (!shape)
    return shape.error();
  const CostDefaults defaults = cost_defaults(scenario.engine, scenario.hardware.gpu);
  const Efficiency& efficiency = defaults.efficiency;
  auto cost = CostModel::build(scenario, *shape, efficiency);
  if (!cost)
    return cost.error();
  SimulationInput in;
  in.shape = *shape;
  in.cost = &*cost;
  in.load.closed_loop = false;
  in.load.rate = t.rate;
  in.requests = t.requests;
  in.input = t.input;
  in.output = t.output;
  in.timeline_points = 0;
  const SimulationResult r = simulate(in);
  FitConfiguration::Simulated s;
  s.rate = t.rate;
  s.ttft_p99_ms = r.ttft_ms.p99;
  s.tpot_p99_ms = r.tpot_ms.p99;
  s.requests_per_s = r.requests_per_s;
  s.factors = fmt::format("{} ({})", efficiency.describe(), defaults.describe());
  return s;
}

}  // namespace

Status apply_latency_target(const Engine& engine, FitResult& result, const LatencyTarget& t,
                            std::size_t limit) {
  std::vector<FitConfiguration> kept, missed;
  for (FitConfiguration& c : result.configurations) {
    if (kept.size() == limit)
      break;
    auto sim = simulate_one(engine, c.scenario, t);
    if (!sim)
      return sim.error();
    c.simulated = *sim;
    std::vector<std::string> over;
    if (t.ttft_p99_ms && sim->ttft_p99_ms > *t.ttft_p99_ms)
      over.push_back(fmt::format("p99 TTFT {:.0f} ms > {:g} ms", sim->ttft_p99_ms, *t.ttft_p99_ms));
    if (t.tpot_p99_ms && sim->tpot_p99_ms > *t.tpot_p99_ms)
      over.push_back(fmt::format("p99 TPOT {:.1f} ms > {:g} ms", sim->tpot_p99_ms, *t.tpot_p99_ms));
    if (over.empty()) {
      // Without a capacity target the latency is what binds: the closer of the two limits.
      if (c.binding.empty()) {
        const double ttft = t.ttft_p99_ms ? sim->ttft_p99_ms / *t.ttft_p99_ms : 0;
        const double tpot = t.tpot_p99_ms ? sim->tpot_p99_ms / *t.tpot_p99_ms : 0;
        c.binding = ttft >= tpot ? fmt::format("p99 TTFT {:.0f} of {:g} ms (simulated)",
                                               sim->ttft_p99_ms, *t.ttft_p99_ms)
                                 : fmt::format("p99 TPOT {:.1f} of {:g} ms (simulated)",
                                               sim->tpot_p99_ms, *t.tpot_p99_ms);
      }
      kept.push_back(std::move(c));
      continue;
    }
    c.meets = false;
    c.why_not = fmt::format("{} at {:g} requests/s (simulated)", fmt::join(over, ", "), t.rate);
    c.binding = "latency";
    missed.push_back(std::move(c));
  }
  result.configurations = std::move(kept);
  // The latency misses come before the capacity misses: they meet everything else.
  if (missed.size() > 3)
    missed.resize(3);
  missed.insert(missed.end(), result.closest.begin(), result.closest.end());
  result.closest = std::move(missed);
  return ok_status();
}

}  // namespace servescope
