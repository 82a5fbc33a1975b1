// servescope simulate [scenario] (--concurrency C[,C...] | --rate R[,R...] [--arrival ...])
//   --requests N [--input-len SPEC] [--output-len SPEC] [--seed S] [--efficiency K=V] [--json] --
//   CMD
#include <fmt/format.h>

#include <iostream>

#include "cli/command.h"
#include "cli/scenario_cli.h"
#include "cli/serving_setup.h"
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
  app.add_option("--requests", requests, "Requests per point")->required();
  app.add_option("--input-len", input_len,
                 "Prompt tokens: N, uniform:A:B, normal:MEAN:SD or a JSONL file of (input, output)")
      ->capture_default_str();
  app.add_option("--output-len", output_len, "Output tokens: same forms as --input-len")
      ->capture_default_str();
  app.add_option("--seed", seed, "Seed of the lengths and arrivals")->capture_default_str();
  app.add_option("--efficiency", efficiency,
                 "Cost-model factor KEY=VALUE (repeatable): bandwidth, compute, interconnect, "
                 "allreduce_latency_us, step_overhead_us, accept_length");
  app.add_flag("--json", json, "Print the results as JSON");
  if (auto exit = parse_command_line(app, args))
    return *exit;
  if (concurrency.empty() == rate.empty())
    return usage_error("simulate: give exactly one of --concurrency and --rate");
  if (requests < 1)
    return usage_error("simulate: --requests must be at least 1");
  const bool closed = !concurrency.empty();
  auto values = parse_number_list(closed ? concurrency : rate, closed ? "--concurrency" : "--rate");
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
  Efficiency eff;
  if (Status st = eff.apply(efficiency); !st)
    return usage_error(st.message());

  options.command = args.launch_command;
  auto setup = prepare_serving(options);
  if (!setup)
    return usage_error(setup.message());
  const ServingSetup& s = **setup;
  if (!s.plan.starts) {
    std::cerr << fmt::format("servescope: the plan says the engine would not start: {}\n",
                             s.plan.startup_error);
    return ExitStatus::kFindings;
  }
  auto shape = s.profile->serving_shape(s.built.scenario, s.plan);
  if (!shape)
    return usage_error(shape.message());
  auto cost = CostModel::build(s.built.scenario, *shape, eff);
  if (!cost)
    return usage_error(cost.message());

  SimulationReport report;
  report.scenario = &s.built.scenario;
  report.plan = &s.plan;
  report.shape = *shape;
  report.efficiency = eff;
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
