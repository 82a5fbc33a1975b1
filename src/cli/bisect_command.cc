// servescope bisect --launch 'TEMPLATE' (--good 'FLAGS' --bad 'FLAGS' | --vary FLAG...)
//   --metric NAME --out DIR [--ready URL | --ready-log REGEX] [--strategy ...] [--resume] ...
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <iostream>

#include "cli/command.h"
#include "cli/launcher_cli.h"
#include "cli/report_outputs.h"
#include "cli/scenario_cli.h"
#include "core/duration.h"
#include "core/text.h"
#include "engines/twin_profile.h"
#include "lab/bisect_report.h"
#include "lab/bisector.h"
#include "lab/load_bench_probe.h"

namespace servescope {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_interrupt(int) {
  g_interrupted.store(true);
}

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: sleeps and waits wake up
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  ::sigaction(SIGHUP, &sa, nullptr);
}

std::optional<double> parse_tolerance(std::string_view text) {
  text = trim(text);
  double scale = 1;
  if (!text.empty() && text.back() == '%') {
    text.remove_suffix(1);
    scale = 0.01;
  }
  auto v = parse_double(text);
  if (!v || !(*v >= 0) || *v * scale >= 1)
    return std::nullopt;
  return *v * scale;
}

std::string flags_text(const std::vector<TypedFlag>& flags) {
  std::vector<std::string> words;
  for (const TypedFlag& f : flags)
    words.insert(words.end(), f.words.begin(), f.words.end());
  return fmt::format("{}", fmt::join(words, " "));
}

}  // namespace

ExitStatus run_bisect(const CommandArgs& args) {
  CLI::App app(
      "Isolate the flags that change a server's capacity, startup or throughput by launching "
      "it: the good and bad configurations, then the fewest experiments in between "
      "(one-at-a-time, delta debugging, or guided by the model), with a journal that survives a "
      "crash and a report. Durations take units: 90s, 500ms, 15m.",
      "bisect");
  ScenarioOptions model;
  std::string launch, good, bad, metric_name, ready_url, ready_log, fail_log, bench, cwd, out;
  std::string strategy_text = "guided", startup_timeout = "15m", grace = "20s", settle = "0s";
  std::string tolerance_text, devices_text;
  std::vector<std::string> vary, launch_env, scrape;
  int repeat = 0, parallel = 1;
  bool shell = false, resume = false, no_model = false, quiet = false;
  app.add_option("--launch", launch,
                 "The server command with {flags} (and {port}, {run_dir}, {gpus}); run as an "
                 "argv list unless --shell")
      ->required();
  app.add_option("--good", good, "Flags of the configuration that behaves (default: none)");
  app.add_option("--bad", bad, "Flags of the configuration that does not");
  app.add_option("--vary", vary,
                 "A flag as typed, e.g. '--kv-cache-dtype fp8_e4m3' (repeatable): the bad "
                 "configuration is the good one plus every --vary");
  app.add_option("--metric", metric_name,
                 "startup, a capacity figure the log states (max_running_requests, "
                 "max_total_num_tokens, ...) or a bench figure (output_throughput@c=64, "
                 "ttft_p99@rate=4)")
      ->required();
  app.add_option("--ready", ready_url,
                 "Ready when this URL answers 200 (default: http://127.0.0.1:{port}/health; "
                 "with a scheduler http://{host}:{port}/health, {host} the job's node)");
  app.add_option("--ready-log", ready_log, "Ready when a line of the server's output matches");
  app.add_option("--fail-log", fail_log,
                 "A failed start when a line of the server's output matches (besides exiting)");
  app.add_option("--startup-timeout", startup_timeout, "Longest wait for ready")
      ->capture_default_str();
  app.add_option("--grace", grace, "Wait after SIGTERM before SIGKILL")->capture_default_str();
  app.add_option("--settle", settle,
                 "Watch the ready server this long before measuring; a crash then counts")
      ->capture_default_str();
  app.add_option("--bench", bench,
                 "Load options of a bench metric, as bench takes them: --requests N (default: "
                 "4 per client, or 10 s of arrivals), --duration D, --warmup N, --input-len, "
                 "--output-len, --dataset, --api, --model, --seed, --timeout, --no-stream, "
                 "--server-view; the metric gives the load point");
  app.add_option("--strategy", strategy_text, "one-at-a-time, ddmin or guided")
      ->capture_default_str();
  app.add_option("--repeat", repeat,
                 "Measurements per launch of a noisy (bench) metric (default 3)");
  app.add_option("--tolerance", tolerance_text,
                 "Smallest relative good-bad difference of a noisy metric that counts: 0.05 or 5% "
                 "(default 5%)");
  app.add_option("--parallel", parallel, "Experiments at once (distinct {port}, {gpus})")
      ->capture_default_str();
  app.add_option("--devices", devices_text,
                 "Devices to share among parallel experiments, e.g. 0,1,2,3 (for {gpus})");
  app.add_flag("--shell", shell, "Run the template with sh -c (flags are quoted)");
  app.add_option("--cwd", cwd, "Working directory of the server");
  app.add_option("--launch-env", launch_env,
                 "Environment of the server KEY=VALUE (repeatable; placeholders allowed)");
  app.add_option("--scrape", scrape,
                 "GET this path of the ready server into its run folder (repeatable; default "
                 "/metrics and the engine's status endpoints)");
  app.add_option("--out", out, "Folder for the journal, run folders and reports")->required();
  app.add_flag("--resume", resume, "Continue the bisection in --out, reusing its experiments");
  app.add_flag("--no-model", no_model, "Do not ask the model for predictions");
  app.add_flag("--quiet", quiet, "No progress lines on stderr");
  LauncherCli launcher_cli;
  add_launcher_options(app, launcher_cli);
  ReportOutputs reports;
  add_report_outputs(app, reports);
  add_scenario_options(app, model);
  if (auto exit = parse_command_line(app, args))
    return *exit;
  if (args.had_separator)
    return usage_error("bisect: the command goes in --launch, not after --");
  // The launcher's options are checked first: a wrong cluster setting is the first thing to say.
  auto launcher = make_launcher(launcher_cli, out + "/.launcher");
  if (!launcher)
    return usage_error(launcher.message());

  // Everything is checked before the first launch.
  auto tmpl = LaunchTemplate::parse(launch, shell);
  if (!tmpl)
    return usage_error(tmpl.message());
  const auto strategy = parse_strategy(strategy_text);
  if (!strategy)
    return usage_error(
        fmt::format("--strategy {}: use one-at-a-time, ddmin or guided", strategy_text));
  const auto engine = engine_for_command(tmpl->words());
  const Engine* launched_engine = engine ? *engine : nullptr;
  auto metric =
      parse_metric(metric_name, launched_engine != nullptr ? launched_engine->output_names()
                                                           : std::vector<std::string>{});
  if (!metric)
    return usage_error(metric.message());
  if (!vary.empty() && !bad.empty())
    return usage_error("bisect: give --bad or --vary, not both");
  if (vary.empty() && bad.empty())
    return usage_error("bisect: give the bad configuration with --bad 'FLAGS' or --vary FLAG ...");
  auto good_flags = parse_flags(good, "--good");
  if (!good_flags)
    return usage_error(good_flags.message());
  std::vector<TypedFlag> bad_flags;
  if (vary.empty()) {
    auto b = parse_flags(bad, "--bad");
    if (!b)
      return usage_error(b.message());
    bad_flags = std::move(*b);
  } else {
    bad_flags = *good_flags;
    for (const std::string& v : vary) {
      auto f = parse_flags(v, "--vary");
      if (!f)
        return usage_error(f.message());
      if (f->size() != 1)
        return usage_error(fmt::format("--vary '{}': give one flag per --vary", v));
      auto same = std::find_if(bad_flags.begin(), bad_flags.end(),
                               [&](const TypedFlag& t) { return t.name == f->front().name; });
      if (same != bad_flags.end() && same->words == f->front().words)
        return usage_error(fmt::format("--vary '{}': the good configuration already has it", v));
      if (same != bad_flags.end())
        *same = f->front();
      else
        bad_flags.push_back(f->front());
    }
  }
  if (flag_changes(*good_flags, bad_flags).empty())
    return usage_error("bisect: --good and --bad are the same flags; there is nothing to isolate");

  const auto timeout_s = parse_duration_seconds(startup_timeout);
  const auto grace_s = parse_duration_seconds(grace);
  const auto settle_s = parse_duration_seconds(settle);
  if (!timeout_s || *timeout_s <= 0)
    return usage_error(
        fmt::format("--startup-timeout {}: give a duration such as 600s or 15m", startup_timeout));
  if (!grace_s)
    return usage_error(fmt::format("--grace {}: give a duration such as 20s", grace));
  if (!settle_s)
    return usage_error(fmt::format("--settle {}: give a duration such as 5s", settle));
  if (parallel < 1 || parallel > 64)
    return usage_error("--parallel must be between 1 and 64");
  const bool on_scheduler = launcher_cli.launcher != "local";
  const auto queue_timeout_s = queue_timeout_seconds(launcher_cli);
  if (!queue_timeout_s)
    return usage_error(queue_timeout_s.message());
  if (on_scheduler && tmpl->uses("{gpus}"))
    return usage_error(
        "--launch uses {gpus}: with a scheduler the job's GPUs are its own (CUDA_VISIBLE_DEVICES "
        "is set by it); ask for them with --slurm-gpus N");
  if (parallel > 1 && !tmpl->uses("{port}"))
    return usage_error("--parallel: the template needs {port} so experiments listen apart");
  std::vector<std::string> device_groups;
  if (tmpl->uses("{gpus}") || !devices_text.empty()) {
    if (devices_text.empty())
      return usage_error("--launch uses {gpus}: give the devices with --devices 0,1,...");
    std::vector<std::string> devices;
    for (std::string_view d : split(devices_text, ','))
      if (!trim(d).empty())
        devices.emplace_back(trim(d));
    if (devices.size() < static_cast<std::size_t>(parallel))
      return usage_error(fmt::format("--devices {}: {} device(s) cannot be shared by --parallel {}",
                                     devices_text, devices.size(), parallel));
    const std::size_t each = devices.size() / static_cast<std::size_t>(parallel);
    for (int i = 0; i < parallel; ++i) {
      std::vector<std::string> group(devices.begin() + static_cast<std::ptrdiff_t>(i * each),
                                     devices.begin() + static_cast<std::ptrdiff_t>((i + 1) * each));
      device_groups.push_back(fmt::format("{}", fmt::join(group, ",")));
    }
  }
  double tolerance = 0;
  if (metric->noisy()) {
    tolerance = 0.05;
    if (!tolerance_text.empty()) {
      auto t = parse_tolerance(tolerance_text);
      if (!t)
        return usage_error(fmt::format(
            "--tolerance {}: give a fraction below 1 (0.05) or a percentage (5%)", tolerance_text));
      tolerance = *t;
    }
    if (repeat == 0)
      repeat = 3;
    if (repeat < 1 || repeat > 100)
      return usage_error("--repeat must be between 1 and 100");
  } else {
    if (repeat > 1 || !tolerance_text.empty())
      std::cerr << "servescope: note: " << metric->name
                << " is deterministic; --repeat and --tolerance are ignored\n";
    repeat = 1;
  }
  std::unique_ptr<BenchProbe> bench_probe;
  if (metric->kind == MetricSpec::Kind::kBench) {
    auto probe_options = parse_load_probe_options(bench);
    if (!probe_options)
      return usage_error(probe_options.message());
    bench_probe = std::make_unique<LoadBenchProbe>(std::move(*probe_options));
  } else if (!bench.empty()) {
    std::cerr << "servescope: note: " << metric->name
              << " is not a bench figure; --bench is ignored\n";
  }
  if (!ready_url.empty() && !ready_log.empty())
    return usage_error("bisect: give --ready or --ready-log, not both");
  if (ready_url.empty() && ready_log.empty()) {
    if (!tmpl->uses("{port}"))
      return usage_error(
          "bisect: give --ready URL or --ready-log PATTERN (the template has no {port} to ask)");
    ready_url = on_scheduler ? "http://{host}:{port}/health" : "http://127.0.0.1:{port}/health";
  }
  std::vector<std::pair<std::string, std::string>> env;
  for (const std::string& kv : launch_env) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      return usage_error(fmt::format("--launch-env {}: give KEY=VALUE", kv));
    env.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  if (scrape.empty()) {
    scrape.push_back("/metrics");
    if (launched_engine != nullptr && launched_engine->twin_profile() != nullptr) {
      for (const std::string& p : launched_engine->twin_profile()->status_paths())
        scrape.push_back(p);
    }
  }

  RunnerOptions ro;
  ro.launch = *tmpl;
  ro.env = env;
  ro.cwd = cwd;
  ro.ready_url = ready_url;
  ro.ready_log = ready_log;
  ro.fail_log = fail_log;
  ro.startup_timeout_s = *timeout_s;
  ro.queue_timeout_s = *queue_timeout_s;
  ro.grace_s = *grace_s;
  ro.settle_s = *settle_s;
  ro.metric = *metric;
  ro.repeat = repeat;
  ro.engine = launched_engine;
  ro.scrape_paths = scrape;
  ro.bench = bench_probe.get();

  ProcessHost& host = **launcher;
  ExperimentRunner runner(host, ro, &g_interrupted);
  if (Status st = runner.validate(); !st)
    return usage_error(st.message());

  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec)
    return usage_error(fmt::format("--out {}: cannot create it ({})", out, ec.message()));
  if (launcher_cli.dry_run) {
    // Nothing runs: the launcher writes the good and bad configurations' manifests (into
    // their run folders and DIR/manifests/) and applies nothing; no journal is started.
    int id = 0;
    for (const auto* flags : {&*good_flags, &bad_flags}) {
      std::vector<std::string> words;
      for (const TypedFlag& f : *flags)
        words.insert(words.end(), f.words.begin(), f.words.end());
      const std::string dir = fmt::format("{}/runs/{:03d}", out, ++id);
      std::filesystem::create_directories(dir, ec);
      Placeholders ph{words, tmpl->uses("{port}") ? host.pick_port() : 0, dir, ""};
      std::vector<std::pair<std::string, std::string>> spec_env;
      for (const auto& [k, v] : env)
        spec_env.emplace_back(k, substitute_placeholders(v, ph));
      auto written = host.launch({tmpl->expand(ph), spec_env, cwd, dir + "/stdout.log",
                                  dir + "/stderr.log", fmt::format("servescope-{:03d}", id)});
      if (written)
        return usage_error("--dry-run: the launcher ran an experiment");  // never: k8s only
      std::cerr << "servescope: " << written.message() << "\n";
    }
    std::cerr << "servescope: dry run: nothing was applied and no experiment ran (apply a "
                 "manifest with kubectl apply -f, or run again without --dry-run)\n";
    return ExitStatus::kOk;
  }
  nlohmann::json env_json = nlohmann::json::object();
  for (const auto& [k, v] : env)
    env_json[k] = v;
  nlohmann::json header = {{"journal", "servescope bisect"},
                           {"version", 1},
                           {"launch", tmpl->text()},
                           {"shell", shell},
                           {"cwd", cwd},
                           {"env", env_json},
                           {"good", flags_text(*good_flags)},
                           {"bad", flags_text(bad_flags)},
                           {"metric", metric->name},
                           {"repeat", repeat}};
  if (on_scheduler)  // job ids of one launcher mean nothing to another
    header["launcher"] = launcher_cli.launcher;
  const std::string journal_path = out + "/journal.jsonl";
  auto journal =
      resume ? Journal::resume(journal_path, header) : Journal::create(journal_path, header);
  if (!journal)
    return usage_error(journal.message());
  for (const std::string& note : journal->notes())
    std::cerr << "servescope: note: " << note << "\n";

  BisectOptions bo;
  bo.good = *good_flags;
  bo.bad = bad_flags;
  bo.metric = *metric;
  bo.strategy = *strategy;
  bo.tolerance = tolerance;
  bo.parallel = parallel;
  bo.device_groups = device_groups;
  bo.out_dir = out;
  bo.model = model;
  bo.use_model = !no_model;
  Bisector bisector(host, runner, *journal, bo, &g_interrupted);
  if (!quiet)
    bisector.set_progress([&](const ExperimentView& v) {
      std::cerr << experiment_progress_line(v, *metric) << "\n";
    });
  install_interrupt_handlers();
  const BisectResult result = bisector.run();

  BisectRequest request{tmpl->text(),
                        flags_text(*good_flags),
                        flags_text(bad_flags),
                        metric->name,
                        std::string(strategy_name(*strategy)),
                        repeat,
                        tolerance,
                        parallel,
                        out};
  if (Status st = write_bisect_reports(request, result); !st)
    std::cerr << "servescope: error: " << st.message() << "\n";
  if (Status st = write_reports(reports, bisect_report_json(request, result)); !st)
    std::cerr << "servescope: error: " << st.message() << "\n";
  std::cout << bisect_report_text(request, result);
  if (result.interrupted)
    return ExitStatus::kInterrupted;
  return result.culprits.empty() ? ExitStatus::kFindings : ExitStatus::kOk;
}

}  // namespace servescope
