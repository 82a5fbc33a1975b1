// The server watcher on a fake clock against a scripted /metrics: which readings bound a point.
#include "load/server_watcher.h"

#include <gtest/gtest.h>

#include "tests/load/fake_transport.h"

namespace servescope::testing {
namespace {

ClientProfile counting_profile() {
  ClientProfile p;
  p.engine = "scripted";
  p.metrics.running = "scripted_running";
  p.metrics.prefix_cache_queries = "scripted_prefix_queries_total";
  p.metrics.prefix_cache_hits = "scripted_prefix_hits_total";
  return p;
}

std::string metrics_reply(double queries, double hits) {
  const std::string body = "scripted_running 0\nscripted_prefix_queries_total " +
                           std::to_string(queries) + "\nscripted_prefix_hits_total " +
                           std::to_string(hits) + "\n";
  return "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

// The point's last requests end at 100.55 s, while the reading sent at 100.5 s is still on its
// way (each takes 80 ms): that reading holds the counters as they were before them. The view
// must end on a reading sent after the point finished — the regression that made test-real's
// multi-turn hit rate 1024/2560 where the engine's counters held 1536/3456.
TEST(ServerWatcher, TheLastReadingIsSentAfterThePointFinishes) {
  FakeEventLoop loop;  // starts at 100 s
  const double last_request_ends = 100.55;
  FakeTransport server(loop, [&](std::uint64_t, double sent) {
    ScriptedReply r;
    const bool after = sent >= last_request_ends;
    const bool during = sent > 100.0;
    r.chunks.push_back({0.08, metrics_reply(after    ? 3456
                                            : during ? 2560
                                                     : 0,
                                            after    ? 1536
                                            : during ? 1024
                                                     : 0)});
    return r;
  });
  const ClientProfile profile = counting_profile();
  ServerWatcher watcher(loop, server, ServerUrl{"127.0.0.1", 8000, ""}, profile, 0.1);
  bool done = false;
  watcher.baseline([&] {
    watcher.start(loop.now(), [] { return 0; });
    loop.at(last_request_ends, [&] { watcher.finish([&] { done = true; }); });
  });
  loop.run();
  ASSERT_TRUE(done);
  const ServerView view = watcher.take_view();
  EXPECT_EQ(view.prefix_cache_queried_tokens, 3456.0);
  ASSERT_TRUE(view.prefix_cache_hit_rate.has_value());
  EXPECT_NEAR(*view.prefix_cache_hit_rate, 1536.0 / 3456.0, 1e-12);
  EXPECT_EQ(server.aborted(), 0u);
}

}  // namespace
}  // namespace servescope::testing
