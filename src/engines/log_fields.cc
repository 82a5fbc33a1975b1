#include "engines/log_fields.h"

#include <charconv>

#include "engines/python_repr.h"

namespace servescope {

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_label_char(char c) {
  return is_alpha(c) || is_digit(c) || c == '_' || c == ' ' || c == '#' || c == '-' || c == '(' ||
         c == ')' || c == '/' || c == '.';
}

// Units that may follow a number; longest first so "GiB" wins over "G".
constexpr std::string_view kUnits[] = {"GiB", "MiB", "GB", "MB", "ms", "s", "%"};

std::string_view unit_suffix(std::string_view unit) {
  if (unit == "GB" || unit == "GiB")
    return "_gb";
  if (unit == "MB" || unit == "MiB")
    return "_mb";
  if (unit == "s")
    return "_s";
  if (unit == "ms")
    return "_ms";
  if (unit == "%")
    return "_pct";
  return "";
}

// End of a bracketed group starting at text[i] (one past the closer), quotes respected.
std::size_t group_end(std::string_view text, std::size_t i) {
  int depth = 0;
  char quote = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '[' || c == '(' || c == '{') {
      ++depth;
    } else if (c == ']' || c == ')' || c == '}') {
      if (--depth <= 0)
        return i + 1;
    }
  }
  return text.size();
}

}  // namespace

void FactBuilder::begin(std::string_view kind, std::uint64_t line) {
  fact_.kind.assign(kind);
  fact_.line = line;
  fact_.timestamp.clear();
  fact_.rank.tp = fact_.rank.dp = fact_.rank.pp = fact_.rank.ep = -1;
  fact_.rank.label.clear();
  fact_.raw.clear();
  fact_.partial = false;
  used_ = 0;
}

Value& FactBuilder::add(std::string_view name) {
  if (used_ < fact_.fields.size()) {
    Field& f = fact_.fields[used_++];
    f.name.assign(name);
    return f.value;
  }
  fact_.fields.push_back(Field{std::string(name), Value()});
  ++used_;
  return fact_.fields.back().value;
}

void FactBuilder::set(std::string_view name, Value value) {
  for (std::size_t i = 0; i < used_; ++i) {
    if (fact_.fields[i].name == name) {
      fact_.fields[i].value = std::move(value);
      return;
    }
  }
  add(name, std::move(value));
}

bool FactBuilder::has(std::string_view name) const {
  for (std::size_t i = 0; i < used_; ++i) {
    if (fact_.fields[i].name == name)
      return true;
  }
  return false;
}

Fact& FactBuilder::finish() {
  fact_.fields.resize(used_);
  return fact_;
}

bool parse_log_number(std::string_view t, Value& out) {
  if (t.empty())
    return false;
  bool is_float = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '.' || c == 'e' || c == 'E')
      is_float = true;
    else if (!is_digit(c) &&
             !((c == '-' || c == '+') && (i == 0 || t[i - 1] == 'e' || t[i - 1] == 'E')))
      return false;
  }
  if (t[0] == '+')
    t.remove_prefix(1);
  if (!is_float) {
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size())
      return false;
    out = Value(v);
    return true;
  }
  double d = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), d);
  if (ec != std::errc() || p != t.data() + t.size())
    return false;
  out = Value(d);
  return true;
}

std::string LogFieldScanner::field_name(std::string_view label, std::string_view unit) {
  std::string out;
  out.reserve(label.size() + 8);
  bool pending_sep = false;
  for (std::size_t i = 0; i < label.size(); ++i) {
    const char c = label[i];
    if (label.substr(i, 9) == "(token/s)") {
      if (!out.empty())
        out += '_';
      out += "tok_per_s";
      pending_sep = false;
      i += 8;
      continue;
    }
    if (is_alpha(c) || is_digit(c)) {
      if (pending_sep && !out.empty())
        out += '_';
      pending_sep = false;
      out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    } else if (c != '#') {
      pending_sep = true;
    }
  }
  if (out == "time_elapsed")
    out = "elapsed";
  const std::string_view suffix = unit_suffix(unit);
  if (!suffix.empty() &&
      (out.size() < suffix.size() ||
       out.compare(out.size() - suffix.size(), suffix.size(), suffix.data(), suffix.size()) != 0))
    out += suffix;
  return out;
}

const std::string& LogFieldScanner::cached_name(std::string_view label, std::string_view unit) {
  for (std::size_t i = 0; i < cache_used_; ++i) {
    const Entry& e = cache_[i];
    if (e.label == label && e.unit == unit)
      return e.name;
  }
  Entry& e = cache_[cache_next_];
  cache_next_ = (cache_next_ + 1) % cache_.size();
  if (cache_used_ < cache_.size())
    ++cache_used_;
  e.label.assign(label);
  e.unit.assign(unit);
  e.name = field_name(label, unit);
  return e.name;
}

std::size_t LogFieldScanner::scan(std::string_view text, FactBuilder& out) {
  std::size_t count = 0;
  std::size_t label_start = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    const bool eq = c == '=' && (i + 1 >= text.size() || text[i + 1] != '=');
    const bool colon = c == ':' && (i + 1 >= text.size() || text[i + 1] == ' ');
    if (!eq && !colon) {
      // ", " "; " and ". " end whatever came before a label.
      if ((c == ',' || c == ';' || c == '.') && i + 1 < text.size() && text[i + 1] == ' ')
        label_start = i + 2;
      ++i;
      continue;
    }
    // The label: the label characters just before the separator, after the last boundary.
    std::size_t b = i;
    while (b > label_start && is_label_char(text[b - 1]))
      --b;
    std::string_view label = text.substr(b, i - b);
    while (!label.empty() && (label.front() == ' ' || label.front() == '.'))
      label.remove_prefix(1);
    while (!label.empty() && label.back() == ' ')
      label.remove_suffix(1);
    // An identifier ends the label on its own ("with max_num_reqs=" → "max_num_reqs"); plain
    // words may form one ("avail mem", "gen throughput (token/s)"), up to four of them.
    if (const std::size_t sp = label.rfind(' '); sp != std::string_view::npos) {
      const std::string_view last = label.substr(sp + 1);
      if (last.find('_') != std::string_view::npos) {
        label = last;
      } else {
        std::size_t words = 1;
        std::size_t cut = label.size();
        for (std::size_t k = label.size(); k-- > 0;) {
          if (label[k] == ' ' && ++words > 4) {
            cut = k;
            break;
          }
        }
        if (cut < label.size())
          label.remove_prefix(cut + 1);
      }
    }
    // A label starts with a letter or '#' and is short.
    if (!label.empty() && !is_alpha(label.front()) && label.front() != '#' &&
        label.front() != '(') {
      std::size_t k = 0;
      while (k < label.size() && !is_alpha(label[k]) && label[k] != '#')
        ++k;
      label.remove_prefix(k);
    }
    ++i;
    while (i < text.size() && text[i] == ' ')
      ++i;
    if (label.empty() || label.size() > 64 || i >= text.size()) {
      label_start = i;
      continue;
    }
    // The value.
    const std::size_t vstart = i;
    Value value;
    std::string_view unit;
    const char v0 = text[i];
    if (v0 == '[' || v0 == '(' || v0 == '{') {
      i = group_end(text, i);
      value = parse_python_literal(text.substr(vstart, i - vstart));
    } else if (v0 == '\'' || v0 == '"') {
      std::size_t j = i + 1;
      while (j < text.size() && text[j] != v0) {
        if (text[j] == '\\')
          ++j;
        ++j;
      }
      i = j < text.size() ? j + 1 : text.size();
      value = parse_python_literal(text.substr(vstart, i - vstart));
    } else if (is_digit(v0) ||
               ((v0 == '-' || v0 == '.') && i + 1 < text.size() && is_digit(text[i + 1]))) {
      std::size_t j = i + 1;
      while (j < text.size() &&
             (is_digit(text[j]) || text[j] == '.' ||
              ((text[j] == 'e' || text[j] == 'E') && j + 1 < text.size() &&
               (is_digit(text[j + 1]) || text[j + 1] == '-' || text[j + 1] == '+')) ||
              ((text[j] == '-' || text[j] == '+') && (text[j - 1] == 'e' || text[j - 1] == 'E'))))
        ++j;
      std::string_view num = text.substr(i, j - i);
      if (num.size() > 1 && num.back() == '.')  // "7.23 s." reads "7.23", never "7."
        num.remove_suffix(1);
      i += num.size();
      if (!parse_log_number(num, value))
        value = Value(std::string(num));
      // A unit right after the number, or after one space.
      std::size_t u = i < text.size() && text[i] == ' ' ? i + 1 : i;
      for (std::string_view candidate : kUnits) {
        if (text.substr(u, candidate.size()) == candidate) {
          const std::size_t after = u + candidate.size();
          if (after >= text.size() || !(is_alpha(text[after]) || is_digit(text[after]))) {
            unit = candidate;
            i = after;
          }
          break;
        }
      }
    } else {
      std::size_t j = i;
      while (j < text.size() && text[j] != ',' && text[j] != ';' && text[j] != ' ')
        ++j;
      std::string_view word = text.substr(i, j - i);
      i = j;
      while (!word.empty() && word.back() == '.')
        word.remove_suffix(1);
      if (word == "True")
        value = Value(true);
      else if (word == "False")
        value = Value(false);
      else if (word == "None")
        value = Value();
      else
        value = Value(std::string(word));
    }
    out.add(cached_name(label, unit)) = std::move(value);
    ++count;
    label_start = i;
  }
  return count;
}

}  // namespace servescope
