#include "report/plan_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/format.h"

namespace servescope {

std::string scenario_headline(const Scenario& s, const Plan& plan) {
  const GpuSpec& gpu = s.hardware.gpu;
  std::string out =
      gpu.is_cpu
          ? fmt::format("{} {} · {} · the host CPU (vLLM's CPU platform, node memory {})",
                        plan.engine, plan.version, s.model.source,
                        gpu.memory_mib > 0 ? with_thousands(gpu.memory_mib) + " MiB" : "not given")
          : fmt::format("{} {} · {} · {} × {} (SM{}, {} MiB)", plan.engine, plan.version,
                        s.model.source, s.hardware.gpus_per_node, gpu.key, gpu.compute_capability,
                        with_thousands(gpu.memory_mib));
  // Where the inputs came from, when they did not come from the command line as typed.
  for (const std::string& line : s.inputs_read)
    out += "\n  read  " + line;
  return out;
}

std::string render_plan_text(const Scenario& s, const Plan& plan) {
  std::string out = scenario_headline(s, plan) + "\n";
  if (!plan.estimated.empty()) {
    // The engine's findings name the calibration options that replace each estimate.
    out += fmt::format("  (estimated: {}; see the estimated-input findings for exact numbers)\n",
                       fmt::join(plan.estimated, ", "));
  }
  out += "\n";
  std::vector<std::vector<std::string>> rows;
  for (const std::string& id : plan.outputs) {
    const Node* n = plan.graph.find(id);
    if (n == nullptr)
      continue;
    rows.push_back({id, format_value(n->value, n->unit), n->rule, n->why});
  }
  out += render_columns(rows);
  if (!plan.starts)
    out += fmt::format("\n  ✗ the server would not start: {}\n", plan.startup_error);

  if (!plan.resolved.empty()) {
    out += "\nResolved by the engine\n";
    rows.clear();
    for (const ResolvedSetting& r : plan.resolved) {
      rows.push_back({r.name,
                      (r.typed.empty() ? std::string("(unset)") : r.typed) + " → " + r.resolved,
                      r.why});
    }
    out += render_columns(rows);
  }
  out += "\nMemory per GPU\n";
  rows.clear();
  for (const MemoryRow& m : plan.memory)
    rows.push_back({m.item, fmt::format("{:8.2f} GiB", m.gib), m.source});
  out += render_columns(rows);
  if (!plan.findings.empty()) {
    out += "\nFindings\n";
    rows.clear();
    for (const Finding& f : plan.findings) {
      rows.push_back({std::string(severity_name(f.severity)), f.code, f.message});
    }
    out += render_columns(rows);
  }
  return out;
}

}  // namespace servescope
