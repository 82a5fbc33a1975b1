#include "twin/serving_loop.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/text.h"

namespace servescope {

Status TwinFaults::apply(const std::vector<std::string>& items) {
  constexpr char kKinds[] = "crash-after=N, stall=MS, drop-stream-after=K, error-rate=P";
  for (const std::string& item : items) {
    for (std::string_view part : split(item, ',')) {
      part = trim(part);
      if (part.empty())
        continue;
      const auto eq = part.find('=');
      if (eq == std::string_view::npos)
        return fail(fmt::format("--fault {}: expected one of {}", part, kKinds));
      const std::string_view key = part.substr(0, eq);
      const std::string_view value = part.substr(eq + 1);
      if (key == "crash-after" || key == "drop-stream-after") {
        const auto n = parse_int(value);
        if (!n || *n < 1)
          return fail(fmt::format("--fault {}: {} needs a positive integer", part, key));
        (key == "crash-after" ? crash_after : drop_stream_after) = *n;
      } else if (key == "stall") {
        const auto ms = parse_double(value);
        if (!ms || *ms <= 0 || *ms > 3.6e6)
          return fail(fmt::format("--fault {}: stall needs milliseconds in (0, 3600000]", part));
        stall_ms = *ms;
      } else if (key == "error-rate") {
        const auto p = parse_double(value);
        if (!p || *p < 0 || *p > 1)
          return fail(fmt::format("--fault {}: error-rate needs a probability in [0, 1]", part));
        error_rate = *p;
      } else {
        return fail(
            fmt::format("--fault {}: unknown fault '{}'; the faults are {}", part, key, kKinds));
      }
    }
  }
  return ok_status();
}

ServingLoop::ServingLoop(const Scenario& scenario, const Plan& plan, const TwinProfile& profile,
                         ServingShape shape, const CostModel& cost, Clock& clock, LogSink& log,
                         ServingLoopOptions options)
    : scenario_(scenario),
      plan_(plan),
      profile_(profile),
      scheduler_(std::move(shape), cost.accept_length()),
      cost_(cost),
      clock_(clock),
      log_(log),
      options_(std::move(options)),
      ttft_(profile.histogram_bounds(HistogramKind::kTimeToFirstToken)),
      itl_(profile.histogram_bounds(HistogramKind::kInterTokenLatency)),
      e2e_(profile.histogram_bounds(HistogramKind::kEndToEnd)),
      queue_(profile.histogram_bounds(HistogramKind::kQueueTime)),
      jitter_random_(options_.seed ^ 0x9e3779b97f4a7c15ULL) {
  if (!(options_.speed > 0))
    options_.speed = 1;
  if (scheduler_.shape().prefix_caching)
    prefix_cache_.emplace(scheduler_.shape().page_size, scheduler_.shape().token_pool);
  last_decode_log_ = last_prefill_log_ = clock_.now();
}

std::string ServingLoop::check(const GenerationRequest& request) const {
  return profile_.context_error(request.prompt_tokens, request.max_tokens,
                                scheduler_.shape().context_len);
}

std::int64_t ServingLoop::fitted_max_tokens(const GenerationRequest& request) const {
  return profile_.fitted_max_tokens(request.prompt_tokens, request.max_tokens,
                                    scheduler_.shape().context_len);
}

ServingLoop::Ticket ServingLoop::submit(const GenerationRequest& request,
                                        std::shared_ptr<TokenSink> sink) {
  const Ticket t = next_ticket_++;
  Record r;
  r.sink = std::move(sink);
  r.arrival = clock_.now();
  r.prompt = request.prompt_tokens;
  std::int64_t cached = 0;
  if (prefix_cache_ && !request.prefix_chunks.empty()) {
    cached = prefix_cache_->admit(request.prefix_chunks, request.prompt_tokens);
    prefix_cache_queries_ += static_cast<std::uint64_t>(request.prompt_tokens);
    prefix_cache_hits_ += static_cast<std::uint64_t>(cached);
  }
  const double overhead = cost_.request_overhead_seconds() / options_.speed;
  if (overhead > 0) {
    r.pending = true;
    pending_.push_back(
        {r.arrival + overhead, t, request.prompt_tokens, request.max_tokens, cached});
  } else {
    r.slot = scheduler_.submit(t, request.prompt_tokens, request.max_tokens, cached);
  }
  records_.emplace(t, r);
  return t;
}

std::optional<double> ServingLoop::release_pending(double now) {
  while (!pending_.empty() && pending_.front().at <= now) {
    const Pending p = pending_.front();
    pending_.pop_front();
    auto it = records_.find(p.ticket);
    if (it == records_.end())
      continue;  // cancelled on its way
    it->second.pending = false;
    it->second.slot = scheduler_.submit(p.ticket, p.prompt, p.max_tokens, p.cached);
  }
  if (pending_.empty())
    return std::nullopt;
  return pending_.front().at;
}

void ServingLoop::cancel(Ticket ticket) {
  auto it = records_.find(ticket);
  if (it == records_.end())
    return;
  if (!it->second.pending)  // a pending one is skipped when its time comes
    scheduler_.abort(it->second.slot, ticket);
  records_.erase(it);
}

void ServingLoop::log_line(const std::string& text) {
  log_.write(profile_.format_log_line(clock_.wall(), profile_.scheduler_tag(), text));
}

std::optional<double> ServingLoop::poll() {
  const double now = clock_.now();
  const std::optional<double> next_pending = release_pending(now);
  auto earliest = [&](double step) { return next_pending ? std::min(step, *next_pending) : step; };
  double next_start = now;
  if (in_step_) {
    if (now < step_end_)
      return earliest(step_end_);
    end_step();
    // Back-to-back steps keep the simulated timeline even when the driver runs late.
    next_start = step_end_;
  }
  if (crashed_)
    return std::nullopt;
  start_step(next_start);
  if (!in_step_)
    return next_pending;
  return earliest(step_end_);
}

void ServingLoop::start_step(double at) {
  if (!scheduler_.begin_step(step_))
    return;
  in_step_ = true;
  step_start_ = at;
  double seconds = cost_.step_seconds(step_.work) / options_.speed;
  if (options_.jitter > 0) {
    if (steps_started_ % kJitterSteps == 0) {
      const double s = options_.jitter;
      jitter_factor_ = std::exp(s * jitter_random_.normal(0, 1) - s * s / 2);
    }
    seconds *= jitter_factor_;
  }
  ++steps_started_;
  if (stall_pending_) {
    seconds += options_.faults.stall_ms / 1e3;
    stall_pending_ = false;
  }
  step_end_ = at + seconds;
  for (std::uint64_t tag : step_.admitted) {
    auto it = records_.find(tag);
    if (it != records_.end() && !it->second.admitted) {
      it->second.admitted = true;
      queue_.observe(std::max(0.0, at - it->second.arrival));
    }
  }
  if (step_.work.is_prefill()) {
    // metrics_reporter-style prefill line, printed when the batch is formed.
    PrefillView p;
    p.scheduler = scheduler_.view();
    p.scheduler.graph = false;
    p.new_seqs = step_.new_seqs;
    p.new_tokens = step_.work.prefill_tokens;
    p.cached_tokens = step_.cached_tokens;
    p.pending_tokens = step_.pending_tokens;
    const double gap = clock_.now() - last_prefill_log_;
    p.input_throughput = gap > 0 ? static_cast<double>(step_.work.prefill_tokens) / gap : 0;
    last_prefill_log_ = clock_.now();
    log_line(profile_.prefill_log_line(p));
  }
}

void ServingLoop::end_step() {
  in_step_ = false;
  const bool decode = !step_.work.is_prefill();
  scheduler_.end_step(step_);
  const double t = step_end_;
  for (const TokenEvent& e : step_.events) {
    auto it = records_.find(e.tag);
    if (it == records_.end())
      continue;
    Record& r = it->second;
    const std::int64_t from = r.tokens;
    if (e.tokens > 0) {
      if (r.last_token < 0) {
        ttft_.observe(t - r.arrival);
        if (options_.faults.stall_ms > 0 && !stalled_once_) {
          stalled_once_ = true;
          stall_pending_ = true;
        }
      } else {
        const double gap = t - r.last_token;
        itl_.observe_many(gap / e.tokens, static_cast<std::uint64_t>(e.tokens), gap);
      }
      r.last_token = t;
      r.tokens += e.tokens;
      generation_tokens_total_ += static_cast<std::uint64_t>(e.tokens);
      tokens_since_decode_log_ += e.tokens;
    }
    if (!e.finished) {
      // No copy of the shared pointer per token: sinks do not cancel from inside on_tokens.
      if (TokenSink* sink = r.sink.get())
        sink->on_tokens(from, e.tokens, false);
      continue;
    }
    e2e_.observe(t - r.arrival);
    prompt_tokens_total_ += static_cast<std::uint64_t>(r.prompt);
    ++requests_total_;
    const std::shared_ptr<TokenSink> sink = std::move(r.sink);
    records_.erase(it);
    if (sink != nullptr)
      sink->on_tokens(from, e.tokens, true);
  }
  if (options_.faults.crash_after > 0 &&
      static_cast<std::int64_t>(requests_total_) >= options_.faults.crash_after)
    crashed_ = true;
  if (decode && ++decode_steps_ % scheduler_.shape().decode_log_interval == 0) {
    const double now = clock_.now();
    const double gap = now - last_decode_log_;
    gen_throughput_ = gap > 0 ? static_cast<double>(tokens_since_decode_log_) / gap : 0;
    tokens_since_decode_log_ = 0;
    last_decode_log_ = now;
    SchedulerView v = scheduler_.view();
    v.gen_throughput = gen_throughput_;
    v.prefix_cache_hit_rate =
        prefix_cache_queries_ > 0
            ? static_cast<double>(prefix_cache_hits_) / static_cast<double>(prefix_cache_queries_)
            : 0.0;
    log_line(profile_.decode_log_line(v));
  }
}

ServingStatus ServingLoop::status() const {
  ServingStatus s;
  s.scenario = &scenario_;
  s.plan = &plan_;
  s.shape = &scheduler_.shape();
  s.model_name = options_.model_name;
  s.endpoint = options_.endpoint;
  s.scheduler = scheduler_.view();
  s.scheduler.gen_throughput = gen_throughput_;
  s.prompt_tokens_total = prompt_tokens_total_;
  s.prefix_cache_queries = prefix_cache_queries_;
  s.prefix_cache_hits = prefix_cache_hits_;
  s.generation_tokens_total = generation_tokens_total_;
  s.requests_total = requests_total_;
  s.retractions_total = static_cast<std::uint64_t>(scheduler_.retractions());
  s.ttft = &ttft_;
  s.itl = &itl_;
  s.e2e = &e2e_;
  s.queue_time = &queue_;
  s.startup_seconds = options_.startup_seconds;
  s.now = clock_.wall();
  return s;
}

}  // namespace servescope
