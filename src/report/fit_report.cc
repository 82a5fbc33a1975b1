#include "report/fit_report.h"

#include <fmt/format.h>

#include <cmath>

#include "report/report_document.h"

namespace servescope {
namespace {

std::string approx(const FitFigures& f) {
  return f.estimated ? "~" : "";
}

std::string hardware(const FitConfiguration& c) {
  std::string out = fmt::format("{}× {}", c.gpus, c.gpu);
  if (c.data_parallel > 1)
    out += fmt::format(" as {} replicas", c.data_parallel);
  if (c.nodes > 1)
    out += fmt::format(" ({} nodes)", c.nodes);
  return out;
}

std::string margin_text(double ratio) {
  if (!std::isfinite(ratio))
    return "";
  return fmt::format("{:+.1f}%", (ratio - 1) * 100);
}

std::string changes_text(const FitConfiguration& c) {
  if (c.changes.empty())
    return "(as typed)";
  std::string out;
  for (const std::string& ch : c.changes)
    out += (out.empty() ? "" : ", ") + ch;
  return out;
}

}  // namespace

std::string render_fit_text(const FitResult& r, const FitKnobs& knobs, const std::string& latency) {
  std::string out = fmt::format("fit {} {} · {}\n", r.engine, r.version, r.model);
  out += fmt::format("  target    {}\n", r.target.describe());
  if (!latency.empty())
    out += fmt::format("  latency   {}\n", latency);
  out += fmt::format("  searched  {} hardware points, {} plans\n\n", r.hardware_points, r.plans);
  const bool per_context = r.target.concurrency || r.target.context || r.target.longest_context;
  if (!r.configurations.empty()) {
    out += fmt::format("{} configuration{} meet{} it, best first ({}{} first):\n\n",
                       r.configurations.size(), r.configurations.size() == 1 ? "" : "s",
                       r.configurations.size() == 1 ? "s" : "",
                       r.target.longest_context ? "longest context, then " : "",
                       r.cost_unit == "GPUs" ? "fewest GPUs" : "cheapest");
  } else {
    out += "No configuration in the space meets it.\n\n";
  }
  int rank = 0;
  for (const FitConfiguration& c : r.configurations) {
    ++rank;
    const FitFigures& f = c.figures;
    out += fmt::format("  {:>2}. {}  TP {} · PP {}", rank, hardware(c), c.tensor_parallel,
                       c.pipeline_parallel);
    if (r.cost_unit != "GPUs")
      out += fmt::format("  ${:.2f}/h", c.cost);
    out += std::isfinite(c.ratio) ? fmt::format("  margin {}\n", margin_text(c.ratio)) : "\n";
    out += fmt::format("      {} {}{}", knobs.kv_tokens_output, approx(f),
                       number_text(f.kv_tokens, 0));
    if (f.request_limit > 0)
      out += fmt::format(" · {} {}{}", knobs.request_limit_output, approx(f),
                         number_text(f.request_limit, 0));
    if (per_context)
      out += fmt::format(" · {:.2f} requests of {:.0f} tokens", f.kv_requests, f.at_context);
    out += fmt::format(" · {} {:.3g}\n", knobs.fraction_output, f.fraction);
    if (c.simulated) {
      out += fmt::format(
          "      simulated at {:g} requests/s: p99 TTFT {:.0f} ms · p99 TPOT {:.1f} ms\n",
          c.simulated->rate, c.simulated->ttft_p99_ms, c.simulated->tpot_p99_ms);
    }
    out += fmt::format("      binds: {} · changes: {}\n", c.binding, changes_text(c));
    out += fmt::format("      $ {}\n", c.command);
  }
  if (!r.closest.empty()) {
    const bool all_cheaper =
        !r.configurations.empty() &&
        std::all_of(r.closest.begin(), r.closest.end(), [&](const FitConfiguration& c) {
          return c.cost < r.configurations.front().cost;
        });
    out += r.configurations.empty() ? "Closest:\n"
           : all_cheaper            ? "\nCheaper, but short of the target:\n"
                                    : "\nShort of the target:\n";
    for (const FitConfiguration& c : r.closest) {
      out += fmt::format("  {}  TP {} · PP {}: {}", hardware(c), c.tensor_parallel,
                         c.pipeline_parallel, c.why_not);
      if (c.starts && std::isfinite(c.ratio))
        out += fmt::format(" ({:.0f}% of the target)", c.ratio * 100);
      out += "\n";
    }
  }
  if (std::any_of(r.configurations.begin(), r.configurations.end(),
                  [](const FitConfiguration& c) { return c.nodes > 1; })) {
    out += fmt::format("\nMulti-node: {}.\n", r.multi_node_note);
  }
  const auto simulated = std::find_if(r.configurations.begin(), r.configurations.end(),
                                      [](const FitConfiguration& c) { return c.simulated; });
  if (simulated != r.configurations.end()) {
    out += fmt::format(
        "\nLatency is simulate's roofline model, not a measurement (factors: {}); calibrate "
        "before relying on it.\n",
        simulated->simulated->factors);
  }
  if (std::any_of(r.configurations.begin(), r.configurations.end(),
                  [](const FitConfiguration& c) { return c.figures.estimated; })) {
    out +=
        "\n~ figures rest on estimated inputs (weights, activations): a margin above the "
        "estimate's error is what makes the choice safe; calibrate with --calibrate-from LOG.\n";
  }
  return out;
}

nlohmann::json fit_to_json(const FitResult& r, const FitKnobs& knobs, const std::string& latency) {
  auto one = [&](const FitConfiguration& c) {
    const FitFigures& f = c.figures;
    nlohmann::json j = {{"gpu", c.gpu},
                        {"gpus", c.gpus},
                        {"nodes", c.nodes},
                        {"tensor_parallel", c.tensor_parallel},
                        {"pipeline_parallel", c.pipeline_parallel},
                        {"data_parallel", c.data_parallel},
                        {"command", c.command},
                        {"changes", c.changes},
                        {"meets", c.meets},
                        {"starts", c.starts},
                        {"binding", c.binding},
                        {"cost", c.cost},
                        {"estimated", f.estimated},
                        {knobs.kv_tokens_output, f.kv_tokens},
                        {"kv_tokens", f.kv_tokens},  // the same under one name for every engine
                        {knobs.context_output, f.context},
                        {knobs.fraction_output, f.fraction},
                        {"request_tokens", f.at_context},
                        {"requests_at_context", f.kv_requests},
                        {"concurrency", f.concurrency}};
    if (f.request_limit > 0)
      j[knobs.request_limit_output] = f.request_limit;
    if (std::isfinite(c.ratio))
      j["margin"] = c.ratio - 1;
    if (!c.why_not.empty())
      j["why_not"] = c.why_not;
    if (c.simulated) {
      j["simulated"] = {{"rate", c.simulated->rate},
                        {"ttft_p99_ms", c.simulated->ttft_p99_ms},
                        {"tpot_p99_ms", c.simulated->tpot_p99_ms},
                        {"requests_per_s", c.simulated->requests_per_s},
                        {"model_factors", c.simulated->factors}};
    }
    return j;
  };
  nlohmann::json configurations = nlohmann::json::array(), closest = nlohmann::json::array();
  for (const FitConfiguration& c : r.configurations)
    configurations.push_back(one(c));
  for (const FitConfiguration& c : r.closest)
    closest.push_back(one(c));
  nlohmann::json target = nlohmann::json::object();
  if (r.target.concurrency)
    target["concurrency"] = *r.target.concurrency;
  if (r.target.context)
    target["context"] = *r.target.context;
  if (r.target.longest_context)
    target["context"] = "max";
  if (r.target.kv_tokens)
    target["kv_tokens"] = *r.target.kv_tokens;
  if (r.target.max_running_requests)
    target["max_running_requests"] = *r.target.max_running_requests;
  if (!latency.empty())
    target["latency"] = latency;
  return {{"engine", r.engine},       {"version", r.version},
          {"model", r.model},         {"target", target},
          {"cost_unit", r.cost_unit}, {"hardware_points", r.hardware_points},
          {"plans", r.plans},         {"configurations", configurations},
          {"closest", closest}};
}

}  // namespace servescope
