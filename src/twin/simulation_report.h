// Renders `simulate` results: a short header that says the figures are a model, the limits
// and efficiency factors they came from, then one row per sweep point; JSON with stable names
// (the `points` shape `bench` uses).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engines/plan.h"
#include "engines/scenario.h"
#include "twin/simulation.h"

namespace servescope {

struct SimulationPoint {
  LoadPoint load;
  SimulationResult result;
};

struct SimulationReport {
  const Scenario* scenario = nullptr;
  const Plan* plan = nullptr;
  ServingShape shape;
  Efficiency efficiency;
  std::string basis;  // where the factors come from, and the error they carry
  double accept_length = 1;
  std::int64_t requests = 0;
  std::string input_len;
  std::string output_len;
  std::uint64_t seed = 1;
  std::vector<SimulationPoint> points;
};

std::string render_simulation_text(const SimulationReport& report);
nlohmann::json simulation_json(const SimulationReport& report);

}  // namespace servescope
