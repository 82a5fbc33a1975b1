#include "lab/bisect_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <fstream>
#include <sstream>

namespace servescope {

using nlohmann::json;

namespace {

std::string verdict_name(DdminOutcome o) {
  switch (o) {
    case DdminOutcome::kFail:
      return "reproduces";
    case DdminOutcome::kPass:
      return "good";
    case DdminOutcome::kUnresolved:
      return "unresolved";
  }
  return "?";
}

std::string kind_name(MetricSpec::Kind k) {
  switch (k) {
    case MetricSpec::Kind::kStartup:
      return "startup";
    case MetricSpec::Kind::kCapacity:
      return "capacity";
    case MetricSpec::Kind::kBench:
      return "bench";
  }
  return "?";
}

json opt(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

std::string number(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{:.4g}", v);
}

std::string duration(double s) {
  if (s < 60)
    return fmt::format("{:.1f} s", s);
  const long long total = std::llround(s);
  if (total < 3600)
    return fmt::format("{}m {:02}s", total / 60, total % 60);
  return fmt::format("{}h {:02}m", total / 3600, (total % 3600) / 60);
}

// Where an experiment ran: "local", or "slurm job 42 on node7".
std::string where(const ExperimentRecord& r) {
  if (r.job_id.empty())
    return r.launcher;
  return fmt::format("{} job {}{}{}", r.launcher, r.job_id, r.node.empty() ? "" : " on " + r.node,
                     r.reattached ? " (re-attached)" : "");
}

std::string changes_text(const std::vector<std::string>& changes) {
  return changes.empty() ? "(the good configuration)" : fmt::format("{}", fmt::join(changes, " "));
}

// What an experiment observed, as a person reads it.
std::string observed(const ExperimentView& v, const MetricSpec& m) {
  const ExperimentRecord& r = v.record;
  if (m.kind == MetricSpec::Kind::kStartup || r.outcome != ExperimentOutcome::kReady)
    return std::string(r.outcome == ExperimentOutcome::kReady ? "started"
                                                              : outcome_name(r.outcome));
  if (!r.value)
    return "no value";
  std::string s = number(*r.value);
  if (r.values.size() > 1) {
    auto [lo, hi] = std::minmax_element(r.values.begin(), r.values.end());
    s += fmt::format(" ({} … {}, {} runs)", number(*lo), number(*hi), r.values.size());
  }
  return s;
}

std::string predicted(const ExperimentView& v, const MetricSpec& m) {
  const Prediction& p = v.prediction;
  if (!p.available)
    return "—";
  if (!p.starts)
    return "does not start";
  if (m.kind == MetricSpec::Kind::kStartup)
    return "starts";
  return p.value ? number(*p.value) : "—";
}

std::vector<std::string> culprit_flags(const BisectResult& r, const Subset& s) {
  std::vector<std::string> out;
  for (std::size_t i : s)
    out.push_back(r.changes[i].label());
  return out;
}

std::string culprit_kind(const BisectResult& r, const Subset& s) {
  if (r.metric.kind == MetricSpec::Kind::kStartup)
    return r.bad_starts ? "startup-fix" : "startup-failure";
  return s.size() > 1 ? "interaction" : "single";
}

// The experiment that applies exactly the culprit set, and the one that applies everything
// else, when the search ran them.
json culprit_evidence(const BisectResult& r, const Subset& s) {
  json out = {{"flags", culprit_flags(r, s)}, {"kind", culprit_kind(r, s)}};
  if (const ExperimentView* alone = r.experiment_for(s)) {
    json ev = json::array();
    for (const EvidenceLine& e : alone->record.evidence)
      ev.push_back({{"file", alone->record.run_dir + "/" + e.file},
                    {"line", e.line},
                    {"text", e.text},
                    {"what", e.what}});
    out["alone"] = {{"experiment", alone->record.id},
                    {"outcome", outcome_name(alone->record.outcome)},
                    {"value", opt(alone->record.value)},
                    {"failure", alone->record.failure},
                    {"evidence", ev}};
  }
  Subset rest;
  for (std::size_t i = 0; i < r.changes.size(); ++i) {
    if (std::find(s.begin(), s.end(), i) == s.end())
      rest.push_back(i);
  }
  if (const ExperimentView* without = r.experiment_for(rest); without != nullptr && !rest.empty())
    out["without"] = {{"experiment", without->record.id},
                      {"outcome", outcome_name(without->record.outcome)},
                      {"value", opt(without->record.value)},
                      {"verdict", verdict_name(without->verdict)}};
  return out;
}

}  // namespace

json bisect_report_json(const BisectRequest& q, const BisectResult& r) {
  json culprits = json::array(), details = json::array();
  for (const Subset& s : r.culprits) {
    culprits.push_back(culprit_flags(r, s));
    details.push_back(culprit_evidence(r, s));
  }
  json changes = json::array();
  for (const FlagChange& c : r.changes)
    changes.push_back(c.label());
  json experiments = json::array();
  for (const ExperimentView& v : r.experiments) {
    const ExperimentRecord& e = v.record;
    json ev = json::array();
    for (const EvidenceLine& l : e.evidence)
      ev.push_back({{"file", e.run_dir + "/" + l.file},
                    {"line", l.line},
                    {"text", l.text},
                    {"what", l.what}});
    json prediction = nullptr;
    if (v.prediction.available)
      prediction = {{"starts", v.prediction.starts},
                    {"value", opt(v.prediction.value)},
                    {"verdict", v.predicted_verdict ? json(verdict_name(*v.predicted_verdict))
                                                    : json(nullptr)},
                    {"note", v.prediction.note}};
    experiments.push_back({{"id", e.id},
                           {"role", v.role.empty() ? json(nullptr) : json(v.role)},
                           {"flags", e.changes},
                           {"configuration", e.flags},
                           {"command", e.argv},
                           {"outcome", outcome_name(e.outcome)},
                           {"value", opt(e.value)},
                           {"values", e.values},
                           {"verdict", verdict_name(v.verdict)},
                           {"prediction", prediction},
                           {"model_gap", v.gap.empty() ? json(nullptr) : json(v.gap)},
                           {"reused", v.reused},
                           {"run_dir", e.run_dir},
                           {"log", e.run_dir + "/stderr.log"},
                           {"port", e.port},
                           {"gpus", e.gpus},
                           {"launcher", e.launcher},
                           {"job_id", e.job_id.empty() ? json(nullptr) : json(e.job_id)},
                           {"node", e.node.empty() ? json(nullptr) : json(e.node)},
                           {"queued_seconds", e.queued_seconds},
                           {"reattached", e.reattached},
                           {"startup_seconds", e.startup_seconds()},
                           {"seconds", e.seconds()},
                           {"exit_status", e.exit_status ? json(*e.exit_status) : json(nullptr)},
                           {"killed", e.killed},
                           {"failure", e.failure},
                           {"evidence", ev}});
  }
  const int n = static_cast<int>(r.changes.size());
  return {{"version", 1},
          {"generator", "servescope bisect"},
          {"launch", q.launch},
          {"good", q.good},
          {"bad", q.bad},
          {"metric",
           {{"name", r.metric.name},
            {"requested", q.metric},
            {"kind", kind_name(r.metric.kind)},
            {"good", opt(r.good_value)},
            {"bad", opt(r.bad_value)},
            {"bad_starts", r.bad_starts},
            {"repeat", q.repeat},
            {"tolerance", q.tolerance}}},
          {"strategy", q.strategy},
          {"parallel", q.parallel},
          {"changes", changes},
          {"culprits", culprits},
          {"culprit_evidence", details},
          {"launches", r.launches()},
          {"launched_now", r.launched},
          {"reused", r.reused},
          {"rounds", r.rounds},
          {"launches_beyond_endpoints", std::max(0, r.launches() - 2)},
          {"one_at_a_time_launches", n + 2},
          {"wall_seconds", r.wall_seconds},
          {"model", r.model.empty() ? json(nullptr) : json(r.model)},
          {"model_gaps", r.model_gaps},
          {"experiments", experiments},
          {"notes", r.notes},
          {"error", r.error.empty() ? json(nullptr) : json(r.error)},
          {"interrupted", r.interrupted}};
}

std::string bisect_report_markdown(const BisectRequest& q, const BisectResult& r) {
  std::ostringstream o;
  o << "# servescope bisect: " << r.metric.name << "\n\n";
  o << "- launch: `" << q.launch << "`\n";
  o << "- good: `" << q.good << "`\n- bad: `" << q.bad << "`\n";
  o << "- strategy: " << q.strategy
    << (q.parallel > 1 ? fmt::format(", {} at once", q.parallel) : "") << "\n";
  if (r.metric.kind != MetricSpec::Kind::kStartup && r.good_value && r.bad_value)
    o << fmt::format("- {}: {} (good) → {} (bad)\n", r.metric.name, number(*r.good_value),
                     number(*r.bad_value));
  else if (r.metric.kind == MetricSpec::Kind::kStartup)
    o << fmt::format("- startup: the good configuration {}, the bad one {}\n",
                     r.bad_starts ? "fails to start" : "starts",
                     r.bad_starts ? "starts" : "fails to start");
  o << fmt::format(
      "- launches: {} ({} beyond the two endpoints; one at a time would take {}), "
      "{} reused from the journal; wall time {}\n",
      r.launches(), std::max(0, r.launches() - 2), r.changes.size() + 2, r.reused,
      duration(r.wall_seconds));
  if (!r.model.empty())
    o << "- model: " << r.model << "\n";
  o << "\n## Culprits\n\n";
  if (!r.error.empty())
    o << "Not isolated: " << r.error << "\n";
  else if (r.culprits.empty())
    o << "None isolated" << (r.interrupted ? " (interrupted)" : "") << ".\n";
  for (const Subset& s : r.culprits) {
    o << fmt::format("- **{}** ({})\n", fmt::join(culprit_flags(r, s), " + "), culprit_kind(r, s));
    if (const ExperimentView* alone = r.experiment_for(s)) {
      o << fmt::format("  - alone (experiment {}): {}\n", alone->record.id,
                       observed(*alone, r.metric));
      for (const EvidenceLine& e : alone->record.evidence)
        o << fmt::format("    - `{}/{}:{}`: `{}`\n", alone->record.run_dir, e.file, e.line, e.text);
    }
  }
  o << "\n## Experiments\n\n";
  o << "| # | changes on the good configuration | outcome | " << r.metric.name
    << " | verdict | model | gap | where | queued |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const ExperimentView& v : r.experiments) {
    o << fmt::format("| {}{} | {} | {} | {} | {} | {} | {} | {} | {} |\n", v.record.id,
                     v.reused ? " (journal)" : "", changes_text(v.record.changes),
                     outcome_name(v.record.outcome), observed(v, r.metric), verdict_name(v.verdict),
                     predicted(v, r.metric), v.gap.empty() ? "" : "**" + v.gap + "**",
                     where(v.record), duration(v.record.queued_seconds));
  }
  if (!r.model_gaps.empty()) {
    o << "\n## Model gaps\n\n";
    for (const std::string& g : r.model_gaps)
      o << "- " << g << "\n";
  }
  if (!r.notes.empty()) {
    o << "\n## Notes\n\n";
    for (const std::string& n : r.notes)
      o << "- " << n << "\n";
  }
  o << "\n## Commands\n\n";
  for (const ExperimentView& v : r.experiments)
    o << fmt::format("{}. `{}`\n", v.record.id, fmt::join(v.record.argv, " "));
  return o.str();
}

std::string bisect_report_text(const BisectRequest& q, const BisectResult& r) {
  std::ostringstream o;
  std::string head = r.metric.name;
  if (r.metric.kind != MetricSpec::Kind::kStartup && r.good_value && r.bad_value)
    head += fmt::format(" {} (good) → {} (bad)", number(*r.good_value), number(*r.bad_value));
  else if (r.metric.kind == MetricSpec::Kind::kStartup)
    head += r.bad_starts ? ": the good configuration fails to start"
                         : ": the bad configuration fails to start";
  o << fmt::format("bisect {} · {} change(s) · {}\n\n", head, r.changes.size(), q.strategy);
  if (!r.error.empty())
    o << "  not isolated  " << r.error << "\n";
  else if (r.culprits.empty())
    o << "  not isolated" << (r.interrupted ? " (interrupted)" : "") << "\n";
  for (const Subset& s : r.culprits) {
    o << fmt::format("  culprit   {}  ({})\n", fmt::join(culprit_flags(r, s), " + "),
                     culprit_kind(r, s));
    if (const ExperimentView* alone = r.experiment_for(s)) {
      o << fmt::format("            alone: {}", observed(*alone, r.metric));
      if (!alone->record.failure.empty() && alone->record.outcome != ExperimentOutcome::kReady)
        o << " — " << alone->record.failure;
      o << "\n";
      for (const EvidenceLine& e : alone->record.evidence) {
        std::string text = e.text;
        if (text.size() > 140)
          text = text.substr(0, 137) + "...";
        o << fmt::format("            {}/{}:{}  {}\n", alone->record.run_dir, e.file, e.line, text);
      }
    }
  }
  o << fmt::format(
      "  launches  {} ({} beyond the endpoints; one at a time: {}){}{} · {}\n", r.launches(),
      std::max(0, r.launches() - 2), r.changes.size() + 2,
      r.reused > 0 ? fmt::format(", {} from the journal", r.reused) : "",
      q.parallel > 1 ? fmt::format(", {} round(s) of up to {}", r.rounds, q.parallel) : "",
      duration(r.wall_seconds));
  if (!r.model.empty()) {
    int compared = 0;
    for (const ExperimentView& v : r.experiments)
      compared += v.prediction.available ? 1 : 0;
    int gaps = 0;
    for (const ExperimentView& v : r.experiments)
      gaps += v.gap.empty() ? 0 : 1;
    o << fmt::format("  model     {} of {} experiments as predicted", compared - gaps, compared);
    o << (r.model_gaps.empty() ? "\n" : fmt::format("; {} model gap(s):\n", r.model_gaps.size()));
    for (const std::string& g : r.model_gaps)
      o << "            " << g << "\n";
  }
  for (const std::string& n : r.notes)
    o << "  note      " << n << "\n";
  if (r.interrupted)
    o << "  interrupted: continue with --resume\n";
  o << fmt::format("  report    {}/report.md, {}/report.json\n", q.out_dir, q.out_dir);
  return o.str();
}

std::string experiment_progress_line(const ExperimentView& v, const MetricSpec& metric) {
  const ExperimentRecord& r = v.record;
  std::string what = r.outcome == ExperimentOutcome::kReady
                         ? (metric.kind == MetricSpec::Kind::kStartup || !r.value
                                ? std::string("started")
                                : fmt::format("{} = {}", metric.name, number(*r.value)))
                         : std::string(outcome_name(r.outcome));
  if (!r.failure.empty() && r.outcome != ExperimentOutcome::kReady)
    what += ": " + r.failure;
  if (what.size() > 160)
    what = what.substr(0, 157) + "...";
  std::string place;
  if (!r.job_id.empty())
    place = fmt::format(
        " · {}{}", where(r),
        r.queued_seconds >= 1 ? fmt::format(", {} in the queue", duration(r.queued_seconds)) : "");
  return fmt::format(
      "[{:>3}] {} · {}{}{}", r.id, changes_text(r.changes), what, place,
      v.reused ? " (from the journal)" : fmt::format(" ({})", duration(r.seconds())));
}

}  // namespace servescope

namespace servescope {

Status write_bisect_reports(const BisectRequest& q, const BisectResult& r) {
  const auto write = [](const std::string& path, const std::string& text) -> Status {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out)
      return fail("cannot write " + path);
    return ok_status();
  };
  if (Status st = write(q.out_dir + "/report.json", bisect_report_json(q, r).dump(2) + "\n"); !st)
    return st;
  return write(q.out_dir + "/report.md", bisect_report_markdown(q, r));
}

}  // namespace servescope
