#include "engines/launch_command.h"

#include <algorithm>

#include "core/text.h"

namespace servescope {
namespace {

std::string shell_quote(const std::string& word) {
  if (!word.empty() && word.find_first_of(" \t\n'\"\\$`{}[]*?;&|<>()!#~") == std::string::npos) {
    return word;
  }
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace

std::string FlagSetting::as_typed() const {
  std::string out = spelled.empty() ? name : spelled;
  for (const std::string& v : values)
    out += " " + shell_quote(v);
  return out;
}

const std::string& FlagSetting::value() const {
  static const std::string kEmpty;
  return values.empty() ? kEmpty : values.front();
}

const FlagSetting* LaunchCommand::find(const std::string& canonical) const {
  const FlagSetting* found = nullptr;
  for (const FlagSetting& f : flags) {
    if (f.name == canonical)
      found = &f;
  }
  return found;
}

std::vector<const FlagSetting*> LaunchCommand::unmodelled() const {
  std::vector<const FlagSetting*> out;
  for (const FlagSetting& f : flags) {
    if (!f.modelled)
      out.push_back(&f);
  }
  return out;
}

LaunchCommand LaunchCommand::without_flag(const std::string& canonical) const {
  LaunchCommand out = *this;
  out.flags.erase(std::remove_if(out.flags.begin(), out.flags.end(),
                                 [&](const FlagSetting& f) { return f.name == canonical; }),
                  out.flags.end());
  // Rebuild the words so the command reads as the user would type it.
  out.words.clear();
  for (const auto& [k, v] : environment)
    out.words.push_back(k + "=" + v);
  for (std::string_view w : split(program, ' ')) {
    if (!w.empty())
      out.words.emplace_back(w);
  }
  for (FlagSetting& f : out.flags) {
    f.argv_index = static_cast<int>(out.words.size());
    // A setting with no spelling was typed as a positional argument ("vllm serve MODEL").
    if (!f.spelled.empty())
      out.words.push_back(f.spelled);
    for (const std::string& v : f.values)
      out.words.push_back(v);
  }
  return out;
}

LaunchCommand LaunchCommand::with_flag(const FlagSetting& flag) const {
  LaunchCommand out = without_flag(flag.name);
  FlagSetting f = flag;
  f.argv_index = static_cast<int>(out.words.size());
  out.words.push_back(f.spelled.empty() ? f.name : f.spelled);
  for (const std::string& v : f.values)
    out.words.push_back(v);
  out.flags.push_back(std::move(f));
  return out;
}

std::string LaunchCommand::to_string() const {
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty())
      out += ' ';
    out += shell_quote(w);
  }
  return out;
}

}  // namespace servescope
