// The vLLM log grammar on real line shapes, copied into each test: lines of the corpus (the v0.19.0
// llm-d sweep, the 0.10.1.1 dennislee22 logs, the V0 excerpts of vLLM issues 12330 and 10517,
// the 0.6.6 InternVL3 log) and, for the periodic stats lines the corpus lacks, the shapes
// published in vLLM issues 43295 (V1, 2026) and 6206 (V0, 2024) and a docker-timestamped
// line of tenstorrent/tt-inference-server issue 3359.
#include "engines/vllm/vllm_log_grammar.h"

#include <gtest/gtest.h>

#include <fstream>
#include <initializer_list>
#include <sstream>

#include "engines/vllm/vllm_log_summary.h"
#include "evidence/log_reader.h"
#include "tests/grammar_fixture.h"

namespace servescope::vllm {
namespace {

using Read = testing::GrammarRead;

Read read(std::initializer_list<std::string_view> lines) {
  return testing::read_lines<VllmLogGrammar>(lines);
}

Fact one(std::string_view line) {
  return testing::read_one<VllmLogGrammar>(line);
}

double num(const Fact& f, std::string_view field) {
  auto v = f.number(field);
  EXPECT_TRUE(v.has_value()) << f.kind << " has no " << field << ": " << f.raw;
  return v.value_or(-1);
}

// --- prefixes and ranks ---------------------------------------------------------------------

TEST(VllmLogGrammar, V1PrefixGivesTimestampProcessAndMessage) {
  Fact f =
      one("(EngineCore pid=283) INFO 04-22 15:13:03 [v1/worker/gpu_model_runner.py:4820] Model "
          "loading took 12.56 GiB memory and 38.074301 seconds");
  EXPECT_EQ(f.kind, "model_loaded");
  EXPECT_DOUBLE_EQ(num(f, "weights_gib"), 12.56);
  EXPECT_DOUBLE_EQ(num(f, "elapsed_s"), 38.074301);
  EXPECT_EQ(f.timestamp, "04-22 15:13:03");
  EXPECT_EQ(f.rank.label, "EngineCore");
  EXPECT_TRUE(f.rank.is_primary());
  EXPECT_EQ(f.line, 1u);
}

TEST(VllmLogGrammar, WorkerTagsGiveTheRank) {
  Fact tp1 = one(
      "(Worker_TP1 pid=445) INFO 04-22 01:36:26 [v1/worker/gpu_worker.py:436] Available KV cache "
      "memory: 63.76 GiB");
  EXPECT_EQ(tp1.kind, "kv_cache_memory");
  EXPECT_DOUBLE_EQ(num(tp1, "available_gib"), 63.76);
  EXPECT_EQ(tp1.rank.tp, 1);
  EXPECT_EQ(tp1.rank.label, "Worker_TP1");
  EXPECT_FALSE(tp1.rank.is_primary());

  // 0.10.1.1: "VllmWorker TP1", four decimals on the weights.
  Fact old =
      one("(VllmWorker TP1 pid=1431) INFO 09-03 00:39:33 [gpu_model_runner.py:2007] Model loading "
          "took 7.1217 GiB and 168.306294 seconds");
  EXPECT_DOUBLE_EQ(num(old, "weights_gib"), 7.1217);
  EXPECT_EQ(old.rank.tp, 1);

  // 0.10: "EngineCore_0" is data-parallel rank 0.
  Fact dp =
      one("(EngineCore_0 pid=1358) INFO 09-03 00:40:55 [kv_cache_utils.py:849] GPU KV cache size: "
          "450,192 tokens");
  EXPECT_EQ(dp.rank.dp, 0);
  EXPECT_EQ(*dp.integer("tokens"), 450192);
}

TEST(VllmLogGrammar, RayWorkersTakeTheirRankFromTheAssignmentLine) {
  // Nested tags (gpt-oss-120b over Ray, 0.10.1.1): the innermost process prints the line.
  Read r = read({
      "(EngineCore_0 pid=1159) (RayWorkerWrapper pid=345, ip=10.42.11.243) INFO 09-10 23:27:29 "
      "[parallel_state.py:1134] rank 1 in world size 4 is assigned as DP rank 0, PP rank 0, TP "
      "rank 1, EP rank 1",
      "(EngineCore_0 pid=1159) (RayWorkerWrapper pid=345, ip=10.42.11.243) INFO 09-10 23:29:02 "
      "[gpu_worker.py:276] Available KV cache memory: 45.32 GiB",
  });
  const Fact* a = r.first("rank_assignment");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(*a->integer("rank"), 1);
  EXPECT_EQ(*a->integer("world_size"), 4);
  EXPECT_EQ(*a->integer("tp"), 1);
  EXPECT_EQ(*a->integer("dp"), 0);
  const Fact* kv = r.first("kv_cache_memory");
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->rank.tp, 1);
  EXPECT_EQ(kv->rank.label, "TP1");
  EXPECT_DOUBLE_EQ(num(*kv, "available_gib"), 45.32);
}

TEST(VllmLogGrammar, V0DriverIsUntaggedAndWorkersAreTagged) {
  Read r = read({
      "(VllmWorkerProcess pid=535) INFO 07-23 20:47:21 model_runner.py:1099] Loading model "
      "weights took 21.6682 GB",
      "INFO 07-23 20:47:21 model_runner.py:1099] Loading model weights took 21.6682 GB",
  });
  ASSERT_EQ(r.facts.size(), 2u);
  EXPECT_EQ(r.facts[0].kind, "model_loaded");
  EXPECT_FALSE(r.facts[0].rank.label.empty());
  EXPECT_EQ(r.facts[1].rank.label, "");
  EXPECT_TRUE(r.facts[1].rank.is_primary());
  // vLLM prints "GB" computed with 2^30: GiB.
  EXPECT_DOUBLE_EQ(num(r.facts[1], "weights_gib"), 21.6682);
  EXPECT_EQ(r.facts[1].timestamp, "07-23 20:47:21");
}

// --- the arguments and the engine config ----------------------------------------------------

TEST(VllmLogGrammar, NonDefaultArgsDict) {
  Fact f =
      one("(APIServer pid=1) INFO 04-22 15:12:00 [entrypoints/utils.py:233] non-default args: "
          "{'model_tag': 'codellama/CodeLlama-7b-hf', 'model': 'codellama/CodeLlama-7b-hf', "
          "'max_model_len': 8192, 'gpu_memory_utilization': 0.95, 'enable_prefix_caching': False}");
  EXPECT_EQ(f.kind, "non_default_args");
  EXPECT_FALSE(f.partial);
  EXPECT_EQ(f.text("model_tag"), "codellama/CodeLlama-7b-hf");
  EXPECT_EQ(*f.integer("max_model_len"), 8192);
  EXPECT_DOUBLE_EQ(num(f, "gpu_memory_utilization"), 0.95);
  ASSERT_NE(f.find("enable_prefix_caching"), nullptr);
  EXPECT_FALSE(f.find("enable_prefix_caching")->as_bool());
  EXPECT_EQ(f.rank.label, "APIServer");

  // A dict cut by the publisher (dennislee22's 147-character lines) is partial.
  Fact cut =
      one("(APIServer pid=1) INFO 09-03 00:35:55 [utils.py:326] non-default args: {'model_tag': "
          "'Qwen2-7B-Instruct', 'port': 8081, 'model': 'Qwen2-7B-Instr");
  EXPECT_TRUE(cut.partial);
}

TEST(VllmLogGrammar, SchedulerDefaultsAndChunkedPrefill) {
  Read r = read({
      "(APIServer pid=1) DEBUG 04-22 15:12:11 [engine/arg_utils.py:2232] Defaulting "
      "max_num_batched_tokens to 8192 for OPENAI_API_SERVER usage context.",
      "(APIServer pid=1) DEBUG 04-22 15:12:11 [engine/arg_utils.py:2242] Defaulting max_num_seqs "
      "to 1024 for OPENAI_API_SERVER usage context.",
      "(APIServer pid=1) INFO 04-22 15:12:11 [config/scheduler.py:238] Chunked prefill is enabled "
      "with max_num_batched_tokens=8192.",
      "(APIServer pid=1) INFO 04-22 01:35:31 [config/model.py:1678] Using max model len 8192",
      // Not a scheduler setting: the same verb for the executor.
      "(APIServer pid=1) DEBUG 04-22 01:35:31 [config/parallel.py:743] Defaulting to use mp for "
      "distributed inference",
  });
  std::vector<const Fact*> defaults;
  for (const Fact& f : r.facts) {
    if (f.kind == "scheduler_default")
      defaults.push_back(&f);
  }
  ASSERT_EQ(defaults.size(), 2u);
  EXPECT_EQ(defaults[0]->text("setting"), "max_num_batched_tokens");
  EXPECT_EQ(*defaults[0]->integer("value"), 8192);
  EXPECT_EQ(defaults[0]->text("usage_context"), "OPENAI_API_SERVER");
  EXPECT_EQ(defaults[1]->text("setting"), "max_num_seqs");
  EXPECT_EQ(*defaults[1]->integer("value"), 1024);
  ASSERT_NE(r.first("chunked_prefill"), nullptr);
  EXPECT_EQ(*r.first("chunked_prefill")->integer("max_num_batched_tokens"), 8192);
  ASSERT_NE(r.first("max_model_len"), nullptr);
  EXPECT_EQ(*r.first("max_model_len")->integer("max_model_len"), 8192);
}

TEST(VllmLogGrammar, EngineConfigCutByTheCollectorIsPartial) {
  Fact f =
      one("(EngineCore pid=283) INFO 04-22 15:12:23 [v1/engine/core.py:105] Initializing a V1 LLM "
          "engine (v0.19.0) with config: model='codellama/CodeLlama-7b-hf', "
          "speculative_config=None, dtype=torch.bfloat16, max_seq_len=8192, "
          "tensor_parallel_size=1, pipeline_parallel_size=1, kv_cache_dtype=auto, ...  [line "
          "truncated by collector]");
  EXPECT_EQ(f.kind, "engine_config");
  EXPECT_EQ(f.text("engine"), "V1");
  EXPECT_EQ(f.text("version"), "0.19.0");
  EXPECT_EQ(f.text("model"), "codellama/CodeLlama-7b-hf");
  EXPECT_EQ(*f.integer("max_seq_len"), 8192);
  EXPECT_EQ(*f.integer("tensor_parallel_size"), 1);
  EXPECT_EQ(f.text("kv_cache_dtype"), "auto");
  EXPECT_TRUE(f.partial);
}

// --- memory ---------------------------------------------------------------------------------

TEST(VllmLogGrammar, V1MemoryProfilingLine) {
  Fact f = one(
      "(Worker_TP0 pid=444) DEBUG 04-22 01:36:26 [v1/worker/gpu_worker.py:435] Memory profiling "
      "takes 19.38 seconds. Total non KV cache memory: 11.47GiB; torch peak memory increase: "
      "1.89GiB; non-torch forward increase memory: 2.07GiB; weights memory: 7.51GiB.");
  EXPECT_EQ(f.kind, "memory_profile");
  EXPECT_EQ(f.text("form"), "v1");
  EXPECT_DOUBLE_EQ(num(f, "elapsed_s"), 19.38);
  EXPECT_DOUBLE_EQ(num(f, "non_kv_cache_gib"), 11.47);
  EXPECT_DOUBLE_EQ(num(f, "activation_peak_gib"), 1.89);
  EXPECT_DOUBLE_EQ(num(f, "non_torch_gib"), 2.07);
  EXPECT_DOUBLE_EQ(num(f, "weights_gib"), 7.51);
}

TEST(VllmLogGrammar, MemorySummaryLineOf019) {
  Fact f = one(
      "(EngineCore pid=283) DEBUG 04-22 15:13:24 [v1/worker/gpu_worker.py:661] Free memory on "
      "device (78.68/79.19 GiB) on startup. Desired GPU memory utilization is (0.95, 75.23 GiB). "
      "Actual usage is 12.56 GiB for weight, 0.77 GiB for peak activation, 0.25 GiB for "
      "non-torch memory, and 0.89 GiB for CUDAGraph memory. Replace gpu_memory_utilization "
      "config with `--kv-cache-memory=65088610304` (60.62 GiB) to fit into requested memory, or "
      "`--kv-cache-memory=68789657600` (64.07 GiB) to fully utilize gpu memory. Current kv cache "
      "memory in use is 61.66 GiB.");
  EXPECT_EQ(f.kind, "memory_summary");
  EXPECT_DOUBLE_EQ(num(f, "free_memory_gib"), 78.68);
  EXPECT_DOUBLE_EQ(num(f, "total_memory_gib"), 79.19);
  EXPECT_DOUBLE_EQ(num(f, "gpu_memory_utilization"), 0.95);
  EXPECT_DOUBLE_EQ(num(f, "requested_gib"), 75.23);
  EXPECT_DOUBLE_EQ(num(f, "weights_gib"), 12.56);
  EXPECT_DOUBLE_EQ(num(f, "activation_peak_gib"), 0.77);
  EXPECT_DOUBLE_EQ(num(f, "non_torch_gib"), 0.25);
  EXPECT_DOUBLE_EQ(num(f, "cuda_graph_gib"), 0.89);
  EXPECT_DOUBLE_EQ(num(f, "kv_cache_gib"), 61.66);
}

TEST(VllmLogGrammar, V0MemoryProfileLines) {
  // vLLM issue 12330 (January 2025, A100 40GB).
  Read r = read({
      "INFO 01-13 11:35:21 model_runner.py:1099] Loading model weights took 14.9595 GB",
      "INFO 01-13 11:35:23 worker.py:241] Memory profiling takes 1.32 seconds",
      "INFO 01-13 11:35:23 worker.py:241] the current vLLM instance can use total_gpu_memory "
      "(39.50GiB) x gpu_memory_utilization (0.90) = 35.55GiB",
      "INFO 01-13 11:35:23 worker.py:241] model weights take 14.96GiB; non_torch_memory takes "
      "0.10GiB; PyTorch activation peak memory takes 9.37GiB; the rest of the memory reserved "
      "for KV Cache is 11.12GiB.",
      "INFO 01-13 11:35:23 gpu_executor.py:76] # GPU blocks: 5691, # CPU blocks: 2048",
      "INFO 01-13 11:35:23 gpu_executor.py:80] Maximum concurrency for 8192 tokens per request: "
      "11.12x",
  });
  for (LineKind k : r.kinds)
    EXPECT_EQ(k, LineKind::kFact);
  std::vector<const Fact*> profile;
  for (const Fact& f : r.facts) {
    if (f.kind == "memory_profile")
      profile.push_back(&f);
  }
  ASSERT_EQ(profile.size(), 3u);
  EXPECT_DOUBLE_EQ(num(*profile[0], "elapsed_s"), 1.32);
  EXPECT_DOUBLE_EQ(num(*profile[1], "total_memory_gib"), 39.50);
  EXPECT_DOUBLE_EQ(num(*profile[1], "gpu_memory_utilization"), 0.90);
  EXPECT_DOUBLE_EQ(num(*profile[1], "requested_gib"), 35.55);
  EXPECT_DOUBLE_EQ(num(*profile[2], "weights_gib"), 14.96);
  EXPECT_DOUBLE_EQ(num(*profile[2], "non_torch_gib"), 0.10);
  EXPECT_DOUBLE_EQ(num(*profile[2], "activation_peak_gib"), 9.37);
  EXPECT_DOUBLE_EQ(num(*profile[2], "kv_cache_gib"), 11.12);
  const Fact* blocks = r.first("gpu_blocks");
  ASSERT_NE(blocks, nullptr);
  EXPECT_EQ(*blocks->integer("num_gpu_blocks"), 5691);
  EXPECT_EQ(*blocks->integer("num_cpu_blocks"), 2048);
  EXPECT_EQ(blocks->text("source"), "executor");
  const Fact* x = r.first("max_concurrency");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(*x->integer("tokens_per_request"), 8192);
  EXPECT_DOUBLE_EQ(num(*x, "concurrency"), 11.12);
}

TEST(VllmLogGrammar, LateV0ProfilingResultsLine) {
  // vLLM issue 10517 (RTX 3090): key=value pairs with units.
  Fact f =
      one("Memory profiling results: total_gpu_memory=23.58GiB initial_memory_usage=15.34GiB "
          "peak_torch_memory=17.98GiB memory_usage_post_profile=15.35GiB non_torch_memory=0.35GiB "
          "kv_cache_size=2.89GiB gpu_memory_utilization=0.90");
  EXPECT_EQ(f.kind, "memory_profile");
  EXPECT_EQ(f.text("form"), "v0-results");
  EXPECT_DOUBLE_EQ(num(f, "total_memory_gib"), 23.58);
  EXPECT_DOUBLE_EQ(num(f, "peak_torch_gib"), 17.98);
  EXPECT_DOUBLE_EQ(num(f, "non_torch_gib"), 0.35);
  EXPECT_DOUBLE_EQ(num(f, "kv_cache_gib"), 2.89);
  EXPECT_DOUBLE_EQ(num(f, "gpu_memory_utilization"), 0.90);
}

// --- the capacity lines ---------------------------------------------------------------------

TEST(VllmLogGrammar, TheGpuFromAKernelConfigPath) {
  // The llm-d planner logs (corpus) name the GPU only in the fused-MoE config path.
  Fact f =
      one("(EngineCore pid=243) WARNING 04-22 01:07:35 "
          "[model_executor/.../fused_moe/fused_moe.py:1090] "
          "Using default MoE config. Performance might be sub-optimal! Config file not found at "
          "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/fused_moe/configs/"
          "E=128,N=768,device_name=NVIDIA_H100_80GB_HBM3.json");
  EXPECT_EQ(f.kind, "gpu");
  EXPECT_EQ(f.text("name"), "NVIDIA H100 80GB HBM3");
}

TEST(VllmLogGrammar, EarlyV1GpuBlocksLineWithoutCpuBlocks) {
  // vLLM PR 12569 (January 2025, VLLM_USE_V1=1): kv_cache_utils.py prints the GPU blocks alone.
  Fact f = one("INFO 01-30 03:19:14 kv_cache_utils.py:395] # GPU blocks: 1381");
  EXPECT_EQ(f.kind, "gpu_blocks");
  EXPECT_EQ(num(f, "num_gpu_blocks"), 1381);
  EXPECT_FALSE(f.number("num_cpu_blocks").has_value());
  EXPECT_EQ(f.text("source"), "kv_cache_utils");
}

TEST(VllmLogGrammar, TheLaunchCommandPastedAboveTheLog) {
  // The command as issue reporters paste it: a shell prompt, environment words, JSON values.
  Fact f =
      one("$ VLLM_USE_V1=1 vllm serve neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w8a8 "
          "--max-model-len 2048 --compilation-config '{\"level\": 3}'");
  EXPECT_EQ(f.kind, "launch_command");
  EXPECT_EQ(f.text("command"),
            "VLLM_USE_V1=1 vllm serve neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w8a8 "
            "--max-model-len 2048 --compilation-config '{\"level\": 3}'");
  EXPECT_EQ(
      one("python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-7B").text("command"),
      "python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-7B");
  // A prompt with a virtualenv and a host before it.
  EXPECT_EQ(one("(.venv) ubuntu@host:~/work$ vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2")
                .text("command"),
            "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2");
  // Prose that names vLLM is not a command.
  Read r = read({"I run vllm serve with two GPUs and it fails"});
  EXPECT_TRUE(r.facts.empty());
}

TEST(VllmLogGrammar, ALaunchCommandContinuedOverLines) {
  // As a bug report pastes it: a prompt, environment words, one flag a line, piped into tee.
  Read r = read({
      "$ CUDA_VISIBLE_DEVICES=0,2 VLLM_ATTENTION_BACKEND=FLASHINFER vllm serve Qwen/Qwen3-8B \\",
      "    --tensor-parallel-size 2 \\",
      "    --max-model-len 32768   \\",
      "    --gpu-memory-utilization 0.85 2>&1 | tee serve.log",
      "INFO 08-01 10:00:00 [api_server.py:1] vLLM API server version 0.10.1.1",
  });
  ASSERT_GE(r.facts.size(), 2u);
  const Fact& cmd = r.facts[0];
  EXPECT_EQ(cmd.kind, "launch_command");
  EXPECT_EQ(cmd.line, 1u);  // where the command starts
  EXPECT_EQ(cmd.text("command"),
            "CUDA_VISIBLE_DEVICES=0,2 VLLM_ATTENTION_BACKEND=FLASHINFER vllm serve Qwen/Qwen3-8B "
            "--tensor-parallel-size 2 --max-model-len 32768 --gpu-memory-utilization 0.85");
  EXPECT_EQ(r.facts[1].kind, "engine_version");
  EXPECT_EQ(r.facts[1].line, 5u);
  // The scenario reads the command's environment and flags through the intake rules.
  auto launch = logged_launch(r.facts);
  ASSERT_TRUE(launch.has_value());
  EXPECT_EQ(launch->model, "Qwen/Qwen3-8B");
  EXPECT_EQ(launch->environment.at("VLLM_ATTENTION_BACKEND"), "FLASHINFER");
  EXPECT_EQ(launch->environment.at("CUDA_VISIBLE_DEVICES"), "0,2");
  EXPECT_EQ(launch->origin, "log line 1");
  EXPECT_EQ(launch->words.back(), "0.85");
}

TEST(VllmLogGrammar, ADockerRunContinuedOverLinesNamesItsImageVersion) {
  Read r = read({
      "docker run --runtime nvidia --gpus all \\",
      "    -v ~/.cache/huggingface:/root/.cache/huggingface \\",
      "    -e VLLM_USE_V1=1 -p 8000:8000 --ipc=host \\",
      "    vllm/vllm-openai:v0.10.1.1 \\",
      "    --model mistralai/Mistral-7B-Instruct-v0.3 --max-num-seqs 64",
  });
  ASSERT_EQ(r.facts.size(), 1u);
  const Fact& cmd = r.facts[0];
  EXPECT_EQ(cmd.kind, "launch_command");
  EXPECT_EQ(cmd.text("image_version"), "0.10.1.1");
  EXPECT_EQ(
      cmd.text("command"),
      "VLLM_USE_V1=1 vllm serve --model mistralai/Mistral-7B-Instruct-v0.3 --max-num-seqs 64");
  // The image tag bounds the version.
  VllmLogGrammar g;
  VersionInference v = g.infer_version(r.facts);
  EXPECT_EQ(v.printed_version, "0.10.1.1");
  // A continued command of another program is not a launch command.
  EXPECT_TRUE(read({"docker run --gpus all \\", "  nginx:latest"}).facts.empty());
}

TEST(VllmLogGrammar, TheMergedKvSizeAndConcurrencyLineOf2026) {
  // vLLM #50462 (2026-08-04, V13): one line from KCU.update_kv_cache_capacity.
  Read r =
      read({"(EngineCore pid=2) INFO 11-04 01:04:29 [kv_cache_utils.py:1401] GPU KV cache "
            "size: 126,256 tokens, Maximum concurrency for 40,960 tokens per request: 3.08x"});
  ASSERT_EQ(r.facts.size(), 2u);
  EXPECT_EQ(r.facts[0].kind, "kv_cache_size");
  EXPECT_EQ(r.facts[0].integer("tokens"), 126256);
  EXPECT_EQ(r.facts[1].kind, "max_concurrency");
  EXPECT_EQ(r.facts[1].integer("tokens_per_request"), 40960);
  EXPECT_DOUBLE_EQ(num(r.facts[1], "concurrency"), 3.08);
  EXPECT_EQ(r.facts[1].line, 1u);
}

TEST(VllmLogGrammar, ThePiecewiseCaptureBarCountsTheCaptureSizes) {
  Fact v1 = one(
      "(EngineCore_0 pid=1) INFO 09-04 01:04:31 [gpu_model_runner.py:2708] Capturing CUDA graphs "
      "(mixed prefill-decode, PIECEWISE): 100%|██████████| 67/67 [00:03<00:00, 20.1it/s]");
  EXPECT_EQ(v1.kind, "graph_capture_progress");
  EXPECT_EQ(v1.integer("total"), 67);
  Fact old = one("Capturing CUDA graph shapes: 100%|██████████| 35/35 [00:10<00:00,  3.31it/s]");
  EXPECT_EQ(old.integer("total"), 35);
  // The FULL decode bar counts other sizes: known, not a fact.
  Read full =
      read({"(EngineCore_0 pid=1) INFO 09-04 01:04:31 [gpu_model_runner.py:2708] "
            "Capturing CUDA graphs (decode, FULL): 100%|██████████| 51/51 [00:02<00:00]"});
  EXPECT_TRUE(full.facts.empty());
}

TEST(VllmLogGrammar, VersionsPastedBesideTheLog) {
  EXPECT_EQ(one("vllm==0.10.1.1").text("version"), "0.10.1.1");
  EXPECT_EQ(one("vllm==0.10.1.1").text("source"), "pinned requirement");
  EXPECT_EQ(one("vLLM Version                 : 0.9.2").text("version"), "0.9.2");
  EXPECT_EQ(one("vLLM Version: 0.6.3.post1").text("source"), "collect_env");
  EXPECT_EQ(one("image: vllm/vllm-openai:v0.11.0").text("version"), "0.11.0");
  Read pip = read({"Name: vllm", "Version: 0.19.0", "Summary: A high-throughput engine"});
  ASSERT_FALSE(pip.facts.empty());
  EXPECT_EQ(pip.facts[0].text("version"), "0.19.0");
  EXPECT_EQ(pip.facts[0].text("source"), "pip show");
  // Such a line alone does not make a text a vLLM log (SGLang environments list vLLM too).
  VllmLogGrammar g;
  EXPECT_FALSE(g.identifies_engine(one("vllm==0.10.1.1")));
  EXPECT_TRUE(g.identifies_engine(
      one("INFO 08-01 10:00:00 [api_server.py:1] vLLM API server version 0.10.1.1")));
}

TEST(VllmLogGrammar, KvCacheSizeAndConcurrencyWithThousandsSeparators) {
  Read r = read({
      "(EngineCore pid=283) INFO 04-22 15:13:20 [v1/core/kv_cache_utils.py:1319] GPU KV cache "
      "size: 126,256 tokens",
      "(EngineCore pid=283) INFO 04-22 15:13:20 [v1/core/kv_cache_utils.py:1324] Maximum "
      "concurrency for 8,192 tokens per request: 15.41x",
      "(APIServer pid=1) DEBUG 04-22 15:13:25 [v1/metrics/loggers.py:273] Engine 000: vllm "
      "cache_config_info with initialization after num_gpu_blocks is: 7891",
      "(EngineCore pid=283) INFO 04-22 15:13:20 [v1/worker/gpu_model_runner.py:5955] Estimated "
      "CUDA graph memory: 0.84 GiB total",
      "(EngineCore pid=283) INFO 04-22 15:13:24 [v1/worker/gpu_model_runner.py:6046] Graph "
      "capturing finished in 4 secs, took 0.89 GiB",
      "(EngineCore pid=283) INFO 04-22 15:13:24 [v1/worker/gpu_worker.py:597] CUDA graph pool "
      "memory: 0.89 GiB (actual), 0.84 GiB (estimated), difference: 0.05 GiB (5.5%).",
  });
  ASSERT_EQ(r.facts.size(), 6u);
  EXPECT_EQ(*r.first("kv_cache_size")->integer("tokens"), 126256);
  EXPECT_EQ(*r.first("max_concurrency")->integer("tokens_per_request"), 8192);
  EXPECT_DOUBLE_EQ(num(*r.first("max_concurrency"), "concurrency"), 15.41);
  EXPECT_EQ(*r.first("gpu_blocks")->integer("num_gpu_blocks"), 7891);
  EXPECT_EQ(r.first("gpu_blocks")->text("source"), "cache_config_info");
  EXPECT_DOUBLE_EQ(num(*r.first("cuda_graph_estimate"), "cuda_graph_gib"), 0.84);
  EXPECT_DOUBLE_EQ(num(*r.first("graph_capture_end"), "cuda_graph_gib"), 0.89);
  EXPECT_DOUBLE_EQ(num(*r.first("graph_capture_end"), "elapsed_s"), 4);
  EXPECT_DOUBLE_EQ(num(*r.first("cuda_graph_pool"), "actual_gib"), 0.89);
  EXPECT_DOUBLE_EQ(num(*r.first("cuda_graph_pool"), "estimated_gib"), 0.84);
  EXPECT_DOUBLE_EQ(num(*r.first("cuda_graph_pool"), "difference_gib"), 0.05);
}

// --- the periodic stats line ----------------------------------------------------------------

TEST(VllmLogGrammar, V1StatsLine) {
  // vLLM issue 43295 (May 2026).
  Fact f =
      one("(APIServer pid=3646) INFO 05-19 10:13:11 [loggers.py:271] Engine 000: Avg prompt "
          "throughput: 0.0 tokens/s, Avg generation throughput: 1055.3 tokens/s, Running: 18 reqs, "
          "Waiting: 43 reqs, GPU KV cache usage: 95.9%, Prefix cache hit rate: 0.0%");
  EXPECT_EQ(f.kind, "decode_batch");
  EXPECT_FALSE(f.partial);
  EXPECT_EQ(*f.integer("engine"), 0);
  EXPECT_DOUBLE_EQ(num(f, "prompt_throughput_tok_per_s"), 0.0);
  EXPECT_DOUBLE_EQ(num(f, "gen_throughput_tok_per_s"), 1055.3);
  EXPECT_EQ(*f.integer("running_req"), 18);
  EXPECT_EQ(*f.integer("queue_req"), 43);
  EXPECT_DOUBLE_EQ(num(f, "kv_cache_usage_pct"), 95.9);
  EXPECT_DOUBLE_EQ(num(f, "token_usage"), 0.959);
  EXPECT_DOUBLE_EQ(num(f, "prefix_cache_hit_rate_pct"), 0.0);
  EXPECT_EQ(f.timestamp, "05-19 10:13:11");
}

TEST(VllmLogGrammar, V0StatsLineWithSwappedAndPending) {
  // vLLM issue 6206 (July 2024), with the user's own timestamp in front.
  Fact f =
      one("[2024-07-08 15:17:34] INFO 07-08 07:17:34 metrics.py:334] Avg prompt throughput: 6501.4 "
          "tokens/s, Avg generation throughput: 69.1 tokens/s, Running: 4 reqs, Swapped: 0 reqs, "
          "Pending: 0 reqs, GPU KV cache usage: 15.6%, CPU KV cache usage: 0.0%");
  EXPECT_EQ(f.kind, "decode_batch");
  EXPECT_DOUBLE_EQ(num(f, "prompt_throughput_tok_per_s"), 6501.4);
  EXPECT_EQ(*f.integer("running_req"), 4);
  EXPECT_EQ(*f.integer("swapped_req"), 0);
  EXPECT_EQ(*f.integer("queue_req"), 0);
  EXPECT_DOUBLE_EQ(num(f, "kv_cache_usage_pct"), 15.6);
  EXPECT_DOUBLE_EQ(num(f, "cpu_kv_cache_usage_pct"), 0.0);
}

TEST(VllmLogGrammar, StatsLineBehindADockerTimestamp) {
  // tenstorrent/tt-inference-server issue 3359: `docker logs -t` output.
  Fact f = one(
      "2026-05-12T08:01:49.332184394Z (APIServer pid=1) INFO 05-12 08:01:49 [loggers.py:271] "
      "Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 7.2 tokens/s, "
      "Running: 9 reqs, Waiting: 1 reqs, GPU KV cache usage: 68.8%, Prefix cache hit rate: 0.0%");
  EXPECT_EQ(f.kind, "decode_batch");
  EXPECT_EQ(*f.integer("running_req"), 9);
  EXPECT_EQ(*f.integer("queue_req"), 1);
  EXPECT_DOUBLE_EQ(num(f, "kv_cache_usage_pct"), 68.8);
}

// --- failures -------------------------------------------------------------------------------

TEST(VllmLogGrammar, V0ContextDoesNotFitTheKvCache) {
  Fact f =
      one("The model's max seq len (29000) is larger than the maximum number of tokens that can be "
          "stored in KV cache (23648). Try increasing `gpu_memory_utilization` or decreasing "
          "`max_model_len` when initializing the engine.");
  EXPECT_EQ(f.kind, "startup_failure");
  EXPECT_EQ(*f.integer("max_model_len"), 29000);
  EXPECT_EQ(*f.integer("kv_tokens"), 23648);
  ASSERT_NE(f.find("oom"), nullptr);
  EXPECT_FALSE(f.find("oom")->as_bool());
}

TEST(VllmLogGrammar, V1ContextNeedsMoreKvMemory) {
  Fact f = one(
      "(EngineCore_DP0 pid=321) ERROR 10-01 12:00:00 [core.py:708] ValueError: To serve at least "
      "one request with the models's max seq len (131072), (16.00 GiB KV cache is needed, which "
      "is larger than the available KV cache memory (9.56 GiB). Based on the available memory, "
      "the estimated maximum model length is 78256. Try increasing `gpu_memory_utilization` or "
      "decreasing `max_model_len` when initializing the engine.");
  EXPECT_EQ(f.kind, "startup_failure");
  EXPECT_EQ(f.text("error"), "ValueError");
  EXPECT_EQ(*f.integer("max_model_len"), 131072);
  EXPECT_DOUBLE_EQ(num(f, "needed_gib"), 16.0);
  EXPECT_DOUBLE_EQ(num(f, "available_gib"), 9.56);
  EXPECT_EQ(*f.integer("estimated_max_model_len"), 78256);
  EXPECT_EQ(f.rank.dp, 0);
}

TEST(VllmLogGrammar, OutOfMemoryBeforeAndAfterTheServerIsReady) {
  Read r = read({
      "(EngineCore pid=7) ERROR 04-22 15:13:03 [v1/engine/core.py:900] torch.OutOfMemoryError: "
      "CUDA out of memory. Tried to allocate 1.96 GiB. GPU 0 has a total capacity of 79.19 GiB "
      "of which 1.02 GiB is free.",
      "(APIServer pid=1) INFO 04-22 15:14:00 [entrypoints/launcher.py:46] Starting vLLM server on "
      "http://0.0.0.0:8000",
      "(EngineCore pid=7) ERROR 04-22 15:20:00 [v1/engine/core.py:900] torch.OutOfMemoryError: "
      "CUDA out of memory. Tried to allocate 4.00 GiB.",
  });
  ASSERT_EQ(r.facts.size(), 3u);
  EXPECT_EQ(r.facts[0].kind, "startup_failure");
  EXPECT_TRUE(r.facts[0].find("oom")->as_bool());
  EXPECT_EQ(r.facts[1].kind, "server_ready");
  EXPECT_EQ(r.facts[1].text("url"), "http://0.0.0.0:8000");
  EXPECT_EQ(r.facts[2].kind, "runtime_error");
  EXPECT_TRUE(r.facts[2].find("oom")->as_bool());
}

// --- cleaning: ANSI colours, CRLF -----------------------------------------------------------

TEST(VllmLogGrammar, AnsiColouredTagsAndCrlfThroughTheReader) {
  const std::string text =
      "\x1b[1;36m(APIServer pid=1)\x1b[0;0m INFO 04-22 15:12:00 [entrypoints/utils.py:233] "
      "non-default args: {'model_tag': 'Qwen/Qwen3-8B', 'model': 'Qwen/Qwen3-8B', "
      "'max_model_len': 8192}\r\n"
      "\x1b[1;36m(EngineCore_DP0 pid=283)\x1b[0;0m INFO 04-22 15:13:20 "
      "[v1/core/kv_cache_utils.py:1319] GPU KV cache size: 418,688 tokens\r\n"
      "\x1b[1;36m(EngineCore_DP0 pid=283)\x1b[0;0m INFO 04-22 15:13:20 "
      "[v1/core/kv_cache_utils.py:1324] Maximum concurrency for 8,192 tokens per request: "
      "51.11x\r\n";
  auto facts = read_log_text(text, "ansi");
  ASSERT_TRUE(facts) << facts.message();
  EXPECT_EQ(facts->engine(), "vllm");
  EXPECT_GE(facts->counts().control_chars, 3u);
  const Fact* size = facts->first("kv_cache_size");
  ASSERT_NE(size, nullptr);
  EXPECT_EQ(*size->integer("tokens"), 418688);
  EXPECT_EQ(size->rank.dp, 0);
  const Fact* x = facts->first("max_concurrency");
  ASSERT_NE(x, nullptr);
  EXPECT_DOUBLE_EQ(*x->number("concurrency"), 51.11);
  const Fact* args = facts->first("non_default_args");
  ASSERT_NE(args, nullptr);
  EXPECT_EQ(args->text("model"), "Qwen/Qwen3-8B");
  EXPECT_EQ(*args->integer("max_model_len"), 8192);
}

// --- the version and the summary of a whole log ---------------------------------------------

TEST(VllmLogGrammar, ADevelopmentBuildIsBoundedByItsBuildDateNotItsPlaceholderNumber) {
  // A source build from a shallow clone: setuptools-scm's 0.1.devN names no release.
  Read r =
      read({"(APIServer pid=1) INFO 08-16 10:00:00 [entrypoints/utils.py:299]  "
            "\xE2\x96\x84\xE2\x96\x84 \xE2\x96\x88  version 0.1.dev1+g4d2a68d64.d20260816"});
  const Fact* v = r.first("engine_version");
  ASSERT_NE(v, nullptr) << "the logo line was not read";
  VllmLogGrammar g;
  VersionInference inf = g.infer_version(r.facts);
  EXPECT_EQ(inf.printed_version, "0.1.dev1+g4d2a68d64.d20260816");
  EXPECT_EQ(inf.from_date, "");
  EXPECT_EQ(inf.until_date, "2026-08-16");
  // A build after a release: from the release, until its build date.
  Read after =
      read({"(APIServer pid=1) INFO 04-22 15:12:00 [entrypoints/utils.py:299]  "
            "\xE2\x96\x84\xE2\x96\x84 \xE2\x96\x88  version 0.19.0.dev12+gabcdef.d20260402"});
  VersionInference a = g.infer_version(after.facts);
  EXPECT_EQ(a.from_date, "2026-03-29");
  EXPECT_EQ(a.until_date, "2026-04-02");
}

TEST(VllmLogGrammar, AVersionWithAnEndlessNumberIsNotAnOverflow) {
  // Found by log_parser_fuzz: a part longer than any release's overflowed an int.
  Read r =
      read({"(APIServer pid=1) INFO 08-16 10:00:00 [entrypoints/utils.py:299]  "
            "\xE2\x96\x84\xE2\x96\x84 \xE2\x96\x88  version 0.66666666666666666666.1"});
  VllmLogGrammar g;
  VersionInference inf = g.infer_version(r.facts);
  EXPECT_EQ(inf.printed_version, "0.66666666666666666666.1");
}

TEST(VllmLogGrammar, VersionFromTheLogoAndTheEngineConfig) {
  Read r = read({
      "(APIServer pid=1) INFO 04-22 15:12:00 [entrypoints/utils.py:299]  \xE2\x96\x84\xE2\x96\x84 "
      "\xE2\x96\x84\xE2\x96\x88 \xE2\x96\x88     \xE2\x96\x88     \xE2\x96\x88 "
      "\xE2\x96\x80\xE2\x96\x84\xE2\x96\x80 \xE2\x96\x88  version 0.19.0",
  });
  const Fact* v = r.first("engine_version");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->text("version"), "0.19.0");
  EXPECT_EQ(v->text("source"), "logo");
  VllmLogGrammar g;
  VersionInference inf = g.infer_version(r.facts);
  EXPECT_EQ(inf.printed_version, "0.19.0");
  // data/vllm/releases.csv places 0.19.0 at main 2026-03-29.
  EXPECT_EQ(inf.from_date, "2026-03-29");
  EXPECT_EQ(inf.until_date, "2026-03-29");

  // A version older than the release table (0.6.6.post1): bounded above only.
  Read old =
      read({"INFO 07-23 20:47:05 llm_engine.py:234] Initializing an LLM engine "
            "(v0.6.6.post1) with config: model='/models/internvl3-78b', "
            "tensor_parallel_size=8, max_seq_len=8192"});
  const Fact* config = old.first("engine_config");
  ASSERT_NE(config, nullptr);
  EXPECT_EQ(config->text("engine"), "V0");
  EXPECT_EQ(config->text("version"), "0.6.6.post1");
  VersionInference v0 = g.infer_version(old.facts);
  EXPECT_EQ(v0.from_date, "");
  EXPECT_FALSE(v0.until_date.empty());
  EXPECT_LE(v0.until_date, "2025-09-30");
}

}  // namespace
}  // namespace servescope::vllm
