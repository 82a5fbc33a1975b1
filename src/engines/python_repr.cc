#include "engines/python_repr.h"

#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>

#include "engines/log_text.h"

namespace servescope {

namespace {

constexpr int kMaxDepth = 48;

bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_ident_char(char c) {
  return is_ident_start(c) || (c >= '0' && c <= '9');
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    cp = 0xFFFD;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::optional<Value> number_value(std::string_view t) {
  if (t.empty())
    return std::nullopt;
  bool is_float = false;
  std::size_t i = (t[0] == '-' || t[0] == '+') ? 1 : 0;
  if (i >= t.size())
    return std::nullopt;
  for (std::size_t j = i; j < t.size(); ++j) {
    const char c = t[j];
    if (c == '.' || c == 'e' || c == 'E') {
      is_float = true;
    } else if (!is_digit(c) && c != '+' && c != '-' && c != '_') {
      return std::nullopt;
    }
  }
  if (t[0] == '+')
    t.remove_prefix(1);
  if (!is_float) {
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec == std::errc() && p == t.data() + t.size())
      return Value(v);
    return std::nullopt;  // too large or odd: the caller keeps the text
  }
  double d = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), d);
  if (ec == std::errc() && p == t.data() + t.size())
    return Value(d);
  return std::nullopt;
}

class ReprParser {
 public:
  ReprParser(std::string_view s, PythonCall& call, std::size_t start = 0)
      : s_(s), i_(start), call_(call) {}

  void parse_call_body() {
    // At the first character after "Name(".
    while (true) {
      skip_space();
      if (at_end())
        return;
      if (s_[i_] == ')') {
        ++i_;
        call_.complete = true;
        return;
      }
      if (s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (skip_elision()) {
        call_.elided = true;
        continue;
      }
      if (is_ident_start(s_[i_])) {
        const std::size_t start = i_;
        while (!at_end() && is_ident_char(s_[i_]))
          ++i_;
        std::string name(s_.substr(start, i_ - start));
        skip_space();
        if (!at_end() && s_[i_] == '=' && (i_ + 1 >= s_.size() || s_[i_ + 1] != '=')) {
          ++i_;
          const std::size_t slot = call_.fields.size();
          call_.fields.push_back(Field{name, Value()});
          Value v = parse_value(name, 0);
          call_.fields[slot].value = std::move(v);
          continue;
        }
      }
      // Something that is not `name=value`: skip to the next top-level comma (always moving:
      // a stray closing bracket stops the skip where it starts).
      call_.malformed = true;
      const std::size_t before = i_;
      skip_to_separator();
      if (i_ == before)
        ++i_;
    }
  }

  // At the first character after a top-level '{': `'key': value` pairs become fields named by
  // their key (nested objects flattened under it).
  void parse_dict_body() {
    while (true) {
      skip_space();
      if (at_end())
        return;
      if (s_[i_] == '}') {
        ++i_;
        call_.complete = true;
        return;
      }
      if (s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (skip_elision()) {
        call_.elided = true;
        continue;
      }
      const std::size_t before = i_;
      Value key = (s_[i_] == '\'' || s_[i_] == '"') ? Value(parse_string()) : Value();
      skip_space();
      if (key.is_string() && !at_end() && s_[i_] == ':') {
        ++i_;
        const std::string name = key.as_string();
        const std::size_t slot = call_.fields.size();
        call_.fields.push_back(Field{name, Value()});
        Value v = parse_value(name, 0);
        call_.fields[slot].value = std::move(v);
        continue;
      }
      call_.malformed = true;
      skip_to_separator();
      if (i_ == before && !at_end())
        ++i_;
    }
  }

  Value parse_top_literal() {
    skip_space();
    Value v = parse_value("", 0);  // an empty prefix: nothing is flattened
    return v;
  }

 private:
  bool at_end() const { return i_ >= s_.size(); }

  void skip_space() {
    while (!at_end() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n'))
      ++i_;
  }

  // "[...]", "...", "[…]", "…" stand for omitted fields in published excerpts.
  bool skip_elision() {
    for (std::string_view e : {"[...]", "...", "[\xE2\x80\xA6]", "\xE2\x80\xA6"}) {
      if (s_.substr(i_, e.size()) == e) {
        i_ += e.size();
        return true;
      }
    }
    return false;
  }

  // Skips to the next ',' or closing bracket at the current nesting level (not consuming it).
  void skip_to_separator() {
    log_text::Nesting nesting;
    while (!at_end()) {
      const char c = s_[i_];
      if (nesting.quote == 0 && nesting.depth == 0 && (c == ',' || log_text::is_close_bracket(c)))
        return;
      i_ = nesting.step(s_, i_);
    }
  }

  // Flattened child name, or "" when not flattening.
  static std::string child(const std::string& prefix, std::string_view key) {
    if (prefix.empty())
      return std::string();
    std::string out = prefix;
    out += '.';
    out += key;
    return out;
  }

  Value parse_value(const std::string& prefix, int depth) {
    skip_space();
    if (at_end())
      return Value();
    const std::size_t start = i_;
    const char c = s_[i_];
    if (depth > kMaxDepth)
      return skip_raw(start);
    if (c == '\'' || c == '"')
      return Value(parse_string());
    if ((c == 'b' || c == 'r' || c == 'u') && i_ + 1 < s_.size() &&
        (s_[i_ + 1] == '\'' || s_[i_ + 1] == '"')) {
      ++i_;
      return Value(parse_string());
    }
    if (c == '[' || c == '(')
      return parse_sequence(depth, start);
    if (c == '{')
      return parse_dict(prefix, depth, start);
    if (c == '<')
      return skip_angle(start);
    if (s_.substr(i_, 3) == "...") {
      i_ += 3;
      call_.elided = true;
      return Value(std::string("..."));
    }
    if (is_digit(c) || c == '-' || c == '+' || c == '.') {
      while (!at_end() &&
             (is_ident_char(s_[i_]) || s_[i_] == '.' || s_[i_] == '-' || s_[i_] == '+'))
        ++i_;
      std::string_view t = s_.substr(start, i_ - start);
      if (t == "-inf")
        return Value(-std::numeric_limits<double>::infinity());
      if (auto v = number_value(t))
        return *v;
      return Value(std::string(t));
    }
    if (is_ident_start(c)) {
      while (!at_end() && (is_ident_char(s_[i_]) || s_[i_] == '.'))
        ++i_;
      std::string_view word = s_.substr(start, i_ - start);
      if (!at_end() && s_[i_] == '(')
        return parse_nested_call(prefix, depth, start);
      if (word == "None")
        return Value();
      if (word == "True")
        return Value(true);
      if (word == "False")
        return Value(false);
      if (word == "inf")
        return Value(std::numeric_limits<double>::infinity());
      if (word == "nan")
        return Value(std::numeric_limits<double>::quiet_NaN());
      return Value(std::string(word));
    }
    return skip_raw(start);
  }

  Value skip_raw(std::size_t start) {
    call_.malformed = true;
    skip_to_separator();
    if (i_ == start && !at_end() && s_[i_] != ',' && s_[i_] != ')' && s_[i_] != ']' &&
        s_[i_] != '}')
      ++i_;  // always advance
    return Value(std::string(s_.substr(start, i_ - start)));
  }

  Value skip_angle(std::size_t start) {
    int depth = 0;
    while (!at_end()) {
      const char c = s_[i_++];
      if (c == '<')
        ++depth;
      else if (c == '>' && --depth == 0)
        break;
    }
    return Value(std::string(s_.substr(start, i_ - start)));
  }

  std::string parse_string() {
    const char quote = s_[i_++];
    std::string out;
    while (!at_end() && s_[i_] != quote) {
      char c = s_[i_++];
      if (c != '\\' || at_end()) {
        out += c;
        continue;
      }
      c = s_[i_++];
      switch (c) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case '0':
          out += '\0';
          break;
        case 'x':
        case 'u':
        case 'U': {
          const std::size_t n = c == 'x' ? 2 : (c == 'u' ? 4 : 8);
          std::uint32_t cp = 0;
          std::size_t k = 0;
          for (; k < n && !at_end(); ++k, ++i_) {
            const char h = s_[i_];
            int d = is_digit(h)              ? h - '0'
                    : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                    : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                             : -1;
            if (d < 0)
              break;
            cp = cp * 16 + static_cast<std::uint32_t>(d);
          }
          append_utf8(out, k == n ? cp : 0xFFFD);
          break;
        }
        default:
          out += c;  // \\ \' \" and unknown escapes keep the character
      }
    }
    if (!at_end())
      ++i_;  // closing quote
    else
      call_.malformed = true;
    return out;
  }

  // [a, b] or (a, b): all ints → IntList; otherwise the repr text.
  Value parse_sequence(int depth, std::size_t start) {
    const char close = s_[i_] == '[' ? ']' : ')';
    ++i_;
    IntList ints;
    bool all_ints = true;
    while (true) {
      skip_space();
      if (at_end()) {
        call_.malformed = true;
        break;
      }
      if (s_[i_] == close) {
        ++i_;
        break;
      }
      if (s_[i_] == ',') {
        ++i_;
        continue;
      }
      const std::size_t before = i_;
      Value v = parse_value(std::string(), depth + 1);  // list items are not flattened
      if (i_ == before) {                               // a stray closing bracket of another kind
        call_.malformed = true;
        ++i_;
        all_ints = false;
        continue;
      }
      if (v.is_int() && !list_goes_on(ints))
        ints.push_back(v.as_int());
      else if (v.is_string() && v.as_string() == "..." && !ints.empty() && !list_goes_on(ints))
        ints.push_back(kListGoesOn);  // "[1, 2, 4, ...]": an excerpt shortened the list
      else
        all_ints = false;
    }
    if (all_ints)
      return Value(std::move(ints));
    return Value(std::string(s_.substr(start, i_ - start)));
  }

  Value parse_dict(const std::string& prefix, int depth, std::size_t start) {
    ++i_;
    while (true) {
      skip_space();
      if (at_end()) {
        call_.malformed = true;
        break;
      }
      if (s_[i_] == '}') {
        ++i_;
        break;
      }
      if (s_[i_] == ',') {
        ++i_;
        continue;
      }
      const std::size_t before = i_;
      Value key = parse_value("", depth + 1);
      skip_space();
      if (!at_end() && s_[i_] == ':') {
        ++i_;
        const std::string name = key.is_string() ? child(prefix, key.as_string()) : std::string();
        const std::size_t slot = call_.fields.size();
        if (!name.empty())
          call_.fields.push_back(Field{name, Value()});
        Value v = parse_value(name, depth + 1);
        if (!name.empty())
          call_.fields[slot].value = std::move(v);
      }
      if (i_ == before) {
        call_.malformed = true;
        ++i_;
      }
    }
    return Value(std::string(s_.substr(start, i_ - start)));
  }

  // Name(k=v, positional, ...): keyword fields flattened under the prefix; the value is the
  // repr text.
  Value parse_nested_call(const std::string& prefix, int depth, std::size_t start) {
    ++i_;  // '('
    while (true) {
      skip_space();
      if (at_end()) {
        call_.malformed = true;
        break;
      }
      if (s_[i_] == ')') {
        ++i_;
        break;
      }
      if (s_[i_] == ',') {
        ++i_;
        continue;
      }
      const std::size_t before = i_;
      if (is_ident_start(s_[i_])) {
        std::size_t j = i_;
        while (j < s_.size() && is_ident_char(s_[j]))
          ++j;
        if (j < s_.size() && s_[j] == '=' && (j + 1 >= s_.size() || s_[j + 1] != '=')) {
          const std::string name = child(prefix, s_.substr(i_, j - i_));
          i_ = j + 1;
          const std::size_t slot = call_.fields.size();
          if (!name.empty())
            call_.fields.push_back(Field{name, Value()});
          Value v = parse_value(name, depth + 1);
          if (!name.empty())
            call_.fields[slot].value = std::move(v);
          continue;
        }
      }
      (void)parse_value("", depth + 1);
      if (i_ == before) {
        call_.malformed = true;
        ++i_;
      }
    }
    return Value(std::string(s_.substr(start, i_ - start)));
  }

  std::string_view s_;
  std::size_t i_ = 0;
  PythonCall& call_;
};

}  // namespace

PythonCall parse_python_call(std::string_view text) {
  PythonCall call;
  // The first identifier directly followed by '('.
  std::size_t open = text.find('(');
  while (open != std::string_view::npos) {
    std::size_t b = open;
    while (b > 0 && is_ident_char(text[b - 1]))
      --b;
    if (b < open && is_ident_start(text[b])) {
      call.type = std::string(text.substr(b, open - b));
      break;
    }
    open = text.find('(', open + 1);
  }
  if (open == std::string_view::npos) {
    call.malformed = true;
    return call;
  }
  ReprParser parser(text, call, open + 1);
  parser.parse_call_body();
  return call;
}

PythonCall parse_python_dict(std::string_view text) {
  PythonCall call;
  const std::size_t open = text.find('{');
  if (open == std::string_view::npos) {
    call.malformed = true;
    return call;
  }
  ReprParser parser(text, call, open + 1);
  parser.parse_dict_body();
  return call;
}

Value parse_python_literal(std::string_view text) {
  PythonCall scratch;
  ReprParser parser(text, scratch);
  return parser.parse_top_literal();
}

}  // namespace servescope
