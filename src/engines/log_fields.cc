#include "engines/log_fields.h"

#include <charconv>
#include <cstring>

#include "engines/log_text.h"
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

// The unit that follows a number at text[u] ("GiB", "MiB", "GB", "MB", "ms", "s", "%"), or
// "" — a switch on the first byte: this runs for every number of every batch line.
std::string_view unit_at(std::string_view text, std::size_t u) {
  if (u >= text.size())
    return {};
  const std::string_view rest = text.substr(u);
  auto word = [&](std::string_view w) {
    return rest.substr(0, w.size()) == w ? w : std::string_view();
  };
  switch (rest[0]) {
    case 'G':
      return rest.size() > 1 && rest[1] == 'i' ? word("GiB") : word("GB");
    case 'M':
      return rest.size() > 1 && rest[1] == 'i' ? word("MiB") : word("MB");
    case 'm':
      return word("ms");
    case 's':
      return word("s");
    case '%':
      return word("%");
    default:
      return {};
  }
}

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
  log_text::Nesting nesting;
  while (i < text.size()) {
    const bool closer = nesting.quote == 0 && log_text::is_close_bracket(text[i]);
    i = nesting.step(text, i);
    if (closer && nesting.depth <= 0)
      return i;
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

namespace {

// "123" or "123.45" with at most 15 digits; a decimal is mantissa / 10^k. Both are exact doubles,
// and IEEE division rounds correctly, so the result is the double nearest the decimal, as
// from_chars gives.
bool fast_decimal(std::string_view t, Value& out) {
  static constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  std::size_t i = 0;
  const bool negative = t[0] == '-';
  if (negative)
    i = 1;
  std::int64_t mantissa = 0;
  int digits = 0;
  int decimals = -1;
  for (; i < t.size(); ++i) {
    const char c = t[i];
    if (c >= '0' && c <= '9') {
      // More than 15 digits is left to the slow path; stop before the mantissa can overflow.
      if (++digits > 15)
        return false;
      mantissa = mantissa * 10 + (c - '0');
      if (decimals >= 0)
        ++decimals;
    } else if (c == '.' && decimals < 0) {
      decimals = 0;
    } else {
      return false;
    }
  }
  if (digits == 0 || digits > 15 || decimals == 0)
    return false;
  if (decimals < 0) {  // an integer
    out = Value(negative ? -mantissa : mantissa);
    return true;
  }
  const double v = static_cast<double>(mantissa) / kPow10[decimals];
  out = Value(negative ? -v : v);
  return true;
}

}  // namespace

bool parse_log_number(std::string_view t, Value& out) {
  if (t.empty())
    return false;
  if (fast_decimal(t, out))
    return true;
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
  // Direct-mapped on a hash of the label and unit: one comparison per pair read.
  // The hash reads the first and last eight bytes (labels are short) and the length.
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  const std::size_t n = label.size();
  std::memcpy(&a, label.data(), std::min<std::size_t>(n, 8));
  if (n > 8)
    std::memcpy(&b, label.data() + n - 8, 8);
  std::uint64_t h = (a * 0x9E3779B97F4A7C15ULL) ^ (b * 0xC2B2AE3D27D4EB4FULL) ^ (n << 3) ^
                    (unit.empty() ? 0 : static_cast<unsigned char>(unit[0]));
  h ^= h >> 29;
  Entry& e = cache_[(h * 0x9E3779B97F4A7C15ULL >> 57) % cache_.size()];
  // Up to 16 bytes the two words are the whole label; longer labels compare in full.
  if (!e.name.empty() && e.first8 == a && e.last8 == b && e.label.size() == n &&
      (n <= 16 || e.label == label) && e.unit == unit)
    return e.name;
  e.first8 = a;
  e.last8 = b;
  e.label.assign(label);
  e.unit.assign(unit);
  e.name = field_name(label, unit);
  return e.name;
}

std::size_t LogFieldScanner::scan_list(std::string_view text, FactBuilder& out) {
  std::size_t count = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const void* comma = std::memchr(text.data() + pos, ',', text.size() - pos);
    const std::size_t end =
        comma == nullptr ? text.size()
                         : static_cast<std::size_t>(static_cast<const char*>(comma) - text.data());
    std::string_view item = text.substr(pos, end - pos);
    pos = end + 1;
    while (!item.empty() && item.front() == ' ')
      item.remove_prefix(1);
    const std::size_t colon = item.find(": ");
    if (colon == std::string_view::npos || colon == 0 || colon > 64 ||
        item.find('[') != std::string_view::npos) {
      // Not a plain "label: value" item: read this stretch with the general scanner.
      count += scan(item, out);
      continue;
    }
    const std::string_view label = item.substr(0, colon);
    std::string_view v = item.substr(colon + 2);
    while (!v.empty() && (v.back() == ' ' || v.back() == '.'))
      v.remove_suffix(1);
    std::string_view unit;
    if (!v.empty() && v.back() == '%') {
      unit = "%";
      v.remove_suffix(1);
    } else if (const std::size_t sp = v.rfind(' ');
               sp != std::string_view::npos && unit_at(v, sp + 1).size() == v.size() - sp - 1) {
      unit = unit_at(v, sp + 1);
      v = v.substr(0, sp);
    }
    Value& slot = out.add(cached_name(label, unit));
    if (!parse_log_number(v, slot)) {
      if (v == "True")
        slot = Value(true);
      else if (v == "False")
        slot = Value(false);
      else if (v == "None")
        slot = Value();
      else
        slot = Value(std::string(v));
    }
    ++count;
  }
  return count;
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
    // (At most 96 bytes back: a label is short, and a long run of separators must not make
    // this quadratic.)
    std::size_t b = i;
    while (b > label_start && i - b < 96 && is_label_char(text[b - 1]))
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
      const std::size_t u = i < text.size() && text[i] == ' ' ? i + 1 : i;
      if (const std::string_view candidate = unit_at(text, u); !candidate.empty()) {
        const std::size_t after = u + candidate.size();
        if (after >= text.size() || !(is_alpha(text[after]) || is_digit(text[after]))) {
          unit = candidate;
          i = after;
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
