#include "engines/flag_spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "core/text.h"

namespace servescope {
namespace {

std::string bounds_text(const FlagSpec& spec) {
  std::string lo = spec.min ? fmt::format("{} {}", spec.min_exclusive ? ">" : "≥", *spec.min) : "";
  std::string hi = spec.max ? fmt::format("{} {}", spec.max_exclusive ? "<" : "≤", *spec.max) : "";
  if (!lo.empty() && !hi.empty())
    return lo + " and " + hi;
  return lo + hi;
}

Status check_number(const FlagSpec& spec, std::string_view spelled, std::string_view text,
                    double v) {
  const bool low = spec.min && (spec.min_exclusive ? v <= *spec.min : v < *spec.min);
  const bool high = spec.max && (spec.max_exclusive ? v >= *spec.max : v > *spec.max);
  // chunked_prefill_size accepts -1 (disabled) below its bound.
  if (spec.field == "chunked_prefill_size" && v == -1)
    return ok_status();
  if (low || high) {
    return fail(fmt::format("{} {}: must be {}", spelled, text, bounds_text(spec)));
  }
  return ok_status();
}

// The flag of `flags` named `name` or having it as an alias (FlagSpec and CliFlag alike).
template <class Flag>
const Flag* find_named(const std::vector<Flag>& flags, std::string_view name) {
  for (const Flag& f : flags) {
    if (f.name == name || std::find(f.aliases.begin(), f.aliases.end(), name) != f.aliases.end())
      return &f;
  }
  return nullptr;
}

}  // namespace

Status validate_flag_value(const FlagSpec& spec, std::string_view spelled,
                           const std::vector<std::string>& values) {
  if (spec.const_value || spec.type == FlagType::kBool)
    return ok_status();
  if (values.empty()) {
    return fail(fmt::format("{}: expects a value ({})", spelled,
                            spec.type == FlagType::kIntList ? "one or more integers" : "one"));
  }
  const std::string& v = values.front();
  switch (spec.type) {
    case FlagType::kInt: {
      auto n = parse_int(v);
      if (!n)
        return fail(fmt::format("{} {}: not an integer", spelled, v));
      return check_number(spec, spelled, v, static_cast<double>(*n));
    }
    case FlagType::kFloat: {
      auto d = parse_double(v);
      if (!d)
        return fail(fmt::format("{} {}: not a number", spelled, v));
      return check_number(spec, spelled, v, *d);
    }
    case FlagType::kChoice: {
      if (std::find(spec.choices.begin(), spec.choices.end(), v) == spec.choices.end()) {
        return fail(fmt::format("{} {}: not one of {}", spelled, v, fmt::join(spec.choices, ", ")));
      }
      return ok_status();
    }
    case FlagType::kIntList: {
      for (const std::string& item : values) {
        auto n = parse_int(item);
        if (!n)
          return fail(fmt::format("{} {}: not an integer", spelled, item));
        Status st = check_number(spec, spelled, item, static_cast<double>(*n));
        if (!st)
          return st;
      }
      return ok_status();
    }
    case FlagType::kBool:
    case FlagType::kString:
    case FlagType::kJson:
      return ok_status();
  }
  return ok_status();
}

Result<std::vector<CliFlag>> parse_cli_surface(std::string_view tsv, std::string_view source) {
  std::vector<CliFlag> out;
  int line_no = 0;
  bool header_seen = false;
  for (std::string_view line : split(tsv, '\n')) {
    ++line_no;
    if (line.empty() || line.front() == '#')
      continue;
    auto cols = split(line, '\t');
    if (!header_seen) {
      header_seen = true;
      if (cols.empty() || cols[0] != "flag") {
        return fail(
            fmt::format("{}:{}: expected the header line 'flag\\taliases\\t...'", source, line_no));
      }
      continue;
    }
    if (cols.size() < 5)
      return fail(fmt::format("{}:{}: expected 7 tab-separated columns", source, line_no));
    CliFlag f;
    f.name = std::string(cols[0]);
    for (std::string_view a : split(cols[1], '|')) {
      if (!a.empty())
        f.aliases.emplace_back(a);
    }
    f.field = std::string(cols[2]);
    if (cols[3].size() != 1 ||
        std::string_view("01+*?").find(cols[3][0]) == std::string_view::npos) {
      return fail(
          fmt::format("{}:{}: arity '{}' is not one of 0 1 + * ?", source, line_no, cols[3]));
    }
    f.arity = cols[3][0];
    f.type = std::string(cols[4]);
    out.push_back(std::move(f));
  }
  return out;
}

const FlagSpec* find_flag_spec(const std::vector<FlagSpec>& flags, std::string_view name) {
  return find_named(flags, name);
}

const CliFlag* find_cli_flag(const std::vector<CliFlag>& surface, std::string_view name) {
  return find_named(surface, name);
}

bool is_option_word(std::string_view w) {
  const bool negative_number = w.size() > 1 && w[0] == '-' &&
                               (std::isdigit(static_cast<unsigned char>(w[1])) != 0 || w[1] == '.');
  return w.size() > 1 && w[0] == '-' && !negative_number;
}

}  // namespace servescope
