// SGLang's log lines (docs/research/sglang-capacity.md §10, L1–L15, in every form 2024–2026;
// history §11).
//
// Line prefix: `[YYYY-MM-DD HH:MM:SS(.mmm)( DPn| PPn| ATTN_CPn| MOE_DPn| TPn| EPn)*] ` anywhere
// in the line (docker/kubectl timestamps or a progress bar may come first), optionally followed
// by `LEVEL file.py:NNN: `. Lines without a prefix (published excerpts, bench_one_batch) are
// read too.
//
// Fact kinds and fields (units in the names; every field the line prints is kept):
//   launch_command         command (string, backslash continuations joined), program
//                          ("sglang.launch_server", "sglang serve", ...)
//   decode_graph_capture   captured, total (the "Capturing batches (bs=…): N%|…| a/b" bar: total
//                          is the number of decode batch sizes captured)
//   server_args            every ServerArgs field (Python repr values; nested objects also
//                          flattened: cuda_graph_config.decode.max_bs); partial if elided/cut
//   engine_version         version ("0.5.6.post2"), source ("pip show", "text", "image tag"),
//                          image, image_date ("YYYY-MM-DD")
//   gpu                    name, gpu_ids (check_env "GPU 0,1: NAME"), index (nvidia-smi)
//   init_torch_distributed_begin / _end   mem_usage_gb, elapsed_s
//   load_weight_begin      avail_mem_gb                                   (P, rank-local)
//   load_weight_end        avail_mem_gb (A), mem_usage_gb (weights), elapsed_s, type, dtype,
//                          quant, fmt
//   kv_cache_dtype         dtype                        ("Using KV cache dtype: ...")
//   kv_cache_allocated     tokens (#tokens), dtype, k_size_gb, v_size_gb | kv_size_gb; label
//                          for a labelled pool ("Draft KV Cache is allocated", 0.5.17+)
//   kv_cache_va_upper_bound  tokens, dtype, sizes: post-capture sizing's virtual upper bound
//   mamba_cache_allocated  max_mamba_cache_size (K), conv_state_size_gb, ssm_state_size_gb,
//                          intermediate_*_size_gb
//   swa_pool               full_layer_tokens, swa_layer_tokens
//   kv_pool_detail         pool, and the pairs of model-specific pool lines (DSv4, ...)
//   memory_pool_end        avail_mem_gb
//   cuda_graph_capture_begin / _end   graph ("decode", "target decode", "target verify",
//                          "target prefill", "draft extend", "piecewise", ...), form ("legacy"
//                          for "Capture cuda graph ...", "named" for "Capture X CUDA graph"),
//                          backend, bs (int list), num_tokens (int list), num_tokens_per_req
//                          | num_tokens_per_bs, avail_mem_gb, mem_usage_gb, elapsed_s
//   cuda_graph_bs          bs (int list): "Capture cuda graph bs [...]" and, for the decode
//                          graph of the target model, the bs=[...] of the newer begin line
//   capacity               max_total_num_tokens, chunked_prefill_size, max_prefill_tokens,
//                          max_running_requests, context_len, available_gpu_mem_gb |
//                          available_cpu_mem_gb              (the final values, L12)
//   warning_reset_48       max_running_requests (48), override_hint (bool)
//   warning_set_32         max_running_requests (32)       (EAGLE, 2025-03-05 … 2025-03-29)
//   warning_reduced_from_requested   requested, max_running_requests
//   warning_mamba_cap      max_running_requests
//   post_capture_kv_resize max_total_num_tokens, free_memory_gb | max_running_requests_from,
//                          max_running_requests | decode_max_bs
//   allreduce_fusion       status ("enabled", "failed", "auto-enabled"), backend, ...
//   server_args_note       level, text    (a server_args.py warning/info: settings adjusted)
//   setting_adjusted       text           (another line saying a setting was changed)
//   input_too_long         input_tokens, max_tokens
//   server_ready           —
//   startup_failure        error (exception class or ""), message, oom (bool); before the
//                          server was ready; runtime_error after it
//   prefill_batch          running_req, queue_req, new_seq, new_token, cached_token,
//                          token_usage | full_token_usage (+ mamba_usage, swa_token_usage),
//                          cache_hit_rate_pct, pending_token, cuda_graph,
//                          input_throughput_tok_per_s, iter, mixed_running_req, ...
//   decode_batch           running_req, queue_req, token | full_token, token_usage |
//                          full_token_usage, mamba_num, mamba_usage, swa_token,
//                          swa_token_usage, accept_len, accept_rate, cuda_graph,
//                          gen_throughput_tok_per_s, iter, ...
#pragma once

#include <memory>
#include <string>

#include "engines/log_fields.h"
#include "engines/log_grammar.h"

namespace servescope::sglang {

class SglangLogGrammar final : public LogGrammar {
 public:
  SglangLogGrammar();
  ~SglangLogGrammar() override;

  std::string_view engine() const override { return "sglang"; }
  LineKind feed(std::string_view line, std::uint64_t number, FactSink& out) override;
  void finish(FactSink& out) override;
  /// True for SGLang's own log lines; false for launch commands, versions, GPU names,
  /// tracebacks and notes, which other texts contain too.
  bool identifies_engine(const Fact& fact) const override;
  VersionInference infer_version(const std::vector<Fact>& facts) const override;
  LogSummary summarize(const std::vector<Fact>& facts) const override;

 private:
  struct Patterns;  // compiled RE2 patterns, shared by all instances
  LineKind dispatch(std::string_view message, FactSink& out);
  LineKind unprefixed(std::string_view line, FactSink& out);
  LineKind batch(std::string_view kind, std::string_view rest, FactSink& out);
  LineKind capture(std::string_view message, FactSink& out);
  LineKind exception_line(std::string_view text, FactSink& out);
  LineKind versions_and_gpus(std::string_view text, FactSink& out);
  LineKind capture_progress(std::string_view text, FactSink& out);
  LineKind emit_fields(std::string_view kind, std::string_view rest, FactSink& out);
  void begin(std::string_view kind);
  void emit(FactSink& out);
  void flush_command(FactSink& out);

  const Patterns& re_;
  Fact fact_;
  FactBuilder builder_{fact_};
  LogFieldScanner scanner_;
  // The current line.
  std::uint64_t number_ = 0;
  std::string_view line_;
  std::string_view timestamp_;
  RankTags rank_;
  // State across lines.
  std::string pending_command_;
  std::string pending_command_raw_;
  std::uint64_t pending_command_line_ = 0;
  bool pip_show_sglang_ = false;
  bool in_traceback_ = false;
  bool server_ready_ = false;
};

}  // namespace servescope::sglang
