#include "engines/sglang/sglang_log_grammar.h"

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "core/text.h"
#include "engines/log_text.h"
#include "engines/python_repr.h"
#include "engines/sglang/sglang_log_summary.h"
#include "engines/sglang/sglang_version_inference.h"

namespace servescope::sglang {

namespace {

using log_text::after;
using log_text::has;
using log_text::has_icase;
using log_text::is_digit;
using log_text::starts_with;

bool is_upper(char c) {
  return c >= 'A' && c <= 'Z';
}
std::string_view skip_punct(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '.' || s.front() == ',' ||
                        s.front() == ':' || s.front() == ';'))
    s.remove_prefix(1);
  return s;
}

// "[2025-03-08 12:29:21.123 DP0 TP3] " at `pos`: the timestamp, the rank tags and where the
// message starts.
struct Prefix {
  std::string_view timestamp;
  std::size_t message = 0;
};

bool digits_at(std::string_view s, std::size_t pos, std::size_t n) {
  if (pos + n > s.size())
    return false;
  for (std::size_t i = 0; i < n; ++i) {
    if (!is_digit(s[pos + i]))
      return false;
  }
  return true;
}

bool parse_prefix_at(std::string_view s, std::size_t pos, Prefix& p, RankTags& rank) {
  // [YYYY-MM-DD HH:MM:SS
  std::size_t i = pos + 1;
  if (!digits_at(s, i, 4) || i + 19 > s.size() || s[i + 4] != '-' || !digits_at(s, i + 5, 2) ||
      s[i + 7] != '-' || !digits_at(s, i + 8, 2) || (s[i + 10] != ' ' && s[i + 10] != 'T') ||
      !digits_at(s, i + 11, 2) || s[i + 13] != ':' || !digits_at(s, i + 14, 2) ||
      s[i + 16] != ':' || !digits_at(s, i + 17, 2))
    return false;
  std::size_t j = i + 19;
  if (j < s.size() && (s[j] == '.' || s[j] == ',')) {
    ++j;
    while (j < s.size() && is_digit(s[j]))
      ++j;
  }
  const std::size_t time_end = j;
  rank.tp = rank.dp = rank.pp = rank.ep = -1;
  std::size_t tags_begin = j;
  while (j < s.size() && s[j] == ' ') {
    std::size_t k = j + 1;
    const std::size_t name_begin = k;
    while (k < s.size() && (is_upper(s[k]) || s[k] == '_'))
      ++k;
    const std::size_t name_end = k;
    if (name_end == name_begin || k >= s.size() || !is_digit(s[k]))
      break;
    int index = 0;
    while (k < s.size() && is_digit(s[k])) {
      if (index < 1000000)
        index = index * 10 + (s[k] - '0');
      ++k;
    }
    const std::string_view name = s.substr(name_begin, name_end - name_begin);
    if (name == "TP")
      rank.tp = index;
    else if (name == "DP")
      rank.dp = index;
    else if (name == "PP")
      rank.pp = index;
    else if (name == "EP")
      rank.ep = index;
    j = k;
  }
  if (j >= s.size() || s[j] != ']')
    return false;
  if (tags_begin < j)
    rank.label.assign(s.substr(tags_begin + 1, j - tags_begin - 1));
  else
    rank.label.clear();
  p.timestamp = s.substr(i, time_end - i);
  p.message = j + 1;
  if (p.message < s.size() && s[p.message] == ' ')
    ++p.message;
  return true;
}

bool find_prefix(std::string_view s, Prefix& p, RankTags& rank) {
  for (std::size_t pos = s.find('['); pos != std::string_view::npos; pos = s.find('[', pos + 1)) {
    if (parse_prefix_at(s, pos, p, rank))
      return true;
  }
  return false;
}

// "WARNING server_args.py:1543: msg", "INFO msg", "WARNING:sglang.srt.server_args:msg".
struct Level {
  std::string_view level;
  std::string_view source;
  std::string_view message;
};

Level strip_level(std::string_view m) {
  if (m.empty() || (m[0] != 'D' && m[0] != 'I' && m[0] != 'W' && m[0] != 'E' && m[0] != 'C'))
    return {{}, {}, m};
  static constexpr std::array<std::string_view, 6> kLevels = {"DEBUG", "INFO",     "WARNING",
                                                              "ERROR", "CRITICAL", "WARN"};
  for (std::string_view lv : kLevels) {
    if (!starts_with(m, lv) || m.size() <= lv.size())
      continue;
    const char sep = m[lv.size()];
    std::string_view rest = m.substr(lv.size() + 1);
    if (sep == ' ') {
      // Optional "file.py:NNN: ".
      const std::size_t colon = rest.find(": ");
      if (colon != std::string_view::npos && colon < 64) {
        const std::string_view src = rest.substr(0, colon);
        const std::size_t py = src.find(".py:");
        if (py != std::string_view::npos && src.find(' ') == std::string_view::npos)
          return {lv, src.substr(0, py + 3), rest.substr(colon + 2)};
      }
      return {lv, {}, rest};
    }
    if (sep == ':' && !rest.empty() && rest.front() != ' ') {
      const std::size_t colon = rest.find(':');
      if (colon != std::string_view::npos &&
          rest.substr(0, colon).find(' ') == std::string_view::npos)
        return {lv, rest.substr(0, colon), rest.substr(colon + 1)};
    }
  }
  return {{}, {}, m};
}

bool is_progress_bar(std::string_view s) {
  return has(s, "%|") || has(s, "it/s]") || has(s, "s/it]") ||
         starts_with(s, "Loading safetensors checkpoint shards") ||
         starts_with(s, "Loading pt checkpoint shards");
}

// Uvicorn's own lines (`INFO:     Started server process [1]`) and HTTP access lines
// (`INFO:     127.0.0.1:5 - "GET /health HTTP/1.1" 200 OK`).
bool is_http_server_line(std::string_view s) {
  return starts_with(s, "INFO:  ") || starts_with(s, "WARNING:  ") || starts_with(s, "ERROR:  ") ||
         has(s, "\" 200") || (has(s, " HTTP/1.") && has(s, " - \""));
}

// A glog line of a C++ library SGLang loads (Mooncake's transfer engine, NIXL):
// "I0227 14:34:02.054051 3828982 transfer_engine_impl.cpp:571] ...". Its words are that
// library's, not SGLang's ("Metrics reporting is disabled" adjusts no SGLang setting).
bool is_glog_line(std::string_view s) {
  if (s.size() < 24 || (s[0] != 'I' && s[0] != 'W' && s[0] != 'E' && s[0] != 'F'))
    return false;
  for (std::size_t i : {1u, 2u, 3u, 4u, 6u, 7u, 9u, 10u, 12u, 13u})
    if (!is_digit(s[i]))
      return false;
  return s[5] == ' ' && s[8] == ':' && s[11] == ':' && s[14] == '.' && has(s, "] ");
}

// DeepGEMM's JIT warm-up (deep_gemm_wrapper): its own memory check, no SGLang pool.
bool is_deep_gemm_warmup(std::string_view s) {
  return starts_with(s, "Required memory for warmup:");
}

constexpr std::size_t kMaxCommandBytes = 64 * 1024;

}  // namespace

struct SglangLogGrammar::Patterns {
  RE2 capture{R"(^Capture (.*?) ?(cuda|CUDA) graph (begin|end)\b\.?\s*(.*)$)"};
  RE2 exception{R"(^((?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception))(?::\s?(.*))?$)"};
  RE2 launch{
      // "command=python3 -m sglang.launch_server …" is how SGLang's test harness prints it.
      R"((?:^|[\s$#>:;|&(=])((?:\S*/)?python[\d.]*\s+-m\s+(sglang\.[\w.]+)|sglang\s+(serve))(?:\s|$))"};
  RE2 version{
      R"((?i)\bsglang(?:\[[\w,]+\])?(?:==|\s*:\s*v?|\s+version\s*:?\s*v?|\s+v?)(\d+\.\d+\.\d+(?:\.?(?:post|dev|rc|a|b)\d+)*(?:\+[\w.]+)?))"};
  RE2 image{R"((?i)((?:[\w.-]+/)*(?:sglang[\w-]*|sgl-dev)):([\w.-]+))"};
  RE2 tag_version{R"(^v?(\d+\.\d+\.\d+(?:\.?(?:post|dev|rc)\d+)*))"};
  RE2 tag_date{R"((?:^|[-_])(20\d\d)(\d\d)(\d\d)(?:$|[-_]))"};
  RE2 dev_date{R"(\.dev(20\d\d)(\d\d)(\d\d))"};
  RE2 gpu_check_env{R"(^GPU ([\d,]+): (.+?)\s*$)"};
  RE2 gpu_smi{R"(^\|\s+(\d+)\s+((?:NVIDIA|Tesla|Quadro|AMD|GeForce)\b.*?)\s+(?:On|Off)\s+\|)"};
  RE2 gpu_plain{R"(^GPU(?: name| model| type)?\s*:\s+(.+?)\s*$)"};
  RE2 number_after_to{R"(\bto (\d+)\b)"};
  // tqdm's bar over the decode batch sizes: "Capturing batches (bs=1 avail_mem=2.39 GB): 100%|█|
  // 4/4 [00:00<00:00, 7.80it/s]" (model_executor/cuda_graph_runner.py::capture).
  RE2 capture_progress{R"(^Capturing batches \([^)]*\):\s*\d+%\|[^|]*\|\s*(\d+)/(\d+))"};
  RE2 reduced{R"(reduced from the requested (\d+) to (\d+))"};
  RE2 input_too_long{
      R"(Input length \((\d+) tokens\) exceeds the maximum allowed length \((\d+) tokens\))"};
  RE2 adjusted{
      R"((?i)\b(?:is|are|was|were|been|be) (?:adjusted|reset|set|changed|capped|reduced|limited|lowered|increased|decreased|overridden|forced|disabled|enabled)\b|\bsetting [\w .-]{1,40} to\b|\bset [\w-]+ to\b|\b(?:disabling|enabling|overriding) )"};
  // A line that mentions a capacity quantity; unmatched, it is counted separately.
  RE2 capacity{
      R"((?i)max_total_num_tokens|max_running_requests|max_prefill_tokens|max_num_reqs|max_mamba_cache_size|#tokens|kv ?cache|kv size|mamba cache|memory pool|mem usage|avail(?:able)?[ _]mem|cuda ?graph|token usage|#running-req|context_len|chunked[ _]prefill|mem_fraction_static|out of memory)"};
};

SglangLogGrammar::SglangLogGrammar()
    : re_([]() -> const Patterns& {
        static const Patterns kPatterns;
        return kPatterns;
      }()) {}

SglangLogGrammar::~SglangLogGrammar() = default;

void SglangLogGrammar::begin(std::string_view kind) {
  builder_.begin(kind, number_);
  fact_.timestamp.assign(timestamp_);
  fact_.rank.tp = rank_.tp;
  fact_.rank.dp = rank_.dp;
  fact_.rank.pp = rank_.pp;
  fact_.rank.ep = rank_.ep;
  fact_.rank.label.assign(rank_.label);
}

void SglangLogGrammar::emit(FactSink& out) {
  builder_.finish();
  if (fact_.raw.empty())
    fact_.raw.assign(line_);
  out.on_fact(fact_);
}

LineKind SglangLogGrammar::emit_fields(std::string_view kind, std::string_view rest,
                                       FactSink& out) {
  begin(kind);
  scanner_.scan(rest, builder_);
  emit(out);
  return LineKind::kFact;
}

LineKind SglangLogGrammar::feed(std::string_view line, std::uint64_t number, FactSink& out) {
  number_ = number;
  line_ = line;
  Prefix p;
  if (find_prefix(line, p, rank_)) {
    if (!pending_command_.empty())
      flush_command(out);
    timestamp_ = p.timestamp;
    return dispatch(line.substr(p.message), out);
  }
  timestamp_ = {};
  rank_.tp = rank_.dp = rank_.pp = rank_.ep = -1;
  rank_.label.clear();
  return unprefixed(line, out);
}

void SglangLogGrammar::finish(FactSink& out) {
  if (!pending_command_.empty())
    flush_command(out);
}

void SglangLogGrammar::flush_command(FactSink& out) {
  const std::uint64_t saved_number = number_;
  const std::string_view saved_line = line_;
  number_ = pending_command_line_;
  std::string program;
  re2::StringPiece sglang_module;
  re2::StringPiece serve;
  if (!RE2::PartialMatch(pending_command_, re_.launch, nullptr, &sglang_module, &serve)) {
    // A `docker run` over several lines that runs something else.
    pending_command_.clear();
    pending_command_raw_.clear();
    number_ = saved_number;
    line_ = saved_line;
    return;
  }
  program = serve.empty() ? std::string(sglang_module) : "sglang serve";
  // An image tag on a continuation line names the version too.
  if (const auto nl = pending_command_raw_.find('\n'); nl != std::string::npos)
    versions_and_gpus(std::string_view(pending_command_raw_).substr(nl + 1), out);
  begin("launch_command");
  builder_.add("command", Value(pending_command_));
  builder_.add("program", Value(program));
  fact_.raw = pending_command_raw_;
  emit(out);
  pending_command_.clear();
  pending_command_raw_.clear();
  number_ = saved_number;
  line_ = saved_line;
}

LineKind SglangLogGrammar::unprefixed(std::string_view line, FactSink& out) {
  std::string_view t = trim(line);
  if (!pending_command_.empty()) {
    // A launch command continued with a trailing backslash.
    std::string_view part = t;
    const bool more = !part.empty() && part.back() == '\\';
    if (more)
      part.remove_suffix(1);
    part = trim(part);
    if (!part.empty()) {
      pending_command_ += ' ';
      pending_command_ += part;
    }
    pending_command_raw_ += '\n';
    pending_command_raw_ += line;
    // A command is a few lines; a text of endless backslashes is not one.
    if (!more || pending_command_raw_.size() > kMaxCommandBytes)
      flush_command(out);
    return LineKind::kKnown;
  }
  if (t.empty())
    return LineKind::kKnown;
  if (in_traceback_ && (line.front() == ' ' || line.front() == '\t'))
    return LineKind::kKnown;  // the frames and source lines of a traceback
  if (is_glog_line(t))
    return LineKind::kKnown;
  if (t.back() == '\\' && (has(t, "docker run") || has(t, "podman run")) &&
      !RE2::PartialMatch(t, re_.launch)) {
    // A container command whose image and program follow on the continuation lines.
    pending_command_.assign(trim(t.substr(0, t.size() - 1)));
    pending_command_raw_.assign(line);
    pending_command_line_ = number_;
    return LineKind::kKnown;
  }
  if (has(t, "sglang")) {
    re2::StringPiece whole;
    if (RE2::PartialMatch(t, re_.launch, &whole)) {
      // The command starts at the program; environment assignments just before it belong
      // to it ("CUDA_VISIBLE_DEVICES=0 python -m ...").
      std::size_t start = static_cast<std::size_t>(whole.data() - t.data());
      while (start > 0) {
        std::size_t e = start;
        while (e > 0 && t[e - 1] == ' ')
          --e;
        std::size_t b = e;
        while (b > 0 && t[b - 1] != ' ')
          --b;
        const std::string_view word = t.substr(b, e - b);
        const std::size_t eq = word.find('=');
        if (eq == std::string_view::npos || eq == 0 || !is_upper(word.front()))
          break;
        start = b;
      }
      std::string_view cmd = trim(t.substr(start));
      const bool more = !cmd.empty() && cmd.back() == '\\';
      if (more)
        cmd = trim(cmd.substr(0, cmd.size() - 1));
      versions_and_gpus(t, out);  // a docker image tag on the same line
      pending_command_.assign(cmd);
      pending_command_raw_.assign(line);
      pending_command_line_ = number_;
      if (!more)
        flush_command(out);
      return LineKind::kFact;
    }
  }
  return dispatch(t, out);
}

LineKind SglangLogGrammar::dispatch(std::string_view message, FactSink& out) {
  // The periodic lines first: they are nearly all of a long log.
  if (!message.empty() && message[0] == 'D' && starts_with(message, "Decode batch"))
    return batch("decode_batch", after(message, "Decode batch"), out);
  if (!message.empty() && message[0] == 'P' && starts_with(message, "Prefill batch"))
    return batch("prefill_batch", after(message, "Prefill batch"), out);
  const Level lv = strip_level(message);
  std::string_view m = lv.message;
  while (!m.empty() && m.front() == ' ')
    m.remove_prefix(1);
  if (m.empty())
    return LineKind::kKnown;

  if (m[0] == 'D' && starts_with(m, "Decode batch"))
    return batch("decode_batch", after(m, "Decode batch"), out);
  if (m[0] == 'P' && starts_with(m, "Prefill batch"))
    return batch("prefill_batch", after(m, "Prefill batch"), out);

  if (has(m, "device_name=")) {
    if (std::string gpu = log_text::gpu_of_kernel_config(m); !gpu.empty()) {
      begin("gpu");
      builder_.add("name", Value(std::move(gpu)));
      builder_.add("source", Value("kernel config path"));
      emit(out);
      return LineKind::kFact;
    }
  }
  if (starts_with(m, "server_args=") || starts_with(m, "ServerArgs(")) {
    begin("server_args");
    PythonCall call = parse_python_call(m);
    for (Field& f : call.fields)
      builder_.add(f.name, std::move(f.value));
    fact_.partial = call.elided || !call.complete || call.malformed;
    emit(out);
    return LineKind::kFact;
  }
  if (starts_with(m, "Load weight begin"))
    return emit_fields("load_weight_begin", after(m, "Load weight begin"), out);
  if (starts_with(m, "Load weight end")) {
    begin("load_weight_end");
    scanner_.scan(after(m, "Load weight end"), builder_);
    // Every form prints type=; without it the line was cut and absences prove nothing.
    fact_.partial = !builder_.has("type");
    emit(out);
    return LineKind::kFact;
  }
  if (starts_with(m, "KV Cache is allocated")) {
    begin("kv_cache_allocated");
    scanner_.scan(after(m, "KV Cache is allocated"), builder_);
    fact_.partial = !builder_.has("k_size_gb") && !builder_.has("kv_size_gb");
    emit(out);
    return LineKind::kFact;
  }
  // From 0.5.17 (#33375, #33598; memory_pool.py::_finalize_allocation_log): a labelled pool
  // ("Draft KV Cache is allocated", a HiCache host pool) and, with post-capture sizing, the
  // virtual upper bound before the real size is known.
  if (const auto at = m.find(" KV Cache is allocated");
      at != std::string_view::npos && at > 0 && at <= 40 &&
      std::all_of(m.begin(), m.begin() + static_cast<std::ptrdiff_t>(at), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == ' ' || c == '_' || c == '-';
      })) {
    begin("kv_cache_allocated");
    builder_.add("label", Value(std::string(m.substr(0, at))));
    scanner_.scan(after(m, "KV Cache is allocated"), builder_);
    fact_.partial = !builder_.has("k_size_gb") && !builder_.has("kv_size_gb");
    emit(out);
    return LineKind::kFact;
  }
  if (starts_with(m, "KV Cache VA upper bound"))
    return emit_fields("kv_cache_va_upper_bound", after(m, "KV Cache VA upper bound"), out);
  if (starts_with(m, "Mamba Cache is allocated"))
    return emit_fields("mamba_cache_allocated", after(m, "Mamba Cache is allocated"), out);
  if (starts_with(m, "Memory pool end"))
    return emit_fields("memory_pool_end", after(m, "Memory pool end"), out);
  if (starts_with(m, "max_total_num_tokens="))
    return emit_fields("capacity", m, out);
  if (starts_with(m, "Use sliding window memory pool")) {
    begin("swa_pool");
    std::string_view rest = after(m, "Use sliding window memory pool");
    builder_.add("all_swa", Value(has(rest, "(all SWA)")));
    scanner_.scan(rest, builder_);
    emit(out);
    return LineKind::kFact;
  }
  if (starts_with(m, "Capture "))
    return capture(m, out);
  if (starts_with(m, "Init torch distributed begin")) {
    begin("init_torch_distributed_begin");
    emit(out);
    return LineKind::kFact;
  }
  if (starts_with(m, "Init torch distributed end")) {
    std::string_view rest = after(m, "Init torch distributed end");
    if (!rest.empty() && rest.front() == 's')
      rest.remove_prefix(1);
    return emit_fields("init_torch_distributed_end", rest, out);
  }
  if (starts_with(m, "Using KV cache dtype")) {
    begin("kv_cache_dtype");
    builder_.add("dtype", Value(std::string(trim(skip_punct(after(m, "Using KV cache dtype"))))));
    emit(out);
    return LineKind::kFact;
  }
  if (starts_with(m, "Max running request")) {
    // "Max running requests is reset to 48 for speculative decoding[. You can override ...]"
    // (2025-10-19) and "Max running request set to 32 because of using eagle ..." (2025-03-05).
    int n = 0;
    RE2::PartialMatch(m, re_.number_after_to, &n);
    const bool reset = has(m, "reset to");
    begin(reset ? "warning_reset_48" : "warning_set_32");
    builder_.add("max_running_requests", Value(n));
    if (reset)
      builder_.add("override_hint", Value(has(m, "override")));
    emit(out);
    return LineKind::kFact;
  }
  if (starts_with(m, "max_running_requests was reduced")) {
    int requested = 0;
    int reduced = 0;
    begin("warning_reduced_from_requested");
    if (RE2::PartialMatch(m, re_.reduced, &requested, &reduced)) {
      builder_.add("requested", Value(requested));
      builder_.add("max_running_requests", Value(reduced));
    } else {
      fact_.partial = true;
    }
    emit(out);
    return LineKind::kFact;
  }
  if (starts_with(m, "max_running_requests is capped")) {
    int n = 0;
    begin("warning_mamba_cap");
    if (RE2::PartialMatch(m, re_.number_after_to, &n))
      builder_.add("max_running_requests", Value(n));
    else
      fact_.partial = true;
    emit(out);
    return LineKind::kFact;
  }
  if (starts_with(m, "Post-capture KV sizing")) {
    std::string_view rest = skip_punct(after(m, "Post-capture KV sizing"));
    begin("post_capture_kv_resize");
    if (starts_with(rest, "max_running_requests ")) {
      // "max_running_requests %d -> %d"
      int from = 0;
      int to = 0;
      static const RE2 kArrow(R"(max_running_requests (\d+) -> (\d+))");
      if (RE2::PartialMatch(rest, kArrow, &from, &to)) {
        builder_.add("max_running_requests_from", Value(from));
        builder_.add("max_running_requests", Value(to));
      }
    } else {
      scanner_.scan(rest, builder_);
    }
    emit(out);
    return LineKind::kFact;
  }
  if (starts_with(m, "The server is fired up")) {
    server_ready_ = true;
    begin("server_ready");
    emit(out);
    return LineKind::kFact;
  }
  if (has(m, "FlashInfer AllReduce Fusion") || has(m, "FlashInfer workspace")) {
    begin("allreduce_fusion");
    builder_.add("status", Value(starts_with(m, "Failed")          ? "failed"
                                 : starts_with(m, "Auto-enabling") ? "auto-enabled"
                                                                   : "enabled"));
    const std::size_t colon = m.find(": ");
    if (colon != std::string_view::npos)
      scanner_.scan(m.substr(colon + 2), builder_);
    emit(out);
    return LineKind::kFact;
  }
  if (starts_with(m, "DSv4 memory calculation") || starts_with(m, "Initialize ") ||
      (m[0] == '[' && has(m, "ReqToTokenPool] Init"))) {
    // Model-specific pool sizing: "Initialize DeepSeekV4TokenToKVPool with k=v ...".
    std::string_view body = m;
    std::string_view pool;
    if (const std::size_t with = m.find(" with ");
        starts_with(m, "Initialize ") && with != std::string_view::npos) {
      pool = m.substr(11, with - 11);
      body = m.substr(with + 6);
    } else if (const std::size_t colon = m.find(": "); colon != std::string_view::npos) {
      pool = m.substr(0, colon);
      body = m.substr(colon + 2);
    }
    if (const std::size_t close = pool.find(']');
        !pool.empty() && pool[0] == '[' && close != std::string_view::npos)
      pool = pool.substr(1, close - 1);  // "[MiniCPMHybridReqToTokenPool] Init"
    if (!pool.empty() && (has(pool, "Pool") || has(pool, "memory"))) {
      begin("kv_pool_detail");
      builder_.add("pool", Value(std::string(trim(pool))));
      scanner_.scan(body, builder_);
      emit(out);
      return LineKind::kFact;
    }
  }
  if (starts_with(m, "Scheduler hit an exception") ||
      starts_with(m, "Received sigquit from a child process") ||
      starts_with(m, "Child process unexpectedly failed")) {
    begin(server_ready_ ? "runtime_error" : "startup_failure");
    builder_.add("error", Value(""));
    builder_.add("message", Value(std::string(m)));
    builder_.add("oom", Value(has_icase(m, "out of memory")));
    if (has(m, "Traceback (most recent call last)"))
      in_traceback_ = true;
    emit(out);
    return LineKind::kFact;
  }
  if (const std::size_t pos = m.find("Input length ("); pos != std::string_view::npos) {
    int input = 0;
    int limit = 0;
    if (RE2::PartialMatch(m.substr(pos), re_.input_too_long, &input, &limit)) {
      begin("input_too_long");
      builder_.add("input_tokens", Value(input));
      builder_.add("max_tokens", Value(limit));
      emit(out);
      return LineKind::kFact;
    }
  }

  // Lines of other kinds, checked only once the fast paths missed.
  if (LineKind k = exception_line(m, out); k != LineKind::kUnknown)
    return k;
  if (LineKind k = versions_and_gpus(m, out); k != LineKind::kUnknown)
    return k;
  if (LineKind k = capture_progress(m, out); k != LineKind::kUnknown)
    return k;
  if (is_progress_bar(m) || is_http_server_line(message) || is_deep_gemm_warmup(m))
    return LineKind::kKnown;
  if (!lv.source.empty() && has(lv.source, "server_args")) {
    begin("server_args_note");
    builder_.add("level", Value(std::string(lv.level)));
    builder_.add("text", Value(std::string(m)));
    emit(out);
    return LineKind::kFact;
  }
  if (RE2::PartialMatch(m, re_.adjusted)) {
    begin("setting_adjusted");
    builder_.add("text", Value(std::string(m)));
    emit(out);
    return LineKind::kFact;
  }
  if (!RE2::PartialMatch(m, re_.capacity))
    return LineKind::kUnknown;
  // A known line behind an unknown prefix ("sglang-1  | KV Cache is allocated ..."):
  // read it from its phrase.
  static constexpr std::array<std::string_view, 9> kAnchors = {
      "KV Cache is allocated", "Load weight ", "max_total_num_tokens=", "Mamba Cache is allocated",
      "Memory pool end",       "Capture ",     "Decode batch",          "Prefill batch",
      "server_args="};
  for (std::string_view anchor : kAnchors) {
    const std::size_t pos = m.find(anchor);
    if (pos != std::string_view::npos && pos > 0) {
      const LineKind k = dispatch(m.substr(pos), out);
      if (k == LineKind::kFact)
        return k;
    }
  }
  return LineKind::kUnknownCapacity;
}

LineKind SglangLogGrammar::batch(std::string_view kind, std::string_view rest, FactSink& out) {
  begin(kind);
  // "Decode batch [123], ..." when SGLANG_LOG_FORWARD_ITERS is set.
  if (rest.size() > 2 && rest[0] == ' ' && rest[1] == '[') {
    std::size_t j = 2;
    std::int64_t iter = 0;
    while (j < rest.size() && is_digit(rest[j]))
      iter = iter * 10 + (rest[j++] - '0');
    if (j < rest.size() && rest[j] == ']' && j > 2) {
      builder_.add("iter", Value(iter));
      rest.remove_prefix(j + 1);
    }
  }
  // The 2024-2025 "Prefill batch(mixed #running-req: 3). ..." form.
  if (!rest.empty() && rest[0] == '(') {
    const std::size_t close = rest.find(')');
    if (close != std::string_view::npos) {
      std::string_view inside = rest.substr(1, close - 1);
      if (starts_with(inside, "mixed "))
        inside.remove_prefix(6);
      Value v;
      if (starts_with(inside, "#running-req: ") &&
          parse_log_number(trim(after(inside, "#running-req: ")), v))
        builder_.add("mixed_running_req", std::move(v));
      rest.remove_prefix(close + 1);
    }
  }
  scanner_.scan_list(skip_punct(rest), builder_);
  emit(out);
  return LineKind::kFact;
}

LineKind SglangLogGrammar::capture(std::string_view m, FactSink& out) {
  if (starts_with(m, "Capture cuda graph bs")) {
    std::string_view rest = skip_punct(after(m, "Capture cuda graph bs"));
    begin("cuda_graph_bs");
    builder_.add("graph", Value("decode"));
    builder_.add("form", Value("legacy"));
    Value bs = parse_python_literal(rest);
    if (!bs.is_list())
      fact_.partial = true;
    builder_.add("bs", std::move(bs));
    emit(out);
    return LineKind::kFact;
  }
  re2::StringPiece graph;
  re2::StringPiece cuda;
  re2::StringPiece phase;
  re2::StringPiece rest;
  if (!RE2::FullMatch(m, re_.capture, &graph, &cuda, &phase, &rest)) {
    if (has(m, "failed") || has(m, "Failed")) {
      begin(server_ready_ ? "runtime_error" : "startup_failure");
      builder_.add("error", Value(""));
      builder_.add("message", Value(std::string(m)));
      builder_.add("oom", Value(has_icase(m, "out of memory")));
      emit(out);
      return LineKind::kFact;
    }
    return RE2::PartialMatch(m, re_.capacity) ? LineKind::kUnknownCapacity : LineKind::kUnknown;
  }
  const std::string graph_name = graph.empty() ? std::string("decode") : std::string(graph);
  begin(phase == "begin" ? "cuda_graph_capture_begin" : "cuda_graph_capture_end");
  builder_.add("graph", Value(graph_name));
  builder_.add("form", Value(cuda == "CUDA" ? "named" : "legacy"));
  scanner_.scan(std::string_view(rest.data(), rest.size()), builder_);
  emit(out);
  // The decode (or verify) graph of the target model lists its batch sizes on the begin line
  // since 2026-06-22 (#28937); report them as the capture list too.
  if (phase == "begin" &&
      (graph_name == "decode" || graph_name == "target decode" || graph_name == "target verify")) {
    if (const IntList* bs = fact_.int_list("bs")) {
      IntList copy = *bs;
      begin("cuda_graph_bs");
      builder_.add("graph", Value(graph_name));
      builder_.add("form", Value("named"));
      builder_.add("bs", Value(std::move(copy)));
      emit(out);
    }
  }
  return LineKind::kFact;
}

LineKind SglangLogGrammar::exception_line(std::string_view m, FactSink& out) {
  if (has(m, "Traceback (most recent call last)")) {
    in_traceback_ = true;
    return LineKind::kKnown;
  }
  if (in_traceback_ && (starts_with(m, "File \"") || m.front() == '^' || m.front() == '~'))
    return LineKind::kKnown;
  re2::StringPiece error;
  re2::StringPiece message;
  const bool oom = has_icase(m, "out of memory");
  if (RE2::FullMatch(m, re_.exception, &error, &message) || oom) {
    in_traceback_ = false;
    begin(server_ready_ ? "runtime_error" : "startup_failure");
    builder_.add("error", Value(std::string(error)));
    builder_.add("message", Value(std::string(error.empty() ? m : std::string_view(message))));
    builder_.add("oom", Value(oom));
    emit(out);
    return LineKind::kFact;
  }
  return LineKind::kUnknown;
}

LineKind SglangLogGrammar::capture_progress(std::string_view m, FactSink& out) {
  if (!starts_with(m, "Capturing batches"))
    return LineKind::kUnknown;
  std::string done, total;
  if (!RE2::PartialMatch(m, re_.capture_progress, &done, &total))
    return LineKind::kKnown;
  begin("decode_graph_capture");
  builder_.add("captured", Value(static_cast<std::int64_t>(std::stoll(done))));
  builder_.add("total", Value(static_cast<std::int64_t>(std::stoll(total))));
  emit(out);
  return LineKind::kFact;
}

LineKind SglangLogGrammar::versions_and_gpus(std::string_view m, FactSink& out) {
  LineKind kind = LineKind::kUnknown;
  if (pip_show_sglang_) {
    pip_show_sglang_ = false;
    if (starts_with(m, "Version: ")) {
      begin("engine_version");
      builder_.add("version", Value(std::string(trim(after(m, "Version: ")))));
      builder_.add("source", Value("pip show"));
      emit(out);
      return LineKind::kFact;
    }
  }
  if (m == "Name: sglang") {
    pip_show_sglang_ = true;
    return LineKind::kKnown;
  }
  if (has_icase(m, "sgl")) {
    re2::StringPiece image;
    re2::StringPiece tag;
    re2::StringPiece version;
    if (RE2::PartialMatch(m, re_.image, &image, &tag)) {
      begin("engine_version");
      if (RE2::PartialMatch(tag, re_.tag_version, &version))
        builder_.add("version", Value(std::string(version)));
      builder_.add("source", Value("image tag"));
      builder_.add("image", Value(std::string(image) + ":" + std::string(tag)));
      std::string y, mo, d;
      if (RE2::PartialMatch(tag, re_.tag_date, &y, &mo, &d))
        builder_.add("image_date", Value(y + "-" + mo + "-" + d));
      emit(out);
      kind = LineKind::kFact;
    } else if (RE2::PartialMatch(m, re_.version, &version)) {
      begin("engine_version");
      builder_.add("version", Value(std::string(version)));
      builder_.add("source", Value("text"));
      std::string y, mo, d;
      if (RE2::PartialMatch(version, re_.dev_date, &y, &mo, &d))
        builder_.add("build_date", Value(y + "-" + mo + "-" + d));
      emit(out);
      kind = LineKind::kFact;
    }
  }
  if (starts_with(m, "GPU") || starts_with(m, "|")) {
    std::string ids;
    std::string name;
    int index = 0;
    if (RE2::FullMatch(m, re_.gpu_check_env, &ids, &name)) {
      IntList list;
      for (std::string_view part : split(ids, ',')) {
        if (auto v = parse_int(part))
          list.push_back(*v);
      }
      begin("gpu");
      builder_.add("name", Value(name));
      builder_.add("gpu_ids", Value(std::move(list)));
      emit(out);
      return LineKind::kFact;
    }
    if (RE2::PartialMatch(m, re_.gpu_smi, &index, &name)) {
      begin("gpu");
      builder_.add("name", Value(name));
      builder_.add("index", Value(index));
      emit(out);
      return LineKind::kFact;
    }
    if (RE2::FullMatch(m, re_.gpu_plain, &name)) {
      begin("gpu");
      builder_.add("name", Value(name));
      emit(out);
      return LineKind::kFact;
    }
  }
  return kind;
}

bool SglangLogGrammar::identifies_engine(const Fact& fact) const {
  // Mentions of SGLang (a launch command, a version) and lines any program prints do not make
  // a text an SGLang log: a README quotes commands too.
  static constexpr std::array<std::string_view, 8> kGeneric = {"gpu",
                                                               "startup_failure",
                                                               "runtime_error",
                                                               "setting_adjusted",
                                                               "input_too_long",
                                                               "server_args_note",
                                                               "launch_command",
                                                               "engine_version"};
  for (std::string_view k : kGeneric) {
    if (fact.kind == k)
      return false;
  }
  return true;
}

VersionInference SglangLogGrammar::infer_version(const std::vector<Fact>& facts) const {
  return infer_sglang_version(facts);
}

LogSummary SglangLogGrammar::summarize(const std::vector<Fact>& facts) const {
  return summarize_sglang_log(facts);
}

}  // namespace servescope::sglang
