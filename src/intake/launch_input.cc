#include "intake/launch_input.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "intake/container_run.h"
#include "intake/shell_variables.h"
#include "intake/shell_words.h"

namespace servescope {
namespace {

bool is_assignment(std::string_view w) {
  const auto eq = w.find('=');
  if (eq == std::string_view::npos || eq == 0)
    return false;
  if (std::isdigit(static_cast<unsigned char>(w[0])))
    return false;
  return std::all_of(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(eq), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

void assign(std::string_view w, std::map<std::string, std::string>& env) {
  const auto eq = w.find('=');
  env[std::string(w.substr(0, eq))] = std::string(w.substr(eq + 1));
}

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

// A shell prompt's last word: "$", "#", "%", ">", "user@host:~$", "(venv)$".
bool is_prompt_end(std::string_view w) {
  if (w.empty())
    return false;
  const char last = w.back();
  return last == '$' || last == '#' || last == '%' || last == '>';
}

// Options of a wrapper program that take the next word as their value.
bool takes_value(std::string_view program, std::string_view option) {
  if (option.find('=') != std::string_view::npos)
    return false;
  static const std::map<std::string_view, std::vector<std::string_view>> kValued = {
      {"env", {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}},
      {"sudo", {"-u", "--user", "-g", "--group", "-C", "-D", "--chdir", "-h", "--host"}},
      {"nice", {"-n", "--adjustment"}},
      {"numactl",
       {"-N", "--cpunodebind", "-m", "--membind", "-C", "--physcpubind", "-p", "--preferred", "-i",
        "--interleave"}},
      {"taskset", {"-c", "--cpu-list"}},
      {"uv",
       {"--with", "--python", "-p", "--project", "--directory", "--env-file", "--extra",
        "--with-requirements", "--package", "--group", "--index", "--index-url"}},
      {"conda", {"-n", "--name", "-p", "--prefix"}},
      {"srun",
       {"-N",
        "--nodes",
        "-n",
        "--ntasks",
        "-c",
        "--cpus-per-task",
        "-G",
        "--gpus",
        "-p",
        "--partition",
        "-t",
        "--time",
        "-J",
        "--job-name",
        "-w",
        "--nodelist",
        "-A",
        "--account",
        "--gres",
        "--mem",
        "--container-image",
        "--container-mounts"}},
      {"stdbuf", {"-i", "-o", "-e"}},
  };
  auto it = kValued.find(program);
  if (it == kValued.end())
    return false;
  return std::find(it->second.begin(), it->second.end(), option) != it->second.end();
}

// Skips `program`'s options from words[i]; returns the index of the first word after them, at
// most words.size() (an option that takes a value may be the last word).
std::size_t skip_options(std::string_view program, const std::vector<std::string>& words,
                         std::size_t i) {
  while (i < words.size() && words[i].size() > 1 && words[i][0] == '-') {
    if (words[i] == "--")
      return i + 1;
    i += takes_value(program, words[i]) ? 2 : 1;
  }
  return std::min(i, words.size());
}

struct Stripped {
  std::size_t program = 0;  // index of the engine program's first word
  LaunchInput input;
  bool ok = true;
};

// Strips wrappers from words[start]; input.environment collects VAR=value words.
Stripped strip_wrappers(const std::vector<std::string>& words, std::size_t start,
                        const LaunchRecognizer& launches) {
  Stripped out;
  std::size_t i = start;
  while (i < words.size()) {
    const std::string& w = words[i];
    const std::string base = w.substr(w.rfind('/') == std::string::npos ? 0 : w.rfind('/') + 1);
    if (is_assignment(w)) {
      assign(w, out.input.environment);
      ++i;
    } else if (base == "env") {
      i = skip_options("env", words, i + 1);
    } else if (base == "sudo" || base == "nice" || base == "numactl" || base == "stdbuf" ||
               base == "srun") {
      if (base == "srun")
        out.input.notes.push_back("launched through srun (its options are not read)");
      i = skip_options(base, words, i + 1);
    } else if (base == "taskset") {
      const std::size_t after = skip_options("taskset", words, i + 1);
      const bool list_given = after > i + 1;
      // `taskset MASK CMD` when no -c LIST; a bare `taskset MASK` leaves no command.
      i = std::min(words.size(), after + (list_given ? 0 : 1));
    } else if (base == "nohup" || base == "exec" || base == "time" || base == "command" ||
               base == "unbuffer") {
      ++i;
    } else if ((base == "uv" || base == "poetry" || base == "pixi" || base == "pdm" ||
                base == "rye" || base == "hatch") &&
               i + 1 < words.size() && words[i + 1] == "run") {
      i = skip_options("uv", words, i + 2);
    } else if ((base == "conda" || base == "mamba" || base == "micromamba") &&
               i + 1 < words.size() && words[i + 1] == "run") {
      i = skip_options("conda", words, i + 2);
    } else if ((base == "sh" || base == "bash" || base == "zsh" || base == "dash") &&
               i + 2 < words.size() &&
               (words[i + 1] == "-c" || words[i + 1] == "-lc" || words[i + 1] == "-ec" ||
                words[i + 1] == "-xc")) {
      auto inner = launch_in_shell_text(words[i + 2], "", launches);
      if (!inner) {
        out.ok = false;
        return out;
      }
      for (auto& [k, v] : out.input.environment)
        inner->environment.emplace(k, v);
      inner->notes.insert(inner->notes.begin(), fmt::format("run by {} {}", base, words[i + 1]));
      out.input = std::move(*inner);
      out.program = words.size();  // argv already set
      return out;
    } else if (auto run = container_run(words, i, launches)) {
      for (auto& [k, v] : run->environment)
        out.input.environment.emplace(k, v);
      out.input.image = run->image;
      out.input.image_version = version_from_image(run->image);
      if (run->gpu_count) {
        out.input.gpu_count = run->gpu_count;
        out.input.gpu_count_source = run->gpu_source;
      }
      out.input.notes.insert(out.input.notes.end(), run->notes.begin(), run->notes.end());
      std::vector<std::string> rest = run->command;
      // `sh -c TEXT` or a plain command after the image.
      auto inner = strip_wrappers(rest, 0, launches);
      if (!inner.ok) {
        out.ok = false;
        return out;
      }
      if (inner.program == rest.size() && !inner.input.argv.empty()) {
        for (auto& [k, v] : inner.input.environment)
          out.input.environment[k] = v;
        out.input.argv = std::move(inner.input.argv);
      } else {
        for (auto& [k, v] : inner.input.environment)
          out.input.environment[k] = v;
        out.input.argv.assign(rest.begin() + static_cast<std::ptrdiff_t>(inner.program),
                              rest.end());
      }
      out.program = words.size();
      return out;
    } else {
      break;
    }
  }
  out.program = i;
  return out;
}

}  // namespace

std::optional<int> gpus_in_visible_devices(std::string_view value) {
  if (value.empty() || value == "NoDevFiles" || value == "-1")
    return std::nullopt;
  int n = 1;
  for (char c : value) {
    if (c == ',')
      ++n;
    else if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == ' '))
      return std::nullopt;
  }
  return n;
}

void count_visible_gpus(LaunchInput& input) {
  if (input.gpu_count)
    return;
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"}) {
    auto it = input.environment.find(name);
    if (it == input.environment.end())
      continue;
    if (auto n = gpus_in_visible_devices(it->second)) {
      input.gpu_count = n;
      input.gpu_count_source = fmt::format("{}={}", it->first, it->second);
    }
    return;
  }
}

std::string version_from_image(std::string_view image) {
  const auto colon = image.rfind(':');
  if (colon == std::string_view::npos || image.find('@') != std::string_view::npos)
    return {};
  if (image.substr(colon).find('/') != std::string_view::npos)
    return {};  // "registry:5000/sglang" has a port, not a tag
  std::string_view tag = image.substr(colon + 1);
  if (!tag.empty() && (tag[0] == 'v' || tag[0] == 'V'))
    tag.remove_prefix(1);
  // The release: digits and dots, then an optional .postN / rcN; a suffix after '-' is the
  // build (cu126, rocm700-mi30x).
  std::size_t n = 0;
  int dots = 0;
  while (n < tag.size() && (std::isdigit(static_cast<unsigned char>(tag[n])) || tag[n] == '.')) {
    dots += tag[n] == '.';
    ++n;
  }
  if (dots < 1 || n == 0 || !std::isdigit(static_cast<unsigned char>(tag[0])))
    return {};
  std::string version(tag.substr(0, n));
  if (!version.empty() && version.back() == '.')
    version.pop_back();
  std::string_view rest = tag.substr(n);
  if (starts_with(rest, "post") || starts_with(rest, "rc")) {
    std::size_t k = rest[0] == 'p' ? 4 : 2;
    while (k < rest.size() && std::isdigit(static_cast<unsigned char>(rest[k])))
      ++k;
    version += "." + std::string(rest.substr(0, k));
    if (rest[0] == 'r')
      version.replace(version.size() - k - 1, 1, "");  // 0.6.0rc1, not 0.6.0.rc1
  }
  return version;
}

std::optional<LaunchInput> launch_in_words(const std::vector<std::string>& words,
                                           const LaunchRecognizer& launches) {
  // A prompt may stand before the command: try the start after each prompt-like word among
  // the first few ("(venv) user@host:~$ python -m ...").
  std::vector<std::size_t> starts = {0};
  for (std::size_t k = 0; k < words.size() && k < 8; ++k) {
    if (starts_with(words[k], "-"))
      break;
    if (is_prompt_end(words[k]))
      starts.push_back(k + 1);
  }
  for (auto it = starts.rbegin(); it != starts.rend(); ++it) {
    Stripped s = strip_wrappers(words, *it, launches);
    if (!s.ok)
      continue;
    if (s.program == words.size() && !s.input.argv.empty()) {
      if (!launches(s.input.argv))
        continue;
    } else {
      std::vector<std::string> rest(words.begin() + static_cast<std::ptrdiff_t>(s.program),
                                    words.end());
      if (rest.empty() || !launches(rest))
        continue;
      s.input.argv = std::move(rest);
    }
    count_visible_gpus(s.input);
    return std::move(s.input);
  }
  return std::nullopt;
}

Result<LaunchInput> launch_in_shell_text(std::string_view text, std::string_view origin,
                                         const LaunchRecognizer& launches) {
  auto commands = split_shell_commands(text);
  if (!commands) {
    return fail(origin.empty() ? commands.message()
                               : fmt::format("{}: {}", origin, commands.message()));
  }
  std::map<std::string, std::string> script_env;
  for (const ShellCommand& c : *commands) {
    // `export A=1 B=2` and bare `A=1` lines set the script's environment.
    const bool exports = c.words.front() == "export";
    if (exports || std::all_of(c.words.begin(), c.words.end(), is_assignment)) {
      for (std::size_t k = exports ? 1 : 0; k < c.words.size(); ++k) {
        if (is_assignment(c.words[k])) {
          const auto eq = c.words[k].find('=');
          script_env[c.words[k].substr(0, eq)] =
              expand_variables(c.words[k].substr(eq + 1), script_env).text;
        }
      }
      continue;
    }
    std::vector<std::string> words = c.words;
    for (std::string& w : words)
      w = expand_variables(w, script_env).text;
    auto found = launch_in_words(words, launches);
    if (!found)
      continue;
    for (auto& [k, v] : script_env)
      found->environment.emplace(k, v);
    std::vector<std::string> unexpanded;
    for (const std::string& w : found->argv) {
      for (const std::string& name : expand_variables(w, found->environment).unknown)
        unexpanded.push_back("$" + name);
    }
    if (!unexpanded.empty()) {
      found->notes.push_back(
          fmt::format("not expanded (not set in the text): {}", fmt::join(unexpanded, ", ")));
    }
    if (found->origin.empty())
      found->origin = origin.empty() ? std::string() : fmt::format("{}:{}", origin, c.line);
    return std::move(*found);
  }
  // A root prompt "# python -m …" reads as a comment; try the lines that start with one.
  std::size_t pos = 0;
  int line = 1;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view l = text.substr(pos, end - pos);
    while (!l.empty() && (l.front() == ' ' || l.front() == '\t'))
      l.remove_prefix(1);
    if (starts_with(l, "# ")) {
      auto words = split_shell_words(l.substr(2));
      if (words) {
        if (auto found = launch_in_words(*words, launches)) {
          found->origin = origin.empty() ? std::string() : fmt::format("{}:{}", origin, line);
          return std::move(*found);
        }
      }
    }
    pos = end + 1;
    ++line;
  }
  return fail(fmt::format(
      "{}names no engine launch command (python -m sglang.launch_server, sglang serve, vllm "
      "serve, python -m vllm.entrypoints.openai.api_server); give the command after --",
      origin.empty() ? std::string() : std::string(origin) + ": "));
}

}  // namespace servescope
