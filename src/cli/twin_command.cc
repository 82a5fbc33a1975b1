// servescope twin [scenario] [--speed X] [--startup-seconds S] [--fault KIND=VALUE]... [--threads
// N] -- CMD
#include <fmt/format.h>

#include <cmath>
#include <iostream>

#include "cli/command.h"
#include "cli/scenario_cli.h"
#include "cli/serving_setup.h"
#include "cli/timing_calibration.h"
#include "twin/cost_defaults.h"
#include "twin/twin_server.h"

namespace servescope {

ExitStatus run_twin(const CommandArgs& args) {
  CLI::App app(
      "Serve the engine's HTTP API from the plan, like the engine would: its startup log on "
      "stderr, "
      "its limits, queueing and metrics, every token timed by a roofline model (not a "
      "measurement).",
      "twin");
  ScenarioOptions options;
  TwinServerOptions twin;
  std::vector<std::string> faults, efficiency;
  bool no_access_log = false;
  add_scenario_options(app, options);
  app.add_option("--speed", twin.speed,
                 "Simulated seconds per wall second (10: ten times faster; inf: no waiting)")
      ->capture_default_str();
  app.add_option("--jitter", twin.jitter,
                 "Run-to-run noise: relative spread of step times (0.1: about 10%), redrawn "
                 "every 32 steps from --seed (default 0: exact)");
  app.add_option("--startup-seconds", twin.startup_seconds,
                 "Wall seconds the startup log takes before ready")
      ->capture_default_str();
  app.add_option(
      "--fault", faults,
      "Fault for testing clients (repeatable): crash-after=N (finished requests), stall=MS (the "
      "scheduler freezes once, after the first token), drop-stream-after=K (tokens), error-rate=P "
      "(HTTP 500s, seeded)");
  app.add_option("--threads", twin.threads, "Threads running the server")->capture_default_str();
  app.add_option("--seed", twin.seed, "Seed of the error-rate draws, --jitter and request ids")
      ->capture_default_str();
  std::string calibration_file;
  app.add_option("--calibration", calibration_file,
                 "The cost-model factors of a saved calibration (simulate --save-calibration)");
  app.add_option("--efficiency", efficiency,
                 "Cost-model factor KEY=VALUE (repeatable), as in simulate");
  app.add_option("--max-body-bytes", twin.max_body_bytes,
                 "Largest request body accepted (larger: HTTP 413)")
      ->capture_default_str();
  app.add_flag("--no-access-log", no_access_log,
               "Do not print the HTTP server's per-request access lines");
  if (auto exit = parse_command_line(app, args))
    return *exit;
  if (!(twin.speed > 0))
    return usage_error("twin: --speed must be a positive number (inf for no waiting)");
  if (!(twin.jitter >= 0 && twin.jitter <= 1))
    return usage_error("twin: --jitter must be between 0 and 1 (a relative spread such as 0.1)");
  if (!(twin.startup_seconds >= 0) || std::isinf(twin.startup_seconds))
    return usage_error("twin: --startup-seconds must be a finite number ≥ 0");
  if (twin.threads < 1 || twin.threads > 256)
    return usage_error("twin: --threads must be between 1 and 256");
  if (Status st = twin.faults.apply(faults); !st)
    return usage_error(st.message());
  Efficiency typed_check;
  if (Status bad = apply_efficiency(typed_check, calibration_file, efficiency); !bad)
    return usage_error(bad.message());
  twin.access_log = !no_access_log;

  options.command = args.launch_command;
  auto setup = prepare_serving(options);
  if (!setup)
    return usage_error(setup.message());
  const ServingSetup& s = **setup;
  // The defaults fitted on published results for the engine and GPU family, under a saved
  // calibration and the factors typed.
  Efficiency eff = cost_defaults(s.built.scenario.engine, s.built.scenario.hardware.gpu).efficiency;
  if (Status st = apply_efficiency(eff, calibration_file, efficiency); !st)
    return usage_error(st.message());
  ServingShape shape;
  std::optional<CostModel> cost;
  if (s.plan.starts) {
    auto sh = s.profile->serving_shape(s.built.scenario, s.plan);
    if (!sh)
      return usage_error(sh.message());
    shape = *sh;
    auto c = CostModel::build(s.built.scenario, shape, eff);
    if (!c)
      return usage_error(c.message());
    cost = *c;
  }
  StreamLog log(stderr);
  TwinServer server(s.built.scenario, s.plan, *s.profile, shape, cost ? &*cost : nullptr, twin,
                    log);
  return static_cast<ExitStatus>(server.run());
}

}  // namespace servescope
