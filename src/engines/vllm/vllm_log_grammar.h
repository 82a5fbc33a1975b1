// vLLM's log lines (docs/research/vllm-capacity.md §10) in the forms of V0 (0.6.x), V1 (0.10.x) and
// 0.19.x–main 2026.
//
// Line prefix: `(PROC pid=N) LEVEL MM-DD HH:MM:SS [path/file.py:NNN] message` (V1; PROC is
// APIServer, EngineCore, EngineCore_0, EngineCore_DP1, VllmWorker TP1, Worker_TP1, or a Ray
// worker `(RayWorkerWrapper pid=N, ip=A)`, possibly nested), `LEVEL MM-DD HH:MM:SS
// file.py:NNN] message` (V0, the driver untagged, `(VllmWorkerProcess pid=N)` for the other
// ranks), a process tag alone (progress bars, Python warnings, uvicorn), or no prefix at all
// (published excerpts). Rank tags come from the process name (DP/TP/PP/EP indices), else from
// the process's "rank R in world size W is assigned as DP rank a, PP rank b, TP rank c" line;
// an untagged V0 line is the driver (rank 0).
//
// Published logs are sometimes hard-wrapped at a terminal's width: a line whose text is cut
// (a dict or config left open, a number missing at its end) or not recognised is held and
// joined with the unprefixed lines that continue it before its facts are emitted.
//
// Fact kinds and fields (units in the names, GiB as vLLM prints them):
//   graph_capture_progress mode ("shapes", "mixed prefill-decode, PIECEWISE"), total: the
//                         piecewise capture bar, whose total is the number of capture sizes
//   engine_version        version ("0.19.0"), source ("logo", "engine config", "api server",
//                         "pip show", "pinned requirement", "collect_env", "image tag"), image
//   model_name            model (the logo's "model X" or "Starting to load model X")
//   non_default_args      every key of "non-default args: {...}" (model_tag, model,
//                         max_model_len, ...; nested dicts flattened with dots); partial if cut
//   cli_args              every field of "args: Namespace(...)" (older servers)
//   launch_command        command: a `vllm serve …` / `python -m vllm.entrypoints…` / `docker run
//                         … vllm/vllm-openai…` command pasted above the log, on one line or
//                         continued over several with backslashes (environment words kept,
//                         shell prompt dropped); image, image_version for a container image
//   engine_config         engine ("V1" | "V0"), version, and every key=value of "Initializing
//                         a V1 LLM engine (v...) with config: ..." (model, max_seq_len,
//                         tensor_parallel_size, kv_cache_dtype, enable_prefix_caching,
//                         compilation_config.cudagraph_capture_sizes, ...); partial if cut
//   model_architecture    architecture
//   max_model_len         max_model_len                       ("Using max model len N")
//   scheduler_default     setting ("max_num_batched_tokens" | "max_num_seqs"), value,
//                         usage_context                       ("Defaulting X to N for ...")
//   chunked_prefill       max_num_batched_tokens
//   async_scheduling      enabled
//   rank_assignment       rank, world_size, dp, pp, tp, ep (and pcp when printed)
//   memory_snapshot       free_memory_gib, total_memory_gib, cuda_memory_gib, torch_memory_gib,
//                         non_torch_memory_gib             ("worker init memory snapshot")
//   requested_memory      requested_gib (and gpu_memory_utilization, free_memory_gib)
//   model_loaded          weights_gib, elapsed_s ("Model loading took"; V0 "Loading model
//                         weights took X GB": weights_gib too, the unit is GiB)
//   memory_profile        what one profiling line states: total_memory_gib,
//                         gpu_memory_utilization, requested_gib, weights_gib,
//                         activation_peak_gib, non_torch_gib, kv_cache_gib, peak_torch_gib,
//                         non_kv_cache_gib, elapsed_s; form ("v0-results", "v0", "v1")
//   memory_summary        free_memory_gib, total_memory_gib, gpu_memory_utilization,
//                         requested_gib, weights_gib, activation_peak_gib, non_torch_gib,
//                         cuda_graph_gib (actual), kv_cache_gib ("Free memory on device (F/T
//                         GiB) on startup ... Actual usage is ...", DEBUG, 0.19+)
//   kv_cache_memory       available_gib                      ("Available KV cache memory"; with
//                         the extensible KV cache (0.34+) the capacity reserved before warmup)
//   kv_after_warmup       free_gib, committed_gib, kept_gib, peak_gib, growth_gib,
//                         num_gpu_blocks, blocks_gib, requested_gib, torch_limit_gib
//                         ("Memory after warmup: ...", 0.34+ extensible KV cache)
//   kv_extended           num_gpu_blocks, gib                ("Extended KV cache to N blocks")
//   kv_remap              from, to                           ("Remapping the KV cache from A to B")
//   extensible_off        reason ("Disabling the extensible KV cache: ...", the run-time
//                         fallback)
//   kv_cache_reserved     free_memory_gib, reserved_gib      (--kv-cache-memory-bytes)
//   cuda_graph_profile    piecewise, piecewise_largest, full, full_largest
//   cuda_graph_estimate   cuda_graph_gib                     ("Estimated CUDA graph memory")
//   cuda_graph_profiling  gpu_memory_utilization, equivalent_utilization, suggested_utilization,
//                         subtracted (bool)
//   graph_capture_end     elapsed_s, cuda_graph_gib          ("Graph capturing finished")
//   cuda_graph_pool       actual_gib, estimated_gib, difference_gib
//   kv_cache_size         tokens                             ("GPU KV cache size: N tokens")
//   max_concurrency       tokens_per_request, concurrency    ("Maximum concurrency ... X.XXx")
//   gpu_blocks            num_gpu_blocks, num_cpu_blocks (V0 "# GPU blocks"), source
//   blocks_override       num_gpu_blocks, override
//   block_size            block_size, backend | reason ("attention", "mamba padding"),
//                         padding_pct
//   padding_layers        layers, waste_pct
//   auto_fit              from, max_model_len, available_gib
//   attention_backend     backend, candidates (text) | flash_attn_version
//   cudagraph_downgrade   from, to, text
//   fusion                passes (text)
//   setting_adjusted      level, text    (a line saying vLLM changed a setting)
//   engine_ready          elapsed_s      ("init engine (profile, create kv cache, warmup model)")
//   server_ready          url
//   startup_failure       error, message, oom; and for the context check max_model_len,
//                         kv_tokens | needed_gib, available_gib, estimated_max_model_len;
//                         before the server was ready (runtime_error after it)
//   input_too_long        input_tokens, max_tokens
//   decode_batch          the periodic stats line ("Engine 000: Avg prompt throughput ...",
//                         the engine-neutral kind the timeline reads): engine,
//                         prompt_throughput_tok_per_s, gen_throughput_tok_per_s, running_req,
//                         queue_req (waiting), swapped_req, deferred_req, preemptions,
//                         token_usage (fraction), kv_cache_usage_pct, cpu_kv_cache_usage_pct,
//                         prefix_cache_hit_rate_pct
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engines/log_fields.h"
#include "engines/log_grammar.h"
#include "intake/continued_command.h"

namespace servescope::vllm {

class VllmLogGrammar final : public LogGrammar {
 public:
  VllmLogGrammar();
  ~VllmLogGrammar() override;

  std::string_view engine() const override { return "vllm"; }
  LineKind feed(std::string_view line, std::uint64_t number, FactSink& out) override;
  void finish(FactSink& out) override;
  /// True for vLLM's own log lines; false for failures, tracebacks and setting notes, which
  /// other programs print too.
  bool identifies_engine(const Fact& fact) const override;
  VersionInference infer_version(const std::vector<Fact>& facts) const override;
  LogSummary summarize(const std::vector<Fact>& facts) const override;

 private:
  struct Patterns;  // compiled RE2 patterns, shared by all instances
  struct Prefix;
  bool parse_prefix(std::string_view line, Prefix& p);
  void set_rank(const Prefix& p);
  LineKind process(std::string_view line, bool prefixed, const Prefix& p);
  LineKind dispatch(std::string_view message, std::string_view level);
  LineKind plain(std::string_view text);
  LineKind args_dict(std::string_view m);
  LineKind engine_config(std::string_view m);
  LineKind memory_line(std::string_view m);
  LineKind capacity_line(std::string_view m);
  LineKind extensible_line(std::string_view m);
  LineKind graph_line(std::string_view m);
  LineKind stats_line(std::string_view m);
  LineKind failure_line(std::string_view m, std::string_view level);
  LineKind misc_line(std::string_view m, std::string_view level);
  void begin(std::string_view kind);
  void emit();
  void flush(FactSink& out);

  const Patterns& re_;
  Fact fact_;
  FactBuilder builder_{fact_};
  // Facts of the line being read, emitted when the line (or its wrapped record) is complete.
  std::vector<Fact> pending_;
  std::size_t pending_count_ = 0;
  bool pending_partial_ = false;  // some fact of the line was cut
  // The current line.
  std::uint64_t number_ = 0;
  std::string_view line_;
  std::string_view timestamp_;
  RankTags rank_;
  // A held line (possibly wrapped), joined with its continuations.
  std::string held_;
  std::uint64_t held_number_ = 0;
  bool holding_ = false;
  LineKind held_kind_ = LineKind::kKnown;
  bool held_reported_ = false;  // its kind was already returned for a line
  bool wrapped_ = false;        // a continuation was seen: the log is hard-wrapped
  // State across lines.
  std::map<std::string, RankTags> rank_of_process_;  // "pid=N ip=A" → rank, from assignments
  bool in_traceback_ = false;
  bool server_ready_ = false;
  // A launch command pasted over several lines ("vllm serve M \\" ...), read when complete.
  ContinuedCommand command_;
  LineKind end_command(FactSink& out);
  // A version a line states beside the log (pip freeze, collect_env, an image tag): emitted.
  bool version_clue(std::string_view text);
  bool pip_show_vllm_ = false;  // the last line was `pip show vllm`'s "Name: vllm"
};

}  // namespace servescope::vllm
