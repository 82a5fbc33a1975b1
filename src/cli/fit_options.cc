#include "cli/fit_options.h"

#include <fmt/format.h>

#include "catalog/gpu_catalog.h"
#include "core/duration.h"
#include "core/text.h"
#include "diagnose/scenario_builder.h"

namespace servescope {

void add_fit_options(CLI::App& app, FitOptions& o) {
  app.add_option("--engine", o.engine,
                 "Engine NAME[@VERSION] (default: the command's engine, its newest release)");
  app.add_option("--model", o.model,
                 "Model: a config.json, a model directory or a Hugging Face id");
  app.add_option("--from", o.from,
                 "Read your launch command from a script, unit, compose file "
                 "or manifest (instead of -- CMD)");
  app.add_option("--env", o.env, "Engine environment variable KEY=VALUE (repeatable)");
  app.add_option("--concurrency", o.concurrency,
                 "Target: this many requests resident at once (of --context tokens each)");
  app.add_option("--context", o.context,
                 "Target: requests of this many tokens; 'max' for the longest context that meets "
                 "the rest");
  app.add_option("--kv-tokens", o.kv_tokens, "Target: at least this many tokens of KV cache");
  app.add_option("--max-running-requests", o.max_running_requests,
                 "Target: a running-request limit of at least this");
  app.add_option("--rate", o.rate,
                 "Latency target: requests per second offered (Poisson), judged by simulate's "
                 "model with --ttft-p99 and/or --tpot-p99");
  app.add_option("--ttft-p99", o.ttft_p99, "Latency target: p99 time to first token, e.g. 500ms");
  app.add_option("--tpot-p99", o.tpot_p99, "Latency target: p99 time per output token, e.g. 50ms");
  app.add_option("--input-len", o.input_len, "Latency target: prompt tokens (simulate's forms)");
  app.add_option("--output-len", o.output_len, "Latency target: output tokens");
  app.add_option("--requests", o.requests, "Latency target: simulated requests per configuration");
  app.add_option("--gpu", o.gpu, "GPU kinds to try, KEY[,KEY...] (default: every catalog GPU)")
      ->delimiter(',');
  app.add_option("--gpus", o.gpus, "Exactly this many GPUs in all");
  app.add_option("--max-gpus", o.max_gpus, "At most this many GPUs in all (default: one node)");
  app.add_option("--gpus-per-node", o.gpus_per_node, "GPUs in one node (default 8)");
  app.add_option("--max-nodes", o.max_nodes, "At most this many nodes (default 1)");
  app.add_option("--vary", o.vary,
                 "Also try FLAG=V1,V2 (any capacity flag), data-parallel replicas (dp), or narrow "
                 "a built-in range: fraction=0.85..0.95 (repeatable)");
  app.add_option("--keep", o.keep,
                 "Keep as the command has it: parallelism, fraction, kv-cache-dtype, context, "
                 "request-limit, or the engine's flag name (repeatable)");
  app.add_option("--price", o.price, "Rank by price: GPU=USD_PER_HOUR[,...]")->delimiter(',');
  app.add_option("--limit", o.limit, "Show at most this many configurations (default 10)");
  app.add_option("--context-step", o.context_step,
                 "The grid the longest context is searched on, in tokens (default 256)");
  app.add_flag("--exhaustive", o.exhaustive,
               "Plan every candidate instead of pruning by cost and bisection (same answer)");
  ScenarioOptions& c = o.calibration;
  app.add_option("--calibrate-from", c.calibrate_from,
                 "Calibrate from a real log of the command on the first --gpu (its parallelism "
                 "only)");
  app.add_option("--free-before-load", c.free_before_load_gib, "Calibration (SGLang), GiB");
  app.add_option("--free-after-load", c.free_after_load_gib, "Calibration (SGLang), GiB");
  app.add_option("--total-memory", c.total_memory_gib, "Calibration (vLLM), GiB");
  app.add_option("--weights", c.weights_gib, "Calibration (vLLM), GiB");
  app.add_option("--activation-peak", c.activation_peak_gib, "Calibration (vLLM), GiB");
  app.add_option("--non-torch", c.non_torch_gib, "Calibration (vLLM), GiB");
  app.add_option("--cuda-graph-memory", c.cuda_graph_gib, "Calibration (vLLM), GiB");
  app.add_option("--kv-memory", c.kv_memory_gib, "Calibration (vLLM), GiB");
  app.add_option("--emit", o.emit,
                 "Print the best configuration as a deployable file: shell, systemd, compose, k8s")
      ->check(CLI::IsMember({"shell", "systemd", "compose", "k8s"}));
}

namespace {

// The canonical name of a flag as the engine's parser knows it, and whether a capacity rule
// reads it; the parser's error for a flag it does not know.
struct FlagName {
  std::string canonical;
  std::string spelled;
  bool store_true = false;
  bool modelled = false;
};

Result<FlagName> flag_name(const Engine& engine, const std::string& name,
                           const std::string& value = "") {
  std::vector<std::string> words = engine.program();
  words.push_back(name);
  if (!value.empty())
    words.push_back(value);
  auto parsed = engine.parse_command(words);
  if (!parsed)
    return parsed.error();
  for (const FlagSetting& f : parsed->flags) {
    if (f.spelled == name || f.name == name) {
      if (!f.known)
        return fail(fmt::format("{} does not know {}", engine.name(), name));
      return FlagName{f.name, f.spelled, f.values.empty(), f.modelled};
    }
  }
  return fail(fmt::format("{} is not a flag of {}", name, engine.name()));
}

Status apply_keep(const std::string& name, const Engine& engine, const FitKnobs& k,
                  FitSpace& space) {
  std::string canonical = name;
  if (name.rfind("--", 0) == 0) {
    auto f = flag_name(engine, name, "1");
    if (!f)
      f = flag_name(engine, name);
    if (!f)
      return fail(fmt::format("fit --keep {}: {}", name, f.message()));
    canonical = f->canonical;
  }
  if (name == "parallelism" || canonical == k.tensor_parallel || canonical == k.pipeline_parallel) {
    space.vary_parallelism = false;
  } else if (name == "fraction" || canonical == k.memory_fraction) {
    space.vary_fraction = false;
  } else if (name == "kv-cache-dtype" || canonical == k.kv_cache_dtype) {
    space.vary_kv_dtype = false;
  } else if (name == "context" || canonical == k.context) {
    space.vary_context = false;
  } else if (name == "request-limit" || canonical == k.request_limit) {
    space.vary_request_limit = false;
  } else if (name.rfind("--", 0) == 0) {
    space.kept_flags.push_back(canonical);
  } else {
    return fail(fmt::format(
        "fit --keep {}: expected parallelism, fraction, kv-cache-dtype, context, request-limit "
        "or a flag of the command (--keep --speculative-algorithm)",
        name));
  }
  return ok_status();
}

Status apply_vary(const std::string& spec, const Engine& engine, const FitKnobs& k,
                  FitSpace& space) {
  const auto eq = spec.find('=');
  const std::string name = spec.substr(0, eq);
  const std::string values = eq == std::string::npos ? "" : spec.substr(eq + 1);
  std::string canonical = name;
  if (name.rfind("--", 0) == 0) {
    auto f = flag_name(engine, name, "1");
    if (!f)
      f = flag_name(engine, name);
    if (f)
      canonical = f->canonical;
  }
  if (name == "fraction" || canonical == k.memory_fraction) {
    space.vary_fraction = true;
    if (values.empty())
      return ok_status();
    const auto dots = values.find("..");
    auto lo = parse_double(values.substr(0, dots));
    auto hi = dots == std::string::npos ? lo : parse_double(values.substr(dots + 2));
    if (!lo || !hi || *lo <= 0 || *hi > 1 || *lo > *hi) {
      return fail(
          fmt::format("fit --vary {}: expected a range LOW..HIGH within (0, 1], e.g. "
                      "fraction=0.85..0.95",
                      spec));
    }
    space.fraction_low = *lo;
    space.fraction_high = *hi;
    return ok_status();
  }
  if (name == "dp" || canonical == k.data_parallel) {
    space.vary_data_parallel = true;
    return ok_status();
  }
  if (name == "kv-cache-dtype" || canonical == k.kv_cache_dtype) {
    space.vary_kv_dtype = true;
    if (values.empty())
      return ok_status();
  }
  if (name.rfind("--", 0) != 0) {
    return fail(
        fmt::format("fit --vary {}: give fraction=LOW..HIGH or an engine flag with its "
                    "values, e.g. --vary --max-num-batched-tokens=4096,8192",
                    spec));
  }
  FitVariation v;
  for (std::string_view value : split(values, ',')) {
    auto f = flag_name(engine, name, std::string(value));
    if (!f)
      return fail(fmt::format("fit --vary {}: {}", spec, f.message()));
    if (!f->modelled) {
      return fail(
          fmt::format("fit --vary {}: no capacity rule of {} reads {}, so varying it "
                      "cannot change a figure fit searches",
                      spec, engine.name(), name));
    }
    if (f->store_true && !value.empty()) {
      return fail(
          fmt::format("fit --vary {}: {} takes no value; write --vary {}", spec, name, name));
    }
    v.flag = f->canonical;
    v.spelled = f->spelled;
    v.values.emplace_back(value);
  }
  space.extra.push_back(std::move(v));
  return ok_status();
}

Result<std::vector<GpuSpec>> gpus_of(const std::vector<std::string>& names) {
  std::vector<GpuSpec> out;
  const GpuCatalog& catalog = GpuCatalog::builtin();
  if (names.empty()) {
    for (const GpuSpec& g : catalog.gpus()) {
      if (!g.is_cpu && !g.integrated)
        out.push_back(g);
    }
    return out;
  }
  for (const std::string& n : names) {
    auto m = catalog.find(n);
    if (!m)
      return fail(fmt::format("fit --gpu {}: {}", n, m.message()));
    out.push_back(*m->spec);
  }
  return out;
}

Status positive(const char* option, const std::optional<std::int64_t>& v) {
  if (v && *v < 1)
    return fail(fmt::format("fit {} {}: must be at least 1", option, *v));
  return ok_status();
}

Result<FitTarget> target_of(const FitOptions& o) {
  FitTarget t;
  for (const auto& [name, v] :
       {std::pair{"--concurrency", &o.concurrency}, std::pair{"--kv-tokens", &o.kv_tokens},
        std::pair{"--max-running-requests", &o.max_running_requests}}) {
    if (Status st = positive(name, *v); !st)
      return st.error();
  }
  t.concurrency = o.concurrency;
  t.kv_tokens = o.kv_tokens;
  t.max_running_requests = o.max_running_requests;
  if (o.context == "max") {
    t.longest_context = true;
  } else if (!o.context.empty()) {
    auto n = parse_int(o.context);
    if (!n || *n < 1)
      return fail(fmt::format("fit --context {}: expected a token count or 'max'", o.context));
    t.context = *n;
  }
  t.starts_only = o.rate.has_value();
  if (!t.any()) {
    return fail(
        "fit: no target; give --concurrency N --context L, --kv-tokens T, "
        "--max-running-requests N, --context L|max or --rate R --ttft-p99 X");
  }
  return t;
}

Result<std::optional<LatencyTarget>> latency_of(const FitOptions& o) {
  if (!o.rate) {
    if (!o.ttft_p99.empty() || !o.tpot_p99.empty())
      return fail("fit --ttft-p99/--tpot-p99: give the offered load with --rate R");
    return std::optional<LatencyTarget>();
  }
  LatencyTarget t;
  if (*o.rate <= 0)
    return fail(fmt::format("fit --rate {}: must be above 0 requests/s", *o.rate));
  t.rate = *o.rate;
  for (const auto& [name, text, field] : {std::tuple{"--ttft-p99", &o.ttft_p99, &t.ttft_p99_ms},
                                          std::tuple{"--tpot-p99", &o.tpot_p99, &t.tpot_p99_ms}}) {
    if (text->empty())
      continue;
    auto seconds = parse_duration_seconds(*text);
    if (!seconds || *seconds <= 0)
      return fail(fmt::format("fit {} {}: expected a duration, e.g. 500ms or 0.5s", name, *text));
    *field = *seconds * 1000;
  }
  if (!t.ttft_p99_ms && !t.tpot_p99_ms)
    return fail("fit --rate: give --ttft-p99 and/or --tpot-p99, the latency to meet at that rate");
  if (o.requests < 1)
    return fail(fmt::format("fit --requests {}: must be at least 1", o.requests));
  t.requests = o.requests;
  auto in = LengthSpec::parse(o.input_len, "--input-len");
  if (!in)
    return in.error();
  auto out = LengthSpec::parse(o.output_len, "--output-len");
  if (!out)
    return out.error();
  t.input = *in;
  t.output = *out;
  return std::optional<LatencyTarget>(t);
}

}  // namespace

Result<FitRequest> build_fit_request(const FitOptions& o,
                                     const std::vector<std::string>& launch_command) {
  FitRequest r;
  auto latency = latency_of(o);
  if (!latency)
    return latency.error();
  r.latency = *latency;
  auto target = target_of(o);
  if (!target)
    return target.error();
  r.target = *target;
  auto gpus = gpus_of(o.gpu);
  if (!gpus)
    return gpus.error();

  const ScenarioOptions& c = o.calibration;
  const bool calibrated = !c.calibrate_from.empty() || c.free_before_load_gib ||
                          c.free_after_load_gib || c.total_memory_gib || c.weights_gib ||
                          c.activation_peak_gib || c.non_torch_gib || c.cuda_graph_gib ||
                          c.kv_memory_gib;
  if (calibrated && o.gpu.empty()) {
    return fail(
        "fit: calibration figures belong to one GPU; give it first with --gpu (they apply to "
        "the candidates on that GPU with the command's own parallelism)");
  }
  ScenarioOptions so = o.calibration;
  so.engine = o.engine;
  so.model = o.model;
  so.env = o.env;
  so.from = o.from;
  so.command = launch_command;
  so.gpu = gpus->front().key;
  if (so.command.empty() && so.from.empty()) {
    // No command: the engine's program on the bare model.
    if (o.engine.empty() || o.model.empty()) {
      return fail(
          "fit: give --engine NAME and --model ID, or your launch command after -- (or with "
          "--from FILE)");
    }
    auto engine = find_engine(o.engine.substr(0, o.engine.find('@')));
    if (!engine)
      return engine.error();
    const FitKnobs* k = (*engine)->fit_knobs();
    so.command = (*engine)->program();
    if (k != nullptr && !k->model_flag.empty())
      so.command.push_back(k->model_flag);
    so.command.push_back(o.model);
  }
  auto built = build_scenario(so);
  if (!built)
    return built.error();
  r.engine = built->engine;
  r.base = std::move(built->scenario);
  const FitKnobs* knobs = r.engine->fit_knobs();
  if (knobs == nullptr)
    return fail(fmt::format("fit: {} is not searchable yet", r.engine->name()));

  FitSpace& s = r.space;
  s.gpus = std::move(*gpus);
  r.limit = o.limit;
  // Under a latency target some capacity rows fail the simulation: search for more of them.
  s.limit = r.latency ? std::max<std::size_t>(o.limit * 5, 25) : o.limit;
  s.prune = !o.exhaustive;
  s.gpus_per_node = o.gpus_per_node.value_or(8);
  s.max_nodes = o.max_nodes.value_or(1);
  if (s.gpus_per_node < 1 || s.max_nodes < 1)
    return fail("fit --gpus-per-node and --max-nodes: must be at least 1");
  s.max_gpus = o.max_gpus.value_or(s.gpus_per_node * s.max_nodes);
  if (o.gpus) {
    if (*o.gpus < 1)
      return fail(fmt::format("fit --gpus {}: must be at least 1", *o.gpus));
    s.gpu_count = *o.gpus;
    if (*o.gpus > s.gpus_per_node) {
      if (*o.gpus % s.gpus_per_node != 0) {
        return fail(fmt::format(
            "fit --gpus {}: beyond one node of {} GPUs fit takes whole nodes; give a multiple "
            "of {} or --gpus-per-node",
            *o.gpus, s.gpus_per_node, s.gpus_per_node));
      }
      s.max_nodes = std::max(s.max_nodes, *o.gpus / s.gpus_per_node);
    }
  }
  if (s.max_gpus < 1)
    return fail(fmt::format("fit --max-gpus {}: must be at least 1", s.max_gpus));
  if (o.context_step) {
    if (*o.context_step < 1)
      return fail(fmt::format("fit --context-step {}: must be at least 1", *o.context_step));
    s.context_step = *o.context_step;
  }
  for (const std::string& keep : o.keep) {
    if (Status st = apply_keep(keep, *r.engine, *knobs, s); !st)
      return st.error();
  }
  for (const std::string& vary : o.vary) {
    if (Status st = apply_vary(vary, *r.engine, *knobs, s); !st)
      return st.error();
  }
  if (s.vary_data_parallel && !knobs->data_parallel_inside_tp.empty() &&
      r.base.command.has(knobs->data_parallel_inside_tp)) {
    return fail(fmt::format(
        "fit --vary dp: with {} the engine's DP ranks live inside the TP group rather than as "
        "replicas; fit varies whole replicas only (leave out --vary dp)",
        knobs->data_parallel_inside_tp));
  }
  for (const std::string& p : o.price) {
    const auto eq = p.find('=');
    auto usd = eq == std::string::npos ? std::nullopt : parse_double(p.substr(eq + 1));
    if (!usd || *usd <= 0)
      return fail(fmt::format("fit --price {}: expected GPU=USD_PER_HOUR, e.g. h100-sxm=2.49", p));
    auto m = GpuCatalog::builtin().find(p.substr(0, eq));
    if (!m)
      return fail(fmt::format("fit --price {}: {}", p, m.message()));
    s.price_per_gpu_hour[m->spec->key] = *usd;
  }
  if (!s.price_per_gpu_hour.empty()) {
    // Priced, the search covers the priced GPUs only: an unpriced one has no cost to rank by.
    std::erase_if(s.gpus, [&](const GpuSpec& g) { return !s.price_per_gpu_hour.count(g.key); });
    if (s.gpus.empty())
      return fail("fit --price: none of the priced GPUs is among --gpu");
  }
  return r;
}

}  // namespace servescope
