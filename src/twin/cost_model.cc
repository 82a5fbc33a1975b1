#include "twin/cost_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "catalog/weight_estimate.h"
#include "core/text.h"

namespace servescope {
namespace {

struct Factor {
  const char* name;
  double Efficiency::*field;
  double low;
  double high;
};

constexpr Factor kFactors[] = {
    {"bandwidth", &Efficiency::bandwidth, 1e-6, 1.0},
    {"compute", &Efficiency::compute, 1e-6, 1.0},
    {"interconnect", &Efficiency::interconnect, 1e-6, 1.0},
    {"allreduce_latency_us", &Efficiency::allreduce_latency_us, 0, 1e6},
    {"step_overhead_us", &Efficiency::step_overhead_us, 0, 1e7},
    {"per_sequence_us", &Efficiency::per_sequence_us, 0, 1e6},
    {"layer_overhead_us", &Efficiency::layer_overhead_us, 0, 1e5},
    {"request_overhead_us", &Efficiency::request_overhead_us, 0, 1e8},
    {"accept_length", &Efficiency::accept_length, 0, 64},
};

double peak_matmul_tflops(const GpuSpec& gpu, const Quantization& q) {
  const double bf16 = gpu.bf16_dense_tflops;
  const double fp8 = gpu.fp8_dense_tflops > 0 ? gpu.fp8_dense_tflops : bf16;
  switch (q.method) {
    case QuantMethod::kFp8:
    case QuantMethod::kModeloptFp8:
      return fp8;
    case QuantMethod::kCompressedTensors:
      return q.weight_bits <= 8.5 ? fp8 : bf16;
    case QuantMethod::kNvfp4:
    case QuantMethod::kMxfp4:
      return gpu.fp4_dense_tflops > 0 ? gpu.fp4_dense_tflops : fp8;
    default:
      return bf16;  // bf16 weights, and int4 formats that compute in bf16
  }
}

// Expected share of experts a batch of `tokens` routes to: 1 − (1 − k/E)^tokens.
double expert_share(double tokens, int experts, int per_token) {
  if (experts <= 0 || per_token <= 0)
    return 1.0;
  const double p = static_cast<double>(per_token) / experts;
  return 1.0 - std::pow(1.0 - p, std::max(0.0, tokens));
}

}  // namespace

Status Efficiency::apply(const std::vector<std::string>& items) {
  for (const std::string& item : items) {
    for (std::string_view part : split(item, ',')) {
      part = trim(part);
      if (part.empty())
        continue;
      const auto eq = part.find('=');
      std::vector<std::string> names;
      for (const Factor& f : kFactors)
        names.emplace_back(f.name);
      if (eq == std::string_view::npos)
        return fail(fmt::format("--efficiency {}: expected KEY=VALUE with KEY one of {}", part,
                                fmt::join(names, ", ")));
      const std::string_view key = trim(part.substr(0, eq));
      const auto value = parse_double(trim(part.substr(eq + 1)));
      const auto* f = std::find_if(std::begin(kFactors), std::end(kFactors),
                                   [&](const Factor& x) { return key == x.name; });
      if (f == std::end(kFactors))
        return fail(fmt::format("--efficiency: unknown factor '{}'; the factors are {}", key,
                                fmt::join(names, ", ")));
      if (!value || *value < f->low || *value > f->high)
        return fail(fmt::format("--efficiency {}: the value must be a number in [{}, {}]", part,
                                f->low, f->high));
      this->*(f->field) = *value;
    }
  }
  return ok_status();
}

std::vector<std::pair<std::string, double>> Efficiency::items() const {
  std::vector<std::pair<std::string, double>> out;
  for (const Factor& f : kFactors)
    out.emplace_back(f.name, this->*(f.field));
  return out;
}

std::string Efficiency::describe() const {
  std::string out;
  for (const auto& [name, value] : items()) {
    if (!out.empty())
      out += ' ';
    out += fmt::format("{}={}", name, value);
  }
  return out;
}

double StepCost::total() const {
  return overhead + layers + per_sequence + weights + cache + matmul + attention + communication +
         draft + graph_padding;
}

StepCost& StepCost::operator+=(const StepCost& o) {
  overhead += o.overhead;
  layers += o.layers;
  per_sequence += o.per_sequence;
  weights += o.weights;
  cache += o.cache;
  matmul += o.matmul;
  attention += o.attention;
  communication += o.communication;
  draft += o.draft;
  graph_padding += o.graph_padding;
  return *this;
}

std::vector<std::pair<std::string, double>> StepCost::terms() const {
  return {{"weights read", weights},        {"KV/state read", cache},
          {"linear FLOPs", matmul},         {"attention FLOPs", attention},
          {"all-reduce", communication},    {"step overhead", overhead},
          {"per sequence", per_sequence},   {"layer overhead", layers},
          {"graph padding", graph_padding}, {"draft model", draft}};
}

Result<CostModel> CostModel::build(const Scenario& scenario, const ServingShape& shape,
                                   const Efficiency& efficiency) {
  GpuSpec gpu = scenario.hardware.gpu;
  if (gpu.is_cpu) {
    // The host CPU has no catalog figures: a nominal server socket (50 GB/s of memory
    // bandwidth, 1 dense BF16 TFLOPS), so the twin can play an engine's CPU platform. Timings
    // are then only indicative; --efficiency bandwidth=/compute= scale them.
    if (gpu.mem_bw_tbps <= 0)
      gpu.mem_bw_tbps = kCpuHostBandwidthTbps;
    if (gpu.bf16_dense_tflops <= 0)
      gpu.bf16_dense_tflops = kCpuHostBf16Tflops;
  }
  if (gpu.mem_bw_tbps <= 0 || gpu.bf16_dense_tflops <= 0)
    return fail(fmt::format(
        "the GPU catalog has no memory bandwidth or BF16 TFLOPS for {}; the cost model needs both "
        "(add them to data/gpus.csv)",
        gpu.key));
  const ModelShape& m = scenario.model;
  CostModel model;
  model.eff_ = efficiency;
  CostInputs& in = model.in_;
  in.tp = std::max(1, shape.tp);
  in.memory_bytes_per_s = gpu.mem_bw_tbps * 1e12 * efficiency.bandwidth;
  in.matmul_flops_per_s = peak_matmul_tflops(gpu, m.quant) * 1e12 * efficiency.compute;
  in.attention_flops_per_s = gpu.bf16_dense_tflops * 1e12 * efficiency.compute;
  in.interconnect_bytes_per_s =
      std::max(1.0, gpu.interconnect_gbps) * 1e9 * efficiency.interconnect;

  // Weights: the estimate's parts, scaled to the measured weight size when calibrated. The
  // vision encoder is not read by text steps; embeddings are a lookup, not a matmul.
  const WeightEstimate w = estimate_weights(m, WeightLayout{in.tp, true});
  double expert_bytes = 0, dense_bytes = 0, vision_bytes = 0;
  double expert_params = 0, matmul_params = 0;
  for (const WeightPart& p : w.parts) {
    if (p.name == "vision encoder") {
      vision_bytes += p.bytes_per_gpu;
      continue;
    }
    if (p.name == "experts") {
      expert_bytes += p.bytes_per_gpu;
      expert_params += p.params;
    } else {
      dense_bytes += p.bytes_per_gpu;
      if (p.name != "embeddings")
        matmul_params += p.params;
    }
  }
  const bool speculative = shape.speculative_draft_tokens > 0;
  const double draft_bytes = speculative ? w.draft_bytes_per_gpu : 0;
  const double estimated_total = w.bytes_per_gpu + draft_bytes;
  const double scale = shape.weight_bytes_per_gpu > 0 && estimated_total > 0
                           ? shape.weight_bytes_per_gpu / estimated_total
                           : 1.0;
  (void)vision_bytes;
  in.dense_weight_bytes = dense_bytes * scale;
  in.expert_weight_bytes = expert_bytes * scale;
  if (m.moe) {
    in.experts = m.moe->num_experts;
    in.experts_per_token = m.moe->experts_per_token;
  }
  const double routed =
      in.experts > 0 ? expert_params * in.experts_per_token / in.experts : expert_params;
  in.active_params = (matmul_params + routed) / in.tp;
  in.draft_weight_bytes = draft_bytes * scale;
  const double bytes_per_param =
      w.total_params > 0 ? w.bytes_per_gpu * in.tp / w.total_params : 2.0;
  const double active_share = w.total_params > 0 ? (matmul_params + routed) / w.total_params : 1.0;
  in.draft_params = draft_bytes / std::max(1e-9, bytes_per_param) * active_share;
  in.kv_bytes_per_token = shape.kv_bytes_per_token;
  in.state_bytes_per_request = shape.state_bytes_per_request;

  const int attention_layers = m.count_layers(LayerKind::kFullAttention) +
                               m.count_layers(LayerKind::kMla) +
                               m.count_layers(LayerKind::kSlidingAttention);
  const double head_dim =
      m.mla ? m.mla->qk_nope_head_dim + m.mla->qk_rope_head_dim + m.mla->v_head_dim
            : m.head_dim + m.v_head_dim;
  // QK^T and PV: one multiply-add per head dimension, per (query, key) pair.
  in.attention_flops_per_pair =
      static_cast<double>(m.num_attention_heads) / in.tp * head_dim * attention_layers;
  // Two all-reduces per layer (attention output, MLP output) of hidden × bf16 per token; a
  // ring moves 2(tp−1)/tp of it through each GPU.
  in.allreduce_bytes_per_token = in.tp > 1 ? 2.0 * m.hidden_size * 2.0 * (in.tp - 1) / in.tp : 0;
  in.allreduces_per_pass = in.tp > 1 ? 2 * m.num_layers : 0;
  in.draft_allreduces_per_pass = in.tp > 1 ? 2 * std::max(1, m.mtp_layers) : 0;
  in.layers_per_pass = m.num_layers;
  in.draft_layers_per_pass = std::max(1, m.mtp_layers);
  in.draft_tokens = speculative ? shape.speculative_draft_tokens : 0;
  in.draft_steps = speculative ? shape.speculative_steps : 0;

  model.graph_batch_sizes_ = shape.graph_batch_sizes;
  std::sort(model.graph_batch_sizes_.begin(), model.graph_batch_sizes_.end());
  model.accept_length_ = 1;
  if (speculative) {
    const double a = efficiency.accept_length > 0
                         ? efficiency.accept_length
                         : 1.0 + 0.6 * static_cast<double>(shape.speculative_steps);
    model.accept_length_ = std::clamp(a, 1.0, static_cast<double>(shape.speculative_draft_tokens));
  }
  return model;
}

void CostModel::add_pass(const Pass& p, StepCost& cost) const {
  const double weights = p.weight_bytes / in_.memory_bytes_per_s;
  const double cache = p.cache_bytes / in_.memory_bytes_per_s;
  const double matmul = p.flops / in_.matmul_flops_per_s;
  const double attention = p.attention_flops / in_.attention_flops_per_s;
  if (weights + cache >= matmul + attention) {
    cost.weights += weights;
    cost.cache += cache;
  } else {
    cost.matmul += matmul;
    cost.attention += attention;
  }
  cost.layers += p.layers * eff_.layer_overhead_us * 1e-6;
  if (p.allreduces > 0) {
    cost.communication += p.tokens * in_.allreduce_bytes_per_token * (p.allreduces / 2.0) /
                              in_.interconnect_bytes_per_s +
                          p.allreduces * eff_.allreduce_latency_us * 1e-6;
  }
}

double CostModel::padded_batch(double requests) const {
  // vLLM and SGLang replay the smallest captured batch size that holds the batch; the padded
  // rows are computed and discarded (vLLM: CudagraphDispatcher pads to cudagraph_capture_sizes;
  // SGLang: CudaGraphRunner pads to the next capture_bs).
  const auto it = std::lower_bound(graph_batch_sizes_.begin(), graph_batch_sizes_.end(),
                                   static_cast<std::int64_t>(std::ceil(requests)));
  return it == graph_batch_sizes_.end() ? requests : static_cast<double>(*it);
}

StepCost CostModel::step_cost(const StepWork& w) const {
  StepCost cost;
  cost.overhead = eff_.step_overhead_us * 1e-6;
  if (w.is_prefill()) {
    const auto tokens = static_cast<double>(w.prefill_tokens);
    cost.per_sequence = eff_.per_sequence_us * 1e-6 * static_cast<double>(w.prefill_requests);
    Pass pass;
    pass.tokens = tokens;
    pass.weight_bytes =
        in_.dense_weight_bytes +
        in_.expert_weight_bytes * expert_share(tokens, in_.experts, in_.experts_per_token);
    pass.cache_bytes = tokens * in_.kv_bytes_per_token +
                       static_cast<double>(w.prefill_requests) * in_.state_bytes_per_request;
    pass.flops = 2.0 * in_.active_params * tokens;
    pass.attention_flops = 2.0 * in_.attention_flops_per_pair * w.prefill_attention;
    pass.allreduces = in_.allreduces_per_pass;
    pass.layers = in_.layers_per_pass;
    add_pass(pass, cost);
    if (in_.draft_tokens > 0) {  // the draft model prefills the same tokens
      StepCost draft;
      add_pass({tokens, in_.draft_weight_bytes, 0, 2.0 * in_.draft_params * tokens, 0,
                in_.draft_allreduces_per_pass, in_.draft_layers_per_pass},
               draft);
      cost.draft += draft.total();
    }
    return cost;
  }
  if (w.decode_requests <= 0)
    return cost;
  const auto requests = static_cast<double>(w.decode_requests);
  cost.per_sequence = eff_.per_sequence_us * 1e-6 * requests;
  const double per_request = in_.draft_tokens > 0 ? static_cast<double>(in_.draft_tokens) : 1.0;
  const auto context = static_cast<double>(w.decode_context);
  auto decode_pass = [&](double batch) {
    const double tokens = batch * per_request;
    Pass pass;
    pass.tokens = tokens;
    pass.weight_bytes =
        in_.dense_weight_bytes +
        in_.expert_weight_bytes * expert_share(tokens, in_.experts, in_.experts_per_token);
    pass.cache_bytes =
        context * in_.kv_bytes_per_token + 2.0 * requests * in_.state_bytes_per_request;
    pass.flops = 2.0 * in_.active_params * tokens;
    pass.attention_flops = 2.0 * in_.attention_flops_per_pair * context * per_request;
    pass.allreduces = in_.allreduces_per_pass;
    pass.layers = in_.layers_per_pass;
    return pass;
  };
  StepCost exact;
  add_pass(decode_pass(requests), exact);
  const double padded = padded_batch(requests);
  if (padded > requests) {
    StepCost with_padding;
    add_pass(decode_pass(padded), with_padding);
    cost.graph_padding = std::max(0.0, with_padding.total() - exact.total());
  }
  cost += exact;
  StepCost draft;
  for (std::int64_t i = 0; i < in_.draft_steps; ++i)  // draft proposals, one token per request each
    add_pass({requests, in_.draft_weight_bytes, 0, 2.0 * in_.draft_params * requests, 0,
              in_.draft_allreduces_per_pass, in_.draft_layers_per_pass},
             draft);
  cost.draft = draft.total();
  return cost;
}

}  // namespace servescope
