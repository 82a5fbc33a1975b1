// The real ProcessHost: fork/exec into a new process group (the child also gets SIGTERM if
// the tool dies), POSIX sockets for the HTTP GET and the port checks. The tool becomes a
// child subreaper so processes a server leaves behind are reaped here, not left as zombies
// that would keep its group alive.
#pragma once

#include <mutex>
#include <set>

#include "lab/process_host.h"

namespace servescope {

class PosixProcessHost final : public ProcessHost {
 public:
  PosixProcessHost();

  Result<std::unique_ptr<ServerProcess>> launch(const LaunchSpec& spec) override;
  HttpReply http_get(const std::string& url, std::chrono::milliseconds timeout) override;
  bool port_free(int port) override;
  int pick_port() override;
  double now() override;
  double wall_time() override;
  void sleep(double seconds) override;

 private:
  std::mutex mutex_;
  std::set<int> handed_out_;
};

/// The pieces of an http:// URL; nullopt for anything else.
struct HttpUrl {
  std::string host;
  int port = 80;
  std::string target = "/";
};
std::optional<HttpUrl> parse_http_url(std::string_view url);

}  // namespace servescope
