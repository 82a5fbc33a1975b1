#include "twin/scheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace servescope {
namespace {

std::int64_t round_up(std::int64_t n, std::int64_t page) {
  return (n + page - 1) / page * page;
}

}  // namespace

Scheduler::Scheduler(ServingShape shape, double accept_length)
    : shape_(std::move(shape)),
      accept_length_(std::max(1.0, accept_length)),
      new_token_ratio_(shape_.init_new_token_ratio) {
  shape_.page_size = std::max<std::int64_t>(1, shape_.page_size);
  if (speculative())
    accept_length_ = std::min(accept_length_, static_cast<double>(shape_.speculative_draft_tokens));
  per_step_tokens_ = speculative() ? shape_.speculative_draft_tokens : 1;
}

Scheduler::Slot Scheduler::submit(std::uint64_t tag, std::int64_t prompt_tokens,
                                  std::int64_t max_new_tokens, std::int64_t cached_tokens) {
  Slot s;
  if (free_.empty()) {
    s = static_cast<Slot>(entries_.size());
    entries_.emplace_back();
  } else {
    s = free_.back();
    free_.pop_back();
  }
  Entry& e = entries_[s];
  e = Entry{};
  e.tag = tag;
  e.prompt = std::max<std::int64_t>(1, prompt_tokens);
  e.max_new = std::max<std::int64_t>(0, max_new_tokens);
  e.cached = std::clamp<std::int64_t>(cached_tokens, 0, e.prompt - 1);
  e.state = State::kWaiting;
  waiting_.push_back(s);
  ++queued_;
  return s;
}

void Scheduler::allocate(Entry& e, std::int64_t length) {
  const std::int64_t kv = round_up(length, shape_.page_size);
  if (kv > e.kv) {
    used_tokens_ += kv - e.kv;
    e.kv = kv;
  }
}

void Scheduler::release(Entry& e) {
  used_tokens_ -= e.kv;
  e.kv = 0;
  e.prefilled = 0;
  if (e.holds_slot) {
    used_slots_ -= shape_.state_slots_per_request;
    e.holds_slot = false;
  }
}

void Scheduler::finish(Slot s) {
  Entry& e = entries_[s];
  release(e);
  e = Entry{};
  free_.push_back(s);
}

void Scheduler::abort(Slot slot, std::uint64_t tag) {
  if (slot >= entries_.size())
    return;
  Entry& e = entries_[slot];
  if (e.state == State::kFree || e.tag != tag || e.aborted)
    return;
  e.aborted = true;
  switch (e.state) {
    case State::kWaiting:
      // Stays in the deque until it reaches the front; it no longer counts as queued.
      --queued_;
      release(e);
      break;
    case State::kPrefilling:
      --prefilling_;
      release(e);
      if (has_chunked_ && chunked_ == slot)
        has_chunked_ = false;
      if (!e.in_step)
        finish(slot);
      break;
    case State::kRunning:
      running_context_ -= e.target();
      release(e);
      if (!e.in_step) {
        running_.erase(std::find(running_.begin(), running_.end(), slot));
        finish(slot);
      }
      break;
    case State::kFree:
      break;
  }
}

std::int64_t Scheduler::running() const {
  return static_cast<std::int64_t>(running_.size()) + prefilling_;
}

bool Scheduler::graph_batch(std::int64_t batch) const {
  return !shape_.graph_batch_sizes.empty() && batch <= shape_.graph_batch_sizes.back();
}

// schedule_policy.py::PrefillAdder.__init__: running requests reserve their remaining output
// (clipped) times the new-token ratio.
std::int64_t Scheduler::reserved_future_tokens() const {
  double reserved = 0;
  for (Slot s : running_) {
    const Entry& e = entries_[s];
    reserved += static_cast<double>(std::min(std::max<std::int64_t>(e.max_new - e.generated, 0),
                                             shape_.clip_max_new_tokens)) *
                new_token_ratio_;
  }
  return static_cast<std::int64_t>(reserved);
}

bool Scheduler::begin_step(Step& step) {
  step.work = {};
  step.events.clear();
  step.retracted.clear();
  step.admitted.clear();
  step.new_seqs = 0;
  step.cached_tokens = 0;
  step.pending_tokens = 0;
  // scheduler.py::get_next_batch_to_run: a prefill batch when one can be formed, else decode.
  if (form_prefill(step))
    return true;
  return form_decode(step);
}

// scheduler.py::get_new_batch_prefill with schedule_policy.py::PrefillAdder (add_chunked_req,
// add_one_req): FIFO admission bounded by the free request slots, the token budget after the
// running requests' reserve, max_prefill_tokens and the chunk size.
bool Scheduler::form_prefill(Step& step) {
  while (!waiting_.empty() && entries_[waiting_.front()].aborted) {
    const Slot s = waiting_.front();
    waiting_.pop_front();
    finish(s);
  }
  if (waiting_.empty() && !has_chunked_)
    return false;
  const std::int64_t allocatable =
      shape_.max_running_requests - static_cast<std::int64_t>(running_.size());
  if (allocatable <= 0 && !has_chunked_)
    return false;

  const std::int64_t page = shape_.page_size;
  double rem_total =
      static_cast<double>(shape_.token_pool - used_tokens_ - reserved_future_tokens());
  std::int64_t rem_input = shape_.max_prefill_tokens > 0 ? shape_.max_prefill_tokens
                                                         : std::numeric_limits<std::int64_t>::max();
  std::int64_t rem_chunk =
      shape_.chunk_tokens > 0 ? shape_.chunk_tokens : std::numeric_limits<std::int64_t>::max();
  std::int64_t can_run = 0;
  pieces_.clear();

  if (has_chunked_) {
    Entry& e = entries_[chunked_];
    const std::int64_t remaining = e.target() - e.prefilled;
    std::int64_t piece = std::min(remaining, rem_chunk);
    const bool truncated = piece < remaining;
    if (truncated)
      piece = std::max(page, piece / page * page);
    allocate(e, e.prefilled + piece);
    pieces_.push_back({chunked_, piece});
    rem_chunk -= piece;
    rem_input -= piece;
    rem_total -= static_cast<double>(
        piece + (truncated ? 0 : std::min(e.max_new - e.generated, shape_.clip_max_new_tokens)));
    can_run = 1;
    if (!truncated)
      has_chunked_ = false;
  }

  while (!waiting_.empty()) {
    const Slot s = waiting_.front();
    Entry& e = entries_[s];
    if (e.aborted) {
      waiting_.pop_front();
      finish(s);
      continue;
    }
    if (can_run >= allocatable || rem_input <= 0 || rem_chunk <= 0)
      break;
    if (shape_.state_slots > 0 && used_slots_ + shape_.state_slots_per_request > shape_.state_slots)
      break;
    // A first admission finds the cached prefix in the pool already: only the rest is
    // prefilled (a retracted request computes everything again).
    if (e.generated == 0 && e.prefilled == 0)
      e.prefilled = e.cached;
    const std::int64_t input = e.target() - e.prefilled;
    const std::int64_t future =
        std::min(std::max<std::int64_t>(e.max_new - e.generated, 0), shape_.clip_max_new_tokens);
    if (static_cast<double>(input + future) >= rem_total)
      break;  // AddReqResult.NO_TOKEN
    std::int64_t piece = input;
    bool truncated = false;
    if (input > rem_chunk) {
      piece = rem_chunk / page * page;
      if (piece <= 0)
        break;
      truncated = true;
    }
    waiting_.pop_front();
    --queued_;
    ++prefilling_;
    e.state = State::kPrefilling;
    if (shape_.state_slots > 0) {
      used_slots_ += shape_.state_slots_per_request;
      e.holds_slot = true;
    }
    allocate(e, e.prefilled + piece);
    pieces_.push_back({s, piece});
    ++can_run;
    ++step.new_seqs;
    step.cached_tokens += e.prefilled;
    step.admitted.push_back(e.tag);
    rem_input -= piece;
    rem_chunk -= piece;
    rem_total -= static_cast<double>(piece + (truncated ? 0 : future));
    if (truncated) {
      chunked_ = s;
      has_chunked_ = true;
      break;
    }
  }
  if (pieces_.empty())
    return false;

  for (const Piece& p : pieces_) {
    Entry& e = entries_[p.slot];
    e.in_step = true;
    step.work.prefill_tokens += p.tokens;
    step.work.prefill_attention +=
        static_cast<double>(p.tokens) *
        (static_cast<double>(e.prefilled) + static_cast<double>(p.tokens + 1) / 2.0);
  }
  step.work.prefill_requests = static_cast<std::int64_t>(pieces_.size());
  if (has_chunked_) {
    const Entry& c = entries_[chunked_];
    const std::int64_t planned =
        c.in_step ? std::find_if(pieces_.begin(), pieces_.end(),
                                 [&](const Piece& p) { return p.slot == chunked_; })
                        ->tokens
                  : 0;
    step.pending_tokens = c.target() - c.prefilled - planned;
  }
  step_is_decode_ = false;
  return true;
}

bool Scheduler::form_decode(Step& step) {
  if (running_.empty())
    return false;
  const auto n = static_cast<std::int64_t>(running_.size());
  if (shape_.token_pool - used_tokens_ < n * per_step_tokens_) {
    retract_for(n * per_step_tokens_, step);
  } else {
    // scheduler.py::update_running_batch: the reserve ratio decays while decoding goes well.
    new_token_ratio_ =
        std::max(new_token_ratio_ - shape_.new_token_ratio_decay, shape_.min_new_token_ratio);
  }
  for (Slot s : running_)
    entries_[s].in_step = true;
  step.work.decode_requests = static_cast<std::int64_t>(running_.size());
  step.work.decode_context = running_context_;
  step_is_decode_ = true;
  return true;
}

// schedule_batch.py::ScheduleBatch.retract_decode: retract the requests with the least output
// (ties: the longest prompt) until the pool holds RETRACT_DECODE_STEPS more tokens for every
// remaining request (plus the speculative headroom), keeping at least one; then raise the
// reserve ratio to what the remaining requests actually need.
void Scheduler::retract_for(std::int64_t /*needed*/, Step& step) {
  std::vector<Slot> order = running_;
  std::stable_sort(order.begin(), order.end(), [&](Slot a, Slot b) {
    const Entry& x = entries_[a];
    const Entry& y = entries_[b];
    if (x.generated != y.generated)
      return x.generated > y.generated;
    return x.prompt < y.prompt;
  });
  const std::int64_t spec_headroom =
      speculative() ? shape_.speculative_steps + shape_.speculative_draft_tokens : 0;
  auto required = [&](std::int64_t reqs) {
    return reqs * (shape_.retract_decode_steps + spec_headroom);
  };
  bool first = true;
  while (order.size() > 1 && (first || shape_.token_pool - used_tokens_ <
                                           required(static_cast<std::int64_t>(order.size())))) {
    first = false;
    const Slot s = order.back();
    order.pop_back();
    Entry& e = entries_[s];
    running_context_ -= e.target();
    release(e);
    e.carry = 0;
    e.state = State::kWaiting;
    waiting_.push_back(s);
    ++queued_;
    ++retractions_;
    step.retracted.push_back(e.tag);
  }
  running_.erase(std::remove_if(running_.begin(), running_.end(),
                                [&](Slot s) { return entries_[s].state != State::kRunning; }),
                 running_.end());
  double decoded = 0, max_new = 0;
  for (Slot s : running_) {
    decoded += static_cast<double>(entries_[s].generated);
    max_new += static_cast<double>(entries_[s].max_new);
  }
  if (max_new > 0) {
    new_token_ratio_ = std::min(1.0, (decoded + static_cast<double>(shape_.retract_decode_steps) *
                                                    static_cast<double>(running_.size())) /
                                         max_new);
  }
}

void Scheduler::end_step(Step& step) {
  step.events.clear();
  auto complete = [&](Entry& e) {
    return e.generated >= e.max_new || e.prompt + e.generated >= shape_.context_len;
  };
  if (!step_is_decode_) {
    for (const Piece& p : pieces_) {
      Entry& e = entries_[p.slot];
      e.in_step = false;
      if (e.aborted) {
        finish(p.slot);
        continue;
      }
      e.prefilled += p.tokens;
      if (e.prefilled < e.target())
        continue;  // a chunk of a split prompt
      --prefilling_;
      // The prefill forward samples the next token (the first one, or the next one after a
      // retraction re-prefilled the output so far).
      const bool first = e.generated == 0;
      const std::int32_t tokens = e.max_new > e.generated ? 1 : 0;
      e.generated += tokens;
      allocate(e, e.target());
      const bool done = complete(e);
      step.events.push_back({e.tag, tokens, first && tokens > 0, done});
      if (done) {
        finish(p.slot);
      } else {
        e.state = State::kRunning;
        running_.push_back(p.slot);
        running_context_ += e.target();
      }
    }
    pieces_.clear();
    return;
  }

  bool any_done = false;
  for (Slot s : running_) {
    Entry& e = entries_[s];
    e.in_step = false;
    if (e.aborted) {
      any_done = true;
      continue;
    }
    std::int64_t tokens = 1;
    if (speculative()) {
      e.carry += accept_length_;
      tokens = static_cast<std::int64_t>(std::floor(e.carry));
      e.carry -= static_cast<double>(tokens);
    }
    tokens = std::min({tokens, e.max_new - e.generated, shape_.context_len - e.target()});
    tokens = std::max<std::int64_t>(tokens, 0);
    e.generated += tokens;
    running_context_ += tokens;
    allocate(e, e.target());
    const bool done = complete(e);
    step.events.push_back({e.tag, static_cast<std::int32_t>(tokens), false, done});
    if (done) {
      running_context_ -= e.target();
      e.state = State::kFree;  // marked; released below
      any_done = true;
    }
  }
  if (any_done) {
    std::vector<Slot> keep;
    keep.reserve(running_.size());
    for (Slot s : running_) {
      Entry& e = entries_[s];
      if (e.aborted || e.state == State::kFree) {
        finish(s);
      } else {
        keep.push_back(s);
      }
    }
    running_.swap(keep);
  }
}

SchedulerView Scheduler::view() const {
  SchedulerView v;
  v.running = running();
  v.queued = queued_;
  v.used_tokens = used_tokens_;
  v.token_pool = shape_.token_pool;
  v.used_state_slots = used_slots_;
  v.state_slots = shape_.state_slots;
  v.max_running_requests = shape_.max_running_requests;
  v.decode_context_tokens = running_context_;
  v.graph = graph_batch(static_cast<std::int64_t>(running_.size()));
  if (speculative()) {
    v.accept_length = accept_length_;
    v.accept_rate =
        shape_.speculative_draft_tokens > 1
            ? (accept_length_ - 1) / static_cast<double>(shape_.speculative_draft_tokens - 1)
            : 0;
  }
  return v;
}

}  // namespace servescope
