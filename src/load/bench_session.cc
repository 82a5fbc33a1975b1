#include "load/bench_session.h"

#include <fmt/format.h>

#include <iterator>
#include <nlohmann/json.hpp>

#include "load/asio_client.h"
#include "load/cross_check.h"
#include "load/point_summary.h"
#include "load/repeated_runs.h"
#include "load/server_watcher.h"
#include "load/slo.h"

namespace servescope {
namespace {

class ProgressAdapter final : public ProgressSink {
 public:
  ProgressAdapter(const BenchProgressFn& fn, int point, int points)
      : fn_(fn), point_(point), points_(points) {}
  void progress(const ProgressInfo& info) override { fn_(point_, points_, info); }

 private:
  const BenchProgressFn& fn_;
  int point_, points_;
};

std::string first_model_id(const std::string& body) {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("data") || !j["data"].is_array() ||
      j["data"].empty() || !j["data"][0].is_object() || !j["data"][0].contains("id") ||
      !j["data"][0]["id"].is_string())
    return "";
  return j["data"][0]["id"].get<std::string>();
}

// The prompts of a --trace replay: each point its own round of the trace's rows (block ids give
// other tokens in another round), as many rounds as fit in the prompt cap; past them the pool
// comes round again on a row boundary, so rows and sends stay paired.
Result<Dataset> trace_dataset(const BenchOptions& o, bool token_ids, std::size_t cap) {
  Dataset d;
  const auto rows = static_cast<std::size_t>(o.points.empty() ? 0 : o.points.front().requests);
  if (rows == 0)
    return fail("--trace " + o.trace_name + ": no rows to replay");
  const std::size_t rounds = std::min(o.points.size(), std::max<std::size_t>(1, cap / rows));
  for (std::size_t k = 0; k < rounds; ++k) {
    auto items = trace_prompts(*o.trace, rows, k, o.dataset.seed, token_ids);
    std::move(items.begin(), items.end(), std::back_inserter(d.items));
  }
  d.description = fmt::format("trace {} ({}, {} requests over {:.1f} s){}", o.trace_name,
                              o.trace->format, rows, o.trace->rows[rows - 1].at_s,
                              token_ids ? "" : " · text prompts (token count approximate)");
  d.input_estimated = !token_ids;
  if (rounds < o.points.size())
    d.description += fmt::format(" · prompts repeat after {} replays", rounds);
  return d;
}

}  // namespace

Result<BenchReport> run_bench(const BenchOptions& o, const BenchProgressFn& progress) {
  AsioLoop loop;
  auto transport = AsioTransport::open(loop, o.url);
  if (!transport)
    return fail(transport.message());
  auto side = AsioTransport::open(loop, o.url);  // scrapes and probes: their own connections
  if (!side)
    return fail(side.message());

  BenchReport report;
  report.generator = o.generator;
  report.url = o.url.str();
  report.api = o.api.name;
  report.stream = o.stream;
  report.expected = o.expected;
  report.slo = o.slo;
  report.seed = o.dataset.seed;
  if (!o.points.empty()) {
    report.requests = o.points.front().requests;
    report.duration_s = o.points.front().requests > 0 ? 0 : o.points.front().duration_s;
    report.runs_per_point = std::max(o.repeats, 1);
    report.timeout_s = o.points.front().timeout_s;
  }

  std::string model = o.model;
  if (model.empty() && o.api.kind != ApiKind::kNative) {
    auto models =
        fetch(loop, **side, http_get(o.url, "/v1/models"), 5.0, o.url.str() + "/v1/models");
    if (models && models->status == 200)
      model = first_model_id(models->body);
  }
  report.model = model;

  // Whose metric names: the one asked for, or the one the metrics text carries.
  const ClientProfile* profile = nullptr;
  std::string why_no_view;
  if (o.watch_server) {
    if (!o.engine.empty()) {
      profile = client_profile_named(o.engine);
      if (profile == nullptr)
        why_no_view = fmt::format("no metric names are known for engine {}", o.engine);
    } else {
      std::string metrics_path = "/metrics";
      auto text =
          fetch(loop, **side, http_get(o.url, metrics_path), 5.0, o.url.str() + metrics_path);
      if (!text)
        why_no_view = text.message();
      else if (text->status != 200)
        why_no_view = fmt::format("{}{} answered HTTP {}", o.url.str(), metrics_path, text->status);
      else if ((profile = detect_client_profile(text->body)) == nullptr)
        why_no_view = fmt::format("{}{} carries no running-requests gauge of a known engine",
                                  o.url.str(), metrics_path);
    }
  } else {
    why_no_view = "--no-server-view";
  }

  // Every request body before the first send: no tokenising or formatting on the send path.
  DatasetOptions dataset_options = o.dataset;
  // Synthetic prompts go as token ids, counted exactly by the server; chat takes only text.
  dataset_options.token_ids = o.api.kind != ApiKind::kChat;
  // A prompt for every request of every point (points go on through the pool: runner.h), up to
  // kMaxPrompts; past it prompts repeat, and the report says so.
  constexpr std::size_t kMaxPrompts = 20000;
  std::size_t total = 0;
  for (const PointPlan& p : o.points)
    total += p.requests > 0 ? static_cast<std::size_t>(p.requests + p.warmup) : 4096;
  // Conversations are dropped unfinished (at a point's end, after a failed turn), so each
  // request may have to start one: with --multi-turn T the pool holds T prompts per request.
  total *= static_cast<std::size_t>(std::max<std::int64_t>(o.dataset.turns, 1));
  total *= static_cast<std::size_t>(std::max(o.repeats, 1));
  dataset_options.count = std::min<std::size_t>(std::max<std::size_t>(total, 1), kMaxPrompts);
  auto dataset = o.trace ? trace_dataset(o, dataset_options.token_ids, kMaxPrompts)
                         : load_dataset(dataset_options);
  if (!dataset)
    return fail(dataset.message());
  report.dataset = dataset->description;
  if (total > kMaxPrompts && !o.trace)
    report.dataset += fmt::format(
        " · prompts repeat after {} requests (a prefix-caching server "
        "serves repeats from its cache)",
        kMaxPrompts);
  BodyOptions body_options;
  body_options.model = model;
  body_options.stream = o.stream;
  body_options.ignore_eos = o.ignore_eos;
  body_options.continuous_usage = o.continuous_usage;
  std::vector<PreparedRequest> pool;
  pool.reserve(dataset->items.size());
  for (const PromptItem& item : dataset->items) {
    PreparedRequest r;
    std::string body;
    if (item.token_ids.empty()) {
      body = request_body(o.api, item.prompt, item.output_tokens, body_options);
    } else {
      auto with_ids = request_body(o.api, item.token_ids, item.output_tokens, body_options);
      if (!with_ids)
        return fail(with_ids.message());
      body = std::move(*with_ids);
    }
    r.bytes = http_post(o.url, o.api.path, body, o.stream);
    r.input_tokens = item.input_tokens;
    r.output_tokens = item.output_tokens;
    r.continues = item.turn > 0;
    pool.push_back(std::move(r));
  }

  LoadRunner runner(loop, **transport, o.api, o.stream, pool);
  const int n = static_cast<int>(o.points.size());
  for (int i = 0; i < n; ++i) {
    PointPlan plan = o.points[static_cast<std::size_t>(i)];
    plan.keep_records = o.details;
    plan.slo = o.slo;
    std::unique_ptr<ServerWatcher> watcher;
    if (profile != nullptr)
      watcher = std::make_unique<ServerWatcher>(loop, **side, o.url, *profile, o.scrape_interval_s);
    std::unique_ptr<ProgressAdapter> adapter;
    if (progress)
      adapter = std::make_unique<ProgressAdapter>(progress, i + 1, n);
    PointData data;
    std::vector<RunFigures> runs;
    const int repeats = std::max(o.repeats, 1);
    for (int run = 1; run <= repeats; ++run) {
      std::unique_ptr<RepeatObserver> observer;
      if (watcher)
        observer = std::make_unique<RepeatObserver>(*watcher, run, repeats);
      PointData one = runner.run(plan, observer.get(), adapter.get());
      runs.push_back(run_figures(one));
      if (run == 1)
        data = std::move(one);
      else
        pool_run(data, std::move(one));
    }
    BenchPoint point = summarize_point(plan, data, o.details);
    point.runs = std::move(runs);
    if (!o.slo.empty())
      point.slo = judge_slo(o.slo, data.tally, point);
    if (watcher) {
      point.server = watcher->take_view();
      if (point.server.samples.empty()) {
        point.server.available = false;
        point.server.why_unavailable = "every scrape failed";
      }
    } else {
      point.server.available = false;
      point.server.why_unavailable = why_no_view;
    }
    if (o.expected)
      cross_check_point(point, *o.expected);
    report.points.push_back(std::move(point));
  }
  return report;
}

}  // namespace servescope
