// Which config reader a model goes through: data/model-layouts.tsv, keyed by the config's
// architectures[0] or its model_type.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace servescope {

/// How a family's config.json maps to layers (model_config_reader.cc reads each).
enum class LayoutFamily { kDense, kMoe, kMla, kHybridLinear, kSlidingWindow, kMambaHybrid };

struct LayoutRow {
  bool by_architecture = false;  // false: `match` is a model_type
  std::string match;
  LayoutFamily family = LayoutFamily::kDense;
  std::string note;
  std::string reads_as;              // the model_type the config is read as; "" = its own
  std::vector<std::string> checked;  // engines whose own code the row was held against
  // What sets the family's usual shape apart, each a word of the traits column: plain-mlp (up →
  // act → down, no gate), qkv-bias, all-bias (every linear and norm has a bias),
  // learned-positions (an absolute position table; positions+2: two more rows, OPT), ffn-4x (a
  // missing intermediate size is 4 × hidden), multi-query (multi_query: true means one KV head),
  // gated-attention (an output gate of heads × head_dim beside q, whatever the config says),
  // shared-q (Step-3: one replicated projection to share_q_dim beside K and V, then wq to every
  // head), vllm-caches-heads (latent attention vLLM builds as plain attention of every head,
  // qk_nope + qk_rope wide, and caches as such: MiniCPM3; SGLang caches the latent).
  std::vector<std::string> traits;
  bool has(std::string_view trait) const;
};

/// The key a model_type's config.json spells a standard key with (data/config-key-aliases.tsv,
/// from transformers' attribute_map: gpt2's n_embd for hidden_size), or "".
std::string_view config_key_alias(std::string_view model_type, std::string_view key);

/// The default transformers' vision config class of `vision_model_type` gives `key` when a
/// config.json leaves it out (data/vision-config-defaults.tsv), if it has one.
std::optional<int> vision_config_default(std::string_view vision_model_type, std::string_view key);

/// Whether a model_type's config class ties the LM head to the embeddings when config.json does
/// not say (data/config-defaults.tsv, from transformers' default-constructed config classes).
bool ties_embeddings_by_default(std::string_view model_type);

/// The rows of data/model-layouts.tsv, in file order.
const std::vector<LayoutRow>& model_layouts();

/// The row of a config: the one naming its architecture, else the one naming its model_type.
const LayoutRow* layout_row(std::string_view architecture, std::string_view model_type);

/// The family of a config (its layout_row's), if any row covers it.
std::optional<LayoutFamily> layout_family(std::string_view architecture,
                                          std::string_view model_type);

/// "dense", "moe", "mla", "hybrid_linear", "sliding_window".
std::string_view family_name(LayoutFamily family);

/// The cache layers vLLM's own model code builds for an architecture ("28 mamba + 4 full"), from
/// data/layer-kinds.tsv; "" when it was not built.
std::string engine_layer_kinds(std::string_view architecture);

/// The model_type the checkpoints of an architecture carry as vLLM's own config registry or
/// model module names it (data/layer-kinds.tsv); "" where only a stand-in config was built.
std::string engine_model_type(std::string_view architecture);

/// How a Whisper-style audio encoder differs from Whisper's (data/audio-encoders.tsv).
struct AudioEncoderSpec {
  bool learned_positions = true;
  bool key_bias = false;
  std::string projector;  // "linear", "mlp" or "none"
};

/// The spec of an audio_config.model_type, if data/audio-encoders.tsv lists it.
std::optional<AudioEncoderSpec> audio_encoder_spec(std::string_view encoder_model_type);

/// One line for a config no row covers: the architecture, what the engine builds it with, and
/// the nearest modelled family.
std::string not_modelled_reason(std::string_view architecture, std::string_view model_type);

}  // namespace servescope
