#include "intake/systemd_unit.h"

#include <fmt/format.h>

#include "core/file.h"
#include "intake/shell_variables.h"
#include "intake/shell_words.h"

namespace servescope {
namespace {

struct UnitLine {
  std::string key, value;
  int line = 0;
};

// The unit's key=value lines with continuations joined; comments (# ;) and sections dropped
// except that only [Service] keys are kept.
std::vector<UnitLine> unit_lines(std::string_view text) {
  std::vector<UnitLine> out;
  std::string section, pending;
  int pending_line = 0, line = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view l = text.substr(pos, end - pos);
    pos = end + 1;
    ++line;
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ' || l.back() == '\t'))
      l.remove_suffix(1);
    std::string_view trimmed = l;
    while (!trimmed.empty() && (trimmed.front() == ' ' || trimmed.front() == '\t'))
      trimmed.remove_prefix(1);
    if (pending.empty()) {
      if (trimmed.empty() || trimmed.front() == '#' || trimmed.front() == ';')
        continue;
      if (trimmed.front() == '[') {
        section = std::string(trimmed);
        continue;
      }
      pending_line = line;
    } else if (!trimmed.empty() && (trimmed.front() == '#' || trimmed.front() == ';')) {
      continue;  // comment lines inside a continuation are skipped (systemd.syntax(7))
    }
    const bool continues = !l.empty() && l.back() == '\\';
    if (continues)
      l.remove_suffix(1);
    pending += std::string(l);
    if (continues && pos <= text.size()) {
      pending += ' ';
      continue;
    }
    const auto eq = pending.find('=');
    if (eq != std::string::npos && (section.empty() || section == "[Service]")) {
      std::string key = pending.substr(0, eq);
      while (!key.empty() && (key.back() == ' ' || key.front() == ' '))
        key = key.back() == ' ' ? key.substr(0, key.size() - 1) : key.substr(1);
      std::string value = pending.substr(eq + 1);
      while (!value.empty() && value.front() == ' ')
        value.erase(0, 1);
      out.push_back({key, value, pending_line});
    }
    pending.clear();
  }
  return out;
}

void read_assignments(std::string_view text, std::map<std::string, std::string>& env) {
  auto words = split_shell_commands(text);
  if (!words)
    return;
  for (const ShellCommand& c : *words) {
    for (std::string w : c.words) {
      if (w == "export")
        continue;
      const auto eq = w.find('=');
      if (eq != std::string::npos && eq > 0)
        env[w.substr(0, eq)] = w.substr(eq + 1);
    }
  }
}

}  // namespace

bool looks_like_systemd_unit(std::string_view text) {
  return text.find("[Service]") != std::string_view::npos ||
         text.find("\nExecStart=") != std::string_view::npos || text.rfind("ExecStart=", 0) == 0;
}

Result<LaunchInput> launch_in_systemd_unit(std::string_view text, std::string_view name,
                                           const LaunchRecognizer& launches) {
  std::map<std::string, std::string> env;
  std::vector<std::string> notes;
  const UnitLine* exec = nullptr;
  const std::vector<UnitLine> lines = unit_lines(text);
  for (const UnitLine& l : lines) {
    if (l.key == "Environment") {
      read_assignments(l.value, env);
      notes.push_back(fmt::format("environment from {}:{}, Environment=", name, l.line));
    } else if (l.key == "EnvironmentFile") {
      std::string path = l.value;
      const bool optional = !path.empty() && path.front() == '-';
      if (optional)
        path.erase(0, 1);
      auto content = read_file(path);
      if (content) {
        read_assignments(*content, env);
        notes.push_back(
            fmt::format("environment from {} (EnvironmentFile= at {}:{})", path, name, l.line));
      } else {
        notes.push_back(
            fmt::format("EnvironmentFile={} at {}:{} is not on this machine; its "
                        "variables are not read (pass them with --env)",
                        path, name, l.line));
      }
    } else if (l.key == "ExecStart" && !l.value.empty()) {
      exec = &l;
    }
  }
  if (exec == nullptr)
    return fail(fmt::format("{}: the unit has no ExecStart= line", name));
  std::string_view command = exec->value;
  while (!command.empty() &&
         std::string_view("-@:+!").find(command.front()) != std::string_view::npos)
    command.remove_prefix(1);
  auto words = split_shell_words(command);
  if (!words)
    return fail(fmt::format("{}:{}: ExecStart: {}", name, exec->line, words.message()));
  for (std::string& w : *words)
    w = expand_variables(w, env).text;
  auto found = launch_in_words(*words, launches);
  if (!found) {
    return fail(fmt::format("{}:{}: ExecStart= does not launch SGLang or vLLM", name, exec->line));
  }
  for (auto& [k, v] : env)
    found->environment.emplace(k, v);
  count_visible_gpus(*found);
  found->origin = fmt::format("{}:{}, ExecStart", name, exec->line);
  found->notes.insert(found->notes.begin(), notes.begin(), notes.end());
  return std::move(*found);
}

}  // namespace servescope
