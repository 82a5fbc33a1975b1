// Models resolved as the engines resolve them: the hub cache layout, ModelScope's, a path a log
// printed, and the Hub itself — a fake Hub on loopback started by each test (HF_ENDPOINT),
// never an outside address.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "catalog/hf_cache.h"
#include "catalog/model_catalog.h"

namespace servescope {
namespace {
namespace fs = std::filesystem;
using boost::asio::ip::tcp;

constexpr const char* kLlamaConfig = R"({
  "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 2048,
  "intermediate_size": 8192, "num_hidden_layers": 16, "num_attention_heads": 32,
  "num_key_value_heads": 8, "head_dim": 64, "vocab_size": 128256,
  "max_position_embeddings": 131072, "torch_dtype": "bfloat16", "tie_word_embeddings": true
})";
constexpr const char* kCommit = "0123456789abcdef0123456789abcdef01234567";

// Each test gets empty caches of its own and no Hub unless it starts one.
class ModelResolution : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ =
        fs::path(::testing::TempDir()) /
        ("resolve-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "hub");
    setenv("HF_HUB_CACHE", (root_ / "hub").c_str(), 1);
    setenv("MODELSCOPE_CACHE", (root_ / "modelscope").c_str(), 1);
    setenv("HF_HUB_OFFLINE", "1", 1);
    unsetenv("HF_TOKEN");
    unsetenv("HF_ENDPOINT");
    unsetenv("HF_HUB_DOWNLOAD_TIMEOUT");
  }
  void TearDown() override { fs::remove_all(root_); }

  // A snapshot as huggingface_hub lays it out.
  void cache_model(const std::string& dir_name, const std::string& commit, const std::string& ref,
                   const std::string& config) {
    const fs::path repo = root_ / "hub" / dir_name;
    fs::create_directories(repo / "blobs");
    fs::create_directories(repo / "snapshots" / commit);
    fs::create_directories(repo / "refs");
    std::ofstream(repo / "blobs" / "b1") << config;
    fs::create_symlink("../../blobs/b1", repo / "snapshots" / commit / "config.json");
    if (!ref.empty())
      std::ofstream(repo / "refs" / ref) << commit;
  }

  fs::path root_;
};

TEST_F(ModelResolution, TheHubCacheByIdAnyCaseAndByTheLogsPath) {
  cache_model("models--acme--Tiny-Llama-1B", kCommit, "main", kLlamaConfig);
  for (const char* spec : {"acme/Tiny-Llama-1B", "ACME/tiny-llama-1b"}) {
    auto m = load_model(spec);
    ASSERT_TRUE(m) << m.message();
    EXPECT_EQ(m->source, "acme/Tiny-Llama-1B");
    EXPECT_EQ(m->num_layers, 16);
    EXPECT_NE(m->origin.find("Hugging Face cache"), std::string::npos) << m->origin;
    EXPECT_NE(m->origin.find("snapshot 0123456789ab"), std::string::npos) << m->origin;
  }
  // A path printed by a log on another machine maps back to the id and its revision.
  auto p = parse_cache_path(std::string("/models/hub/models--acme--Tiny-Llama-1B/snapshots/") +
                            kCommit + "/");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->id, "acme/Tiny-Llama-1B");
  EXPECT_EQ(p->revision, kCommit);
  auto from_log =
      load_model(std::string("/data/hub/models--acme--Tiny-Llama-1B/snapshots/") + kCommit);
  ASSERT_TRUE(from_log) << from_log.message();
  EXPECT_EQ(from_log->source, "acme/Tiny-Llama-1B");
  // A revision the cache lacks is named, not silently another one.
  auto other = load_model(
      "/data/hub/models--acme--Tiny-Llama-1B/snapshots/"
      "ffffffffffffffffffffffffffffffffffffffff");
  ASSERT_TRUE(other) << other.message();
  EXPECT_NE(other->origin.find("the path pins ffffffffffff, which is not cached"),
            std::string::npos)
      << other->origin;
  // A local directory of that name (not on this machine) finds the cached model by name.
  auto local = load_model("/mnt/models/Tiny-Llama-1B");
  ASSERT_TRUE(local) << local.message();
  EXPECT_EQ(local->source, "acme/Tiny-Llama-1B");
  EXPECT_FALSE(parse_cache_path("/models/Tiny-Llama-1B"));
  EXPECT_FALSE(parse_cache_path("/x/models--tiny/snapshots/a"));
}

TEST_F(ModelResolution, ACacheWithoutRefsUsesItsSnapshotAndPinnedRevisionsUseRefs) {
  cache_model("models--acme--NoRefs", kCommit, "", kLlamaConfig);
  auto m = load_model("acme/NoRefs");
  ASSERT_TRUE(m) << m.message();
  EXPECT_EQ(m->num_kv_heads, 8);
  cache_model("models--acme--Tagged", kCommit, "v1.0", kLlamaConfig);
  EXPECT_TRUE(load_model("acme/Tagged", "v1.0"));
  auto missing = load_model("acme/Tagged", "v2.0");
  ASSERT_FALSE(missing);  // offline, and v2.0 is not cached
  EXPECT_NE(missing.message().find("HF_HUB_OFFLINE"), std::string::npos) << missing.message();
}

TEST_F(ModelResolution, TheModelScopeCache) {
  fs::create_directories(root_ / "modelscope" / "models" / "acme" / "Scope-1B");
  std::ofstream(root_ / "modelscope" / "models" / "acme" / "Scope-1B" / "config.json")
      << kLlamaConfig;
  auto m = load_model("acme/Scope-1B");
  ASSERT_TRUE(m) << m.message();
  EXPECT_NE(m->origin.find("ModelScope cache"), std::string::npos);
}

// A Hub on loopback: serves config.json (and hf_quant_config.json) for acme/*, answers 401 for
// acme/gated without the right token, 404 for acme/missing, waits for acme/slow and cuts
// acme/truncated short. Counts the requests it saw.
class FakeHub {
 public:
  FakeHub() : acceptor_(io_, tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0)) {
    port_ = acceptor_.local_endpoint().port();
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeHub() {
    stop_ = true;
    boost::system::error_code ec;
    tcp::socket poke(io_);
    poke.connect(acceptor_.local_endpoint(), ec);  // wakes accept()
    thread_.join();
  }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int requests() const { return requests_; }
  std::string last_authorization() {
    std::lock_guard<std::mutex> lock(mu_);
    return authorization_;
  }
  std::string quant_config;  // served as hf_quant_config.json when set

 private:
  void serve() {
    for (int served = 0; served < 64 && !stop_; ++served) {  // bounded, as every test loop
      tcp::socket s(io_);
      boost::system::error_code ec;
      acceptor_.accept(s, ec);
      if (ec || stop_)
        return;
      ++requests_;
      boost::asio::streambuf buf;
      boost::asio::read_until(s, buf, "\r\n\r\n", ec);
      std::string head(boost::asio::buffers_begin(buf.data()),
                       boost::asio::buffers_end(buf.data()));
      const std::string path = head.substr(4, head.find(' ', 4) - 4);
      std::string auth;
      if (auto a = head.find("Authorization: "); a != std::string::npos)
        auth = head.substr(a + 15, head.find("\r\n", a) - a - 15);
      {
        std::lock_guard<std::mutex> lock(mu_);
        authorization_ = auth;
      }
      std::string status = "200 OK", body = kLlamaConfig, extra;
      if (path.find("hf_quant_config.json") != std::string::npos) {
        if (quant_config.empty())
          status = "404 Not Found", body = "Entry not found";
        else
          body = quant_config;
      } else if (path.find("/acme/gated/") == 0 && auth != "Bearer hf_good") {
        status = "401 Unauthorized", body = "Access to model acme/gated is restricted.";
      } else if (path.find("/acme/missing/") == 0) {
        status = "404 Not Found", body = "Repository Not Found";
      } else if (path.find("/acme/slow/") == 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2500));
      }
      std::string response = "HTTP/1.1 " + status + "\r\nContent-Type: application/json\r\n";
      response += std::string("X-Repo-Commit: ") + kCommit + "\r\nETag: \"etag-" +
                  std::to_string(body.size()) + "\"\r\nConnection: close\r\n";
      if (path.find("/acme/truncated/") == 0) {
        response += "Content-Length: " + std::to_string(body.size() * 2) + "\r\n\r\n" + body;
      } else {
        response += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
      }
      boost::asio::write(s, boost::asio::buffer(response), ec);
    }
  }

  boost::asio::io_context io_;
  tcp::acceptor acceptor_;
  unsigned short port_ = 0;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::mutex mu_;
  std::string authorization_;
};

TEST_F(ModelResolution, AModelNotCachedIsDownloadedIntoTheCacheAndReadBackOffline) {
  FakeHub hub;
  hub.quant_config = R"({"quantization": {"quant_algo": "NVFP4", "kv_cache_quant_algo": "FP8",
                          "group_size": 16, "exclude_modules": ["lm_head"]}})";
  setenv("HF_ENDPOINT", hub.endpoint().c_str(), 1);
  unsetenv("HF_HUB_OFFLINE");
  auto m = load_model("acme/New-Model-7B");
  ASSERT_TRUE(m) << m.message();
  EXPECT_EQ(m->source, "acme/New-Model-7B");
  EXPECT_EQ(m->quant.method, QuantMethod::kNvfp4);  // from hf_quant_config.json
  EXPECT_EQ(m->quant.kv_cache_quant_algo, "FP8");
  EXPECT_NE(m->origin.find("downloaded from " + hub.endpoint()), std::string::npos) << m->origin;
  EXPECT_EQ(hub.requests(), 2);
  // The layout huggingface_hub writes: blob by ETag, snapshot link, refs/main.
  const fs::path repo = root_ / "hub" / "models--acme--New-Model-7B";
  EXPECT_TRUE(fs::is_symlink(repo / "snapshots" / kCommit / "config.json"));
  EXPECT_TRUE(fs::is_regular_file(repo / "snapshots" / kCommit / "hf_quant_config.json"));
  std::ifstream ref(repo / "refs" / "main");
  std::string commit;
  ref >> commit;
  EXPECT_EQ(commit, kCommit);
  // The next run is offline: the same layout rules read it back, and the Hub is not asked.
  setenv("HF_HUB_OFFLINE", "1", 1);
  auto again = load_model("acme/New-Model-7B");
  ASSERT_TRUE(again) << again.message();
  EXPECT_EQ(again->quant.method, QuantMethod::kNvfp4);
  EXPECT_NE(again->origin.find("Hugging Face cache"), std::string::npos);
  EXPECT_EQ(hub.requests(), 2);
}

TEST_F(ModelResolution, OfflineNeverTouchesTheNetwork) {
  FakeHub hub;
  setenv("HF_ENDPOINT", hub.endpoint().c_str(), 1);
  auto m = load_model("acme/Offline-1B");
  ASSERT_FALSE(m);
  EXPECT_NE(m.message().find("model 'acme/Offline-1B': not in the Hugging Face cache and "
                             "HF_HUB_OFFLINE is set"),
            std::string::npos)
      << m.message();
  EXPECT_EQ(hub.requests(), 0);
}

TEST_F(ModelResolution, GatedModelsNameHfTokenAndATokenIsSent) {
  FakeHub hub;
  setenv("HF_ENDPOINT", hub.endpoint().c_str(), 1);
  unsetenv("HF_HUB_OFFLINE");
  auto m = load_model("acme/gated");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.message().rfind(
                "model 'acme/gated' is gated or private on the Hugging Face Hub (HTTP 401): set "
                "HF_TOKEN to a token that has access (closest bundled: ",
                0),
            0u)
      << m.message();
  setenv("HF_TOKEN", "hf_good", 1);
  auto ok = load_model("acme/gated");
  ASSERT_TRUE(ok) << ok.message();
  EXPECT_EQ(hub.last_authorization(), "Bearer hf_good");
}

TEST_F(ModelResolution, MissingSlowAndTruncatedAnswersAreOneLineAndNothingIsCached) {
  FakeHub hub;
  setenv("HF_ENDPOINT", hub.endpoint().c_str(), 1);
  setenv("HF_HUB_DOWNLOAD_TIMEOUT", "1", 1);
  unsetenv("HF_HUB_OFFLINE");
  auto missing = load_model("acme/missing");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.message().find("model 'acme/missing' has no config.json at revision main"),
            std::string::npos)
      << missing.message();
  auto truncated = load_model("acme/truncated");
  ASSERT_FALSE(truncated);
  EXPECT_NE(truncated.message().find("downloading"), std::string::npos) << truncated.message();
  auto slow = load_model("acme/slow");
  ASSERT_FALSE(slow);
  EXPECT_NE(slow.message().find("did not answer within 1 s"), std::string::npos) << slow.message();
  for (const char* id : {"missing", "slow", "truncated"})
    EXPECT_FALSE(fs::exists(root_ / "hub" / (std::string("models--acme--") + id))) << id;
  for (const std::string& m : {missing.message(), slow.message(), truncated.message()})
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
}

TEST_F(ModelResolution, AnUnknownLocalPathNamesTheCacheAndTheClosestBundled) {
  auto m = load_model("/nowhere/Qwen3-8B-Custom");
  ASSERT_FALSE(m);
  EXPECT_NE(m.message().find("none in the Hugging Face cache (" + (root_ / "hub").string()),
            std::string::npos)
      << m.message();
  EXPECT_NE(m.message().find("closest bundled: Qwen/Qwen3-8B"), std::string::npos) << m.message();
}

}  // namespace
}  // namespace servescope
