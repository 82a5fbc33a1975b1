#include "load/server_watcher.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "engines/engine.h"
#include "load/api.h"
#include "load/http_response_parser.h"

namespace servescope {

const ClientProfile* detect_client_profile(std::string_view metrics_text) {
  for (const auto& engine : engines()) {
    const ClientProfile* p = engine->client_profile();
    if (p != nullptr && !p->metrics.running.empty() &&
        prometheus_sum(metrics_text, p->metrics.running).has_value())
      return p;
  }
  return nullptr;
}

const ClientProfile* client_profile_named(std::string_view name) {
  for (const auto& engine : engines()) {
    if (engine->name() == name)
      return engine->client_profile();
  }
  return nullptr;
}

void read_metrics_sample(const ClientProfile& p, std::string_view text, ServerSample& s) {
  if (auto v = prometheus_sum(text, p.metrics.running))
    s.running = *v;
  if (auto v = prometheus_sum(text, p.metrics.queued))
    s.queued = *v;
  if (!p.metrics.prefix_cache_queries.empty()) {
    if (auto v = prometheus_sum(text, p.metrics.prefix_cache_queries))
      s.prefix_queries = *v;
    if (auto v = prometheus_sum(text, p.metrics.prefix_cache_hits))
      s.prefix_hits = *v;
  }
}

bool read_loads_sample(const ClientProfile& p, std::string_view body, ServerSample& s) {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains(p.loads.list_key) ||
      !j[p.loads.list_key].is_array())
    return false;
  double running = 0, queued = 0, limit = 0;
  bool has_limit = false;
  for (const auto& w : j[p.loads.list_key]) {
    if (!w.is_object())
      continue;
    if (w.contains(p.loads.running_key) && w[p.loads.running_key].is_number())
      running += w[p.loads.running_key].get<double>();
    if (w.contains(p.loads.queued_key) && w[p.loads.queued_key].is_number())
      queued += w[p.loads.queued_key].get<double>();
    if (!p.loads.max_running_key.empty() && w.contains(p.loads.max_running_key) &&
        w[p.loads.max_running_key].is_number()) {
      limit += w[p.loads.max_running_key].get<double>();
      has_limit = true;
    }
  }
  s.running = running;
  s.queued = queued;
  if (has_limit)
    s.max_running = limit;
  return true;
}

void analyse_server_view(ServerView& v, const PromHistogram& first, const PromHistogram& last) {
  const ServerSample* before = nullptr;
  const ServerSample* after = nullptr;
  for (const ServerSample& s : v.samples) {
    if (s.prefix_queries >= 0 && s.prefix_hits >= 0) {
      if (before == nullptr)
        before = &s;
      after = &s;
    }
  }
  if (before != nullptr && after->prefix_queries > before->prefix_queries) {
    v.prefix_cache_queried_tokens = after->prefix_queries - before->prefix_queries;
    v.prefix_cache_hit_rate =
        (after->prefix_hits - before->prefix_hits) / v.prefix_cache_queried_tokens;
  }
  for (const ServerSample& s : v.samples) {
    if (s.running >= 0)
      v.max_running = std::max(v.max_running, s.running);
    if (s.queued >= 0)
      v.max_queued = std::max(v.max_queued, s.queued);
    if (s.queued > 0 && s.running >= 0)
      v.effective_running_limit = std::max(v.effective_running_limit.value_or(0), s.running);
    if (s.queued > 0 && !v.queueing_began_s) {
      v.queueing_began_s = s.t_s;
      v.in_flight_when_queueing_began = s.client_in_flight;
    }
    if (s.max_running >= 0)
      v.stated_max_running = s.max_running;
  }
  if (first.found && last.found && last.count > first.count) {
    v.queue_count = static_cast<std::uint64_t>(last.count - first.count);
    v.queue_mean_ms = (last.sum - first.sum) / (last.count - first.count) * 1000.0;
    if (auto m = histogram_delta_median(first, last))
      v.queue_median_ms = *m * 1000.0;
  }
}

struct ServerWatcher::Probe final : ExchangeHandler {
  Probe(ServerWatcher& w, bool is_metrics) : watcher(w), metrics(is_metrics) {}
  ServerWatcher& watcher;
  bool metrics;
  bool busy = false;
  double sent_at = 0;
  int in_flight_at_send = 0;
  Transport::Handle handle = 0;
  HttpResponseParser parser;
  std::string body;
  bool failed = false;

  void start(const std::string& request) {
    busy = true;
    failed = false;
    parser.reset();
    body.clear();
    sent_at = watcher.loop_.now();
    in_flight_at_send = watcher.in_flight_ ? watcher.in_flight_() : 0;
    handle = watcher.transport_.send(request, *this);
  }
  Next on_bytes(std::string_view bytes) override {
    const auto state = parser.feed(bytes, [&](std::string_view part) {
      if (body.size() + part.size() > (std::size_t{16} << 20)) {
        failed = true;
        return false;
      }
      body.append(part);
      return true;
    });
    if (failed || state == HttpResponseParser::State::kError) {
      failed = true;
      return Next::kDoneClose;
    }
    if (state == HttpResponseParser::State::kDone)
      return parser.keep_alive() ? Next::kDone : Next::kDoneClose;
    return Next::kMore;
  }
  void on_finished() override {
    busy = false;
    watcher.received(*this, failed ? 0 : parser.status(), body);
  }
  void on_failed(TransportFailure) override {
    busy = false;
    if (parser.state() == HttpResponseParser::State::kBody &&
        parser.close() == HttpResponseParser::State::kDone) {
      watcher.received(*this, parser.status(), body);
      return;
    }
    watcher.received(*this, 0, "");
  }
};

ServerWatcher::ServerWatcher(EventLoop& loop, Transport& transport, const ServerUrl& url,
                             const ClientProfile& profile, double interval_s)
    : loop_(loop), transport_(transport), profile_(profile), interval_s_(interval_s) {
  metrics_request_ = http_get(url, profile.metrics.path);
  if (!profile.loads.path.empty())
    loads_request_ = http_get(url, profile.loads.path);
  metrics_ = std::make_unique<Probe>(*this, true);
  if (!loads_request_.empty())
    loads_ = std::make_unique<Probe>(*this, false);
}

ServerWatcher::~ServerWatcher() {
  if (metrics_ && metrics_->busy)
    transport_.abort(metrics_->handle);
  if (loads_ && loads_->busy)
    transport_.abort(loads_->handle);
}

void ServerWatcher::baseline(std::function<void()> ready) {
  t0_ = loop_.now();  // for now: start() moves the baseline sample onto the point's clock
  view_ = ServerView{};
  view_.available = true;
  view_.engine = profile_.engine;
  view_.sources = profile_.metrics.path + (loads_ ? ", " + profile_.loads.path : "");
  have_first_hist_ = false;
  first_hist_ = last_hist_ = PromHistogram{};
  finishing_ = false;
  then_ = nullptr;
  ready_ = std::move(ready);
  metrics_->start(metrics_request_);
  // A server that does not answer its metrics within a second is not waited for.
  baseline_timer_ = loop_.at(loop_.now() + 1.0, [this] {
    baseline_timer_ = 0;
    if (metrics_->busy)
      transport_.abort(metrics_->handle), metrics_->busy = false;
    baseline_done();
  });
}

void ServerWatcher::call_once(EventLoop::TimerId& timer, std::function<void()>& callback) {
  if (timer != 0)
    loop_.cancel(timer);
  timer = 0;
  auto call = std::move(callback);  // cleared first: the call may start the next step
  callback = nullptr;
  call();
}

void ServerWatcher::baseline_done() {
  if (ready_)
    call_once(baseline_timer_, ready_);
}

void ServerWatcher::start(double t0, std::function<int()> in_flight) {
  for (ServerSample& s : view_.samples)  // the baseline, read before t0
    s.t_s -= t0 - t0_;
  t0_ = t0;
  in_flight_ = std::move(in_flight);
  tick();
}

void ServerWatcher::tick() {
  tick_timer_ = 0;
  if (finishing_)
    return;
  if (!metrics_->busy)
    metrics_->start(metrics_request_);
  if (loads_ && !loads_->busy)
    loads_->start(loads_request_);
  tick_timer_ = loop_.at(loop_.now() + interval_s_, [this] { tick(); });
}

void ServerWatcher::received(Probe& probe, int status, std::string_view body) {
  ++view_.scrapes;
  ServerSample s;
  s.t_s = probe.sent_at - t0_;
  s.client_in_flight = probe.in_flight_at_send;
  bool ok = status == 200;
  if (ok && probe.metrics) {
    read_metrics_sample(profile_, body, s);
    ok = s.running >= 0 || s.queued >= 0;
    if (!profile_.metrics.queue_time_seconds.empty()) {
      PromHistogram h = prometheus_histogram(body, profile_.metrics.queue_time_seconds);
      if (h.found) {
        if (!have_first_hist_) {
          first_hist_ = h;
          have_first_hist_ = true;
        }
        last_hist_ = std::move(h);
      }
    }
  } else if (ok) {
    ok = read_loads_sample(profile_, body, s);
  }
  if (ok)
    view_.samples.push_back(s);
  else
    ++view_.scrape_errors;
  if (ready_ && probe.metrics)
    baseline_done();
  // A reading sent before the last request ended may miss its counters (a prefix-cache hit
  // rate short of the last requests): the last reading is one sent after finish().
  if (finishing_ && probe.metrics && probe.sent_at < finish_at_ && !metrics_->busy)
    metrics_->start(metrics_request_);
  maybe_done();
}

void ServerWatcher::finish(std::function<void()> then) {
  finishing_ = true;
  finish_at_ = loop_.now();
  then_ = std::move(then);
  if (tick_timer_ != 0)
    loop_.cancel(tick_timer_);
  tick_timer_ = 0;
  // One last reading of the histogram after the last request, bounded to 2 s.
  if (!metrics_->busy)
    metrics_->start(metrics_request_);
  finish_timer_ = loop_.at(loop_.now() + 2.0, [this] {
    finish_timer_ = 0;
    if (metrics_->busy)
      transport_.abort(metrics_->handle), metrics_->busy = false;
    if (loads_ && loads_->busy)
      transport_.abort(loads_->handle), loads_->busy = false;
    maybe_done();
  });
}

void ServerWatcher::maybe_done() {
  if (!finishing_ || !then_)
    return;
  if (metrics_->busy || (loads_ && loads_->busy))
    return;
  call_once(finish_timer_, then_);
}

ServerView ServerWatcher::take_view() {
  analyse_server_view(view_, first_hist_, last_hist_);
  return std::move(view_);
}

}  // namespace servescope
