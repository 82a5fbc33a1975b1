#include "engines/vllm/vllm_log_grammar.h"

#include <re2/re2.h>

#include <array>

#include "core/text.h"
#include "engines/engine.h"
#include "engines/launch_command.h"
#include "engines/log_text.h"
#include "engines/python_repr.h"
#include "engines/vllm/vllm_command.h"
#include "engines/vllm/vllm_log_grammar_internal.h"
#include "engines/vllm/vllm_log_summary.h"
#include "engines/vllm/vllm_version_inference.h"
#include "intake/launch_input.h"
#include "intake/shell_words.h"

namespace servescope::vllm {

using namespace log_lines;  // NOLINT: the grammar files share these helpers

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
  if (LineKind k = extensible_line(m); k != LineKind::kUnknown)
    return k;
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
