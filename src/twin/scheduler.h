// The scheduler model shared by `simulate` and the twin server: continuous batching bounded by
// the running-request limit, the KV token pool and the recurrent-state slots; a FIFO waiting
// queue; prefill batches that take priority over decoding and split long prompts into chunks;
// a reserve of future tokens for running requests when admitting new ones; and retraction of
// running requests when the pool cannot hold the next decode step. The limits and constants
// come from the engine (ServingShape); time comes from outside: the caller forms a step, costs
// it, and ends it when its time has passed.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "engines/twin_profile.h"

namespace servescope {

/// What one step computes, for the cost model.
struct StepWork {
  std::int64_t prefill_tokens = 0;
  double prefill_attention = 0;  // Σ over prefilled tokens of the positions each attends to
  std::int64_t prefill_requests = 0;
  std::int64_t decode_requests = 0;
  std::int64_t decode_context = 0;  // Σ sequence lengths of the decoding requests

  bool is_prefill() const { return prefill_tokens > 0; }
};

/// Tokens one request received at the end of a step.
struct TokenEvent {
  std::uint64_t tag = 0;  // the caller's tag given at submit
  std::int32_t tokens = 0;
  bool first = false;     // the request's first output token is among them
  bool finished = false;  // the request is complete (its resources are free)
};

struct Step {
  StepWork work;
  std::vector<TokenEvent> events;        // filled by end_step
  std::vector<std::uint64_t> retracted;  // requests sent back to the queue when it was formed
  std::vector<std::uint64_t> admitted;   // prefill: requests admitted by this batch
  std::int64_t new_seqs = 0;             // prefill: requests admitted by this batch
  std::int64_t cached_tokens = 0;        // prefill: prompt tokens the admitted found cached
  std::int64_t pending_tokens = 0;       // prefill: prompt tokens of a split prompt still to go
};

class Scheduler {
 public:
  using Slot = std::uint32_t;

  /// `accept_length`: tokens a request gains per decode step with speculative decoding
  /// (ignored when the shape has no draft tokens).
  explicit Scheduler(ServingShape shape, double accept_length = 1.0);

  /// Queues a request. Returns its slot, for abort(). `cached_tokens`: the prompt's leading
  /// tokens the prefix cache already holds, not prefilled again at its first admission.
  Slot submit(std::uint64_t tag, std::int64_t prompt_tokens, std::int64_t max_new_tokens,
              std::int64_t cached_tokens = 0);
  /// Drops a request wherever it is (the client went away): its resources are freed now and
  /// it produces no further events. A slot already finished is ignored.
  void abort(Slot slot, std::uint64_t tag);

  /// Forms the next batch into `step` (prefill first, else decode). False when nothing can run.
  bool begin_step(Step& step);
  /// Applies the step formed by begin_step: prefill progress, tokens, finished requests.
  void end_step(Step& step);

  SchedulerView view() const;
  const ServingShape& shape() const { return shape_; }
  std::int64_t running() const;
  std::int64_t queued() const { return queued_; }
  std::int64_t used_tokens() const { return used_tokens_; }
  std::int64_t used_state_slots() const { return used_slots_; }
  std::int64_t retractions() const { return retractions_; }
  double accept_length() const { return speculative() ? accept_length_ : 0; }
  bool speculative() const { return shape_.speculative_draft_tokens > 0; }
  /// Whether the decode batch of the current size runs as a captured graph.
  bool graph_batch(std::int64_t batch) const;
  bool idle() const { return running() == 0 && queued_ == 0; }

 private:
  enum class State : std::uint8_t { kFree, kWaiting, kPrefilling, kRunning };
  struct Entry {
    std::uint64_t tag = 0;
    std::int64_t prompt = 0;
    std::int64_t max_new = 0;
    std::int64_t generated = 0;
    std::int64_t prefilled = 0;  // tokens of the current admission already in the KV pool
    std::int64_t cached = 0;     // prompt tokens the prefix cache held at submission
    std::int64_t kv = 0;         // tokens allocated (page-rounded)
    double carry = 0;            // fractional speculative tokens
    State state = State::kFree;
    bool aborted = false;
    bool holds_slot = false;
    bool in_step = false;
    // Tokens this admission must prefill: the prompt, plus the output so far after a retraction.
    std::int64_t target() const { return prompt + generated; }
  };
  struct Piece {
    Slot slot;
    std::int64_t tokens;
  };

  bool form_prefill(Step& step);
  bool form_decode(Step& step);
  void retract_for(std::int64_t needed, Step& step);
  void allocate(Entry& e, std::int64_t length);
  void release(Entry& e);
  void finish(Slot s);
  std::int64_t reserved_future_tokens() const;

  ServingShape shape_;
  double accept_length_;
  std::int64_t per_step_tokens_;  // KV tokens a decode step may need per request

  std::vector<Entry> entries_;
  std::vector<Slot> free_;
  std::deque<Slot> waiting_;
  std::vector<Slot> running_;
  std::vector<Piece> pieces_;  // the prefill batch in progress
  bool step_is_decode_ = false;
  Slot chunked_ = 0;
  bool has_chunked_ = false;

  std::int64_t queued_ = 0;
  std::int64_t prefilling_ = 0;  // admitted, prompt not yet fully in the pool
  std::int64_t used_tokens_ = 0;
  std::int64_t used_slots_ = 0;
  std::int64_t running_context_ = 0;  // Σ (prompt + generated) over running_
  std::int64_t retractions_ = 0;
  double new_token_ratio_;
};

}  // namespace servescope
