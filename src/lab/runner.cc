#include "lab/runner.h"

#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/text.h"
#include "lab/log_evidence.h"

namespace servescope {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLogFiles[] = {"stderr.log", "stdout.log"};

// Follows a growing file: each call returns the complete lines appended since the last one.
class LogTail {
 public:
  explicit LogTail(std::string path) : path_(std::move(path)) {}
  std::vector<std::string> next_lines() {
    std::vector<std::string> out;
    std::ifstream in(path_, std::ios::binary);
    if (!in)
      return out;
    in.seekg(static_cast<std::streamoff>(offset_));
    char buf[65536];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
      const auto n = static_cast<std::size_t>(in.gcount());
      offset_ += n;
      partial_.append(buf, n);
    }
    std::size_t start = 0;
    for (std::size_t nl = partial_.find('\n'); nl != std::string::npos;
         nl = partial_.find('\n', start)) {
      out.push_back(partial_.substr(start, nl - start));
      start = nl + 1;
    }
    partial_.erase(0, start);
    if (partial_.size() > (std::size_t{1} << 20))  // a line without end: look at it anyway
      out.push_back(std::move(partial_)), partial_.clear();
    return out;
  }
  std::uint64_t lines_seen() const { return lines_; }
  void count(std::size_t n) { lines_ += n; }

 private:
  std::string path_;
  std::size_t offset_ = 0;
  std::string partial_;
  std::uint64_t lines_ = 0;
};

std::string base_url_of(const std::string& ready_url, int port, const std::string& host) {
  // "http://host:port/path" → "http://host:port"
  const auto scheme = ready_url.find("://");
  if (!ready_url.empty() && scheme != std::string::npos) {
    const auto slash = ready_url.find('/', scheme + 3);
    return ready_url.substr(0, slash);
  }
  return fmt::format("http://{}:{}", host, port);
}

std::string scrape_file_name(std::string_view path) {
  std::string name = "scrape";
  for (char c : path)
    name += (std::isalnum(static_cast<unsigned char>(c)) != 0) ? c : '_';
  return name + ".txt";
}

// The problem line that names the cause: a Python exception line ("ValueError: ...") rather
// than the "Traceback (most recent call last):" header before it; else the first problem.
const EvidenceLine& cause_of(const std::vector<EvidenceLine>& problems) {
  static const RE2 kException(R"(^\s*[A-Za-z_][\w.]*(Error|Exception)\b.*:)");
  for (const EvidenceLine& p : problems) {
    if (RE2::PartialMatch(p.text, kException))
      return p;
  }
  return problems.front();
}

}  // namespace

ExperimentRunner::ExperimentRunner(ProcessHost& host, RunnerOptions options,
                                   const std::atomic<bool>* interrupted)
    : host_(host), options_(std::move(options)), interrupted_(interrupted) {
  RE2::Options quiet;
  quiet.set_log_errors(false);
  if (!options_.ready_log.empty())
    ready_re_ = std::make_unique<RE2>(options_.ready_log, quiet);
  if (!options_.fail_log.empty())
    fail_re_ = std::make_unique<RE2>(options_.fail_log, quiet);
}

Status ExperimentRunner::validate() const {
  if (ready_re_ && !ready_re_->ok())
    return fail(fmt::format("--ready-log '{}': not a valid pattern ({})", options_.ready_log,
                            ready_re_->error()));
  if (fail_re_ && !fail_re_->ok())
    return fail(fmt::format("--fail-log '{}': not a valid pattern ({})", options_.fail_log,
                            fail_re_->error()));
  if (options_.ready_url.empty() && !ready_re_)
    return fail("bisect: give --ready URL or --ready-log PATTERN to say when the server is ready");
  return ok_status();
}

void ExperimentRunner::run(ExperimentRecord& rec, const ExperimentSlot& slot,
                           const std::string& base_dir, const std::string& attach_job) {
  const std::string dir = fs::absolute(fs::path(base_dir) / rec.run_dir).lexically_normal();
  std::error_code ec;
  fs::create_directories(dir, ec);
  Placeholders ph{rec.flags, slot.port, dir, slot.gpus};
  rec.argv = options_.launch.expand(ph);
  rec.env.clear();
  for (const auto& [k, v] : options_.env)
    rec.env.emplace_back(k, substitute_placeholders(v, ph));
  rec.cwd = options_.cwd;
  rec.port = slot.port;
  rec.gpus = slot.gpus;
  LaunchSpec spec{rec.argv,
                  rec.env,
                  rec.cwd,
                  dir + "/stdout.log",
                  dir + "/stderr.log",
                  fmt::format("servescope-{:03d}", rec.id)};

  rec.started_at = host_.wall_time();
  Result<std::unique_ptr<ServerProcess>> launched = fail("not launched");
  if (!attach_job.empty()) {
    launched = host_.attach(attach_job);
    rec.reattached = static_cast<bool>(launched);
  }
  if (!rec.reattached)
    launched = host_.launch(spec);
  if (!launched) {
    rec.outcome = ExperimentOutcome::kFailedStart;
    rec.failure = launched.message();
    rec.stopped_at = host_.wall_time();
    return;
  }
  ServerProcess& server = **launched;
  const Placement placed = server.placement();
  rec.launcher = placed.launcher;
  rec.job_id = placed.job_id;
  if (on_launched_)
    on_launched_(rec);
  if (!wait_in_queue(rec, server)) {
    tear_down(rec, server);
    return;
  }
  ph.host = server.host();
  const std::string ready_url =
      options_.ready_url.empty() ? "" : substitute_placeholders(options_.ready_url, ph);
  const double t0 = host_.now();  // the startup timeout counts from leaving the queue

  // Wait for ready, a failure, the timeout or an interrupt.
  LogTail tails[] = {LogTail(dir + "/stderr.log"), LogTail(dir + "/stdout.log")};
  bool ready = false;
  bool decided = false;
  while (!decided) {
    if (interrupted()) {
      rec.outcome = ExperimentOutcome::kInterrupted;
      rec.failure = "interrupted";
      break;
    }
    for (int t = 0; t < 2 && !decided; ++t) {
      const auto lines = tails[t].next_lines();
      for (std::size_t i = 0; i < lines.size() && !decided; ++i) {
        const std::uint64_t number = tails[t].lines_seen() + i + 1;
        if (fail_re_ && RE2::PartialMatch(lines[i], *fail_re_)) {
          rec.outcome = ExperimentOutcome::kFailedStart;
          rec.failure = "the log matched --fail-log: " + std::string(trim(lines[i]));
          rec.evidence.push_back({kLogFiles[t], number, lines[i], "failure pattern"});
          decided = true;
        } else if (ready_re_ && RE2::PartialMatch(lines[i], *ready_re_)) {
          ready = decided = true;
        }
      }
      tails[t].count(lines.size());
    }
    if (decided)
      break;
    if (auto status = server.exit_status()) {
      rec.outcome = ExperimentOutcome::kFailedStart;
      rec.failure = fmt::format("exited with status {} before it was ready", *status);
      break;
    }
    if (!ready_url.empty()) {
      const auto reply = host_.http_get(ready_url, std::chrono::milliseconds(2000));
      if (reply.status == 200) {
        ready = true;
        break;
      }
    }
    if (host_.now() - t0 > options_.startup_timeout_s) {
      rec.outcome = ExperimentOutcome::kTimeout;
      rec.failure =
          fmt::format("not ready after {:g} s (--startup-timeout)", options_.startup_timeout_s);
      break;
    }
    host_.sleep(options_.poll_s);
  }

  if (ready) {
    rec.ready_at = host_.wall_time();
    rec.outcome = ExperimentOutcome::kReady;
    const double settle_until = host_.now() + options_.settle_s;
    while (host_.now() < settle_until && !interrupted() && !server.exit_status())
      host_.sleep(std::min(options_.poll_s, settle_until - host_.now()));
    if (interrupted()) {
      rec.outcome = ExperimentOutcome::kInterrupted;
      rec.failure = "interrupted";
    } else if (auto status = server.exit_status()) {
      rec.outcome = ExperimentOutcome::kCrashed;
      rec.failure = fmt::format("exited with status {} after it was ready", *status);
    } else {
      collect(rec, dir, base_url_of(ready_url, slot.port, ph.host), server);
    }
  }
  tear_down(rec, server);
  if ((rec.outcome == ExperimentOutcome::kFailedStart ||
       rec.outcome == ExperimentOutcome::kCrashed) &&
      server.cancelled_elsewhere()) {
    const Placement p = server.placement();
    rec.outcome = ExperimentOutcome::kCancelled;
    rec.failure =
        fmt::format("cancelled outside servescope ({} job {}: {}{}), e.g. by scancel", p.launcher,
                    p.job_id, p.state, p.reason.empty() ? "" : ", " + p.reason);
  }

  // The log's figures and problems, whatever the outcome.
  const LogEvidence log = read_log_evidence(dir, {kLogFiles[0], kLogFiles[1]}, options_.engine);
  rec.figures = log.figures;
  const MetricSpec& m = options_.metric;
  if (rec.outcome == ExperimentOutcome::kReady) {
    if (m.kind == MetricSpec::Kind::kStartup) {
      rec.values = {1};
    } else if (m.kind == MetricSpec::Kind::kCapacity) {
      auto it = log.figures.find(m.figure);
      if (it != log.figures.end()) {
        rec.values = {it->second};
        rec.evidence.push_back(log.figure_lines.at(m.figure));
      } else {
        rec.failure = fmt::format("the log states no {} (the log grammar {})", m.figure,
                                  log.engine.empty() ? "recognised no line" : "read it");
      }
    }
  } else if (rec.outcome == ExperimentOutcome::kFailedStart &&
             m.kind == MetricSpec::Kind::kStartup) {
    rec.values = {0};
  }
  if (rec.outcome != ExperimentOutcome::kReady) {
    for (const EvidenceLine& p : log.problems)
      rec.evidence.push_back(p);
    if (log.problems.empty() && rec.outcome != ExperimentOutcome::kInterrupted) {
      for (const char* file : kLogFiles) {
        for (EvidenceLine& e : tail_lines(dir, file, 3))
          rec.evidence.push_back(std::move(e));
      }
    }
    if (rec.outcome == ExperimentOutcome::kFailedStart && !log.problems.empty() &&
        rec.failure.rfind("exited", 0) == 0)
      rec.failure += ": " + std::string(trim(cause_of(log.problems).text));
  }
  if (!rec.values.empty())
    rec.value = median(rec.values);
}

void ExperimentRunner::collect(ExperimentRecord& rec, const std::string& dir,
                               const std::string& base, ServerProcess& server) {
  for (const std::string& path : options_.scrape_paths) {
    const auto reply = host_.http_get(base + path, std::chrono::milliseconds(5000));
    if (reply.status != 200)
      continue;
    const std::string name = scrape_file_name(path);
    std::ofstream(dir + "/" + name, std::ios::binary) << reply.body;
    rec.scraped[path] = name;
  }
  if (options_.metric.kind != MetricSpec::Kind::kBench)
    return;
  if (options_.bench == nullptr) {
    rec.failure = "no bench runner: bench metrics need servescope's load generator";
    return;
  }
  for (int i = 0; i < options_.repeat && !interrupted(); ++i) {
    const std::string json = fmt::format("{}/bench-{}.json", dir, i + 1);
    auto v = options_.bench->measure(base, options_.metric, json);
    if (server.exit_status()) {
      rec.outcome = ExperimentOutcome::kCrashed;
      rec.failure =
          fmt::format("exited with status {} during bench run {}", *server.exit_status(), i + 1);
      rec.values.clear();
      return;
    }
    if (!v) {
      rec.failure = "bench: " + v.message();
      continue;
    }
    rec.values.push_back(*v);
    rec.evidence.push_back({fmt::format("bench-{}.json", i + 1), 0,
                            fmt::format("{} = {:g}", options_.metric.name, *v),
                            options_.metric.name});
  }
  if (interrupted()) {
    rec.outcome = ExperimentOutcome::kInterrupted;
    rec.failure = "interrupted";
  }
}

bool ExperimentRunner::wait_in_queue(ExperimentRecord& rec, ServerProcess& server) {
  const double t0 = host_.now();
  while (server.queued()) {
    if (interrupted()) {
      rec.outcome = ExperimentOutcome::kInterrupted;
      rec.failure = "interrupted while it waited in the queue";
      return false;
    }
    const double waited = host_.now() - t0;
    if (waited > options_.queue_timeout_s) {
      const Placement p = server.placement();
      rec.queued_seconds = waited;
      rec.outcome = ExperimentOutcome::kQueueTimeout;
      rec.failure = fmt::format(
          "{} job {} waited {:.0f} s in the queue, past --queue-timeout {:g} s ({}{}); it was "
          "cancelled",
          p.launcher, p.job_id, waited, options_.queue_timeout_s, p.state,
          p.reason.empty() ? "" : ", reason " + p.reason);
      return false;
    }
    host_.sleep(options_.poll_s);
  }
  const Placement placed = server.placement();
  // The scheduler's own times when it gives them; ours only see the wait to a poll's accuracy.
  rec.queued_seconds = placed.queued_seconds >= 0 ? placed.queued_seconds : host_.now() - t0;
  rec.node = placed.node;
  return true;
}

void ExperimentRunner::tear_down(ExperimentRecord& rec, ServerProcess& server) {
  const double step = std::min(options_.poll_s, 0.05);
  if (server.group_alive()) {
    server.signal_group(SIGTERM);
    const double until = host_.now() + options_.grace_s;
    while (server.group_alive() && host_.now() < until)
      host_.sleep(step);
    if (server.group_alive()) {
      rec.killed = true;
      server.signal_group(SIGKILL);
      const double kill_until = host_.now() + 10;
      while (server.group_alive() && host_.now() < kill_until)
        host_.sleep(step);
    }
  }
  rec.group_gone = !server.group_alive();
  rec.exit_status = server.exit_status();
  if (rec.port > 0) {
    const double until = host_.now() + options_.port_wait_s;
    while (!host_.port_free(rec.port) && host_.now() < until)
      host_.sleep(step);
    rec.port_released = host_.port_free(rec.port);
  }
  rec.stopped_at = host_.wall_time();
}

}  // namespace servescope
