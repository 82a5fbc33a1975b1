// servescope fit TARGET [--gpu K,...] [--gpus N | --max-gpus N] [--vary ...] [--keep ...]
//                [--engine E@V] [--model M] [-- CMD | --from FILE]
#include <fmt/format.h>

#include <iostream>

#include "catalog/gpu_catalog.h"
#include "cli/command.h"
#include "cli/fit_options.h"
#include "cli/report_outputs.h"
#include "cli/scenario_cli.h"
#include "diagnose/fit.h"
#include "report/fit_report.h"

namespace servescope {
namespace {

// The closest achievable figure, for the one line an unmet target ends with.
std::string closest_note(const FitResult& r) {
  if (r.closest.empty())
    return "";
  const FitConfiguration& c = r.closest.front();
  return fmt::format("; closest: {}× {} TP {} · PP {}, {}", c.gpus, c.gpu, c.tensor_parallel,
                     c.pipeline_parallel, c.why_not);
}

}  // namespace

ExitStatus run_fit(const CommandArgs& args) {
  CLI::App app(
      "From a target to the configurations that meet it: GPUs, parallelism and flags, each "
      "planned with the engine's own rules, with the command to launch.",
      "fit");
  FitOptions o;
  add_fit_options(app, o);
  bool json = false;
  app.add_flag("--json", json, "Print the configurations as JSON, best first");
  ReportOutputs reports;
  add_report_outputs(app, reports);
  if (auto exit = parse_command_line(app, args))
    return *exit;
  auto request = build_fit_request(o, args.launch_command);
  if (!request)
    return usage_error(request.message());
  auto result =
      fit_configurations(*request->engine, request->base, request->target, request->space);
  if (!result)
    return usage_error(result.message());
  if (request->latency) {
    if (Status st =
            apply_latency_target(*request->engine, *result, *request->latency, request->limit);
        !st) {
      return usage_error(st.message());
    }
  } else if (result->configurations.size() > request->limit) {
    result->configurations.resize(request->limit);
  }
  const FitKnobs& knobs = *request->engine->fit_knobs();
  const std::string latency = request->latency ? request->latency->describe() : "";
  if (reports.any()) {
    if (Status st = write_reports(reports, fit_to_json(*result, knobs, latency)); !st)
      return usage_error(st.message());
  }
  if (json)
    std::cout << fit_to_json(*result, knobs, latency).dump(2) << "\n";
  else if (o.emit.empty() || result->configurations.empty())
    std::cout << render_fit_text(*result, knobs, latency);
  if (result->configurations.empty()) {
    std::cerr << fmt::format("servescope: fit: no configuration in the space reaches {}{}\n",
                             result->target.starts_only ? latency : result->target.describe(),
                             closest_note(*result));
    return ExitStatus::kFindings;
  }
  if (!o.emit.empty()) {
    auto text = emit_configuration(o.emit, result->configurations.front(), *request->engine);
    if (!text)
      return usage_error(text.message());
    std::cout << *text;
  }
  return ExitStatus::kOk;
}

}  // namespace servescope
