#include "report/plan_json.h"

namespace servescope {

nlohmann::json value_to_json(const Value& v) {
  if (v.is_none())
    return nullptr;
  if (v.is_bool())
    return v.as_bool();
  if (v.is_int())
    return v.as_int();
  if (v.is_double())
    return v.as_number();
  if (v.is_string())
    return v.as_string();
  if (list_goes_on(v.as_list())) {
    nlohmann::json shown = nlohmann::json::array();
    for (std::size_t i = 0; i + 1 < v.as_list().size(); ++i)
      shown.push_back(v.as_list()[i]);
    shown.push_back("...");  // the log shortened the list
    return shown;
  }
  return v.as_list();
}

nlohmann::json derivation_to_json(const Derivation& graph) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const Node& n : graph.nodes()) {
    nlohmann::json j = {{"id", n.id},        {"value", value_to_json(n.value)},
                        {"unit", n.unit},    {"rule", n.rule},
                        {"why", n.why},      {"source", n.source},
                        {"inputs", n.inputs}};
    if (n.inputs.empty())
      j["origin"] = std::string(origin_name(n.origin));
    nodes.push_back(std::move(j));
  }
  return {{"nodes", nodes}};
}

nlohmann::json plan_to_json(const Plan& plan) {
  nlohmann::json out;
  out["engine"] = {{"name", plan.engine},
                   {"version", plan.version},
                   {"release", plan.release},
                   {"rules_date", plan.rules_date},
                   {"basis", plan.version_basis}};
  nlohmann::json outputs = nlohmann::json::object();
  for (const std::string& id : plan.outputs) {
    if (const Node* n = plan.graph.find(id))
      outputs[id] = value_to_json(n->value);
  }
  out["outputs"] = outputs;
  out["starts"] = plan.starts;
  if (!plan.starts)
    out["startup_error"] = plan.startup_error;
  nlohmann::json memory = nlohmann::json::array();
  for (const MemoryRow& r : plan.memory)
    memory.push_back({{"item", r.item}, {"gib", r.gib}, {"source", r.source}});
  out["memory"] = memory;
  nlohmann::json resolved = nlohmann::json::array();
  for (const ResolvedSetting& r : plan.resolved) {
    resolved.push_back(
        {{"name", r.name}, {"typed", r.typed}, {"resolved", r.resolved}, {"why", r.why}});
  }
  out["resolved"] = resolved;
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : plan.findings) {
    findings.push_back({{"severity", std::string(severity_name(f.severity))},
                        {"code", f.code},
                        {"flags", f.flags},
                        {"message", f.message},
                        {"rule", f.rule},
                        {"source", f.source}});
  }
  out["findings"] = findings;
  out["estimated"] = plan.estimated;
  out["derivation"] = derivation_to_json(plan.graph);
  return out;
}

}  // namespace servescope
