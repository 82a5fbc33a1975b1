#include "report/why_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "report/format.h"

namespace servescope {
namespace {

std::string num(double v) {
  if (std::isnan(v))
    return "n/a";
  return v == std::floor(v) ? with_thousands(static_cast<long long>(v)) : fmt::format("{:.4g}", v);
}

std::string hypothesis_line(const Hypothesis& h) {
  std::string line = h.label();
  if (!h.solved_range.empty())
    line += fmt::format("  (any value in {})", h.solved_range);
  return line;
}

}  // namespace

std::string render_why_text(const WhyResult& w) {
  std::string out = fmt::format(
      "observed {} = {}; the plan predicts {}{}\n", w.output, num(w.observed), num(w.baseline),
      w.expected ? fmt::format(" (expected {})", num(*w.expected)) : std::string());
  if (w.expected && *w.expected != w.baseline) {
    out += fmt::format("  note: the plan itself predicts {}, not the expected {}\n",
                       num(w.baseline), num(*w.expected));
  }
  if (!w.hypotheses.empty()) {
    out += fmt::format(
        "\n{} hypothes{} reproduce {} exactly (fewest and most likely changes first):\n",
        w.hypotheses.size(), w.hypotheses.size() == 1 ? "is" : "es", num(w.observed));
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < w.hypotheses.size(); ++i) {
      const Hypothesis& h = w.hypotheses[i];
      rows.push_back(
          {fmt::format("{}.", i + 1), hypothesis_line(h),
           h.path.empty() ? std::string() : fmt::format("via {}", fmt::join(h.path, " → "))});
    }
    out += render_columns(rows);
  } else {
    out += fmt::format("\nNo single change or pair reproduces {} exactly. Closest:\n",
                       num(w.observed));
    std::vector<std::vector<std::string>> rows;
    for (const Hypothesis& h : w.closest)
      rows.push_back({hypothesis_line(h), fmt::format("gives {}", num(h.predicted))});
    out += rows.empty() ? "  none moves the output\n" : render_columns(rows);
  }
  if (!w.experiments.empty()) {
    out += "\nExperiments that tell them apart (predicted outcome per hypothesis):\n";
    for (const Experiment& e : w.experiments) {
      std::vector<std::string> preds;
      for (std::size_t i = 0; i < e.predicted.size(); ++i)
        preds.push_back(fmt::format("{}: {}", i + 1, e.predicted[i]));
      out += fmt::format("  • {}\n      {}\n", e.description, fmt::join(preds, " | "));
    }
  }
  out += fmt::format("\n{} candidate changes, {} plans evaluated\n", w.candidates, w.evaluations);
  return out;
}

nlohmann::json why_to_json(const WhyResult& w) {
  auto hyp = [](const Hypothesis& h) {
    std::vector<std::string> changes;
    for (const ScenarioChange& c : h.changes)
      changes.push_back(c.label);
    return nlohmann::json{{"changes", changes}, {"predicted", h.predicted},
                          {"exact", h.exact},   {"solved_range", h.solved_range},
                          {"path", h.path},     {"score", h.score}};
  };
  nlohmann::json hypotheses = nlohmann::json::array(), closest = nlohmann::json::array(),
                 experiments = nlohmann::json::array();
  for (const Hypothesis& h : w.hypotheses)
    hypotheses.push_back(hyp(h));
  for (const Hypothesis& h : w.closest)
    closest.push_back(hyp(h));
  for (const Experiment& e : w.experiments) {
    std::vector<std::string> changes;
    for (const ScenarioChange& c : e.changes)
      changes.push_back(c.label);
    experiments.push_back({{"description", e.description},
                           {"changes", changes},
                           {"predicted", e.predicted},
                           {"pairs_separated", e.pairs_separated}});
  }
  nlohmann::json out = {{"output", w.output},          {"observed", w.observed},
                        {"predicted", w.baseline},     {"hypotheses", hypotheses},
                        {"closest", closest},          {"experiments", experiments},
                        {"evaluations", w.evaluations}};
  if (w.expected)
    out["expected"] = *w.expected;
  return out;
}

}  // namespace servescope
