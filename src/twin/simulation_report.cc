#include "twin/simulation_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "report/format.h"

namespace servescope {
namespace {

constexpr char kModelNote[] =
    "model: a roofline of the catalog's GPU figures and the plan's limits, not a measurement";

std::string ms3(const Percentiles& p) {
  return fmt::format("{:.1f}/{:.1f}/{:.1f}", p.p50, p.p90, p.p99);
}

std::string s3(const Percentiles& p) {
  return fmt::format("{:.2f}/{:.2f}/{:.2f}", p.p50 / 1e3, p.p90 / 1e3, p.p99 / 1e3);
}

std::string point_label(const LoadPoint& l) {
  return l.closed_loop ? fmt::format("{}", l.concurrency) : fmt::format("{}/s", l.rate);
}

nlohmann::json percentile_json(const Percentiles& p) {
  return {{"p50", p.p50},   {"p90", p.p90}, {"p99", p.p99},
          {"mean", p.mean}, {"max", p.max}, {"count", p.count}};
}

std::string limits_line(const SimulationReport& r) {
  const ServingShape& s = r.shape;
  std::string out = fmt::format("max_running_requests {} · KV pool {} tokens",
                                s.max_running_requests, with_thousands(s.token_pool));
  if (s.state_slots > 0)
    out += fmt::format(" · state slots {} ({} per request)", with_thousands(s.state_slots),
                       s.state_slots_per_request);
  if (s.chunk_tokens > 0)
    out += fmt::format(" · chunked prefill {}", with_thousands(s.chunk_tokens));
  if (s.speculative_draft_tokens > 0)
    out += fmt::format(" · speculative {} draft tokens, accept length {:.2f}",
                       s.speculative_draft_tokens, r.accept_length);
  return out;
}

std::string efficiency_line(const SimulationReport& r) {
  std::string out;
  for (const auto& [name, value] : r.efficiency.items()) {
    if (!out.empty())
      out += ' ';
    if (name == "accept_length" && r.shape.speculative_draft_tokens > 0)
      out += fmt::format("{}={:.2f}", name, r.accept_length);
    else
      out += fmt::format("{}={}", name, value);
  }
  return out;
}

// "weights read 61% · step overhead 22% · ...": the terms of at least 1% of the step time,
// largest first.
std::string step_time_line(const StepCost& c) {
  const double total = c.total();
  if (total <= 0)
    return "";
  auto terms = c.terms();
  std::stable_sort(terms.begin(), terms.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> parts;
  for (const auto& [name, seconds] : terms) {
    if (seconds / total >= 0.01)
      parts.push_back(fmt::format("{} {:.0f}%", name, seconds / total * 100));
  }
  return fmt::format("{}", fmt::join(parts, " · "));
}

}  // namespace

std::string render_simulation_text(const SimulationReport& r) {
  std::string out;
  const Scenario& sc = *r.scenario;
  out += fmt::format("{} {} · {} · {} × {} — simulated\n", sc.engine, sc.version.label,
                     sc.model.source, r.shape.tp, sc.hardware.gpu.key);
  out += fmt::format("  {}\n", kModelNote);
  if (!r.basis.empty())
    out += fmt::format("  factors     {}\n", r.basis);
  out += fmt::format("  limits      {}\n", limits_line(r));
  if (r.shape.dp > 1)
    out += fmt::format(
        "  note        dp {}: one data-parallel worker is simulated, with its own limits; the "
        "server as a whole has {} of them\n",
        r.shape.dp, r.shape.dp);
  out += fmt::format("  efficiency  {}\n", efficiency_line(r));
  const bool closed = !r.points.empty() && r.points.front().load.closed_loop;
  out += fmt::format(
      "  workload    {} requests · input {} · output {} · {} · seed {}\n\n",
      with_thousands(r.requests), r.input_len, r.output_len,
      closed ? "closed loop"
             : fmt::format("open loop, {} arrivals", r.points.front().load.arrival.describe()),
      r.seed);

  std::vector<std::vector<std::string>> rows = {
      {closed ? "concurrency" : "rate", "req/s", "out tok/s", "TTFT ms p50/90/99",
       "TPOT ms p50/90/99", "ITL ms p50/90/99", "E2E s p50/90/99", "queue s p50/99", "running max",
       "queued mean/max", "KV max"}};
  for (const SimulationPoint& p : r.points) {
    const SimulationResult& s = p.result;
    rows.push_back({point_label(p.load), fmt::format("{:.2f}", s.requests_per_s),
                    fmt::format("{:.1f}", s.output_tokens_per_s), ms3(s.ttft_ms), ms3(s.tpot_ms),
                    ms3(s.itl_ms), s3(s.e2e_ms),
                    fmt::format("{:.2f}/{:.2f}", s.queue_ms.p50 / 1e3, s.queue_ms.p99 / 1e3),
                    fmt::format("{:.0f}", s.max_running),
                    fmt::format("{:.1f}/{:.0f}", s.mean_queued, s.max_queued),
                    fmt::format("{:.2f}", s.max_kv_usage)});
  }
  out += render_columns(rows);

  for (const SimulationPoint& p : r.points) {
    const SimulationResult& s = p.result;
    std::vector<std::string> notes;
    if (s.rejected > 0)
      notes.push_back(fmt::format("{} rejected (prompt longer than the context)", s.rejected));
    if (s.retractions > 0)
      notes.push_back(fmt::format("{} retractions (KV pool full during decode)", s.retractions));
    if (!notes.empty())
      out += fmt::format("  {}: {}\n", point_label(p.load), fmt::join(notes, "; "));
  }
  out += "\n  where the step time went\n";
  for (const SimulationPoint& p : r.points)
    out += fmt::format("  {:>11}  {}\n", point_label(p.load), step_time_line(p.result.step_time));
  if (r.efficiency.request_overhead_us > 0)
    out += fmt::format(
        "  and {:.2f} ms per request before the scheduler sees it (request_overhead_us), in "
        "every TTFT\n",
        r.efficiency.request_overhead_us / 1e3);
  if (r.points.size() == 1 && !r.points.front().result.timeline.empty()) {
    // Running, queued and KV usage over time, at up to 10 evenly spaced moments.
    const auto& tl = r.points.front().result.timeline;
    out += "\n  over time       t      running  queued  KV usage\n";
    const std::size_t shown = std::min<std::size_t>(10, tl.size());
    for (std::size_t i = 0; i < shown; ++i) {
      const SimulationSample& t = tl[shown == 1 ? 0 : i * (tl.size() - 1) / (shown - 1)];
      out += fmt::format("                {:>7.1f}s {:>7}  {:>6}  {:>8.2f}\n", t.t, t.running,
                         t.queued, t.kv_usage);
    }
  }
  return out;
}

nlohmann::json simulation_json(const SimulationReport& r) {
  const Scenario& sc = *r.scenario;
  nlohmann::json eff = nlohmann::json::object();
  for (const auto& [name, value] : r.efficiency.items())
    eff[name] = value;
  if (r.shape.speculative_draft_tokens > 0)
    eff["accept_length"] = r.accept_length;
  nlohmann::json points = nlohmann::json::array();
  for (const SimulationPoint& p : r.points) {
    const SimulationResult& s = p.result;
    nlohmann::json timeline = nlohmann::json::array();
    for (const SimulationSample& t : s.timeline)
      timeline.push_back(
          {{"t_s", t.t}, {"running", t.running}, {"queued", t.queued}, {"kv_usage", t.kv_usage}});
    nlohmann::json step_time = nlohmann::json::object();
    for (const auto& [name, seconds] : s.step_time.terms())
      step_time[name] = seconds;
    nlohmann::json j = {
        {"requests_completed", s.completed},
        {"requests_rejected", s.rejected},
        {"duration_s", s.duration_s},
        {"requests_per_s", s.requests_per_s},
        {"output_tokens_per_s", s.output_tokens_per_s},
        {"input_tokens_per_s", s.input_tokens_per_s},
        {"ttft_ms", percentile_json(s.ttft_ms)},
        {"tpot_ms", percentile_json(s.tpot_ms)},
        {"itl_ms", percentile_json(s.itl_ms)},
        {"e2e_ms", percentile_json(s.e2e_ms)},
        {"queue_ms", percentile_json(s.queue_ms)},
        {"running", {{"mean", s.mean_running}, {"max", s.max_running}}},
        {"queued", {{"mean", s.mean_queued}, {"max", s.max_queued}}},
        {"kv_usage", {{"mean", s.mean_kv_usage}, {"max", s.max_kv_usage}}},
        {"in_system_mean", s.mean_in_system},
        {"retractions", s.retractions},
        {"steps", {{"prefill", s.prefill_steps}, {"decode", s.decode_steps}}},
        {"step_time_s", step_time},
        {"timeline", timeline},
    };
    if (p.load.closed_loop) {
      j["concurrency"] = p.load.concurrency;
    } else {
      j["rate"] = p.load.rate;
      j["arrival"] = p.load.arrival.describe();
    }
    points.push_back(std::move(j));
  }
  const ServingShape& s = r.shape;
  return {
      {"model", "roofline"},
      {"note", kModelNote},
      {"factors_basis", r.basis},
      {"engine", {{"name", sc.engine}, {"version", sc.version.label}}},
      {"gpu", {{"name", sc.hardware.gpu.key}, {"count", s.tp}}},
      {"model_id", sc.model.source},
      {"limits",
       {{"max_running_requests", s.max_running_requests},
        {"max_total_num_tokens", s.token_pool},
        {"state_slots", s.state_slots},
        {"state_slots_per_request", s.state_slots_per_request},
        {"chunked_prefill_size", s.chunk_tokens},
        {"max_prefill_tokens", s.max_prefill_tokens},
        {"context_len", s.context_len},
        {"speculative_draft_tokens", s.speculative_draft_tokens},
        {"data_parallel_workers_modelled", 1},
        {"data_parallel_workers", s.dp}}},
      {"efficiency", eff},
      {"workload",
       {{"requests", r.requests},
        {"input_len", r.input_len},
        {"output_len", r.output_len},
        {"seed", r.seed}}},
      {"points", points},
  };
}

}  // namespace servescope
