#include "engines/vllm/vllm_log_grammar.h"

#include <re2/re2.h>

#include <array>

#include "core/text.h"
#include "engines/engine.h"
#include "engines/launch_command.h"
#include "engines/log_text.h"
#include "engines/python_repr.h"
#include "engines/vllm/vllm_command.h"
#include "engines/vllm/vllm_log_summary.h"
#include "engines/vllm/vllm_version_inference.h"
#include "intake/launch_input.h"
#include "intake/shell_words.h"

namespace servescope::vllm {

namespace {

using log_text::after;
using log_text::ends_with;
using log_text::has;
using log_text::has_icase;
using log_text::is_digit;
using log_text::Nesting;
using log_text::starts_with;

// A held line shorter than this is not a terminal's wrap.
constexpr std::size_t kMinWrapWidth = 96;
constexpr std::string_view kCollectorCut = "[line truncated by collector]";

// "93,872" → 93872; "5.73" → 5.73; nullopt for anything else.
std::optional<Value> number(std::string_view t) {
  t = trim(t);
  std::string plain;
  plain.reserve(t.size());
  for (char c : t) {
    if (c != ',')
      plain += c;
  }
  Value v;
  if (plain.empty() || !parse_log_number(plain, v))
    return std::nullopt;
  return v;
}

Value as_double(const Value& v) {
  return v.is_int() ? Value(static_cast<double>(v.as_int())) : v;
}

// A captured group as a number field (nothing when it is not a number).
void add_number(FactBuilder& b, std::string_view name, std::string_view text, bool real = false) {
  if (auto v = number(text))
    b.add(name, real ? as_double(*v) : *v);
}

// "k=v, k=v" or "k=v k=v" pairs with values like "78.68GiB": numbers get the unit in the name.
void scan_pairs(std::string_view text, FactBuilder& b) {
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ',' || text[i] == ';'))
      ++i;
    const std::size_t key_begin = i;
    while (i < text.size() && text[i] != '=' && text[i] != ' ' && text[i] != ',')
      ++i;
    if (i >= text.size() || text[i] != '=') {
      while (i < text.size() && text[i] != ' ' && text[i] != ',')
        ++i;
      continue;
    }
    const std::string_view key = text.substr(key_begin, i - key_begin);
    ++i;
    const std::size_t value_begin = i;
    while (i < text.size() && text[i] != ' ' && text[i] != ',' && text[i] != ';')
      ++i;
    std::string_view value = text.substr(value_begin, i - value_begin);
    if (!value.empty() && value.back() == '.')
      value.remove_suffix(1);
    std::string name(key);
    if (ends_with(value, "GiB")) {
      value.remove_suffix(3);
      name += "_gib";
    } else if (ends_with(value, "GB")) {
      value.remove_suffix(2);
      name += "_gib";  // vLLM computes "GB" with 2^30 too
    } else if (ends_with(value, "s") && !value.empty() && is_digit(value.front())) {
      value.remove_suffix(1);
      name += "_s";
    }
    if (auto v = number(value))
      b.add(name, name.size() > 4 && ends_with(name, "_gib") ? as_double(*v) : *v);
    else if (!value.empty())
      b.add(name, Value(std::string(value)));
  }
}

// Splits a config dump "k=v, k=v(...), k={...}" at its top-level commas.
std::vector<std::string_view> top_level_items(std::string_view s) {
  std::vector<std::string_view> out;
  Nesting nesting;
  std::size_t begin = 0;
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == ',' && nesting.at_top()) {
      out.push_back(trim(s.substr(begin, i - begin)));
      begin = ++i;
      continue;
    }
    i = nesting.step(s, i);
  }
  if (begin < s.size())
    out.push_back(trim(s.substr(begin)));
  return out;
}

bool balanced(std::string_view s) {
  Nesting nesting;
  for (std::size_t i = 0; i < s.size();)
    i = nesting.step(s, i);
  return nesting.depth == 0 && nesting.quote == 0;
}

// JSON's true/false/null inside a config dump read as Python names.
Value json_word(Value v) {
  if (v.is_string()) {
    if (v.as_string() == "true")
      return Value(true);
    if (v.as_string() == "false")
      return Value(false);
    if (v.as_string() == "null")
      return Value();
  }
  return v;
}

bool is_level(std::string_view w) {
  return w == "INFO" || w == "DEBUG" || w == "WARNING" || w == "ERROR" || w == "CRITICAL" ||
         w == "WARN";
}

// "MM-DD HH:MM:SS" at s[pos].
bool time_at(std::string_view s, std::size_t pos) {
  if (pos + 14 > s.size())
    return false;
  static constexpr char kShape[] = "dd-dd dd:dd:dd";
  for (std::size_t i = 0; i < 14; ++i) {
    const char want = kShape[i];
    const char c = s[pos + i];
    if (want == 'd' ? !is_digit(c) : c != want)
      return false;
  }
  return true;
}

}  // namespace

struct VllmLogGrammar::Prefix {
  std::string_view process;      // the innermost process tag's name ("EngineCore_DP1"), "" if none
  std::string_view process_key;  // its "pid=N, ip=A" part
  std::string_view level;
  std::string_view timestamp;
  std::string_view message;
  bool tagged = false;   // a "(... pid=N)" tag was seen
  bool leveled = false;  // "LEVEL MM-DD HH:MM:SS ..." was seen
};

struct VllmLogGrammar::Patterns {
  RE2 engine_config{R"(^Initializing an? (V1 )?LLM engine \(v([^)]+)\) with config: (.*)$)"};
  RE2 logo_version{R"(\bversion\s+(\d+\.\d+\.\d+\S*))"};
  RE2 logo_model{R"(\bmodel\s+(\S+))"};
  RE2 api_version{R"(vLLM API server version (\S+))"};
  RE2 capture_progress{
      R"(^Capturing CUDA graph(?: shapes|s \(([^)]*)\)):\s*\d+%\|[^|]*\|\s*\d+/(\d+))"};
  // Version clues pasted beside a log: `pip freeze` / requirements (vllm==0.10.1.1),
  // collect_env's "vLLM Version: 0.10.1.1", an image tag (vllm/vllm-openai:v0.10.1.1).
  RE2 pinned_version{
      R"((?i)(?:^|[\s"'])vllm(?:\[[\w,]+\])?\s*==\s*v?(\d+\.\d+\.\d+(?:\.\d+)?(?:\.?(?:post|dev|rc)\d+)*(?:\+[\w.]+)?))"};
  RE2 collect_env_version{R"(^vLLM Version\s*:\s*v?(\d+\.\d+\.\d+\S*))"};
  RE2 image_version{
      R"(((?:[\w.-]+/)*vllm[\w-]*):v?(\d+\.\d+\.\d+(?:\.\d+)?(?:\.?(?:post|rc)\d+)?)\b)"};
  RE2 defaulting{R"(^Defaulting (\w+) to (\d+) for (\w+) usage context)"};
  RE2 rank{R"(^rank (\d+) in world size (\d+) is assigned as (.*)$)"};
  RE2 rank_part{R"((DP|PP|PCP|TP|EP|DCP|EPLB) rank (\d+|N/A))"};
  RE2 v1_profile{
      R"(^Memory profiling takes ([\d.]+) seconds\. Total non KV cache memory: ([\d.]+) ?GiB; torch peak memory increase: ([\d.]+) ?GiB; non-torch forward increase memory: ([\d.]+) ?GiB; weights memory: ([\d.]+) ?GiB)"};
  RE2 instance_can_use{
      R"(total_gpu_memory \(([\d.]+) ?GiB\) x gpu_memory_utilization \(([\d.]+)\) = ([\d.]+) ?GiB)"};
  RE2 weights_take{
      R"(model weights take ([\d.]+) ?GiB; non_torch_memory takes ([\d.]+) ?GiB; PyTorch activation peak memory takes ([\d.]+) ?GiB; the rest of the memory reserved for KV Cache is ([-\d.]+) ?GiB)"};
  RE2 summary{
      R"(^Free memory on device \(([\d.]+)/([\d.]+) GiB\) on startup\. Desired GPU memory utilization is \(([\d.]+), ([\d.]+) GiB\)\. Actual usage is ([\d.]+) GiB for weight, ([\d.]+) GiB for peak activation, ([\d.]+) GiB for non-torch memory, and ([\d.]+) GiB for CUDAGraph memory)"};
  RE2 summary_kv{R"(Current kv cache memory in use is ([\d.]+) GiB)"};
  RE2 free_less{
      R"(Free memory on device \(([\d.]+)/([\d.]+) GiB\) on startup is less than desired GPU memory utilization \(([\d.]+), ([\d.]+) GiB\))"};
  RE2 initial_free{
      R"(^Initial free memory:? ([\d.]+) GiB; Requested memory: ([\d.]+) \(util\), ([\d.]+) GiB)"};
  RE2 reserved{R"(^Initial free memory:? ([\d.]+) GiB, reserved ([\d.]+) GiB memory for KV Cache)"};
  RE2 model_loading{R"(^Model loading took ([\d.]+) GiB(?: memory)? and ([\d.]+) seconds)"};
  RE2 v0_weights{R"(^Loading model weights took ([\d.]+) GB)"};
  RE2 graph_profile{R"((PIECEWISE|FULL)=(\d+) \(largest=(\d+)\))"};
  RE2 graph_estimate{R"(^Estimated CUDA graph memory: ([\d.]+) GiB total)"};
  RE2 profiling_enabled{
      R"(--gpu-memory-utilization=([\d.]+) is equivalent to --gpu-memory-utilization=([\d.]+).*?--gpu-memory-utilization to ([\d.]+))"};
  RE2 graph_done{R"(^Graph capturing finished in (\d+) secs?, took ([-\d.]+) GiB)"};
  RE2 graph_pool{
      R"(^CUDA graph pool memory: ([\d.]+) GiB \(actual\), ([\d.]+) GiB \(estimated\), difference: ([-\d.]+) GiB)"};
  RE2 kv_size{R"(^GPU KV cache size: ([\d,]+) tokens)"};
  RE2 concurrency{R"(^Maximum concurrency for ([\d,]+) tokens per request: ([\d.]+)x)"};
  // "# GPU blocks: N, # CPU blocks: M" (V0 executors); early V1 (kv_cache_utils.py, early
  // 2025) prints "# GPU blocks: N" alone.
  RE2 v0_blocks{
      R"(^# (?:GPU|gpu|CUDA|cuda|NPU|npu|XPU|xpu) blocks: (\d+)(?:, # CPU blocks: (\d+))?\s*$)"};
  RE2 cache_info{R"(num_gpu_blocks is:? ?(\d+)?\s*$)"};
  RE2 override_blocks{R"(^Overriding num_gpu_blocks=(\d+) with num_gpu_blocks_override=(\d+))"};
  RE2 auto_fit_reduced{
      R"(^Auto-fit max_model_len: reduced from (\d+) to (\d+) to fit in available GPU memory \(([\d.]+) GiB)"};
  RE2 auto_fit_full{R"(^Auto-fit max_model_len: full model context length (\d+) fits)"};
  RE2 padding{R"(Add (\d+) padding layers, may waste at most ([\d.]+)% KV cache memory)"};
  RE2 kv_block{R"(^Setting kv cache block size to (\d+) for (\w+) backend)"};
  RE2 attn_block{R"(^Setting attention block size to (\d+) tokens)"};
  RE2 mamba_pad{R"(^Padding mamba page size by ([\d.]+)%)"};
  RE2 backend{R"(^Using (\w+) attention backend out of potential backends: (.*)$)"};
  RE2 old_backend{R"(^Using (.+?) backend(?: on V1 engine)?\.?$)"};
  RE2 downgrade{
      R"(CUDAGraphMode\.(\w+) is not supported with (.*?); setting cudagraph_mode=(\w+))"};
  RE2 mode_override{R"(Cudagraph mode (\S+) is not compatible with compilation mode (\S+?)\.)"};
  RE2 engine_ready{R"(^init engine \(profile, create kv cache, warmup model\) took ([\d.]+))"};
  RE2 server_up{R"(^(?:Starting vLLM (?:API )?server on|Uvicorn running on) (\S+))"};
  RE2 max_seq_too_long{
      R"(max seq len \((\d+)\) is larger than the maximum number of tokens that can be stored in KV cache \((\d+)\))"};
  RE2 serve_one{
      R"(max seq len \((\d+)\), \(([\d.]+) GiB KV cache is needed, which is larger than the available KV cache memory \(([\d.]+) GiB\)(?:\. Based on the available memory, the estimated maximum model length is (\d+))?)"};
  RE2 mamba_blocks{R"(max_num_seqs \((\d+)\) exceeds available Mamba cache blocks \((\d+)\))"};
  RE2 exception{R"(^((?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception))(?::\s?(.*))?$)"};
  RE2 context_limit{
      R"(maximum context length is (\d+) tokens\. However, you requested (\d+) tokens)"};
  RE2 decoder_prompt{R"(prompt \(length (\d+)\) is longer than the maximum model length of (\d+))"};
  // A line that mentions a capacity quantity; unmatched, it is counted separately.
  RE2 capacity{
      R"((?i)kv.?cache|gpu blocks|num_gpu_blocks|max_num_seqs|max_num_batched_tokens|max_model_len|max model len|max seq len|gpu_memory_utilization|memory profiling|cuda ?graph|cudagraph|concurrency|out of memory|avail(?:able)? (?:kv )?memory|free memory|non.torch|activation peak|block size|model loading|model weights)"};
};

VllmLogGrammar::VllmLogGrammar()
    : re_([]() -> const Patterns& {
        static const Patterns kPatterns;
        return kPatterns;
      }()) {}

VllmLogGrammar::~VllmLogGrammar() = default;

bool VllmLogGrammar::parse_prefix(std::string_view s, Prefix& p) {
  p = Prefix();
  std::size_t pos = 0;
  // "(NAME pid=N[, ip=A]) " tags, possibly nested; the innermost prints the line.
  while (pos < s.size() && s[pos] == '(') {
    const std::size_t close = s.find(')', pos);
    if (close == std::string_view::npos)
      break;
    const std::string_view inside = s.substr(pos + 1, close - pos - 1);
    const std::size_t pid = inside.find("pid=");
    if (pid == std::string_view::npos || inside.size() > 96)
      break;
    p.process = trim(inside.substr(0, pid));
    p.process_key = inside.substr(pid);
    p.tagged = true;
    pos = close + 1;
    while (pos < s.size() && s[pos] == ' ')
      ++pos;
  }
  // "LEVEL MM-DD HH:MM:SS [file.py:N] " (V1) or "LEVEL MM-DD HH:MM:SS file.py:N] " (V0).
  const std::size_t space = s.find(' ', pos);
  if (space != std::string_view::npos && space - pos <= 8 && is_level(s.substr(pos, space - pos)) &&
      time_at(s, space + 1)) {
    p.level = s.substr(pos, space - pos);
    p.timestamp = s.substr(space + 1, 14);
    std::size_t m = space + 15;
    while (m < s.size() && s[m] == ' ')
      ++m;
    // The source location ends at the first "] " within reach.
    const std::size_t end = s.find("] ", m);
    const std::size_t end_bare = s.find(']', m);
    if (end != std::string_view::npos && end - m < 160 && has(s.substr(m, end - m), ".py:")) {
      m = end + 2;
    } else if (end_bare != std::string_view::npos && end_bare + 1 == s.size() &&
               has(s.substr(m, end_bare - m), ".py:")) {
      m = end_bare + 1;
    }
    p.message = s.substr(std::min(m, s.size()));
    p.leveled = true;
    return true;
  }
  p.message = s.substr(pos);
  return p.tagged;
}

void VllmLogGrammar::set_rank(const Prefix& p) {
  rank_.tp = rank_.dp = rank_.pp = rank_.ep = -1;
  rank_.label.clear();
  if (p.process.empty() && !p.tagged)
    return;
  // The name's own indices: "EngineCore_DP1", "EngineCore_0" (DP 0 of 0.10), "VllmWorker
  // TP1", "Worker_PP1_TP0".
  std::string_view name = p.process;
  bool indexed = false;
  for (std::size_t i = 0; i + 1 < name.size(); ++i) {
    int* slot = nullptr;
    std::size_t len = 0;
    if (starts_with(name.substr(i), "DP"))
      slot = &rank_.dp, len = 2;
    else if (starts_with(name.substr(i), "TP"))
      slot = &rank_.tp, len = 2;
    else if (starts_with(name.substr(i), "PP"))
      slot = &rank_.pp, len = 2;
    else if (starts_with(name.substr(i), "EP"))
      slot = &rank_.ep, len = 2;
    if (slot == nullptr || i + len >= name.size() || !is_digit(name[i + len]))
      continue;
    if (i > 0 && name[i - 1] != '_' && name[i - 1] != ' ')
      continue;
    int v = 0;
    std::size_t k = i + len;
    while (k < name.size() && is_digit(name[k]) && v < 100000)
      v = v * 10 + (name[k++] - '0');
    *slot = v;
    indexed = true;
  }
  if (!indexed && starts_with(name, "EngineCore_") && name.size() > 11 && is_digit(name[11])) {
    rank_.dp = name[11] - '0';
    indexed = true;
  }
  if (indexed) {
    rank_.label.assign(name);
    return;
  }
  // A worker without indices: its rank from its assignment line, else its process id.
  std::string key(p.process_key);
  auto it = rank_of_process_.find(key);
  if (it != rank_of_process_.end()) {
    rank_ = it->second;
    return;
  }
  if (!name.empty() && !has(name, "Worker") && !has(name, "Ray"))
    rank_.label.assign(name);  // APIServer, EngineCore: the server's own processes
  else
    rank_.label = std::string(name.empty() ? "" : std::string(name) + " ") + key;
}

void VllmLogGrammar::begin(std::string_view kind) {
  builder_.begin(kind, number_);
  fact_.timestamp.assign(timestamp_);
  fact_.rank.tp = rank_.tp;
  fact_.rank.dp = rank_.dp;
  fact_.rank.pp = rank_.pp;
  fact_.rank.ep = rank_.ep;
  fact_.rank.label.assign(rank_.label);
}

void VllmLogGrammar::emit() {
  builder_.finish();
  if (fact_.raw.empty())
    fact_.raw.assign(line_);
  if (fact_.partial)
    pending_partial_ = true;
  if (pending_count_ < pending_.size())
    pending_[pending_count_] = fact_;
  else
    pending_.push_back(fact_);
  ++pending_count_;
}

void VllmLogGrammar::flush(FactSink& out) {
  for (std::size_t i = 0; i < pending_count_; ++i)
    out.on_fact(pending_[i]);
  pending_count_ = 0;
  pending_partial_ = false;
}

LineKind VllmLogGrammar::process(std::string_view line, bool prefixed, const Prefix& p) {
  line_ = line;
  pending_count_ = 0;
  pending_partial_ = false;
  if (prefixed) {
    timestamp_ = p.timestamp;
    set_rank(p);
    if (!p.leveled)
      return plain(trim(p.message));
    return dispatch(p.message, p.level);
  }
  timestamp_ = {};
  rank_.tp = rank_.dp = rank_.pp = rank_.ep = -1;
  rank_.label.clear();
  return plain(trim(line));
}

// A pasted command's first line: it names vLLM or runs a container.
static bool starts_command(std::string_view t) {
  return has(t, "vllm") || has(t, "docker run") || has(t, "podman run");
}

LineKind VllmLogGrammar::feed(std::string_view line, std::uint64_t number, FactSink& out) {
  if (command_.pending()) {
    // The shell reads the line after a trailing backslash as part of the command, whatever
    // it holds; so does the grammar.
    if (command_.add(line))
      return LineKind::kKnown;
    return end_command(out);
  }
  Prefix p;
  const bool prefixed = parse_prefix(line, p);
  LineKind carried = LineKind::kKnown;  // the kind of a held line closed by this one
  if (holding_) {
    const std::string_view t = trim(line);
    const bool continuation = !prefixed && !t.empty() && !starts_with(t, "[...") &&
                              !starts_with(t, "Traceback") && !in_traceback_;
    if (continuation) {
      wrapped_ = true;
      held_.append(line);
      Prefix hp;
      parse_prefix(held_, hp);
      number_ = held_number_;
      const LineKind k = process(held_, true, hp);
      if (k == LineKind::kKnown || (k == LineKind::kFact && !pending_partial_)) {
        holding_ = false;
        flush(out);
      } else {
        held_kind_ = k;
      }
      if (!held_reported_ && k == LineKind::kFact) {
        held_reported_ = true;
        return LineKind::kFact;
      }
      if (!holding_ && !held_reported_)
        return k;
      return LineKind::kKnown;
    }
    // The held line was not wrapped: its facts stand as they are.
    holding_ = false;
    Prefix hp;
    parse_prefix(held_, hp);
    number_ = held_number_;
    process(held_, true, hp);
    flush(out);
    if (!held_reported_)
      carried = held_kind_;
  }
  if (!prefixed && ContinuedCommand::continues(line) && starts_command(line)) {
    command_.start(trim(line), number);
    return carried == LineKind::kKnown ? LineKind::kKnown : carried;
  }
  number_ = number;
  LineKind k = process(line, prefixed, p);
  const bool cut = ends_with(trim(line), kCollectorCut);
  // A cut fact is held; an unrecognised line only once the log has shown that it is wrapped
  // (its kind is then counted with the line that continues or follows it).
  const bool incomplete =
      ((k == LineKind::kUnknown || k == LineKind::kUnknownCapacity) && wrapped_) ||
      (k == LineKind::kFact && pending_partial_);
  if (prefixed && incomplete && !cut && line.size() >= kMinWrapWidth) {
    // Possibly wrapped: keep it until the next line says.
    holding_ = true;
    held_.assign(line);
    held_number_ = number;
    held_kind_ = k;
    held_reported_ = k == LineKind::kFact;
    pending_count_ = 0;
    k = held_reported_ ? LineKind::kFact : LineKind::kKnown;
  } else {
    flush(out);
  }
  // A closed held line's unrecognised kind is counted with this line (its own kind loses only
  // to an unrecognised capacity line).
  if (carried == LineKind::kUnknownCapacity)
    return LineKind::kUnknownCapacity;
  if (carried == LineKind::kUnknown && k == LineKind::kKnown)
    return LineKind::kUnknown;
  return k;
}

LineKind VllmLogGrammar::end_command(FactSink& out) {
  const std::uint64_t first = command_.first_line();
  const std::string text = command_.take();
  auto input = launch_in_shell_text(text, "log", launch_recognizer(find_engine("vllm").value()));
  if (!input)
    return LineKind::kKnown;  // a continued line of something else (a README's pip install)
  // The command as one line: its environment words, then the engine's argv.
  std::string command;
  for (const auto& [name, value] : input->environment) {
    command += shell_quote(name + "=" + value);
    command += ' ';
  }
  for (const std::string& w : input->argv) {
    command += shell_quote(w);
    command += ' ';
  }
  command.pop_back();
  number_ = first;
  line_ = text;
  timestamp_ = {};
  rank_ = RankTags{};
  pending_count_ = 0;
  begin("launch_command");
  builder_.add("command", Value(command));
  if (!input->image.empty()) {
    builder_.add("image", Value(input->image));
    if (!input->image_version.empty())
      builder_.add("image_version", Value(input->image_version));
  }
  emit();
  flush(out);
  return LineKind::kFact;
}

void VllmLogGrammar::finish(FactSink& out) {
  if (command_.pending())
    end_command(out);
  if (!holding_)
    return;
  holding_ = false;
  Prefix hp;
  parse_prefix(held_, hp);
  number_ = held_number_;
  process(held_, true, hp);
  flush(out);
}

// Lines without the level and time: a process tag alone or nothing at all (excerpts).
LineKind VllmLogGrammar::plain(std::string_view t) {
  if (t.empty())
    return LineKind::kKnown;
  // "LEVEL MM-DD ..." after a docker or kubectl prefix.
  for (std::string_view lv : {"INFO ", "WARNING ", "DEBUG ", "ERROR "}) {
    const std::size_t at = t.find(lv);
    if (at != std::string_view::npos && at > 0 && time_at(t, at + lv.size())) {
      Prefix p;
      if (parse_prefix(t.substr(at), p) && p.leveled) {
        timestamp_ = p.timestamp;
        return dispatch(p.message, p.level);
      }
    }
  }
  if (in_traceback_ && (t.front() == '^' || t.front() == '~' || starts_with(t, "File \"")))
    return LineKind::kKnown;
  if (starts_with(t, "Traceback (most recent call last)")) {
    in_traceback_ = true;
    return LineKind::kKnown;
  }
  // Uvicorn ("INFO:     Started server process"), HTTP access lines, progress bars, Python
  // warnings, other libraries' loggers ("2025-09-03 04:36:47,071 INFO worker.py ...").
  if (starts_with(t, "INFO:") || starts_with(t, "WARNING:") || starts_with(t, "ERROR:")) {
    if (has(t, "Application startup complete")) {
      begin("server_ready");
      emit();
      return LineKind::kFact;
    }
    return LineKind::kKnown;
  }
  if (starts_with(t, "Capturing CUDA graph"))
    return dispatch(t, "");  // a capture bar whose total is a figure
  if (has(t, "%|") || has(t, "it/s]") || has(t, "s/it]") || starts_with(t, "[...") ||
      starts_with(t, "[Gloo]") || starts_with(t, "<frozen") || has(t, "Warning:") ||
      starts_with(t, "warnings.warn") || starts_with(t, "`"))
    return LineKind::kKnown;
  if (t.size() > 20 && is_digit(t[0]) && t[4] == '-' &&
      (has(t, " INFO ") || has(t, " - INFO - ") || has(t, " WARNING ") || has(t, " DEBUG ")))
    return LineKind::kKnown;
  if (t.front() == '#' && !starts_with(t, "# GPU") && !starts_with(t, "# cuda") &&
      !starts_with(t, "# CUDA"))
    return LineKind::kKnown;  // a comment in a published excerpt
  // `pip show vllm`: "Name: vllm", then "Version: X".
  if (pip_show_vllm_) {
    pip_show_vllm_ = false;
    if (starts_with(t, "Version: ")) {
      begin("engine_version");
      builder_.add("version", Value(std::string(trim(after(t, "Version: ")))));
      builder_.add("source", Value("pip show"));
      emit();
      return LineKind::kFact;
    }
  }
  if (t == "Name: vllm") {
    pip_show_vllm_ = true;
    return LineKind::kKnown;
  }
  if (has_icase(t, "vllm")) {
    const bool version = version_clue(t);
    // The launch command pasted above the log ("$ VLLM_USE_V1=1 vllm serve MODEL --flag ...").
    if (auto words = launch_words_in(t)) {
      LaunchCommand command;
      command.words = std::move(*words);
      begin("launch_command");
      builder_.add("command", Value(command.to_string()));
      emit();
      return LineKind::kFact;
    }
    if (version)
      return LineKind::kFact;
  }
  return dispatch(t, "");
}

bool VllmLogGrammar::version_clue(std::string_view t) {
  re2::StringPiece version;
  re2::StringPiece image;
  const char* source = nullptr;
  if (RE2::PartialMatch(t, re_.collect_env_version, &version))
    source = "collect_env";
  else if (RE2::PartialMatch(t, re_.pinned_version, &version))
    source = "pinned requirement";
  else if (RE2::PartialMatch(t, re_.image_version, &image, &version))
    source = "image tag";
  if (source == nullptr)
    return false;
  begin("engine_version");
  builder_.add("version", Value(std::string(version)));
  builder_.add("source", Value(source));
  if (!image.empty())
    builder_.add("image", Value(std::string(image) + ":" + std::string(version)));
  emit();
  return true;
}

LineKind VllmLogGrammar::dispatch(std::string_view m, std::string_view level) {
  while (!m.empty() && m.front() == ' ')
    m.remove_prefix(1);
  if (m.empty())
    return LineKind::kKnown;
  // The periodic stats line first: it is nearly all of a long log.
  if (has(m, "Avg prompt throughput:"))
    return stats_line(m);
  const char c0 = m[0];
  if (c0 == '\'' || c0 == '{' || c0 == '}' || starts_with(m, "/usr/") || starts_with(m, "- "))
    return LineKind::kKnown;  // a pretty-printed dict or list continued over lines (env dumps)
  if (c0 == 'n' && starts_with(m, "non-default args: "))
    return args_dict(m);
  if (c0 == 'a' && starts_with(m, "args: Namespace(")) {
    begin("cli_args");
    PythonCall call = parse_python_call(m);
    for (Field& f : call.fields)
      builder_.add(f.name, std::move(f.value));
    fact_.partial = call.elided || !call.complete;
    emit();
    return LineKind::kFact;
  }
  if (c0 == 'I' && starts_with(m, "Initializing a"))
    return engine_config(m);
  if (LineKind k = capacity_line(m); k != LineKind::kUnknown)
    return k;
  if (LineKind k = memory_line(m); k != LineKind::kUnknown)
    return k;
  if (LineKind k = graph_line(m); k != LineKind::kUnknown)
    return k;
  if (LineKind k = failure_line(m, level); k != LineKind::kUnknown)
    return k;
  return misc_line(m, level);
}

LineKind VllmLogGrammar::args_dict(std::string_view m) {
  begin("non_default_args");
  std::string_view body = after(m, "non-default args: ");
  const bool cut = ends_with(body, kCollectorCut);
  PythonCall call = parse_python_dict(body);
  for (Field& f : call.fields)
    builder_.add(f.name, std::move(f.value));
  fact_.partial = cut || call.elided || !call.complete;
  emit();
  return LineKind::kFact;
}

LineKind VllmLogGrammar::engine_config(std::string_view m) {
  re2::StringPiece v1;
  re2::StringPiece version;
  re2::StringPiece body;
  if (!RE2::FullMatch(m, re_.engine_config, &v1, &version, &body))
    return has(m, "engine") ? LineKind::kUnknownCapacity : LineKind::kUnknown;
  begin("engine_config");
  builder_.add("engine", Value(v1.empty() ? "V0" : "V1"));
  builder_.add("version", Value(std::string(version)));
  std::string_view rest(body.data(), body.size());
  bool cut = false;
  if (ends_with(rest, kCollectorCut)) {
    rest.remove_suffix(kCollectorCut.size());
    cut = true;
  }
  for (std::string_view item : top_level_items(rest)) {
    const std::size_t eq = item.find('=');
    if (item == "..." || eq == std::string_view::npos || eq == 0) {
      if (!item.empty())
        cut = true;
      continue;
    }
    const std::string_view key = trim(item.substr(0, eq));
    const std::string_view value = trim(item.substr(eq + 1));
    if (value.empty())
      continue;
    const char v0 = value.front();
    if (v0 == '{' || v0 == '[' || v0 == '(' || v0 == '\'' || v0 == '"' || is_digit(v0) ||
        v0 == '-' || value == "None" || value == "True" || value == "False") {
      if (!balanced(value))
        cut = true;
      std::string call = "C(";
      call.append(key);
      call += '=';
      call.append(value);
      call += ')';
      PythonCall parsed = parse_python_call(call);
      for (Field& f : parsed.fields)
        builder_.add(f.name, json_word(std::move(f.value)));
    } else {
      builder_.add(key, Value(std::string(value)));  // tokenizer_mode=auto, dtype=torch.bfloat16
    }
  }
  // The dump ends with compilation_config (V1) or the V0 tail; a line cut before it is partial.
  fact_.partial = cut || !builder_.has("compilation_config");
  emit();
  return LineKind::kFact;
}

LineKind VllmLogGrammar::capacity_line(std::string_view m) {
  re2::StringPiece a;
  re2::StringPiece b;
  re2::StringPiece c;
  if (starts_with(m, "GPU KV cache size")) {
    begin("kv_cache_size");
    if (RE2::PartialMatch(m, re_.kv_size, &a))
      add_number(builder_, "tokens", a);
    else
      fact_.partial = true;
    emit();
    // From 2026-08-04 (#50462, V13) one line carries both: "GPU KV cache size: N tokens,
    // Maximum concurrency for L tokens per request: X.XXx" (KCU.update_kv_cache_capacity).
    if (const auto at = m.find("Maximum concurrency for"); at != std::string_view::npos)
      return capacity_line(m.substr(at));
    return LineKind::kFact;
  }
  if (starts_with(m, "Maximum concurrency for")) {
    begin("max_concurrency");
    if (RE2::PartialMatch(m, re_.concurrency, &a, &b)) {
      add_number(builder_, "tokens_per_request", a);
      add_number(builder_, "concurrency", b, true);
    } else {
      fact_.partial = true;
    }
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Available KV cache memory")) {
    begin("kv_cache_memory");
    static const RE2 kAvail(R"(^Available KV cache memory: ([-\d.]+) GiB)");
    if (RE2::PartialMatch(m, kAvail, &a))
      add_number(builder_, "available_gib", a, true);
    else
      fact_.partial = true;
    emit();
    return LineKind::kFact;
  }
  if (m[0] == '#' && RE2::PartialMatch(m, re_.v0_blocks, &a, &b)) {
    begin("gpu_blocks");
    add_number(builder_, "num_gpu_blocks", a);
    if (!b.empty())
      add_number(builder_, "num_cpu_blocks", b);
    builder_.add("source", Value(b.empty() ? "kv_cache_utils" : "executor"));
    emit();
    return LineKind::kFact;
  }
  if (has(m, "cache_config_info with initialization after num_gpu_blocks")) {
    begin("gpu_blocks");
    builder_.add("source", Value("cache_config_info"));
    if (RE2::PartialMatch(m, re_.cache_info, &a) && !a.empty())
      add_number(builder_, "num_gpu_blocks", a);
    else
      fact_.partial = true;
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Overriding num_gpu_blocks=") &&
      RE2::PartialMatch(m, re_.override_blocks, &a, &b)) {
    begin("blocks_override");
    add_number(builder_, "num_gpu_blocks", a);
    add_number(builder_, "override", b);
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Auto-fit max_model_len")) {
    begin("auto_fit");
    if (RE2::PartialMatch(m, re_.auto_fit_reduced, &a, &b, &c)) {
      add_number(builder_, "from", a);
      add_number(builder_, "max_model_len", b);
      add_number(builder_, "available_gib", c, true);
    } else if (RE2::PartialMatch(m, re_.auto_fit_full, &a)) {
      add_number(builder_, "max_model_len", a);
    } else {
      fact_.partial = true;
    }
    emit();
    return LineKind::kFact;
  }
  if (RE2::PartialMatch(m, re_.padding, &a, &b)) {
    begin("padding_layers");
    add_number(builder_, "layers", a);
    add_number(builder_, "waste_pct", b, true);
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Setting kv cache block size") && RE2::PartialMatch(m, re_.kv_block, &a, &b)) {
    begin("block_size");
    add_number(builder_, "block_size", a);
    builder_.add("backend", Value(std::string(b)));
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Setting attention block size") && RE2::PartialMatch(m, re_.attn_block, &a)) {
    begin("block_size");
    add_number(builder_, "block_size", a);
    builder_.add("reason", Value("attention page ≥ mamba page"));
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Padding mamba page size") && RE2::PartialMatch(m, re_.mamba_pad, &a)) {
    begin("block_size");
    add_number(builder_, "padding_pct", a, true);
    builder_.add("reason", Value("mamba padding"));
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Using max model len ")) {
    begin("max_model_len");
    add_number(builder_, "max_model_len", after(m, "Using max model len "));
    fact_.partial = !builder_.has("max_model_len");
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Defaulting ") && RE2::PartialMatch(m, re_.defaulting, &a, &b, &c)) {
    begin("scheduler_default");
    builder_.add("setting", Value(std::string(a)));
    add_number(builder_, "value", b);
    builder_.add("usage_context", Value(std::string(c)));
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Chunked prefill is enabled with max_num_batched_tokens=")) {
    begin("chunked_prefill");
    std::string_view v = after(m, "Chunked prefill is enabled with max_num_batched_tokens=");
    if (!v.empty() && v.back() == '.')
      v.remove_suffix(1);
    add_number(builder_, "max_num_batched_tokens", v);
    fact_.partial = !builder_.has("max_num_batched_tokens");
    emit();
    return LineKind::kFact;
  }
  return LineKind::kUnknown;
}

LineKind VllmLogGrammar::memory_line(std::string_view m) {
  re2::StringPiece g[8];
  if (starts_with(m, "Model loading took")) {
    begin("model_loaded");
    if (RE2::PartialMatch(m, re_.model_loading, &g[0], &g[1])) {
      add_number(builder_, "weights_gib", g[0], true);
      add_number(builder_, "elapsed_s", g[1], true);
    } else {
      fact_.partial = true;
    }
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Loading model weights took") && RE2::PartialMatch(m, re_.v0_weights, &g[0])) {
    begin("model_loaded");
    add_number(builder_, "weights_gib", g[0], true);  // printed "GB", computed with 2^30
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "worker init memory snapshot:")) {
    begin("memory_snapshot");
    scan_pairs(after(m, "worker init memory snapshot:"), builder_);
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "worker requested memory:")) {
    begin("requested_memory");
    std::string_view v = trim(after(m, "worker requested memory:"));
    if (ends_with(v, "GiB"))
      v.remove_suffix(3);
    add_number(builder_, "requested_gib", v, true);
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Initial free memory")) {
    if (RE2::PartialMatch(m, re_.initial_free, &g[0], &g[1], &g[2])) {
      begin("requested_memory");
      add_number(builder_, "free_memory_gib", g[0], true);
      add_number(builder_, "gpu_memory_utilization", g[1], true);
      add_number(builder_, "requested_gib", g[2], true);
      emit();
      return LineKind::kFact;
    }
    if (RE2::PartialMatch(m, re_.reserved, &g[0], &g[1])) {
      begin("kv_cache_reserved");
      add_number(builder_, "free_memory_gib", g[0], true);
      add_number(builder_, "reserved_gib", g[1], true);
      emit();
      return LineKind::kFact;
    }
    return LineKind::kUnknownCapacity;
  }
  if (starts_with(m, "Free memory after profiling") ||
      starts_with(m, "Peak GPU memory after loading"))
    return LineKind::kKnown;
  if (starts_with(m, "Memory profiling takes")) {
    begin("memory_profile");
    if (RE2::PartialMatch(m, re_.v1_profile, &g[0], &g[1], &g[2], &g[3], &g[4])) {
      builder_.add("form", Value("v1"));
      add_number(builder_, "elapsed_s", g[0], true);
      add_number(builder_, "non_kv_cache_gib", g[1], true);
      add_number(builder_, "activation_peak_gib", g[2], true);
      add_number(builder_, "non_torch_gib", g[3], true);
      add_number(builder_, "weights_gib", g[4], true);
    } else {
      // V0 and 0.8: the figures follow on their own lines.
      static const RE2 kTakes(R"(^Memory profiling takes ([\d.]+) seconds)");
      builder_.add("form", Value("v0"));
      if (RE2::PartialMatch(m, kTakes, &g[0]))
        add_number(builder_, "elapsed_s", g[0], true);
    }
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "the current vLLM instance can use")) {
    begin("memory_profile");
    builder_.add("form", Value("v0"));
    if (RE2::PartialMatch(m, re_.instance_can_use, &g[0], &g[1], &g[2])) {
      add_number(builder_, "total_memory_gib", g[0], true);
      add_number(builder_, "gpu_memory_utilization", g[1], true);
      add_number(builder_, "requested_gib", g[2], true);
    } else {
      fact_.partial = true;
    }
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "model weights take")) {
    begin("memory_profile");
    builder_.add("form", Value("v0"));
    if (RE2::PartialMatch(m, re_.weights_take, &g[0], &g[1], &g[2], &g[3])) {
      add_number(builder_, "weights_gib", g[0], true);
      add_number(builder_, "non_torch_gib", g[1], true);
      add_number(builder_, "activation_peak_gib", g[2], true);
      add_number(builder_, "kv_cache_gib", g[3], true);
    } else {
      fact_.partial = true;
    }
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Memory profiling results:")) {
    // Late 2024: total_gpu_memory=23.58GiB initial_memory_usage=... peak_torch_memory (weights
    // and activations) non_torch_memory kv_cache_size gpu_memory_utilization.
    begin("memory_profile");
    builder_.add("form", Value("v0-results"));
    scan_pairs(after(m, "Memory profiling results:"), builder_);
    FactBuilder& b = builder_;
    // Field names as the other forms use them.
    Fact& f = b.fact();
    for (Field& field : f.fields) {
      if (field.name == "total_gpu_memory_gib")
        field.name = "total_memory_gib";
      else if (field.name == "peak_torch_memory_gib")
        field.name = "peak_torch_gib";
      else if (field.name == "non_torch_memory_gib")
        field.name = "non_torch_gib";
      else if (field.name == "kv_cache_size_gib")
        field.name = "kv_cache_gib";
      else if (field.name == "duration_s" || field.name == "duration")
        field.name = "elapsed_s";
    }
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Free memory on device")) {
    if (has(m, "is less than desired"))
      return LineKind::kUnknown;  // the startup failure: failure_line reads it
    begin("memory_summary");
    if (RE2::PartialMatch(m, re_.summary, &g[0], &g[1], &g[2], &g[3], &g[4], &g[5], &g[6], &g[7])) {
      add_number(builder_, "free_memory_gib", g[0], true);
      add_number(builder_, "total_memory_gib", g[1], true);
      add_number(builder_, "gpu_memory_utilization", g[2], true);
      add_number(builder_, "requested_gib", g[3], true);
      add_number(builder_, "weights_gib", g[4], true);
      add_number(builder_, "activation_peak_gib", g[5], true);
      add_number(builder_, "non_torch_gib", g[6], true);
      add_number(builder_, "cuda_graph_gib", g[7], true);
      if (RE2::PartialMatch(m, re_.summary_kv, &g[0]))
        add_number(builder_, "kv_cache_gib", g[0], true);
    } else {
      fact_.partial = true;
    }
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Loading weights took") || starts_with(m, "Loading weights on") ||
      starts_with(m, "Starting to load model") || starts_with(m, "Loading model from scratch"))
    return misc_line(m, "");
  return LineKind::kUnknown;
}

LineKind VllmLogGrammar::graph_line(std::string_view m) {
  re2::StringPiece a;
  re2::StringPiece b;
  re2::StringPiece c;
  if (starts_with(m, "Profiling CUDA graph memory:")) {
    begin("cuda_graph_profile");
    re2::StringPiece text(m.data(), m.size());
    std::string mode;
    std::string count;
    std::string largest;
    while (RE2::FindAndConsume(&text, re_.graph_profile, &mode, &count, &largest)) {
      const std::string key = mode == "FULL" ? "full" : "piecewise";
      add_number(builder_, key, count);
      add_number(builder_, key + "_largest", largest);
    }
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Estimated CUDA graph memory")) {
    begin("cuda_graph_estimate");
    if (RE2::PartialMatch(m, re_.graph_estimate, &a))
      add_number(builder_, "cuda_graph_gib", a, true);
    else
      fact_.partial = true;
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Estimated PIECEWISE CUDA graph memory") ||
      starts_with(m, "Estimated FULL CUDA graph memory") ||
      starts_with(m, "Initialized minimal KV cache for CUDA graph profiling") ||
      starts_with(m, "Cleaned up profiling KV cache") ||
      starts_with(m, "Capturing a cudagraph on") ||
      starts_with(m, "Capturing cudagraphs for decoding") ||
      starts_with(m, "CUDA graphs can take additional") ||
      starts_with(m, "Capturing CUDA graph shapes") || starts_with(m, "Capturing CUDA graphs")) {
    // The piecewise capture goes over every capture size: its bar's total is their number
    // (v1/worker/gpu_model_runner.py::capture_model). A FULL decode bar counts other sizes.
    re2::StringPiece mode;
    std::string total;
    if (RE2::PartialMatch(m, re_.capture_progress, &mode, &total) &&
        (mode.empty() || has(mode, "PIECEWISE"))) {
      begin("graph_capture_progress");
      builder_.add("mode", Value(mode.empty() ? std::string("shapes") : std::string(mode)));
      builder_.add("total", Value(static_cast<std::int64_t>(std::stoll(total))));
      emit();
      return LineKind::kFact;
    }
    return LineKind::kKnown;
  }
  if (has(m, "CUDA graph memory profiling")) {
    begin("cuda_graph_profiling");
    // "CUDA graph memory profiling is enabled (default since v0.21.0). The current ..." or
    // its WARNING when VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0; 0.19 says it "will be".
    builder_.add("subtracted", Value(has(m, "profiling is enabled")));
    if (RE2::PartialMatch(m, re_.profiling_enabled, &a, &b, &c)) {
      add_number(builder_, "gpu_memory_utilization", a, true);
      add_number(builder_, "equivalent_utilization", b, true);
      add_number(builder_, "suggested_utilization", c, true);
    }
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Graph capturing finished")) {
    begin("graph_capture_end");
    if (RE2::PartialMatch(m, re_.graph_done, &a, &b)) {
      add_number(builder_, "elapsed_s", a, true);
      add_number(builder_, "cuda_graph_gib", b, true);
    } else {
      fact_.partial = true;
    }
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "CUDA graph pool memory")) {
    begin("cuda_graph_pool");
    if (RE2::PartialMatch(m, re_.graph_pool, &a, &b, &c)) {
      add_number(builder_, "actual_gib", a, true);
      add_number(builder_, "estimated_gib", b, true);
      add_number(builder_, "difference_gib", c, true);
    } else {
      fact_.partial = true;
    }
    emit();
    return LineKind::kFact;
  }
  if (has(m, "CUDAGraphMode.") && RE2::PartialMatch(m, re_.downgrade, &a, &b, &c)) {
    begin("cudagraph_downgrade");
    builder_.add("from", Value(std::string(a)));
    builder_.add("to", Value(std::string(c)));
    builder_.add("text", Value(std::string(m)));
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Cudagraph mode") && RE2::PartialMatch(m, re_.mode_override, &a, &b)) {
    begin("cudagraph_downgrade");
    builder_.add("from", Value(std::string(a)));
    builder_.add("to", Value("NONE"));
    builder_.add("text", Value(std::string(m)));
    emit();
    return LineKind::kFact;
  }
  return LineKind::kUnknown;
}

LineKind VllmLogGrammar::stats_line(std::string_view m) {
  begin("decode_batch");
  // "Engine 000: ", "N Engines Aggregated: " (DP) or nothing (V0).
  if (starts_with(m, "Engine ")) {
    std::size_t i = 7;
    std::int64_t e = 0;
    while (i < m.size() && is_digit(m[i]))
      e = e * 10 + (m[i++] - '0');
    builder_.add("engine", Value(e));
    if (fact_.rank.label.empty() || fact_.rank.label == "APIServer") {
      fact_.rank.dp = static_cast<int>(e);
      fact_.rank.label = std::string(m.substr(0, i));
    }
  } else if (has(m.substr(0, m.find(':')), "Engines Aggregated")) {
    builder_.add("engines_aggregated", Value(true));
  }
  const std::size_t body = m.find("Avg prompt throughput:");
  std::string_view rest = m.substr(body);
  bool cut = true;
  for (std::string_view item : split(rest, ',')) {
    item = trim(item);
    if (!item.empty() && item.back() == '.')
      item.remove_suffix(1);
    const std::size_t colon = item.find(": ");
    if (colon == std::string_view::npos)
      continue;
    const std::string_view label = item.substr(0, colon);
    std::string_view value = trim(item.substr(colon + 2));
    const bool pct = !value.empty() && value.back() == '%';
    const std::size_t space = value.find(' ');
    value = pct ? value.substr(0, value.size() - 1) : value.substr(0, space);
    auto v = number(value);
    if (!v)
      continue;
    auto add = [&](std::string_view name) { builder_.add(name, *v); };
    if (label == "Avg prompt throughput")
      add("prompt_throughput_tok_per_s");
    else if (label == "Avg generation throughput")
      add("gen_throughput_tok_per_s");
    else if (label == "Running")
      add("running_req");
    else if (label == "Waiting" || label == "Pending")
      add("queue_req");
    else if (label == "Swapped")
      add("swapped_req");
    else if (label == "Deferred")
      add("deferred_req");
    else if (label == "Preemptions")
      add("preemptions");
    else if (label == "GPU KV cache usage") {
      add("kv_cache_usage_pct");
      builder_.add("token_usage", Value(v->as_number() / 100.0));
      cut = false;
    } else if (label == "CPU KV cache usage")
      add("cpu_kv_cache_usage_pct");
    else if (label == "Prefix cache hit rate")
      add("prefix_cache_hit_rate_pct");
    else if (label == "External prefix cache hit rate")
      add("external_prefix_cache_hit_rate_pct");
    else if (label == "MM cache hit rate")
      add("mm_cache_hit_rate_pct");
  }
  fact_.partial = cut || !builder_.has("running_req");
  emit();
  return LineKind::kFact;
}

LineKind VllmLogGrammar::failure_line(std::string_view m, std::string_view level) {
  re2::StringPiece a;
  re2::StringPiece b;
  re2::StringPiece c;
  re2::StringPiece d;
  const std::string_view kind = server_ready_ ? "runtime_error" : "startup_failure";
  auto failure = [&](std::string_view error, std::string_view message) {
    begin(kind);
    builder_.add("error", Value(std::string(error)));
    builder_.add("message", Value(std::string(message)));
    builder_.add("oom", Value(has_icase(message, "out of memory")));
  };
  if (RE2::PartialMatch(m, re_.max_seq_too_long, &a, &b)) {
    // V0: "The model's max seq len (L) is larger than the maximum number of tokens that can
    // be stored in KV cache (T)."
    failure(starts_with(m, "ValueError") ? "ValueError" : "", m);
    add_number(builder_, "max_model_len", a);
    add_number(builder_, "kv_tokens", b);
    emit();
    return LineKind::kFact;
  }
  if (has(m, "KV cache is needed, which is larger than the available KV cache memory")) {
    failure(starts_with(m, "ValueError") ? "ValueError" : "", m);
    if (RE2::PartialMatch(m, re_.serve_one, &a, &b, &c, &d)) {
      add_number(builder_, "max_model_len", a);
      add_number(builder_, "needed_gib", b, true);
      add_number(builder_, "available_gib", c, true);
      if (!d.empty())
        add_number(builder_, "estimated_max_model_len", d);
    } else {
      fact_.partial = true;
    }
    emit();
    return LineKind::kFact;
  }
  if (RE2::PartialMatch(m, re_.free_less, &a, &b, &c, &d)) {
    failure("ValueError", m);
    add_number(builder_, "free_memory_gib", a, true);
    add_number(builder_, "total_memory_gib", b, true);
    add_number(builder_, "gpu_memory_utilization", c, true);
    add_number(builder_, "requested_gib", d, true);
    emit();
    return LineKind::kFact;
  }
  if (RE2::PartialMatch(m, re_.mamba_blocks, &a, &b)) {
    failure("ValueError", m);
    add_number(builder_, "max_num_seqs", a);
    add_number(builder_, "mamba_blocks", b);
    emit();
    return LineKind::kFact;
  }
  if (has(m, "No available memory for the cache blocks") ||
      has(m, "Engine core initialization failed") || starts_with(m, "EngineCore failed to start") ||
      has_icase(m, "out of memory")) {
    failure("", m);
    emit();
    return LineKind::kFact;
  }
  re2::StringPiece error;
  re2::StringPiece message;
  if ((level == "ERROR" || level == "CRITICAL" || level.empty()) &&
      RE2::FullMatch(m, re_.exception, &error, &message)) {
    in_traceback_ = false;
    failure(std::string_view(error.data(), error.size()),
            std::string_view(message.data(), message.size()));
    emit();
    return LineKind::kFact;
  }
  if (RE2::PartialMatch(m, re_.context_limit, &a, &b) ||
      RE2::PartialMatch(m, re_.decoder_prompt, &b, &a)) {
    begin("input_too_long");
    add_number(builder_, "input_tokens", b);
    add_number(builder_, "max_tokens", a);
    emit();
    return LineKind::kFact;
  }
  return LineKind::kUnknown;
}

LineKind VllmLogGrammar::misc_line(std::string_view m, std::string_view level) {
  re2::StringPiece a;
  re2::StringPiece b;
  re2::StringPiece c;
  if (has(m, "device_name=")) {
    if (std::string gpu = log_text::gpu_of_kernel_config(m); !gpu.empty()) {
      begin("gpu");
      builder_.add("name", Value(std::move(gpu)));
      builder_.add("source", Value("kernel config path"));
      emit();
      return LineKind::kFact;
    }
  }
  // The logo: "█▀▀ ... version 0.19.0", "█▄█▀ ... model Qwen/Qwen3-8B".
  if (has(m, "\xE2\x96\x88") || has(m, "\xE2\x96\x84") || has(m, "\xE2\x96\x80")) {
    if (RE2::PartialMatch(m, re_.logo_version, &a)) {
      begin("engine_version");
      builder_.add("version", Value(std::string(a)));
      builder_.add("source", Value("logo"));
      emit();
      return LineKind::kFact;
    }
    if (RE2::PartialMatch(m, re_.logo_model, &a)) {
      begin("model_name");
      builder_.add("model", Value(std::string(a)));
      emit();
      return LineKind::kFact;
    }
    return LineKind::kKnown;
  }
  if (RE2::PartialMatch(m, re_.api_version, &a)) {
    begin("engine_version");
    builder_.add("version", Value(std::string(a)));
    builder_.add("source", Value("api server"));
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Resolved architecture: ")) {
    begin("model_architecture");
    builder_.add("architecture", Value(std::string(trim(after(m, "Resolved architecture: ")))));
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Starting to load model ")) {
    std::string_view model = trim(after(m, "Starting to load model "));
    if (ends_with(model, "..."))
      model.remove_suffix(3);
    begin("model_name");
    builder_.add("model", Value(std::string(model)));
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "Asynchronous scheduling is ")) {
    begin("async_scheduling");
    builder_.add("enabled", Value(starts_with(after(m, "Asynchronous scheduling is "), "enabled")));
    emit();
    return LineKind::kFact;
  }
  if (starts_with(m, "rank ") && RE2::PartialMatch(m, re_.rank, &a, &b, &c)) {
    begin("rank_assignment");
    add_number(builder_, "rank", a);
    add_number(builder_, "world_size", b);
    re2::StringPiece parts = c;
    std::string name;
    std::string index;
    RankTags tags;
    bool last_numeric = false;
    while (RE2::FindAndConsume(&parts, re_.rank_part, &name, &index)) {
      std::string field = name;
      for (char& ch : field)
        ch = static_cast<char>(ch - 'A' + 'a');
      last_numeric = index != "N/A";
      if (!last_numeric)
        continue;
      const int v = static_cast<int>(parse_int(index).value_or(0));
      builder_.add(field, Value(v));
      if (name == "DP")
        tags.dp = v;
      else if (name == "TP")
        tags.tp = v;
      else if (name == "PP")
        tags.pp = v;
      else if (name == "EP")
        tags.ep = v;
    }
    const std::string_view tail = trim(std::string_view(c.data(), c.size()));
    fact_.partial = tail.empty() || !(is_digit(tail.back()) || ends_with(tail, "N/A"));
    if (!fact_.partial && !rank_.label.empty() && rank_.dp < 0 && rank_.tp < 0) {
      // A worker without indices in its name: remember its rank for its later lines.
      std::string label;
      for (const auto& [n, v] : {std::pair{"DP", tags.dp}, {"PP", tags.pp}, {"TP", tags.tp}}) {
        if (v >= 0 && (v > 0 || std::string_view(n) == "TP"))
          label += (label.empty() ? "" : " ") + std::string(n) + std::to_string(v);
      }
      tags.label = label;
      const std::size_t space = rank_.label.find("pid=");
      rank_of_process_[rank_.label.substr(space == std::string::npos ? 0 : space)] = tags;
    }
    emit();
    return LineKind::kFact;
  }
  if (m[0] == 'U' && starts_with(m, "Using ")) {
    if (RE2::PartialMatch(m, re_.backend, &a, &b)) {
      begin("attention_backend");
      builder_.add("backend", Value(std::string(a)));
      builder_.add("candidates", Value(std::string(b)));
      emit();
      return LineKind::kFact;
    }
    if (starts_with(m, "Using FlashAttention version ")) {
      begin("attention_backend");
      add_number(builder_, "flash_attn_version", after(m, "Using FlashAttention version "));
      emit();
      return LineKind::kFact;
    }
    if ((has(m, "Attention backend") || has(m, "XFormers backend") ||
         has(m, "FlashInfer backend") || has(m, "Flash Attention backend")) &&
        RE2::FullMatch(m, re_.old_backend, &a)) {
      begin("attention_backend");
      builder_.add("backend", Value(std::string(a)));
      emit();
      return LineKind::kFact;
    }
    return LineKind::kKnown;  // "Using ... for top-p & top-k sampling", kernels, MoE backends
  }
  if (starts_with(m, "Enabled custom fusions: ")) {
    begin("fusion");
    builder_.add("passes", Value(std::string(trim(after(m, "Enabled custom fusions: ")))));
    emit();
    return LineKind::kFact;
  }
  if (RE2::PartialMatch(m, re_.engine_ready, &a)) {
    begin("engine_ready");
    add_number(builder_, "elapsed_s", a, true);
    emit();
    return LineKind::kFact;
  }
  if (RE2::PartialMatch(m, re_.server_up, &a)) {
    server_ready_ = true;
    begin("server_ready");
    builder_.add("url", Value(std::string(a)));
    emit();
    return LineKind::kFact;
  }
  // Warnings that change a setting the capacity depends on.
  static constexpr std::array<std::string_view, 8> kAdjusts = {
      "Enforce eager set", "disabling torch.compile",
      "Overriding",        "Forcing",
      "is not supported",  "will be ignored",
      "Disabling",         "Turning off hybrid kv cache manager"};
  if (level == "WARNING" || level == "INFO") {
    for (std::string_view w : kAdjusts) {
      if (has(m, w)) {
        begin("setting_adjusted");
        builder_.add("level", Value(std::string(level)));
        builder_.add("text", Value(std::string(m)));
        emit();
        return LineKind::kFact;
      }
    }
  }
  if (RE2::PartialMatch(m, re_.capacity))
    return LineKind::kUnknownCapacity;
  return LineKind::kUnknown;
}

bool VllmLogGrammar::identifies_engine(const Fact& fact) const {
  // Lines any program prints, a GPU name (both engines name kernel configs alike) and a launch
  // command (a README quotes commands too) do not make a text a vLLM log.
  static constexpr std::array<std::string_view, 7> kGeneric = {"startup_failure",
                                                               "runtime_error",
                                                               "setting_adjusted",
                                                               "input_too_long",
                                                               "server_ready",
                                                               "launch_command",
                                                               "gpu"};
  for (std::string_view k : kGeneric) {
    if (fact.kind == k)
      return false;
  }
  // A version pasted beside a log (pip freeze, collect_env, an image tag) is not vLLM's own
  // line: an SGLang environment often has vLLM installed too.
  if (fact.kind == "engine_version") {
    const auto source = fact.text("source").value_or("");
    return source == "logo" || source == "api server";
  }
  return true;
}

VersionInference VllmLogGrammar::infer_version(const std::vector<Fact>& facts) const {
  return infer_vllm_version(facts);
}

LogSummary VllmLogGrammar::summarize(const std::vector<Fact>& facts) const {
  return summarize_vllm_log(facts);
}

}  // namespace servescope::vllm
