#include "catalog/weight_estimate.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "catalog/vision_encoder.h"

namespace servescope {
namespace {

class Accumulator {
 public:
  Accumulator(const ModelShape& shape, int tp) : shape_(shape), tp_(std::max(1, tp)) {
    dense_bytes_ = dtype_bytes(shape.dtype) > 0 ? dtype_bytes(shape.dtype) : 2.0;
  }

  // A linear weight of `params` elements under `module` (e.g. "layers.*.mlp.down_proj"),
  // split `shards` ways across the GPUs.
  void linear(std::string_view part, std::string_view module, double params, double shards) {
    // Modules repeat per layer: decide each distinct module once.
    auto [it, fresh] = quantized_.try_emplace(std::string(module), false);
    if (fresh)
      it->second =
          shape_.quant.method != QuantMethod::kNone && !shape_.quant.keeps_unquantized(module);
    const bool quantized = it->second;
    const double per_elem = quantized ? shape_.quant.bytes_per_quantized_weight() : dense_bytes_;
    add(part, params, params * per_elem / shards);
  }
  // Embeddings, norms, convolutions, gates: never quantized by the formats modelled here.
  void plain(std::string_view part, double params, double shards) {
    add(part, params, params * dense_bytes_ / shards);
  }

  WeightEstimate take() { return std::move(out_); }
  int tp() const { return tp_; }

 private:
  void add(std::string_view part, double params, double bytes) {
    auto it = std::find_if(out_.parts.begin(), out_.parts.end(),
                           [&](const WeightPart& p) { return p.name == part; });
    if (it == out_.parts.end()) {
      out_.parts.push_back({std::string(part), 0, 0});
      it = out_.parts.end() - 1;
    }
    it->params += params;
    it->bytes_per_gpu += bytes;
    out_.total_params += params;
    out_.bytes_per_gpu += bytes;
  }

  const ModelShape& shape_;
  std::unordered_map<std::string, bool> quantized_;
  int tp_;
  double dense_bytes_ = 2;
  WeightEstimate out_;
};

void add_attention_layer(Accumulator& acc, const ModelShape& s, bool kv_shared = false) {
  const double h = s.hidden_size, tp = acc.tp();
  if (s.mla) {
    const MlaDims& m = *s.mla;
    const double heads = s.num_attention_heads;
    const double qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
    if (m.q_lora_rank > 0) {
      acc.linear("attention", "layers.*.self_attn.q_a_proj", h * m.q_lora_rank, 1);
      acc.linear("attention", "layers.*.self_attn.q_b_proj", m.q_lora_rank * heads * qk, tp);
    } else {
      acc.linear("attention", "layers.*.self_attn.q_proj", h * heads * qk, tp);
    }
    acc.linear("attention", "layers.*.self_attn.kv_a_proj_with_mqa",
               h * (m.kv_lora_rank + m.qk_rope_head_dim), 1);
    acc.linear("attention", "layers.*.self_attn.kv_b_proj",
               m.kv_lora_rank * heads * (m.qk_nope_head_dim + m.v_head_dim), tp);
    acc.linear("attention", "layers.*.self_attn.o_proj", heads * m.v_head_dim * h, tp);
    if (s.attention_output_gate)  // Kimi-Linear's mla_use_output_gate (kimi_k3 mla.py g_proj)
      acc.linear("attention", "layers.*.self_attn.g_proj", h * heads * m.v_head_dim, tp);
    if (m.index_head_dim > 0) {
      // The DSA indexer, replicated on every rank (models/deepseek_v2.py Indexer): wq_b from
      // the q latent, wk and the head weights fused and never quantized, a float32 LayerNorm.
      const double q_in = m.q_lora_rank > 0 ? m.q_lora_rank : h;
      acc.linear("attention", "layers.*.self_attn.indexer.wq_b",
                 q_in * m.index_head_dim * m.index_n_heads, 1);
      acc.plain("attention", h * (m.index_head_dim + m.index_n_heads), 1);
      acc.plain("attention", 2.0 * m.index_head_dim * 2, 1);  // float32 weight and bias
    }
    return;
  }
  const double q_out = s.num_attention_heads * s.head_dim * (s.attention_output_gate ? 2.0 : 1.0);
  if (s.shared_q_dim > 0) {
    // Step-3 (models/step3_text.py Step3TextAttention): qkv_proj to the shared query and one KV
    // head, replicated; inter_norm; wq from the shared query to every head.
    const double kv = static_cast<double>(s.num_kv_heads) * (s.head_dim + s.v_head_dim);
    acc.linear("attention", "layers.*.self_attn.qkv_proj", h * (s.shared_q_dim + kv), 1);
    acc.plain("attention", s.shared_q_dim, 1);
    acc.linear("attention", "layers.*.self_attn.wq", s.shared_q_dim * q_out, tp);
    acc.linear("attention", "layers.*.self_attn.o_proj", s.num_attention_heads * s.v_head_dim * h,
               tp);
    return;
  }
  if (kv_shared) {
    // It reads an earlier layer's K and V: q and o alone (models/gemma4.py Gemma4Attention).
    acc.linear("attention", "layers.*.self_attn.q_proj", h * q_out, tp);
    acc.linear("attention", "layers.*.self_attn.o_proj", s.num_attention_heads * s.v_head_dim * h,
               tp);
    return;
  }
  // KV projections are replicated when TP exceeds the KV head count.
  const double kv_shards = std::min<double>(tp, std::max(1, s.num_kv_heads));
  acc.linear("attention", "layers.*.self_attn.q_proj", h * q_out, tp);
  acc.linear("attention", "layers.*.self_attn.k_proj", h * s.num_kv_heads * s.head_dim, kv_shards);
  acc.linear("attention", "layers.*.self_attn.v_proj", h * s.num_kv_heads * s.v_head_dim,
             kv_shards);
  acc.linear("attention", "layers.*.self_attn.o_proj", s.num_attention_heads * s.v_head_dim * h,
             tp);
}

void add_linear_attention_layer(Accumulator& acc, const ModelShape& s) {
  const LinearAttentionDims& l = *s.linear;
  const double h = s.hidden_size, tp = acc.tp();
  // In double: a config's int fields multiply past int (found by model_config_fuzz).
  const double key = static_cast<double>(l.num_key_heads) * l.key_head_dim;
  const double value = static_cast<double>(l.num_value_heads) * l.value_head_dim;
  acc.linear("linear attention", "layers.*.linear_attn.in_proj_qkv", h * (2 * key + value), tp);
  acc.linear("linear attention", "layers.*.linear_attn.in_proj_z", h * value, tp);
  acc.linear("linear attention", "layers.*.linear_attn.in_proj_a", h * l.num_value_heads, tp);
  acc.linear("linear attention", "layers.*.linear_attn.in_proj_b", h * l.num_value_heads, tp);
  acc.plain("linear attention", (2 * key + value) * l.conv_kernel, tp);
  acc.linear("linear attention", "layers.*.linear_attn.out_proj", value * h, tp);
}

// A Mamba2 mixer (vLLM model_executor/layers/mamba/mamba_mixer2.py MambaMixer2): in_proj to
// z, x, B, C and dt; the convolution over x, B, C; per-head A, D, dt_bias; a gated norm; out_proj.
// Groups are replicated so that every head shard has its own (extra_groups_for_head_shards).
void add_mamba2_mixer(Accumulator& acc, const ModelShape& s, const LinearAttentionDims& l) {
  const double h = s.hidden_size, tp = acc.tp();
  const int t = static_cast<int>(tp);
  const double groups = l.n_groups % t == 0 ? l.n_groups : l.n_groups + (t - l.n_groups);
  const double conv_dim = l.intermediate_size + 2 * groups * l.state_size;
  acc.linear("mamba", "layers.*.mamba.in_proj", h * (l.intermediate_size + conv_dim + l.num_heads),
             tp);
  acc.plain("mamba", conv_dim * (l.conv_kernel + 1) + 3.0 * l.num_heads + l.intermediate_size, tp);
  acc.linear("mamba", "layers.*.mamba.out_proj", l.intermediate_size * h, tp);
}

// A Mamba1 mixer (mamba_mixer.py MambaMixer; Jamba's with dt/B/C norms): in_proj to x and z,
// the convolution, x_proj to dt, B, C, dt_proj, A and D, out_proj.
void add_mamba1_mixer(Accumulator& acc, const ModelShape& s, const LinearAttentionDims& l) {
  const double h = s.hidden_size, tp = acc.tp(), i = l.intermediate_size;
  const double dt_rank = l.dt_rank;
  acc.linear("mamba", "layers.*.mamba.in_proj", h * 2 * i, tp);
  acc.plain("mamba", i * (l.conv_kernel + 1), tp);
  acc.linear("mamba", "layers.*.mamba.x_proj", i * (dt_rank + 2.0 * l.state_size), tp);
  acc.linear("mamba", "layers.*.mamba.dt_proj", dt_rank * i + i, tp);
  acc.plain("mamba", i * l.state_size + i, tp);
  acc.linear("mamba", "layers.*.mamba.out_proj", i * h, tp);
  acc.plain("mamba", dt_rank + 2.0 * l.state_size, 1);
}

// LFM2's short convolution (models/lfm2.py ShortConv): in_proj to B, C, x; the convolution;
// out_proj.
void add_short_conv_mixer(Accumulator& acc, const ModelShape& s, const LinearAttentionDims& l) {
  const double h = s.hidden_size, tp = acc.tp(), d = l.intermediate_size;
  acc.linear("short conv", "layers.*.conv.in_proj", h * 3 * d, tp);
  acc.plain("short conv", d * l.conv_kernel, tp);
  acc.linear("short conv", "layers.*.conv.out_proj", d * h, tp);
}

// Kimi Delta Attention (vLLM models/kimi_k3 kda.py), P = heads × head_dim: one fused input
// projection to q, k, v (P each), the forget gate's low rank (head_dim) and beta (a head each);
// the forget gate's and output gate's up-projections (head_dim → P), the output gate's down
// projection (hidden → head_dim, replicated), the q/k/v convolutions, A_log and dt_bias, the
// output norm and o_proj.
void add_kimi_delta_layer(Accumulator& acc, const ModelShape& s, const LinearAttentionDims& l) {
  const double h = s.hidden_size, tp = acc.tp();
  const double d = l.value_head_dim, heads = l.num_value_heads, p = heads * d;
  acc.linear("linear attention", "layers.*.self_attn.in_proj_qkvgfab", h * (3 * p + heads), tp);
  acc.linear("linear attention", "layers.*.self_attn.in_proj_qkvgfab", h * d, 1);
  acc.linear("linear attention", "layers.*.self_attn.f_b_proj", d * p, tp);
  acc.linear("linear attention", "layers.*.self_attn.g_a_proj", h * d, 1);
  acc.linear("linear attention", "layers.*.self_attn.g_b_proj", d * p, tp);
  acc.plain("linear attention", 3 * p * l.conv_kernel + heads + p, tp);
  acc.plain("linear attention", d, 1);
  acc.linear("linear attention", "layers.*.self_attn.o_proj", p * h, tp);
}

void add_recurrent_layer(Accumulator& acc, const ModelShape& s) {
  const LinearAttentionDims& l = *s.linear;
  switch (l.kind) {
    case RecurrentKind::kGatedDeltaNet:
      add_linear_attention_layer(acc, s);
      return;
    case RecurrentKind::kMamba2:
      add_mamba2_mixer(acc, s, l);
      return;
    case RecurrentKind::kMamba1:
      add_mamba1_mixer(acc, s, l);
      return;
    case RecurrentKind::kShortConv:
      add_short_conv_mixer(acc, s, l);
      return;
    case RecurrentKind::kKimiDelta:
      add_kimi_delta_layer(acc, s, l);
      return;
  }
}

void add_ffn_layer(Accumulator& acc, const ModelShape& s, int layer) {
  const double h = s.hidden_size, tp = acc.tp();
  const MoeDims* m = s.moe ? &*s.moe : nullptr;
  const bool listed = m != nullptr && static_cast<std::size_t>(layer) < m->sparse_layers.size();
  const bool moe_layer =
      m != nullptr && (listed ? m->sparse_layers[static_cast<std::size_t>(layer)]
                              : layer >= m->first_dense_layers &&
                                    (layer + 1) % std::max(1, m->moe_layer_step) == 0);
  if (!moe_layer || m->beside_mlp) {
    const double matrices = s.gated_mlp ? 3 : 2;
    const double width =
        s.intermediate_size * (s.kv_shared_double_mlp && s.kv_shared(layer) ? 2 : 1);
    acc.linear("dense MLP", "layers.*.mlp.down_proj", matrices * h * width, tp);
    if (!moe_layer)
      return;
  }
  // Experts are gated like the model's MLP (Nemotron-H's are relu² pairs).
  const double matrices = s.gated_mlp ? 3 : 2;
  acc.linear("experts", "layers.*.mlp.experts.*.down_proj",
             matrices * h * m->expert_intermediate * m->num_experts, tp);
  if (m->num_shared_experts > 0) {
    acc.linear("shared experts", "layers.*.mlp.shared_experts.down_proj",
               matrices * h * m->expert_intermediate * m->num_shared_experts, tp);
  }
  if (m->shared_expert_intermediate > 0) {
    acc.linear("shared experts", "layers.*.mlp.shared_expert.down_proj",
               matrices * h * m->shared_expert_intermediate, tp);
  }
  acc.plain("router", h * m->num_experts, 1);
}

// A Whisper-style audio tower and its projector (vLLM models/qwen2_audio.py and
// audioflamingo3.py build WhisperEncoder-shaped towers): conv1 (mel bins → d, kernel 3), conv2
// (d → d, kernel 3), a learned position table, per layer biased q/v/o (k biased only where the
// table says), a biased d → f → d MLP and two LayerNorms, then a final LayerNorm.
double audio_encoder_params(const AudioDims& a, double text_hidden) {
  const double d = a.hidden_size, f = a.intermediate_size;
  double n = a.num_mel_bins * d * 3 + d + d * d * 3 + d;
  n += static_cast<double>(a.max_source_positions) * d;
  const double layer = 4 * d * d + (a.key_bias ? 4 : 3) * d + 2 * d * f + f + d + 4 * d;
  n += a.num_layers * layer + 2 * d;
  if (a.projector == "linear")
    n += d * text_hidden + text_hidden;
  else if (a.projector == "mlp")
    n += d * text_hidden + text_hidden + text_hidden * text_hidden + text_hidden;
  return n;
}

}  // namespace

WeightEstimate estimate_weights(const ModelShape& s, const WeightLayout& layout) {
  Accumulator acc(s, layout.tp);
  const double h = s.hidden_size, tp = acc.tp();
  acc.plain("embeddings", static_cast<double>(s.vocab_size) * h, tp);
  if (s.position_table > 0)  // replicated (VocabParallelEmbedding only splits the vocabulary)
    acc.plain("embeddings", static_cast<double>(s.position_table) * h, 1);
  if (!s.tie_word_embeddings)
    acc.linear("lm_head", "lm_head", static_cast<double>(s.vocab_size) * h, tp);
  if (s.per_layer_input_size > 0) {
    // Gemma 4 PLE: a table of every layer's embedding and the model-level projection to it,
    // both sharded (VocabParallelEmbedding, ColumnParallelLinear).
    const double per_layer = static_cast<double>(s.num_layers) * s.per_layer_input_size;
    acc.plain("per-layer embeddings", s.per_layer_vocab * per_layer, tp);
    acc.plain("per-layer embeddings", h * per_layer, tp);
  }
  for (int i = 0; i < s.num_layers; ++i) {
    const LayerKind kind = s.layer_kinds[static_cast<std::size_t>(i)];
    if (kind == LayerKind::kLinearAttention) {
      add_recurrent_layer(acc, s);
    } else if (kind == LayerKind::kFullAttention && (s.full_head_dim > 0 || s.full_kv_heads > 0)) {
      // Full-attention layers with heads of their own (Gemma 4's global heads).
      ModelShape full = s;
      if (s.full_head_dim > 0)
        full.head_dim = full.v_head_dim = s.full_head_dim;
      if (s.full_kv_heads > 0)
        full.num_kv_heads = s.full_kv_heads;
      add_attention_layer(acc, full, s.kv_shared(i));
    } else if (kind != LayerKind::kNone) {
      add_attention_layer(acc, s, s.kv_shared(i));
    }
    if (s.parallel_recurrent)
      add_recurrent_layer(acc, s);  // Falcon-H1: the mixer beside the attention
    if (s.per_layer_input_size > 0) {
      // Gemma 4's per-layer input gate and projection, replicated on every rank.
      acc.plain("per-layer embeddings", 2.0 * h * s.per_layer_input_size, 1);
    }
    if (s.has_ffn(i))
      add_ffn_layer(acc, s, i);
    acc.plain("norms", 2 * h, 1);
  }
  if (s.vision.present && layout.include_vision) {
    if (const auto vision = vision_encoder_params(s.vision)) {
      acc.plain("vision encoder", vision->sharded, tp);
      acc.plain("vision encoder", vision->replicated, 1);
    } else {
      // A ViT block: qkv + proj (4h^2) and a two-matrix MLP; the encoder is TP-sharded.
      const double vh = s.vision.hidden_size.value_or(1024);
      const double vi = s.vision.intermediate_size > 0 ? s.vision.intermediate_size : 4 * vh;
      const double blocks = s.vision.depth > 0 ? s.vision.depth : 24;
      acc.plain("vision encoder", blocks * (4 * vh * vh + 2 * vh * vi), tp);
    }
  }
  if (s.audio.present && layout.include_vision)
    acc.plain("audio encoder", audio_encoder_params(s.audio, h), 1);
  WeightEstimate out = acc.take();
  if (s.mtp_layers > 0) {
    // Each MTP/NextN layer is one decoder layer plus a 2h x h projection.
    Accumulator draft(s, layout.tp);
    for (int i = 0; i < s.mtp_layers; ++i) {
      add_attention_layer(draft, s);
      add_ffn_layer(draft, s, s.num_layers - 1);
      draft.plain("mtp", 2 * h * h, tp);
    }
    out.draft_bytes_per_gpu = draft.take().bytes_per_gpu;
  }
  return out;
}

}  // namespace servescope
