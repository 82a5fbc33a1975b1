// The Kubernetes manifests servescope renders: golden files (tests/k8s/golden/, rewritten with
// SERVESCOPE_UPDATE_GOLDEN=1) for a single-node SGLang engine (a Job) and a two-node one (a
// LeaderWorkerSet), validated against the Kubernetes API schemas by tests/k8s/validate.sh
// (kubernetes-models, pinned in tests/k8s/package-lock.json); templates, quoting, the pods'
// state as kubectl prints it.
#include "lab/k8s_manifest.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace servescope {
namespace {

namespace fs = std::filesystem;

const fs::path kGolden = fs::path(SERVESCOPE_SOURCE_DIR) / "tests/k8s/golden";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void expect_golden(const std::string& name, const std::string& text) {
  const fs::path path = kGolden / name;
  if (std::getenv("SERVESCOPE_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::binary) << text;
    return;
  }
  ASSERT_TRUE(fs::exists(path)) << path << " (SERVESCOPE_UPDATE_GOLDEN=1 writes it)";
  EXPECT_EQ(slurp(path), text) << "differs from " << path;
}

K8sExperiment single_node() {
  K8sExperiment x;
  x.object_name = "servescope-001-k3x9q";
  x.spec.name = "servescope-001";
  x.spec.argv = {"python3",
                 "-m",
                 "sglang.launch_server",
                 "--model-path",
                 "Qwen/Qwen3-8B",
                 "--tp",
                 "2",
                 "--mem-fraction-static",
                 "0.85",
                 "--host",
                 "0.0.0.0",
                 "--port",
                 "30000",
                 "--enable-metrics"};
  x.spec.env = {{"HF_HOME", "/models"}, {"SGLANG_ENABLE_JIT_DEEPGEMM", "0"}, {"NCCL_DEBUG", "on"}};
  return x;
}

KubernetesOptions single_options() {
  KubernetesOptions o;
  o.image = "lmsysorg/sglang:v0.5.4.post1-cu126";
  o.namespace_ = "llm";
  o.gpus = 2;
  return o;
}

K8sExperiment two_node() {
  K8sExperiment x;
  x.object_name = "servescope-002-k3x9q";
  x.spec.name = "servescope-002";
  x.spec.argv = {"python3",
                 "-m",
                 "sglang.launch_server",
                 "--model-path",
                 "Qwen/Qwen3-235B-A22B-FP8",
                 "--tp",
                 "16",
                 "--nnodes",
                 "$(LWS_GROUP_SIZE)",
                 "--node-rank",
                 "$(LWS_WORKER_INDEX)",
                 "--dist-init-addr",
                 "$(LWS_LEADER_ADDRESS):20000",
                 "--host",
                 "0.0.0.0",
                 "--port",
                 "31000"};
  x.spec.env = {{"NCCL_IB_DISABLE", "1"}};
  x.spec.cwd = "/workspace";
  return x;
}

TEST(K8sManifest, SingleNodeJobMatchesGolden) {
  auto m = render_k8s_manifest(single_options(), single_node());
  ASSERT_TRUE(m) << m.message();
  expect_golden("job-1node.yaml", *m);
  const YAML::Node y = YAML::Load(*m);
  EXPECT_EQ(y["kind"].as<std::string>(), "Job");
  EXPECT_EQ(y["spec"]["backoffLimit"].as<int>(), 0);
  const YAML::Node pod = y["spec"]["template"]["spec"];
  EXPECT_EQ(pod["restartPolicy"].as<std::string>(), "Never");
  const YAML::Node c = pod["containers"][0];
  EXPECT_EQ(c["resources"]["limits"]["nvidia.com/gpu"].as<int>(), 2);
  EXPECT_EQ(c["readinessProbe"]["httpGet"]["port"].as<int>(), 30000);
  EXPECT_EQ(c["command"].size(), 14U);
  // "2", "0.85", "0" and "on" stay strings: a YAML reader would take them for numbers or a
  // boolean, and the API server refuses a number in command or env.
  EXPECT_NE(m->find("- \"2\"\n"), std::string::npos);
  EXPECT_NE(m->find("- \"0.85\"\n"), std::string::npos);
  EXPECT_NE(m->find("value: \"0\"\n"), std::string::npos);
  EXPECT_NE(m->find("value: \"on\"\n"), std::string::npos);
  EXPECT_EQ(pod["volumes"][0]["emptyDir"]["medium"].as<std::string>(), "Memory");
  EXPECT_EQ(y["metadata"]["labels"]["servescope.io/experiment"].as<std::string>(),
            "servescope-001");
}

TEST(K8sManifest, TwoNodeLeaderWorkerSetMatchesGolden) {
  KubernetesOptions o = single_options();
  o.gpus = 8;
  o.nodes = 2;
  auto m = render_k8s_manifest(o, two_node());
  ASSERT_TRUE(m) << m.message();
  expect_golden("lws-2node.yaml", *m);
  const YAML::Node y = YAML::Load(*m);
  EXPECT_EQ(y["apiVersion"].as<std::string>(), "leaderworkerset.x-k8s.io/v1");
  const YAML::Node t = y["spec"]["leaderWorkerTemplate"];
  EXPECT_EQ(t["size"].as<int>(), 2);
  EXPECT_TRUE(t["leaderTemplate"]["spec"]["containers"][0]["readinessProbe"]);
  EXPECT_FALSE(t["workerTemplate"]["spec"]["containers"][0]["readinessProbe"]);
  EXPECT_FALSE(t["workerTemplate"]["spec"]["restartPolicy"]);  // StatefulSets: Always only
  EXPECT_EQ(t["workerTemplate"]["spec"]["containers"][0]["workingDir"].as<std::string>(),
            "/workspace");
}

// The rendered golden files and a broken one through the schema validator: the golden files
// pass, the broken one fails (so the validator can fail).
TEST(K8sManifest, GoldenManifestsValidateAgainstTheKubernetesSchemas) {
  const fs::path build = fs::path(SERVESCOPE_BINARY).parent_path();
  const std::string script = std::string(SERVESCOPE_SOURCE_DIR) + "/tests/k8s/validate.sh";
  const std::string base = "bash '" + script + "' '" + (build / "k8s-node").string() + "' ";
  EXPECT_EQ(std::system((base + "'" + (kGolden / "job-1node.yaml").string() + "' '" +
                         (kGolden / "lws-2node.yaml").string() + "'")
                            .c_str()),
            0);
  const fs::path bad = fs::temp_directory_path() / "servescope-k8s-bad.yaml";
  std::string broken = slurp(kGolden / "job-1node.yaml");
  broken.replace(broken.find("restartPolicy: Never"), 20, "restartPolicy: {a: 1}");
  std::ofstream(bad, std::ios::binary) << broken;
  EXPECT_NE(std::system((base + "'" + bad.string() + "' 2>/dev/null").c_str()), 0);
  fs::remove(bad);
}

TEST(K8sManifest, TemplateKeepsWhatItSetsAndTakesTheCommand) {
  const std::string tmpl = R"(apiVersion: batch/v1
kind: Job
metadata:
  annotations: {team: inference}
  labels: {cost-center: "42"}
spec:
  ttlSecondsAfterFinished: 600
  template:
    spec:
      nodeSelector: {gpu.type: h100}
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      terminationGracePeriodSeconds: 90
      containers:
      - name: sidecar
        image: busybox
      - name: engine
        image: placeholder
        args: [--ignored]
        env: [{name: HF_HOME, value: /old}, {name: KEEP, value: "yes"}]
        volumeMounts: [{name: shm, mountPath: /dev/shm}]
      volumes: [{name: shm, emptyDir: {medium: Memory, sizeLimit: 16Gi}}]
)";
  auto m = render_k8s_manifest(single_options(), single_node(), tmpl);
  ASSERT_TRUE(m) << m.message();
  const YAML::Node y = YAML::Load(*m);
  EXPECT_EQ(y["spec"]["ttlSecondsAfterFinished"].as<int>(), 600);
  EXPECT_EQ(y["metadata"]["annotations"]["team"].as<std::string>(), "inference");
  EXPECT_EQ(y["metadata"]["labels"]["cost-center"].as<std::string>(), "42");
  EXPECT_NE(m->find("cost-center: \"42\""), std::string::npos);  // quoted stays quoted
  const YAML::Node pod = y["spec"]["template"]["spec"];
  EXPECT_EQ(pod["terminationGracePeriodSeconds"].as<int>(), 90);
  EXPECT_EQ(pod["nodeSelector"]["gpu.type"].as<std::string>(), "h100");
  EXPECT_EQ(pod["containers"][0]["image"].as<std::string>(), "busybox");
  const YAML::Node c = pod["containers"][1];
  EXPECT_EQ(c["image"].as<std::string>(), "lmsysorg/sglang:v0.5.4.post1-cu126");
  EXPECT_FALSE(c["args"]);
  EXPECT_EQ(c["env"][0]["value"].as<std::string>(), "/models");  // ours win
  EXPECT_EQ(c["env"][1]["value"].as<std::string>(), "yes");
  EXPECT_EQ(c["volumeMounts"].size(), 1U);  // its own /dev/shm kept, none added
  EXPECT_EQ(pod["volumes"].size(), 1U);
}

TEST(K8sManifest, TemplateErrorsNameTheFix) {
  KubernetesOptions two = single_options();
  two.nodes = 2;
  auto wrong_kind = render_k8s_manifest(two, single_node(), "kind: Job\n");
  ASSERT_FALSE(wrong_kind);
  EXPECT_NE(wrong_kind.message().find("--k8s-nodes 2"), std::string::npos);
  KubernetesOptions no_ns = single_options();
  no_ns.namespace_.clear();
  auto ns = render_k8s_manifest(no_ns, single_node(), "metadata: {namespace: prod}\n");
  ASSERT_FALSE(ns);
  EXPECT_NE(ns.message().find("--k8s-namespace prod"), std::string::npos);
  EXPECT_FALSE(render_k8s_manifest(single_options(), single_node(), "[1, 2]"));
  EXPECT_FALSE(render_k8s_manifest(single_options(), single_node(), "spec: {template: 3}"));
}

TEST(K8sManifest, EnginePort) {
  EXPECT_EQ(engine_port({"vllm", "serve", "m", "--port", "9000"}), 9000);
  EXPECT_EQ(engine_port({"vllm", "serve", "m", "--port=9001"}), 9001);
  EXPECT_EQ(engine_port({"vllm", "serve", "m"}), 8000);
  EXPECT_EQ(engine_port({"python", "-m", "sglang.launch_server"}), 30000);
  EXPECT_EQ(engine_port({"./server"}), std::nullopt);
}

TEST(K8sPods, PendingUnschedulableThenRunningThenFailed) {
  auto pending = parse_k8s_pods(R"({"kind":"PodList","items":[{"metadata":{"name":"p"},
    "spec":{},"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False",
    "reason":"Unschedulable","message":"0/4 nodes are available: 4 Insufficient nvidia.com/gpu."}]}}]})");
  ASSERT_TRUE(pending) << pending.message();
  K8sJobState s{true, false, *pending};
  EXPECT_TRUE(s.pending());
  EXPECT_FALSE(s.finished());
  EXPECT_EQ(s.state(), "PENDING");
  EXPECT_EQ(s.reason(), "Unschedulable: 0/4 nodes are available: 4 Insufficient nvidia.com/gpu.");

  auto running = parse_k8s_pods(R"({"items":[{"metadata":{"name":"p"},"spec":{"nodeName":"gpu7"},
    "status":{"phase":"Running","podIP":"10.1.2.3","containerStatuses":[{"name":"engine",
    "state":{"running":{}}}]}}]})");
  ASSERT_TRUE(running);
  s.pods = *running;
  EXPECT_FALSE(s.pending());
  EXPECT_EQ(s.leader()->ip, "10.1.2.3");
  EXPECT_EQ(s.leader()->node, "gpu7");
  EXPECT_EQ(s.exit_status(), std::nullopt);

  auto failed = parse_k8s_pods(R"({"items":[{"metadata":{"name":"p"},"spec":{},
    "status":{"phase":"Failed","containerStatuses":[{"name":"engine",
    "state":{"terminated":{"exitCode":137,"reason":"OOMKilled"}}}]}}]})");
  ASSERT_TRUE(failed);
  s.pods = *failed;
  EXPECT_TRUE(s.finished());
  EXPECT_EQ(s.exit_status(), 137);
  EXPECT_EQ(s.reason(), "OOMKilled");
}

TEST(K8sPods, LeaderOfAGroupAndRestartsAndBadImages) {
  auto pods = parse_k8s_pods(R"({"items":[
    {"metadata":{"name":"w","labels":{"leaderworkerset.sigs.k8s.io/worker-index":"1"}},
     "spec":{},"status":{"phase":"Running","podIP":"10.0.0.9"}},
    {"metadata":{"name":"l","labels":{"leaderworkerset.sigs.k8s.io/worker-index":"0"}},
     "spec":{},"status":{"phase":"Running","podIP":"10.0.0.8","containerStatuses":[{"name":"engine",
     "restartCount":1,"state":{"running":{}},"lastState":{"terminated":{"exitCode":1}}}]}}]})");
  ASSERT_TRUE(pods);
  K8sJobState s{true, false, *pods};
  EXPECT_EQ(s.leader()->name, "l");
  EXPECT_TRUE(s.finished());  // restarted in place: its first exit counts
  EXPECT_EQ(s.exit_status(), 1);

  auto bad = parse_k8s_pods(R"({"items":[{"metadata":{"name":"p"},"spec":{},"status":{
    "phase":"Pending","containerStatuses":[{"name":"engine","state":{"waiting":{
    "reason":"ImagePullBackOff","message":"Back-off pulling image \"nope\""}}}]}}]})");
  ASSERT_TRUE(bad);
  s.pods = *bad;
  EXPECT_FALSE(s.pending());
  EXPECT_EQ(s.exit_status(), 127);
  EXPECT_EQ(s.state(), "FAILED");

  K8sJobState gone{false, false, {}};
  EXPECT_TRUE(gone.finished());
  EXPECT_EQ(gone.state(), "GONE");
  EXPECT_FALSE(parse_k8s_pods("error: the server doesn't have a resource type"));
}

}  // namespace
}  // namespace servescope
