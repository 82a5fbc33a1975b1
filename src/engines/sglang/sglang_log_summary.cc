#include "engines/sglang/sglang_log_summary.h"

#include <fmt/format.h>

#include <optional>
#include <string_view>

#include "core/text.h"

namespace servescope::sglang {

namespace {

std::string show(const Value& v, std::string_view name) {
  if (v.is_int())
    return with_thousands(v.as_int());
  if (v.is_double()) {
    if (name.size() > 3 && name.substr(name.size() - 3) == "_gb")
      return fmt::format("{:.2f} GB", v.as_number());
    if (name.size() > 2 && name.substr(name.size() - 2) == "_s")
      return fmt::format("{:.2f} s", v.as_number());
    return v.to_display();
  }
  if (v.is_none())
    return "None";
  return v.to_display();
}

class Builder {
 public:
  Builder(const std::vector<Fact>& facts, LogSummary& out) : facts_(facts), out_(out) {}

  // One figure: field `field` of the first `kind` fact, named `name`.
  void figure(std::string name, std::string_view kind, std::string_view field,
              std::string_view suffix = "") {
    const Fact* f = first_on_primary_rank(facts_, kind);
    if (f == nullptr)
      return;
    const Value* v = f->find(field);
    if (v == nullptr)
      return;
    out_.capacity.push_back(
        {std::move(name), show(*v, field) + std::string(suffix), f->line, f->kind});
  }

  // Every fact of `kind` the rank of the first one logged, in order (the target's pool, then a
  // speculative draft model's).
  std::vector<const Fact*> on_first_rank(std::string_view kind) const {
    std::vector<const Fact*> out;
    const Fact* first = first_on_primary_rank(facts_, kind);
    if (first == nullptr)
      return out;
    for (const Fact& f : facts_) {
      if (f.kind == kind && f.rank.tp == first->rank.tp && f.rank.dp == first->rank.dp &&
          f.rank.pp == first->rank.pp && f.line >= first->line)
        out.push_back(&f);
    }
    return out;
  }

  // `speculative`: the dump names a draft model (yes / no / no dump).
  void kv_cache(std::optional<bool> speculative) {
    std::vector<const Fact*> pools = on_first_rank("kv_cache_allocated");
    // Labelled pools (0.5.17+: "Draft KV Cache is allocated", host pools) name themselves.
    for (const Fact* f : pools) {
      if (auto label = f->text("label"))
        kv_pool(*label + " KV cache", *f);
    }
    std::erase_if(pools, [](const Fact* f) { return f->has("label"); });
    if (pools.empty())
      return;
    kv_pool("KV cache", *pools[0]);
    // A draft model's pool comes second; without one a second pool is another start of the
    // server in the same file, and the summary is the first start's.
    if (pools.size() > 1 && speculative.value_or(true))
      kv_pool(speculative ? "draft KV cache" : "second KV pool (a draft model's or a restart)",
              *pools[1]);
  }

  // What is free once every pool is allocated: after the last pool (a draft model's comes
  // after the target's).
  void free_after_pools(std::optional<bool> speculative) {
    const std::vector<const Fact*> ends = on_first_rank("memory_pool_end");
    if (ends.empty())
      return;
    const Fact* f = speculative.value_or(false) && ends.size() > 1 ? ends[1] : ends.front();
    if (const Value* v = f->find("avail_mem_gb"))
      out_.capacity.push_back({"free after pools", show(*v, "avail_mem_gb"), f->line, f->kind});
  }

  void kv_pool(std::string name, const Fact& pool) {
    const Fact* f = &pool;
    std::string value;
    if (auto t = f->integer("tokens"))
      value = with_thousands(*t) + " tokens";
    std::string sizes;
    if (auto k = f->number("k_size_gb"))
      sizes = fmt::format("K {:.2f} GB + V {:.2f} GB", *k, f->number("v_size_gb").value_or(0));
    else if (auto kv = f->number("kv_size_gb"))
      sizes = fmt::format("KV {:.2f} GB", *kv);
    if (!sizes.empty())
      value += value.empty() ? sizes : " (" + sizes + ")";
    if (auto dtype = f->text("dtype"))
      value += ", " + *dtype;
    out_.capacity.push_back({std::move(name), value, f->line, f->kind});
  }

  void capture_list() {
    const Fact* f = first_on_primary_rank(facts_, "cuda_graph_bs");
    if (f == nullptr)
      return;
    if (const IntList* bs = f->int_list("bs")) {
      out_.capacity.push_back(
          {"CUDA graph batch sizes",
           // to_display() names the count of a long list already.
           bs->size() > 8 ? Value(*bs).to_display()
                          : fmt::format("{} ({} sizes)", Value(*bs).to_display(), bs->size()),
           f->line, f->kind});
    }
  }

  void problems() {
    for (const Fact& f : facts_) {
      std::string value;
      if (f.kind == "warning_reset_48" || f.kind == "warning_set_32") {
        value = fmt::format("speculative decoding: max_running_requests set to {}",
                            f.integer("max_running_requests").value_or(0));
      } else if (f.kind == "warning_reduced_from_requested") {
        value = fmt::format("max_running_requests reduced from the requested {} to {}",
                            f.integer("requested").value_or(0),
                            f.integer("max_running_requests").value_or(0));
      } else if (f.kind == "warning_mamba_cap") {
        value = fmt::format("max_running_requests capped to {} by the mamba state cache",
                            f.integer("max_running_requests").value_or(0));
      } else if (f.kind == "post_capture_kv_resize") {
        value = "post-capture KV resize: " +
                std::string(trim(f.raw.substr(std::min(f.raw.find("sizing"), f.raw.size()))));
      } else if (f.kind == "startup_failure" || f.kind == "runtime_error") {
        const std::string error = f.text("error").value_or("");
        const std::string message = f.text("message").value_or("");
        value = (f.kind == "startup_failure" ? "startup failure: " : "runtime error: ") +
                (error.empty() ? message : error + ": " + message);
      } else if (f.kind == "input_too_long") {
        value =
            fmt::format("request rejected: input {} tokens > limit {}",
                        f.integer("input_tokens").value_or(0), f.integer("max_tokens").value_or(0));
      } else if (f.kind == "allreduce_fusion" && f.text("status") == "failed") {
        value = "FlashInfer allreduce fusion workspace failed";
      }
      if (!value.empty() && out_.problems.size() < 50)
        out_.problems.push_back({f.kind, value, f.line, f.kind});
      if ((f.kind == "server_args_note" || f.kind == "setting_adjusted") &&
          out_.notes.size() < 20) {
        // Every rank prints the same note; keep the first.
        std::string text = f.text("text").value_or("");
        bool seen = false;
        for (const LogSummary::Item& n : out_.notes)
          seen |= n.value == text;
        if (!seen)
          out_.notes.push_back({f.kind, std::move(text), f.line, f.kind});
      }
    }
  }

 private:
  const std::vector<Fact>& facts_;
  LogSummary& out_;
};

int int_field(const Fact* f, std::string_view name) {
  if (f == nullptr)
    return 0;
  return static_cast<int>(f->integer(name).value_or(0));
}

}  // namespace

LogSummary summarize_sglang_log(const std::vector<Fact>& facts) {
  LogSummary out;
  const Fact* args = first_on_primary_rank(facts, "server_args");
  if (args != nullptr) {
    out.model = args->text("model_path").value_or("");
    out.tp = int_field(args, "tp_size");
    out.dp = int_field(args, "dp_size");
    out.pp = int_field(args, "pp_size");
    out.ep = int_field(args, "ep_size");
  }
  if (out.model.empty()) {
    if (const Fact* cmd = first_on_primary_rank(facts, "launch_command")) {
      auto words = split_command_line(cmd->text("command").value_or(""));
      for (std::size_t i = 0; words && i + 1 < words->size(); ++i) {
        if ((*words)[i] == "--model-path" || (*words)[i] == "--model")
          out.model = (*words)[i + 1];
      }
    }
  }
  if (const Fact* lw = first_on_primary_rank(facts, "load_weight_end"))
    out.model_class = lw->text("type").value_or("");
  if (const Fact* gpu = first_on_primary_rank(facts, "gpu"))
    out.gpu = gpu->text("name").value_or("");
  // Without a dump, the rank tags bound the sizes from below.
  if (out.tp == 0) {
    int max_tp = -1;
    for (const Fact& f : facts)
      max_tp = std::max(max_tp, f.rank.tp);
    out.tp = max_tp + 1;
  }
  const Fact* anchor = first_on_primary_rank(facts, "load_weight_begin");
  if (anchor == nullptr)
    anchor = first_on_primary_rank(facts, "capacity");
  if (anchor != nullptr)
    out.rank = anchor->rank.label;

  Builder b(facts, out);
  b.figure("free before load (P)", "load_weight_begin", "avail_mem_gb");
  b.figure("free after load (A)", "load_weight_end", "avail_mem_gb");
  b.figure("weights", "load_weight_end", "mem_usage_gb");
  b.figure("mem_fraction_static", "server_args", "mem_fraction_static");
  const Fact* dump = first_on_primary_rank(facts, "server_args");
  std::optional<bool> speculative;
  if (dump != nullptr)
    speculative = dump->text("speculative_algorithm").has_value() &&
                  !dump->text("speculative_algorithm")->empty();
  b.kv_cache(speculative);
  b.figure("max_mamba_cache_size (K)", "mamba_cache_allocated", "max_mamba_cache_size");
  b.figure("full layer tokens", "swa_pool", "full_layer_tokens");
  b.figure("SWA layer tokens", "swa_pool", "swa_layer_tokens");
  b.free_after_pools(speculative);
  b.capture_list();
  b.figure("CUDA graph memory", "cuda_graph_capture_end", "mem_usage_gb");
  b.figure("max_total_num_tokens", "capacity", "max_total_num_tokens");
  b.figure("max_running_requests", "capacity", "max_running_requests");
  b.figure("chunked_prefill_size", "capacity", "chunked_prefill_size");
  b.figure("max_prefill_tokens", "capacity", "max_prefill_tokens");
  b.figure("context_len", "capacity", "context_len");
  b.figure("available_gpu_mem", "capacity", "available_gpu_mem_gb");
  b.problems();
  return out;
}

}  // namespace servescope::sglang
