#include "lab/fake_process_host.h"

#include <signal.h>

#include <fstream>
#include <functional>

#include "core/text.h"
#include "lab/posix_process_host.h"

namespace servescope {
namespace {

class FakeServerProcess final : public ServerProcess {
 public:
  FakeServerProcess(std::shared_ptr<FakeProcessHost::Server> s, std::recursive_mutex& m, int pid,
                    std::function<double()> now)
      : s_(std::move(s)), mutex_(m), pid_(pid), now_(std::move(now)) {}
  int pid() const override { return pid_; }
  std::optional<int> exit_status() override {
    std::lock_guard lock(mutex_);
    return s_->status;
  }
  void signal_group(int signal) override {
    std::lock_guard lock(mutex_);
    s_->signals.push_back(signal);
    if (!s_->alive)
      return;
    if (signal == SIGKILL || (signal == SIGTERM && !s_->script.ignores_term)) {
      s_->alive = false;
      s_->status = 128 + signal;
    }
  }
  bool group_alive() override {
    std::lock_guard lock(mutex_);
    return s_->alive;
  }
  bool queued() override {
    std::lock_guard lock(mutex_);
    const double q = s_->script.queued_for;
    return s_->alive && (q < 0 || now_() - s_->launched_at < q);
  }
  Placement placement() override {
    std::lock_guard lock(mutex_);
    if (s_->script.queued_for == 0 && !s_->script.cancelled_after)
      return {};
    return {"fake-scheduler", std::to_string(pid_), queued() ? "" : "node1",
            s_->cancelled ? "CANCELLED"
            : queued()    ? "PENDING"
                          : (s_->alive ? "RUNNING" : "ENDED"),
            queued() ? "Resources" : ""};
  }
  bool cancelled_elsewhere() override {
    std::lock_guard lock(mutex_);
    return s_->cancelled;
  }

 private:
  std::shared_ptr<FakeProcessHost::Server> s_;
  std::recursive_mutex& mutex_;
  int pid_;
  std::function<double()> now_;
};

void append(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::app | std::ios::binary) << text;
}

}  // namespace

Result<std::unique_ptr<ServerProcess>> FakeProcessHost::launch(const LaunchSpec& spec) {
  std::lock_guard lock(mutex_);
  auto s = std::make_shared<Server>();
  s->spec = spec;
  s->script = script ? script(spec) : FakeServerScript{};
  s->launched_at = clock_;
  for (std::size_t i = 0; i + 1 < spec.argv.size(); ++i) {
    if (spec.argv[i] == "--port")
      s->port = static_cast<int>(parse_int(spec.argv[i + 1]).value_or(0));
  }
  std::ofstream(spec.stdout_path, std::ios::trunc | std::ios::binary);
  std::ofstream(spec.stderr_path, std::ios::trunc | std::ios::binary) << s->script.log;
  servers_.push_back(s);
  advance();
  return std::unique_ptr<ServerProcess>(std::make_unique<FakeServerProcess>(
      s, mutex_, 10000 + static_cast<int>(servers_.size()), [this] { return now(); }));
}

void FakeProcessHost::advance() {
  for (auto& s : servers_) {
    if (!s->alive)
      continue;
    const double age = clock_ - s->launched_at;
    if (s->script.cancelled_after && age >= *s->script.cancelled_after) {
      s->alive = false;
      s->cancelled = true;
      s->status = 128 + SIGTERM;
      continue;
    }
    if (s->script.exit_after && age >= *s->script.exit_after) {
      s->alive = false;
      s->status = s->script.exit_code;
      append(s->spec.stderr_path, s->script.exit_log);
      continue;
    }
    if (!s->ready_written && s->script.ready_after >= 0 && age >= s->script.ready_after) {
      s->ready_written = true;
      append(s->spec.stderr_path, s->script.ready_line);
    }
  }
}

HttpReply FakeProcessHost::http_get(const std::string& url, std::chrono::milliseconds) {
  std::lock_guard lock(mutex_);
  HttpReply reply;
  const auto parsed = parse_http_url(url);
  for (auto& s : servers_) {
    if (parsed && s->alive && s->port == parsed->port && s->ready_written) {
      reply.status = 200;
      reply.body = "{}";
      return reply;
    }
  }
  reply.error = "connection refused";
  return reply;
}

bool FakeProcessHost::port_free(int port) {
  std::lock_guard lock(mutex_);
  for (auto& s : servers_) {
    if (s->alive && s->port == port)
      return false;
  }
  return true;
}

int FakeProcessHost::pick_port() {
  std::lock_guard lock(mutex_);
  return next_port_++;
}

double FakeProcessHost::now() {
  std::lock_guard lock(mutex_);
  return clock_;
}

double FakeProcessHost::wall_time() {
  return 1.7e9 + now();
}

void FakeProcessHost::sleep(double seconds) {
  std::lock_guard lock(mutex_);
  clock_ += seconds;
  advance();
}

}  // namespace servescope
