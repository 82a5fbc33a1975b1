#include "engines/sglang/sglang_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/text.h"
#include "engines/release_flags.h"
#include "engines/sglang/sglang_flags.h"

namespace servescope::sglang {
namespace {

// Entry points whose arguments are ServerArgs (bench_one_batch shares the pool sizing).
constexpr std::string_view kModules[] = {"sglang.launch_server", "sglang.bench_one_batch",
                                         "sglang.bench_offline_throughput"};

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

// Index of the first flag word after the program, and the program text; npos if absent.
std::size_t find_program(const std::vector<std::string>& words, std::string* program) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] == "-m" && i + 1 < words.size()) {
      for (std::string_view m : kModules) {
        if (words[i + 1] == m) {
          *program = (i > 0 ? words[i - 1] : std::string("python")) + " -m " + words[i + 1];
          return i + 2;
        }
      }
    }
    const std::string base =
        words[i].substr(words[i].rfind('/') == std::string::npos ? 0 : words[i].rfind('/') + 1);
    if (base == "sglang" && i + 1 < words.size() && words[i + 1] == "serve") {
      *program = "sglang serve";
      return i + 2;
    }
  }
  return std::string::npos;
}

bool is_option(std::string_view w) {
  return is_option_word(w);
}

struct Resolved {
  std::string canonical;  // the flag's canonical name ("" if unknown)
  char arity = '?';
  bool known = false;    // in the newest CLI surface
  bool removed = false;  // only in older versions
  std::vector<std::string> ambiguous_with;
};

const CliFlag* surface_exact(std::string_view name) {
  return find_cli_flag(cli_surface(), name);
}

Resolved resolve_flag(std::string_view name) {
  Resolved r;
  if (const CliFlag* f = surface_exact(name)) {
    r.canonical = f->name;
    r.arity = f->arity;
    r.known = true;
    return r;
  }
  for (const CliFlag& f : removed_flags()) {
    if (f.name == name) {
      r.canonical = f.name;
      r.arity = f.arity;
      r.removed = true;
      return r;
    }
  }
  // argparse (allow_abbrev=True): a unique prefix of one option string selects it.
  std::vector<const CliFlag*> hits;
  std::vector<std::string> spellings;
  for (const CliFlag& f : cli_surface()) {
    bool hit = f.name.rfind(name, 0) == 0;
    for (const std::string& a : f.aliases)
      hit = hit || a.rfind(name, 0) == 0;
    if (hit) {
      hits.push_back(&f);
      spellings.push_back(f.name);
    }
  }
  if (hits.size() == 1) {
    r.canonical = hits[0]->name;
    r.arity = hits[0]->arity;
    r.known = true;
    return r;
  }
  if (hits.empty()) {
    // A flag of another release (added after the modelled main, or removed before it): the
    // newest release table that has it gives its arity.
    if (const ReleaseFlag* f = ReleaseFlagTables::of("sglang").newest_row(name)) {
      r.canonical = f->flag;
      r.arity = f->arity;
      r.removed = true;
    }
    return r;
  }
  if (hits.size() > 1) {
    r.ambiguous_with = spellings;
    // Read it as the capacity flag it most likely abbreviates, if exactly one is.
    const CliFlag* chosen = nullptr;
    int capacity_hits = 0;
    for (const CliFlag* f : hits) {
      if (find_capacity_flag(f->name) != nullptr) {
        chosen = f;
        ++capacity_hits;
      }
    }
    if (capacity_hits == 1) {
      r.canonical = chosen->name;
      r.arity = chosen->arity;
    }
  }
  return r;
}

}  // namespace

bool launches_sglang(const std::vector<std::string>& words) {
  std::string program;
  return find_program(words, &program) != std::string::npos;
}

Result<ParsedSglangCommand> parse_sglang_command(const std::vector<std::string>& words) {
  if (words.empty()) {
    return fail(
        "empty launch command; give it after --, e.g. -- python -m sglang.launch_server "
        "--model-path M");
  }
  ParsedSglangCommand out;
  LaunchCommand& cmd = out.command;
  cmd.words = words;
  std::size_t i = find_program(words, &cmd.program);
  if (i == std::string::npos) {
    return fail(fmt::format(
        "'{}' does not launch SGLang; expected python -m sglang.launch_server or "
        "sglang serve",
        fmt::join(words.begin(), words.begin() + std::min<std::size_t>(words.size(), 4), " ")));
  }
  for (std::size_t k = 0; k < words.size() && !words[k].empty() && is_env_assignment(words[k]);
       ++k) {
    auto eq = words[k].find('=');
    cmd.environment[words[k].substr(0, eq)] = words[k].substr(eq + 1);
  }
  while (i < words.size()) {
    const std::string& word = words[i];
    if (!is_option(word)) {
      // `sglang serve MODEL` style positional model path.
      FlagSetting f;
      f.name = "--model-path";
      f.spelled = "";
      f.values = {word};
      f.argv_index = static_cast<int>(i);
      f.known = true;
      f.modelled = true;
      if (cmd.has("--model-path")) {
        return fail(
            fmt::format("unexpected argument '{}' (argument {}): SGLang takes no "
                        "positional arguments besides the model",
                        word, i));
      }
      cmd.flags.push_back(std::move(f));
      ++i;
      continue;
    }
    std::string spelled = word;
    std::optional<std::string> inline_value;
    if (auto eq = word.find('='); eq != std::string::npos) {
      spelled = word.substr(0, eq);
      inline_value = word.substr(eq + 1);
    }
    Resolved r = resolve_flag(spelled);
    FlagSetting f;
    f.spelled = spelled;
    f.argv_index = static_cast<int>(i);
    f.known = r.known;
    if (!r.ambiguous_with.empty()) {
      out.notes.push_back(
          {"ambiguous-flag", spelled,
           fmt::format("{} is an ambiguous abbreviation (it could be {}); "
                       "SGLang's argparse exits with an error{}",
                       spelled, fmt::join(r.ambiguous_with, ", "),
                       r.canonical.empty() ? "" : "; read here as " + r.canonical)});
    } else if (r.removed) {
      out.notes.push_back(
          {"flag-not-in-version", spelled,
           fmt::format("{} is not accepted by SGLang main 2026-07-20 (argparse "
                       "exits with 'unrecognized arguments'); it belongs to another release",
                       spelled)});
    } else if (r.canonical.empty()) {
      out.notes.push_back({"unknown-flag", spelled,
                           fmt::format("{} is not an SGLang 2026-07-20 flag (argparse exits with "
                                       "'unrecognized arguments'); kept and not modelled",
                                       spelled)});
    }
    f.name = r.canonical.empty() ? spelled : r.canonical;
    char arity = r.arity;
    ++i;
    if (inline_value) {
      if (arity == '0') {
        return fail(fmt::format("{}: takes no value, got '{}'", spelled, *inline_value));
      }
      f.values.push_back(*inline_value);
    } else if (arity == '1') {
      if (i >= words.size() || is_option(words[i])) {
        return fail(fmt::format("{}: expects a value", spelled));
      }
      f.values.push_back(words[i++]);
    } else if (arity == '+' || arity == '*' || arity == '?') {
      // Unknown flags (arity '?') take the following words that are not options.
      while (i < words.size() && !is_option(words[i])) {
        f.values.push_back(words[i++]);
        if (arity == '?' && !f.values.empty())
          break;
      }
      if (arity == '+' && f.values.empty())
        return fail(fmt::format("{}: expects one or more values", spelled));
    }
    // The capacity table may know the flag by a spelling the surface maps elsewhere
    // (deprecated names are their own entries there).
    const FlagSpec* spec = find_capacity_flag(f.name);
    if (spec == nullptr)
      spec = find_capacity_flag(spelled);
    if (spec != nullptr) {
      f.modelled = true;
      f.name = spec->name;
      Status st = validate_flag_value(*spec, spelled, f.values);
      if (!st)
        return st.error();
    }
    cmd.flags.push_back(std::move(f));
  }
  return out;
}

}  // namespace servescope::sglang
