#include "engines/vllm/vllm_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/text.h"
#include "engines/vllm/vllm_flags.h"

namespace servescope::vllm {
namespace {

// Modules whose argument parser is make_arg_parser (vllm/entrypoints/openai/cli_args.py).
constexpr std::string_view kApiServerModules[] = {"vllm.entrypoints.openai.api_server"};

bool is_env_assignment(std::string_view w) {
  auto eq = w.find('=');
  if (eq == std::string_view::npos || eq == 0 || w.front() == '-')
    return false;
  for (char c : w.substr(0, eq)) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  }
  return true;
}

std::string basename_of(const std::string& w) {
  auto slash = w.rfind('/');
  return slash == std::string::npos ? w : w.substr(slash + 1);
}

// Index of the first argument word after the program, and the program text; npos if absent.
std::size_t find_program(const std::vector<std::string>& words, std::string* program) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] == "-m" && i + 1 < words.size()) {
      for (std::string_view m : kApiServerModules) {
        if (words[i + 1] == m) {
          *program = (i > 0 ? words[i - 1] : std::string("python")) + " -m " + words[i + 1];
          return i + 2;
        }
      }
      if (words[i + 1] == "vllm.entrypoints.cli.main" && i + 2 < words.size() &&
          words[i + 2] == "serve") {
        *program =
            (i > 0 ? words[i - 1] : std::string("python")) + " -m " + words[i + 1] + " serve";
        return i + 3;
      }
    }
    if (basename_of(words[i]) == "vllm" && i + 1 < words.size() && words[i + 1] == "serve") {
      *program = "vllm serve";
      return i + 2;
    }
    // The vllm/vllm-openai image runs the API server with the container's arguments.
    if (words[i].rfind("vllm/vllm-openai", 0) == 0) {
      *program = words[i];
      return i + 1;
    }
  }
  return std::string::npos;
}

bool is_option(std::string_view w) {
  return is_option_word(w);
}

// FlexibleArgumentParser: in a long option, underscores become dashes up to the first '.'.
std::string normalise_long(std::string_view key) {
  std::string out(key);
  const std::size_t stop = std::min(out.find('.'), out.size());
  for (std::size_t i = 2; i < stop; ++i) {
    if (out[i] == '_')
      out[i] = '-';
  }
  return out;
}

struct Resolved {
  std::string canonical;  // the surface's option name ("" if unknown)
  char arity = '?';
  bool known = false;
  std::vector<std::string> ambiguous_with;
};

Resolved resolve_flag(std::string_view name, const std::vector<CliFlag>& surface) {
  Resolved r;
  for (const CliFlag& f : surface) {
    bool hit = f.name == name;
    for (const std::string& a : f.aliases)
      hit = hit || a == name;
    if (hit) {
      r.canonical = f.name;
      r.arity = f.arity;
      r.known = true;
      return r;
    }
  }
  if (name.rfind("--", 0) != 0)
    return r;  // argparse abbreviates long options only
  std::vector<const CliFlag*> hits;
  for (const CliFlag& f : surface) {
    if (f.name.rfind(name, 0) == 0)
      hits.push_back(&f);
  }
  if (hits.size() == 1) {
    r.canonical = hits[0]->name;
    r.arity = hits[0]->arity;
    r.known = true;
  } else if (hits.size() > 1) {
    for (const CliFlag* f : hits)
      r.ambiguous_with.push_back(f->name);
  }
  return r;
}

Status validate_human_int(const FlagSpec& spec, std::string_view spelled, const std::string& v) {
  if (spec.field == "max_model_len" && (v == "-1" || to_lower(v) == "auto"))
    return ok_status();
  auto n = parse_human_readable_int(v);
  if (!n) {
    return fail(fmt::format("{} {}: not an integer (vLLM accepts 32768, 32k, 32K{})", spelled, v,
                            spec.field == "max_model_len" ? ", -1 or auto" : ""));
  }
  if (spec.min && static_cast<double>(*n) < std::max(*spec.min, 1.0)) {
    return fail(fmt::format("{} {}: must be ≥ 1", spelled, v));
  }
  return ok_status();
}

Status validate_value(const FlagSpec& spec, const FlagSetting& f, bool dotted) {
  const std::string& spelled = f.spelled;
  if (dotted)
    return ok_status();  // one key of a JSON value; checked when the value is assembled
  if (spec.field == "max_model_len" || spec.field == "max_num_batched_tokens" ||
      spec.field == "kv_cache_memory_bytes") {
    if (f.values.empty())
      return fail(fmt::format("{}: expects a value", spelled));
    return validate_human_int(spec, spelled, f.values.front());
  }
  if (spec.type == FlagType::kJson) {
    if (f.values.empty())
      return fail(fmt::format("{}: expects a JSON value", spelled));
    try {
      [[maybe_unused]] auto parsed = nlohmann::json::parse(f.values.front());
    } catch (const nlohmann::json::parse_error& e) {
      return fail(fmt::format("{} {}: not valid JSON at byte {} (quote it: {} '{{\"key\": ...}}')",
                              spelled, f.values.front(), e.byte, spelled));
    } catch (const nlohmann::json::exception&) {
      return fail(fmt::format("{} {}: a JSON number is out of range", spelled, f.values.front()));
    }
    return ok_status();
  }
  return validate_flag_value(spec, spelled, f.values);
}

}  // namespace

std::optional<long long> parse_human_readable_int(std::string_view text) {
  std::string v(trim(text));
  if (v.empty())
    return std::nullopt;
  const char suffix = v.back();
  const std::string_view decimal = "kmgt", binary = "KMGT";
  if (decimal.find(suffix) != std::string_view::npos ||
      binary.find(suffix) != std::string_view::npos) {
    std::string number = v.substr(0, v.size() - 1);
    if (number.empty() || !std::isdigit(static_cast<unsigned char>(number.front())))
      return std::nullopt;
    if (binary.find(suffix) != std::string_view::npos) {
      auto n = parse_int(number);  // decimals are refused with binary suffixes
      const int shift = 10 * (static_cast<int>(binary.find(suffix)) + 1);
      // A figure past 2^63 bytes is no setting (found by vllm_command_line_fuzz).
      if (!n || *n < 0 || *n > (std::numeric_limits<long long>::max() >> shift))
        return std::nullopt;
      return *n << shift;
    }
    auto d = parse_double(number);
    if (!d || *d < 0 || number.find_first_not_of("0123456789.") != std::string::npos)
      return std::nullopt;
    const double mult = std::pow(1000.0, static_cast<double>(decimal.find(suffix)) + 1);
    if (*d * mult >= 9.2e18)  // past long long (found by vllm_command_line_fuzz)
      return std::nullopt;
    return static_cast<long long>(*d * mult);
  }
  auto n = parse_int(v);
  if (!n)
    return std::nullopt;
  return *n;
}

bool launches_vllm(const std::vector<std::string>& words) {
  std::string program;
  return find_program(words, &program) != std::string::npos;
}

Result<ParsedVllmCommand> parse_vllm_command(const std::vector<std::string>& words,
                                             std::string_view surface_date) {
  if (words.empty()) {
    return fail("empty launch command; give it after --, e.g. -- vllm serve Qwen/Qwen3-8B");
  }
  const std::vector<CliFlag>& surface =
      surface_date.empty() ? cli_surface_union() : cli_surface(surface_date);
  ParsedVllmCommand out;
  LaunchCommand& cmd = out.command;
  cmd.words = words;
  std::size_t i = find_program(words, &cmd.program);
  if (i == std::string::npos) {
    return fail(fmt::format(
        "'{}' does not launch vLLM; expected vllm serve MODEL or python -m "
        "vllm.entrypoints.openai.api_server --model MODEL",
        fmt::join(words.begin(), words.begin() + std::min<std::size_t>(words.size(), 4), " ")));
  }
  for (std::size_t k = 0; k < words.size() && is_env_assignment(words[k]); ++k) {
    auto eq = words[k].find('=');
    cmd.environment[words[k].substr(0, eq)] = words[k].substr(eq + 1);
  }
  bool positional_seen = false;
  while (i < words.size()) {
    const std::string& word = words[i];
    const int argv_index = static_cast<int>(i);
    if (!is_option(word)) {
      // make_arg_parser's positional model_tag (nargs="?"): at most one.
      if (positional_seen) {
        return fail(
            fmt::format("unexpected argument '{}' (argument {}): vllm serve takes one positional "
                        "argument, the model",
                        word, i));
      }
      positional_seen = true;
      FlagSetting f;
      f.name = "--model";
      f.values = {word};
      f.argv_index = argv_index;
      f.known = true;
      f.modelled = true;
      cmd.flags.push_back(std::move(f));
      ++i;
      continue;
    }
    ++i;
    // -O3, -O=3, -O 3: the optimization level.
    if (word.rfind("-O", 0) == 0 && word.rfind("--", 0) != 0) {
      std::string level;
      if (word.size() > 2) {
        level = word[2] == '=' ? word.substr(3) : word.substr(2);
      } else if (i < words.size() && !is_option(words[i])) {
        level = words[i++];
      } else {
        return fail("-O: expects an optimization level (0, 1, 2 or 3)");
      }
      FlagSetting f;
      f.name = "--optimization-level";
      f.spelled = "-O";
      f.values = {level};
      f.argv_index = argv_index;
      f.known = true;
      f.modelled = true;
      if (Status st = validate_value(*find_capacity_flag(f.name), f, false); !st)
        return st.error();
      cmd.flags.push_back(std::move(f));
      continue;
    }
    std::string key = word;
    std::optional<std::string> inline_value;
    if (auto eq = word.find('='); eq != std::string::npos) {
      key = word.substr(0, eq);
      inline_value = word.substr(eq + 1);
    }
    if (key.rfind("--", 0) == 0)
      key = normalise_long(key);
    // Dotted keys: one part of a JSON-valued flag (--compilation-config.mode 3).
    std::string json_path;
    if (auto dot = key.find('.'); dot != std::string::npos && dot > 1) {
      json_path = key.substr(dot + 1);
      key = key.substr(0, dot);
    }
    Resolved r = resolve_flag(key, surface);
    FlagSetting f;
    f.spelled = json_path.empty() ? key : key + "." + json_path;
    f.argv_index = argv_index;
    f.known = r.known;
    f.name = r.canonical.empty() ? key : r.canonical;
    if (!r.ambiguous_with.empty()) {
      out.notes.push_back({"ambiguous-flag", key,
                           fmt::format("{} is an ambiguous abbreviation (it could be {}); "
                                       "vLLM's argparse exits with an error",
                                       key, fmt::join(r.ambiguous_with, ", "))});
    } else if (r.canonical.empty()) {
      out.notes.push_back(
          {"unknown-flag", key,
           fmt::format("{} is not a `vllm serve` flag{} (argparse exits with 'unrecognized "
                       "arguments'); kept and not modelled",
                       key, surface_date.empty() ? "" : fmt::format(" on main {}", surface_date))});
    }
    if (key == "--config") {
      out.notes.push_back({"config-file-not-read", key,
                           "the flags in the --config YAML file are not read here; pass them on "
                           "the command line to have them modelled"});
    }
    const char arity = json_path.empty() ? r.arity : '1';
    if (inline_value) {
      if (arity == '0')
        return fail(fmt::format("{}: takes no value, got '{}'", key, *inline_value));
      f.values.push_back(*inline_value);
    } else if (arity == '1') {
      // argparse takes the next word even when it starts with '-' only if it is a number.
      if (i >= words.size() || is_option(words[i]))
        return fail(fmt::format("{}: expects a value", f.spelled));
      f.values.push_back(words[i++]);
    } else if (arity == '+' || arity == '*' || arity == '?') {
      while (i < words.size() && !is_option(words[i])) {
        f.values.push_back(words[i++]);
        if (arity == '?')
          break;
      }
      if (arity == '+' && f.values.empty())
        return fail(fmt::format("{}: expects one or more values", f.spelled));
    }
    if (const FlagSpec* spec = find_capacity_flag(f.name)) {
      f.modelled = true;
      f.name = spec->name;
      if (Status st = validate_value(*spec, f, !json_path.empty()); !st)
        return st.error();
    }
    cmd.flags.push_back(std::move(f));
  }
  return out;
}

std::optional<std::vector<std::string>> launch_words_in(std::string_view line) {
  auto words = split_command_line(line);
  if (!words)
    return std::nullopt;
  std::string program;
  const std::size_t after = find_program(*words, &program);
  if (after == std::string::npos)
    return std::nullopt;
  // The program's first word, then the K=V words just before it.
  std::size_t start = after - 1;
  while (start > 0 && (*words)[start] != "-m" && basename_of((*words)[start]) != "vllm" &&
         (*words)[start].rfind("vllm/vllm-openai", 0) != 0)
    --start;
  if ((*words)[start] == "-m" && start > 0)
    --start;  // the python word before -m
  while (start > 0 && is_env_assignment((*words)[start - 1]))
    --start;
  // Before it only a shell prompt or a launcher ("$", "sudo", "uv run", "docker run … IMAGE"):
  // a sentence that mentions `vllm serve` is not a command.
  static constexpr std::string_view kLaunchers[] = {"$",     "#",    ">",    "%",  "+",  "sudo",
                                                    "nohup", "exec", "time", "uv", "run"};
  const bool container = !words->empty() && ((*words)[0] == "docker" || (*words)[0] == "podman");
  // A shell prompt ends in $, #, > or % ("(.venv) user@host:~$"): the words up to it are its.
  std::size_t first = 0;
  for (std::size_t i = 0; i < start; ++i) {
    const std::string& w = (*words)[i];
    const char last = w.empty() ? ' ' : w.back();
    if (last == '$' || last == '#' || last == '>' || last == '%')
      first = i + 1;
  }
  for (std::size_t i = first; i < start && !container; ++i) {
    if (std::find(std::begin(kLaunchers), std::end(kLaunchers), (*words)[i]) ==
        std::end(kLaunchers))
      return std::nullopt;
  }
  std::vector<std::string> out(words->begin() + static_cast<std::ptrdiff_t>(start), words->end());
  if (!parse_vllm_command(out))
    return std::nullopt;  // not a command vLLM would accept
  return out;
}

}  // namespace servescope::vllm
