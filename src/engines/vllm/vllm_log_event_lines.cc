// The vLLM log grammar: CUDA-graph, periodic stats, failure and other lines.
#include <re2/re2.h>

#include "core/text.h"
#include "engines/vllm/vllm_log_grammar.h"
#include "engines/vllm/vllm_log_grammar_internal.h"

namespace servescope::vllm {

using namespace log_lines;  // NOLINT: the grammar files share these helpers

LineKind VllmLogGrammar::graph_line(std::string_view m) {
  re2::StringPiece a;
  re2::StringPiece b;
  re2::StringPiece c;
  if (starts_with(m, "Profiling CUDA graph memory:")) {
    begin("cuda_graph_profile");
    re2::StringPiece text(m.data(), m.size());
    std::string mode;
    std::string count;
    std::string largest;
    while (RE2::FindAndConsume(&text, re_.graph_profile, &mode, &count, &largest)) {
      const std::string key = mode == "FULL" ? "full" : "piecewise";
      add_number(builder_, key, count);
      add_number(builder_, key + "_largest", largest);
    }
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Estimated CUDA graph memory")) {
    begin("cuda_graph_estimate");
    if (RE2::PartialMatch(m, re_.graph_estimate, &a))
      add_number(builder_, "cuda_graph_gib", a, true);
    else
      fact_.partial = true;
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Estimated PIECEWISE CUDA graph memory") ||
      starts_with(m, "Estimated FULL CUDA graph memory") ||
      starts_with(m, "Initialized minimal KV cache for CUDA graph profiling") ||
      starts_with(m, "Cleaned up profiling KV cache") ||
      starts_with(m, "Capturing a cudagraph on") ||
      starts_with(m, "Capturing cudagraphs for decoding") ||
      starts_with(m, "CUDA graphs can take additional") ||
      starts_with(m, "Capturing CUDA graph shapes") || starts_with(m, "Capturing CUDA graphs")) {
    // The piecewise capture goes over every capture size: its bar's total is their number
    // (v1/worker/gpu_model_runner.py::capture_model). A FULL decode bar counts other sizes.
    re2::StringPiece mode;
    std::string total;
    if (RE2::PartialMatch(m, re_.capture_progress, &mode, &total) &&
        (mode.empty() || has(mode, "PIECEWISE"))) {
      begin("graph_capture_progress");
      builder_.add("mode", Value(mode.empty() ? std::string("shapes") : std::string(mode)));
      builder_.add("total", Value(static_cast<std::int64_t>(std::stoll(total))));
      emit();
      return LineKind::kFact;
    }
    return LineKind::kKnown;
  }
  if (has(m, "CUDA graph memory profiling")) {
    begin("cuda_graph_profiling");
    // "CUDA graph memory profiling is enabled (default since v0.21.0). The current ..." or
    // its WARNING when VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0; 0.19 says it "will be".
    builder_.add("subtracted", Value(has(m, "profiling is enabled")));
    if (RE2::PartialMatch(m, re_.profiling_enabled, &a, &b, &c)) {
      add_number(builder_, "gpu_memory_utilization", a, true);
      add_number(builder_, "equivalent_utilization", b, true);
      add_number(builder_, "suggested_utilization", c, true);
    }
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Graph capturing finished")) {
    begin("graph_capture_end");
    if (RE2::PartialMatch(m, re_.graph_done, &a, &b)) {
      add_number(builder_, "elapsed_s", a, true);
      add_number(builder_, "cuda_graph_gib", b, true);
    } else {
      fact_.partial = true;
    }
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "CUDA graph pool memory")) {
    begin("cuda_graph_pool");
    if (RE2::PartialMatch(m, re_.graph_pool, &a, &b, &c)) {
      add_number(builder_, "actual_gib", a, true);
      add_number(builder_, "estimated_gib", b, true);
      add_number(builder_, "difference_gib", c, true);
    } else {
      fact_.partial = true;
    }
    emit();
    return LineKind::kFact;
  }
  if (has(m, "CUDAGraphMode.") && RE2::PartialMatch(m, re_.downgrade, &a, &b, &c)) {
    begin("cudagraph_downgrade");
    builder_.add("from", Value(std::string(a)));
    builder_.add("to", Value(std::string(c)));
    builder_.add("text", Value(std::string(m)));
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Cudagraph mode") && RE2::PartialMatch(m, re_.mode_override, &a, &b)) {
    begin("cudagraph_downgrade");
    builder_.add("from", Value(std::string(a)));
    builder_.add("to", Value("NONE"));
    builder_.add("text", Value(std::string(m)));
    emit();
    return LineKind::kFact;
  }
  return LineKind::kUnknown;
}

LineKind VllmLogGrammar::stats_line(std::string_view m) {
  begin("decode_batch");
  // "Engine 000: ", "N Engines Aggregated: " (DP) or nothing (V0).
  if (starts_with(m, "Engine ")) {
    std::size_t i = 7;
    std::int64_t e = 0;
    while (i < m.size() && is_digit(m[i]))
      e = e * 10 + (m[i++] - '0');
    builder_.add("engine", Value(e));
    if (fact_.rank.label.empty() || fact_.rank.label == "APIServer") {
      fact_.rank.dp = static_cast<int>(e);
      fact_.rank.label = std::string(m.substr(0, i));
    }
  } else if (has(m.substr(0, m.find(':')), "Engines Aggregated")) {
    builder_.add("engines_aggregated", Value(true));
  }
  const std::size_t body = m.find("Avg prompt throughput:");
  std::string_view rest = m.substr(body);
  bool cut = true;
  for (std::string_view item : split(rest, ',')) {
    item = trim(item);
    if (!item.empty() && item.back() == '.')
      item.remove_suffix(1);
    const std::size_t colon = item.find(": ");
    if (colon == std::string_view::npos)
      continue;
    const std::string_view label = item.substr(0, colon);
    std::string_view value = trim(item.substr(colon + 2));
    const bool pct = !value.empty() && value.back() == '%';
    const std::size_t space = value.find(' ');
    value = pct ? value.substr(0, value.size() - 1) : value.substr(0, space);
    auto v = number(value);
    if (!v)
      continue;
    auto add = [&](std::string_view name) { builder_.add(name, *v); };
    if (label == "Avg prompt throughput")
      add("prompt_throughput_tok_per_s");
    else if (label == "Avg generation throughput")
      add("gen_throughput_tok_per_s");
    else if (label == "Running")
      add("running_req");
    else if (label == "Waiting" || label == "Pending")
      add("queue_req");
    else if (label == "Swapped")
      add("swapped_req");
    else if (label == "Deferred")
      add("deferred_req");
    else if (label == "Preemptions")
      add("preemptions");
    else if (label == "GPU KV cache usage") {
      add("kv_cache_usage_pct");
      builder_.add("token_usage", Value(v->as_number() / 100.0));
      cut = false;
    } else if (label == "CPU KV cache usage")
      add("cpu_kv_cache_usage_pct");
    else if (label == "Prefix cache hit rate")
      add("prefix_cache_hit_rate_pct");
    else if (label == "External prefix cache hit rate")
      add("external_prefix_cache_hit_rate_pct");
    else if (label == "MM cache hit rate")
      add("mm_cache_hit_rate_pct");
  }
  fact_.partial = cut || !builder_.has("running_req");
  emit();
  return LineKind::kFact;
}

LineKind VllmLogGrammar::failure_line(std::string_view m, std::string_view level) {
  re2::StringPiece a;
  re2::StringPiece b;
  re2::StringPiece c;
  re2::StringPiece d;
  const std::string_view kind = server_ready_ ? "runtime_error" : "startup_failure";
  auto failure = [&](std::string_view error, std::string_view message) {
    begin(kind);
    builder_.add("error", Value(std::string(error)));
    builder_.add("message", Value(std::string(message)));
    builder_.add("oom", Value(has_icase(message, "out of memory")));
  };
  if (RE2::PartialMatch(m, re_.max_seq_too_long, &a, &b)) {
    // V0: "The model's max seq len (L) is larger than the maximum number of tokens that can
    // be stored in KV cache (T)."
    failure(starts_with(m, "ValueError") ? "ValueError" : "", m);
    add_number(builder_, "max_model_len", a);
    add_number(builder_, "kv_tokens", b);
    emit();
    return LineKind::kFact;
  }
  if (has(m, "KV cache is needed, which is larger than the available KV cache memory")) {
    failure(starts_with(m, "ValueError") ? "ValueError" : "", m);
    if (RE2::PartialMatch(m, re_.serve_one, &a, &b, &c, &d)) {
      add_number(builder_, "max_model_len", a);
      add_number(builder_, "needed_gib", b, true);
      add_number(builder_, "available_gib", c, true);
      if (!d.empty())
        add_number(builder_, "estimated_max_model_len", d);
    } else {
      fact_.partial = true;
    }
    emit();
    return LineKind::kFact;
  }
  if (RE2::PartialMatch(m, re_.free_less, &a, &b, &c, &d)) {
    failure("ValueError", m);
    add_number(builder_, "free_memory_gib", a, true);
    add_number(builder_, "total_memory_gib", b, true);
    add_number(builder_, "gpu_memory_utilization", c, true);
    add_number(builder_, "requested_gib", d, true);
    emit();
    return LineKind::kFact;
  }
  if (RE2::PartialMatch(m, re_.mamba_blocks, &a, &b)) {
    failure("ValueError", m);
    add_number(builder_, "max_num_seqs", a);
    add_number(builder_, "mamba_blocks", b);
    emit();
    return LineKind::kFact;
  }
  if (has(m, "No available memory for the cache blocks") ||
      has(m, "Engine core initialization failed") || starts_with(m, "EngineCore failed to start") ||
      has_icase(m, "out of memory")) {
    failure("", m);
    emit();
    return LineKind::kFact;
  }
  re2::StringPiece error;
  re2::StringPiece message;
  if ((level == "ERROR" || level == "CRITICAL" || level.empty()) &&
      RE2::FullMatch(m, re_.exception, &error, &message)) {
    in_traceback_ = false;
    failure(std::string_view(error.data(), error.size()),
            std::string_view(message.data(), message.size()));
    emit();
    return LineKind::kFact;
  }
  if (RE2::PartialMatch(m, re_.context_limit, &a, &b) ||
      RE2::PartialMatch(m, re_.decoder_prompt, &b, &a)) {
    begin("input_too_long");
    add_number(builder_, "input_tokens", b);
    add_number(builder_, "max_tokens", a);
    emit();
    return LineKind::kFact;
  }
  return LineKind::kUnknown;
}

LineKind VllmLogGrammar::misc_line(std::string_view m, std::string_view level) {
  re2::StringPiece a;
  re2::StringPiece b;
  re2::StringPiece c;
  if (has(m, "device_name=")) {
    if (std::string gpu = log_text::gpu_of_kernel_config(m); !gpu.empty()) {
      begin("gpu");
      builder_.add("name", Value(std::move(gpu)));
      builder_.add("source", Value("kernel config path"));
      emit();
      return LineKind::kFact;
    }
  }
  // The logo: "█▀▀ ... version 0.19.0", "█▄█▀ ... model Qwen/Qwen3-8B".
  if (has(m, "\xE2\x96\x88") || has(m, "\xE2\x96\x84") || has(m, "\xE2\x96\x80")) {
    if (RE2::PartialMatch(m, re_.logo_version, &a)) {
      begin("engine_version");
      builder_.add("version", Value(std::string(a)));
      builder_.add("source", Value("logo"));
      emit();
      return LineKind::kFact;
    }
    if (RE2::PartialMatch(m, re_.logo_model, &a)) {
      begin("model_name");
      builder_.add("model", Value(std::string(a)));
      emit();
      return LineKind::kFact;
    }
    return LineKind::kKnown;
  }
  if (RE2::PartialMatch(m, re_.api_version, &a)) {
    begin("engine_version");
    builder_.add("version", Value(std::string(a)));
    builder_.add("source", Value("api server"));
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Resolved architecture: ")) {
    begin("model_architecture");
    builder_.add("architecture", Value(std::string(trim(after(m, "Resolved architecture: ")))));
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Starting to load model ")) {
    std::string_view model = trim(after(m, "Starting to load model "));
    if (ends_with(model, "..."))
      model.remove_suffix(3);
    begin("model_name");
    builder_.add("model", Value(std::string(model)));
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Asynchronous scheduling is ")) {
    begin("async_scheduling");
    builder_.add("enabled", Value(starts_with(after(m, "Asynchronous scheduling is "), "enabled")));
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "rank ") && RE2::PartialMatch(m, re_.rank, &a, &b, &c)) {
    begin("rank_assignment");
    add_number(builder_, "rank", a);
    add_number(builder_, "world_size", b);
    re2::StringPiece parts = c;
    std::string name;
    std::string index;
    RankTags tags;
    bool last_numeric = false;
    while (RE2::FindAndConsume(&parts, re_.rank_part, &name, &index)) {
      std::string field = name;
      for (char& ch : field)
        ch = static_cast<char>(ch - 'A' + 'a');
      last_numeric = index != "N/A";
      if (!last_numeric)
        continue;
      const int v = static_cast<int>(parse_int(index).value_or(0));
      builder_.add(field, Value(v));
      if (name == "DP")
        tags.dp = v;
      else if (name == "TP")
        tags.tp = v;
      else if (name == "PP")
        tags.pp = v;
      else if (name == "EP")
        tags.ep = v;
    }
    const std::string_view tail = trim(std::string_view(c.data(), c.size()));
    fact_.partial = tail.empty() || !(is_digit(tail.back()) || ends_with(tail, "N/A"));
    if (!fact_.partial && !rank_.label.empty() && rank_.dp < 0 && rank_.tp < 0) {
      // A worker without indices in its name: remember its rank for its later lines.
      std::string label;
      for (const auto& [n, v] : {std::pair{"DP", tags.dp}, {"PP", tags.pp}, {"TP", tags.tp}}) {
        if (v >= 0 && (v > 0 || std::string_view(n) == "TP"))
          label += (label.empty() ? "" : " ") + std::string(n) + std::to_string(v);
      }
      tags.label = label;
      const std::size_t space = rank_.label.find("pid=");
      rank_of_process_[rank_.label.substr(space == std::string::npos ? 0 : space)] = tags;
    }
    emit();
    return LineKind::kFact;
  }
  if (m[0] == 'U' && starts_with(m, "Using ")) {
    if (RE2::PartialMatch(m, re_.backend, &a, &b)) {
      begin("attention_backend");
      builder_.add("backend", Value(std::string(a)));
      builder_.add("candidates", Value(std::string(b)));
      emit();
      return LineKind::kFact;
    }
    if (starts_with(m, "Using FlashAttention version ")) {
      begin("attention_backend");
      add_number(builder_, "flash_attn_version", after(m, "Using FlashAttention version "));
      emit();
      return LineKind::kFact;
    }
    if ((has(m, "Attention backend") || has(m, "XFormers backend") ||
         has(m, "FlashInfer backend") || has(m, "Flash Attention backend")) &&
        RE2::FullMatch(m, re_.old_backend, &a)) {
      begin("attention_backend");
      builder_.add("backend", Value(std::string(a)));
      emit();
      return LineKind::kFact;
    }
    return LineKind::kKnown;  // "Using ... for top-p & top-k sampling", kernels, MoE backends
  }
  if (starts_with(m, "Enabled custom fusions: ")) {
    begin("fusion");
    builder_.add("passes", Value(std::string(trim(after(m, "Enabled custom fusions: ")))));
    emit();
    return LineKind::kFact;
  }
  if (RE2::PartialMatch(m, re_.engine_ready, &a)) {
    begin("engine_ready");
    add_number(builder_, "elapsed_s", a, true);
    emit();
    return LineKind::kFact;
  }
  if (RE2::PartialMatch(m, re_.server_up, &a)) {
    server_ready_ = true;
    begin("server_ready");
    builder_.add("url", Value(std::string(a)));
    emit();
    return LineKind::kFact;
  }
  // Warnings that change a setting the capacity depends on.
  static constexpr std::array<std::string_view, 8> kAdjusts = {
      "Enforce eager set", "disabling torch.compile",
      "Overriding",        "Forcing",
      "is not supported",  "will be ignored",
      "Disabling",         "Turning off hybrid kv cache manager"};
  if (level == "WARNING" || level == "INFO") {
    for (std::string_view w : kAdjusts) {
      if (has(m, w)) {
        begin("setting_adjusted");
        builder_.add("level", Value(std::string(level)));
        builder_.add("text", Value(std::string(m)));
        emit();
        return LineKind::kFact;
      }
    }
  }
  if (RE2::PartialMatch(m, re_.capacity))
    return LineKind::kUnknownCapacity;
  return LineKind::kUnknown;
}

}  // namespace servescope::vllm
