// The load generator's side effects on time: a monotonic clock and timers, real (Asio, see
// asio_client.h) or fake. The fake runs callbacks in time order and jumps its clock to each
// one, so a run against a fake server is exact and instant.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <utility>

namespace servescope {

class EventLoop {
 public:
  using Callback = std::function<void()>;
  using TimerId = std::uint64_t;

  virtual ~EventLoop() = default;
  /// Monotonic seconds.
  virtual double now() const = 0;
  /// Runs `fn` once the clock reaches `t` (at once, after the current callback, if t ≤ now).
  virtual TimerId at(double t, Callback fn) = 0;
  virtual void cancel(TimerId id) = 0;
  /// Runs callbacks until stop() or until nothing is left to run.
  virtual void run() = 0;
  virtual void stop() = 0;
};

class FakeEventLoop final : public EventLoop {
 public:
  explicit FakeEventLoop(double start = 100.0) : now_(start) {}
  double now() const override { return now_; }
  TimerId at(double t, Callback fn) override {
    const TimerId id = ++next_id_;
    queue_.emplace(Key{t < now_ ? now_ : t, id}, std::move(fn));
    return id;
  }
  void cancel(TimerId id) override {
    for (auto it = queue_.begin(); it != queue_.end(); ++it) {
      if (it->first.id == id) {
        queue_.erase(it);
        return;
      }
    }
  }
  void run() override {
    stopped_ = false;
    while (!stopped_ && !queue_.empty()) {
      auto it = queue_.begin();
      now_ = it->first.t;
      Callback fn = std::move(it->second);
      queue_.erase(it);
      fn();
    }
  }
  void stop() override { stopped_ = true; }
  std::size_t pending() const { return queue_.size(); }

 private:
  struct Key {
    double t;
    TimerId id;
    bool operator<(const Key& o) const { return t != o.t ? t < o.t : id < o.id; }
  };
  double now_;
  TimerId next_id_ = 0;
  bool stopped_ = false;
  std::map<Key, Callback> queue_;
};

}  // namespace servescope
