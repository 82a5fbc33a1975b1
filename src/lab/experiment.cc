#include "lab/experiment.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace servescope {

using nlohmann::json;

namespace {

constexpr std::pair<ExperimentOutcome, std::string_view> kOutcomes[] = {
    {ExperimentOutcome::kReady, "ready"},
    {ExperimentOutcome::kFailedStart, "failed_start"},
    {ExperimentOutcome::kTimeout, "timeout"},
    {ExperimentOutcome::kCrashed, "crashed"},
    {ExperimentOutcome::kInterrupted, "interrupted"},
    {ExperimentOutcome::kCancelled, "cancelled"},
    {ExperimentOutcome::kQueueTimeout, "queue_timeout"},
};

}  // namespace

std::string_view outcome_name(ExperimentOutcome outcome) {
  for (const auto& [o, name] : kOutcomes) {
    if (o == outcome)
      return name;
  }
  return "?";
}

std::optional<ExperimentOutcome> parse_outcome(std::string_view name) {
  for (const auto& [o, n] : kOutcomes) {
    if (n == name)
      return o;
  }
  return std::nullopt;
}

bool inconclusive(ExperimentOutcome outcome) {
  return outcome == ExperimentOutcome::kInterrupted || outcome == ExperimentOutcome::kCancelled ||
         outcome == ExperimentOutcome::kQueueTimeout;
}

std::string configuration_key(const std::vector<std::string>& flags) {
  return fmt::format("{}", fmt::join(flags, " "));
}

double median(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

json to_json(const ExperimentRecord& r) {
  json env = json::object();
  for (const auto& [k, v] : r.env)
    env[k] = v;
  json evidence = json::array();
  for (const EvidenceLine& e : r.evidence)
    evidence.push_back({{"file", e.file}, {"line", e.line}, {"text", e.text}, {"what", e.what}});
  json j = {{"id", r.id},
            {"changes", r.changes},
            {"flags", r.flags},
            {"command", r.argv},
            {"env", env},
            {"cwd", r.cwd},
            {"port", r.port},
            {"gpus", r.gpus},
            {"launcher", r.launcher},
            {"job_id", r.job_id},
            {"node", r.node},
            {"queued_seconds", r.queued_seconds},
            {"reattached", r.reattached},
            {"run_dir", r.run_dir},
            {"started_at", r.started_at},
            {"ready_at", r.ready_at},
            {"stopped_at", r.stopped_at},
            {"exit_status", r.exit_status ? json(*r.exit_status) : json(nullptr)},
            {"killed", r.killed},
            {"group_gone", r.group_gone},
            {"port_released", r.port_released},
            {"outcome", outcome_name(r.outcome)},
            {"failure", r.failure},
            {"figures", r.figures},
            {"values", r.values},
            {"value", r.value ? json(*r.value) : json(nullptr)},
            {"evidence", evidence},
            {"scraped", r.scraped}};
  return j;
}

Result<ExperimentRecord> experiment_from_json(const json& j) {
  if (!j.is_object())
    return fail("not a JSON object");
  ExperimentRecord r;
  try {
    r.id = j.at("id").get<int>();
    r.changes = j.at("changes").get<std::vector<std::string>>();
    r.flags = j.at("flags").get<std::vector<std::string>>();
    r.argv = j.at("command").get<std::vector<std::string>>();
    for (const auto& [k, v] : j.at("env").items())
      r.env.emplace_back(k, v.get<std::string>());
    r.cwd = j.at("cwd").get<std::string>();
    r.port = j.at("port").get<int>();
    r.gpus = j.at("gpus").get<std::string>();
    // Where it ran: absent from journals written before the launchers (local runs).
    r.launcher = j.value("launcher", std::string("local"));
    r.job_id = j.value("job_id", std::string());
    r.node = j.value("node", std::string());
    r.queued_seconds = j.value("queued_seconds", 0.0);
    r.reattached = j.value("reattached", false);
    r.run_dir = j.at("run_dir").get<std::string>();
    r.started_at = j.at("started_at").get<double>();
    r.ready_at = j.at("ready_at").get<double>();
    r.stopped_at = j.at("stopped_at").get<double>();
    if (!j.at("exit_status").is_null())
      r.exit_status = j.at("exit_status").get<int>();
    r.killed = j.at("killed").get<bool>();
    r.group_gone = j.at("group_gone").get<bool>();
    r.port_released = j.at("port_released").get<bool>();
    const auto outcome = parse_outcome(j.at("outcome").get<std::string>());
    if (!outcome)
      return fail("unknown outcome '" + j.at("outcome").get<std::string>() + "'");
    r.outcome = *outcome;
    r.failure = j.at("failure").get<std::string>();
    r.figures = j.at("figures").get<std::map<std::string, double>>();
    r.values = j.at("values").get<std::vector<double>>();
    if (!j.at("value").is_null())
      r.value = j.at("value").get<double>();
    for (const json& e : j.at("evidence"))
      r.evidence.push_back({e.at("file").get<std::string>(), e.at("line").get<std::uint64_t>(),
                            e.at("text").get<std::string>(), e.at("what").get<std::string>()});
    r.scraped = j.at("scraped").get<std::map<std::string, std::string>>();
  } catch (const json::exception& e) {
    return fail(e.what());
  }
  return r;
}

}  // namespace servescope
