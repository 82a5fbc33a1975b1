#include "twin/published_results.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include "catalog/embedded_data.h"
#include "core/file.h"
#include "core/json_read.h"
#include "core/text.h"
#include "engines/engine.h"
#include "engines/fit_knobs.h"
#include "twin/cost_defaults.h"

namespace servescope {
namespace {

using nlohmann::json;

// A statistic of a printed latency: the median, else (a table that printed one figure without
// saying which) the mean or the figure "reported".
double latency_ms(const json& result, const char* key) {
  const json& block = json_obj(result, key);
  for (const char* stat : {"median", "mean", "reported"}) {
    if (json_num(block, stat) > 0)
      return json_num(block, stat);
  }
  return 0;
}

std::optional<PublishedPoint> read_point(const json& j, std::string& why) {
  PublishedPoint p;
  p.id = json_str(j, "id");
  p.sweep = json_str(j, "sweep");
  p.source = json_str(j, "source");
  p.engine = json_str(j, "engine");
  p.version = json_str(j, "version");
  p.date = json_str(j, "date");
  p.gpu = json_str(j, "gpu");
  p.model = json_str(j, "model");
  p.quantization = json_str(j, "quantization");
  p.command = json_str(j, "command");
  p.gpus = static_cast<int>(json_num(j, "gpus", 1));
  p.tp = static_cast<int>(json_num(j, "tp", 1));
  p.dp = static_cast<int>(json_num(j, "dp", 1));
  const json& r = json_obj(j, "result");
  MeasuredPoint& m = p.measured;
  m.requests = static_cast<std::int64_t>(json_num(r, "completed", json_num(j, "num_prompts")));
  const double in_total = json_num(r, "total_input_tokens");
  const double out_total = json_num(r, "total_output_tokens");
  const double n = static_cast<double>(m.requests);  // 0 where the source states no count
  m.input_len =
      std::llround(n > 0 && in_total > 0 ? in_total / n : json_num(j, "random_input_len"));
  m.output_len =
      std::llround(n > 0 && out_total > 0 ? out_total / n : json_num(j, "random_output_len"));
  // The load: a concurrency cap with every request sent at once is a closed loop; a rate is an
  // open one (Poisson, the benchmarks' default); all at once without a cap is a closed loop as
  // wide as the run.
  const json& rate = j.contains("request_rate") ? j["request_rate"] : json();
  const double concurrency = json_num(j, "max_concurrency");
  const bool finite_rate = rate.is_number() && rate.get<double>() > 0;
  if (finite_rate) {
    m.closed_loop = false;
    m.rate = rate.get<double>();
  } else if (concurrency > 0) {
    m.concurrency = concurrency;
  } else if (m.requests > 0) {
    m.concurrency = n;
  }
  // A closed loop reaches its steady state within a few rounds of its concurrency: simulate four
  // (at least 64 requests) rather than a long run of the same load — also where a table states
  // its concurrency but not its request count.
  if (m.closed_loop && concurrency > 0) {
    const auto rounds = std::max<std::int64_t>(64, std::llround(4 * m.concurrency));
    m.requests = m.requests > 0 ? std::min(m.requests, rounds) : rounds;
  }
  m.ttft_p50_ms = latency_ms(r, "ttft_ms");
  m.tpot_p50_ms = latency_ms(r, "tpot_ms");
  p.output_tokens_per_s = json_num(r, "output_throughput");
  m.requests_per_s = json_num(r, "request_throughput");
  if (m.requests_per_s <= 0 && p.output_tokens_per_s > 0 && m.output_len > 0)
    m.requests_per_s = p.output_tokens_per_s / static_cast<double>(m.output_len);
  if (p.output_tokens_per_s <= 0 && m.requests_per_s > 0)
    p.output_tokens_per_s = m.requests_per_s * static_cast<double>(m.output_len);
  if (m.requests < 1 || m.input_len < 1 || m.output_len < 1) {
    why = "no request count or lengths";
    return std::nullopt;
  }
  if (m.tpot_p50_ms <= 0 && p.output_tokens_per_s <= 0 && m.ttft_p50_ms <= 0) {
    why = "no figure to compare";
    return std::nullopt;
  }
  return p;
}

// model-configs.tsv: a published checkpoint → the config in data/models/ whose architecture it
// shares and the quantization its name adds (columns: model, config, quantization, why).
std::vector<std::vector<std::string>> model_configs(const std::string& corpus_dir) {
  std::vector<std::vector<std::string>> rows;
  if (auto text = read_file(corpus_dir + "/model-configs.tsv")) {
    for (const auto& row : tsv_rows(*text))
      if (row.size() >= 3)
        rows.push_back({std::string(row[0]), std::string(row[1]), std::string(row[2])});
  }
  return rows;
}

// A launch command of the point's model and parallelism, in the engine's own flags.
std::string synthesized_command(const PublishedPoint& p, const std::string& quantization) {
  auto engine = find_engine(p.engine);
  if (!engine || (*engine)->fit_knobs() == nullptr)
    return "";
  const FitKnobs& knobs = *(*engine)->fit_knobs();
  std::vector<std::string> words = (*engine)->program();
  if (!knobs.model_flag.empty())
    words.push_back(knobs.model_flag);
  words.push_back(p.model);
  words.insert(words.end(), {knobs.tensor_parallel, std::to_string(std::max(1, p.tp))});
  if (p.dp > 1)
    words.insert(words.end(), {knobs.data_parallel, std::to_string(p.dp)});
  if (!quantization.empty())
    words.insert(words.end(), {"--quantization", quantization});
  return fmt::format("{}", fmt::join(words, " "));
}

}  // namespace

Result<std::vector<PublishedPoint>> read_published_results(const std::string& dir,
                                                           std::vector<std::string>* skipped) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().extension() == ".jsonl")
      files.push_back(entry.path().string());
  if (ec || files.empty())
    return fail(fmt::format("{}: no *.jsonl published results", dir));
  std::sort(files.begin(), files.end());
  const auto configs = model_configs(dir);
  std::vector<PublishedPoint> out;
  for (const std::string& file : files) {
    std::ifstream in(file);
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (trim(line).empty())
        continue;
      const json j = json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object())
        return fail(fmt::format("{}:{}: not a JSON object", file, number));
      std::string why;
      if (auto p = read_point(j, why)) {
        p->config_model = p->model;
        for (const auto& row : configs) {
          if (row[0] == p->model) {
            p->config_model = row[1];
            p->added_quantization = row[2];
          }
        }
        out.push_back(std::move(*p));
      } else if (skipped != nullptr)
        skipped->push_back(fmt::format("{}: {}", json_str(j, "id"), why));
    }
  }
  return out;
}

Result<std::unique_ptr<PublishedCase>> prepare_published_case(const PublishedPoint& point) {
  const std::string& model = point.config_model;
  const std::string& quantization = point.added_quantization;
  const auto slash = model.find('/');
  if (slash == std::string::npos ||
      find_embedded_file(fmt::format("models/{}--{}.json", model.substr(0, slash),
                                     model.substr(slash + 1))) == nullptr)
    return fail(fmt::format("{}: no config.json for {} in data/models", point.id, model));

  auto c = std::make_unique<PublishedCase>();
  c->point = &point;
  ScenarioOptions o;
  o.gpu = point.gpu;
  o.gpus = std::max({1, point.gpus, point.tp * std::max(1, point.dp)});
  o.model = model;
  // The release as stated, else the one current at the post's date, else the newest modelled.
  std::vector<std::pair<std::string, std::string>> engines;
  if (!point.version.empty())
    engines.push_back({point.engine + "@" + point.version, point.version + " as stated"});
  if (!point.date.empty())
    engines.push_back({point.engine + "@" + point.date, "current on " + point.date});
  engines.push_back({point.engine, "the newest modelled (no release or date stated)"});
  // The published command (its context length, batch limits and backends), else one made of
  // the point's parallelism when the published one does not parse or names no engine.
  std::vector<std::string> commands;
  if (!point.command.empty()) {
    std::string published = point.command;
    if (!quantization.empty() && published.find("--quantization") == std::string::npos)
      published += " --quantization " + quantization;
    commands.push_back(published);
  }
  if (std::string made = synthesized_command(point, quantization); !made.empty())
    commands.push_back(made);
  std::string last_error;
  for (const std::string& command : commands) {
    for (const auto& [engine, basis] : engines) {
      o.engine = engine;
      o.command = {command};
      auto built = build_scenario(o);
      if (!built) {
        last_error = built.message();
        continue;
      }
      c->built = std::move(*built);
      c->engine_basis = basis;
      break;
    }
    if (c->built.engine != nullptr)
      break;
  }
  if (c->built.engine == nullptr)
    return fail(fmt::format("{}: {}", point.id, last_error));
  auto plan = c->built.engine->plan(c->built.scenario);
  if (!plan)
    return fail(fmt::format("{}: {}", point.id, plan.message()));
  c->plan = std::move(*plan);
  if (!c->plan.starts)
    return fail(
        fmt::format("{}: the plan says it would not start: {}", point.id, c->plan.startup_error));
  const TwinProfile* profile = c->built.engine->twin_profile();
  if (profile == nullptr)
    return fail(fmt::format("{}: the engine has no twin profile", point.id));
  auto shape = profile->serving_shape(c->built.scenario, c->plan);
  if (!shape)
    return fail(fmt::format("{}: {}", point.id, shape.message()));
  c->shape = *shape;
  c->family = gpu_family(c->built.scenario.hardware.gpu);
  return c;
}

PointError point_error(const PublishedCase& c, const Efficiency& efficiency) {
  PointError e;
  const MeasuredPoint& m = c.point->measured;
  auto s = simulate_point(c.built.scenario, c.shape, efficiency, m);
  if (!s)
    return e;
  if (m.tpot_p50_ms > 0 && s->tpot_p50_ms > 0)
    e.tpot = s->tpot_p50_ms / m.tpot_p50_ms - 1;
  if (m.ttft_p50_ms > 0 && s->ttft_p50_ms > 0)
    e.ttft = s->ttft_p50_ms / m.ttft_p50_ms - 1;
  if (c.point->output_tokens_per_s > 0)
    e.throughput =
        s->requests_per_s * static_cast<double>(m.output_len) / c.point->output_tokens_per_s - 1;
  return e;
}

std::vector<PointEvaluation> evaluate_published(
    const std::vector<std::unique_ptr<PublishedCase>>& cases, const DefaultsFor& defaults,
    bool calibrate) {
  std::vector<PointEvaluation> out;
  std::vector<std::string> sweeps;
  for (const auto& c : cases) {
    out.push_back({c.get(), point_error(*c, defaults(*c)), std::nullopt, false});
    if (std::find(sweeps.begin(), sweeps.end(), c->point->sweep) == sweeps.end())
      sweeps.push_back(c->point->sweep);
  }
  if (!calibrate)
    return out;
  // Each sweep alone: its points, by load.
  std::vector<std::vector<std::size_t>> by_sweep;
  for (const std::string& sweep : sweeps) {
    std::vector<std::size_t> members;
    for (std::size_t i = 0; i < out.size(); ++i)
      if (out[i].c->point->sweep == sweep)
        members.push_back(i);
    if (members.size() < 2)
      continue;
    std::stable_sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
      return out[a].c->point->load() < out[b].c->point->load();
    });
    // The middle load calibrates: between the others, it is the point a user would measure
    // first to ask about both lighter and heavier loads (on this corpus it also predicts them
    // best: calibrating from the lightest or the heaviest load raised the TPOT error from 13% to
    // 22–25%).
    out[members[(members.size() - 1) / 2]].calibrates = true;
    by_sweep.push_back(std::move(members));
  }
  // Sweeps are independent: two threads take every other one.
  auto run = [&](std::size_t from) {
    for (std::size_t s = from; s < by_sweep.size(); s += 2) {
      const std::vector<std::size_t>& members = by_sweep[s];
      const PublishedCase& a = *out[members[(members.size() - 1) / 2]].c;
      auto fitted = calibrate_cost_model({{&a.built.scenario, &a.shape, a.point->measured}},
                                         defaults(a), false);
      if (!fitted)
        continue;
      for (std::size_t i : members)
        if (!out[i].calibrates)
          out[i].calibrated = point_error(*out[i].c, fitted->efficiency);
    }
  };
  std::thread other(run, 1);
  run(0);
  other.join();
  return out;
}

std::optional<double> median_abs(const std::vector<std::optional<double>>& errors) {
  std::vector<double> v;
  for (const auto& e : errors)
    if (e)
      v.push_back(std::abs(*e));
  if (v.empty())
    return std::nullopt;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace servescope
