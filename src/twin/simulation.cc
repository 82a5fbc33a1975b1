#include "twin/simulation.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

namespace servescope {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

struct Record {
  double arrival = 0;
  double admitted = -1;
  double first_token = -1;
  double last_token = 0;
  std::int64_t input = 0;
  std::int64_t output = 0;  // requested
  std::int64_t received = 0;
};

class Run {
 public:
  explicit Run(const SimulationInput& in)
      : in_(in),
        scheduler_(in.shape, in.cost->accept_length()),
        lengths_(in.seed),
        arrivals_(in.seed ^ 0x5bd1e9955bd1e995ULL),
        input_spec_(in.input),
        output_spec_(in.output) {
    records_.reserve(static_cast<std::size_t>(in.requests));
  }

  SimulationResult go() {
    if (in_.load.closed_loop) {
      clients_ = static_cast<std::int64_t>(std::max(1.0, std::floor(in_.load.concurrency)));
      refill();
    } else {
      next_arrival_ = in_.load.arrival.next_gap(arrivals_, in_.load.rate);
    }
    Step step;
    while (done_ < in_.requests) {
      admit_arrivals_until(now_);
      if (scheduler_.begin_step(step)) {
        for (std::uint64_t tag : step.admitted) {
          Record& r = records_[tag];
          if (r.admitted < 0)
            r.admitted = now_;
        }
        (step.work.is_prefill() ? result_.prefill_steps : result_.decode_steps)++;
        sample();  // the state this step holds
        const StepCost cost = in_.cost->step_cost(step.work);
        result_.step_time += cost;
        const double end = now_ + cost.total();
        admit_arrivals_until(end);
        advance(end);
        scheduler_.end_step(step);
        for (const TokenEvent& e : step.events)
          tokens(e);
      } else if (std::min(next_arrival_, next_submit()) < kNever) {
        advance(std::min(next_arrival_, next_submit()));
      } else {
        break;  // nothing left to arrive or run
      }
    }
    return finish();
  }

 private:
  void advance(double t) {
    const double dt = t - now_;
    if (dt > 0) {
      const SchedulerView v = scheduler_.view();
      running_.hold(static_cast<double>(v.running), now_, t);
      queued_.hold(static_cast<double>(v.queued), now_, t);
      kv_.hold(v.token_usage(), now_, t);
      in_system_.hold(static_cast<double>(in_system_count_), now_, t);
    }
    now_ = std::max(now_, t);
  }

  void admit_arrivals_until(double t) {
    for (;;) {
      const bool arrival = next_arrival_ <= t && issued_ < in_.requests;
      const bool submit = next_submit() <= t;
      if (arrival && (!submit || next_arrival_ <= next_submit())) {
        advance(next_arrival_);
        const double at = next_arrival_;
        next_arrival_ = kNever;
        arrive(at);
        if (!in_.load.closed_loop && issued_ < in_.requests)
          next_arrival_ = at + in_.load.arrival.next_gap(arrivals_, in_.load.rate);
      } else if (submit) {
        advance(next_submit());
        submit_to_scheduler(pending_.front().second);
        pending_.pop_front();
      } else {
        return;
      }
    }
  }

  // A request reaches the scheduler request_overhead_us after it arrives (a constant delay,
  // so the pending queue stays in arrival order).
  double next_submit() const { return pending_.empty() ? kNever : pending_.front().first; }
  void submit_to_scheduler(std::uint64_t tag) {
    const Record& r = records_[tag];
    scheduler_.submit(tag, r.input, r.output);
  }

  void arrive(double at) {
    Record r;
    r.arrival = at;
    r.input = input_spec_.sample(lengths_, false);
    r.output = output_spec_.kind() == LengthSpec::Kind::kFile
                   ? output_spec_.sample(lengths_, true)
                   : output_spec_.sample(lengths_, false);
    const auto tag = static_cast<std::uint64_t>(records_.size());
    records_.push_back(r);
    ++issued_;
    if (r.input >= in_.shape.context_len) {
      // The engine rejects a prompt that does not fit the context; it never runs.
      ++result_.rejected;
      ++done_;
      return;
    }
    ++in_system_count_;
    const double delay = in_.cost->request_overhead_seconds();
    if (delay > 0)
      pending_.emplace_back(at + delay, tag);
    else
      submit_to_scheduler(tag);
  }

  void tokens(const TokenEvent& e) {
    Record& r = records_[e.tag];
    if (e.tokens > 0) {
      if (r.first_token < 0) {
        r.first_token = now_;
      } else {
        // Per-token latency, as the engine's histogram counts it: the gap over the tokens.
        itl_.add((now_ - r.last_token) / e.tokens, static_cast<std::uint64_t>(e.tokens));
      }
      r.last_token = now_;
      r.received += e.tokens;
      output_tokens_ += e.tokens;
    }
    if (!e.finished)
      return;
    ++done_;
    ++result_.completed;
    --in_system_count_;
    input_tokens_ += r.input;
    e2e_.push_back((now_ - r.arrival) * 1e3);
    if (r.first_token >= 0)
      ttft_.push_back((r.first_token - r.arrival) * 1e3);
    queue_.push_back((std::max(r.admitted, r.arrival) - r.arrival) * 1e3);
    if (r.received > 1)
      tpot_.push_back((r.last_token - r.first_token) / static_cast<double>(r.received - 1) * 1e3);
    refill();
  }

  // Closed loop: every client sends its next request as soon as the previous one ends.
  void refill() {
    if (!in_.load.closed_loop)
      return;
    while (in_system_count_ < clients_ && issued_ < in_.requests)
      arrive(now_);
  }

  void sample() {
    if (++steps_since_sample_ < stride_)
      return;
    steps_since_sample_ = 0;
    const SchedulerView v = scheduler_.view();
    timeline_.push_back({now_, v.running, v.queued, v.token_usage()});
    if (timeline_.size() >= 2 * static_cast<std::size_t>(std::max(1, in_.timeline_points))) {
      std::vector<SimulationSample> half;
      for (std::size_t i = 0; i < timeline_.size(); i += 2)
        half.push_back(timeline_[i]);
      timeline_.swap(half);
      stride_ *= 2;
    }
  }

  SimulationResult finish() {
    SimulationResult& out = result_;
    out.duration_s = now_;
    if (now_ > 0) {
      out.requests_per_s = static_cast<double>(out.completed) / now_;
      out.output_tokens_per_s = static_cast<double>(output_tokens_) / now_;
      out.input_tokens_per_s = static_cast<double>(input_tokens_) / now_;
    }
    out.ttft_ms = percentiles(ttft_);
    out.tpot_ms = percentiles(tpot_);
    out.e2e_ms = percentiles(e2e_);
    out.queue_ms = percentiles(queue_);
    Percentiles itl = itl_.summary();
    itl.mean *= 1e3;
    itl.p50 *= 1e3;
    itl.p90 *= 1e3;
    itl.p99 *= 1e3;
    itl.max *= 1e3;
    out.itl_ms = itl;
    out.mean_running = running_.mean(now_);
    out.max_running = running_.max();
    out.mean_queued = queued_.mean(now_);
    out.max_queued = queued_.max();
    out.mean_kv_usage = kv_.mean(now_);
    out.max_kv_usage = kv_.max();
    out.mean_in_system = in_system_.mean(now_);
    out.retractions = scheduler_.retractions();
    out.timeline = std::move(timeline_);
    return out;
  }

  const SimulationInput& in_;
  Scheduler scheduler_;
  Random lengths_;
  Random arrivals_;
  LengthSpec input_spec_;
  LengthSpec output_spec_;
  std::vector<Record> records_;
  std::deque<std::pair<double, std::uint64_t>> pending_;  // (time it reaches the scheduler, tag)
  double now_ = 0;
  double next_arrival_ = kNever;
  std::int64_t clients_ = 0;
  std::int64_t issued_ = 0;
  std::int64_t done_ = 0;
  std::int64_t in_system_count_ = 0;
  std::int64_t output_tokens_ = 0;
  std::int64_t input_tokens_ = 0;
  std::vector<double> ttft_, tpot_, e2e_, queue_;
  LogHistogram itl_;
  TimeAverage running_, queued_, kv_, in_system_;
  std::vector<SimulationSample> timeline_;
  std::int64_t stride_ = 1;
  std::int64_t steps_since_sample_ = 0;
  SimulationResult result_;
};

}  // namespace

SimulationResult simulate(const SimulationInput& input) {
  Run run(input);
  return run.go();
}

}  // namespace servescope
