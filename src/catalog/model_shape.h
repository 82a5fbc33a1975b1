// ModelShape: what servescope needs to know about a model, read from its config.json.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/quantization.h"

namespace servescope {

enum class LayerKind {
  kFullAttention,     // MHA/GQA with a KV cache over the whole context
  kSlidingAttention,  // KV cache over a window (gemma3, gpt-oss)
  kLinearAttention,   // Gated-DeltaNet / mamba-style recurrent state, no KV cache
  kMla,               // multi-head latent attention (DeepSeek V2/V3, Kimi K2)
  kNone,              // no mixer: an MLP or MoE block alone (Nemotron-H's "-" and "E" layers)
};

/// What a recurrent (kLinearAttention) layer keeps per request, by the engines' state-shape
/// calculators (vLLM mamba_utils.py::MambaStateShapeCalculator; SGLang's mirror of it).
enum class RecurrentKind {
  kGatedDeltaNet,  // Qwen3-Next, Qwen3.5: gated_delta_net_state_shape
  kMamba2,         // Nemotron-H, Granite-4.0-H, Falcon-H1, Zamba2, Mamba2: mamba2_state_shape
  kMamba1,         // Jamba, Mamba: mamba1_state_shape
  kShortConv,      // LFM2: short_conv_state_shape (a convolution state alone)
  kKimiDelta,      // Kimi-Linear's KDA: kda_state_shape (GDN's shapes with equal q/k/v heads)
};

struct MlaDims {
  int kv_lora_rank = 0;
  int q_lora_rank = 0;  // 0: no q compression (q_proj is full)
  int qk_rope_head_dim = 0;
  int qk_nope_head_dim = 0;
  int v_head_dim = 0;
  // DeepSeek V3.2's sparse attention (DSA) indexer, where config.json has index_topk: its own
  // fp8 key cache per layer beside the latent (vLLM models/deepseek_v2.py Indexer).
  int index_head_dim = 0;  // 0: no indexer
  int index_n_heads = 0;
  int index_topk = 0;
};

struct MoeDims {
  int num_experts = 0;
  int experts_per_token = 0;
  int expert_intermediate = 0;
  int num_shared_experts = 0;          // DeepSeek-style shared experts of expert size
  int shared_expert_intermediate = 0;  // Qwen-style single shared expert of its own size
  int first_dense_layers = 0;          // DeepSeek first_k_dense_replace
  int moe_layer_step = 1;              // every Nth layer is MoE (llama4 interleave)
  // config.json mlp_layer_types ("dense"/"sparse" per layer) where a config lists them; it wins
  // over first_dense_layers and moe_layer_step.
  std::vector<bool> sparse_layers;
  bool beside_mlp = false;  // experts run beside the dense MLP, not instead of it (Gemma 4)
};

/// Recurrent-state dims. Gated-DeltaNet (Qwen3-Next, Qwen3.5): the linear_* fields of
/// config.json; the Mamba and short-convolution kinds: the fields data/recurrent-state.tsv names
/// for the model type.
struct LinearAttentionDims {
  RecurrentKind kind = RecurrentKind::kGatedDeltaNet;
  // Mamba1/Mamba2/short conv (mamba_utils.py argument names).
  int intermediate_size = 0;
  int n_groups = 0;
  int num_heads = 0;
  int head_dim = 0;
  int state_size = 0;
  int dt_rank = 0;  // Mamba1's time-step rank (mamba_dt_rank / time_step_rank; "auto": h/16)
  int num_key_heads = 0;
  int num_value_heads = 0;
  int key_head_dim = 0;
  int value_head_dim = 0;
  int conv_kernel = 0;
  int full_attention_interval = 0;
  std::string ssm_dtype;  // config.json mamba_ssm_dtype, "" if absent
};

struct VisionDims {
  bool present = false;
  std::string model_type;                // the model's (top-level) model_type: whose encoder
  std::optional<int> num_hidden_layers;  // absent in Qwen3.5's vision_config (it says depth)
  int depth = 0;
  std::optional<int> hidden_size;
  int intermediate_size = 0;
  // The fields the exactly modelled encoders read (catalog/vision_encoder.cc); 0 when absent.
  int embed_dim = 0;  // Qwen2-VL's block width (its hidden_size is the merger's output)
  int mlp_ratio = 0;  // Qwen2-VL
  int out_hidden_size = 0;
  int patch_size = 0;
  int temporal_patch_size = 0;
  int in_channels = 0;
  int spatial_merge_size = 0;
  int num_position_embeddings = 0;
  int deepstack_layers = 0;  // len(deepstack_visual_indexes)
  int image_size = 0;        // GLM-4V: its position embeddings cover (image/patch)^2 patches
};

/// A Whisper-style audio encoder (audio_config of Qwen2-Audio, AudioFlamingo3, GLM-ASR): two
/// 1-D convolutions over mel bins, a stack of pre-norm transformer layers, a final norm.
struct AudioDims {
  bool present = false;
  int hidden_size = 0;        // d_model | hidden_size
  int num_layers = 0;         // encoder_layers | num_hidden_layers
  int intermediate_size = 0;  // encoder_ffn_dim | intermediate_size
  int num_mel_bins = 0;
  int max_source_positions = 0;  // a learned position table's rows; 0: rotary (GLM-ASR)
  bool key_bias = false;         // the key projection has a bias (GLM-ASR; Whisper's has none)
  std::string projector;         // "linear", "mlp" or "none" (data/audio-encoders.tsv)
};

struct ModelShape {
  std::string source;        // where the config came from (catalog id or path)
  std::string origin;        // how it was found, for the output ("Hugging Face cache …")
  std::string architecture;  // architectures[0]
  std::string model_type;    // top-level model_type
  std::string text_prefix;   // "text_config." when the text model is nested
  bool multimodal = false;
  // The data/model-layouts.tsv row's traits that engines read themselves (the reader turns the
  // others into fields): "vllm-caches-heads".
  std::vector<std::string> traits;

  int num_layers = 0;
  int hidden_size = 0;
  int num_attention_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;
  int v_head_dim = 0;
  int intermediate_size = 0;        // dense MLP
  bool gated_mlp = true;            // gate+up+down (SwiGLU/GeGLU); false: fc1+fc2 (phi)
  std::int64_t position_table = 0;  // rows of a learned absolute position table (GPT-2, OPT)
  int vocab_size = 0;
  bool tie_word_embeddings = false;
  bool attention_bias = false;
  // Step-3's low-rank query (vLLM models/step3_text.py): one replicated projection to share_q_dim
  // beside K and V, a norm, then wq to every head; 0 for the usual q_proj.
  int shared_q_dim = 0;
  bool attention_output_gate = false;   // Qwen3-Next/3.5 q_proj doubles for the gate
  std::int64_t context_length = 0;      // SGLang get_context_length semantics
  std::string context_length_field;     // which field it came from
  bool context_length_assumed = false;  // no key declares it: the engines' fallback 2048
  int sliding_window = 0;
  // The config's window when it applies to every attention layer: sliding_window set and no
  // layer_types listing which layers slide (Mistral v0.1, Phi-3/4). vLLM then windows every layer
  // through CacheConfig.sliding_window; transformers' Qwen configs null it unless
  // use_sliding_window. 0: none.
  int model_sliding_window = 0;

  std::vector<LayerKind> layer_kinds;
  std::optional<MlaDims> mla;
  std::optional<MoeDims> moe;
  std::optional<LinearAttentionDims> linear;
  // Full-attention layers whose heads differ from the sliding ones (Gemma 4's global_head_dim,
  // num_global_key_value_heads): 0 when they are the same.
  int full_head_dim = 0;
  int full_kv_heads = 0;
  // The last kv_shared_layers layers read the KV cache of an earlier layer of their kind and keep
  // none (Gemma 4 num_kv_shared_layers); their MLP is twice as wide with use_double_wide_mlp.
  int kv_shared_layers = 0;
  bool kv_shared_double_mlp = false;
  // Per-layer embeddings (Gemma 4 PLE): hidden_size_per_layer_input, vocab_size_per_layer_input.
  int per_layer_input_size = 0;
  int per_layer_vocab = 0;
  // Layers with an MLP or MoE block; empty: every layer has one. Nemotron-H's layers are one
  // block each: a mixer (mamba, attention) or an MLP/MoE, never both.
  std::vector<bool> ffn_layers;
  // Every layer runs attention and a recurrent mixer side by side (Falcon-H1): layer_kinds say
  // full attention, and each layer keeps a recurrent state as well.
  bool parallel_recurrent = false;
  VisionDims vision;
  AudioDims audio;
  int mtp_layers = 0;  // num_nextn_predict_layers / mtp_num_hidden_layers

  std::string dtype = "bfloat16";  // torch_dtype / dtype
  Quantization quant;

  int count_layers(LayerKind kind) const;
  /// Layers that keep a recurrent state (every layer of a parallel hybrid).
  int recurrent_layers() const {
    return parallel_recurrent ? num_layers : count_layers(LayerKind::kLinearAttention);
  }
  bool kv_shared(int layer) const { return layer >= num_layers - kv_shared_layers; }
  bool has_ffn(int layer) const {
    return ffn_layers.empty() || ffn_layers[static_cast<std::size_t>(layer)];
  }
  bool is_hybrid_linear() const { return linear.has_value(); }
  // Every layer keeps a recurrent state and none attends (Mamba, Mamba2): the engines call it
  // attention-free (vLLM ModelConfig.is_attention_free).
  bool attention_free() const {
    return linear.has_value() &&
           std::none_of(layer_kinds.begin(), layer_kinds.end(), [](LayerKind k) {
             return k == LayerKind::kFullAttention || k == LayerKind::kSlidingAttention ||
                    k == LayerKind::kMla;
           });
  }
  bool uses_mla() const { return mla.has_value(); }
  bool has_trait(std::string_view trait) const {
    return std::find(traits.begin(), traits.end(), trait) != traits.end();
  }
  // DeepSeek Sparse Attention: MLA whose layers carry an indexer (V3.2, GLM-5).
  bool uses_sparse_mla() const { return mla.has_value() && mla->index_head_dim > 0; }
  bool has_sliding_window() const { return count_layers(LayerKind::kSlidingAttention) > 0; }
  /// Full-attention layer ids (for SGLang's mambaish full_attention_layer_ids).
  std::vector<int> full_attention_layer_ids() const;
  /// A one-line description: "qwen3_5_moe: 48 layers (12 full + 36 linear), MoE 256x8, fp8".
  std::string summary() const;
};

/// Bytes per element of a torch dtype name ("bfloat16", "float32", "fp8_e4m3", ...); 0 if unknown.
double dtype_bytes(std::string_view dtype);

}  // namespace servescope
