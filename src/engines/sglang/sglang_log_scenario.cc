#include "engines/sglang/sglang_log_scenario.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "core/text.h"
#include "engines/engine.h"
#include "engines/log_launch.h"
#include "engines/sglang/sglang_command.h"
#include "engines/sglang/sglang_flags.h"

namespace servescope::sglang {
namespace {

// The flag a server_args field (or a flattened cuda_graph_config key) corresponds to.
const FlagSpec* flag_for_field(std::string_view field) {
  static const std::pair<std::string_view, std::string_view> kNested[] = {
      {"cuda_graph_config.decode.max_bs", "--cuda-graph-max-bs-decode"},
      {"cuda_graph_config.decode.bs", "--cuda-graph-bs-decode"},
      {"cuda_graph_config.decode.backend", "--cuda-graph-backend-decode"},
      {"cuda_graph_config.prefill.max_bs", "--cuda-graph-max-bs-prefill"},
      {"cuda_graph_config.prefill.bs", "--cuda-graph-bs-prefill"},
      {"cuda_graph_config.prefill.backend", "--cuda-graph-backend-prefill"},
  };
  for (const auto& [key, flag] : kNested) {
    if (field == key)
      return find_capacity_flag(flag);
  }
  if (field.find('.') != std::string_view::npos)
    return nullptr;
  std::string flag = "--" + std::string(field);
  std::replace(flag.begin(), flag.end(), '_', '-');
  return find_capacity_flag(flag);
}

// Settings the engine derives when they are not typed: kept out of the command that
// predicts them, so the prediction is the rule's and not the log's own value.
bool derived_by_engine(std::string_view field) {
  static const std::set<std::string_view, std::less<>> kDerived = {
      "mem_fraction_static",
      "chunked_prefill_size",
      "cuda_graph_max_bs",
      "cuda_graph_bs",
      "cuda_graph_config.decode.max_bs",
      "cuda_graph_config.decode.bs",
      "cuda_graph_config.decode.backend",
      "cuda_graph_config.prefill.max_bs",
      "cuda_graph_config.prefill.bs",
      "cuda_graph_config.prefill.backend",
      "disable_piecewise_cuda_graph",
      "enforce_piecewise_cuda_graph",
      "mamba_radix_cache_strategy",
      "mamba_scheduler_strategy",
      "disable_overlap_schedule",
      "attention_backend",
      "prefill_attention_backend",
      "decode_attention_backend",
      "flashinfer_allreduce_fusion_backend",
      "speculative_num_steps",
      "speculative_eagle_topk",
      "speculative_num_draft_tokens",
      "page_size",
      "max_mamba_cache_size",
      "linear_attn_backend",
      "moe_runner_backend",
      "fp8_gemm_runner_backend",
      "enable_dp_attention"};
  return kDerived.count(field) > 0;
}

std::string value_text(const Value& v) {
  if (v.is_double())
    return fmt::format("{}", v.as_number());
  return v.to_string();
}

// Appends the flag for one server_args field; false when the field is unset or not a flag.
bool append_flag(std::vector<std::string>& words, std::string_view field, const Value& v) {
  const FlagSpec* spec = flag_for_field(field);
  if (spec == nullptr || v.is_none())
    return false;
  if (spec->type == FlagType::kBool || spec->const_value) {
    if (!v.is_bool() || !v.as_bool())
      return false;
    words.push_back(spec->name);
    return true;
  }
  if (v.is_bool())
    return false;
  if (v.is_list()) {
    // Empty, or shortened by the excerpt ("[1, 2, 4, ...]"): the full setting is not known.
    if (v.as_list().empty() || list_goes_on(v.as_list()))
      return false;
    words.push_back(spec->name);
    for (std::int64_t x : v.as_list())
      words.push_back(std::to_string(x));
    return true;
  }
  if (v.is_string() && v.as_string().empty())
    return false;
  words.push_back(spec->name);
  words.push_back(value_text(v));
  return true;
}

// R3.1/R3.2 over ranks: SGLang reads P and A as the least free memory over the ranks of its
// world group (get_available_gpu_memory(distributed=True): an all_reduce MIN; bootstrap.py
// measure_pre_model_load_memory, kv_cache_configurator.py _profile_available_bytes), while each
// rank prints its own "Load weight" lines. A log showing fewer ranks' lines than tp × pp shows
// readings at or above the ones the engine used. Ranks differ by what each allocated before the
// load beyond the CUDA context: their distributed init, whose usage the log prints ("Init torch
// distributed ends. mem usage=X", up to 0.5.21). Assumed: no unseen rank's P or A is more than
// the largest printed X below the seen ones'. Without that line the pool is bounded above only.
void widen_for_unseen_ranks(const std::vector<Fact>& facts, const Fact* args,
                            std::uint64_t first_pool_line, LogScenario& out) {
  Calibration& cal = out.calibration;
  if (args == nullptr || !cal.free_before_load_gib || !cal.free_after_load_gib ||
      args->integer("nnodes").value_or(1) > 1)  // one node of several: its pools are bounds
    return;
  const std::int64_t ranks =
      args->integer("tp_size").value_or(1) * args->integer("pp_size").value_or(1);
  std::set<std::pair<int, int>> shown;
  double init_usage = 0;
  std::uint64_t init_line = 0;
  for (const Fact& f : facts) {
    if (f.line <= first_pool_line && (f.kind == "load_weight_begin" || f.kind == "load_weight_end"))
      shown.insert({f.rank.tp, f.rank.pp});
    if (f.kind == "init_torch_distributed_end") {
      if (auto x = f.number("mem_usage_gb"); x && *x > init_usage) {
        init_usage = *x;
        init_line = f.line;
      }
    }
  }
  if (static_cast<std::int64_t>(shown.size()) >= ranks)
    return;
  if (init_usage <= 0) {
    for (LoggedFigure& f : out.figures) {
      if (f.output == "max_total_num_tokens" || f.output == "max_mamba_cache_size")
        f.bounded_above = fmt::format(
            "the log shows the load lines of {} of the {} ranks, and SGLang sizes the pools "
            "from the least free memory over all of them (R3.1)",
            shown.size(), ranks);
    }
    return;
  }
  out.below_gib["free_before_load"] = init_usage;
  out.below_gib["free_after_load"] = init_usage;
  out.inferred.push_back(fmt::format(
      "the log shows the load lines of {} of the {} ranks; SGLang sizes from the least free "
      "memory over all of them, so P and A are taken as up to {:.2f} GB below the shown ones "
      "(the distributed init's usage, line {}: assumed the most ranks differ by)",
      shown.size(), ranks, init_usage, init_line));
}

}  // namespace

Result<LogScenario> sglang_scenario_from_log(const std::vector<Fact>& facts) {
  LogScenario out;
  const Fact* args = first_on_primary_rank(facts, "server_args");
  const Fact* launch = first_on_primary_rank(facts, "launch_command");
  std::vector<std::string> typed;
  if (launch != nullptr) {
    // Read as `--from` reads a script: environment prefixes, `docker run -e`, a prompt.
    auto input = launch_in_fact(*launch, launch_recognizer(find_engine("sglang").value()));
    if (input && parse_sglang_command(input->argv)) {
      typed = std::move(input->argv);
      out.typed_command_known = true;
      out.environment = std::move(input->environment);
      out.launch_origin = std::move(input->origin);
    }
  }
  // The capacity command: the program, then every capacity setting the dump shows.
  std::vector<std::string> resolved = {"python", "-m", "sglang.launch_server"};
  std::vector<std::string> undetermined = resolved;
  if (args != nullptr) {
    out.settings_complete = true;
    for (const Field& field : args->fields) {
      const bool added = append_flag(resolved, field.name, field.value);
      if (added && !derived_by_engine(field.name))
        append_flag(undetermined, field.name, field.value);
    }
    if (auto mp = args->text("model_path"))
      out.model_path = *mp;
  }
  if (out.model_path.empty() && out.typed_command_known) {
    auto parsed = parse_sglang_command(typed);
    if (parsed) {
      if (const FlagSetting* m = parsed->command.find("--model-path"))
        out.model_path = m->value();
    }
  }
  if (args == nullptr) {
    if (!out.typed_command_known)
      out.missing.push_back("the server_args dump or the launch command");
    else
      resolved = typed;
  }
  out.capacity_command = resolved;
  out.defaults_command = out.typed_command_known ? typed : undetermined;
  if (out.model_path.empty())
    out.missing.push_back("the model path (server_args model_path or --model-path)");

  // Free memory around the weight load: SGLang sizes from the minimum over ranks; it prints
  // GiB to two decimals.
  Calibration& cal = out.calibration;
  // Only the target model's load counts: every rank loads it before any pool is allocated (the
  // pools are sized from the minimum over ranks), and a speculative draft model loads after.
  std::uint64_t first_pool_line = std::numeric_limits<std::uint64_t>::max();
  for (const Fact& f : facts) {
    if (f.kind == "kv_cache_allocated" || f.kind == "memory_pool_end" ||
        f.kind == "mamba_cache_allocated")
      first_pool_line = std::min(first_pool_line, f.line);
  }
  for (const Fact& f : facts) {
    if (f.line > first_pool_line)
      continue;
    std::optional<double>* target = f.kind == "load_weight_begin" ? &cal.free_before_load_gib
                                    : f.kind == "load_weight_end" ? &cal.free_after_load_gib
                                                                  : nullptr;
    if (target == nullptr)
      continue;
    if (auto v = f.number("avail_mem_gb"); v && (!*target || *v < **target)) {
      *target = *v;
      out.calibration_lines[f.kind == "load_weight_begin" ? "free_before_load"
                                                          : "free_after_load"] = f.line;
    }
  }
  // R2: the load-end line prints the load's own usage (avail mem before − after, each rounded to
  // 0.01 GB), so a log cut after "Load weight begin" still gives the free memory before it.
  if (!cal.free_before_load_gib && cal.free_after_load_gib) {
    const auto end = out.calibration_lines.find("free_after_load");
    for (const Fact& f : facts) {
      if (f.kind != "load_weight_end" || end == out.calibration_lines.end() ||
          f.line != end->second)
        continue;
      if (auto usage = f.number("mem_usage_gb")) {
        cal.free_before_load_gib = *cal.free_after_load_gib + *usage;
        out.calibration_lines["free_before_load"] = f.line;
        out.rounding_gib["free_before_load"] = 0.01;  // two printed roundings
        out.inferred.push_back(fmt::format(
            "free memory before the load {:.2f} GB = avail mem {:.2f} + mem usage {:.2f} of the "
            "load-end line (line {}; the \"Load weight begin\" line is missing)",
            *cal.free_before_load_gib, *cal.free_after_load_gib, *usage, f.line));
      }
    }
  }
  if (cal.free_before_load_gib && !out.rounding_gib.count("free_before_load"))
    out.rounding_gib["free_before_load"] = 0.005;
  if (cal.free_after_load_gib)
    out.rounding_gib["free_after_load"] = 0.005;
  cal.rounding_gib = 0.005;
  cal.source = "log";
  out.calibration_complete = cal.free_before_load_gib && cal.free_after_load_gib;
  if (!cal.free_before_load_gib)
    out.missing.push_back("\"Load weight begin. avail mem\" (free memory before the weights)");
  if (!cal.free_after_load_gib)
    out.missing.push_back("\"Load weight end. ... avail mem\" (free memory after the weights)");
  if (const Fact* gpu = first_on_primary_rank(facts, "gpu")) {
    if (auto name = gpu->text("name"))
      out.gpu_name = *name;
  }

  // The figures.
  auto figure = [&](const Fact* f, std::string_view field, std::string output, bool from_defaults) {
    if (f == nullptr)
      return;
    const Value* v = f->find(field);
    if (v == nullptr || v->is_none())
      return;
    out.figures.push_back({std::move(output), *v, f->line, f->raw, from_defaults});
  };
  const Fact* capacity = first_on_primary_rank(facts, "capacity");
  figure(capacity, "max_total_num_tokens", "max_total_num_tokens", false);
  figure(capacity, "max_running_requests", "max_running_requests", false);
  figure(capacity, "context_len", "context_len", false);
  figure(capacity, "chunked_prefill_size", "chunked_prefill_size", true);
  if (capacity == nullptr || !capacity->has("max_total_num_tokens")) {
    // The target's pool: an unlabelled one (a "Draft" or host pool is labelled from 0.5.17).
    const Fact* pool = nullptr;
    for (const Fact& f : facts) {
      if (f.kind == "kv_cache_allocated" && !f.has("label") && f.rank.is_primary()) {
        pool = &f;
        break;
      }
    }
    figure(pool, "tokens", "max_total_num_tokens", false);
  }
  figure(first_on_primary_rank(facts, "mamba_cache_allocated"), "max_mamba_cache_size",
         "max_mamba_cache_size", false);
  if (args != nullptr) {
    figure(args, "mem_fraction_static", "mem_fraction_static", true);
    if (capacity == nullptr || !capacity->has("chunked_prefill_size"))
      figure(args, "chunked_prefill_size", "chunked_prefill_size", true);
    figure(args, "cuda_graph_max_bs", "cuda_graph_max_bs_decode.resolved", true);
    figure(args, "cuda_graph_config.decode.max_bs", "cuda_graph_max_bs_decode.resolved", true);
  }
  figure(first_on_primary_rank(facts, "cuda_graph_bs"), "bs", "cuda_graph_bs", false);
  // Without the list, the capture progress bar's total is its length (an excerpt keeps the bar
  // more often than the dump).
  if (first_on_primary_rank(facts, "cuda_graph_bs") == nullptr) {
    figure(first_on_primary_rank(facts, "decode_graph_capture"), "total", "count:cuda_graph_bs",
           false);
  }
  // R3.1: the free memory the pools are sized from is the minimum over every rank, but a log
  // of one node of several shows that node's ranks only.
  std::int64_t nnodes = 1;
  if (args != nullptr)
    nnodes = args->integer("nnodes").value_or(1);
  if (nnodes > 1) {
    for (LoggedFigure& f : out.figures) {
      if (f.output == "max_total_num_tokens" || f.output == "max_mamba_cache_size")
        f.bounded_above = fmt::format(
            "nnodes {}: the log holds one node's ranks, and SGLang sizes the pools from the "
            "least free memory over the ranks of every node (R3.1)",
            nnodes);
    }
  }
  widen_for_unseen_ranks(facts, args, first_pool_line, out);
  if (out.figures.empty())
    out.missing.push_back(
        "any capacity figure (max_total_num_tokens, max_running_requests, #tokens)");
  return out;
}

std::vector<Finding> sglang_log_consistency(const std::vector<Fact>& facts) {
  std::vector<Finding> out;
  const Fact* capacity = first_on_primary_rank(facts, "capacity");
  const auto limit = capacity != nullptr ? capacity->integer("max_running_requests") : std::nullopt;
  if (limit) {
    for (const Fact& f : facts) {
      if (f.kind != "decode_batch" && f.kind != "prefill_batch")
        continue;
      auto running = f.integer("running_req");
      if (running && *running > *limit) {
        out.push_back(
            {Severity::kError,
             "log-runs-above-limit",
             {},
             fmt::format(
                 "line {}: {} shows {} running requests, above max_running_requests={} (line {})",
                 f.line, f.kind == "decode_batch" ? "a decode batch" : "a prefill batch", *running,
                 *limit, capacity->line),
             "R5.1",
             "managers/scheduler.py"});
        break;
      }
    }
    for (const Fact& f : facts) {
      if (f.kind != "cuda_graph_bs")
        continue;
      const IntList* bs = f.int_list("bs");
      if (bs != nullptr && !bs->empty() && *std::max_element(bs->begin(), bs->end()) > *limit + 1) {
        out.push_back({Severity::kError,
                       "log-captures-above-limit",
                       {},
                       fmt::format("line {}: decode graphs captured up to {}, above "
                                   "max_running_requests={}: the pool "
                                   "clamp (R5.15) should prevent that",
                                   f.line, *std::max_element(bs->begin(), bs->end()), *limit),
                       "R5.15",
                       "runner/base_cuda_graph_runner.py::get_batch_sizes_to_capture"});
      }
      break;
    }
    // A typed --max-running-requests the final line contradicts, without a warning that says why.
    std::optional<std::int64_t> typed;
    std::uint64_t typed_line = 0;
    if (const Fact* launch = first_on_primary_rank(facts, "launch_command")) {
      if (auto input = launch_in_fact(*launch, launch_recognizer(find_engine("sglang").value()))) {
        if (auto parsed = parse_sglang_command(input->argv)) {
          if (const FlagSetting* f = parsed->command.find("--max-running-requests")) {
            typed = parse_int(f->value());
            typed_line = launch->line;
          }
        }
      }
    }
    const bool explained =
        first_on_primary_rank(facts, "warning_reduced_from_requested") != nullptr ||
        first_on_primary_rank(facts, "warning_mamba_cap") != nullptr;
    if (typed && *typed != *limit && !explained) {
      std::int64_t dp = 1;
      if (const Fact* args = first_on_primary_rank(facts, "server_args")) {
        if (args->find("enable_dp_attention") && args->find("enable_dp_attention")->is_bool() &&
            args->find("enable_dp_attention")->as_bool()) {
          dp = args->integer("dp_size").value_or(1);
        }
      }
      if (*typed / dp != *limit) {
        out.push_back(
            {Severity::kWarning,
             "log-contradicts-command",
             {fmt::format("--max-running-requests {}", *typed)},
             fmt::format(
                 "the launch command ({}) sets --max-running-requests {} but the log's final line "
                 "(line {}) says max_running_requests={}, and no warning explains the difference: "
                 "the "
                 "log may come from another run",
                 typed_line == 0 ? std::string("given after --")
                                 : fmt::format("line {}", typed_line),
                 *typed, capacity->line, *limit),
             "R5.4",
             "managers/scheduler.py::Scheduler.init_model_worker"});
      }
    }
  }
  return out;
}

}  // namespace servescope::sglang
