#include "report/bench_export.h"

#include <fmt/format.h>

#include <cmath>

#include "report/bench_slo.h"

namespace servescope {
namespace {

std::string point_label(const BenchPoint& p) {
  if (p.closed_loop)
    return fmt::format("{}", p.concurrency);
  return p.concurrency > 0 ? fmt::format("{:g}/s ≤{}", p.rate, p.concurrency)
                           : fmt::format("{:g}/s", p.rate);
}

nlohmann::json server_json(const ServerView& v) {
  nlohmann::json j = {{"available", v.available}};
  if (!v.available) {
    j["why_unavailable"] = v.why_unavailable;
    return j;
  }
  auto opt = [](const std::optional<double>& x) -> nlohmann::json {
    return x ? nlohmann::json(*x) : nlohmann::json(nullptr);
  };
  nlohmann::json samples = nlohmann::json::array();
  for (const ServerSample& s : v.samples) {
    nlohmann::json o = {{"t_s", s.t_s}, {"client_in_flight", s.client_in_flight}};
    if (s.running >= 0)
      o["running"] = s.running;
    if (s.queued >= 0)
      o["queued"] = s.queued;
    if (s.max_running >= 0)
      o["max_running"] = s.max_running;
    samples.push_back(std::move(o));
  }
  j.update(
      {{"engine", v.engine},
       {"sources", v.sources},
       {"scrapes", v.scrapes},
       {"scrape_errors", v.scrape_errors},
       {"max_running", v.max_running},
       {"max_queued", v.max_queued},
       {"effective_running_limit", opt(v.effective_running_limit)},
       {"stated_max_running", opt(v.stated_max_running)},
       {"queueing_began_s", opt(v.queueing_began_s)},
       {"in_flight_when_queueing_began", v.queueing_began_s
                                             ? nlohmann::json(v.in_flight_when_queueing_began)
                                             : nlohmann::json(nullptr)},
       {"queue_time",
        {{"count", v.queue_count},
         {"mean_ms", v.queue_count > 0 ? nlohmann::json(v.queue_mean_ms) : nlohmann::json(nullptr)},
         {"median_ms", opt(v.queue_median_ms)},
         {"source", "the server's queue-time histogram (median at bucket resolution)"}}},
       {"prefix_cache",
        {{"hit_rate", opt(v.prefix_cache_hit_rate)},
         {"queried_tokens", v.prefix_cache_queried_tokens},
         {"source", "the server's prefix-cache counters, last reading less the first"}}},
       {"samples", samples}});
  return j;
}

}  // namespace

nlohmann::json latency_json(const LatencySummary& s) {
  return {{"count", s.count}, {"mean", s.mean}, {"p50", s.p50},    {"p90", s.p90},
          {"p95", s.p95},     {"p99", s.p99},   {"p99_9", s.p999}, {"max", s.max}};
}

nlohmann::json slo_texts(const BenchReport& r) {
  if (r.slo.empty())
    return nullptr;
  nlohmann::json out = nlohmann::json::array();
  for (const SloThreshold& t : r.slo)
    out.push_back(t.text);
  return out;
}

nlohmann::json runs_json(const std::vector<RunFigures>& runs) {
  nlohmann::json out = nlohmann::json::array();
  for (const RunFigures& r : runs)
    out.push_back({{"requests_completed", r.requests_completed},
                   {"duration_s", r.duration_s},
                   {"requests_per_s", r.requests_per_s},
                   {"output_tokens_per_s", r.output_tokens_per_s}});
  return out;
}

nlohmann::json slo_json(const SloResult& s) {
  nlohmann::json percentiles = nlohmann::json::array();
  for (const SloPercentile& p : s.percentiles) {
    percentiles.push_back({{"objective", p.threshold.text},
                           {"value_ms", p.value_ms},
                           {"limit_ms", p.threshold.limit_ms},
                           {"measured", p.measured},
                           {"met", p.met}});
  }
  return {{"requests", s.requests},
          {"met", s.met},
          {"attainment", s.attainment},
          {"goodput_requests_per_s", s.goodput_rps},
          {"goodput_output_tokens_per_s", s.goodput_tokens_per_s},
          {"percentiles", percentiles},
          {"percentiles_met", s.percentiles_met}};
}

nlohmann::json bench_json(const BenchReport& r, bool details) {
  nlohmann::json points = nlohmann::json::array();
  for (const BenchPoint& p : r.points) {
    nlohmann::json errors = nlohmann::json::object();
    for (const auto& [k, v] : p.errors.by_kind)
      errors[k] = v;
    nlohmann::json by_status = nlohmann::json::object();
    for (const auto& [code, n] : p.errors.by_status)
      by_status[std::to_string(code)] = n;
    nlohmann::json timeline = nlohmann::json::array();
    for (const InFlightBucket& b : p.in_flight)
      timeline.push_back({{"t_s", b.t_s}, {"max", b.max}, {"mean", b.mean}});
    nlohmann::json j;
    if (p.closed_loop) {
      j["concurrency"] = p.concurrency;
    } else {
      j["rate"] = p.rate;
      j["arrival"] = p.arrival;
      j["max_concurrency"] =
          p.concurrency > 0 ? nlohmann::json(p.concurrency) : nlohmann::json(nullptr);
    }
    j.update({
        {"warmup_requests", p.warmup},
        {"requests_sent", p.requests_sent},
        {"requests_completed", p.requests_completed},
        {"requests_failed", p.requests_failed},
        {"duration_s", p.duration_s},
        {"requests_per_s", p.requests_per_s},
        {"output_tokens_per_s", p.output_tokens_per_s},
        {"input_tokens_per_s", p.input_tokens_per_s},
        {"sse_events_per_s", p.sse_events_per_s},
        {"errors", errors},
        {"errors_by_status", by_status},
        {"error_examples", p.errors.example},
        {"ttft_ms", latency_json(p.ttft_ms)},
        {"ttft_from_intended_ms", latency_json(p.ttft_from_intended_ms)},
        {"itl_ms", latency_json(p.itl_ms)},
        {"itl_per_event_ms", latency_json(p.itl_per_event_ms)},
        {"itl_basis", p.itl_basis},
        {"tpot_ms", latency_json(p.tpot_ms)},
        {"e2e_ms", latency_json(p.e2e_ms)},
        {"e2e_from_intended_ms", latency_json(p.e2e_from_intended_ms)},
        {"queue_ms", latency_json(p.queue_ms)},
        {"schedule",
         {{"requested_rate", p.closed_loop ? nlohmann::json(nullptr) : nlohmann::json(p.rate)},
          {"scheduled_rate", p.scheduled_rate},
          {"achieved_rate", p.achieved_rate},
          {"lag_ms", latency_json(p.schedule_lag_ms)},
          {"late_sends", p.late_sends},
          {"late_share", p.late_share},
          {"late_threshold_ms", kLateSendMs}}},
        {"input_tokens",
         {{"requested", latency_json(p.input_tokens_requested)},
          {"reported", latency_json(p.input_tokens_reported)},
          {"mismatched", p.input_mismatched}}},
        {"output_tokens", {{"reported", latency_json(p.output_tokens)}, {"short", p.output_short}}},
        {"in_flight",
         {{"max", p.in_flight_max}, {"mean", p.in_flight_mean}, {"timeline", timeline}}},
        {"server", server_json(p.server)},
        {"cross_check",
         p.cross_check.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.cross_check)},
        {"cross_check_agrees",
         p.cross_check.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.cross_check_agrees)},
        {"warnings", p.warnings},
        {"slo", p.slo ? slo_json(*p.slo) : nlohmann::json(nullptr)},
        {"runs", runs_json(p.runs)},
    });
    if (details) {
      nlohmann::json rows = nlohmann::json::array();
      for (const BenchRequestRow& q : p.requests) {
        rows.push_back(
            {{"index", q.index},
             {"intended_s", q.intended_s},
             {"sent_s", q.sent_s},
             {"queue_ms", q.queue_ms},
             {"ttft_ms", q.ttft_ms >= 0 ? nlohmann::json(q.ttft_ms) : nlohmann::json(nullptr)},
             {"e2e_ms", q.e2e_ms >= 0 ? nlohmann::json(q.e2e_ms) : nlohmann::json(nullptr)},
             {"tpot_ms", q.tpot_ms >= 0 ? nlohmann::json(q.tpot_ms) : nlohmann::json(nullptr)},
             {"prompt_tokens_requested", q.prompt_tokens_requested},
             {"prompt_tokens_reported", q.prompt_tokens_reported >= 0
                                            ? nlohmann::json(q.prompt_tokens_reported)
                                            : nlohmann::json(nullptr)},
             {"output_tokens_requested", q.output_tokens_requested},
             {"output_tokens", q.output_tokens},
             {"events", q.events},
             {"http_status", q.http_status},
             {"error", q.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(q.error)}});
      }
      j["requests"] = rows;
    }
    points.push_back(std::move(j));
  }
  nlohmann::json expected = nullptr;
  if (r.expected)
    expected = {{"source", r.expected->source},
                {"max_running_requests", r.expected->max_running_requests}};
  auto or_null = [](const std::string& v) {
    return v.empty() ? nlohmann::json(nullptr) : nlohmann::json(v);
  };
  return {{"version", kBenchJsonVersion},
          {"generator", r.generator},
          {"client",
           {{"host", or_null(r.client.host)},
            {"slurm_job_id", or_null(r.client.slurm_job_id)},
            {"slurm_node", or_null(r.client.slurm_node)}}},
          {"url", r.url},
          {"api", r.api},
          {"model", r.model},
          {"stream", r.stream},
          {"workload",
           {{"dataset", r.dataset},
            {"requests_per_point",
             r.requests > 0 ? nlohmann::json(r.requests) : nlohmann::json(nullptr)},
            {"duration_s_per_point",
             r.duration_s > 0 ? nlohmann::json(r.duration_s) : nlohmann::json(nullptr)},
            {"runs_per_point", r.runs_per_point},
            {"timeout_s", r.timeout_s},
            {"seed", r.seed}}},
          {"expected", expected},
          {"slo", slo_texts(r)},
          {"units", "times in milliseconds unless the name ends in _s; rates per second"},
          {"points", points}};
}

std::string bench_csv(const BenchReport& r) {
  std::string out =
      "concurrency,rate,arrival,requests_sent,requests_completed,requests_failed,duration_s,"
      "requests_per_s,output_tokens_per_s,sse_events_per_s,achieved_rate,late_share,"
      "ttft_p50_ms,ttft_p99_ms,itl_p50_ms,itl_p99_ms,itl_per_event_p50_ms,tpot_p50_ms,"
      "tpot_p99_ms,e2e_p50_ms,e2e_p99_ms,e2e_from_intended_p50_ms,e2e_from_intended_p99_ms,"
      "queue_p50_ms,queue_p99_ms,lag_p99_ms,in_flight_max,server_max_running,"
      "server_max_queued,effective_running_limit,errors_connect,errors_timeout,"
      "errors_http_status,errors_malformed_http,errors_malformed_sse,errors_closed_early,"
      "errors_error_event,slo_attainment,goodput_requests_per_s,goodput_output_tokens_per_s\n";
  for (const BenchPoint& p : r.points) {
    auto err = [&](const char* k) {
      auto it = p.errors.by_kind.find(k);
      return it == p.errors.by_kind.end() ? std::uint64_t{0} : it->second;
    };
    const ServerView& v = p.server;
    out += fmt::format(
        "{},{},{},{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.4f},{:.3f},{:.3f},{:.3f},{:.3f},"
        "{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{},{},{},{},{},{},"
        "{},{},{},{},{},{},{},{}\n",
        p.concurrency > 0 ? std::to_string(p.concurrency) : "",
        p.closed_loop ? "" : fmt::format("{:g}", p.rate), p.arrival, p.requests_sent,
        p.requests_completed, p.requests_failed, p.duration_s, p.requests_per_s,
        p.output_tokens_per_s, p.sse_events_per_s, p.achieved_rate, p.late_share, p.ttft_ms.p50,
        p.ttft_ms.p99, p.itl_ms.p50, p.itl_ms.p99, p.itl_per_event_ms.p50, p.tpot_ms.p50,
        p.tpot_ms.p99, p.e2e_ms.p50, p.e2e_ms.p99, p.e2e_from_intended_ms.p50,
        p.e2e_from_intended_ms.p99, p.queue_ms.p50, p.queue_ms.p99, p.schedule_lag_ms.p99,
        p.in_flight_max, v.available ? fmt::format("{:g}", v.max_running) : "",
        v.available ? fmt::format("{:g}", v.max_queued) : "",
        v.effective_running_limit ? fmt::format("{:g}", *v.effective_running_limit) : "",
        err("connect"), err("timeout"), err("http_status"), err("malformed_http"),
        err("malformed_sse"), err("closed_early"), err("error_event"),
        p.slo ? fmt::format("{:.4f}", p.slo->attainment) : "",
        p.slo ? fmt::format("{:.3f}", p.slo->goodput_rps) : "",
        p.slo ? fmt::format("{:.3f}", p.slo->goodput_tokens_per_s) : "");
  }
  return out;
}

std::string bench_markdown(const BenchReport& r) {
  std::string out = fmt::format("**servescope bench** {} · {} · {}\n\n", r.url, r.api, r.dataset);
  const bool closed = !r.points.empty() && r.points.front().closed_loop;
  out += fmt::format(
      "| {} | req/s | out tok/s | TTFT p50/p99 ms | ITL p50/p99 ms | TPOT p50/p99 ms | E2E p50/p99 "
      "s | E2E from intended p50/p99 s | in flight max | server running max | errors |\n",
      closed ? "concurrency" : "rate");
  out += "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const BenchPoint& p : r.points) {
    out += fmt::format(
        "| {} | {:.2f} | {:.1f} | {:.1f}/{:.1f} | {:.2f}/{:.2f} | {:.2f}/{:.2f} | {:.2f}/{:.2f} | "
        "{:.2f}/{:.2f} | {} | {} | {} |\n",
        point_label(p), p.requests_per_s, p.output_tokens_per_s, p.ttft_ms.p50, p.ttft_ms.p99,
        p.itl_ms.p50, p.itl_ms.p99, p.tpot_ms.p50, p.tpot_ms.p99, p.e2e_ms.p50 / 1e3,
        p.e2e_ms.p99 / 1e3, p.e2e_from_intended_ms.p50 / 1e3, p.e2e_from_intended_ms.p99 / 1e3,
        p.in_flight_max, p.server.available ? fmt::format("{:g}", p.server.max_running) : "–",
        p.errors.total());
  }
  for (const BenchPoint& p : r.points) {
    if (!p.cross_check.empty())
      out += fmt::format("\n- {}: {}", point_label(p), p.cross_check);
    if (p.slo)
      out += fmt::format("\n- {}: {}", point_label(p), slo_sentence(*p.slo, r.slo));
  }
  if (!r.points.empty())
    out += "\n";
  return out;
}

}  // namespace servescope
