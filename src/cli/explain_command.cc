// servescope explain OUTPUT... [scenario options] -- CMD
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>

#include "cli/command.h"
#include "cli/report_outputs.h"
#include "cli/scenario_cli.h"
#include "report/explain_text.h"
#include "report/plan_json.h"
#include "report/plan_text.h"

namespace servescope {

ExitStatus run_explain(const CommandArgs& args) {
  CLI::App app("Show the derivation tree of one or more outputs down to their inputs.", "explain");
  ScenarioOptions options;
  std::vector<std::string> outputs;
  bool json = false;
  ExplainOptions explain_options;
  app.add_option("OUTPUT", outputs, "Output or derivation node, e.g. max_running_requests")
      ->required();
  add_scenario_options(app, options);
  app.add_flag("--json", json, "Print the nodes of each tree as JSON");
  app.add_flag("--all", explain_options.show_unset_defaults,
               "Also show flags left unset at their defaults");
  app.add_option("--depth", explain_options.max_depth,
                 "Stop N levels below the output (default: down to the leaves)");
  ReportOutputs reports;
  add_report_outputs(app, reports);
  if (auto exit = parse_command_line(app, args))
    return *exit;
  options.command = args.launch_command;
  auto built = build_scenario(options);
  if (!built)
    return usage_error(built.message());
  auto plan = built->engine->plan(built->scenario);
  if (!plan)
    return usage_error(plan.message());
  for (const std::string& id : outputs) {
    if (plan->graph.find(id) == nullptr) {
      return usage_error(fmt::format("explain {}: no such output in this plan; outputs: {}", id,
                                     fmt::join(plan->outputs, ", ")));
    }
  }
  if (json || reports.any()) {
    nlohmann::json out = nlohmann::json::object();
    for (const std::string& id : outputs) {
      nlohmann::json nodes = nlohmann::json::array();
      for (const std::string& n : plan->graph.closure_of(id)) {
        const Node* node = plan->graph.find(n);
        if (node == nullptr)
          continue;  // an input the rule read but nothing set (an absent flag): no node
        Derivation sub;
        sub.add(*node);
        nodes.push_back(derivation_to_json(sub)["nodes"][0]);
      }
      out[id] = nodes;
    }
    if (Status st = write_reports(reports, out); !st)
      return usage_error(st.message());
    if (json) {
      std::cout << out.dump(2) << "\n";
      return ExitStatus::kOk;
    }
  }
  std::cout << scenario_headline(built->scenario, *plan) << "\n\n";
  for (const std::string& id : outputs)
    std::cout << render_explain_tree(plan->graph, id, explain_options) << "\n";
  // The rules the engine applies only because the GPU shares its memory with the CPU: they
  // change what the memory figures above mean, so explain names them beside the trees.
  if (const auto shared = plan->unified_memory_findings(); !shared.empty()) {
    std::cout << fmt::format("Because {} is integrated (unified memory):\n",
                             built->scenario.hardware.gpu.smi_name);
    for (const Finding* f : shared)
      std::cout << fmt::format("  {} [{}]: {}\n", f->code, f->rule, f->message);
  }
  return ExitStatus::kOk;
}

}  // namespace servescope
