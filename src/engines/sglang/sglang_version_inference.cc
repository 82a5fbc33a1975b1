#include "engines/sglang/sglang_version_inference.h"

#include <fmt/format.h>

#include <string_view>

#include "engines/sglang/sglang_rules.h"

namespace servescope::sglang {

namespace {

const Fact* first_of(const std::vector<Fact>& facts, std::string_view kind) {
  for (const Fact& f : facts) {
    if (f.kind == kind)
      return &f;
  }
  return nullptr;
}

class Evidence {
 public:
  explicit Evidence(std::vector<VersionEvidence>& out) : out_(out) {}

  void seen(const Fact& f, std::string observation, std::string_view from, std::string_view until,
            std::string rule, int weight = 2) {
    out_.push_back(VersionEvidence{std::move(observation), true, f.line, std::string(from),
                                   std::string(until), std::move(rule), weight, false});
  }
  // An absence: weaker than a presence (a field may be removed after the newest date here).
  void absent(const Fact& f, std::string observation, std::string_view from, std::string_view until,
              std::string rule) {
    out_.push_back(VersionEvidence{std::move(observation), false, f.line, std::string(from),
                                   std::string(until), std::move(rule), 1, false});
  }

 private:
  std::vector<VersionEvidence>& out_;
};

// Field names of the ServerArgs dump: {field, from, until, rule}. A present field bounds the
// date on both sides; the absence of a field that HEAD still has bounds it from above.
struct FieldEra {
  std::string_view field;
  std::string_view from;
  std::string_view until;
  std::string_view rule;
  bool still_at_head;
};

constexpr FieldEra kServerArgsFields[] = {
    {"cuda_graph_max_bs", "2024-10-26", "2026-06-08",
     "cuda_graph_max_bs added 2024-10-26 (86e0dde55), replaced by cuda_graph_config 2026-06-09 "
     "(2495c02c2, #23906)",
     false},
    {"cuda_graph_config", "2026-06-09", "",
     "cuda_graph_config added 2026-06-09 (2495c02c2, #23906)", true},
    {"enable_piecewise_cuda_graph", "2025-10-11", "2026-03-01",
     "enable_piecewise_cuda_graph 2025-10-11 (4ac8e09df, #10062) until the default-on switch "
     "2026-03-02 (c64274c74, #16331)",
     false},
    {"disable_piecewise_cuda_graph", "2026-03-02", "2026-06-08",
     "disable_piecewise_cuda_graph 2026-03-02 (c64274c74, #16331) until cuda_graph_config "
     "2026-06-09 (2495c02c2)",
     false},
    {"enforce_piecewise_cuda_graph", "2026-03-02", "2026-06-08",
     "enforce_piecewise_cuda_graph 2026-03-02 (c64274c74, #16331) until cuda_graph_config "
     "2026-06-09 (2495c02c2)",
     false},
    {"mamba_scheduler_strategy", "2025-12-14", "2026-06-17",
     "mamba_scheduler_strategy 2025-12-14 (e61dabf5e) until renamed mamba_radix_cache_strategy "
     "2026-06-18 (66a7fd5c0)",
     false},
    {"mamba_radix_cache_strategy", "2026-06-18", "",
     "mamba_radix_cache_strategy since 2026-06-18 (66a7fd5c0)", true},
    {"enable_flashinfer_allreduce_fusion", "2025-07-02", "",
     "enable_flashinfer_allreduce_fusion since 2025-07-02 (8e64140e3)", true},
    {"flashinfer_allreduce_fusion_backend", "2026-06-15", "",
     "flashinfer_allreduce_fusion_backend since 2026-06-15 (32685874f)", true},
    {"mamba_full_memory_ratio", "2025-10-13", "", "mamba_full_memory_ratio since 2025-10-13", true},
    {"max_mamba_cache_size", "2025-09-11", "", "max_mamba_cache_size since 2025-09-11", true},
};

// The day before "YYYY-MM-DD" for the absences; the table dates are never the 1st of
// January, but compute it properly anyway.
std::string day_before(std::string_view date) {
  int y = 0;
  int m = 0;
  int d = 0;
  if (std::sscanf(std::string(date).c_str(), "%d-%d-%d", &y, &m, &d) != 3)
    return std::string(date);
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (--d == 0) {
    if (--m == 0) {
      m = 12;
      --y;
    }
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    d = kDays[m - 1] + (m == 2 && leap ? 1 : 0);
  }
  return fmt::format("{:04d}-{:02d}-{:02d}", y, m, d);
}

void server_args_evidence(const Fact& args, Evidence& ev) {
  for (const FieldEra& e : kServerArgsFields) {
    if (args.has(e.field)) {
      ev.seen(args, fmt::format("server_args has {}", e.field), e.from, e.until,
              std::string(e.rule));
    } else if (!args.partial && e.still_at_head) {
      ev.absent(args, fmt::format("complete server_args dump has no {}", e.field), "",
                day_before(e.from), std::string(e.rule));
    }
  }
}

void load_weight_evidence(const Fact& f, Evidence& ev) {
  const std::string_view kMem =
      "'mem usage=' appended to Load weight end 2025-03-04 (e074d84e5, #4077)";
  if (f.has("mem_usage_gb"))
    ev.seen(f, "Load weight end prints mem usage", "2025-03-04", "", std::string(kMem));
  else if (!f.partial)
    ev.absent(f, "Load weight end without mem usage", "", "2025-03-03", std::string(kMem));
  const std::string_view kElapsed =
      "'elapsed=' added to Load weight end 2026-01-26 (1b56a886b, #15426)";
  if (f.has("elapsed_s"))
    ev.seen(f, "Load weight end prints elapsed", "2026-01-26", "", std::string(kElapsed));
  else if (!f.partial)
    ev.seen(f, "Load weight end without elapsed", "", "2026-01-25", std::string(kElapsed));
  const std::string_view kDtype =
      "'dtype=' dropped from Load weight end, '[quant=…]' added 2026-03-03/04 (f7897def9, "
      "#18651)";
  if (f.has("dtype"))
    ev.seen(f, "Load weight end prints dtype", "", "2026-03-04", std::string(kDtype));
  else if (!f.partial)
    ev.seen(f, "Load weight end without dtype", "2026-03-03", "", std::string(kDtype));
  if (f.has("quant"))
    ev.seen(f, "Load weight end prints quant", "2026-03-03", "", std::string(kDtype));
}

void kv_evidence(const Fact& f, Evidence& ev) {
  if (!f.has("tokens")) {
    if (!f.partial)
      ev.seen(f, "KV Cache is allocated without #tokens", "2025-01-13", "2025-03-03",
              "'KV Cache is allocated. K size' 2025-01-13 (72c777635, #2851); '#tokens' added "
              "2025-03-04 (e074d84e5)");
    return;
  }
  if (f.has("dtype"))
    ev.seen(f, "KV Cache is allocated with dtype", "2026-05-24", "",
            "'dtype:' added to KV Cache is allocated 2026-05-24 (93fa577bb, #26205)");
  else
    ev.seen(f, "KV Cache is allocated with #tokens, without dtype", "2025-03-04", "2026-05-23",
            "'#tokens' 2025-03-04 (e074d84e5); 'dtype:' added 2026-05-24 (93fa577bb, #26205)");
  if (f.has("kv_size_gb"))
    ev.seen(f, "KV Cache is allocated, MLA form (KV size)", "2025-04-22", "",
            "MLA '#tokens: T, KV size' since 2025-04-22 (e69a21907)");
}

void capture_evidence(const std::vector<Fact>& facts, Evidence& ev) {
  for (const Fact& f : facts) {
    if (f.kind != "cuda_graph_capture_begin")
      continue;
    const auto form = f.text("form");
    const auto graph = f.text("graph");
    if (form == "named") {
      ev.seen(f, fmt::format("'Capture {} CUDA graph begin' line", graph.value_or("")),
              "2026-06-22", "", "per-graph capture lines since 2026-06-22 (ad9723af0, #28937)");
      if (f.has("num_tokens_per_bs"))
        ev.seen(f, "capture line prints num_tokens_per_bs", "2026-06-22", "2026-07-12",
                "num_tokens_per_bs renamed num_tokens_per_req 2026-07-13 (c0f1f7e06, #30977)");
      if (f.has("num_tokens_per_req"))
        ev.seen(f, "capture line prints num_tokens_per_req", "2026-07-13", "",
                "num_tokens_per_req since 2026-07-13 (c0f1f7e06, #30977)");
      return;
    }
    if (graph == "piecewise") {
      ev.seen(f, "'Capture piecewise CUDA graph begin' line", "2025-11-30", "2026-06-21",
              "piecewise capture line 2025-11-30 (e8542db55) until per-graph lines 2026-06-22 "
              "(ad9723af0)");
      continue;
    }
    if (graph != "decode")
      continue;
    if (f.has("avail_mem_gb"))
      ev.seen(f, "'Capture cuda graph begin' prints avail mem", "2025-03-03", "2026-06-21",
              "avail mem appended 2025-03-03/04 (ac2387279/e074d84e5); line replaced "
              "2026-06-22 (ad9723af0)");
    else if (!f.partial)
      ev.seen(f, "'Capture cuda graph begin' without avail mem", "", "2025-03-03",
              "avail mem appended 2025-03-03/04 (ac2387279/e074d84e5)");
    break;
  }
  for (const Fact& f : facts) {
    if (f.kind != "cuda_graph_capture_end" || f.text("form") != "legacy" ||
        f.text("graph") != "decode")
      continue;
    // The order of the two memory figures changed on 2025-04-28; the fields keep it.
    int avail = -1;
    int usage = -1;
    for (std::size_t i = 0; i < f.fields.size(); ++i) {
      if (f.fields[i].name == "avail_mem_gb")
        avail = static_cast<int>(i);
      if (f.fields[i].name == "mem_usage_gb")
        usage = static_cast<int>(i);
    }
    if (avail >= 0 && usage >= 0 && avail < usage)
      ev.seen(f, "'Capture cuda graph end' prints avail mem before mem usage", "2025-03-04",
              "2025-04-27",
              "memory figures appended 2025-03-04 (e074d84e5), order swapped 2025-04-28 "
              "(849c83a0c, #5798)");
    else if (avail >= 0 && usage >= 0)
      ev.seen(f, "'Capture cuda graph end' prints mem usage before avail mem", "2025-04-28",
              "2026-06-21",
              "order swapped 2025-04-28 (849c83a0c, #5798); line replaced 2026-06-22 "
              "(ad9723af0)");
    else if (f.has("elapsed_s") && !f.partial)
      ev.seen(f, "'Capture cuda graph end. Time elapsed' without memory figures", "2024-12-02",
              "2025-03-03",
              "'Time elapsed' 2024-12-02 (3ddb1c467); memory figures appended 2025-03-04 "
              "(e074d84e5)");
    break;
  }
  for (const Fact& f : facts) {
    if (f.kind == "cuda_graph_bs" && f.text("form") == "legacy") {
      ev.seen(f, "'Capture cuda graph bs [...]' line", "2025-04-30", "2026-06-21",
              "bs list line 2025-04-30 (11383cec3, #5724) until per-graph lines 2026-06-22 "
              "(ad9723af0)");
      break;
    }
  }
}

// Whether the log shows that max_running_requests was not set by the user and speculative
// decoding is off: only then is a printed 2049 the 2024-09-18 … 2025-05-31 default.
bool default_running_requests(const std::vector<Fact>& facts) {
  if (const Fact* args = first_of(facts, "server_args")) {
    const Value* m = args->find("max_running_requests");
    const Value* spec = args->find("speculative_algorithm");
    return m != nullptr && m->is_none() && (spec == nullptr || spec->is_none());
  }
  if (const Fact* cmd = first_of(facts, "launch_command")) {
    const auto text = cmd->text("command");
    return text && text->find("--max-running-requests") == std::string::npos &&
           text->find("--speculative") == std::string::npos;
  }
  return false;
}

void capacity_evidence(const std::vector<Fact>& facts, Evidence& ev) {
  const Fact* cap = nullptr;
  for (const Fact& f : facts) {
    if (f.kind == "capacity" && f.has("max_running_requests")) {
      cap = &f;
      break;
    }
  }
  if (cap == nullptr)
    return;
  const std::string_view kChunk = "chunked_prefill_size= added 2025-01-26 (1dda8c5e4, #3152)";
  if (cap->has("chunked_prefill_size"))
    ev.seen(*cap, "capacity line prints chunked_prefill_size", "2025-01-26", "",
            std::string(kChunk));
  else
    ev.seen(*cap, "capacity line without chunked_prefill_size", "", "2025-01-25",
            std::string(kChunk));
  const std::string_view kAvail = "available_gpu_mem= added 2025-05-31 (2d72fc47c, #6787)";
  if (cap->has("available_gpu_mem_gb") || cap->has("available_cpu_mem_gb"))
    ev.seen(*cap, "capacity line prints available_gpu_mem", "2025-05-31", "", std::string(kAvail));
  else if (cap->has("context_len"))
    ev.seen(*cap, "capacity line without available_gpu_mem", "", "2025-05-30", std::string(kAvail));
  if (cap->integer("max_running_requests") == 2049 && default_running_requests(facts))
    ev.seen(*cap, "default max_running_requests=2049", "2024-09-18", "2025-05-31",
            "request pool = estimate + 1 from 2024-09-18 (7f24ea95c, #1457) until 2025-06-01 "
            "(20fd53b8f, #6803)");
}

void other_line_evidence(const std::vector<Fact>& facts, Evidence& ev) {
  if (const Fact* f = first_of(facts, "init_torch_distributed_end")) {
    ev.seen(*f, "'Init torch distributed ends' line", "2025-03-04", "",
            "line added 2025-03-04 (e074d84e5)");
    if (f->has("elapsed_s"))
      ev.seen(*f, "'Init torch distributed ends' prints elapsed", "2026-01-26", "",
              "elapsed added 2026-01-26 (1b56a886b, #15426)");
    else if (!f->partial)
      ev.seen(*f, "'Init torch distributed ends' without elapsed", "", "2026-01-25",
              "elapsed added 2026-01-26 (1b56a886b, #15426)");
  }
  if (const Fact* f = first_of(facts, "kv_cache_dtype"))
    ev.seen(*f, "'Using KV cache dtype' line", "2025-09-15", "2026-05-23",
            "line 2025-09-15 (80572c834, #10336) until folded into KV Cache is allocated "
            "2026-05-24 (93fa577bb)");
  if (const Fact* f = first_of(facts, "mamba_cache_allocated")) {
    if (f->has("max_mamba_cache_size"))
      ev.seen(*f, "Mamba Cache is allocated prints max_mamba_cache_size", "2025-10-13", "",
              "max_mamba_cache_size added 2025-10-13 (a55cf5304)");
    else if (!f->partial)
      ev.seen(*f, "Mamba Cache is allocated without max_mamba_cache_size", "2025-09-11",
              "2025-10-12", "line 2025-09-11 (30c6e1f56); K added 2025-10-13 (a55cf5304)");
  }
  if (const Fact* f = first_of(facts, "warning_reset_48")) {
    if (f->find("override_hint") != nullptr && f->find("override_hint")->is_bool() &&
        f->find("override_hint")->as_bool())
      ev.seen(*f, "'reset to 48 … You can override' warning", "2025-10-25", "",
              "override hint added 2025-10-25 (4caca1ba0, #12124)");
    else
      ev.seen(*f, "'reset to 48' warning without the override hint", "2025-10-19", "2025-10-24",
              "warning 2025-10-19 (cbb5fc2ed, #11835); hint added 2025-10-25 (4caca1ba0)");
  }
  if (const Fact* f = first_of(facts, "warning_set_32"))
    ev.seen(*f, "'Max running request set to 32' message", "2025-03-05", "2025-03-29",
            "EAGLE default 32 2025-03-05 (d3d4d7675, #3986) until 48 2025-03-30 (b26bc86b3)");
  if (const Fact* f = first_of(facts, "warning_reduced_from_requested"))
    ev.seen(*f, "'was reduced from the requested' warning", "2026-06-12", "",
            "warning added 2026-06-12 (3be5a7ec8, #27399)");
}

void printed_evidence(const std::vector<Fact>& facts, Evidence& ev, VersionInference& out) {
  // The earliest date the log was printed on: the code cannot be newer.
  const Fact* earliest = nullptr;
  for (const Fact& f : facts) {
    if (f.timestamp.size() >= 10 && (earliest == nullptr || f.timestamp < earliest->timestamp))
      earliest = &f;
  }
  if (earliest != nullptr) {
    const std::string date = earliest->timestamp.substr(0, 10);
    ev.seen(*earliest, fmt::format("log printed on {}", date), "", date,
            "a log is not older than the code that printed it", 3);
  }
  for (const Fact& f : facts) {
    if (f.kind != "engine_version")
      continue;
    const auto version = f.text("version");
    if (version && out.printed_version.empty())
      out.printed_version = *version;
    if (const auto date = f.text("image_date"))
      ev.seen(f, fmt::format("image built {}", *date), "", *date,
              "an image holds code up to its build date", 1);
    if (const auto date = f.text("build_date"))
      ev.seen(f, fmt::format("dev build {}", *version), "", *date,
              "a dev version names its build date", 1);
    if (!version || version->find(".dev") != std::string::npos)
      continue;
    auto resolved = resolve_sglang_version(*version);
    if (resolved && !resolved->main_date.empty()) {
      ev.seen(f, fmt::format("sglang {} ({})", *version, f.text("source").value_or("")),
              resolved->main_date, "",
              fmt::format("release {} holds main up to {} (data/sglang/releases.csv); main "
                          "checkouts keep the last release name",
                          *version, resolved->main_date),
              1);
    } else {
      ev.seen(f, fmt::format("sglang {} ({})", *version, f.text("source").value_or("")), "", "",
              "not in the release table: no bound", 1);
    }
  }
}

}  // namespace

VersionInference infer_sglang_version(const std::vector<Fact>& facts) {
  VersionInference out;
  Evidence ev(out.evidence);
  if (const Fact* args = first_of(facts, "server_args"))
    server_args_evidence(*args, ev);
  if (const Fact* f = first_of(facts, "load_weight_end"))
    load_weight_evidence(*f, ev);
  if (const Fact* f = first_of(facts, "kv_cache_allocated"))
    kv_evidence(*f, ev);
  capture_evidence(facts, ev);
  capacity_evidence(facts, ev);
  other_line_evidence(facts, ev);
  printed_evidence(facts, ev, out);

  out.resolve_range();
  return out;
}

}  // namespace servescope::sglang
