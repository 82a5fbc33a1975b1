// servescope diff --a 'CMD' --b 'CMD' [--a-engine V --b-engine V] [--a-gpu G --b-gpu G]
//                 [--a-calibrate-from LOG --b-calibrate-from LOG] [scenario] [-- CMD]
// servescope diff --a-log LOG --b-log LOG [scenario]: each side rebuilt from its log as
//                 `check` does (its launch command, resolved settings, calibration, version).
// Two commands of one engine: counterfactual attribution (diagnose/diff.h). Of two engines:
// their KV arithmetic term by term (diagnose/cross_engine_diff.h).
#include <fmt/format.h>

#include <iostream>

#include "cli/command.h"
#include "cli/report_outputs.h"
#include "cli/scenario_cli.h"
#include "core/file.h"
#include "core/text.h"
#include "diagnose/check.h"
#include "diagnose/cross_engine_diff.h"
#include "diagnose/diff.h"
#include "report/cross_engine_diff_report.h"
#include "report/diff_report.h"

namespace servescope {
ExitStatus run_diff(const CommandArgs& args) {
  CLI::App app(
      "Attribute every output that differs between two scenarios to the changes that cause it.",
      "diff");
  ScenarioOptions options;
  std::string a_cmd, b_cmd, a_engine, b_engine, a_gpu, b_gpu, a_calibration_log, b_calibration_log,
      a_run_log, b_run_log;
  bool json = false;
  add_scenario_options(app, options);
  app.add_option("--a", a_cmd, "Launch command A, quoted (default: the command after --)");
  app.add_option("--b", b_cmd, "Launch command B, quoted (default: the command after --)");
  app.add_option("--a-engine", a_engine, "Engine NAME[@VERSION] for A (default: --engine)");
  app.add_option("--b-engine", b_engine, "Engine NAME[@VERSION] for B (default: --engine)");
  app.add_option("--a-gpu", a_gpu, "GPU for A (default: --gpu)");
  app.add_option("--b-gpu", b_gpu, "GPU for B (default: --gpu)");
  app.add_option("--a-calibrate-from", a_calibration_log,
                 "Calibrate A from its startup log (default: --calibrate-from)");
  app.add_option("--b-calibrate-from", b_calibration_log,
                 "Calibrate B from its startup log (default: --calibrate-from)");
  app.add_option("--a-log", a_run_log, "A is the run this log records (rebuilt as check does)");
  app.add_option("--b-log", b_run_log, "B is the run this log records (rebuilt as check does)");
  app.add_flag("--json", json, "Print the diff as JSON");
  ReportOutputs reports;
  add_report_outputs(app, reports);
  if (auto exit = parse_command_line(app, args))
    return *exit;

  // A side is a command (shell text: continuations, env prefixes, docker run …), a file that
  // holds one (a script, unit, compose file or manifest), or the shared command after --.
  auto read_side = [&](const std::string& text, const char* name, ScenarioOptions& o) -> Status {
    if (text.empty()) {
      if (args.launch_command.empty() && o.from.empty()) {
        return fail(fmt::format(
            "diff: give {} 'CMD' (or a file holding it) or {}-log LOG, or a shared command after "
            "-- or --from FILE",
            name, name));
      }
      o.command = args.launch_command;
    } else if (is_regular_file(text)) {
      o.from = text;
      o.command.clear();
    } else {
      o.from.clear();
      o.command = {text};
    }
    return ok_status();
  };
  if (!a_run_log.empty() && !a_cmd.empty())
    return usage_error("diff: give --a or --a-log, not both");
  if (!b_run_log.empty() && !b_cmd.empty())
    return usage_error("diff: give --b or --b-log, not both");
  ScenarioOptions oa = options, ob = options;
  if (!a_engine.empty())
    oa.engine = a_engine;
  if (!b_engine.empty())
    ob.engine = b_engine;
  if (!a_gpu.empty())
    oa.gpu = a_gpu;
  if (!b_gpu.empty())
    ob.gpu = b_gpu;
  if (!a_calibration_log.empty())
    oa.calibrate_from = a_calibration_log;
  if (!b_calibration_log.empty())
    ob.calibrate_from = b_calibration_log;
  auto side = [&](const std::string& run, const std::string& cmd, ScenarioOptions& o,
                  const char* name) -> Result<BuiltScenario> {
    if (!run.empty()) {
      CheckOptions c;
      c.engine = o.engine;
      c.gpu = o.gpu;
      c.model = o.model;
      c.env = o.env;
      auto built = scenario_of_log_file(run, c);
      if (!built)
        return fail(fmt::format("{}-log {}", name, built.message()));
      return built;
    }
    if (Status st = read_side(cmd, name, o); !st)
      return st.error();
    auto built = build_scenario(o);
    if (!built)
      return fail(fmt::format("{}: {}", name[2] == 'a' ? "A" : "B", built.message()));
    return built;
  };
  auto a = side(a_run_log, a_cmd, oa, "--a");
  if (!a)
    return usage_error(a.message());
  auto b = side(b_run_log, b_cmd, ob, "--b");
  if (!b)
    return usage_error(b.message());
  if (a->engine != b->engine) {
    if (reports.any())
      return usage_error("diff: --html and --markdown report a diff within one engine");
    auto cross = diff_across_engines(*a->engine, a->scenario, *b->engine, b->scenario);
    if (!cross)
      return usage_error(cross.message());
    if (json) {
      std::cout << cross_engine_diff_to_json(*cross).dump(2) << "\n";
    } else {
      std::cout << render_cross_engine_diff_text(*cross);
    }
    return ExitStatus::kOk;
  }
  auto d = diff_scenarios(*a->engine, a->scenario, b->scenario);
  if (!d)
    return usage_error(d.message());
  if (json || reports.any()) {
    const nlohmann::json doc = diff_to_json(*d);
    if (Status st = write_reports(reports, doc); !st)
      return usage_error(st.message());
    if (json)
      std::cout << doc.dump(2) << "\n";
  }
  if (!json) {
    std::cout << render_diff_text(*d);
  }
  return ExitStatus::kOk;
}

}  // namespace servescope
