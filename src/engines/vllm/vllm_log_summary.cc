#include "engines/vllm/vllm_log_summary.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/text.h"
#include "engines/engine.h"
#include "engines/log_launch.h"
#include "engines/vllm/vllm_command.h"

namespace servescope::vllm {

namespace {

// A fact printed by one of the server's own processes or by rank 0.
bool stands_for_server(const Fact& f) {
  if (!f.rank.is_primary())
    return false;
  return f.rank.label.find("pid=") == std::string::npos;
}

class Builder {
 public:
  Builder(const std::vector<Fact>& facts, LogSummary& out) : facts_(facts), out_(out) {}

  void gib(std::string name, std::string_view kind, std::string_view field) {
    for (const Fact* f : {primary_fact(facts_, kind)}) {
      if (f == nullptr)
        continue;
      if (auto v = f->number(field))
        out_.capacity.push_back({std::move(name), fmt::format("{:.2f} GiB", *v), f->line, f->kind});
      return;
    }
  }
  void count(std::string name, std::string_view kind, std::string_view field,
             std::string_view unit = "") {
    const Fact* f = primary_fact(facts_, kind);
    if (f == nullptr)
      return;
    if (auto v = f->integer(field))
      out_.capacity.push_back(
          {std::move(name), with_thousands(*v) + std::string(unit), f->line, f->kind});
  }
  void item(std::vector<LogSummary::Item>& into, std::string name, std::string value,
            const Fact& f) {
    into.push_back({std::move(name), std::move(value), f.line, f.kind});
  }

  const std::vector<Fact>& facts_;
  LogSummary& out_;
};

}  // namespace

const Fact* primary_fact(const std::vector<Fact>& facts, std::string_view kind) {
  const Fact* any = nullptr;
  for (const Fact& f : facts) {
    if (f.kind != kind)
      continue;
    if (stands_for_server(f))
      return &f;
    if (any == nullptr)
      any = &f;
  }
  return any;
}

std::optional<LoggedLaunch> logged_launch(const std::vector<Fact>& facts) {
  const Fact* l = primary_fact(facts, "launch_command");
  if (l == nullptr)
    return std::nullopt;
  auto input = launch_in_fact(*l, launch_recognizer(find_engine("vllm").value()));
  if (!input)
    return std::nullopt;
  auto parsed = parse_vllm_command(input->argv);
  if (!parsed)
    return std::nullopt;
  LoggedLaunch out;
  if (const FlagSetting* m = parsed->command.find("--model"))
    out.model = m->value();
  out.words = std::move(input->argv);
  out.environment = std::move(input->environment);
  out.origin = std::move(input->origin);
  return out;
}

LogSummary summarize_vllm_log(const std::vector<Fact>& facts) {
  LogSummary out;
  Builder b(facts, out);
  const Fact* args = primary_fact(facts, "non_default_args");
  const Fact* config = primary_fact(facts, "engine_config");
  if (args != nullptr)
    out.model = args->text("model").value_or(args->text("model_tag").value_or(""));
  if (out.model.empty() && config != nullptr)
    out.model = config->text("model").value_or("");
  if (out.model.empty()) {
    if (const Fact* m = primary_fact(facts, "model_name"))
      out.model = m->text("model").value_or("");
  }
  if (out.model.empty()) {
    // Only the launch command pasted above the log names it.
    if (auto launch = logged_launch(facts))
      out.model = launch->model;
  }
  if (const Fact* gpu = primary_fact(facts, "gpu"))
    out.gpu = gpu->text("name").value_or("");
  if (const Fact* a = primary_fact(facts, "model_architecture"))
    out.model_class = a->text("architecture").value_or("");
  auto size = [&](const char* field) -> int {
    for (const Fact* f : {args, config}) {
      if (f != nullptr) {
        if (auto v = f->integer(field))
          return static_cast<int>(*v);
      }
    }
    return 0;
  };
  out.tp = size("tensor_parallel_size");
  out.pp = size("pipeline_parallel_size");
  out.dp = size("data_parallel_size");
  if (const Fact* kv = primary_fact(facts, "kv_cache_memory"))
    out.rank = kv->rank.label;

  // The memory profile, then the capacity lines, in startup order.
  if (const Fact* s = primary_fact(facts, "memory_summary")) {
    out.capacity.push_back(
        {"free memory at startup",
         fmt::format("{:.2f} / {:.2f} GiB", s->number("free_memory_gib").value_or(0),
                     s->number("total_memory_gib").value_or(0)),
         s->line, s->kind});
  } else if (const Fact* snap = primary_fact(facts, "memory_snapshot")) {
    out.capacity.push_back(
        {"free memory at startup",
         fmt::format("{:.2f} / {:.2f} GiB", snap->number("free_memory_gib").value_or(0),
                     snap->number("total_memory_gib").value_or(0)),
         snap->line, snap->kind});
  }
  for (const Fact& f : facts) {
    if (f.kind == "memory_profile" && f.has("total_memory_gib")) {
      b.item(out.capacity, "total × gpu_memory_utilization",
             fmt::format("{:.2f} GiB × {} = {:.2f} GiB", f.number("total_memory_gib").value_or(0),
                         f.number("gpu_memory_utilization").value_or(0),
                         f.number("requested_gib").value_or(0)),
             f);
      break;
    }
  }
  b.gib("weights (Model loading took)", "model_loaded", "weights_gib");
  if (primary_fact(facts, "model_loaded") == nullptr) {
    // V0 workers print the weights only in their profile line ("model weights take X GiB").
    for (const char* kind : {"memory_summary", "memory_profile"}) {
      if (const Fact* f = primary_fact(facts, kind); f != nullptr && f->has("weights_gib")) {
        b.item(out.capacity, "weights (memory profile)",
               fmt::format("{:.2f} GiB", f->number("weights_gib").value_or(0)), *f);
        break;
      }
    }
  }
  for (const char* kind : {"memory_summary", "memory_profile"}) {
    const Fact* f = nullptr;
    for (const Fact& x : facts) {
      if (x.kind == kind && x.has("activation_peak_gib") &&
          (f == nullptr || stands_for_server(x))) {
        f = &x;
        if (stands_for_server(x))
          break;
      }
    }
    if (f != nullptr) {
      b.item(out.capacity, "activation peak",
             fmt::format("{:.2f} GiB", f->number("activation_peak_gib").value_or(0)), *f);
      b.item(out.capacity, "non-torch",
             fmt::format("{:.2f} GiB", f->number("non_torch_gib").value_or(0)), *f);
      break;
    }
  }
  b.gib("CUDA graph estimate", "cuda_graph_estimate", "cuda_graph_gib");
  b.gib("available KV cache memory", "kv_cache_memory", "available_gib");
  if (const Fact* f = primary_fact(facts, "memory_profile"); f != nullptr && f->has("kv_cache_gib"))
    b.gib("KV cache memory (profile)", "memory_profile", "kv_cache_gib");
  b.count("GPU KV cache size", "kv_cache_size", "tokens", " tokens");
  {
    // One line per worker (0.10-era EngineCore reports each worker's config): the engine keeps
    // the least over the workers (get_kv_cache_configs, docs/research/vllm-capacity.md 2.5).
    const Fact* least = nullptr;
    std::size_t lines = 0;
    bool differ = false;
    for (const Fact& f : facts) {
      if (f.kind != "kv_cache_size" || !f.integer("tokens"))
        continue;
      ++lines;
      if (least != nullptr && *f.integer("tokens") != *least->integer("tokens"))
        differ = true;
      if (least == nullptr || *f.integer("tokens") < *least->integer("tokens"))
        least = &f;
    }
    if (differ)
      b.item(out.capacity, fmt::format("KV cache kept (least of {} lines)", lines),
             with_thousands(*least->integer("tokens")) + " tokens", *least);
  }
  if (const Fact* f = primary_fact(facts, "max_concurrency")) {
    b.item(out.capacity, "maximum concurrency",
           fmt::format("{:.2f}x for {} tokens per request", f->number("concurrency").value_or(0),
                       with_thousands(f->integer("tokens_per_request").value_or(0))),
           *f);
  }
  b.count("num_gpu_blocks", "gpu_blocks", "num_gpu_blocks");
  for (const Fact& f : facts) {
    if (f.kind == "scheduler_default")
      b.item(out.capacity, f.text("setting").value_or("?"),
             with_thousands(f.integer("value").value_or(0)) + " (default for " +
                 f.text("usage_context").value_or("?") + ")",
             f);
  }
  b.count("max_num_batched_tokens (chunked prefill)", "chunked_prefill", "max_num_batched_tokens");
  b.count("max_model_len", "max_model_len", "max_model_len");
  if (config != nullptr) {
    if (const IntList* sizes = config->int_list("compilation_config.cudagraph_capture_sizes")) {
      IntList sorted = *sizes;
      std::sort(sorted.begin(), sorted.end());
      b.item(
          out.capacity, "CUDA graph capture sizes",
          fmt::format("{}, max {}", Value(sorted).to_display(), sorted.empty() ? 0 : sorted.back()),
          *config);
    }
  }
  if (const Fact* f = primary_fact(facts, "attention_backend"); f != nullptr && f->has("backend"))
    b.item(out.capacity, "attention backend", f->text("backend").value_or(""), *f);

  for (const Fact& f : facts) {
    if (f.kind == "startup_failure" || f.kind == "runtime_error") {
      const std::string error = f.text("error").value_or("");
      const std::string message = f.text("message").value_or("");
      // A message that starts with its error's name ("ValueError: ValueError: …" otherwise).
      const bool named = !error.empty() && message.rfind(error + ":", 0) == 0;
      b.item(out.problems, f.kind == "startup_failure" ? "startup failure" : "runtime error",
             error.empty() || named ? message : error + ": " + message, f);
    } else if (f.kind == "cudagraph_downgrade") {
      b.item(out.problems, "CUDA graph mode downgraded",
             f.text("from").value_or("?") + " → " + f.text("to").value_or("?"), f);
    } else if (f.kind == "padding_layers") {
      b.item(out.problems, "KV cache padding layers",
             fmt::format("{} layers, up to {:.2f}% of the KV cache wasted",
                         f.integer("layers").value_or(0), f.number("waste_pct").value_or(0)),
             f);
    } else if (f.kind == "input_too_long") {
      b.item(out.problems, "input too long",
             fmt::format("{} tokens > {}", f.integer("input_tokens").value_or(0),
                         f.integer("max_tokens").value_or(0)),
             f);
    } else if (f.kind == "setting_adjusted") {
      b.item(out.notes, "setting adjusted", f.text("text").value_or(""), f);
    } else if (f.kind == "blocks_override" && f.integer("num_gpu_blocks") == 0) {
      // "Overriding num_gpu_blocks=0 with num_gpu_blocks_override=N" is the minimal KV cache
      // the CUDA-graph memory profile builds (gpu_model_runner.py::profile_cudagraph_memory,
      // 0.19+), not a user's override: nothing was adjusted.
      continue;
    } else if (f.kind == "blocks_override" || f.kind == "auto_fit" || f.kind == "block_size") {
      b.item(out.notes, f.kind,
             std::string(trim(f.raw.substr(std::min(f.raw.find(']') + 1, f.raw.size())))), f);
    } else if (f.kind == "cuda_graph_profiling") {
      const Value* sub = f.find("subtracted");
      b.item(out.notes, "CUDA graph memory profiling",
             sub != nullptr && sub->is_bool() && sub->as_bool() ? "subtracted from the KV cache"
                                                                : "estimated, not subtracted",
             f);
    }
  }
  // Every rank prints its own copy of a note: keep the first.
  std::vector<LogSummary::Item> notes;
  for (LogSummary::Item& item : out.notes) {
    const bool repeated = std::any_of(notes.begin(), notes.end(), [&](const LogSummary::Item& n) {
      return n.name == item.name && n.value == item.value;
    });
    if (!repeated)
      notes.push_back(std::move(item));
  }
  out.notes = std::move(notes);
  return out;
}

}  // namespace servescope::vllm
