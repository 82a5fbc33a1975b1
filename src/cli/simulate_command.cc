// servescope simulate [scenario] (--concurrency C[,C...] | --rate R[,R...] [--arrival ...])
//   --requests N [--input-len SPEC] [--output-len SPEC] [--seed S] [--efficiency K=V] [--json] --
//   CMD
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <fstream>
#include <iostream>

#include "cli/command.h"
#include "cli/scenario_cli.h"
#include "cli/serving_setup.h"
#include "cli/timing_calibration.h"
#include "twin/calibration.h"
#include "twin/cost_defaults.h"
#include "twin/simulation_report.h"

namespace servescope {

ExitStatus run_simulate(const CommandArgs& args) {
  CLI::App app(
      "Simulate serving with the engine's scheduler limits and a roofline cost model (a model, "
      "not a measurement): throughput, TTFT/TPOT/ITL/E2E, queueing and KV usage.",
      "simulate");
  ScenarioOptions options;
  std::string concurrency, rate, arrival = "poisson", input_len = "1024", output_len = "256";
  std::int64_t requests = 0;
  std::uint64_t seed = 1;
  std::vector<std::string> efficiency;
  bool json = false;
  add_scenario_options(app, options);
  app.add_option("--concurrency", concurrency,
                 "Closed loop: requests in flight, C or C1,C2,... (a sweep)");
  app.add_option("--rate", rate, "Open loop: requests per second, R or R1,R2,... (a sweep)");
  app.add_option("--arrival", arrival, "Open-loop arrivals: poisson, constant or gamma:K")
      ->capture_default_str();
  app.add_option("--requests", requests, "Requests per point (not needed to calibrate only)");
  app.add_option("--input-len", input_len,
                 "Prompt tokens: N, uniform:A:B, normal:MEAN:SD or a JSONL file of (input, output)")
      ->capture_default_str();
  app.add_option("--output-len", output_len, "Output tokens: same forms as --input-len")
      ->capture_default_str();
  app.add_option("--seed", seed, "Seed of the lengths and arrivals")->capture_default_str();
  app.add_option("--efficiency", efficiency,
                 "Cost-model factor KEY=VALUE (repeatable): bandwidth, compute, interconnect, "
                 "allreduce_latency_us, step_overhead_us, accept_length");
  std::string calibration_file, save_calibration;
  app.add_option("--calibration", calibration_file,
                 "The cost-model factors of a saved calibration (--save-calibration)");
  app.add_option("--save-calibration", save_calibration,
                 "With --calibrate-from RUN.json: write the fitted factors to FILE");
  app.add_flag("--json", json, "Print the results as JSON");
  if (auto exit = parse_command_line(app, args))
    return *exit;
  // --calibrate-from takes a log (the memory figures) or a bench --json run (the timing).
  std::string timing_run;
  std::optional<nlohmann::json> run_doc;
  if (!options.calibrate_from.empty())
    run_doc = bench_result_in(options.calibrate_from);
  if (run_doc) {
    timing_run = options.calibrate_from;
    options.calibrate_from.clear();
  }
  if (!save_calibration.empty() && timing_run.empty())
    return usage_error("simulate --save-calibration: give the run with --calibrate-from RUN.json");
  const bool calibrate_only = !timing_run.empty() && concurrency.empty() && rate.empty();
  if (!calibrate_only && concurrency.empty() == rate.empty())
    return usage_error("simulate: give exactly one of --concurrency and --rate");
  if (!calibrate_only && requests < 1)
    return usage_error("simulate: --requests must be at least 1");
  const bool closed = !concurrency.empty();
  auto values = calibrate_only ? Result<std::vector<double>>(std::vector<double>{})
                               : parse_number_list(closed ? concurrency : rate,
                                                   closed ? "--concurrency" : "--rate");
  if (!values)
    return usage_error(values.message());
  auto arrival_process = ArrivalProcess::parse(arrival);
  if (!arrival_process)
    return usage_error(arrival_process.message());
  auto in_spec = LengthSpec::parse(input_len, "--input-len");
  if (!in_spec)
    return usage_error(in_spec.message());
  // A JSONL file given to --input-len also gives the output lengths unless --output-len is set.
  const bool output_from_input_file =
      in_spec->kind() == LengthSpec::Kind::kFile && app.count("--output-len") == 0;
  auto out_spec = output_from_input_file ? in_spec : LengthSpec::parse(output_len, "--output-len");
  if (!out_spec)
    return usage_error(out_spec.message());
  // Bad factors are bad input before anything is planned (applied again over the defaults).
  Efficiency typed_check;
  if (Status bad = apply_efficiency(typed_check, calibration_file, efficiency); !bad)
    return usage_error(bad.message());

  options.command = args.launch_command;
  auto setup = prepare_serving(options);
  if (!setup)
    return usage_error(setup.message());
  const ServingSetup& s = **setup;
  // The factors: the defaults fitted on published results for this engine and GPU family, then a
  // saved calibration, then the factors typed.
  const CostDefaults defaults =
      cost_defaults(s.built.scenario.engine, s.built.scenario.hardware.gpu);
  Efficiency eff = defaults.efficiency;
  if (Status st = apply_efficiency(eff, calibration_file, efficiency); !st)
    return usage_error(st.message());
  std::string basis = defaults.describe();
  if (!calibration_file.empty())
    basis = "factors of the calibration " + calibration_file;
  if (!efficiency.empty())
    basis += "; factors typed: " + fmt::format("{}", fmt::join(efficiency, " "));
  if (!s.plan.starts) {
    std::cerr << fmt::format("servescope: the plan says the engine would not start: {}\n",
                             s.plan.startup_error);
    return ExitStatus::kFindings;
  }
  auto shape = s.profile->serving_shape(s.built.scenario, s.plan);
  if (!shape)
    return usage_error(shape.message());
  if (!timing_run.empty()) {
    auto measured = measured_points(*run_doc);
    if (!measured)
      return usage_error(fmt::format("--calibrate-from {}: {}", timing_run, measured.message()));
    auto fitted = calibrate_cost_model(s.built.scenario, *shape, eff, *measured);
    if (!fitted)
      return usage_error(fmt::format("--calibrate-from {}: {}", timing_run, fitted.message()));
    fitted->source = timing_run;
    if (!save_calibration.empty()) {
      std::ofstream out(save_calibration, std::ios::binary);
      if (!out)
        return usage_error(
            fmt::format("--save-calibration {}: cannot write the file", save_calibration));
      out << calibration_json(*fitted).dump(2) << "\n";
    }
    if (json && calibrate_only)
      std::cout << calibration_json(*fitted).dump(2) << "\n";
    else
      std::cerr << render_calibration_text(*fitted);
    eff = fitted->efficiency;
    basis = fmt::format("calibrated from {}: RMS log error {:.3f} on its points", timing_run,
                        std::sqrt(fitted->loss_after));
    if (calibrate_only)
      return ExitStatus::kOk;
  }
  auto cost = CostModel::build(s.built.scenario, *shape, eff);
  if (!cost)
    return usage_error(cost.message());

  SimulationReport report;
  report.scenario = &s.built.scenario;
  report.plan = &s.plan;
  report.shape = *shape;
  report.efficiency = eff;
  report.basis = basis;
  report.accept_length = cost->accept_length();
  report.requests = requests;
  report.input_len = in_spec->describe();
  report.output_len = output_from_input_file ? in_spec->describe() : out_spec->describe();
  report.seed = seed;
  for (double v : *values) {
    SimulationInput in;
    in.shape = *shape;
    in.cost = &*cost;
    in.load.closed_loop = closed;
    in.load.concurrency = v;
    in.load.rate = v;
    in.load.arrival = *arrival_process;
    in.requests = requests;
    in.input = *in_spec;
    in.output = *out_spec;
    in.seed = seed;
    report.points.push_back({in.load, simulate(in)});
  }
  if (json) {
    std::cout << simulation_json(report).dump(2) << "\n";
  } else {
    std::cout << render_simulation_text(report);
  }
  return ExitStatus::kOk;
}

}  // namespace servescope
