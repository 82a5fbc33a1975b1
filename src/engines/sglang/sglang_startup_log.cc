// The startup log SGLang's main branch prints (docs/research/sglang-capacity.md §10, L1–L12; the
// newest formats of sglang-history.md §11), filled with a plan's values: what `servescope logs` and
// any other reader of SGLang logs expects to find.
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <ctime>

#include "catalog/recurrent_layout.h"
#include "core/units.h"
#include "engines/sglang/sglang_twin_profile.h"

namespace servescope::sglang {
namespace {

const Node* node(const Plan& plan, std::string_view id) {
  return plan.graph.find(id);
}

double number(const Plan& plan, std::string_view id, double fallback) {
  const Node* n = node(plan, id);
  return n != nullptr && n->value.is_number() ? n->value.as_number() : fallback;
}

std::string text(const Plan& plan, std::string_view id, const std::string& fallback = {}) {
  const Node* n = node(plan, id);
  return n != nullptr && n->value.is_string() ? n->value.as_string() : fallback;
}

bool flag_on(const Plan& plan, std::string_view id) {
  const Node* n = node(plan, id);
  return n != nullptr && n->value.is_bool() && n->value.as_bool();
}

std::string list_repr(const IntList& list) {
  return fmt::format("[{}]", fmt::join(list, ", "));
}

// torch dtype names as memory_pool.py prints them.
std::string torch_dtype(std::string_view kv_dtype) {
  if (kv_dtype == "fp8_e4m3" || kv_dtype == "float8_e4m3fn")
    return "torch.float8_e4m3fn";
  if (kv_dtype == "fp8_e5m2" || kv_dtype == "float8_e5m2")
    return "torch.float8_e5m2";
  if (kv_dtype == "float16")
    return "torch.float16";
  return "torch.bfloat16";
}

// model_runner.py::load_model: "[quant=fp8, fmt=e4m3, ]" after the type since 2026-03-04.
std::string quant_part(const Quantization& q) {
  switch (q.method) {
    case QuantMethod::kNone:
      return "";
    case QuantMethod::kFp8:
    case QuantMethod::kModeloptFp8:
      return "quant=fp8, fmt=e4m3, ";
    default:
      return fmt::format("quant={}, ", q.name.empty() ? quant_method_name(q.method) : q.name);
  }
}

struct Mamba {
  double conv_gib = 0, ssm_gib = 0, interm_ssm_gib = 0, interm_conv_gib = 0;
};

// memory_pool.py (mamba pool): conv and ssm shares of the pool, by the per-layer state sizes
// of mamba2_cache_params (conv in the model dtype, ssm in mamba_ssm_dtype).
Mamba mamba_sizes(const Scenario& scenario, const Plan& plan, int tp) {
  Mamba m;
  const double pool = number(plan, "mamba_pool_gib", 0);
  const double interm = number(plan, "mamba_speculative_intermediate_gib", 0);
  double conv_share = 0.02;
  if (const auto& r = scenario.model.linear) {
    const RecurrentStateSize size = recurrent_state_size(*r, tp, 0);
    const double ssm_bytes = text(plan, "mamba_ssm_dtype.resolved", "float32") == "float32" ? 4 : 2;
    const double conv = static_cast<double>(size.conv_elements) * 2;
    const double ssm = static_cast<double>(size.ssm_elements) * ssm_bytes;
    if (conv + ssm > 0)
      conv_share = conv / (conv + ssm);
  }
  m.conv_gib = pool * conv_share;
  m.ssm_gib = pool - m.conv_gib;
  m.interm_conv_gib = interm * conv_share;
  m.interm_ssm_gib = interm - m.interm_conv_gib;
  return m;
}

class LogBuilder {
 public:
  LogBuilder(int tp) : tp_(std::max(1, tp)) {}
  void main(double at, std::string line, StartupMark mark = StartupMark::kNone) {
    lines_.push_back({at, "", std::move(line), mark, false});
  }
  void rank0(double at, std::string line) {
    lines_.push_back({at, "TP0", std::move(line), {}, false});
  }
  // Lines every rank prints (rank-local memory figures are the same on every rank here).
  void ranks(double at, const std::string& line) {
    for (int r = 0; r < tp_; ++r)
      lines_.push_back({at, fmt::format("TP{}", r), line, {}, false});
  }
  void raw(double at, std::string line) { lines_.push_back({at, "", std::move(line), {}, true}); }
  std::vector<LogLine> take() { return std::move(lines_); }

 private:
  int tp_;
  std::vector<LogLine> lines_;
};

// The last line of the traceback: the plan's error as Python prints an exception; a message
// that is not one already becomes a RuntimeError.
std::string exception_line(const std::string& error) {
  if (error.empty())
    return "RuntimeError: the engine failed to start";
  const auto colon = error.find(':');
  const std::string_view head =
      std::string_view(error).substr(0, colon == std::string::npos ? 0 : colon);
  const bool exception = !head.empty() && head.find(' ') == std::string_view::npos &&
                         (head.ends_with("Error") || head.ends_with("Exception"));
  const bool engine_message = error.rfind("Capture cuda graph failed", 0) == 0;
  return exception || engine_message ? error : "RuntimeError: " + error;
}

void failure(LogBuilder& log, double at, const Plan& plan) {
  // scheduler.py::run_scheduler_process logs the traceback; the launcher then reports the
  // child's death (engine.py: "Received sigquit from a child process...").
  log.rank0(at, "Scheduler hit an exception: Traceback (most recent call last):");
  log.raw(at, "  File \"sglang/srt/managers/scheduler.py\", in run_scheduler_process");
  log.raw(at, "    scheduler = Scheduler(");
  log.raw(at, exception_line(plan.startup_error));
  log.raw(at, "");
  log.main(at, "Received sigquit from a child process. It usually means the child failed.",
           StartupMark::kFailed);
}

}  // namespace

std::string python_repr(const Value& v) {
  if (v.is_none())
    return "None";
  if (v.is_bool())
    return v.as_bool() ? "True" : "False";
  if (v.is_int())
    return std::to_string(v.as_int());
  if (v.is_double()) {
    std::string s = fmt::format("{}", v.as_number());
    if (s.find_first_of(".eni") == std::string::npos)
      s += ".0";  // Python's repr keeps the point: 1.0
    return s;
  }
  if (v.is_list())
    return list_repr(v.as_list());
  std::string out = "'";
  for (char c : v.as_string()) {
    if (c == '\'' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "'";
}

namespace {

// ServerArgs field names by main-branch date (sglang-history.md §11): the plan's arguments use
// the newest names, so a dump for an older date drops the fields it did not have yet and
// prints the ones it had instead. [from, until], "" = unbounded.
struct FieldEra {
  const char* field;
  const char* from;
  const char* until;
};
constexpr FieldEra kFieldEras[] = {
    {"cuda_graph_config", "2026-06-09", ""},
    {"cuda_graph_backend_decode", "2026-06-09", ""},
    {"cuda_graph_backend_prefill", "2026-06-09", ""},
    {"cuda_graph_max_bs_decode", "2026-06-09", ""},
    {"cuda_graph_max_bs_prefill", "2026-06-09", ""},
    {"cuda_graph_bs_decode", "2026-06-09", ""},
    {"cuda_graph_bs_prefill", "2026-06-09", ""},
    {"disable_decode_cuda_graph", "2026-06-09", ""},
    {"disable_prefill_cuda_graph", "2026-06-09", ""},
    {"cuda_graph_max_bs", "2024-10-26", "2026-06-08"},
    {"cuda_graph_bs", "2024-10-26", "2026-06-08"},
    {"enable_piecewise_cuda_graph", "2025-10-11", "2026-03-01"},
    {"disable_piecewise_cuda_graph", "2026-03-02", "2026-06-08"},
    {"enforce_piecewise_cuda_graph", "2026-03-02", "2026-06-08"},
    {"mamba_scheduler_strategy", "2025-12-14", "2026-06-17"},
    {"mamba_radix_cache_strategy", "2026-06-18", ""},
    {"enable_flashinfer_allreduce_fusion", "2025-07-02", ""},
    {"flashinfer_allreduce_fusion_backend", "2026-06-15", ""},
    {"mamba_full_memory_ratio", "2025-10-13", ""},
    {"max_mamba_cache_size", "2025-09-11", ""},
};

bool in_era(const FieldEra& e, const std::string& date) {
  return date.empty() ? e.until[0] == '\0'
                      : date >= std::string_view(e.from) &&
                            (e.until[0] == '\0' || date <= std::string_view(e.until));
}

void dated_fields(const std::string& date, const Plan& plan,
                  std::vector<std::pair<std::string, Value>>& fields) {
  auto find = [&](std::string_view name) {
    return std::find_if(fields.begin(), fields.end(),
                        [&](const auto& f) { return f.first == name; });
  };
  auto value_of = [&](std::string_view id, Value fallback) {
    const Node* n = node(plan, id);
    return n != nullptr ? n->value : fallback;
  };
  const bool prefill_graph = [&] {
    const std::string backend = text(plan, "cuda_graph_backend_prefill.resolved");
    return !backend.empty() && backend != "disabled" && backend != "none" &&
           !flag_on(plan, "arg.disable_prefill_cuda_graph") &&
           !flag_on(plan, "arg.disable_cuda_graph");
  }();
  for (const FieldEra& e : kFieldEras) {
    auto it = find(e.field);
    if (!in_era(e, date)) {
      if (it != fields.end())
        fields.erase(it);
      continue;
    }
    if (it != fields.end())
      continue;
    // The field belongs to this date but the plan's arguments name it differently.
    const std::string_view f = e.field;
    Value v;
    if (f == "cuda_graph_max_bs")
      v = value_of("cuda_graph_max_bs_decode.resolved", value_of("cuda_graph_max_bs", Value()));
    else if (f == "cuda_graph_bs")
      v = value_of("arg.cuda_graph_bs_decode", Value());
    else if (f == "enable_piecewise_cuda_graph" || f == "enforce_piecewise_cuda_graph")
      v = Value(false);
    else if (f == "disable_piecewise_cuda_graph")
      v = Value(!prefill_graph);
    else if (f == "mamba_scheduler_strategy" || f == "mamba_radix_cache_strategy")
      v = value_of("mamba_radix_cache_strategy.resolved",
                   Value(f == "mamba_radix_cache_strategy" ? "auto" : "no_buffer"));
    else if (f == "enable_flashinfer_allreduce_fusion")
      v = value_of("arg.enable_flashinfer_allreduce_fusion", Value(false));
    else if (f == "mamba_full_memory_ratio")
      v = Value(0.9);
    fields.emplace_back(e.field, std::move(v));
  }
  // From 2026-06-15 the flag is converted to the backend field and prints False.
  if (date.empty() || date >= "2026-06-15") {
    if (auto it = find("enable_flashinfer_allreduce_fusion"); it != fields.end())
      it->second = Value(false);
  }
}

}  // namespace

std::vector<std::pair<std::string, Value>> server_args_fields(const Scenario& scenario,
                                                              const Plan& plan,
                                                              const Endpoint& endpoint) {
  const std::string model = [&] {
    const FlagSetting* f = scenario.command.find("--model-path");
    return f != nullptr ? f->value() : scenario.model.source;
  }();
  std::vector<std::pair<std::string, Value>> fields = {
      {"model_path", Value(model)},
      {"tokenizer_path", Value(model)},
      {"host", Value(endpoint.host)},
      {"port", Value(endpoint.port)},
  };
  auto seen = [&](std::string_view name) {
    return std::any_of(fields.begin(), fields.end(),
                       [&](const auto& f) { return f.first == name; });
  };
  for (const Node& n : plan.graph.nodes()) {
    if (n.id.rfind("arg.", 0) != 0)
      continue;
    const std::string field = n.id.substr(4);
    if (seen(field))
      continue;
    Value v = n.value;
    // What ServerArgs.__post_init__ leaves in the dataclass: resolved values replace the typed
    // ones (the KV dtype stays as typed: the pool, not the argument, resolves "auto").
    if (field == "max_running_requests") {
      if (const Node* r = node(plan, "max_running_requests.requested"))
        v = r->value;
    } else if (field == "chunked_prefill_size" || field == "mem_fraction_static") {
      if (const Node* r = node(plan, field))
        v = r->value;
    } else if (field != "kv_cache_dtype") {
      if (const Node* r = node(plan, field + ".resolved"))
        v = r->value;
    }
    if (field == "speculative_algorithm" && v.is_string() && v.as_string() == "NEXTN")
      v = Value("EAGLE");  // server_args.py: NEXTN is an alias of EAGLE
    fields.emplace_back(field, std::move(v));
  }
  if (!seen("served_model_name")) {
    const FlagSetting* f = scenario.command.find("--served-model-name");
    fields.emplace_back("served_model_name", Value(f != nullptr ? f->value() : model));
  }
  dated_fields(scenario.version.main_date, plan, fields);
  return fields;
}

std::string server_args_repr(const Scenario& scenario, const Plan& plan, const Endpoint& endpoint) {
  std::string out = "server_args=ServerArgs(";
  bool first = true;
  for (const auto& [name, value] : server_args_fields(scenario, plan, endpoint)) {
    if (!first)
      out += ", ";
    first = false;
    out += name + "=" + python_repr(value);
  }
  return out + ")";
}

// The line formats of the engine's main branch on `date` (sglang-history.md §11); "" is the
// newest. Lexical comparison works on "YYYY-MM-DD".
namespace {
class DatedFormats {
 public:
  explicit DatedFormats(std::string date) : date_(std::move(date)) {}
  bool since(std::string_view day) const { return date_.empty() || date_ >= day; }

 private:
  std::string date_;
};
}  // namespace

std::vector<LogLine> SglangTwinProfile::startup_log(const Scenario& scenario, const Plan& plan,
                                                    const StartupContext& ctx) const {
  const int tp = static_cast<int>(std::max(1.0, number(plan, "arg.tp_size", 1)));
  const double secs = ctx.startup_seconds;
  const DatedFormats era(scenario.version.main_date);
  LogBuilder log(tp);
  log.main(0.0, server_args_repr(scenario, plan, ctx.endpoint));

  const double p = number(plan, "free_before_load_gib", 0);
  const double a = number(plan, "free_after_load_gib", 0);
  // distributed/bootstrap.py: mem usage from 2025-03-04 (e074d84e5), elapsed from 2026-01-26.
  if (era.since("2026-01-26"))
    log.ranks(0.04, fmt::format("Init torch distributed ends. elapsed={:.2f} s, mem usage=0.64 GB",
                                0.04 * secs));
  else if (era.since("2025-03-04"))
    log.ranks(0.04, "Init torch distributed ends. mem usage=0.64 GB");
  log.ranks(0.05, fmt::format("Load weight begin. avail mem={:.2f} GB", p));
  // model_runner.py::load_model: mem usage from 2025-03-04, elapsed from 2026-01-26, dtype
  // replaced by [quant=…] from 2026-03-04 (f7897def9).
  std::string load_end = "Load weight end. ";
  if (era.since("2026-01-26"))
    load_end += fmt::format("elapsed={:.2f} s, ", 0.45 * secs);
  load_end += fmt::format("type={}, ", scenario.model.architecture);
  if (era.since("2026-03-04"))
    load_end += quant_part(scenario.model.quant);
  else
    load_end += fmt::format("dtype=torch.{}, ",
                            scenario.model.dtype.empty() ? "bfloat16" : scenario.model.dtype);
  load_end += fmt::format("avail mem={:.2f} GB", a);
  load_end +=
      era.since("2025-03-04") ? fmt::format(", mem usage={:.2f} GB.", p - a) : std::string();
  log.ranks(0.50, load_end);
  const bool sized = node(plan, "max_total_num_tokens") != nullptr;
  const bool capture_crash = plan.startup_error.rfind("Capture cuda graph failed", 0) == 0;
  if (!plan.starts && !sized) {
    failure(log, 0.52, plan);
    return log.take();
  }

  double avail = a;
  const std::string dtype = torch_dtype(text(plan, "kv_cache_dtype.resolved", "bfloat16"));
  // A separate "Using KV cache dtype" line from 2025-09-15 until it moved into the KV line.
  if (era.since("2025-09-15") && !era.since("2026-05-24"))
    log.ranks(0.51, fmt::format("Using KV cache dtype: {}", dtype));
  if (const Node* k = node(plan, "max_mamba_cache_size")) {
    const Mamba m = mamba_sizes(scenario, plan, tp);
    std::string line = "Mamba Cache is allocated. ";
    if (era.since("2025-10-13"))
      line += fmt::format("max_mamba_cache_size: {}, ", k->value.as_int());
    line +=
        fmt::format("conv_state size: {:.2f}GB, ssm_state size: {:.2f}GB", m.conv_gib, m.ssm_gib);
    if (m.interm_ssm_gib + m.interm_conv_gib > 0)
      line += fmt::format(
          " intermediate_ssm_state_cache size: {:.2f}GB intermediate_conv_window_cache size: "
          "{:.2f}GB",
          m.interm_ssm_gib, m.interm_conv_gib);
    log.ranks(0.52, line);
    avail -= m.conv_gib + m.ssm_gib + m.interm_conv_gib + m.interm_ssm_gib;
  }
  const std::int64_t tokens = static_cast<std::int64_t>(number(plan, "max_total_num_tokens", 0));
  const double cell_target = number(plan, "kv_cell_bytes.target", number(plan, "kv_cell_bytes", 0));
  const double cell_all = number(plan, "kv_cell_bytes", cell_target);
  const double kv_gib = static_cast<double>(tokens) * cell_target / kGiB;
  // memory_pool.py: "#tokens" from 2025-03-04, "dtype:" from 2026-05-24 (93fa577bb).
  std::string kv = "KV Cache is allocated. ";
  if (era.since("2026-05-24"))
    kv += fmt::format("dtype: {}, ", dtype);
  if (era.since("2025-03-04"))
    kv += fmt::format("#tokens: {}, ", tokens);
  if (scenario.model.uses_mla())
    kv += fmt::format("KV size: {:.2f} GB", kv_gib);
  else
    kv += fmt::format("K size: {:.2f} GB, V size: {:.2f} GB", kv_gib / 2, kv_gib / 2);
  if (!era.since("2025-03-04"))
    kv += ".";
  log.ranks(0.53, kv);
  avail -= static_cast<double>(tokens) * cell_all / kGiB;
  log.ranks(0.54, fmt::format("Memory pool end. avail mem={:.2f} GB", avail));

  const double graph_gib = number(plan, "graph_reserve_mib", 1024) / 1024.0;
  const Node* bs = node(plan, "cuda_graph_bs");
  if (!flag_on(plan, "arg.disable_cuda_graph") && bs != nullptr && bs->value.is_list()) {
    const bool spec = !text(plan, "arg.speculative_algorithm").empty();
    const double used = graph_gib * 0.5;
    if (era.since("2026-06-22")) {
      // cuda_graph_setup.py::capture_decode_graph (ad9723af0, #28937); num_tokens_per_req from
      // 2026-07-13 (c0f1f7e06).
      const std::string kind = spec ? "target verify" : "target decode";
      const auto per_req =
          spec ? static_cast<std::int64_t>(number(plan, "speculative_num_draft_tokens.resolved", 1))
               : 1;
      const std::string backend = text(plan, "cuda_graph_backend_decode.resolved", "full");
      log.rank0(
          0.56,
          fmt::format("Capture {} CUDA graph begin. backend={}, {}={}, bs={}, avail mem={:.2f} GB",
                      kind, backend,
                      era.since("2026-07-13") ? "num_tokens_per_req" : "num_tokens_per_bs", per_req,
                      list_repr(bs->value.as_list()), avail));
      if (capture_crash) {
        failure(log, 0.58, plan);
        return log.take();
      }
      avail -= used;
      log.rank0(0.75, fmt::format("Capture {} CUDA graph end. elapsed={:.2f} s, mem usage={:.2f} "
                                  "GB, avail mem={:.2f} GB.",
                                  kind, 0.19 * secs, used, avail));
      const Node* prefill = node(plan, "cuda_graph_bs_prefill.resolved");
      const std::string prefill_backend = text(plan, "cuda_graph_backend_prefill.resolved");
      if (!flag_on(plan, "arg.disable_prefill_cuda_graph") && prefill != nullptr &&
          prefill->value.is_list() && !prefill_backend.empty() && prefill_backend != "disabled" &&
          prefill_backend != "none") {
        log.rank0(0.76, fmt::format("Capture target prefill CUDA graph begin. backend={}, "
                                    "num_tokens={}, avail mem={:.2f} GB",
                                    prefill_backend, list_repr(prefill->value.as_list()), avail));
        const double prefill_used = graph_gib * 0.3;
        avail -= prefill_used;
        log.rank0(0.88, fmt::format("Capture target prefill CUDA graph end. elapsed={:.2f} s, mem "
                                    "usage={:.2f} GB, avail "
                                    "mem={:.2f} GB.",
                                    0.12 * secs, prefill_used, avail));
      }
    } else {
      // The single capture of cuda_graph_runner.py: begin (avail mem from 2025-03-04), the batch
      // sizes (2025-04-30 on), end (time only before 2025-03-04, then avail and usage, swapped on
      // 2025-04-28, 849c83a0c).
      log.rank0(
          0.56,
          era.since("2025-03-04")
              ? fmt::format("Capture cuda graph begin. This can take up to several minutes. "
                            "avail mem={:.2f} GB",
                            avail)
              : std::string("Capture cuda graph begin. This can take up to several minutes."));
      if (era.since("2025-04-30"))
        log.rank0(0.57, fmt::format("Capture cuda graph bs {}", list_repr(bs->value.as_list())));
      if (capture_crash) {
        failure(log, 0.58, plan);
        return log.take();
      }
      avail -= used;
      std::string end = fmt::format("Capture cuda graph end. Time elapsed: {:.2f} s", 0.29 * secs);
      if (era.since("2025-04-28"))
        end += fmt::format(". mem usage={:.2f} GB. avail mem={:.2f} GB.", used, avail);
      else if (era.since("2025-03-04"))
        end += fmt::format(". avail mem={:.2f} GB. mem usage={:.2f} GB.", avail, used);
      log.rank0(0.85, end);
    }
  }
  if (!plan.starts) {
    failure(log, 0.90, plan);
    return log.take();
  }
  // scheduler.py::init_model_worker; chunked_prefill_size from 2025-01-26, available_gpu_mem
  // from 2025-05-31.
  std::string capacity = fmt::format("max_total_num_tokens={}, ", tokens);
  if (era.since("2025-01-26"))
    capacity += fmt::format("chunked_prefill_size={}, ",
                            static_cast<std::int64_t>(number(plan, "chunked_prefill_size", -1)));
  capacity += fmt::format("max_prefill_tokens={}, max_running_requests={}, context_len={}",
                          static_cast<std::int64_t>(number(plan, "arg.max_prefill_tokens", 16384)),
                          static_cast<std::int64_t>(number(plan, "max_running_requests", 0)),
                          static_cast<std::int64_t>(number(plan, "context_len", 0)));
  if (era.since("2025-05-31"))
    capacity += fmt::format(", available_gpu_mem={:.2f} GB", avail);
  log.rank0(0.90, capacity);
  // uvicorn's own lines, then the warmup request (http_server.py::_wait_and_warmup).
  log.main(0.92, fmt::format("INFO:     Started server process [{}]", ctx.pid));
  log.main(0.92, "INFO:     Waiting for application startup.");
  log.main(0.92, "INFO:     Application startup complete.");
  log.main(0.93,
           fmt::format("INFO:     Uvicorn running on http://{}:{} (Press CTRL+C to quit)",
                       ctx.endpoint.host, ctx.endpoint.port),
           StartupMark::kListening);
  log.main(0.95, fmt::format("INFO:     127.0.0.1:{} - \"GET /model_info HTTP/1.1\" 200 OK",
                             40000 + ctx.pid % 20000));
  const bool hybrid = node(plan, "max_mamba_cache_size") != nullptr;
  log.rank0(
      0.96,
      fmt::format(
          "Prefill batch, #new-seq: 1, #new-token: 6, #cached-token: 0, {}, #running-req: 0, "
          "#queue-req: 0, #pending-token: 0, cuda graph: False, input throughput (token/s): 0.00",
          hybrid ? "full token usage: 0.00, mamba usage: 0.00" : "token usage: 0.00"));
  log.main(0.98, fmt::format("INFO:     127.0.0.1:{} - \"POST /generate HTTP/1.1\" 200 OK",
                             40000 + ctx.pid % 20000));
  log.main(1.0, "The server is fired up and ready to roll!", StartupMark::kReady);
  return log.take();
}

std::vector<LogLine> SglangTwinProfile::crash_log(std::string_view reason) const {
  LogBuilder log(1);
  log.rank0(0, "Scheduler hit an exception: Traceback (most recent call last):");
  log.raw(0, "  File \"sglang/srt/managers/scheduler.py\", in event_loop_overlap");
  log.raw(0, fmt::format("RuntimeError: {}", reason));
  log.raw(0, "");
  log.main(0, "Received sigquit from a child process. It usually means the child failed.",
           StartupMark::kFailed);
  return log.take();
}

// uvicorn's access log (uvicorn/logging.py AccessFormatter), as SGLang configures it.
std::string SglangTwinProfile::access_log_line(std::string_view client, std::string_view method,
                                               std::string_view target, int http_status) const {
  std::string_view phrase = "";
  switch (http_status) {
    case 200:
      phrase = "OK";
      break;
    case 400:
      phrase = "Bad Request";
      break;
    case 404:
      phrase = "Not Found";
      break;
    case 405:
      phrase = "Method Not Allowed";
      break;
    case 413:
      phrase = "Request Entity Too Large";
      break;
    case 500:
      phrase = "Internal Server Error";
      break;
    case 503:
      phrase = "Service Unavailable";
      break;
    default:
      break;
  }
  return fmt::format("INFO:     {} - \"{} {} HTTP/1.1\" {} {}", client, method, target, http_status,
                     phrase);
}

std::string SglangTwinProfile::format_log_line(std::chrono::system_clock::time_point when,
                                               std::string_view tag, std::string_view line) const {
  // utils.py::configure_logger: "[%(asctime)s{prefix}] %(message)s", datefmt "%Y-%m-%d %H:%M:%S".
  const std::time_t t = std::chrono::system_clock::to_time_t(when);
  std::tm local{};
  localtime_r(&t, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &local);
  if (tag.empty())
    return fmt::format("[{}] {}", stamp, line);
  return fmt::format("[{} {}] {}", stamp, tag, line);
}

}  // namespace servescope::sglang
