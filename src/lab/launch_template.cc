#include "lab/launch_template.h"

#include <fmt/format.h>

#include <array>

#include "core/text.h"

namespace servescope {
namespace {

constexpr std::array<std::string_view, 4> kPlaceholders = {"flags", "port", "run_dir", "gpus"};

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || c == '_';
}

// Every "{name}" in `text` with a lower-case name, in order.
std::vector<std::string> placeholders_in(std::string_view text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '{')
      continue;
    std::size_t j = i + 1;
    while (j < text.size() && is_name_char(text[j]))
      ++j;
    if (j > i + 1 && j < text.size() && text[j] == '}')
      out.emplace_back(text.substr(i + 1, j - i - 1));
  }
  return out;
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

std::string substitute(std::string_view text, const Placeholders& v, bool quote) {
  std::string out(text);
  out = replace_all(std::move(out), "{port}", std::to_string(v.port));
  out = replace_all(std::move(out), "{run_dir}", quote ? shell_quote(v.run_dir) : v.run_dir);
  out = replace_all(std::move(out), "{gpus}", quote ? shell_quote(v.gpus) : v.gpus);
  out = replace_all(std::move(out), "{host}", v.host);
  return out;
}

}  // namespace

Result<LaunchTemplate> LaunchTemplate::parse(std::string_view text, bool shell) {
  LaunchTemplate t;
  t.text_ = std::string(trim(text));
  t.shell_ = shell;
  if (t.text_.empty())
    return fail("--launch: the template is empty; give the server command with {flags}");
  auto words = split_command_line(t.text_);
  if (!words)
    return fail(fmt::format("--launch '{}': unbalanced quotes", t.text_));
  t.words_ = std::move(*words);
  for (const std::string& name : placeholders_in(t.text_)) {
    bool known = false;
    for (std::string_view k : kPlaceholders)
      known = known || name == k;
    if (!known)
      return fail(fmt::format(
          "--launch: unknown placeholder {{{}}}; the template takes {{flags}}, {{port}}, "
          "{{run_dir}} and {{gpus}}",
          name));
  }
  if (!t.uses("{flags}"))
    return fail(
        "--launch: the template has no {flags}; put {flags} where the configuration's flags "
        "go, e.g. 'python -m server --model M {flags} --port {port}'");
  if (!shell) {
    for (const std::string& w : t.words_) {
      if (w != "{flags}" && contains(w, "{flags}"))
        return fail(fmt::format(
            "--launch: {{flags}} is glued to other text in '{}'; make it a word of its own (or "
            "use --shell)",
            w));
    }
  }
  return t;
}

bool LaunchTemplate::uses(std::string_view placeholder) const {
  return contains(text_, placeholder);
}

std::vector<std::string> LaunchTemplate::expand(const Placeholders& values) const {
  if (shell_) {
    std::string flags;
    for (const std::string& f : values.flags)
      flags += (flags.empty() ? "" : " ") + shell_quote(f);
    return {"/bin/sh", "-c", replace_all(substitute(text_, values, true), "{flags}", flags)};
  }
  std::vector<std::string> out;
  for (const std::string& w : words_) {
    if (w == "{flags}")
      out.insert(out.end(), values.flags.begin(), values.flags.end());
    else
      out.push_back(substitute(w, values, false));
  }
  return out;
}

std::vector<std::string> LaunchTemplate::expand_words(const Placeholders& values) const {
  if (!shell_)
    return expand(values);
  std::vector<std::string> out;
  for (const std::string& w : words_) {
    if (w == "{flags}")
      out.insert(out.end(), values.flags.begin(), values.flags.end());
    else
      out.push_back(substitute(w, values, false));
  }
  return out;
}

std::string substitute_placeholders(std::string_view text, const Placeholders& values) {
  return substitute(text, values, false);
}

}  // namespace servescope
