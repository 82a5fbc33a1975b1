#include "load/runner.h"

#include <algorithm>
#include <cmath>

namespace servescope {
namespace {

constexpr double kBucketS = 0.1;           // in-flight timeline resolution
constexpr double kConnectBackoffS = 0.01;  // a closed-loop slot pauses after a refused connect

}  // namespace

struct LoadRunner::Active final : ExchangeHandler {
  explicit Active(LoadRunner& r) : runner(r) {}
  LoadRunner& runner;
  RequestRecord rec;
  ResponseReader reader;
  Transport::Handle handle = 0;
  double deadline = 0;
  std::size_t prompt = 0;    // in runner.pool_
  std::size_t position = 0;  // in runner.active_
  bool live = false;

  Next on_bytes(std::string_view bytes) override {
    const auto p = reader.on_bytes(runner.loop_.now(), bytes);
    if (p == ResponseReader::Progress::kMore)
      return Next::kMore;
    return p == ResponseReader::Progress::kComplete && reader.keep_alive() ? Next::kDone
                                                                           : Next::kDoneClose;
  }
  void on_finished() override { runner.finish(this); }
  void on_failed(TransportFailure failure) override {
    const double now = runner.loop_.now();
    if (failure == TransportFailure::kConnect) {
      rec.error = ErrorKind::kConnect;
      rec.done = now;
    } else {
      reader.on_closed(now);
    }
    runner.finish(this);
  }
};

LoadRunner::LoadRunner(EventLoop& loop, Transport& transport, const ApiSpec& api, bool stream,
                       const std::vector<PreparedRequest>& pool)
    : loop_(loop), transport_(transport), api_(api), stream_(stream), pool_(pool) {}

LoadRunner::~LoadRunner() = default;

bool LoadRunner::may_send() const {
  if (ending_)
    return false;
  if (plan_.requests > 0)
    return issued_ < static_cast<std::uint64_t>(plan_.requests + plan_.warmup);
  return loop_.now() < t0_ + plan_.duration_s;
}

void LoadRunner::in_flight_changed(int delta) {
  // Fold the count held since the last change into the 100 ms buckets it spans.
  const double now = loop_.now();
  double from = in_flight_since_;
  while (from < now) {
    auto b = static_cast<std::size_t>(std::max(0.0, (from - t0_) / kBucketS));
    double bucket_end = t0_ + static_cast<double>(b + 1) * kBucketS;
    // At a boundary the division can round down into the bucket that just ended (0.3 / 0.1
    // is 2.999…): step on, or this loop would never advance.
    if (bucket_end <= from) {
      ++b;
      bucket_end = t0_ + static_cast<double>(b + 1) * kBucketS;
    }
    if (data_.in_flight.size() <= b) {
      const std::size_t old = data_.in_flight.size();
      data_.in_flight.resize(b + 1);
      for (std::size_t k = old; k <= b; ++k)
        data_.in_flight[k].t_s = static_cast<double>(k) * kBucketS;
    }
    const double to = std::min(now, bucket_end);
    InFlightBucket& bucket = data_.in_flight[b];
    bucket.mean += in_flight_ * (to - from) / kBucketS;  // area now, a mean once the bucket ends
    bucket.max = std::max(bucket.max, in_flight_);
    from = to;
  }
  in_flight_since_ = now;
  in_flight_ += delta;
  data_.in_flight_max = std::max(data_.in_flight_max, in_flight_);
  const auto b = static_cast<std::size_t>(std::max(0.0, (now - t0_) / kBucketS));
  if (data_.in_flight.size() <= b) {
    const std::size_t old = data_.in_flight.size();
    data_.in_flight.resize(b + 1);
    for (std::size_t k = old; k <= b; ++k)
      data_.in_flight[k].t_s = static_cast<double>(k) * kBucketS;
  }
  data_.in_flight[b].max = std::max(data_.in_flight[b].max, in_flight_);
}

std::size_t LoadRunner::next_prompt() {
  if (!next_turns_.empty()) {
    const std::size_t next = next_turns_.front();
    next_turns_.pop_front();
    return next;
  }
  // A new conversation: skip the later turns of conversations (bounded: a pool's first item
  // always starts one).
  for (std::size_t k = 0; k < pool_.size(); ++k) {
    const std::size_t at = next_start_++ % pool_.size();
    if (!pool_[at].continues)
      return at;
  }
  return 0;
}

void LoadRunner::issue(double intended, double ready) {
  Active* a;
  if (free_.empty()) {
    all_.push_back(std::make_unique<Active>(*this));
    a = all_.back().get();
  } else {
    a = free_.back();
    free_.pop_back();
  }
  const std::uint64_t index = issued_++;
  a->prompt = next_prompt();
  const PreparedRequest& req = pool_[a->prompt];
  const double now = loop_.now();
  a->rec = RequestRecord{};
  a->rec.index = static_cast<std::uint32_t>(index);
  a->rec.warmup = index < static_cast<std::uint64_t>(plan_.warmup);
  a->rec.intended = intended - t0_;
  a->rec.ready = ready - t0_;
  a->rec.sent = now - t0_;
  a->rec.prompt_tokens_requested = req.input_tokens;
  a->rec.output_tokens_requested = req.output_tokens;
  a->reader.start(api_, stream_, a->rec);
  a->deadline = now + plan_.timeout_s;
  a->live = true;
  a->position = active_.size();
  active_.push_back(a);
  in_flight_changed(+1);
  a->handle = transport_.send(req.bytes, *a);
}

void LoadRunner::collect(const Active& a) {
  const RequestRecord& r = a.rec;
  if (r.warmup || !r.ok() || r.first_token < 0)
    return;
  const auto& gaps = a.reader.gaps();
  if (r.per_event_tokens) {
    ++data_.itl_usage_requests;
    for (const TokenGap& g : gaps) {
      const float ms = g.gap_s * 1000.0f;
      if (g.gap_s > 0 || g.tokens == 0)
        data_.tally.itl_event.add(ms);
      const std::int32_t k = std::max(1, g.tokens);
      for (std::int32_t i = 0; i < k; ++i)
        data_.tally.itl_token.add(ms / static_cast<float>(k));
    }
    return;
  }
  for (const TokenGap& g : gaps)
    data_.tally.itl_event.add(g.gap_s * 1000.0f);
  if (r.output_tokens == r.content_events || !r.tokens_reported) {
    ++data_.itl_one_per_event;
    for (const TokenGap& g : gaps)
      data_.tally.itl_token.add(g.gap_s * 1000.0f);
    return;
  }
  // The events carried several tokens each but did not say how many: spread the reported
  // total evenly over them.
  ++data_.itl_estimated_requests;
  if (gaps.empty() || r.output_tokens < 2)
    return;
  const double per_event =
      static_cast<double>(r.output_tokens - 1) / static_cast<double>(gaps.size());
  const auto copies = std::max<std::int64_t>(1, std::llround(per_event));
  for (const TokenGap& g : gaps) {
    const float ms = static_cast<float>(g.gap_s * 1000.0 / per_event);
    for (std::int64_t i = 0; i < copies; ++i)
      data_.tally.itl_token.add(ms);
  }
}

void LoadRunner::finish(Active* a) {
  if (!a->live)
    return;
  a->live = false;
  // Out of the active list (swap with the last).
  Active* last = active_.back();
  active_[a->position] = last;
  last->position = a->position;
  active_.pop_back();
  const double now = loop_.now();
  if (a->rec.done < 0)
    a->rec.done = now - t0_;
  else
    a->rec.done = std::min(a->rec.done, now) - t0_;
  if (a->rec.first_token >= 0)
    a->rec.first_token -= t0_;
  if (a->rec.last_token >= 0)
    a->rec.last_token -= t0_;
  collect(*a);
  const ErrorKind error = a->rec.error;
  if (error != ErrorKind::kNone) {
    std::string& first = data_.first_error[static_cast<std::size_t>(error)];
    if (first.empty())
      first = a->reader.detail().empty() ? std::string(error_words(error)) : a->reader.detail();
  }
  if (!a->rec.warmup) {
    ++measured_done_;
    if (error != ErrorKind::kNone)
      ++measured_failed_;
  }
  const std::size_t after = a->prompt + 1;
  if (a->rec.ok() && after < pool_.size() && pool_[after].continues)
    next_turns_.push_back(after);
  data_.tally.add(a->rec);
  if (plan_.keep_records)
    data_.records.push_back(a->rec);
  free_.push_back(a);
  in_flight_changed(-1);
  if (ended_)
    return;
  if (plan_.closed_loop) {
    if (may_send()) {
      if (error == ErrorKind::kConnect) {
        const double at = now + kConnectBackoffS;
        backoff_timers_.push_back(loop_.at(at, [this, at] {
          if (ended_)
            return;
          if (may_send())
            issue(at, at);
          else
            maybe_end();
        }));
        return;
      }
      issue(now, now);
    }
  } else {
    if (plan_.concurrency > 0 && in_flight_ + 1 == plan_.concurrency)
      last_free_ = now;
    drain_pending();
  }
  maybe_end();
}

void LoadRunner::on_arrival() {
  arrival_timer_ = 0;
  const double now = loop_.now();
  const bool by_count = plan_.requests > 0;
  const auto total = static_cast<std::uint64_t>(plan_.requests + plan_.warmup);
  while (next_arrival_ <= now && !ending_) {
    if (by_count ? arrivals_ >= total : next_arrival_ >= t0_ + plan_.duration_s)
      break;
    pending_.push_back(next_arrival_);
    ++arrivals_;
    if (plan_.arrivals_s.empty())
      next_arrival_ += plan_.arrival.next_gap(*random_, plan_.rate);
    else if (arrivals_ < plan_.arrivals_s.size())
      next_arrival_ = t0_ + plan_.arrivals_s[arrivals_];
  }
  const bool more = by_count ? arrivals_ < total : next_arrival_ < t0_ + plan_.duration_s;
  if (more && !ending_)
    arrival_timer_ = loop_.at(next_arrival_, [this] { on_arrival(); });
  drain_pending();
  maybe_end();
}

void LoadRunner::drain_pending() {
  while (pending_head_ < pending_.size() &&
         (plan_.concurrency <= 0 || in_flight_ < plan_.concurrency)) {
    const double intended = pending_[pending_head_++];
    issue(intended, std::max(intended, last_free_));
  }
  if (pending_head_ > 4096 && pending_head_ * 2 > pending_.size()) {
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(pending_head_));
    pending_head_ = 0;
  }
}

void LoadRunner::sweep() {
  const double now = loop_.now();
  std::vector<Active*> expired;
  for (Active* a : active_) {
    if (a->deadline <= now)
      expired.push_back(a);
  }
  for (Active* a : expired) {
    if (!a->live)
      continue;
    transport_.abort(a->handle);
    if (a->rec.error == ErrorKind::kNone) {
      a->rec.error = ErrorKind::kTimeout;
    }
    a->rec.done = now;
    finish(a);
  }
  if (!ended_) {
    const double interval = std::clamp(plan_.timeout_s / 20.0, 0.005, 0.05);
    sweep_timer_ = loop_.at(now + interval, [this] { sweep(); });
  }
}

void LoadRunner::tick_progress() {
  if (ended_ || progress_ == nullptr)
    return;
  ProgressInfo info;
  info.elapsed_s = loop_.now() - t0_;
  info.done = measured_done_;
  info.failed = measured_failed_;
  info.total = plan_.requests > 0 ? static_cast<std::uint64_t>(plan_.requests) : 0;
  info.duration_s = plan_.duration_s;
  info.in_flight = in_flight_;
  progress_->progress(info);
  progress_timer_ = loop_.at(loop_.now() + 0.25, [this] { tick_progress(); });
}

void LoadRunner::maybe_end() {
  if (ended_ || ending_)
    return;
  if (in_flight_ > 0 || pending_head_ < pending_.size())
    return;
  if (plan_.closed_loop ? may_send() : arrival_timer_ != 0)
    return;
  end_point();
}

void LoadRunner::end_point() {
  ending_ = true;
  for (EventLoop::TimerId id : {arrival_timer_, progress_timer_, deadline_timer_})
    if (id != 0)
      loop_.cancel(id);
  arrival_timer_ = progress_timer_ = deadline_timer_ = 0;
  auto done = [this] {
    if (ended_)
      return;
    // Requests still out (a hard deadline) are cut and counted as timeouts.
    std::vector<Active*> left(active_.begin(), active_.end());
    for (Active* a : left) {
      transport_.abort(a->handle);
      if (a->rec.error == ErrorKind::kNone)
        a->rec.error = ErrorKind::kTimeout;
      a->rec.done = loop_.now();
      finish(a);
    }
    // Pending intended sends that never went are dropped from the schedule (deadline only).
    ended_ = true;
    if (sweep_timer_ != 0)
      loop_.cancel(sweep_timer_);
    for (EventLoop::TimerId id : backoff_timers_)
      loop_.cancel(id);
    backoff_timers_.clear();
    sweep_timer_ = 0;
    in_flight_changed(0);
    data_.end = loop_.now();
    transport_.close_idle();
    loop_.stop();
  };
  if (observer_ != nullptr)
    observer_->finish(done);
  else
    done();
}

PointData LoadRunner::run(const PointPlan& plan, PointObserver* observer, ProgressSink* progress) {
  plan_ = plan;
  data_ = PointData{};
  data_.tally = PointTally(plan.slo);
  observer_ = observer;
  progress_ = progress;
  active_.clear();
  pending_.clear();
  pending_head_ = 0;
  random_ = std::make_unique<Random>(plan.seed);
  next_turns_.clear();
  issued_ = arrivals_ = measured_done_ = measured_failed_ = 0;
  in_flight_ = 0;
  ending_ = ended_ = false;
  last_free_ = -1e300;
  if (plan.requests > 0 && plan.keep_records)
    data_.records.reserve(static_cast<std::size_t>(plan.requests + plan.warmup));

  auto begin = [this] {
    t0_ = loop_.now();
    data_.start = t0_;
    in_flight_since_ = t0_;
    if (observer_ != nullptr)
      observer_->start(t0_, [this] { return in_flight_; });
    sweep();
    if (progress_ != nullptr)
      tick_progress();
    if (plan_.requests <= 0) {
      // A duration bound: no new sends after it, and no wait past the timeout after that.
      deadline_timer_ = loop_.at(t0_ + plan_.duration_s + plan_.timeout_s + 1.0, [this] {
        deadline_timer_ = 0;
        data_.stopped_at_deadline = in_flight_ > 0;
        end_point();
      });
    }
    if (plan_.closed_loop) {
      const std::int64_t first = plan_.concurrency;
      for (std::int64_t i = 0; i < first && may_send(); ++i)
        issue(t0_, t0_);
    } else {
      next_arrival_ = t0_ + (plan_.arrivals_s.empty() ? 0.0 : plan_.arrivals_s.front());
      on_arrival();
    }
    maybe_end();
  };
  loop_.at(loop_.now(), [this, begin] {
    if (observer_ != nullptr)
      observer_->baseline(begin);
    else
      begin();
  });
  loop_.run();
  for (InFlightBucket& b : data_.in_flight)
    b.mean = std::min(b.mean, static_cast<double>(b.max));
  return std::move(data_);
}

}  // namespace servescope
