#include "engines/sglang/sglang_log_grammar.h"

#include <gtest/gtest.h>

#include <initializer_list>

#include "engines/sglang/sglang_log_scenario.h"
#include "tests/grammar_fixture.h"

namespace servescope::sglang {
namespace {

using Read = testing::GrammarRead;

Read read(std::initializer_list<std::string_view> lines) {
  return testing::read_lines<SglangLogGrammar>(lines);
}

Fact one(std::string_view line) {
  return testing::read_one<SglangLogGrammar>(line);
}

LineKind kind_of(std::string_view line) {
  return read({line}).kinds.front();
}

// --- prefix -------------------------------------------------------------------------------

TEST(SglangLogPrefix, TimestampAndRankTags) {
  Fact f = one("[2025-03-08 12:29:13 TP3] Load weight begin. avail mem=21.63 GB");
  EXPECT_EQ(f.timestamp, "2025-03-08 12:29:13");
  EXPECT_EQ(f.rank.label, "TP3");
  EXPECT_EQ(f.rank.tp, 3);
  EXPECT_EQ(f.rank.dp, -1);
  EXPECT_FALSE(f.rank.is_primary());
  EXPECT_EQ(f.line, 1u);

  Fact dp = one("[2026-05-13 02:15:18 DP1 PP0 TP5 EP5] Load weight begin. avail mem=1.00 GB");
  EXPECT_EQ(dp.rank.label, "DP1 PP0 TP5 EP5");
  EXPECT_EQ(dp.rank.dp, 1);
  EXPECT_EQ(dp.rank.pp, 0);
  EXPECT_EQ(dp.rank.tp, 5);
  EXPECT_EQ(dp.rank.ep, 5);

  Fact untagged = one("[2026-08-17 16:52:10] Load weight begin. avail mem=97.27 GB");
  EXPECT_EQ(untagged.rank.label, "");
  EXPECT_TRUE(untagged.rank.is_primary());

  Fact ms = one("[2026-07-01 10:00:00.123 TP0] Memory pool end. avail mem=2.00 GB");
  EXPECT_EQ(ms.timestamp, "2026-07-01 10:00:00.123");
  EXPECT_TRUE(ms.rank.is_primary());
}

TEST(SglangLogPrefix, PrefixAfterDockerTimestampsOrAProgressBar) {
  Fact docker =
      one("2025-02-04 21:29:17 [2025-02-04 05:29:17 TP0] Memory pool end. avail mem=1.68 GB");
  EXPECT_EQ(docker.timestamp, "2025-02-04 05:29:17");
  EXPECT_DOUBLE_EQ(*docker.number("avail_mem_gb"), 1.68);
  Fact glued = one(
      "  0%|          | 0/13 [00:00<?, ?it/s][2025-03-08 12:29:21 TP1] Capture cuda graph begin. "
      "This can take up to several minutes. avail mem=1.45 GB");
  EXPECT_EQ(glued.kind, "cuda_graph_capture_begin");
  EXPECT_EQ(glued.rank.tp, 1);
  EXPECT_DOUBLE_EQ(*glued.number("avail_mem_gb"), 1.45);
}

TEST(SglangLogPrefix, LevelAndSourceAfterThePrefix) {
  Fact note =
      one("[2025-12-28 10:39:49] WARNING server_args.py:1543: Attention backend not specified. Use "
          "flashinfer backend by default.");
  EXPECT_EQ(note.kind, "server_args_note");
  EXPECT_EQ(note.text("level"), "WARNING");
  EXPECT_EQ(note.text("text"),
            "Attention backend not specified. Use flashinfer backend by default.");
  Fact old =
      one("WARNING:sglang.srt.server_args:Disabling overlap schedule since mamba no_buffer is not "
          "compatible with overlap schedule");
  EXPECT_EQ(old.kind, "server_args_note");
}

// --- server_args (L1) ---------------------------------------------------------------------

TEST(SglangLogServerArgs, FullDumpOf2025) {
  Fact f =
      one("[2025-03-08 12:29:04] server_args=ServerArgs(model_path='/home/model/Qwen/QwQ-32B', "
          "tokenizer_mode='auto', trust_remote_code=True, quantization=None, "
          "mem_fraction_static=0.85, max_running_requests=None, chunked_prefill_size=2048, "
          "max_prefill_tokens=16384, schedule_conservativeness=1.0, tp_size=4, "
          "json_model_override_args='{}', cuda_graph_max_bs=80, cuda_graph_bs=None)");
  EXPECT_EQ(f.kind, "server_args");
  EXPECT_FALSE(f.partial);
  EXPECT_EQ(f.text("model_path"), "/home/model/Qwen/QwQ-32B");
  EXPECT_DOUBLE_EQ(*f.number("mem_fraction_static"), 0.85);
  EXPECT_TRUE(f.find("max_running_requests")->is_none());
  EXPECT_EQ(f.integer("tp_size"), 4);
  EXPECT_EQ(f.integer("cuda_graph_max_bs"), 80);
  EXPECT_TRUE(f.find("cuda_graph_bs")->is_none());
  EXPECT_DOUBLE_EQ(*f.number("schedule_conservativeness"), 1.0);
  EXPECT_TRUE(f.find("trust_remote_code")->as_bool());
}

TEST(SglangLogServerArgs, ElidedExcerptIsPartial) {
  Fact f =
      one("[2026-05-13 02:13:59] server_args=ServerArgs(model_path='/eph/m', [...] "
          "kv_cache_dtype='fp8_e4m3', [...] max_running_requests=256, [...] dp_size=4, [...])");
  EXPECT_TRUE(f.partial);
  EXPECT_EQ(f.integer("max_running_requests"), 256);
  EXPECT_EQ(f.integer("dp_size"), 4);
  EXPECT_EQ(f.text("kv_cache_dtype"), "fp8_e4m3");
}

TEST(SglangLogServerArgs, NewerDumpWithNestedConfig) {
  Fact f = one(
      "[2026-07-20 10:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3.5-122B-A10B-FP8', "
      "mem_fraction_static=0.7851, cuda_graph_config=CudaGraphConfig(decode=DecodeConfig("
      "backend='full', max_bs=117, bs=[1, 2, 4, 8]), prefill=PrefillConfig(backend='breakable', "
      "bs=[64, 128])), mamba_radix_cache_strategy='auto', "
      "flashinfer_allreduce_fusion_backend=None)");
  EXPECT_EQ(f.integer("cuda_graph_config.decode.max_bs"), 117);
  EXPECT_EQ(*f.int_list("cuda_graph_config.prefill.bs"), (IntList{64, 128}));
  EXPECT_EQ(f.text("mamba_radix_cache_strategy"), "auto");
  EXPECT_FALSE(f.partial);
}

// --- weights (L2-L4) ----------------------------------------------------------------------

TEST(SglangLogWeights, LoadWeightEndInEveryEra) {
  Fact jan25 =
      one("[2025-01-23 19:35:20 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, "
          "avail mem=63.72 GB");
  EXPECT_DOUBLE_EQ(*jan25.number("avail_mem_gb"), 63.72);
  EXPECT_FALSE(jan25.has("mem_usage_gb"));
  EXPECT_EQ(jan25.text("type"), "LlamaForCausalLM");
  EXPECT_FALSE(jan25.partial);

  Fact mar25 =
      one("[2025-03-08 12:29:21 TP1] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, "
          "avail mem=6.09 GB, mem usage=15.54 GB.");
  EXPECT_DOUBLE_EQ(*mar25.number("mem_usage_gb"), 15.54);
  EXPECT_DOUBLE_EQ(*mar25.number("avail_mem_gb"), 6.09);

  Fact y26 =
      one("[2026-08-20 03:10:54 TP0] Load weight end. elapsed=4.76 s, "
          "type=Qwen3_5ForConditionalGeneration, quant=fp8, fmt=e4m3, avail mem=264.75 GB, mem "
          "usage=14.49 GB.");
  EXPECT_DOUBLE_EQ(*y26.number("elapsed_s"), 4.76);
  EXPECT_EQ(y26.text("quant"), "fp8");
  EXPECT_EQ(y26.text("fmt"), "e4m3");
  EXPECT_DOUBLE_EQ(*y26.number("avail_mem_gb"), 264.75);
  EXPECT_DOUBLE_EQ(*y26.number("mem_usage_gb"), 14.49);
  EXPECT_FALSE(y26.has("dtype"));

  Fact cut = one("Load weight end. quant=fp8, fmt=e4m3, avail mem=12.25 GB, mem usage=125.65 GB.");
  EXPECT_TRUE(cut.partial);  // no type=: the excerpt starts mid-line
  EXPECT_DOUBLE_EQ(*cut.number("mem_usage_gb"), 125.65);
}

TEST(SglangLogWeights, BeginAndTorchDistributed) {
  EXPECT_DOUBLE_EQ(*one("[2025-03-08 12:29:13 TP0] Load weight begin. avail mem=21.63 GB")
                        .number("avail_mem_gb"),
                   21.63);
  Fact old = one("[2025-03-08 12:29:13 TP2] Init torch distributed ends. mem usage=0.13 GB");
  EXPECT_EQ(old.kind, "init_torch_distributed_end");
  EXPECT_DOUBLE_EQ(*old.number("mem_usage_gb"), 0.13);
  Fact y26 = one(
      "[2026-07-01 00:00:00 TP0] Init torch distributed ends. elapsed=1.25 s, mem usage=0.50 GB");
  EXPECT_DOUBLE_EQ(*y26.number("elapsed_s"), 1.25);
  EXPECT_EQ(one("[2025-01-23 19:35:14 TP0] Init torch distributed begin.").kind,
            "init_torch_distributed_begin");
}

// --- pools (L5-L8) ------------------------------------------------------------------------

TEST(SglangLogPools, KvCacheInEveryForm) {
  Fact jan25 =
      one("[2025-01-23 19:35:20 TP0] KV Cache is allocated. K size: 27.13 GB, V size: 27.13 GB.");
  EXPECT_FALSE(jan25.has("tokens"));
  EXPECT_DOUBLE_EQ(*jan25.number("k_size_gb"), 27.13);
  EXPECT_DOUBLE_EQ(*jan25.number("v_size_gb"), 27.13);

  Fact mar25 = one(
      "[2025-03-08 12:29:21 TP0] KV Cache is allocated. #tokens: 46611, K size: 1.42 GB, V size: "
      "1.42 GB");
  EXPECT_EQ(mar25.integer("tokens"), 46611);
  EXPECT_FALSE(mar25.has("dtype"));

  Fact mla =
      one("[2025-11-21 04:11:02 TP5] KV Cache is allocated. #tokens: 8050, KV size: 0.53 GB");
  EXPECT_EQ(mla.integer("tokens"), 8050);
  EXPECT_DOUBLE_EQ(*mla.number("kv_size_gb"), 0.53);

  Fact dtype = one(
      "[2026-08-17 16:52:13] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 1933682, KV "
      "size: 12.45 GB");
  EXPECT_EQ(dtype.text("dtype"), "torch.bfloat16");
  EXPECT_EQ(dtype.integer("tokens"), 1933682);
  EXPECT_DOUBLE_EQ(*dtype.number("kv_size_gb"), 12.45);

  Fact sep = one("[2025-12-29 18:33:03 TP0] Using KV cache dtype: torch.float8_e4m3fn");
  EXPECT_EQ(sep.kind, "kv_cache_dtype");
  EXPECT_EQ(sep.text("dtype"), "torch.float8_e4m3fn");
}

TEST(SglangLogPools, MambaSwaAndPoolEnd) {
  Fact old =
      one("[2025-09-20 00:00:00 TP0] Mamba Cache is allocated. conv_state size: 1.20GB, ssm_state "
          "size: 3.40GB");
  EXPECT_FALSE(old.has("max_mamba_cache_size"));
  EXPECT_DOUBLE_EQ(*old.number("ssm_state_size_gb"), 3.40);

  Fact k =
      one("[2025-12-29 18:33:03 TP0] Mamba Cache is allocated. max_mamba_cache_size: 85292, "
          "conv_state size: 4.88GB, ssm_state size: 0.00GB ");
  EXPECT_EQ(k.kind, "mamba_cache_allocated");
  EXPECT_EQ(k.integer("max_mamba_cache_size"), 85292);
  EXPECT_DOUBLE_EQ(*k.number("conv_state_size_gb"), 4.88);

  Fact spec = one(
      "[2026-07-20 00:00:00 TP0] Mamba Cache is allocated. max_mamba_cache_size: 325, conv_state "
      "size: 0.12GB, ssm_state size: 10.00GB intermediate_ssm_state_cache size: 2.00GB "
      "intermediate_conv_window_cache size: 0.05GB ");
  EXPECT_EQ(spec.integer("max_mamba_cache_size"), 325);
  EXPECT_DOUBLE_EQ(*spec.number("intermediate_ssm_state_cache_size_gb"), 2.0);

  Fact swa =
      one("[2026-07-20 00:00:00 TP0] Use sliding window memory pool. full_layer_tokens=100000, "
          "swa_layer_tokens=80000");
  EXPECT_EQ(swa.kind, "swa_pool");
  EXPECT_EQ(swa.integer("full_layer_tokens"), 100000);
  EXPECT_EQ(swa.integer("swa_layer_tokens"), 80000);
  EXPECT_FALSE(swa.find("all_swa")->as_bool());
  Fact all =
      one("[2026-07-20 00:00:00] Use sliding window memory pool (all SWA). swa_layer_tokens=4096");
  EXPECT_TRUE(all.find("all_swa")->as_bool());
  EXPECT_EQ(all.integer("swa_layer_tokens"), 4096);

  EXPECT_DOUBLE_EQ(
      *one("[2025-03-08 12:29:21 TP0] Memory pool end. avail mem=2.09 GB").number("avail_mem_gb"),
      2.09);

  Fact dsv4 =
      one("[2026-05-13 02:15:18 DP0 TP0] DSv4 memory calculation: bytes_per_full_token=176983.05, "
          "available_bytes=87.26 GB, full_token=529408");
  EXPECT_EQ(dsv4.kind, "kv_pool_detail");
  EXPECT_EQ(dsv4.integer("full_token"), 529408);
  EXPECT_DOUBLE_EQ(*dsv4.number("available_bytes_gb"), 87.26);
  Fact init =
      one("[2026-05-13 02:15:18 DP0 TP0] Initialize DeepSeekV4TokenToKVPool with max_num_reqs=256 "
          "swa_size=423424 c4_size=132352");
  EXPECT_EQ(init.text("pool"), "DeepSeekV4TokenToKVPool");
  EXPECT_EQ(init.integer("max_num_reqs"), 256);
  EXPECT_EQ(init.integer("swa_size"), 423424);
}

// --- CUDA graphs (L9, L10) ----------------------------------------------------------------

TEST(SglangLogCapture, LegacyLinesOf2025) {
  Fact b0 = one(
      "[2025-01-23 19:35:20 TP0] Capture cuda graph begin. This can take up to several minutes.");
  EXPECT_EQ(b0.kind, "cuda_graph_capture_begin");
  EXPECT_EQ(b0.text("graph"), "decode");
  EXPECT_EQ(b0.text("form"), "legacy");
  EXPECT_FALSE(b0.has("avail_mem_gb"));

  Fact e0 = one("[2025-01-23 19:35:27 TP0] Capture cuda graph end. Time elapsed: 6.57 s");
  EXPECT_DOUBLE_EQ(*e0.number("elapsed_s"), 6.57);
  EXPECT_FALSE(e0.has("mem_usage_gb"));

  Fact e1 = one(
      "[2025-03-08 12:29:28 TP0] Capture cuda graph end. Time elapsed: 7.23 s. avail mem=0.53 GB. "
      "mem usage=0.93 GB.");
  EXPECT_DOUBLE_EQ(*e1.number("elapsed_s"), 7.23);
  EXPECT_DOUBLE_EQ(*e1.number("avail_mem_gb"), 0.53);
  EXPECT_DOUBLE_EQ(*e1.number("mem_usage_gb"), 0.93);

  Fact e2 = one(
      "[2025-12-29 18:33:04 TP0] Capture cuda graph end. Time elapsed: 1.01 s. mem usage=0.03 GB. "
      "avail mem=2.39 GB.");
  // graph, form, elapsed_s, then the two figures in printed order (era evidence).
  EXPECT_EQ(e2.fields[3].name, "mem_usage_gb");
  EXPECT_EQ(e2.fields[4].name, "avail_mem_gb");

  Fact bs = one("[2025-12-29 18:33:03 TP0] Capture cuda graph bs [1, 2, 4, 8]");
  EXPECT_EQ(bs.kind, "cuda_graph_bs");
  EXPECT_EQ(*bs.int_list("bs"), (IntList{1, 2, 4, 8}));
  EXPECT_EQ(bs.text("form"), "legacy");

  Fact pw = one("[2026-01-10 00:00:00 TP0] Capture piecewise CUDA graph begin. avail mem=10.00 GB");
  EXPECT_EQ(pw.text("graph"), "piecewise");
}

TEST(SglangLogCapture, NamedLinesOf2026AlsoGiveTheBatchSizes) {
  Read r =
      read({"[2026-08-17 16:52:13] Capture target decode CUDA graph begin. backend=full, "
            "num_tokens_per_req=1, bs=[1, 2], avail mem=73.10 GB"});
  ASSERT_EQ(r.facts.size(), 2u);
  const Fact& b = r.facts[0];
  EXPECT_EQ(b.kind, "cuda_graph_capture_begin");
  EXPECT_EQ(b.text("graph"), "target decode");
  EXPECT_EQ(b.text("form"), "named");
  EXPECT_EQ(b.text("backend"), "full");
  EXPECT_EQ(b.integer("num_tokens_per_req"), 1);
  EXPECT_EQ(*b.int_list("bs"), (IntList{1, 2}));
  EXPECT_DOUBLE_EQ(*b.number("avail_mem_gb"), 73.10);
  EXPECT_EQ(r.facts[1].kind, "cuda_graph_bs");
  EXPECT_EQ(*r.facts[1].int_list("bs"), (IntList{1, 2}));
  EXPECT_EQ(r.facts[1].line, 1u);

  Fact e = one(
      "[2026-08-17 16:52:18] Capture target decode CUDA graph end. elapsed=2.58 s, mem usage=0.45 "
      "GB, avail mem=72.65 GB.");
  EXPECT_EQ(e.kind, "cuda_graph_capture_end");
  EXPECT_DOUBLE_EQ(*e.number("mem_usage_gb"), 0.45);
  EXPECT_DOUBLE_EQ(*e.number("elapsed_s"), 2.58);

  Read verify =
      read({"[2026-06-25 00:00:00 TP0] Capture target verify CUDA graph begin. "
            "backend=full, num_tokens_per_bs=4, bs=[1, 2, 4, 8, 16, 24, 32, 40, 48], "
            "avail mem=20.00 GB"});
  ASSERT_EQ(verify.facts.size(), 2u);
  EXPECT_EQ(verify.facts[0].integer("num_tokens_per_bs"), 4);
  EXPECT_EQ(verify.facts[1].int_list("bs")->back(), 48);

  Read prefill =
      read({"[2026-07-20 00:00:00 TP0] Capture target prefill CUDA graph begin. "
            "backend=breakable, num_tokens=[64, 128, 256], avail mem=30.00 GB"});
  ASSERT_EQ(prefill.facts.size(), 1u);  // not a decode list
  EXPECT_EQ(*prefill.facts[0].int_list("num_tokens"), (IntList{64, 128, 256}));
}

TEST(SglangLogCapture, AFailedCaptureIsAStartupFailure) {
  Fact f = one(
      "[2026-04-07 13:03:55] Capture cuda graph failed: CUDA out of memory. Tried to allocate 2.00 "
      "GiB");
  EXPECT_EQ(f.kind, "startup_failure");
  EXPECT_TRUE(f.find("oom")->as_bool());
}

// --- the final line and its warnings (L12, L13) -------------------------------------------

TEST(SglangLogCapacity, FinalLineInEveryEra) {
  Fact jan =
      one("[2025-01-23 19:35:27 TP0] max_total_num_tokens=444500, max_prefill_tokens=16384, "
          "max_running_requests=2049, context_len=131072");
  EXPECT_EQ(jan.kind, "capacity");
  EXPECT_EQ(jan.integer("max_total_num_tokens"), 444500);
  EXPECT_EQ(jan.integer("max_running_requests"), 2049);
  EXPECT_EQ(jan.integer("context_len"), 131072);
  EXPECT_FALSE(jan.has("chunked_prefill_size"));

  Fact feb =
      one("[2025-02-17 05:27:24 TP6] max_total_num_tokens=712400, chunked_prefill_size=8192, "
          "max_prefill_tokens=16384, max_running_requests=50, context_len=163840");
  EXPECT_EQ(feb.integer("chunked_prefill_size"), 8192);
  EXPECT_EQ(feb.integer("max_running_requests"), 50);

  Fact y26 =
      one("[2026-08-20 03:11:02 TP0] max_total_num_tokens=3228418, chunked_prefill_size=16384, "
          "max_prefill_tokens=16384, max_running_requests=32, context_len=262144, "
          "available_gpu_mem=75.82 GB");
  EXPECT_DOUBLE_EQ(*y26.number("available_gpu_mem_gb"), 75.82);
  EXPECT_EQ(y26.integer("max_total_num_tokens"), 3228418);

  Fact chunk_off =
      one("[2026-01-01 00:00:00 TP0] max_total_num_tokens=1000, chunked_prefill_size=-1, "
          "max_prefill_tokens=16384, max_running_requests=500, context_len=4096, "
          "available_cpu_mem=100.00 GB");
  EXPECT_EQ(chunk_off.integer("chunked_prefill_size"), -1);
  EXPECT_DOUBLE_EQ(*chunk_off.number("available_cpu_mem_gb"), 100.0);

  Fact bench = one("max_total_num_tokens=473854");
  EXPECT_EQ(bench.integer("max_total_num_tokens"), 473854);
  EXPECT_FALSE(bench.has("max_running_requests"));
}

TEST(SglangLogCapacity, TheWarningsThatChangeCapacity) {
  Fact r48 = one(
      "[2026-01-01 00:00:00] Max running requests is reset to 48 for speculative decoding. You can "
      "override this by explicitly setting --max-running-requests.");
  EXPECT_EQ(r48.kind, "warning_reset_48");
  EXPECT_EQ(r48.integer("max_running_requests"), 48);
  EXPECT_TRUE(r48.find("override_hint")->as_bool());
  Fact r48old =
      one("[2025-10-20 00:00:00] Max running requests is reset to 48 for speculative decoding.");
  EXPECT_FALSE(r48old.find("override_hint")->as_bool());
  Fact s32 =
      one("[2025-03-10 00:00:00] Max running request set to 32 because of using eagle speculative "
          "decoding.");
  EXPECT_EQ(s32.kind, "warning_set_32");
  EXPECT_EQ(s32.integer("max_running_requests"), 32);

  Fact reduced = one(
      "[2026-07-20 00:00:00 TP0] max_running_requests was reduced from the requested 256 to 117 "
      "(per dp worker) due to the available KV cache capacity.");
  EXPECT_EQ(reduced.kind, "warning_reduced_from_requested");
  EXPECT_EQ(reduced.integer("requested"), 256);
  EXPECT_EQ(reduced.integer("max_running_requests"), 117);

  Fact cap =
      one("[2026-07-25 00:00:00 TP0] max_running_requests is capped to 65 by the mamba state cache "
          "(max_mamba_cache_size=325, ratio=5).");
  EXPECT_EQ(cap.kind, "warning_mamba_cap");
  EXPECT_EQ(cap.integer("max_running_requests"), 65);

  Fact post =
      one("[2026-07-20 00:00:00 TP0] Post-capture KV sizing: max_total_num_tokens=2000000, free "
          "memory=3.20 GB");
  EXPECT_EQ(post.kind, "post_capture_kv_resize");
  EXPECT_EQ(post.integer("max_total_num_tokens"), 2000000);
  EXPECT_DOUBLE_EQ(*post.number("free_memory_gb"), 3.20);
  Fact post_m =
      one("[2026-07-20 00:00:00 TP0] Post-capture KV sizing: max_running_requests 64 -> 48");
  EXPECT_EQ(post_m.integer("max_running_requests_from"), 64);
  EXPECT_EQ(post_m.integer("max_running_requests"), 48);
}

// --- failures -----------------------------------------------------------------------------

TEST(SglangLogFailures, ExceptionsTracebacksAndOom) {
  Read r = read({
      "[2026-04-07 13:03:55] Scheduler hit an exception: Traceback (most recent call last):",
      "  File \"/sgl/scheduler.py\", line 10, in run",
      "    self.init()",
      "ValueError: Loaded weights leave no GPU memory for the KV cache under "
      "--mem-fraction-static=0.88.",
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
      "[2026-04-07 13:04:00] Received sigquit from a child process. It usually means the child "
      "failed.",
  });
  ASSERT_EQ(r.facts.size(), 4u);
  EXPECT_EQ(r.facts[0].kind, "startup_failure");
  EXPECT_EQ(r.kinds[1], LineKind::kKnown);
  EXPECT_EQ(r.kinds[2], LineKind::kKnown);
  EXPECT_EQ(r.facts[1].text("error"), "ValueError");
  EXPECT_EQ(r.facts[1].line, 4u);
  EXPECT_FALSE(r.facts[1].find("oom")->as_bool());
  EXPECT_EQ(r.facts[2].text("error"), "torch.OutOfMemoryError");
  EXPECT_TRUE(r.facts[2].find("oom")->as_bool());
  EXPECT_EQ(r.facts[3].kind, "startup_failure");
}

TEST(SglangLogFailures, AfterReadyItIsARuntimeError) {
  Read r = read({"[2025-03-08 12:29:33] The server is fired up and ready to roll!",
                 "RuntimeError: CUDA error: an illegal memory access was encountered"});
  ASSERT_EQ(r.facts.size(), 2u);
  EXPECT_EQ(r.facts[0].kind, "server_ready");
  EXPECT_EQ(r.facts[1].kind, "runtime_error");
}

// --- periodic lines (L14, L15) ------------------------------------------------------------

TEST(SglangLogBatches, DecodeLinesOfEveryForm) {
  Fact old =
      one("[2025-01-23 19:36:00 TP0] Decode batch. #running-req: 1, #token: 41, token usage: 0.00, "
          "gen throughput (token/s): 6.01, #queue-req: 0");
  EXPECT_EQ(old.kind, "decode_batch");
  EXPECT_EQ(old.integer("running_req"), 1);
  EXPECT_EQ(old.integer("token"), 41);
  EXPECT_DOUBLE_EQ(*old.number("token_usage"), 0.0);
  EXPECT_DOUBLE_EQ(*old.number("gen_throughput_tok_per_s"), 6.01);
  EXPECT_EQ(old.integer("queue_req"), 0);

  Fact now = one(
      "[2026-07-20 00:00:00 TP0] Decode batch, #running-req: 64, #token: 12345, token usage: 0.42, "
      "accept len: 2.31, accept rate: 0.77, cuda graph: True, gen throughput (token/s): 3456.78, "
      "#queue-req: 5");
  EXPECT_EQ(now.integer("running_req"), 64);
  EXPECT_DOUBLE_EQ(*now.number("accept_len"), 2.31);
  EXPECT_TRUE(now.find("cuda_graph")->as_bool());
  EXPECT_EQ(now.integer("queue_req"), 5);

  Fact hybrid = one(
      "[2026-07-20 00:00:00 TP0] Decode batch [1234], #running-req: 48, #full token: 90000, full "
      "token usage: 0.05, mamba num: 96, mamba usage: 0.30, cuda graph: True, gen throughput "
      "(token/s): 1500.00, #queue-req: 16");
  EXPECT_EQ(hybrid.integer("iter"), 1234);
  EXPECT_EQ(hybrid.integer("full_token"), 90000);
  EXPECT_DOUBLE_EQ(*hybrid.number("full_token_usage"), 0.05);
  EXPECT_EQ(hybrid.integer("mamba_num"), 96);
  EXPECT_DOUBLE_EQ(*hybrid.number("mamba_usage"), 0.30);
  EXPECT_EQ(hybrid.integer("queue_req"), 16);

  Fact pd = one(
      "[2026-07-20 00:00:00 DP3 TP3] Decode batch, #running-req: 10, #token: 5000, token usage: "
      "0.10, pre-allocated usage: 0.02, #prealloc-req: 1, #transfer-req: 2, #retracted-req: 0, "
      "cuda graph: False, gen throughput (token/s): 100.00, #queue-req: 0");
  EXPECT_EQ(pd.integer("prealloc_req"), 1);
  EXPECT_DOUBLE_EQ(*pd.number("pre_allocated_usage"), 0.02);
  EXPECT_FALSE(pd.find("cuda_graph")->as_bool());
}

TEST(SglangLogBatches, PrefillLinesOfEveryForm) {
  Fact jan =
      one("[2025-01-23 19:35:28 TP0] Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, "
          "cache hit rate: 0.00%, token usage: 0.00, #running-req: 0, #queue-req: 0");
  EXPECT_EQ(jan.kind, "prefill_batch");
  EXPECT_EQ(jan.integer("new_seq"), 1);
  EXPECT_EQ(jan.integer("new_token"), 7);
  EXPECT_DOUBLE_EQ(*jan.number("cache_hit_rate_pct"), 0.0);

  Fact mixed = one(
      "[2024-11-01 00:00:00 TP0] Prefill batch(mixed #running-req: 3). #new-seq: 1, #new-token: "
      "512, #cached-token: 0, token usage: 0.20, #running-req: 3, #queue-req: 2");
  EXPECT_EQ(mixed.integer("mixed_running_req"), 3);
  EXPECT_EQ(mixed.integer("queue_req"), 2);

  Fact now =
      one("[2026-07-20 00:00:00 TP0] Prefill batch, #new-seq: 4, #new-token: 8192, #cached-token: "
          "1024, full token usage: 0.31, mamba usage: 0.12, #running-req: 40, #queue-req: 7, "
          "#pending-token: 300, cuda graph: False, input throughput (token/s): 12000.50");
  EXPECT_EQ(now.integer("running_req"), 40);
  EXPECT_DOUBLE_EQ(*now.number("input_throughput_tok_per_s"), 12000.50);
  EXPECT_EQ(now.integer("pending_token"), 300);
}

// --- launch command, versions, GPUs --------------------------------------------------------

TEST(SglangLogHeader, OtherLibrariesLinesAreKnownNotSettings) {
  // A two-node PD-disaggregated run (Mooncake transfer engine, DeepGEMM warm-up).
  Read r =
      read({"I0227 14:34:02.054051 3828982 transfer_engine_impl.cpp:571] Metrics reporting "
            "is disabled (set MC_TE_METRIC=1 to enable)",
            "[2026-02-27 14:33:48 TP0] Required memory for warmup: 0.18792724609375GB, "
            "Available memory: 15.0693359375GB"});
  EXPECT_TRUE(r.facts.empty());
  EXPECT_EQ(r.kinds[0], LineKind::kKnown);
  EXPECT_EQ(r.kinds[1], LineKind::kKnown);
}

TEST(SglangLogHeader, TheGpuFromAKernelConfigPath) {
  // SGLang's fused-MoE / FP8 kernels name the tuned config they look for.
  Fact f =
      one("[2026-01-20 10:00:00 TP0] Config file not found at /sgl-workspace/sglang/python/sglang/"
          "srt/layers/quantization/configs/N=24576,K=1536,device_name=NVIDIA_GeForce_RTX_3090,"
          "dtype=fp8_w8a8,block_shape=[128, 128].json");
  EXPECT_EQ(f.kind, "gpu");
  EXPECT_EQ(f.text("name"), "NVIDIA GeForce RTX 3090");
}

TEST(SglangLogHeader, LaunchCommandOnOneLineOrContinued) {
  Fact one_line =
      one("python3.12 -m sglang.launch_server   --model Qwen/QwQ-32B --model-path "
          "/home/model/Qwen/QwQ-32B"
          "   --tensor-parallel-size 4   --log-level info");
  EXPECT_EQ(one_line.kind, "launch_command");
  EXPECT_EQ(one_line.text("program"), "sglang.launch_server");
  EXPECT_EQ(one_line.text("command")->substr(0, 35), "python3.12 -m sglang.launch_server ");

  Read r =
      read({"(.venv) ubuntu@host:~/sglang$ python -m sglang.launch_server \\",
            "  --model-path Qwen/Qwen3-Omni-30B-A3B-Instruct \\", "  --tp 4 \\", "  --port 30000",
            "[2025-12-28 10:39:49] WARNING server_args.py:1543: Attention backend not "
            "specified."});
  ASSERT_GE(r.facts.size(), 1u);
  EXPECT_EQ(r.facts[0].kind, "launch_command");
  EXPECT_EQ(r.facts[0].line, 1u);
  EXPECT_EQ(r.facts[0].text("command"),
            "python -m sglang.launch_server --model-path Qwen/Qwen3-Omni-30B-A3B-Instruct --tp 4 "
            "--port 30000");
  EXPECT_EQ(r.kinds[1], LineKind::kKnown);

  // SGLang's test harness (test/srt/test_utils popen_launch_server) prints it after "command=".
  Fact harness =
      one("command=python3 -m sglang.launch_server --model-path google/gemma-3-4b-it --port 2157");
  EXPECT_EQ(harness.kind, "launch_command");
  EXPECT_EQ(harness.text("command"),
            "python3 -m sglang.launch_server --model-path google/gemma-3-4b-it --port 2157");

  Read cut = read({"CUDA_VISIBLE_DEVICES=0,1 sglang serve --model-path M \\", "  --tp 2 \\"});
  ASSERT_EQ(cut.facts.size(), 1u);  // flushed at the end of input
  EXPECT_EQ(cut.facts[0].text("command"),
            "CUDA_VISIBLE_DEVICES=0,1 sglang serve --model-path M --tp 2");
  EXPECT_EQ(cut.facts[0].text("program"), "sglang serve");
}

TEST(SglangLogHeader, ADockerRunContinuedOverLines) {
  // The image and the program come on continuation lines; the tag names the version.
  Read r = read({"docker run --gpus all --shm-size 32g -p 30000:30000 \\",
                 "    -e SGLANG_ENABLE_JIT_DEEPGEMM=0 --ipc=host \\",
                 "    lmsysorg/sglang:v0.5.4.post1-cu126 \\",
                 "    python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2"});
  ASSERT_EQ(r.facts.size(), 2u);
  EXPECT_EQ(r.facts[0].kind, "engine_version");
  EXPECT_EQ(r.facts[0].text("version"), "0.5.4.post1");
  EXPECT_EQ(r.facts[1].kind, "launch_command");
  EXPECT_EQ(r.facts[1].line, 1u);
  // The scenario takes the container's environment and the engine's argv from it.
  auto scenario = sglang_scenario_from_log(r.facts);
  ASSERT_TRUE(scenario) << scenario.message();
  EXPECT_TRUE(scenario->typed_command_known);
  EXPECT_EQ(scenario->environment.at("SGLANG_ENABLE_JIT_DEEPGEMM"), "0");
  EXPECT_EQ(scenario->launch_origin, "log line 1");
  // Another program's container command is not a launch command.
  EXPECT_TRUE(read({"docker run --gpus all \\", "  nginx:latest"}).facts.empty());
}

TEST(SglangLogLines, LabelledPoolsAndTheVirtualUpperBoundOf0517) {
  // memory_pool.py::_finalize_allocation_log (#33375, #33598): the line forms of 0.5.17+.
  Read r =
      read({"[2026-09-20 10:00:31 TP0] KV Cache is allocated. dtype: torch.bfloat16, "
            "#tokens: 2073445, K size: 12.00 GB, V size: 12.00 GB",
            "[2026-09-20 10:00:31 TP0] Draft KV Cache is allocated. dtype: torch.bfloat16, "
            "#tokens: 2073445, K size: 1.20 GB, V size: 1.20 GB",
            "[2026-09-20 10:00:31 TP0] KV Cache VA upper bound. dtype: torch.bfloat16, "
            "#tokens: 2100000, K size: 12.20 GB, V size: 12.20 GB"});
  ASSERT_EQ(r.facts.size(), 3u);
  EXPECT_FALSE(r.facts[0].has("label"));
  EXPECT_EQ(r.facts[1].kind, "kv_cache_allocated");
  EXPECT_EQ(r.facts[1].text("label"), "Draft");
  EXPECT_EQ(r.facts[2].kind, "kv_cache_va_upper_bound");
  EXPECT_EQ(r.facts[2].integer("tokens"), 2100000);
  // A container prefix is not a label: the pool behind it is the target's.
  Fact docker =
      one("sglang-1  | KV Cache is allocated. #tokens: 100, K size: 1.00 GB, V size: 1.00 GB");
  EXPECT_EQ(docker.kind, "kv_cache_allocated");
  EXPECT_FALSE(docker.has("label"));
}

TEST(SglangLogHeader, TheDecodeCaptureBarCountsTheBatchSizes) {
  // As the corpus LFM2 log prints it (cuda_graph_runner.py's tqdm bar).
  Fact f = one("Capturing batches (bs=1 avail_mem=2.39 GB): 100%|█| 4/4 [00:00<00:00,  7.80it/s]");
  EXPECT_EQ(f.kind, "decode_graph_capture");
  EXPECT_EQ(f.integer("total"), 4);
  EXPECT_EQ(f.integer("captured"), 4);
  EXPECT_EQ(one("Capturing batches (bs=24 avail_mem=9.1 GB):  38%|███▊      | 20/52 [00:02<00:03]")
                .integer("total"),
            52);
  // Other bars are progress, not facts.
  EXPECT_EQ(kind_of("Loading safetensors checkpoint shards:  50% Completed | 1/2 [00:01<00:01]"),
            LineKind::kKnown);
}

TEST(SglangLogHeader, VersionsFromPipShowCheckEnvAndImageTags) {
  Read pip = read({"Name: sglang", "Version: 0.5.6.post2"});
  ASSERT_EQ(pip.facts.size(), 1u);
  EXPECT_EQ(pip.facts[0].text("version"), "0.5.6.post2");
  EXPECT_EQ(pip.facts[0].text("source"), "pip show");

  EXPECT_EQ(one("sglang: 0.4.6.post5").text("version"), "0.4.6.post5");
  EXPECT_EQ(one("pip install sglang==0.5.2").text("version"), "0.5.2");

  Fact image = one("image: rocm/sgl-dev:v0.5.8.post1-rocm720-mi35x-20260218");
  EXPECT_EQ(image.text("version"), "0.5.8.post1");
  EXPECT_EQ(image.text("image_date"), "2026-02-18");
  EXPECT_EQ(image.text("source"), "image tag");
  Fact nover = one("docker pull rocm/sgl-dev:rocm720-mi30x-339e36e-20260512-DSv4");
  EXPECT_FALSE(nover.has("version"));
  EXPECT_EQ(nover.text("image_date"), "2026-05-12");

  Fact dev = one("SGLang version: 0.5.17.dev20260819+g574274660f");
  EXPECT_EQ(dev.text("version"), "0.5.17.dev20260819+g574274660f");
  EXPECT_EQ(dev.text("build_date"), "2026-08-19");

  // Not versions.
  EXPECT_NE(kind_of("[2025-03-08 12:29:12 TP0] sglang is using nccl==2.21.5"), LineKind::kFact);
}

TEST(SglangLogHeader, GpuNames) {
  Fact env = one("GPU 0,1,2,3: NVIDIA H100 80GB HBM3");
  EXPECT_EQ(env.kind, "gpu");
  EXPECT_EQ(env.text("name"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(*env.int_list("gpu_ids"), (IntList{0, 1, 2, 3}));
  Fact smi =
      one("|   0  NVIDIA RTX PRO 6000 Blac...    On  |   00000000:01:00.0 Off |                  "
          "Off |");
  EXPECT_EQ(smi.text("name"), "NVIDIA RTX PRO 6000 Blac...");
  EXPECT_EQ(smi.integer("index"), 0);
  EXPECT_EQ(
      one("GPU:                  NVIDIA RTX PRO 6000 Blackwell Server Edition, 96GB").text("name"),
      "NVIDIA RTX PRO 6000 Blackwell Server Edition, 96GB");
}

// --- classification -----------------------------------------------------------------------

TEST(SglangLogLines, UnknownKnownAndCapacityLooking) {
  EXPECT_EQ(kind_of("[2025-03-08 12:29:12 TP0] Custom allreduce is disabled because it's not "
                    "supported on more than two PCIe-only GPUs."),
            LineKind::kFact);  // "is disabled": a setting the engine adjusted
  EXPECT_EQ(kind_of("[2025-03-08 12:29:12 TP0] Using model weights format ['*.safetensors']"),
            LineKind::kUnknown);
  EXPECT_EQ(kind_of("[2026-01-01 00:00:00 TP0] Allocated KV cache of 1234 tokens in 3 pools"),
            LineKind::kUnknownCapacity);
  EXPECT_EQ(kind_of("[2025-03-08 12:29:29] INFO:     127.0.0.1:49534 - \"GET /get_model_info "
                    "HTTP/1.1\" 200 OK"),
            LineKind::kKnown);
  // The decode capture bar carries a figure (its total); other progress bars are known lines.
  EXPECT_EQ(
      kind_of("Capturing batches (bs=1 avail_mem=2.39 GB): 100%|█| 4/4 [00:00<00:00,  7.80it/"),
      LineKind::kFact);
  EXPECT_EQ(kind_of("Loading safetensors checkpoint shards: 100% Completed | 2/2 [00:01<00:00]"),
            LineKind::kKnown);
  EXPECT_EQ(kind_of(""), LineKind::kKnown);
  // A known line behind a foreign prefix is still read.
  Fact f = one("sglang-1  | KV Cache is allocated. #tokens: 100, K size: 1.00 GB, V size: 1.00 GB");
  EXPECT_EQ(f.integer("tokens"), 100);
}

TEST(SglangLogLines, OnlyEngineSpecificFactsIdentifySglang) {
  SglangLogGrammar g;
  Fact f;
  f.kind = "startup_failure";
  EXPECT_FALSE(g.identifies_engine(f));
  f.kind = "gpu";
  EXPECT_FALSE(g.identifies_engine(f));
  f.kind = "launch_command";  // a README quotes commands too
  EXPECT_FALSE(g.identifies_engine(f));
  f.kind = "kv_cache_allocated";
  EXPECT_TRUE(g.identifies_engine(f));
  f.kind = "decode_batch";
  EXPECT_TRUE(g.identifies_engine(f));
}

TEST(SglangLogLines, InputTooLong) {
  Fact f = one("Input length (3034 tokens) exceeds the maximum allowed length (1735 tokens)");
  EXPECT_EQ(f.kind, "input_too_long");
  EXPECT_EQ(f.integer("input_tokens"), 3034);
  EXPECT_EQ(f.integer("max_tokens"), 1735);
}

}  // namespace
}  // namespace servescope::sglang
