// A roofline model of one scheduler step on the catalog's GPU figures: the weights read per
// step (for MoE only the experts the batch routes to), the KV cache read per running token,
// the recurrent state read and written per request, the FLOPs of the linear layers (MoE:
// active experts only) and of attention, and a tensor-parallel all-reduce term. The step
// takes max(memory time, compute time) + communication + a fixed overhead + a fixed cost per
// layer of each pass (its kernels' latency floor) + a cost per sequence in the step (the
// scheduler's and sampler's CPU work grows with the batch); a decode batch
// that runs as a captured CUDA graph computes the graph's padded size. Each step's time is kept
// by term (StepCost) so a result can say what dominated. The efficiency factors are named and
// settable; the figures are a model, never a measurement.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/result.h"
#include "engines/scenario.h"
#include "engines/twin_profile.h"
#include "twin/scheduler.h"

namespace servescope {

/// The cost model's figures for the host CPU (the catalog has none): a nominal socket.
inline constexpr double kCpuHostBandwidthTbps = 0.05;
inline constexpr double kCpuHostBf16Tflops = 1.0;

/// The model's tunable factors (`--efficiency key=value`).
struct Efficiency {
  double bandwidth = 0.80;           // share of peak memory bandwidth a step achieves
  double compute = 0.50;             // share of peak tensor FLOPs
  double interconnect = 0.70;        // share of the interconnect bandwidth an all-reduce gets
  double allreduce_latency_us = 10;  // fixed cost of one all-reduce
  double step_overhead_us = 400;     // scheduling and launch cost of one step
  double per_sequence_us = 0;        // CPU cost of one sequence in a step (schedule, sample)
  double layer_overhead_us = 0;      // a layer's fixed cost in each forward pass (its kernels'
                                     // launch and latency floor, at any batch)
  double request_overhead_us = 0;    // a request's cost before the scheduler sees it (API
                                     // server, tokenizer): added to its TTFT, not to steps
  double accept_length = 0;          // speculative tokens per step; 0: 1 + 0.6·steps

  /// Applies "key=value" items (several may be joined by commas). Fails naming the key and the
  /// valid ones, or the value and its range.
  Status apply(const std::vector<std::string>& items);
  /// name=value pairs in a fixed order, for every printed result.
  std::vector<std::pair<std::string, double>> items() const;
  /// "bandwidth=0.80 compute=0.50 ..." (accept_length resolved for `shape`).
  std::string describe() const;
};

/// Per-GPU figures the step cost is computed from.
struct CostInputs {
  double memory_bytes_per_s = 0;
  double matmul_flops_per_s = 0;     // at the weights' precision
  double attention_flops_per_s = 0;  // bf16
  double interconnect_bytes_per_s = 0;
  int tp = 1;
  double dense_weight_bytes = 0;   // read by every forward pass
  double expert_weight_bytes = 0;  // all experts on this GPU
  int experts = 0;
  int experts_per_token = 0;
  double active_params = 0;  // multiply-adds per token on this GPU (MoE: routed experts only)
  double draft_weight_bytes = 0;
  double draft_params = 0;
  double kv_bytes_per_token = 0;
  double state_bytes_per_request = 0;
  double attention_flops_per_pair = 0;  // multiply-adds per (token, attended position)
  double allreduce_bytes_per_token = 0;
  int allreduces_per_pass = 0;
  int layers_per_pass = 0;        // the target model's layers
  int draft_layers_per_pass = 0;  // the draft model's (MTP layers, else 1)
  int draft_allreduces_per_pass = 0;
  std::int64_t draft_tokens = 0;  // verify tokens per request per decode step (0: no speculation)
  std::int64_t draft_steps = 0;
};

/// One step's time by term. The roofline's binding side takes the pass's time: a memory-bound
/// pass splits it between weights and cache reads, a compute-bound one between the linear
/// layers and attention, in proportion to each part's own time.
struct StepCost {
  double overhead = 0;       // step_overhead_us
  double layers = 0;         // layer_overhead_us × layers of each pass
  double per_sequence = 0;   // per_sequence_us × sequences in the step
  double weights = 0;        // reading the weights
  double cache = 0;          // reading and writing the KV cache and recurrent state
  double matmul = 0;         // the linear layers' FLOPs
  double attention = 0;      // attention's FLOPs
  double communication = 0;  // tensor-parallel all-reduces
  double draft = 0;          // the draft model's passes (speculative decoding)
  double graph_padding = 0;  // a decode batch padded up to its captured graph's size

  double total() const;
  StepCost& operator+=(const StepCost& o);
  /// (name, seconds) of every term, in a fixed order.
  std::vector<std::pair<std::string, double>> terms() const;
};

class CostModel {
 public:
  /// Fails when the GPU catalog lacks a figure the model needs (bandwidth, BF16 FLOPs).
  static Result<CostModel> build(const Scenario& scenario, const ServingShape& shape,
                                 const Efficiency& efficiency);

  /// Seconds one step takes.
  double step_seconds(const StepWork& work) const { return step_cost(work).total(); }
  /// The same time by term.
  StepCost step_cost(const StepWork& work) const;
  /// Seconds a request spends before the scheduler sees it.
  double request_overhead_seconds() const { return eff_.request_overhead_us * 1e-6; }
  /// Speculative tokens per request per decode step (1 without speculation).
  double accept_length() const { return accept_length_; }
  const CostInputs& inputs() const { return in_; }
  const Efficiency& efficiency() const { return eff_; }

 private:
  struct Pass {
    double tokens = 0, weight_bytes = 0, cache_bytes = 0, flops = 0, attention_flops = 0;
    int allreduces = 0;
    int layers = 0;
  };
  /// Adds one forward pass's time to `cost`, split by term.
  void add_pass(const Pass& pass, StepCost& cost) const;
  /// The decode batch size the engine runs: the smallest captured graph size that holds
  /// `requests`, or `requests` when it runs eagerly.
  double padded_batch(double requests) const;

  CostInputs in_;
  std::vector<std::int64_t> graph_batch_sizes_;
  Efficiency eff_;
  double accept_length_ = 1;
};

}  // namespace servescope
