// servescope bench --url URL [--api NAME] [--model NAME] (--concurrency C[,C...] | --rate
//   R[,R...] [--arrival poisson|constant|gamma:K] [--concurrency CAP]) (--requests N |
//   --duration D) [--input-len SPEC] [--output-len SPEC] [--dataset random|FILE.jsonl]
//   [--shared-prefix N:LEN] [--multi-turn T] | --trace FILE [--trace-speed S[,S...]]
//   [--warmup N] [--seed S] [--timeout D] [--json FILE] [--csv FILE] [--markdown FILE] [--html
//   FILE]
//   [--details] [--expect-from LOG | scenario options (--model-config for the config) -- CMD]
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/bench_on_slurm.h"
#include "cli/bench_trace_cli.h"
#include "cli/command.h"
#include "cli/report_outputs.h"
#include "cli/scenario_cli.h"
#include "core/duration.h"
#include "core/json_read.h"
#include "engines/engine.h"
#include "evidence/log_reader.h"
#include "load/bench_session.h"
#include "load/bench_verdict.h"
#include "load/load_search.h"
#include "load/run_compare.h"
#include "load/slo.h"
#include "report/bench_export.h"
#include "report/bench_text.h"

namespace servescope {
namespace {

// "30" and "30s" are seconds; also "500ms", "2m", "1h".
Result<double> parse_duration(const std::string& text, const std::string& option) {
  const auto v = parse_duration_seconds(text);
  if (!v || !(*v > 0) || std::isinf(*v))
    return fail(
        fmt::format("{} {}: give a positive duration like 30s, 500ms, 2m or 1h", option, text));
  return *v;
}

bool stderr_is_terminal() {
  const char* term = std::getenv("TERM");
  return ::isatty(STDERR_FILENO) == 1 && (term == nullptr || std::string(term) != "dumb");
}

Status write_output(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    return ok_status();
  }
  std::ofstream out(path, std::ios::binary);
  if (!out)
    return fail(fmt::format("{}: cannot write the file", path));
  out << text;
  return ok_status();
}

// max_running_requests as a log states it (through its engine's scenario reading).
Result<BenchExpectation> expectation_from_log(const std::string& path) {
  auto facts = read_log_file(path);
  if (!facts)
    return fail(facts.message());
  auto engine = find_engine(facts->engine());
  if (!engine)
    return fail(fmt::format("--expect-from {}: {}", path, engine.message()));
  auto scenario = (*engine)->scenario_from_log(facts->all());
  if (!scenario)
    return fail(fmt::format("--expect-from {}: {}", path, scenario.message()));
  const LoggedFigure* best = nullptr;
  for (const LoggedFigure& f : scenario->figures) {
    if (f.output == "max_running_requests" && f.value.is_number() &&
        (best == nullptr || (best->from_defaults && !f.from_defaults)))
      best = &f;
  }
  if (best == nullptr)
    return fail(fmt::format("--expect-from {}: the log does not state max_running_requests", path));
  return BenchExpectation{fmt::format("the log {} (line {})", path, best->line),
                          best->value.as_number()};
}

Result<BenchExpectation> expectation_from_plan(const ScenarioOptions& options) {
  auto built = build_scenario(options);
  if (!built)
    return fail(built.message());
  auto plan = built->engine->plan(built->scenario);
  if (!plan)
    return fail(plan.message());
  if (!plan->has_output("max_running_requests") ||
      !plan->output("max_running_requests").is_number())
    return fail("the plan has no max_running_requests to hold the run against");
  return BenchExpectation{"the plan", plan->output("max_running_requests").as_number()};
}

ExitStatus run_compare(const std::vector<std::string>& files, const CompareOptions& options,
                       const std::string& json_path, const ReportOutputs& reports) {
  auto a = read_json_file(files[0], "bench --compare");
  if (!a)
    return usage_error(a.message());
  auto b = read_json_file(files[1], "bench --compare");
  if (!b)
    return usage_error(b.message());
  auto c = compare_runs(*a, *b, files[0], files[1], options);
  if (!c)
    return usage_error(c.message());
  if (json_path != "-" && reports.markdown != "-" && reports.html != "-")
    std::cout << render_comparison_text(*c);
  const nlohmann::json doc = comparison_json(*c);
  if (!json_path.empty())
    if (Status st = write_output(json_path, doc.dump(2) + "\n"); !st)
      return usage_error(st.message());
  if (reports.any())
    if (Status st = write_reports(reports, doc); !st)
      return usage_error(st.message());
  return ExitStatus::kOk;
}

// --find-max: the search, its text or JSON, exit 1 when no load meets the objectives.
struct FindMaxCli {
  std::string mode, budget;
  double min_attainment = 99, precision = 10;
  int max_repeats = 3;
  std::int64_t requests = 0;
  bool quiet = false;
};

ExitStatus run_find_max(const BenchOptions& o, const FindMaxCli& f, const std::string& json_path) {
  if (o.slo.empty())
    return usage_error("bench --find-max: give the objectives with --slo, e.g. ttft_p99:500ms");
  auto budget_s = parse_duration(f.budget, "--budget");
  if (!budget_s)
    return usage_error(budget_s.message());
  LoadSearchOptions so;
  so.by_rate = f.mode == "rate";
  if (so.by_rate != !o.points.front().closed_loop)
    return usage_error(
        fmt::format("bench --find-max {}: start it with --{} (or neither)", f.mode, f.mode));
  so.start = so.by_rate ? o.points.front().rate : o.points.front().concurrency;
  so.budget_s = *budget_s;
  // A closed loop cannot hold more requests in flight than a point sends.
  if (!so.by_rate && f.requests > 0)
    so.max_load = static_cast<double>(f.requests);
  so.min_attainment = f.min_attainment / 100;
  so.precision = f.precision / 100;
  so.max_repeats = f.max_repeats;
  auto progress_line = [quiet = f.quiet](const std::string& line) {
    if (!quiet)
      std::cerr << "servescope: " << line << "\n";
  };
  auto searched = find_max_load(o, o.points.front(), so, progress_line);
  if (!searched)
    return usage_error(searched.message());
  if (json_path != "-")
    std::cout << render_search_text(*searched, so);
  if (!json_path.empty())
    if (Status st = write_output(json_path, search_json(*searched, so).dump(2) + "\n"); !st)
      return usage_error(st.message());
  if (!searched->found) {
    std::cerr << "servescope: bench --find-max: no load tried meets the objectives\n";
    return ExitStatus::kFindings;
  }
  return ExitStatus::kOk;
}

}  // namespace

ExitStatus run_bench(const CommandArgs& args) {
  CLI::App app(
      "Drive an LLM server with load and measure it correctly: latency from the intended send "
      "time next to the actual send, per-token inter-token latency, and how many requests the "
      "server really ran at once (its own metrics, scraped during the run).",
      "bench");
  std::string url, api = "openai-completions", model, concurrency, rate, arrival = "poisson";
  std::string duration, timeout = "300s", scrape_interval = "250ms";
  std::string input_len = "1024", output_len = "256", dataset = "random", shared_prefix;
  std::int64_t turns = 1;
  std::string json_path, csv_path, expect_from, engine_names;
  std::string slo;
  double max_error_rate = 0;
  std::int64_t requests = 0, warmup = 0;
  std::uint64_t seed = 1;
  bool no_stream = false, no_ignore_eos = false, no_continuous_usage = false, details = false;
  bool no_server_view = false, quiet = false;
  ScenarioOptions scenario;
  app.add_option("--url", url, "The server, http://HOST:PORT (the only address contacted)");
  std::string find_max, budget = "10m";
  double min_attainment = 99, precision = 10;
  int max_repeats = 3, repeat = 1;
  app.add_option("--find-max", find_max,
                 "Search the highest load (rate or concurrency) whose point meets --slo: "
                 "doubling, then bisection, each verdict settled by 95% intervals")
      ->check(CLI::IsMember({"rate", "concurrency"}));
  app.add_option("--budget", budget, "With --find-max: the longest the search may take")
      ->capture_default_str();
  app.add_option("--min-attainment", min_attainment,
                 "With --find-max: percent of requests that must meet the per-request objectives")
      ->check(CLI::Range(0.0, 100.0));
  app.add_option("--precision", precision,
                 "With --find-max rate: stop when the bracket is this many percent wide")
      ->check(CLI::Range(0.1, 100.0));
  app.add_option("--max-repeats", max_repeats,
                 "With --find-max: runs of a load whose verdict is unsettled")
      ->check(CLI::Range(1, 20));
  std::vector<std::string> compare;
  double min_effect = 2;
  app.add_option("--compare", compare,
                 "Compare two bench --json results (A.json B.json): per metric the change with a "
                 "95% bootstrap interval and a verdict (record them with --details)")
      ->expected(2);
  app.add_option("--min-effect", min_effect,
                 "With --compare: the smallest change, in percent, called a difference (default 2)")
      ->check(CLI::Range(0.0, 100.0));
  std::string api_help = "API: openai-completions, openai-chat";
  for (const std::string& name : api_names())
    if (name.rfind("openai-", 0) != 0)
      api_help += ", " + name;
  app.add_option("--api", api, api_help)->capture_default_str();
  app.add_option("--model", model, "Model name to send (default: the first of GET /v1/models)");
  app.add_option("--concurrency", concurrency,
                 "Closed loop: requests in flight, C or C1,C2,... (a sweep); with --rate, the "
                 "cap on requests in flight");
  app.add_option("--rate", rate, "Open loop: requests per second, R or R1,R2,... (a sweep)");
  app.add_option("--arrival", arrival, "Open-loop arrivals: poisson, constant or gamma:K")
      ->capture_default_str();
  app.add_option("--requests", requests, "Requests per point (after the warm-up)");
  app.add_option("--duration", duration, "Time per point instead of a count: 30s, 2m ...");
  app.add_option("--input-len", input_len,
                 "Prompt tokens of synthetic prompts: N, uniform:A:B, normal:MEAN:SD or a JSONL "
                 "file of (input, output)")
      ->capture_default_str();
  app.add_option("--output-len", output_len,
                 "Output tokens asked for: same forms (overrides a dataset's lengths)")
      ->capture_default_str();
  app.add_option("--dataset", dataset,
                 "random (synthetic prompts: --input-len token ids from [100, 500), counted "
                 "exactly by the server; openai-chat cannot carry ids, so its synthetic prompts "
                 "are text of about that many tokens) or a JSONL file (text): ShareGPT "
                 "conversations or {\"prompt\": ..., \"output_len\": N}")
      ->capture_default_str();
  app.add_option("--shared-prefix", shared_prefix,
                 "N:LEN: each synthetic prompt starts with one of N system prompts of LEN tokens "
                 "(in turn), then its own --input-len tokens; the server's prefix-cache hits "
                 "show what it reused");
  app.add_option("--multi-turn", turns,
                 "T: synthetic conversations of T requests; each turn is sent when the one before "
                 "it has ended and re-sends the history (earlier prompts, answers as tokens of "
                 "their length) plus its own --input-len tokens")
      ->check(CLI::Range(1, 64));
  app.add_option("--repeat", repeat,
                 "Run each point N times in a row: latency over every run's requests, throughput "
                 "per run (mean ± sd; --compare puts an interval on it from 3 runs)")
      ->check(CLI::Range(1, 100));
  app.add_option("--warmup", warmup, "Requests sent first at each point and left out")
      ->capture_default_str();
  app.add_option("--seed", seed, "Seed of prompts, lengths and arrivals")->capture_default_str();
  app.add_option("--timeout", timeout, "Longest a request may take from its send")
      ->capture_default_str();
  app.add_option("--json", json_path, "Write the results as JSON to FILE (- for stdout)");
  app.add_option("--csv", csv_path, "Write one CSV row per point to FILE (- for stdout)");
  ReportOutputs reports;
  add_report_outputs(app, reports);
  app.add_flag("--details", details, "Put every request's record in the JSON");
  app.add_flag("--no-stream", no_stream, "Ask for whole responses instead of event streams");
  app.add_flag("--no-ignore-eos", no_ignore_eos,
               "Let the model stop at its end-of-sequence token (default: ignore_eos, so outputs "
               "have the asked length)");
  app.add_flag("--no-continuous-usage", no_continuous_usage,
               "Do not ask for usage in every stream event (per-token ITL is then estimated "
               "when events carry several tokens)");
  app.add_option("--engine-metrics", engine_names,
                 "Read the server's metrics with this engine's names (default: detected)");
  app.add_flag("--no-server-view", no_server_view,
               "Do not read the server's metrics and status endpoints during the run");
  app.add_option("--scrape-interval", scrape_interval, "Time between reads of the server's view")
      ->capture_default_str();
  app.add_option("--slo", slo,
                 "Objectives: per request ttft:500ms,tpot:50ms,e2e:30s (goodput and attainment "
                 "per point), or a percentile of the point ttft_p99:500ms (missed: exit 1)");
  app.add_option("--max-error-rate", max_error_rate,
                 "Percent of a point's requests that may fail before the run exits 1 (default 0)")
      ->check(CLI::Range(0.0, 100.0));
  app.add_option("--expect-from", expect_from,
                 "A server log whose max_running_requests the run is held against");
  app.add_flag("--quiet", quiet, "No progress line");
  add_scenario_options(app, scenario, "--model-config");
  BenchTraceCli trace;
  add_bench_trace_options(app, trace);
  BenchSlurmCli slurm;
  add_bench_slurm_options(app, slurm);
  if (auto exit = parse_command_line(app, args))
    return *exit;

  if (!compare.empty()) {
    CompareOptions co;
    co.min_effect = min_effect / 100;
    return run_compare(compare, co, json_path, reports);
  }
  if (url.empty())
    return usage_error("bench: --url is required (or --compare A.json B.json)");
  BenchOptions o;
  auto parsed_url = parse_server_url(url);
  if (!parsed_url)
    return usage_error(parsed_url.message());
  if (!slurm.slurm && (!slurm.node.empty() || !slurm.allocation.empty()))
    return usage_error("bench: --slurm-node and --slurm-allocation go with --slurm");
  if (slurm.slurm) {
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    auto argv =
        bench_srun_argv(slurm, args.options, ec ? "servescope" : self.string(), parsed_url->host);
    if (!argv)
      return usage_error(argv.message());
    return run_bench_on_slurm(*argv);
  }
  o.url = *parsed_url;
  auto parsed_api = resolve_api(api);
  if (!parsed_api)
    return usage_error(parsed_api.message());
  o.api = *parsed_api;
  o.model = model;
  o.stream = !no_stream;
  o.ignore_eos = !no_ignore_eos;
  o.continuous_usage = !no_continuous_usage;
  o.details = details;
  o.repeats = repeat;
  o.engine = engine_names;
  o.watch_server = !no_server_view;
  o.generator = "servescope";

  if (!find_max.empty() && concurrency.empty() && rate.empty())
    (find_max == "rate" ? rate : concurrency) = "1";  // the search starts from one
  const bool replay = !trace.file.empty();
  if (concurrency.empty() && rate.empty() && !replay)
    return usage_error(
        "bench: give --concurrency C (closed loop), --rate R (open loop) or --trace FILE");
  if (!replay && (requests > 0) == !duration.empty())
    return usage_error("bench: give exactly one of --requests N and --duration D");
  if (requests < 0 || warmup < 0)
    return usage_error("bench: --requests and --warmup must not be negative");
  std::vector<double> conc_values, rate_values;
  if (!concurrency.empty()) {
    auto v = parse_number_list(concurrency, "--concurrency");
    if (!v)
      return usage_error(v.message());
    conc_values = *v;
    for (double c : conc_values)
      if (c != std::floor(c) || c > 1e6)
        return usage_error("bench: --concurrency takes whole numbers up to 1,000,000");
  }
  if (!rate.empty()) {
    auto v = parse_number_list(rate, "--rate");
    if (!v)
      return usage_error(v.message());
    rate_values = *v;
  }
  if (conc_values.size() > 1 && rate_values.size() > 1)
    return usage_error("bench: sweep either --concurrency or --rate, not both");
  auto arrival_process = ArrivalProcess::parse(arrival);
  if (!arrival_process)
    return usage_error(arrival_process.message());
  auto timeout_s = parse_duration(timeout, "--timeout");
  if (!timeout_s)
    return usage_error(timeout_s.message());
  double duration_s = 0;
  if (!duration.empty()) {
    auto d = parse_duration(duration, "--duration");
    if (!d)
      return usage_error(d.message());
    duration_s = *d;
  }
  auto interval = parse_duration(scrape_interval, "--scrape-interval");
  if (!interval)
    return usage_error(interval.message());
  o.scrape_interval_s = *interval;

  PointPlan base;
  base.arrival = *arrival_process;
  base.requests = requests;
  base.duration_s = duration_s;
  base.warmup = warmup;
  base.timeout_s = *timeout_s;
  base.seed = seed;
  if (replay) {
    if (conc_values.size() > 1)
      return usage_error("bench: with --trace, --concurrency is one cap on requests in flight");
    base.concurrency = conc_values.empty() ? 0 : static_cast<int>(conc_values.front());
    if (Status st = apply_bench_trace(app, trace, requests, base, o); !st)
      return usage_error(st.message());
  } else if (rate_values.empty()) {
    for (double c : conc_values) {
      PointPlan p = base;
      p.closed_loop = true;
      p.concurrency = static_cast<int>(c);
      o.points.push_back(p);
    }
  } else {
    const std::size_t n =
        std::max(rate_values.size(), std::max<std::size_t>(conc_values.size(), 1));
    for (std::size_t i = 0; i < n; ++i) {
      PointPlan p = base;
      p.closed_loop = false;
      p.rate = rate_values[rate_values.size() == 1 ? 0 : i];
      p.concurrency =
          conc_values.empty() ? 0 : static_cast<int>(conc_values[conc_values.size() == 1 ? 0 : i]);
      o.points.push_back(p);
    }
  }

  if (!slo.empty()) {
    auto objectives = parse_slo(slo);
    if (!objectives)
      return usage_error(objectives.message());
    o.slo = *objectives;
  }
  o.dataset.source = dataset;
  o.dataset.input_len = input_len;
  o.dataset.output_len = output_len;
  o.dataset.output_len_given = app.count("--output-len") > 0;
  o.dataset.seed = seed;
  o.dataset.turns = turns;
  if (!shared_prefix.empty()) {
    if (Status st = parse_shared_prefix(shared_prefix, o.dataset); !st)
      return usage_error(st.message());
  }

  if (!expect_from.empty() && !args.launch_command.empty())
    return usage_error("bench: give --expect-from LOG or a launch command after --, not both");
  if (!expect_from.empty()) {
    auto e = expectation_from_log(expect_from);
    if (!e)
      return usage_error(e.message());
    o.expected = *e;
  } else if (!args.launch_command.empty()) {
    scenario.command = args.launch_command;
    auto e = expectation_from_plan(scenario);
    if (!e)
      return usage_error(e.message());
    o.expected = *e;
  }

  if (!find_max.empty()) {
    if (repeat > 1)
      return usage_error(
          "bench: --repeat runs a sweep's points again; --find-max repeats an unsettled load "
          "itself (--max-repeats N)");
    FindMaxCli f{find_max, budget, min_attainment, precision, max_repeats, requests, quiet};
    return run_find_max(o, f, json_path);
  }
  const bool live = !quiet && stderr_is_terminal();
  BenchProgressFn progress;
  if (live) {
    progress = [](int point, int points, const ProgressInfo& info) {
      std::cerr << "\r\033[K"
                << render_bench_progress(point, points, info.elapsed_s, info.done, info.failed,
                                         info.total, info.duration_s, info.in_flight)
                << std::flush;
    };
  }
  auto report = run_bench(o, progress);
  if (live)
    std::cerr << "\r\033[K" << std::flush;
  if (!report)
    return usage_error(report.message());
  const BenchClientPlace place = bench_client_place();
  report->client = {place.host, place.slurm_job_id, place.slurm_node};
  if (!place.slurm_job_id.empty() && !quiet)
    std::cerr << fmt::format("servescope: the load generator ran on {} in Slurm job {}\n",
                             place.slurm_node.empty() ? place.host : place.slurm_node,
                             place.slurm_job_id);

  const bool machine_stdout =
      json_path == "-" || csv_path == "-" || reports.html == "-" || reports.markdown == "-";
  if (!machine_stdout)
    std::cout << render_bench_text(*report);
  if (!json_path.empty())
    if (Status st = write_output(json_path, bench_json(*report, details).dump(2) + "\n"); !st)
      return usage_error(st.message());
  if (!csv_path.empty())
    if (Status st = write_output(csv_path, bench_csv(*report)); !st)
      return usage_error(st.message());
  if (reports.any())
    if (Status st = write_reports(reports, bench_json(*report, details)); !st)
      return usage_error(st.message());
  if (auto why = bench_failure(*report, max_error_rate / 100)) {
    std::cerr << "servescope: " << *why << "\n";
    return ExitStatus::kFindings;
  }
  return ExitStatus::kOk;
}

}  // namespace servescope
