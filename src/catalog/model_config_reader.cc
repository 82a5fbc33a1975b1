#include "catalog/model_config_reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "catalog/dflash_layers.h"
#include "catalog/kimi_delta_layout.h"
#include "catalog/model_layouts.h"
#include "catalog/per_layer_features.h"
#include "catalog/recurrent_layout.h"
#include "core/text.h"

namespace servescope {
namespace {

using nlohmann::json;

using Family = LayoutFamily;

// Context-length keys in SGLang's order of preference
// (utils/hf_transformers/common.py::CONTEXT_LENGTH_KEYS).
constexpr std::string_view kContextLengthKeys[] = {"max_sequence_length", "seq_length",
                                                   "max_seq_len", "model_max_length",
                                                   "max_position_embeddings"};

// Architectures with a vision or audio encoder (the multimodal architectures SGLang lists in
// configs/model_config.py::multimodal_model_archs, main 2026-07-20).
constexpr std::string_view kMultimodalArchitectures[] = {"CLIPModel",
                                                         "Cohere2VisionForConditionalGeneration",
                                                         "DeepseekVL2ForCausalLM",
                                                         "Ernie4_5_VLMoeForConditionalGeneration",
                                                         "MiniMaxM3SparseForConditionalGeneration",
                                                         "Gemma3ForConditionalGeneration",
                                                         "Gemma3nForConditionalGeneration",
                                                         "Gemma4ForConditionalGeneration",
                                                         "Gemma4UnifiedForConditionalGeneration",
                                                         "Glm4vForConditionalGeneration",
                                                         "Glm4vMoeForConditionalGeneration",
                                                         "GlmOcrForConditionalGeneration",
                                                         "GlmAsrForConditionalGeneration",
                                                         "GlmImageForConditionalGeneration",
                                                         "Grok1VForCausalLM",
                                                         "Grok1AForCausalLM",
                                                         "LlavaLlamaForCausalLM",
                                                         "Llama4ForConditionalGeneration",
                                                         "LlavaMistralForCausalLM",
                                                         "LlavaQwenForCausalLM",
                                                         "LlavaForConditionalGeneration",
                                                         "LlavaVidForCausalLM",
                                                         "Lfm2VlForConditionalGeneration",
                                                         "LightOnOCRForConditionalGeneration",
                                                         "MiMoV2ASRForCausalLM",
                                                         "MiniCPMO",
                                                         "MiniCPMV",
                                                         "Mistral3ForConditionalGeneration",
                                                         "MultiModalityCausalLM",
                                                         "MllamaForConditionalGeneration",
                                                         "MossVLForConditionalGeneration",
                                                         "NemotronH_Nano_VL_V2",
                                                         "NemotronH_Nano_Omni_Reasoning_V3",
                                                         "PixtralForConditionalGeneration",
                                                         "Qwen2AudioForConditionalGeneration",
                                                         "Qwen2VLForConditionalGeneration",
                                                         "Qwen2_5_VLForConditionalGeneration",
                                                         "Qwen3VLForConditionalGeneration",
                                                         "Qwen3VLMoeForConditionalGeneration",
                                                         "Qwen3_5ForConditionalGeneration",
                                                         "Qwen3_5MoeForConditionalGeneration",
                                                         "InternS2PreviewForConditionalGeneration",
                                                         "Qwen3ASRForConditionalGeneration",
                                                         "Qwen3OmniMoeForConditionalGeneration",
                                                         "KimiVLForConditionalGeneration",
                                                         "LocateAnythingForConditionalGeneration",
                                                         "InternVLChatModel",
                                                         "InternS1ForConditionalGeneration",
                                                         "InternS1ProForConditionalGeneration",
                                                         "Phi4MMForCausalLM",
                                                         "VoxtralForConditionalGeneration",
                                                         "WhisperForConditionalGeneration",
                                                         "Step3VLForConditionalGeneration",
                                                         "POINTSV15ChatModel",
                                                         "DotsVLMForCausalLM",
                                                         "DotsOCRForCausalLM",
                                                         "Sarashina2VisionForCausalLM",
                                                         "NVILAForConditionalGeneration",
                                                         "NVILALiteForConditionalGeneration",
                                                         "DeepseekOCRForCausalLM",
                                                         "UnlimitedOCRForCausalLM",
                                                         "JetVLMForConditionalGeneration",
                                                         "PaddleOCRVLForConditionalGeneration",
                                                         "MiDashengLMModel",
                                                         "StepVLForConditionalGeneration",
                                                         "Step3p7ForConditionalGeneration",
                                                         "KimiK25ForConditionalGeneration"};

class ConfigReader {
 public:
  ConfigReader(const json& root, std::string_view source) : root_(root), source_(source) {}

  Result<ModelShape> read();

 private:
  // Reads an integer field of the text config; records an error when required and absent.
  std::optional<int> get_int(const json& obj, std::string_view key, bool required);
  std::string field(std::string_view key) const { return shape_.text_prefix + std::string(key); }
  Error error(std::string message) const { return fail(fmt::format("{}: {}", source_, message)); }

  Status read_attention(const json& text);
  void read_trait_shapes(const json& text);
  Status read_layers(const json& text, Family family);
  Status read_moe(const json& text, Family family);
  void read_model_sliding_window(const json& text);
  Status read_quantization();
  void read_lfm2_feed_forward(const json& text);
  Status read_context_length(const json& text);
  void read_vision();
  void read_audio();

  const json& root_;
  std::string source_;
  ModelShape shape_;
  std::string missing_;
  std::vector<bool> pattern_moe_blocks_;  // Nemotron-H's "E" layers (recurrent_layout.cc)
  const LayoutRow* row_ = nullptr;        // the config's data/model-layouts.tsv row
};

std::optional<int> ConfigReader::get_int(const json& obj, std::string_view key, bool required) {
  auto set = [](const json& o, std::string_view k) -> const json* {
    auto it = o.find(k);
    return it == o.end() || it->is_null() ? nullptr : &*it;
  };
  const json* value = set(obj, key);
  // The model_type's own spelling of a standard key (GPT-2's n_embd: data/config-key-aliases.tsv).
  if (value == nullptr) {
    if (const std::string_view alias = config_key_alias(shape_.model_type, key); !alias.empty()) {
      if ((value = set(obj, alias)) != nullptr)
        key = alias;
    }
  }
  // DBRX keeps its attention and FFN keys in sub-configs (vLLM models/dbrx.py reads
  // config.attn_config.kv_n_heads, config.ffn_config.moe_num_experts): read as its own.
  std::string nested;
  for (const char* sub : {"attn_config", "ffn_config"}) {
    const json* part = value == nullptr ? set(obj, sub) : nullptr;
    if (part != nullptr && part->is_object() && (value = set(*part, key)) != nullptr) {
      nested = std::string(sub) + "." + std::string(key);
      key = nested;
    }
  }
  if (value == nullptr) {
    if (required && missing_.empty())
      missing_ = field(key);
    return std::nullopt;
  }
  if (!value->is_number_integer()) {
    if (missing_.empty())
      missing_ = field(key) + " (not an integer)";
    return std::nullopt;
  }
  return value->get<int>();
}

Result<ModelShape> ConfigReader::read() {
  if (!root_.is_object())
    return error("config.json is not a JSON object");
  auto archs = root_.find("architectures");
  if (archs != root_.end() && archs->is_array() && !archs->empty() && archs->front().is_string()) {
    shape_.architecture = archs->front().get<std::string>();
  }
  auto mt = root_.find("model_type");
  if (mt == root_.end() || !mt->is_string()) {
    return error("field 'model_type' is missing; is this a Hugging Face config.json?");
  }
  shape_.model_type = mt->get<std::string>();
  const LayoutRow* row = layout_row(shape_.architecture, shape_.model_type);
  if (row == nullptr)
    return error(not_modelled_reason(shape_.architecture, shape_.model_type));
  row_ = row;
  const Family family = row->family;
  if (!row->reads_as.empty())
    shape_.model_type = row->reads_as;
  shape_.multimodal =
      std::find(std::begin(kMultimodalArchitectures), std::end(kMultimodalArchitectures),
                shape_.architecture) != std::end(kMultimodalArchitectures);

  const json* text = &root_;
  auto tc = root_.find("text_config");
  if (tc != root_.end() && tc->is_object()) {
    text = &*tc;
    shape_.text_prefix = "text_config.";
  }
  if (auto it = text->find("torch_dtype"); it != text->end() && it->is_string()) {
    shape_.dtype = it->get<std::string>();
  } else if (auto it2 = text->find("dtype"); it2 != text->end() && it2->is_string()) {
    shape_.dtype = it2->get<std::string>();
  } else if (auto it3 = root_.find("torch_dtype"); it3 != root_.end() && it3->is_string()) {
    shape_.dtype = it3->get<std::string>();
  }

  Status st = read_attention(*text);
  if (!st)
    return st.error();
  st = read_layers(*text, family);
  if (!st)
    return st.error();
  if (is_dflash_drafter(root_, shape_)) {
    st = read_dflash_layers(root_, shape_);  // a drafter config has no text_config
    if (!st)
      return error(st.message());
  }
  st = read_per_layer_features(*text, shape_.text_prefix, shape_);
  if (!st)
    return error(st.message());
  st = read_moe(*text, family);
  if (!st)
    return st.error();
  st = read_quantization();
  if (!st)
    return st.error();
  st = read_context_length(*text);
  if (!st)
    return st.error();
  read_vision();
  read_audio();
  if (!missing_.empty())
    return error(fmt::format("field '{}' is missing or invalid", missing_));
  return shape_;
}

// The shapes data/model-layouts.tsv's traits column names for a family's older members.
void ConfigReader::read_trait_shapes(const json& text) {
  // OPT's ffn_dim; GPT-2 and GPT-J leave n_inner null for 4 × hidden.
  if (shape_.intermediate_size == 0) {
    if (auto ffn = get_int(text, "ffn_dim", false))
      shape_.intermediate_size = *ffn;
    else if (row_->has("ffn-4x"))
      shape_.intermediate_size = 4 * shape_.hidden_size;
  }
  // GPT-2's n_positions rows; OPT's keeps 2 more (OPTLearnedPositionalEmbedding: positions+2).
  if (row_->has("learned-positions")) {
    if (auto p = get_int(text, "max_position_embeddings", false))
      shape_.position_table = *p + (row_->has("positions+2") ? 2 : 0);
  }
  // Falcon's multi_query (before new_decoder_architecture): one KV head for every query head
  // (vLLM models/falcon.py FalconAttention).
  if (row_->has("multi-query") && text.value("multi_query", false) &&
      !text.value("new_decoder_architecture", false))
    shape_.num_kv_heads = 1;
  shape_.traits = row_->traits;
  if (row_->has("shared-q"))
    shape_.shared_q_dim = get_int(text, "share_q_dim", true).value_or(0);
}

Status ConfigReader::read_attention(const json& text) {
  // transformers derives Nemotron-H's num_hidden_layers from its layer pattern.
  const auto from_pattern = recurrent_layer_count(shape_.model_type, text);
  shape_.num_layers = get_int(text, "num_hidden_layers", !from_pattern.has_value())
                          .value_or(from_pattern.value_or(0));
  shape_.hidden_size = get_int(text, "hidden_size", true).value_or(0);
  // A Mamba model has no attention and no heads (data/recurrent-state.tsv "=mamba").
  const bool attention_free = recurrent_attention_free(shape_.model_type);
  shape_.num_attention_heads = get_int(text, "num_attention_heads", !attention_free).value_or(0);
  shape_.vocab_size = get_int(text, "vocab_size", true).value_or(0);
  if (!missing_.empty())
    return error(fmt::format("field '{}' is missing or invalid", missing_));
  if (shape_.num_layers <= 0 || shape_.hidden_size <= 0 ||
      (shape_.num_attention_heads <= 0 && !attention_free)) {
    return error(fmt::format("{}, {} and {} must be positive", field("num_hidden_layers"),
                             field("hidden_size"), field("num_attention_heads")));
  }
  // SGLang ModelConfig.get_total_num_kv_heads: the first of these that is set.
  shape_.num_kv_heads = shape_.num_attention_heads;
  // Step's models say num_attention_groups (vLLM models/step1.py, step3_text.py), DBRX
  // attn_config.kv_n_heads.
  for (std::string_view key :
       {"n_head_kv", "num_kv_heads", "num_key_value_heads", "num_attention_groups", "kv_n_heads"}) {
    if (auto v = get_int(text, key, false)) {
      shape_.num_kv_heads = *v;
      break;
    }
  }
  // ChatGLM's groups count only with multi_query_attention (vLLM models/chatglm.py
  // GLMAttention: multi_query_group_num if multi_query_attention else the heads).
  if (text.contains("multi_query_group_num") && !text.value("multi_query_attention", true))
    shape_.num_kv_heads = shape_.num_attention_heads;
  // ModelConfig._derive_model_shapes: head_dim defaults to hidden // heads, v_head_dim to it.
  shape_.head_dim = attention_free ? 0
                                   : get_int(text, "head_dim", false)
                                         .value_or(shape_.hidden_size / shape_.num_attention_heads);
  shape_.v_head_dim = shape_.head_dim;
  // Megatron-style spellings (ChatGLM): ffn_hidden_size, and the padded vocabulary the
  // embeddings are built with (vLLM models/chatglm.py reads padded_vocab_size).
  shape_.intermediate_size = get_int(text, "intermediate_size", false)
                                 .value_or(get_int(text, "ffn_hidden_size", false).value_or(0));
  if (auto padded = get_int(text, "padded_vocab_size", false))
    shape_.vocab_size = *padded;
  read_trait_shapes(text);
  // Class defaults when config.json omits the key: whether the config class ties the LM head to
  // the embeddings (data/config-defaults.tsv: the Gemma configs, GPT-2, OPT do); Qwen2 and
  // Qwen2-MoE put a bias on q/k/v, Phi on q/k/v/dense.
  const bool tied_by_default =
      ties_embeddings_by_default(text.value("model_type", shape_.model_type)) ||
      ties_embeddings_by_default(shape_.model_type);
  // A composite (multimodal) config's own tie_word_embeddings governs its language model: vLLM
  // 0.34.0 builds Mistral3ForConditionalGeneration tied (top level true) although its text_config
  // says false (tests/oracle/layouts/vllm-0.34.0.jsonl).
  shape_.tie_word_embeddings =
      root_.value("tie_word_embeddings", text.value("tie_word_embeddings", tied_by_default));
  // Qwen2-VL and Qwen2.5-VL's language models are Qwen2's, biases included.
  // ChatGLM says add_qkv_bias (vLLM: bias = add_bias_linear or add_qkv_bias on qkv).
  shape_.attention_bias = text.value(
      "attention_bias", text.value("add_qkv_bias", false) || shape_.model_type == "qwen2" ||
                            shape_.model_type == "qwen2_moe" || shape_.model_type == "qwen2_vl" ||
                            shape_.model_type == "qwen2_5_vl" || shape_.model_type == "phi");
  // PhiForCausalLM's MLP is fc1 -> gelu -> fc2, not a gated pair (modeling_phi.py::PhiMLP).
  // Apertus: up -> xIELU -> down (vLLM models/apertus.py ApertusMLP); Nemotron: up -> relu² ->
  // down (models/nemotron.py NemotronMLP).
  // Nemotron-H: relu² MLPs and experts (models/nemotron_h.py NemotronHMLP).
  shape_.gated_mlp = !row_->has("plain-mlp");
  // Qwen3-Next and Qwen3.5 gate attention's output through a doubled q_proj whether or not the
  // config says so (vLLM 0.34.0 builds a default Qwen3_5TextConfig gated: layouts oracle).
  const bool gated_family =
      shape_.model_type == "qwen3_next" || shape_.model_type.rfind("qwen3_5", 0) == 0;
  // A family whose attention always has an output gate says so in its traits (gated-attention:
  // AFMoE's gate_proj, vLLM models/afmoe.py).
  shape_.attention_output_gate =
      text.value("attn_output_gate", gated_family || row_->has("gated-attention"));
  if (auto sw = get_int(text, "sliding_window", false))
    shape_.sliding_window = *sw;
  // A Cohere 2 sliding layer sees [pos - sliding_window, pos]: a window of sliding_window + 1
  // tokens (vLLM models/commandr.py CohereAttention, "to match the training convention"; the
  // layouts oracle's 4097). SGLang's Cohere 2 layout is not checked yet (model-layouts.tsv).
  if (shape_.sliding_window > 0 && shape_.model_type.rfind("cohere2", 0) == 0)
    shape_.sliding_window += 1;
  for (std::string_view key : {"num_nextn_predict_layers", "mtp_num_hidden_layers"}) {
    if (auto v = get_int(text, key, false))
      shape_.mtp_layers = std::max(shape_.mtp_layers, *v);
  }
  if (text.contains("kv_lora_rank") && !text["kv_lora_rank"].is_null()) {
    MlaDims m;
    m.kv_lora_rank = get_int(text, "kv_lora_rank", true).value_or(0);
    m.q_lora_rank = get_int(text, "q_lora_rank", false).value_or(0);
    m.qk_rope_head_dim = get_int(text, "qk_rope_head_dim", true).value_or(0);
    m.qk_nope_head_dim = get_int(text, "qk_nope_head_dim", true).value_or(0);
    m.v_head_dim = get_int(text, "v_head_dim", true).value_or(0);
    // vLLM builds the indexer when the config has index_topk (deepseek_v2.py: is_v32).
    if (auto topk = get_int(text, "index_topk", false)) {
      m.index_topk = *topk;
      m.index_head_dim = get_int(text, "index_head_dim", true).value_or(0);
      m.index_n_heads = get_int(text, "index_n_heads", true).value_or(0);
    }
    shape_.mla = m;
  }
  return ok_status();
}

Status ConfigReader::read_layers(const json& text, Family family) {
  const int n = shape_.num_layers;
  shape_.layer_kinds.assign(static_cast<std::size_t>(n), LayerKind::kFullAttention);
  switch (family) {
    case Family::kMla:
      if (!shape_.mla)
        return error(
            fmt::format("field '{}' is missing (an MLA model needs it)", field("kv_lora_rank")));
      shape_.layer_kinds.assign(static_cast<std::size_t>(n), LayerKind::kMla);
      shape_.v_head_dim = shape_.mla->v_head_dim;
      break;
    case Family::kHybridLinear: {
      if (auto kda = text.find("linear_attn_config"); kda != text.end() && kda->is_object()) {
        if (Status st = read_kimi_delta_layout(text, *kda, shape_.text_prefix, shape_); !st)
          return error(st.message());
        break;
      }
      LinearAttentionDims l;
      l.num_key_heads = get_int(text, "linear_num_key_heads", true).value_or(0);
      l.num_value_heads = get_int(text, "linear_num_value_heads", true).value_or(0);
      l.key_head_dim = get_int(text, "linear_key_head_dim", true).value_or(0);
      l.value_head_dim = get_int(text, "linear_value_head_dim", true).value_or(0);
      l.conv_kernel = get_int(text, "linear_conv_kernel_dim", true).value_or(0);
      // transformers 5 saves the list (layer_types) instead of the interval.
      const auto types = text.find("layer_types");
      const bool listed = types != text.end() && types->is_array() &&
                          static_cast<int>(types->size()) == n &&
                          text.find("full_attention_interval") == text.end();
      l.full_attention_interval =
          listed ? 0 : get_int(text, "full_attention_interval", true).value_or(0);
      if (auto it = text.find("mamba_ssm_dtype"); it != text.end() && it->is_string()) {
        l.ssm_dtype = it->get<std::string>();
      }
      if (!missing_.empty())
        return error(fmt::format("field '{}' is missing or invalid", missing_));
      if (listed) {
        for (int i = 0; i < n; ++i) {
          const json& t = (*types)[static_cast<std::size_t>(i)];
          if (!t.is_string() || (t.get<std::string>() != "linear_attention" &&
                                 t.get<std::string>() != "full_attention"))
            return error(fmt::format("{}[{}] is neither linear_attention nor full_attention",
                                     field("layer_types"), i));
          if (t.get<std::string>() == "linear_attention")
            shape_.layer_kinds[static_cast<std::size_t>(i)] = LayerKind::kLinearAttention;
        }
      } else if (l.full_attention_interval <= 0) {
        return error(fmt::format("{} must be positive", field("full_attention_interval")));
      }
      // Qwen3NextConfig.layers_block_type: layer i is linear unless (i+1) % interval == 0;
      // SGLang uses this rule, not the HF layer_types list.
      for (int i = 0; !listed && i < n; ++i) {
        if ((i + 1) % l.full_attention_interval != 0) {
          shape_.layer_kinds[static_cast<std::size_t>(i)] = LayerKind::kLinearAttention;
        }
      }
      shape_.linear = l;
      break;
    }
    case Family::kMambaHybrid: {
      Status st = read_recurrent_layout(text, shape_.text_prefix, shape_, pattern_moe_blocks_);
      if (!st)
        return error(st.message());
      if (shape_.model_type == "lfm2")
        read_lfm2_feed_forward(text);
      // Granite-4.0-H without experts has the shared MLP alone (models/granitemoehybrid.py).
      if (shape_.model_type == "granitemoehybrid" &&
          get_int(text, "num_local_experts", false).value_or(0) == 0)
        shape_.intermediate_size =
            get_int(text, "shared_intermediate_size", false).value_or(shape_.intermediate_size);
      break;
    }
    case Family::kSlidingWindow: {
      auto lt = text.find("layer_types");
      if (lt != text.end() && lt->is_array()) {
        if (static_cast<int>(lt->size()) != n) {
          return error(
              fmt::format("{} has {} entries for {} layers", field("layer_types"), lt->size(), n));
        }
        for (int i = 0; i < n; ++i) {
          const json& t = (*lt)[static_cast<std::size_t>(i)];
          if (t.is_string() && t.get<std::string>() == "sliding_attention") {
            shape_.layer_kinds[static_cast<std::size_t>(i)] = LayerKind::kSlidingAttention;
          }
        }
      } else if (auto pattern = get_int(text, "sliding_window_pattern", false)) {
        // gemma3: every `pattern`-th layer is global, the rest slide.
        if (*pattern <= 0)
          return error(fmt::format("{} must be positive", field("sliding_window_pattern")));
        for (int i = 0; i < n; ++i) {
          if ((i + 1) % *pattern != 0) {
            shape_.layer_kinds[static_cast<std::size_t>(i)] = LayerKind::kSlidingAttention;
          }
        }
      } else if (shape_.model_type == "gemma2") {
        // Gemma 2 configs predate layer_types: even layers slide, odd layers are global
        // (transformers Gemma2Config.layer_types default; vLLM models/gemma2.py slides on even
        // layer indices).
        for (int i = 0; i < n; i += 2)
          shape_.layer_kinds[static_cast<std::size_t>(i)] = LayerKind::kSlidingAttention;
      } else {
        return error(fmt::format("field '{}' is missing (needed to tell sliding from full layers)",
                                 field("layer_types")));
      }
      if (shape_.sliding_window <= 0) {
        return error(fmt::format("field '{}' is missing or not positive", field("sliding_window")));
      }
      break;
    }
    case Family::kMoe:
      if (shape_.model_type == "llama4") {
        // Llama 4 interleaves chunked local attention: every 4th layer is global
        // (SGLang model_config.py::get_hybrid_layer_ids), the window is attention_chunk_size.
        if (auto chunk = get_int(text, "attention_chunk_size", false)) {
          shape_.sliding_window = *chunk;
          for (int i = 0; i < n; ++i) {
            if ((i + 1) % 4 != 0)
              shape_.layer_kinds[static_cast<std::size_t>(i)] = LayerKind::kSlidingAttention;
          }
        }
      }
      break;
    case Family::kDense:
      break;
  }
  if (family == Family::kDense || family == Family::kMoe)
    read_model_sliding_window(text);
  return ok_status();
}

// vLLM engine/arg_utils.py::create_engine_config: CacheConfig.sliding_window is the text config's
// sliding_window when layer_types is absent (or all sliding); every Attention layer without a
// per-layer window takes it (model_executor/layers/attention/attention.py::Attention.__init__).
// transformers' Qwen2/Qwen3 configs set sliding_window to None unless use_sliding_window (their
// default False), so the key alone does not window them.
void ConfigReader::read_model_sliding_window(const json& text) {
  if (shape_.sliding_window <= 0 || text.contains("layer_types") ||
      shape_.count_layers(LayerKind::kSlidingAttention) > 0)
    return;
  const bool qwen = shape_.model_type.rfind("qwen", 0) == 0;
  if (!text.value("use_sliding_window", !qwen))
    return;
  shape_.model_sliding_window = shape_.sliding_window;
}

Status ConfigReader::read_moe(const json& text, Family family) {
  MoeDims m;
  for (std::string_view key :
       {"num_experts", "n_routed_experts", "num_local_experts", "moe_num_experts"}) {
    if (auto v = get_int(text, key, false)) {
      m.num_experts = *v;
      break;
    }
  }
  // A model of one block per layer routes to experts in its MoE blocks alone (Nemotron-H's "E").
  if (!shape_.ffn_layers.empty()) {
    if (std::find(pattern_moe_blocks_.begin(), pattern_moe_blocks_.end(), true) ==
        pattern_moe_blocks_.end())
      return ok_status();
    m.sparse_layers = pattern_moe_blocks_;
  }
  // Families whose every config routes to experts; a sliding-window or hybrid one does when its
  // config counts experts (gpt-oss, Qwen3-Next, Qwen3.5 MoE, Cohere 2 MoE).
  const bool moe_family = family == Family::kMoe || family == Family::kMla ||
                          shape_.model_type == "qwen3_next" || shape_.model_type == "qwen3_5_moe" ||
                          shape_.model_type == "gpt_oss" || m.num_experts > 0;
  if (!moe_family)
    return ok_status();
  if (m.num_experts == 0) {
    if (family == Family::kMla)
      return ok_status();  // DeepSeek-V2 dense variants
    return error(fmt::format("field '{}' is missing (an MoE model needs its expert count)",
                             field("num_experts")));
  }
  // ERNIE 4.5 spells them moe_k, moe_num_shared_experts, moe_layer_start_index/interval.
  // Gemma 4 spells it top_k_experts, and runs its experts beside the dense MLP; Kimi-Linear
  // num_experts_per_token.
  for (std::string_view key : {"num_experts_per_tok", "experts_per_token", "num_experts_per_token",
                               "moe_k", "top_k_experts", "moe_top_k"}) {
    if (auto v = get_int(text, key, false)) {
      m.experts_per_token = *v;
      break;
    }
  }
  m.beside_mlp = shape_.model_type.rfind("gemma4", 0) == 0;
  m.expert_intermediate =
      get_int(text, "moe_intermediate_size", false).value_or(shape_.intermediate_size);
  for (std::string_view key :
       {"n_shared_experts", "moe_num_shared_experts", "num_shared_experts"}) {
    if (auto v = get_int(text, key, false)) {
      m.num_shared_experts = *v;
      break;
    }
  }
  if (auto types = text.find("mlp_layer_types"); types != text.end() && types->is_array()) {
    for (const json& t : *types)
      m.sparse_layers.push_back(t.is_string() && t.get<std::string>() == "sparse");
  }
  // Granite-4.0-H spells it shared_intermediate_size; Nemotron-H sizes its shared experts as
  // one MLP of moe_shared_expert_intermediate_size × n_shared_experts (models/nemotron_h.py).
  // Step-3: share_expert_dim, and its MoE layers as a comma-separated moe_layers_enum.
  m.shared_expert_intermediate =
      get_int(text, "shared_expert_intermediate_size", false)
          .value_or(get_int(text, "shared_intermediate_size", false)
                        .value_or(get_int(text, "share_expert_dim", false).value_or(0)));
  if (auto listed = text.find("moe_layers_enum"); listed != text.end() && listed->is_string()) {
    m.sparse_layers.assign(static_cast<std::size_t>(shape_.num_layers), false);
    const std::string layers = listed->get<std::string>();
    for (std::string_view item : split(layers, ',')) {
      const auto index = parse_int(trim(item));
      if (!index || *index < 0 || *index >= shape_.num_layers)
        return error(fmt::format("{} lists '{}', not a layer from 0 to {}",
                                 field("moe_layers_enum"), item, shape_.num_layers - 1));
      m.sparse_layers[static_cast<std::size_t>(*index)] = true;
    }
  }
  if (auto nemotron = get_int(text, "moe_shared_expert_intermediate_size", false)) {
    m.shared_expert_intermediate = *nemotron * m.num_shared_experts;
    m.num_shared_experts = 0;
  }
  // Jamba: experts in layers i with i % expert_layer_period == expert_layer_offset.
  if (auto period = get_int(text, "expert_layer_period", false); period && *period > 0) {
    const int offset = get_int(text, "expert_layer_offset", false).value_or(0);
    m.sparse_layers.assign(static_cast<std::size_t>(shape_.num_layers), false);
    for (int i = 0; i < shape_.num_layers; ++i)
      m.sparse_layers[static_cast<std::size_t>(i)] = i % *period == offset;
  }
  // DeepSeek's first_k_dense_replace; ERNIE's moe_layer_start_index; AFMoE's and LFM2-MoE's
  // num_dense_layers (vLLM models/afmoe.py: moe_enabled = layer_idx >= num_dense_layers).
  m.first_dense_layers =
      get_int(text, "first_k_dense_replace", false)
          .value_or(get_int(text, "moe_layer_start_index", false)
                        .value_or(get_int(text, "num_dense_layers", false).value_or(0)));
  m.moe_layer_step =
      get_int(text, "interleave_moe_layer_step", false)
          .value_or(get_int(text, "decoder_sparse_step", false)
                        .value_or(get_int(text, "moe_layer_interval", false).value_or(1)));
  if (shape_.model_type == "llama4") {
    // Llama 4: intermediate_size is the expert (and shared expert) width;
    // intermediate_size_mlp is the dense layers' width.
    m.shared_expert_intermediate = shape_.intermediate_size;
    shape_.intermediate_size =
        get_int(text, "intermediate_size_mlp", false).value_or(shape_.intermediate_size);
  }
  if (m.experts_per_token <= 0) {
    return error(fmt::format("field '{}' is missing", field("num_experts_per_tok")));
  }
  shape_.moe = m;
  return ok_status();
}

// LFM2's feed-forward width: two thirds of the configured one, times block_ffn_dim_multiplier,
// rounded up to block_multiple_of, when block_auto_adjust_ff_dim (vLLM models/lfm2.py
// Lfm2MLP; the transformers class defaults).
void ConfigReader::read_lfm2_feed_forward(const json& text) {
  int ff = get_int(text, "block_ff_dim", false).value_or(shape_.intermediate_size);
  if (text.value("block_auto_adjust_ff_dim", true)) {
    ff = static_cast<int>(2.0 * ff / 3);
    if (auto it = text.find("block_ffn_dim_multiplier"); it != text.end() && it->is_number())
      ff = static_cast<int>(it->get<double>() * ff);
    const int multiple = std::max(1, get_int(text, "block_multiple_of", false).value_or(256));
    ff = multiple * ((ff + multiple - 1) / multiple);
  }
  shape_.intermediate_size = ff;
}

Status ConfigReader::read_quantization() {
  auto it = root_.find("quantization_config");
  if (it == root_.end() || !it->is_object())
    return ok_status();
  Status st = read_quantization_config(*it, shape_.quant);
  if (!st)
    return error(st.message());
  return ok_status();
}

Status ConfigReader::read_context_length(const json& text) {
  // SGLang get_context_length: a rope_scaling factor multiplies the first present key,
  // unless rope_scaling has original_max_position_embeddings or is llama3-type.
  double factor = 1;
  auto rs = text.find("rope_scaling");
  if (rs != text.end() && rs->is_object() && !rs->empty()) {
    if (auto f = rs->find("factor"); f != rs->end() && f->is_number())
      factor = f->get<double>();
    if (rs->contains("original_max_position_embeddings"))
      factor = 1;
    if (rs->value("rope_type", std::string()) == "llama3")
      factor = 1;
  }
  for (std::string_view key : kContextLengthKeys) {
    auto it = text.find(key);
    if (it != text.end() && it->is_number()) {
      const double tokens = factor * it->get<double>();
      // Checked before the conversion: a length outside [1, 2^40] is a damaged config.
      if (!(tokens >= 1 && tokens <= 1099511627776.0))
        return error(
            fmt::format("{} {} (× rope_scaling factor {}) is not a context length; "
                        "fix the config.json",
                        key, it->dump(), factor));
      shape_.context_length = static_cast<std::int64_t>(tokens);
      shape_.context_length_field = field(key);
      return ok_status();
    }
  }
  shape_.context_length = 2048;
  shape_.context_length_field = "none (SGLang's fallback 2048)";
  shape_.context_length_assumed = true;
  return ok_status();
}

void ConfigReader::read_vision() {
  auto vc = root_.find("vision_config");
  if (vc == root_.end() || !vc->is_object())
    return;
  shape_.vision.present = true;
  // A field the file leaves out has its vision config class's default (save_pretrained writes
  // only what differs from it: data/vision-config-defaults.tsv).
  const std::string vision_type = vc->value("model_type", std::string());
  auto field = [&](std::string_view key) -> std::optional<std::int64_t> {
    auto it = vc->find(key);
    if (it != vc->end() && it->is_number_integer())
      return it->get<std::int64_t>();
    if (it == vc->end() || it->is_null())
      return vision_config_default(vision_type, key);
    return std::nullopt;
  };
  if (auto n = field("num_hidden_layers"))
    shape_.vision.num_hidden_layers = static_cast<int>(*n);
  shape_.vision.depth =
      static_cast<int>(field("depth").value_or(shape_.vision.num_hidden_layers.value_or(0)));
  if (auto n = field("hidden_size"))
    shape_.vision.hidden_size = static_cast<int>(*n);
  shape_.vision.intermediate_size = static_cast<int>(field("intermediate_size").value_or(0));
  VisionDims& v = shape_.vision;
  // The encoder is the model family's (vision_config.model_type varies: "qwen2_vl_vision" in
  // transformers 5, absent in older checkpoints).
  v.model_type = shape_.model_type;
  // Integers in [0, 2^20]; anything else (a float, a negative, a damaged value) counts as absent
  // and leaves the encoder to the plain estimate.
  auto number = [&](std::string_view key) {
    const auto n = field(key);
    return n && *n >= 0 && *n <= (1 << 20) ? static_cast<int>(*n) : 0;
  };
  v.embed_dim = number("embed_dim");
  v.mlp_ratio = number("mlp_ratio");
  // Qwen2-VL's vision hidden_size is its merger's output width.
  v.out_hidden_size = v.embed_dim > 0 ? v.hidden_size.value_or(0) : number("out_hidden_size");
  v.patch_size = number("patch_size");
  v.temporal_patch_size = number("temporal_patch_size");
  v.in_channels = number("in_channels");
  v.spatial_merge_size = number("spatial_merge_size");
  v.num_position_embeddings = number("num_position_embeddings");
  v.image_size = number("image_size");
  if (auto ds = vc->find("deepstack_visual_indexes"); ds != vc->end() && ds->is_array())
    v.deepstack_layers = static_cast<int>(ds->size());
}

// A Whisper-style audio_config (data/audio-encoders.tsv names the encoder model_types and how
// each differs); others leave the audio encoder uncounted, as before.
void ConfigReader::read_audio() {
  auto ac = root_.find("audio_config");
  if (ac == root_.end() || !ac->is_object())
    return;
  const std::string type = ac->value("model_type", std::string());
  const auto spec = audio_encoder_spec(type);
  if (!spec)
    return;
  auto number = [&](std::initializer_list<std::string_view> keys) {
    for (std::string_view key : keys) {
      auto it = ac->find(key);
      if (it != ac->end() && it->is_number_integer() && it->get<std::int64_t>() > 0 &&
          it->get<std::int64_t>() <= (1 << 20))
        return static_cast<int>(it->get<std::int64_t>());
    }
    return 0;
  };
  AudioDims& a = shape_.audio;
  a.hidden_size = number({"d_model", "hidden_size"});
  a.num_layers = number({"encoder_layers", "num_hidden_layers"});
  a.intermediate_size = number({"encoder_ffn_dim", "intermediate_size"});
  a.num_mel_bins = number({"num_mel_bins"});
  a.max_source_positions = spec->learned_positions ? number({"max_source_positions"}) : 0;
  a.key_bias = spec->key_bias;
  a.projector = spec->projector;
  a.present = a.hidden_size > 0 && a.num_layers > 0 && a.intermediate_size > 0;
}

}  // namespace

const std::vector<std::string>& supported_model_types() {
  static const std::vector<std::string> kTypes = [] {
    std::vector<std::string> out;
    for (const LayoutRow& r : model_layouts()) {
      if (!r.by_architecture)
        out.push_back(r.match);
    }
    return out;
  }();
  return kTypes;
}

Result<ModelShape> read_model_config(std::string_view json_text, std::string_view source) {
  json root;
  try {
    root = json::parse(json_text);
  } catch (const json::parse_error& e) {
    return fail(
        fmt::format("{}: not valid JSON at byte {} (is the file complete?)", source, e.byte));
  } catch (const json::exception& e) {
    // e.g. a number no double holds ("1e51936"), which the parser reports as out_of_range.
    return fail(fmt::format("{}: not valid JSON ({})", source, e.what()));
  }
  try {
    ConfigReader reader(root, source);
    auto shape = reader.read();
    if (shape)
      shape->source = std::string(source);
    return shape;
  } catch (const json::exception& e) {
    // nlohmann's type errors name the expected type; the field is in the message.
    return fail(fmt::format("{}: a field has an unexpected type ({})", source, e.what()));
  }
}

}  // namespace servescope
