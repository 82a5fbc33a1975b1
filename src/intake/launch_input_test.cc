// Launch commands from every source, each example written in the shape users publish them.
#include "intake/launch_input.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "intake/config_file.h"

namespace servescope {
namespace {

// The engines' programs, as the engine packs recognise them (the intake layer is told, not
// taught: engines/ owns this knowledge).
bool launches_engine(const std::vector<std::string>& w) {
  if (w.size() >= 2 && (w[0] == "vllm" || w[0] == "sglang") && w[1] == "serve")
    return true;
  for (std::size_t i = 0; i + 1 < w.size(); ++i) {
    if (w[i] == "-m" &&
        (w[i + 1] == "sglang.launch_server" || w[i + 1] == "vllm.entrypoints.openai.api_server"))
      return true;
  }
  return false;
}

const LaunchRecognizer launches{launches_engine, [](std::string_view image) {
                                  return image.rfind("vllm/vllm-openai", 0) == 0
                                             ? std::vector<std::string>{"vllm", "serve"}
                                             : std::vector<std::string>{};
                                }};

LaunchInput read_text(std::string_view text, std::string_view name = "deploy/x") {
  auto r = read_launch_text(text, name, launches);
  EXPECT_TRUE(r) << r.message();
  return r ? *r : LaunchInput{};
}

using Words = std::vector<std::string>;

TEST(LaunchInput, MultiLineCommandWithEnvPrefixAndTee) {
  LaunchInput in = read_text(
      "# start the server\n"
      "export HF_HOME=/data/hf\n"
      "CUDA_VISIBLE_DEVICES=0,2 SGLANG_ENABLE_JIT_DEEPGEMM=0 nohup python3 -m "
      "sglang.launch_server \\\n"
      "    --model-path /models/Qwen3-30B-A3B \\\n"
      "    --tp 2 --mem-fraction-static 0.85 \\\n"
      "    --port 30000 2>&1 | tee server.log &\n",
      "run.sh");
  EXPECT_EQ(in.argv,
            (Words{"python3", "-m", "sglang.launch_server", "--model-path", "/models/Qwen3-30B-A3B",
                   "--tp", "2", "--mem-fraction-static", "0.85", "--port", "30000"}));
  EXPECT_EQ(in.environment.at("CUDA_VISIBLE_DEVICES"), "0,2");
  EXPECT_EQ(in.environment.at("SGLANG_ENABLE_JIT_DEEPGEMM"), "0");
  EXPECT_EQ(in.environment.at("HF_HOME"), "/data/hf");
  EXPECT_EQ(in.gpu_count, 2);
  EXPECT_EQ(in.gpu_count_source, "CUDA_VISIBLE_DEVICES=0,2");
  EXPECT_EQ(in.origin, "run.sh:3");
}

TEST(LaunchInput, PromptsAndWrappersBeforeTheProgram) {
  const std::pair<std::string, Words> cases[] = {
      {"(venv) user@gpu-box:~$ vllm serve Qwen/Qwen3-8B --tp 2",
       {"vllm", "serve", "Qwen/Qwen3-8B", "--tp", "2"}},
      {"$ env -u FOO VLLM_USE_V1=1 sudo -E numactl --cpunodebind=0 -m 0 taskset -c 0-31 "
       "uv run --with x python -m vllm.entrypoints.openai.api_server --model m",
       {"python", "-m", "vllm.entrypoints.openai.api_server", "--model", "m"}},
      {"conda run -n serve --no-capture-output sglang serve --model-path m",
       {"sglang", "serve", "--model-path", "m"}},
      {"bash -c 'export A=1; python3 -m sglang.launch_server --model-path m --tp 8'",
       {"python3", "-m", "sglang.launch_server", "--model-path", "m", "--tp", "8"}},
      {"# python3 -m sglang.launch_server --model-path m",
       {"python3", "-m", "sglang.launch_server", "--model-path", "m"}},
  };
  for (const auto& [text, argv] : cases) {
    auto r = launch_in_shell_text(text, "", launches);
    ASSERT_TRUE(r) << text << ": " << r.message();
    EXPECT_EQ(r->argv, argv) << text;
  }
  auto r = launch_in_shell_text("$ env -u FOO VLLM_USE_V1=1 vllm serve m", "", launches);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->environment.at("VLLM_USE_V1"), "1");
  // Prose that mentions a command is not one.
  EXPECT_FALSE(launch_in_shell_text("I ran vllm serve with the defaults", "", launches));
  auto none = launch_in_shell_text("echo hello\nls -l\n", "notes.txt", launches);
  ASSERT_FALSE(none);
  EXPECT_NE(none.message().find("notes.txt: names no engine launch command"), std::string::npos);
}

TEST(LaunchInput, AWrapperWithNothingAfterItIsNoCommandNotAnOverrun) {
  // Found by launch_input_fuzz: `taskset MASK` with nothing after it stepped past the words.
  EXPECT_FALSE(launch_in_words({"taskset", "c_"}, launches));
  EXPECT_FALSE(launch_in_shell_text("\n   taskset\nc   \n   taskset c_", "", launches));
  // The same for a wrapper whose last word is an option that takes a value (poetry run -p).
  EXPECT_FALSE(launch_in_words({"poetry", "run", "-p"}, launches));
  auto r = launch_in_words({"taskset", "0x3", "vllm", "serve", "m"}, launches);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->argv, (Words{"vllm", "serve", "m"}));
}

TEST(LaunchInput, VariablesTheScriptSetsAreExpandedOthersAreNamed) {
  LaunchInput in = read_text(
      "MODEL=/models/Qwen3-8B\nTP=${TP:-4}\n"
      "python -m sglang.launch_server --model-path $MODEL --tp ${TP} --port $PORT\n",
      "serve.sh");
  EXPECT_EQ(in.argv, (Words{"python", "-m", "sglang.launch_server", "--model-path",
                            "/models/Qwen3-8B", "--tp", "4", "--port", "$PORT"}));
  ASSERT_FALSE(in.notes.empty());
  EXPECT_EQ(in.notes.back(), "not expanded (not set in the text): $PORT");
}

TEST(LaunchInput, DockerRunWithAnImageTag) {
  LaunchInput in = read_text(
      "docker run --rm -it --gpus '\"device=0,1\"' --shm-size 32g -p 30000:30000 \\\n"
      "  -v ~/.cache/huggingface:/root/.cache/huggingface -e HF_TOKEN=hf_x --env "
      "SGLANG_USE_AITER=1 \\\n"
      "  --ipc=host lmsysorg/sglang:v0.5.4.post1-rocm700-mi30x \\\n"
      "  python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2\n");
  EXPECT_EQ(in.image, "lmsysorg/sglang:v0.5.4.post1-rocm700-mi30x");
  EXPECT_EQ(in.image_version, "0.5.4.post1");
  EXPECT_EQ(in.gpu_count, 2);
  EXPECT_EQ(in.environment.at("SGLANG_USE_AITER"), "1");
  EXPECT_EQ(in.argv.front(), "python3");
  EXPECT_EQ(in.argv.back(), "2");

  // vLLM's image runs `vllm serve` itself: the words after the image are its flags.
  LaunchInput v = read_text(
      "docker run --runtime nvidia --gpus all -p 8000:8000 vllm/vllm-openai:v0.10.1.1 "
      "--model Qwen/Qwen3-8B --max-model-len 8192");
  EXPECT_EQ(v.argv,
            (Words{"vllm", "serve", "--model", "Qwen/Qwen3-8B", "--max-model-len", "8192"}));
  EXPECT_EQ(v.image_version, "0.10.1.1");
  EXPECT_FALSE(v.gpu_count.has_value());  // --gpus all: the host's count is not in the text
}

TEST(LaunchInput, ImageTagsNameReleases) {
  EXPECT_EQ(version_from_image("vllm/vllm-openai:v0.10.1.1"), "0.10.1.1");
  EXPECT_EQ(version_from_image("lmsysorg/sglang:v0.5.4.post1-rocm700-mi30x"), "0.5.4.post1");
  EXPECT_EQ(version_from_image("lmsysorg/sglang:v0.4.6.post4-cu124"), "0.4.6.post4");
  EXPECT_EQ(version_from_image("vllm/vllm-openai:0.6.0rc1"), "0.6.0rc1");
  EXPECT_EQ(version_from_image("lmsysorg/sglang:latest"), "");
  EXPECT_EQ(version_from_image("lmsysorg/sglang:dev"), "");
  EXPECT_EQ(version_from_image("registry:5000/sglang"), "");
  EXPECT_EQ(version_from_image("vllm/vllm-openai@sha256:abc"), "");
}

TEST(LaunchInput, SystemdUnitWithEnvironmentAndContinuations) {
  const std::string env_file = testing::TempDir() + "/sglang.env";
  {
    std::ofstream(env_file) << "# defaults\nSGLANG_TORCH_PROFILER_DIR=/tmp/p\nexport MODEL=/m/Q\n";
  }
  LaunchInput in = read_text(
      "[Unit]\nDescription=SGLang\n\n[Service]\nUser=llm\n"
      "Environment=\"CUDA_VISIBLE_DEVICES=0,1,2,3\" "
      "\"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\"\n"
      "Environment=SGLANG_ENABLE_SPEC_V2=1\n"
      "EnvironmentFile=" +
          env_file +
          "\n"
          "EnvironmentFile=-/etc/default/missing\n"
          "ExecStart=/opt/venv/bin/python -m sglang.launch_server \\\n"
          "    --model-path ${MODEL} \\\n"
          "    # a comment inside the continuation\n"
          "    --tp 4 --speculative-algorithm NEXTN\n"
          "Restart=always\n\n[Install]\nWantedBy=multi-user.target\n",
      "deploy/sglang.service");
  EXPECT_EQ(in.argv, (Words{"/opt/venv/bin/python", "-m", "sglang.launch_server", "--model-path",
                            "/m/Q", "--tp", "4", "--speculative-algorithm", "NEXTN"}));
  EXPECT_EQ(in.origin, "deploy/sglang.service:10, ExecStart");
  EXPECT_EQ(in.environment.at("PYTORCH_CUDA_ALLOC_CONF"), "expandable_segments:True");
  EXPECT_EQ(in.environment.at("SGLANG_ENABLE_SPEC_V2"), "1");
  EXPECT_EQ(in.environment.at("SGLANG_TORCH_PROFILER_DIR"), "/tmp/p");
  EXPECT_EQ(in.gpu_count, 4);
  bool missing_named = false;
  for (const std::string& n : in.notes)
    missing_named |= n.find("/etc/default/missing") != std::string::npos;
  EXPECT_TRUE(missing_named);
  std::remove(env_file.c_str());
}

TEST(LaunchInput, ComposeServiceWithAListCommand) {
  LaunchInput in = read_text(R"(services:
  redis:
    image: redis:7
  sglang:
    image: lmsysorg/sglang:v0.5.9-cu129
    ipc: host
    environment:
      HF_HUB_OFFLINE: "1"
      SGLANG_ENABLE_TORCH_COMPILE: 0
    command:
      - python3
      - -m
      - sglang.launch_server
      - --model-path
      - Qwen/Qwen3-32B
      - --tp
      - "2"
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              device_ids: ["0", "1"]
              capabilities: [gpu]
)",
                             "docker-compose.yml");
  EXPECT_EQ(in.argv, (Words{"python3", "-m", "sglang.launch_server", "--model-path",
                            "Qwen/Qwen3-32B", "--tp", "2"}));
  EXPECT_EQ(in.origin, "docker-compose.yml:10, service sglang");
  EXPECT_EQ(in.environment.at("HF_HUB_OFFLINE"), "1");
  EXPECT_EQ(in.environment.at("SGLANG_ENABLE_TORCH_COMPILE"), "0");
  EXPECT_EQ(in.image_version, "0.5.9");
  EXPECT_EQ(in.gpu_count, 2);

  LaunchInput s = read_text(
      "services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n    command: --model m "
      "--gpu-memory-utilization 0.8\n    environment:\n      - VLLM_USE_V1=1\n",
      "compose.yaml");
  EXPECT_EQ(s.argv, (Words{"vllm", "serve", "--model", "m", "--gpu-memory-utilization", "0.8"}));
  EXPECT_EQ(s.environment.at("VLLM_USE_V1"), "1");
}

TEST(LaunchInput, KubernetesDeploymentAndLeaderWorkerSet) {
  LaunchInput in = read_text(R"(apiVersion: v1
kind: Service
metadata: {name: llm}
spec: {ports: [{port: 8000}]}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen
spec:
  replicas: 1
  template:
    spec:
      containers:
        - name: sidecar
          image: busybox
          command: ["sleep", "inf"]
        - name: vllm
          image: vllm/vllm-openai:v0.19.0
          command: ["/bin/sh", "-c"]
          args:
            - >-
              vllm serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 4
              --max-num-seqs 128
          env:
            - name: VLLM_ATTENTION_BACKEND
              value: FLASHINFER
            - name: HF_TOKEN
              valueFrom: {secretKeyRef: {name: hf, key: token}}
          resources:
            limits:
              nvidia.com/gpu: 4
)",
                             "k8s/qwen.yaml");
  EXPECT_EQ(in.argv, (Words{"vllm", "serve", "Qwen/Qwen3-30B-A3B", "--tensor-parallel-size", "4",
                            "--max-num-seqs", "128"}));
  EXPECT_EQ(in.environment.at("VLLM_ATTENTION_BACKEND"), "FLASHINFER");
  EXPECT_EQ(in.environment.count("HF_TOKEN"), 0u);
  EXPECT_EQ(in.gpu_count, 4);
  EXPECT_EQ(in.image_version, "0.19.0");
  EXPECT_EQ(in.origin, "k8s/qwen.yaml:20, Deployment qwen container vllm");

  LaunchInput lws = read_text(R"(apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: ds}
spec:
  leaderWorkerTemplate:
    size: 2
    leaderTemplate:
      spec:
        containers:
          - name: leader
            image: lmsysorg/sglang:v0.5.16
            command: [python3, -m, sglang.launch_server, --model-path, deepseek-ai/DeepSeek-R1, --tp, "16", --nnodes, "2"]
            resources: {limits: {nvidia.com/gpu: "8"}}
)");
  EXPECT_EQ(lws.argv.back(), "2");
  EXPECT_EQ(lws.gpu_count, 8);
  EXPECT_EQ(lws.image_version, "0.5.16");
}

TEST(LaunchInput, AFileThatLaunchesNothingSaysSo) {
  auto r = read_launch_text("services:\n  db:\n    image: postgres\n", "compose.yaml", launches);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.message(), "compose.yaml: no service's command launches SGLang or vLLM");
  auto u = read_launch_text("[Service]\nExecStart=/usr/bin/true\n", "x.service", launches);
  ASSERT_FALSE(u);
  EXPECT_EQ(u.message(), "x.service:2: ExecStart= does not launch SGLang or vLLM");
  auto missing = read_launch_file("/nonexistent/run.sh", launches);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.message().find("/nonexistent/run.sh"), std::string::npos);
}

// Found by fuzz/launch_input_fuzz.cc: yaml-cpp 0.7's LoadAll never returns on a document that
// starts with a stray ','; the manifest reader splits documents itself and stays total.
TEST(LaunchInput, AStrayCommaBeforeAManifestEndsInAnAnswer) {
  EXPECT_FALSE(read_launch_text(",piVersion: v1\nkind: Pod\n", "x", launches));
  EXPECT_FALSE(read_launch_text("- a\n,\n", "x", launches));
  LaunchInput in = read_text(
      "---\n,\n---\napiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: c\n    "
      "command: [vllm, serve, m]\n");
  EXPECT_EQ(in.argv, (Words{"vllm", "serve", "m"}));
  EXPECT_EQ(in.origin, "deploy/x:9, Pod container c");
}

TEST(ConfigFile, FlagsFromTheYamlGoBeforeTheTypedOnes) {
  const std::string dir = testing::TempDir();
  {
    std::ofstream(dir + "/serve.yaml") << "model: Qwen/Qwen3-8B\ntensor_parallel_size: 2\n"
                                          "enable-prefix-caching: true\nenforce_eager: false\n"
                                          "cuda-graph-sizes: [1, 2, 4]\n";
  }
  auto r = expand_config_file({"vllm", "serve", "--config", "serve.yaml", "--max-num-seqs", "8"},
                              dir, true);
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ(r->argv, (Words{"vllm", "serve", "--model", "Qwen/Qwen3-8B", "--tensor-parallel-size",
                            "2", "--enable-prefix-caching", "--cuda-graph-sizes", "1", "2", "4",
                            "--max-num-seqs", "8"}));
  EXPECT_EQ(r->note, "5 setting(s) read from --config serve.yaml");
  auto missing = expand_config_file({"vllm", "serve", "--config", "nope.yaml"}, dir, true);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.message(), "--config nope.yaml: no such file; give the path of the YAML file");
  auto lenient = expand_config_file({"vllm", "serve", "--config=nope.yaml"}, dir, false);
  ASSERT_TRUE(lenient);
  EXPECT_EQ(lenient->argv.back(), "--config=nope.yaml");
  std::filesystem::remove(dir + "/serve.yaml");
}

TEST(LaunchFileKinds, AnEnvironmentFileIsAssignmentsOnly) {
  auto env = environment_in_text("# comment\nexport A=1\nB='x y'\n\nC=\n");
  ASSERT_TRUE(env);
  EXPECT_EQ(env->at("A"), "1");
  EXPECT_EQ(env->at("B"), "x y");
  EXPECT_EQ(env->at("C"), "");
  EXPECT_FALSE(environment_in_text("A=1\nvllm serve m\n"));  // a command is not an env file
  EXPECT_FALSE(environment_in_text("1A=2\n"));
  EXPECT_FALSE(environment_in_text("# nothing\n"));
}

TEST(LaunchFileKinds, AFlagFileIsFlagsWithoutAProgram) {
  auto flags = flags_in_text("--tp 2 \\\n  --max-model-len 8192\n--enforce-eager\n");
  ASSERT_TRUE(flags);
  EXPECT_EQ(*flags,
            (std::vector<std::string>{"--tp", "2", "--max-model-len", "8192", "--enforce-eager"}));
  EXPECT_FALSE(flags_in_text("vllm serve m --tp 2\n"));
}

}  // namespace
}  // namespace servescope
