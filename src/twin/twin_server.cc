#include "twin/twin_server.h"

#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <thread>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "twin/http_session.h"

namespace servescope {
namespace {

// How many due steps one wake-up of the serving loop runs, and for how long at most.
constexpr int kMaxStepsPerKick = 64;
constexpr double kKickBudgetSeconds = 0.002;

std::chrono::steady_clock::time_point steady_at(double seconds) {
  return std::chrono::steady_clock::time_point(
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(seconds)));
}

Result<net::ip::address> listen_address(const std::string& host) {
  if (host.empty() || host == "localhost")
    return net::ip::make_address("127.0.0.1");
  boost::system::error_code ec;
  const auto address = net::ip::make_address(host, ec);
  if (ec)
    return fail(fmt::format("--host {}: not an IP address ({})", host, ec.message()));
  return address;
}

// Each streaming connection buffers what its client has not read yet (a response's worth for
// a slow client: ~120 KiB for 400 tokens). glibc would hand that memory back to the system as
// responses end and fault it in again for the next ones, a quarter of the twin's time under a
// thousand streams; a server keeps it instead.
void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
#endif
}

}  // namespace

void StreamLog::write(const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), stream_);
  std::fputc('\n', stream_);
  std::fflush(stream_);
}

TwinServer::TwinServer(const Scenario& scenario, const Plan& plan, const TwinProfile& profile,
                       ServingShape shape, const CostModel* cost, TwinServerOptions options,
                       LogSink& log)
    : scenario_(scenario),
      plan_(plan),
      profile_(profile),
      shape_(std::move(shape)),
      cost_(cost),
      options_(options),
      log_(log) {}

// The engine's startup log up to its error, each line at its time, then exit status 1.
int TwinServer::fail_to_start() {
  RealClock clock;
  const Endpoint wanted = profile_.endpoint(scenario_.command);
  const auto t0 = std::chrono::steady_clock::now();
  for (const LogLine& l : profile_.startup_log(
           scenario_, plan_,
           StartupContext{wanted, options_.startup_seconds, static_cast<int>(getpid())})) {
    std::this_thread::sleep_until(
        t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                 std::chrono::duration<double>(l.at * options_.startup_seconds)));
    log_.write(l.raw ? l.text : profile_.format_log_line(clock.wall(), l.tag, l.text));
  }
  return 1;
}

int TwinServer::run() {
  // A log reader that goes away must not kill the server (sockets already use MSG_NOSIGNAL).
  std::signal(SIGPIPE, SIG_IGN);
  keep_freed_memory();
  if (!plan_.starts || cost_ == nullptr)
    return fail_to_start();
  RealClock clock;
  net::io_context ioc(std::max(1, options_.threads));
  const Endpoint wanted = profile_.endpoint(scenario_.command);
  auto address = listen_address(wanted.host);
  if (!address) {
    log_.write(fmt::format("servescope twin: {}", address.message()));
    return 2;
  }
  tcp::acceptor acceptor(ioc);
  boost::system::error_code ec;
  const tcp::endpoint endpoint(*address, static_cast<unsigned short>(wanted.port));
  acceptor.open(endpoint.protocol(), ec);
  if (!ec)
    acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec)
    acceptor.bind(endpoint, ec);
  if (ec) {
    log_.write(fmt::format("servescope twin: cannot listen on {}:{}: {}", wanted.host, wanted.port,
                           ec.message()));
    return 2;
  }
  const Endpoint bound{wanted.host, acceptor.local_endpoint().port()};
  const std::string model_name = profile_.served_model_name(scenario_);

  ServingLoopOptions loop_options;
  loop_options.speed = options_.speed;
  loop_options.jitter = options_.jitter;
  loop_options.seed = options_.seed;
  loop_options.faults = options_.faults;
  loop_options.model_name = model_name;
  loop_options.endpoint = bound;
  loop_options.startup_seconds = options_.startup_seconds;
  ServingLoop loop(scenario_, plan_, profile_, shape_, *cost_, clock, log_, loop_options);
  ServerContext ctx(ioc, loop, profile_, options_, log_, clock, model_name);
  int exit_status = 0;

  // The loop's timer: poll when the current step ends.
  net::steady_timer loop_timer(ctx.loop_strand);
  net::steady_timer crash_timer(ctx.loop_strand);
  double armed = -1;
  bool crashing = false;
  ctx.kick = [&] {
    // Steps already due (back to back at a high --speed, or a driver that ran late) run in
    // this call, up to a short budget so requests and writes are not held back; their tokens
    // reach each connection as one write.
    const double kick_start = clock.now();
    std::optional<double> next = loop.poll();
    for (int steps = 1; next && steps < kMaxStepsPerKick && !loop.crashed(); ++steps) {
      const double now = clock.now();
      if (*next > now || now - kick_start >= kKickBudgetSeconds)
        break;
      next = loop.poll();
    }
    if (loop.crashed()) {
      if (crashing)
        return;
      crashing = true;
      // Let the last responses reach their clients, then die like the engine does.
      crash_timer.expires_after(std::chrono::milliseconds(50));
      crash_timer.async_wait([&](boost::system::error_code) {
        for (const LogLine& l : profile_.crash_log(
                 fmt::format("twin fault: crash after {} requests", options_.faults.crash_after)))
          log_.write(l.raw ? l.text : profile_.format_log_line(clock.wall(), l.tag, l.text));
        std::fflush(nullptr);
        std::_Exit(1);
      });
      return;
    }
    if (!next || *next == armed)
      return;
    armed = *next;
    loop_timer.expires_at(steady_at(*next));
    loop_timer.async_wait([&](boost::system::error_code wait_ec) {
      if (wait_ec)
        return;
      armed = -1;
      ctx.kick();
    });
  };

  // Accepting, once the startup log says the server listens.
  net::steady_timer accept_retry(ioc);
  std::function<void()> accept = [&] {
    acceptor.async_accept(net::make_strand(ioc),
                          [&](boost::system::error_code accept_ec, tcp::socket socket) {
                            if (accept_ec == net::error::operation_aborted)
                              return;
                            if (!accept_ec) {
                              std::make_shared<HttpSession>(std::move(socket), ctx)->start();
                              accept();
                              return;
                            }
                            // Out of descriptors or similar: retry shortly instead of spinning.
                            accept_retry.expires_after(std::chrono::milliseconds(10));
                            accept_retry.async_wait([&](boost::system::error_code) { accept(); });
                          });
  };

  // The startup log, each line at its share of --startup-seconds.
  const std::vector<LogLine> lines = profile_.startup_log(
      scenario_, plan_,
      StartupContext{bound, options_.startup_seconds, static_cast<int>(getpid())});
  net::steady_timer startup_timer(ioc);
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t next_line = 0;
  bool failed = false;
  std::function<void()> print_lines = [&] {
    while (next_line < lines.size()) {
      const LogLine& l = lines[next_line];
      const auto due = t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(l.at * options_.startup_seconds));
      if (due > std::chrono::steady_clock::now()) {
        startup_timer.expires_at(due);
        startup_timer.async_wait([&](boost::system::error_code wait_ec) {
          if (!wait_ec)
            print_lines();
        });
        return;
      }
      log_.write(l.raw ? l.text : profile_.format_log_line(clock.wall(), l.tag, l.text));
      ++next_line;
      if (l.mark == StartupMark::kListening) {
        acceptor.listen(net::socket_base::max_listen_connections, ec);
        if (ec) {
          log_.write(fmt::format("servescope twin: cannot listen on {}:{}: {}", bound.host,
                                 bound.port, ec.message()));
          exit_status = 2;
          ioc.stop();
          return;
        }
        std::fprintf(stdout,
                     "servescope twin: %s %s plan served at http://%s:%d (speed %g%s) — a model, "
                     "not the engine\n",
                     scenario_.engine.c_str(), scenario_.version.label.c_str(), bound.host.c_str(),
                     bound.port, options_.speed, options_.faults.any() ? ", faults on" : "");
        if (shape_.dp > 1)
          std::fprintf(
              stdout,
              "servescope twin: dp %d: one data-parallel worker is modelled, with its own limits\n",
              shape_.dp);
        std::fflush(stdout);
        accept();
      } else if (l.mark == StartupMark::kReady) {
        ctx.ready = true;
      } else if (l.mark == StartupMark::kFailed) {
        failed = true;
      }
    }
    if (failed) {
      exit_status = 1;
      ioc.stop();
    }
  };
  net::post(ioc, print_lines);

  net::signal_set signals(ioc, SIGINT, SIGTERM);
  signals.async_wait([&](boost::system::error_code signal_ec, int signal) {
    if (signal_ec)
      return;
    exit_status = signal == SIGINT ? 130 : 0;
    ioc.stop();
  });

  std::vector<std::thread> workers;
  for (int i = 1; i < options_.threads; ++i)
    workers.emplace_back([&] { ioc.run(); });
  ioc.run();
  ioc.stop();
  for (std::thread& t : workers)
    t.join();
  return exit_status;
}

}  // namespace servescope
