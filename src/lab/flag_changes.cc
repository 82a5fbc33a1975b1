#include "lab/flag_changes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "core/text.h"

namespace servescope {
namespace {

bool opens_flag(std::string_view w) {
  if (w.size() < 2 || w[0] != '-')
    return false;
  const char c = w[1];
  return !(std::isdigit(static_cast<unsigned char>(c)) || c == '.');  // "-1", "-.5" are values
}

std::string flag_name(std::string_view word) {
  const auto eq = word.find('=');
  return std::string(eq == std::string_view::npos ? word : word.substr(0, eq));
}

const TypedFlag* find_by_name(const std::vector<TypedFlag>& flags, std::string_view name) {
  for (const TypedFlag& f : flags) {
    if (f.name == name)
      return &f;
  }
  return nullptr;
}

}  // namespace

std::string TypedFlag::text() const {
  return fmt::format("{}", fmt::join(words, " "));
}

Result<std::vector<TypedFlag>> parse_flags(std::string_view text, std::string_view what) {
  auto words = split_command_line(text);
  if (!words)
    return fail(fmt::format("{} '{}': unbalanced quotes", what, text));
  std::vector<TypedFlag> out;
  for (const std::string& w : *words) {
    if (opens_flag(w)) {
      TypedFlag f{flag_name(w), {w}};
      if (find_by_name(out, f.name) != nullptr)
        return fail(fmt::format("{}: {} is given twice; give each flag once", what, f.name));
      out.push_back(std::move(f));
    } else if (out.empty()) {
      return fail(
          fmt::format("{}: '{}' comes before any flag; give flags such as --tp 4", what, w));
    } else {
      out.back().words.push_back(w);
    }
  }
  return out;
}

std::string FlagChange::label() const {
  return kind == Kind::kRemove ? "no " + flag.name : flag.text();
}

std::vector<FlagChange> flag_changes(const std::vector<TypedFlag>& good,
                                     const std::vector<TypedFlag>& bad) {
  std::vector<FlagChange> out;
  for (const TypedFlag& b : bad) {
    const TypedFlag* g = find_by_name(good, b.name);
    if (g == nullptr)
      out.push_back({FlagChange::Kind::kAdd, b.name, b});
    else if (!(*g == b))
      out.push_back({FlagChange::Kind::kChange, b.name, b});
  }
  for (const TypedFlag& g : good) {
    if (find_by_name(bad, g.name) == nullptr)
      out.push_back({FlagChange::Kind::kRemove, g.name, g});
  }
  return out;
}

std::vector<std::string> apply_flag_changes(const std::vector<TypedFlag>& good,
                                            const std::vector<FlagChange>& changes,
                                            const std::vector<std::size_t>& subset) {
  auto chosen = [&](std::string_view name, FlagChange::Kind kind) -> const FlagChange* {
    for (std::size_t i : subset) {
      if (changes[i].name == name && changes[i].kind == kind)
        return &changes[i];
    }
    return nullptr;
  };
  std::vector<std::string> words;
  for (const TypedFlag& g : good) {
    if (chosen(g.name, FlagChange::Kind::kRemove) != nullptr)
      continue;
    const FlagChange* c = chosen(g.name, FlagChange::Kind::kChange);
    const TypedFlag& f = c != nullptr ? c->flag : g;
    words.insert(words.end(), f.words.begin(), f.words.end());
  }
  std::vector<std::size_t> adds;
  for (std::size_t i : subset) {
    if (changes[i].kind == FlagChange::Kind::kAdd)
      adds.push_back(i);
  }
  std::sort(adds.begin(), adds.end());  // the bad set's order, whatever the subset's
  for (std::size_t i : adds)
    words.insert(words.end(), changes[i].flag.words.begin(), changes[i].flag.words.end());
  return words;
}

std::vector<std::string> change_labels(const std::vector<FlagChange>& changes,
                                       const std::vector<std::size_t>& subset) {
  std::vector<std::string> out;
  for (std::size_t i : subset)
    out.push_back(changes[i].label());
  return out;
}

}  // namespace servescope
