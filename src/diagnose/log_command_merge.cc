#include "diagnose/log_command_merge.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>

#include "core/file.h"
#include "core/text.h"

namespace servescope {
namespace {

// The extensions a launch command is kept under beside a log. A .txt file is not one of them:
// logs are published as .txt as often as commands are.
constexpr std::array<std::string_view, 8> kCommandExtensions = {
    ".cmd", ".sh", ".args", ".flags", ".env", ".service", ".yaml", ".yml"};

std::string last_component(std::string_view v) {
  while (v.size() > 1 && v.back() == '/')
    v.remove_suffix(1);
  const auto slash = v.rfind('/');
  return std::string(slash == std::string_view::npos ? v : v.substr(slash + 1));
}

// One value as both sides print it: quotes and case of booleans do not make a difference, nor
// does 0.90 against 0.9, nor a model's directory mounted at another path ("/models/X" in the
// container, "/data/models/X" on the host).
bool same_value(const std::string& a, const std::string& b) {
  auto norm = [](std::string v) {
    if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"') && v.back() == v.front())
      v = v.substr(1, v.size() - 2);
    std::string lower = v;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower == "true" || lower == "false" || lower == "none")
      return lower;
    return v;
  };
  const std::string x = norm(a), y = norm(b);
  if (x == y)
    return true;
  if (auto nx = parse_double(x), ny = parse_double(y); nx && ny)
    return std::abs(*nx - *ny) <= 1e-9 * std::max(1.0, std::abs(*nx));
  if (x.find('/') != std::string::npos || y.find('/') != std::string::npos)
    return last_component(x) == last_component(y);
  return false;
}

bool same_values(const FlagSetting& a, const FlagSetting& b) {
  if (a.values.size() != b.values.size())
    return false;
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    if (!same_value(a.values[i], b.values[i]))
      return false;
  }
  return true;
}

std::string shown(const FlagSetting& f) {
  return f.values.empty() ? std::string("(set)") : fmt::format("{}", fmt::join(f.values, " "));
}

// The log's settings without a model are only the program: the user's command stands for them.
bool log_shows_settings(const LogScenario& log) {
  return log.capacity_command.size() > 3 || log.typed_command_known;
}

// What the log lacks and the user's input now supplies: the model ("the model path …") or the
// settings ("the server_args dump or the launch command").
void drop_missing(LogScenario& log, bool model) {
  std::erase_if(log.missing, [&](const std::string& m) {
    return model ? m.rfind("the model", 0) == 0 : m.find("launch command") != std::string::npos;
  });
}

// Joins one parsed flag of the user's to the log's settings. Where they disagree the log wins:
// `typed` (the user's command, standing for what was typed) takes the log's value.
void merge_flag(const FlagSetting& flag, const LaunchCommand& logged, const std::string& origin,
                LogScenario& log, LaunchCommand& typed, CommandMerge& out) {
  const FlagSetting* shown_by_log = logged.find(flag.name);
  if (shown_by_log == nullptr && log.settings_complete && flag.modelled) {
    out.contradictions.push_back(
        fmt::format("{}: {} gives {}; the log's settings show it unset; the log's value "
                    "stands (the command may be stale)",
                    flag.name, origin, shown(flag)));
    typed = typed.without_flag(flag.name);
    return;
  }
  if (shown_by_log == nullptr && log.settings_complete)
    return;  // a setting no capacity rule reads: the log shows it, but not as a flag
  if (shown_by_log == nullptr) {
    log.capacity_command.push_back(flag.name);
    log.capacity_command.insert(log.capacity_command.end(), flag.values.begin(), flag.values.end());
    out.filled.push_back(flag.as_typed());
    return;
  }
  if (!same_values(flag, *shown_by_log)) {
    out.contradictions.push_back(
        fmt::format("{}: {} gives {}; the log shows {}; the log's value stands (the command "
                    "may be stale, or the engine changed the value)",
                    flag.name, origin, shown(flag), shown(*shown_by_log)));
    FlagSetting corrected = flag;
    corrected.values = shown_by_log->values;
    typed = typed.with_flag(corrected);
  }
}

}  // namespace

Result<LaunchInput> read_user_command(const std::string& from,
                                      const std::vector<std::string>& words, const Engine* engine) {
  ScenarioOptions o;
  o.from = from;
  o.command = words;
  // Flags alone after -- stand for the engine's program with them.
  if (from.empty() && !words.empty() && words.front().rfind("-", 0) == 0 && engine != nullptr) {
    o.command = engine->program();
    o.command.insert(o.command.end(), words.begin(), words.end());
  }
  auto read = read_launch_input(o, engine);
  if (read || from.empty())
    return read;
  auto text = read_file(from);
  if (!text)
    return read;
  // A launch whose reading failed after it was found (its --config file): that error stands.
  if (read_launch_text(*text, from, launch_recognizer(engine)))
    return read;
  return read_user_command_text(*text, from, engine);
}

Result<LaunchInput> read_user_command_text(std::string_view text, const std::string& name,
                                           const Engine* engine) {
  auto launch = read_launch_text(text, name, launch_recognizer(engine));
  if (launch)
    return launch;
  LaunchInput input;
  input.origin = name;
  if (auto env = environment_in_text(text)) {
    input.environment = std::move(*env);
    input.notes.push_back(
        fmt::format("{}: an environment file ({} variables)", name, input.environment.size()));
    return input;
  }
  if (auto flags = flags_in_text(text)) {
    if (engine == nullptr)
      return fail(
          fmt::format("--from {}: a file of flags alone; give --engine NAME so the "
                      "flags have a program",
                      name));
    input.argv = engine->program();
    input.argv.insert(input.argv.end(), flags->begin(), flags->end());
    input.notes.push_back(fmt::format("{}: the engine's flags alone", name));
    return input;
  }
  return launch;
}

Result<GivenCommand> given_command_beside(const LogFacts& facts, const std::string& from,
                                          const std::vector<std::string>& words) {
  auto engine = find_engine(std::string(facts.engine()));
  if (!engine)
    return fail("the log names no engine whose settings a command could be held against");
  auto log = (*engine)->scenario_from_log(facts.all());
  if (!log)
    return log.error();
  GivenCommand out;
  out.origin = from.empty() ? std::string("the command after --") : from;
  auto input = read_user_command(from, words, *engine);
  if (!input)
    return input.error();
  out.input = std::move(*input);
  auto merged = merge_user_command(**engine, out.input, out.origin, *log);
  if (!merged)
    return merged.error();
  out.merge = std::move(*merged);
  return out;
}

Result<CommandMerge> merge_user_command(const Engine& engine, const LaunchInput& input,
                                        const std::string& origin, LogScenario& log) {
  CommandMerge out;
  for (const auto& [name, value] : input.environment) {
    auto it = log.environment.find(name);
    if (it == log.environment.end()) {
      log.environment[name] = value;
    } else if (it->second != value) {
      out.contradictions.push_back(
          fmt::format("{}: {} sets {}; the log's launch line sets {}; the log's value stands", name,
                      origin, value, it->second));
    }
  }
  if (log.launch_origin.empty() && !input.environment.empty())
    log.launch_origin = origin;
  if (input.argv.empty())
    return out;  // an environment file: nothing more to join
  auto typed = engine.parse_command(input.argv);
  if (!typed)
    return fail(fmt::format("the launch command in {}: {}", origin, typed.message()));
  if (!log_shows_settings(log)) {
    // Nothing to weigh it against: the command is the run's settings.
    log.capacity_command = input.argv;
    log.defaults_command = input.argv;
    log.typed_command_known = true;
  } else {
    auto logged = engine.parse_command(log.capacity_command);
    if (!logged)
      return fail("the settings the log shows do not form a valid command: " + logged.message());
    LaunchCommand corrected = *typed;
    for (const FlagSetting& flag : typed->flags) {
      if (flag.known)
        merge_flag(flag, *logged, origin, log, corrected, out);
    }
    if (!log.typed_command_known) {
      // The dump cannot tell a typed value from a default; the user's command can.
      log.defaults_command = corrected.words;
      log.typed_command_known = true;
    }
  }
  if (log.model_path.empty())
    log.model_path = engine.model_path(*typed);
  if (!log.model_path.empty())
    drop_missing(log, true);
  drop_missing(log, false);
  return out;
}

std::string canonical_flag(const Engine& engine, const std::string& spelled) {
  std::vector<std::string> words = engine.program();
  words.insert(words.end(), {spelled, "1"});
  auto parsed = engine.parse_command(words);
  return parsed && !parsed->flags.empty() && parsed->flags.front().known
             ? parsed->flags.front().name
             : std::string();
}

Result<CommandMerge> merge_user_flag(const Engine& engine, const std::string& flag,
                                     const std::string& value, const std::string& why,
                                     LogScenario& log) {
  CommandMerge out;
  auto logged = engine.parse_command(log.capacity_command);
  if (!logged)
    return fail("the settings the log shows do not form a valid command: " + logged.message());
  const std::string name = canonical_flag(engine, flag);
  if (name.empty())
    return fail(fmt::format("{} {}: not a flag of {}", why, value, engine.name()));
  if (const FlagSetting* f = logged->find(name)) {
    if (!f->values.empty() && !same_value(f->values.front(), value)) {
      out.contradictions.push_back(
          fmt::format("{}: {} gives {}; the log shows {}; the log's value stands", flag, why, value,
                      shown(*f)));
    }
    return out;
  }
  for (std::vector<std::string>* words : {&log.capacity_command, &log.defaults_command}) {
    words->push_back(flag);
    words->push_back(value);
  }
  out.filled.push_back(fmt::format("{} {} ({})", flag, value, why));
  return out;
}

void assume_defaults_with_model(const Engine& engine, const std::string& model, LogScenario& log) {
  if (log_shows_settings(log))
    return;
  log.capacity_command = engine.program();
  log.capacity_command.push_back("--model");
  log.capacity_command.push_back(model);
  log.defaults_command = log.capacity_command;
  if (log.model_path.empty())
    log.model_path = model;
  drop_missing(log, true);
  drop_missing(log, false);
}

std::string command_file_beside(const std::string& log_path) {
  const std::filesystem::path p(log_path);
  std::error_code ec;
  for (std::string_view ext : kCommandExtensions) {
    std::filesystem::path candidate = p;
    candidate.replace_extension(ext);
    if (candidate != p && std::filesystem::is_regular_file(candidate, ec))
      return candidate.string();
  }
  return "";
}

bool is_command_file_name(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  return std::find(kCommandExtensions.begin(), kCommandExtensions.end(), ext) !=
         kCommandExtensions.end();
}

bool pairs_with_a_log(const std::string& file, const std::vector<std::string>& files) {
  if (!is_command_file_name(file))
    return false;
  const std::filesystem::path stem = std::filesystem::path(file).replace_extension();
  return std::any_of(files.begin(), files.end(), [&](const std::string& other) {
    return other != file && !is_command_file_name(other) &&
           std::filesystem::path(other).replace_extension() == stem;
  });
}

}  // namespace servescope
