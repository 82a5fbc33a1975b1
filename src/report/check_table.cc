#include "report/check_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "report/check_report.h"
#include "report/format.h"

namespace servescope {
namespace {

std::string percent(std::size_t part, std::size_t whole) {
  return whole == 0 ? std::string("—")
                    : fmt::format("{:.0f}%",
                                  100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

// The mismatched fields, else what the log lacks.
std::string remark_of_figures(const CheckRow& row) {
  std::string mismatched;
  for (const Comparison& c : row.result->comparisons) {
    if (c.checked && !c.match)
      mismatched += (mismatched.empty() ? "" : ", ") + c.field;
  }
  if (!mismatched.empty())
    return "mismatch: " + mismatched;
  if (!row.result->log.missing.empty())
    return "lacks " + row.result->log.missing.front();
  return row.result->gpu_known ? std::string() : std::string("GPU not named");
}

// What a row says beyond its counts: the command used and where it disagrees with the log, the
// mismatched fields, else what the log lacks.
std::string remark(const CheckRow& row) {
  if (!row.result)
    return row.error;
  std::string command;
  if (row.result->command_given) {
    command = "command: " + row.result->command_origin;
    if (!row.result->contradictions.empty())
      command += fmt::format(" ({} disagree with the log)", row.result->contradictions.size());
  }
  const std::string rest = remark_of_figures(row);
  return command.empty() ? rest : rest.empty() ? command : command + "; " + rest;
}

// What a refused log lacks, as the option that supplies it.
std::string option_for_refusal(const std::string& error) {
  if (error.find("cannot be checked") != std::string::npos &&
      error.find("launch command") != std::string::npos)
    return "-- CMD or --from FILE (or a command file beside the log)";
  if (error.find("model") != std::string::npos &&
      (error.find("no config.json") != std::string::npos ||
       error.find("--model") != std::string::npos))
    return "--model PATH|ID";
  return "";
}

}  // namespace

std::vector<std::pair<std::string, std::size_t>> what_would_check(
    const std::vector<CheckRow>& rows) {
  std::vector<const Comparison*> unchecked;
  std::map<std::string, std::size_t> refused;
  for (const CheckRow& r : rows) {
    if (r.result) {
      for (const Comparison& c : r.result->comparisons)
        unchecked.push_back(&c);
    } else if (std::string option = option_for_refusal(r.error); !option.empty()) {
      refused[option] += r.stated;
    }
  }
  auto out = inputs_that_would_check(unchecked);
  for (const auto& entry : refused) {
    auto it =
        std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == entry.first; });
    if (it == out.end())
      out.push_back(entry);
    else
      it->second += entry.second;
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

CheckTotals check_totals(const std::vector<CheckRow>& rows) {
  CheckTotals t;
  for (const CheckRow& r : rows) {
    ++t.logs;
    t.stated += r.stated;
    if (!r.result)
      continue;
    ++t.checked_logs;
    t.compared += r.result->matched() + r.result->mismatched();
    t.matched += r.result->matched();
    t.predicted += r.result->predicted();
    t.predicted_outside += r.result->predicted_outside();
  }
  return t;
}

std::string render_check_table(const std::vector<CheckRow>& rows) {
  std::vector<std::vector<std::string>> table = {
      {"log", "engine", "stated", "compared", "matched", "note"}};
  for (const CheckRow& r : rows) {
    const std::size_t compared = r.result ? r.result->matched() + r.result->mismatched() : 0;
    table.push_back({r.file, r.engine.empty() ? "?" : r.engine, std::to_string(r.stated),
                     std::to_string(compared),
                     r.result ? std::to_string(r.result->matched()) : std::string("—"), remark(r)});
  }
  std::string out = render_columns(table);
  const CheckTotals t = check_totals(rows);
  out += fmt::format(
      "\n{} logs, {} checked · compared {} of {} stated figures ({}) · matched {} of {} ({})\n",
      t.logs, t.checked_logs, t.compared, t.stated, percent(t.compared, t.stated), t.matched,
      t.compared, percent(t.matched, t.compared));
  if (t.predicted > 0)
    out += fmt::format(
        "not compared but predicted over estimates' intervals: {} figures, {} inside, {} "
        "outside\n",
        t.predicted, t.predicted - t.predicted_outside, t.predicted_outside);
  out += render_would_check(what_would_check(rows));
  return out;
}

nlohmann::json check_table_to_json(const std::vector<CheckRow>& rows) {
  nlohmann::json logs = nlohmann::json::array();
  for (const CheckRow& r : rows) {
    nlohmann::json row = r.result ? check_to_json(r.file, *r.result) : nlohmann::json::object();
    row["file"] = r.file;
    row["stated"] = r.stated;
    if (!r.result)
      row["error"] = r.error;
    logs.push_back(std::move(row));
  }
  const CheckTotals t = check_totals(rows);
  return {{"logs", logs},
          {"total",
           {{"logs", t.logs},
            {"checked_logs", t.checked_logs},
            {"stated", t.stated},
            {"compared", t.compared},
            {"matched", t.matched},
            {"predicted", t.predicted},
            {"predicted_outside", t.predicted_outside}}},
          {"would_check", [&] {
             nlohmann::json j = nlohmann::json::array();
             for (const auto& [option, n] : what_would_check(rows))
               j.push_back({{"option", option}, {"figures", n}});
             return j;
           }()}};
}

}  // namespace servescope
