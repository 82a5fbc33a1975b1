#include "load/json_scan.h"

namespace servescope {

JsonPath::JsonPath(std::initializer_list<JsonStep> s) {
  for (const JsonStep& step : s) {
    if (depth < kMaxDepth)
      steps[depth++] = step;
  }
}

std::int64_t JsonField::integer() const {
  if (type != JsonType::kNumber || raw.empty())
    return -1;
  std::int64_t v = 0;
  for (char c : raw) {
    if (c < '0' || c > '9')
      return c == '.' && v >= 0 ? v : -1;  // "12.0" reads as 12
    v = v * 10 + (c - '0');
  }
  return v;
}

namespace {

constexpr int kMaxNesting = 64;

class Scanner {
 public:
  Scanner(std::string_view doc, const JsonPath* paths, int count, JsonField* out)
      : p_(doc.data()), end_(doc.data() + doc.size()), paths_(paths), count_(count), out_(out) {}

  bool run() {
    ws();
    if (!value(0))
      return false;
    ws();
    return p_ == end_;
  }

 private:
  void ws() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t'))
      ++p_;
  }

  // Whether the current path (depth `d`) is a target; returns its slot or -1.
  int target(int d) const {
    if (d > JsonPath::kMaxDepth)
      return -1;
    for (int t = 0; t < count_; ++t) {
      const JsonPath& path = paths_[t];
      if (path.depth != d)
        continue;
      bool same = true;
      for (int k = 0; k < d && same; ++k) {
        const JsonStep& want = path.steps[k];
        const Step& have = stack_[k];
        same = want.key.empty() ? (have.is_index && have.index == want.index)
                                : (!have.is_index && have.key == want.key);
      }
      if (same)
        return t;
    }
    return -1;
  }

  // Could a target lie below the current path (depth `d`)? Prunes most of a document.
  bool interesting(int d) const {
    for (int t = 0; t < count_; ++t) {
      const JsonPath& path = paths_[t];
      if (path.depth <= d)
        continue;
      bool same = true;
      for (int k = 0; k < d && same; ++k) {
        const JsonStep& want = path.steps[k];
        const Step& have = stack_[k];
        same = want.key.empty() ? (have.is_index && have.index == want.index)
                                : (!have.is_index && have.key == want.key);
      }
      if (same)
        return true;
    }
    return false;
  }

  bool string(std::string_view* content) {
    ++p_;  // opening quote
    const char* start = p_;
    while (p_ < end_) {
      const char c = *p_;
      if (c == '"') {
        if (content != nullptr)
          *content = std::string_view(start, static_cast<std::size_t>(p_ - start));
        ++p_;
        return true;
      }
      if (c == '\\') {
        ++p_;
        if (p_ >= end_)
          return false;
        const char e = *p_;
        if (e == 'u') {
          for (int k = 0; k < 4; ++k) {
            ++p_;
            if (p_ >= end_)
              return false;
            const char h = *p_;
            if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F')))
              return false;
          }
        } else if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' &&
                   e != 'r' && e != 't') {
          return false;
        }
        ++p_;
        continue;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        return false;
      ++p_;
    }
    return false;
  }

  bool literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size() ||
        std::string_view(p_, word.size()) != word)
      return false;
    p_ += word.size();
    return true;
  }

  bool number() {
    const char* start = p_;
    if (p_ < end_ && *p_ == '-')
      ++p_;
    if (p_ >= end_)
      return false;
    if (*p_ == '0') {
      ++p_;
    } else if (*p_ >= '1' && *p_ <= '9') {
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9')
        ++p_;
    } else {
      return false;
    }
    if (p_ < end_ && *p_ == '.') {
      ++p_;
      const char* digits = p_;
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9')
        ++p_;
      if (p_ == digits)
        return false;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-'))
        ++p_;
      const char* digits = p_;
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9')
        ++p_;
      if (p_ == digits)
        return false;
    }
    number_ = std::string_view(start, static_cast<std::size_t>(p_ - start));
    return true;
  }

  bool value(int d) {
    if (p_ >= end_ || d > kMaxNesting)
      return false;
    const int slot = target(d);
    JsonField* field = slot >= 0 ? &out_[slot] : nullptr;
    const char c = *p_;
    switch (c) {
      case '{': {
        if (field != nullptr)
          field->type = JsonType::kObject;
        const bool look = interesting(d);
        ++p_;
        ws();
        if (p_ < end_ && *p_ == '}') {
          ++p_;
          return true;
        }
        while (true) {
          if (p_ >= end_ || *p_ != '"')
            return false;
          std::string_view key;
          if (!string(&key))
            return false;
          ws();
          if (p_ >= end_ || *p_ != ':')
            return false;
          ++p_;
          ws();
          if (d < JsonPath::kMaxDepth) {
            stack_[d].is_index = false;
            stack_[d].key = key;
          }
          if (!(look ? value(d + 1) : skip(d + 1)))
            return false;
          ws();
          if (p_ < end_ && *p_ == ',') {
            ++p_;
            ws();
            continue;
          }
          if (p_ < end_ && *p_ == '}') {
            ++p_;
            return true;
          }
          return false;
        }
      }
      case '[': {
        if (field != nullptr)
          field->type = JsonType::kArray;
        const bool look = interesting(d);
        ++p_;
        ws();
        if (p_ < end_ && *p_ == ']') {
          ++p_;
          return true;
        }
        for (int index = 0;; ++index) {
          if (d < JsonPath::kMaxDepth) {
            stack_[d].is_index = true;
            stack_[d].index = index;
          }
          if (!(look ? value(d + 1) : skip(d + 1)))
            return false;
          ws();
          if (p_ < end_ && *p_ == ',') {
            ++p_;
            ws();
            continue;
          }
          if (p_ < end_ && *p_ == ']') {
            ++p_;
            return true;
          }
          return false;
        }
      }
      case '"': {
        std::string_view content;
        if (!string(&content))
          return false;
        if (field != nullptr) {
          field->type = JsonType::kString;
          field->raw = content;
        }
        return true;
      }
      case 't':
      case 'f':
      case 'n': {
        const std::string_view word = c == 't' ? "true" : c == 'f' ? "false" : "null";
        if (!literal(word))
          return false;
        if (field != nullptr) {
          field->type = c == 'n' ? JsonType::kNull : JsonType::kBool;
          field->raw = word;
        }
        return true;
      }
      default:
        if (!number())
          return false;
        if (field != nullptr) {
          field->type = JsonType::kNumber;
          field->raw = number_;
        }
        return true;
    }
  }

  // Validates a value no target lies in.
  bool skip(int d) {
    if (p_ >= end_ || d > kMaxNesting)
      return false;
    const char c = *p_;
    if (c == '{' || c == '[') {
      const char close = c == '{' ? '}' : ']';
      ++p_;
      ws();
      if (p_ < end_ && *p_ == close) {
        ++p_;
        return true;
      }
      while (true) {
        if (c == '{') {
          if (p_ >= end_ || *p_ != '"' || !string(nullptr))
            return false;
          ws();
          if (p_ >= end_ || *p_ != ':')
            return false;
          ++p_;
          ws();
        }
        if (!skip(d + 1))
          return false;
        ws();
        if (p_ < end_ && *p_ == ',') {
          ++p_;
          ws();
          continue;
        }
        if (p_ < end_ && *p_ == close) {
          ++p_;
          return true;
        }
        return false;
      }
    }
    if (c == '"')
      return string(nullptr);
    if (c == 't')
      return literal("true");
    if (c == 'f')
      return literal("false");
    if (c == 'n')
      return literal("null");
    return number();
  }

  struct Step {
    bool is_index = false;
    int index = 0;
    std::string_view key;
  };

  const char* p_;
  const char* end_;
  const JsonPath* paths_;
  int count_;
  JsonField* out_;
  Step stack_[JsonPath::kMaxDepth];
  std::string_view number_;
};

}  // namespace

bool scan_json(std::string_view doc, const JsonPath* paths, int count, JsonField* out) {
  for (int i = 0; i < count; ++i)
    out[i] = JsonField{};
  Scanner s(doc, paths, count, out);
  return s.run();
}

}  // namespace servescope
