// The vLLM log grammar: the memory-profile and KV-capacity lines.
#include <re2/re2.h>

#include "core/text.h"
#include "engines/vllm/vllm_log_grammar.h"
#include "engines/vllm/vllm_log_grammar_internal.h"

namespace servescope::vllm {

using namespace log_lines;  // NOLINT: the grammar files share these helpers

LineKind VllmLogGrammar::capacity_line(std::string_view m) {
  re2::StringPiece a;
  re2::StringPiece b;
  re2::StringPiece c;
  if (starts_with(m, "GPU KV cache size") || starts_with(m, "CPU KV cache size")) {
    begin("kv_cache_size");
    if (RE2::PartialMatch(m, re_.kv_size, &b, &a)) {
      add_number(builder_, "tokens", a);
      builder_.add("device", Value(std::string(b)));
    } else {
      fact_.partial = true;
    }
    emit();
    // From 2026-08-04 (#50462, V13) one line carries both: "GPU KV cache size: N tokens,
    // Maximum concurrency for L tokens per request: X.XXx" (KCU.update_kv_cache_capacity).
    if (const auto at = m.find("Maximum concurrency for"); at != std::string_view::npos)
      return capacity_line(m.substr(at));
    return LineKind::kFact;
  }
  if (starts_with(m, "Maximum concurrency for")) {
    begin("max_concurrency");
    if (RE2::PartialMatch(m, re_.concurrency, &a, &b)) {
      add_number(builder_, "tokens_per_request", a);
      add_number(builder_, "concurrency", b, true);
    } else {
      fact_.partial = true;
    }
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Explicitly set (") || starts_with(m, "Auto set (")) {
    re2::StringPiece node;
    re2::StringPiece requested;
    re2::StringPiece consumed;
    if (!RE2::PartialMatch(m, re_.cpu_kv_set, &a, &b, &c, &node, &requested, &consumed))
      return LineKind::kUnknown;
    begin("cpu_kv_cache");
    builder_.add("mode", Value(a == "Explicitly" ? std::string("explicit") : std::string("auto")));
    add_number(builder_, "kv_cache_gib", b, true);
    add_number(builder_, "total_memory_gib", c, true);
    add_number(builder_, "numa_node", node);
    if (!requested.empty()) {
      add_number(builder_, "requested_gib", requested, true);
      add_number(builder_, "consumed_gib", consumed, true);
    }
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Available KV cache memory")) {
    begin("kv_cache_memory");
    static const RE2 kAvail(R"(^Available KV cache memory: ([-\d.]+) GiB)");
    if (RE2::PartialMatch(m, kAvail, &a))
      add_number(builder_, "available_gib", a, true);
    else
      fact_.partial = true;
    emit();
    return LineKind::kFact;
  }
  if (m[0] == '#' && RE2::PartialMatch(m, re_.v0_blocks, &a, &b)) {
    begin("gpu_blocks");
    add_number(builder_, "num_gpu_blocks", a);
    if (!b.empty())
      add_number(builder_, "num_cpu_blocks", b);
    builder_.add("source", Value(b.empty() ? "kv_cache_utils" : "executor"));
    emit();
    return LineKind::kFact;
  }
  if (has(m, "cache_config_info with initialization after num_gpu_blocks")) {
    begin("gpu_blocks");
    builder_.add("source", Value("cache_config_info"));
    if (RE2::PartialMatch(m, re_.cache_info, &a) && !a.empty())
      add_number(builder_, "num_gpu_blocks", a);
    else
      fact_.partial = true;
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Overriding num_gpu_blocks=") &&
      RE2::PartialMatch(m, re_.override_blocks, &a, &b)) {
    begin("blocks_override");
    add_number(builder_, "num_gpu_blocks", a);
    add_number(builder_, "override", b);
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Auto-fit max_model_len")) {
    begin("auto_fit");
    if (RE2::PartialMatch(m, re_.auto_fit_reduced, &a, &b, &c)) {
      add_number(builder_, "from", a);
      add_number(builder_, "max_model_len", b);
      add_number(builder_, "available_gib", c, true);
    } else if (RE2::PartialMatch(m, re_.auto_fit_full, &a)) {
      add_number(builder_, "max_model_len", a);
    } else {
      fact_.partial = true;
    }
    emit();
    return LineKind::kFact;
  }
  if (RE2::PartialMatch(m, re_.padding, &a, &b)) {
    begin("padding_layers");
    add_number(builder_, "layers", a);
    add_number(builder_, "waste_pct", b, true);
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Setting kv cache block size") && RE2::PartialMatch(m, re_.kv_block, &a, &b)) {
    begin("block_size");
    add_number(builder_, "block_size", a);
    builder_.add("backend", Value(std::string(b)));
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Setting attention block size") && RE2::PartialMatch(m, re_.attn_block, &a)) {
    begin("block_size");
    add_number(builder_, "block_size", a);
    builder_.add("reason", Value("attention page ≥ mamba page"));
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Padding mamba page size") && RE2::PartialMatch(m, re_.mamba_pad, &a)) {
    begin("block_size");
    add_number(builder_, "padding_pct", a, true);
    builder_.add("reason", Value("mamba padding"));
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Using max model len ")) {
    begin("max_model_len");
    add_number(builder_, "max_model_len", after(m, "Using max model len "));
    fact_.partial = !builder_.has("max_model_len");
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Defaulting ") && RE2::PartialMatch(m, re_.defaulting, &a, &b, &c)) {
    begin("scheduler_default");
    builder_.add("setting", Value(std::string(a)));
    add_number(builder_, "value", b);
    builder_.add("usage_context", Value(std::string(c)));
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Chunked prefill is enabled with max_num_batched_tokens=")) {
    begin("chunked_prefill");
    std::string_view v = after(m, "Chunked prefill is enabled with max_num_batched_tokens=");
    if (!v.empty() && v.back() == '.')
      v.remove_suffix(1);
    add_number(builder_, "max_num_batched_tokens", v);
    fact_.partial = !builder_.has("max_num_batched_tokens");
    emit();
    return LineKind::kFact;
  }
  return LineKind::kUnknown;
}

LineKind VllmLogGrammar::memory_line(std::string_view m) {
  re2::StringPiece g[8];
  if (starts_with(m, "Model loading took")) {
    begin("model_loaded");
    if (RE2::PartialMatch(m, re_.model_loading, &g[0], &g[1])) {
      add_number(builder_, "weights_gib", g[0], true);
      add_number(builder_, "elapsed_s", g[1], true);
    } else {
      fact_.partial = true;
    }
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Loading model weights took") && RE2::PartialMatch(m, re_.v0_weights, &g[0])) {
    begin("model_loaded");
    add_number(builder_, "weights_gib", g[0], true);  // printed "GB", computed with 2^30
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "worker init memory snapshot:")) {
    begin("memory_snapshot");
    scan_pairs(after(m, "worker init memory snapshot:"), builder_);
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "worker requested memory:")) {
    begin("requested_memory");
    std::string_view v = trim(after(m, "worker requested memory:"));
    if (ends_with(v, "GiB"))
      v.remove_suffix(3);
    add_number(builder_, "requested_gib", v, true);
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Initial free memory")) {
    if (RE2::PartialMatch(m, re_.initial_free, &g[0], &g[1], &g[2])) {
      begin("requested_memory");
      add_number(builder_, "free_memory_gib", g[0], true);
      add_number(builder_, "gpu_memory_utilization", g[1], true);
      add_number(builder_, "requested_gib", g[2], true);
      emit();
      return LineKind::kFact;
    }
    if (RE2::PartialMatch(m, re_.reserved, &g[0], &g[1])) {
      begin("kv_cache_reserved");
      add_number(builder_, "free_memory_gib", g[0], true);
      add_number(builder_, "reserved_gib", g[1], true);
      emit();
      return LineKind::kFact;
    }
    return LineKind::kUnknownCapacity;
  }
  if (starts_with(m, "Free memory after profiling") ||
      starts_with(m, "Peak GPU memory after loading"))
    return LineKind::kKnown;
  if (starts_with(m, "Memory profiling takes")) {
    begin("memory_profile");
    if (RE2::PartialMatch(m, re_.v1_profile, &g[0], &g[1], &g[2], &g[3], &g[4])) {
      builder_.add("form", Value("v1"));
      add_number(builder_, "elapsed_s", g[0], true);
      add_number(builder_, "non_kv_cache_gib", g[1], true);
      add_number(builder_, "activation_peak_gib", g[2], true);
      add_number(builder_, "non_torch_gib", g[3], true);
      add_number(builder_, "weights_gib", g[4], true);
    } else {
      // V0 and 0.8: the figures follow on their own lines.
      static const RE2 kTakes(R"(^Memory profiling takes ([\d.]+) seconds)");
      builder_.add("form", Value("v0"));
      if (RE2::PartialMatch(m, kTakes, &g[0]))
        add_number(builder_, "elapsed_s", g[0], true);
    }
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "the current vLLM instance can use")) {
    begin("memory_profile");
    builder_.add("form", Value("v0"));
    if (RE2::PartialMatch(m, re_.instance_can_use, &g[0], &g[1], &g[2])) {
      add_number(builder_, "total_memory_gib", g[0], true);
      add_number(builder_, "gpu_memory_utilization", g[1], true);
      add_number(builder_, "requested_gib", g[2], true);
    } else {
      fact_.partial = true;
    }
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "model weights take")) {
    begin("memory_profile");
    builder_.add("form", Value("v0"));
    if (RE2::PartialMatch(m, re_.weights_take, &g[0], &g[1], &g[2], &g[3])) {
      add_number(builder_, "weights_gib", g[0], true);
      add_number(builder_, "non_torch_gib", g[1], true);
      add_number(builder_, "activation_peak_gib", g[2], true);
      add_number(builder_, "kv_cache_gib", g[3], true);
    } else {
      fact_.partial = true;
    }
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Memory profiling results:")) {
    // Late 2024: total_gpu_memory=23.58GiB initial_memory_usage=... peak_torch_memory (weights
    // and activations) non_torch_memory kv_cache_size gpu_memory_utilization.
    begin("memory_profile");
    builder_.add("form", Value("v0-results"));
    scan_pairs(after(m, "Memory profiling results:"), builder_);
    FactBuilder& b = builder_;
    // Field names as the other forms use them.
    Fact& f = b.fact();
    for (Field& field : f.fields) {
      if (field.name == "total_gpu_memory_gib")
        field.name = "total_memory_gib";
      else if (field.name == "peak_torch_memory_gib")
        field.name = "peak_torch_gib";
      else if (field.name == "non_torch_memory_gib")
        field.name = "non_torch_gib";
      else if (field.name == "kv_cache_size_gib")
        field.name = "kv_cache_gib";
      else if (field.name == "duration_s" || field.name == "duration")
        field.name = "elapsed_s";
    }
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Free memory on device")) {
    if (has(m, "is less than desired"))
      return LineKind::kUnknown;  // the startup failure: failure_line reads it
    begin("memory_summary");
    if (RE2::PartialMatch(m, re_.summary, &g[0], &g[1], &g[2], &g[3], &g[4], &g[5], &g[6], &g[7])) {
      add_number(builder_, "free_memory_gib", g[0], true);
      add_number(builder_, "total_memory_gib", g[1], true);
      add_number(builder_, "gpu_memory_utilization", g[2], true);
      add_number(builder_, "requested_gib", g[3], true);
      add_number(builder_, "weights_gib", g[4], true);
      add_number(builder_, "activation_peak_gib", g[5], true);
      add_number(builder_, "non_torch_gib", g[6], true);
      add_number(builder_, "cuda_graph_gib", g[7], true);
      if (RE2::PartialMatch(m, re_.summary_kv, &g[0]))
        add_number(builder_, "kv_cache_gib", g[0], true);
    } else if (RE2::PartialMatch(m, re_.summary_head, &g[0], &g[1])) {
      // An excerpt cut the line (or wrapped it): the startup figures it still states.
      add_number(builder_, "free_memory_gib", g[0], true);
      add_number(builder_, "total_memory_gib", g[1], true);
      if (RE2::PartialMatch(m, re_.desired, &g[2], &g[3])) {
        add_number(builder_, "gpu_memory_utilization", g[2], true);
        add_number(builder_, "requested_gib", g[3], true);
      }
      fact_.partial = true;
    } else {
      fact_.partial = true;
    }
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Desired GPU memory utilization is") &&
      RE2::PartialMatch(m, re_.desired, &g[0], &g[1])) {
    // The second sentence of the line above, wrapped onto a line of its own by an excerpt.
    begin("requested_memory");
    add_number(builder_, "gpu_memory_utilization", g[0], true);
    add_number(builder_, "requested_gib", g[1], true);
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Loading weights took") || starts_with(m, "Loading weights on") ||
      starts_with(m, "Starting to load model") || starts_with(m, "Loading model from scratch"))
    return misc_line(m, "");
  return LineKind::kUnknown;
}

}  // namespace servescope::vllm
