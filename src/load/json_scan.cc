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
    const Mask all = count_ >= 64 ? ~Mask{0} : (Mask{1} << count_) - 1;
    if (!value(0, all))
      return false;
    ws();
    return p_ == end_;
  }

 private:
  void ws() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t'))
      ++p_;
  }

  // The paths still alive at a value are a bit mask: those whose steps match every key and
  // index above it. Each level tests only its own step, so a value costs a few bit operations,
  // not a comparison of every path's whole prefix; under an empty mask a value is only validated.
  using Mask = std::uint64_t;

  // The alive path that ends at depth `d` (the value is a target), or -1.
  int target(int d, Mask alive) const {
    for (Mask m = alive; m != 0; m &= m - 1) {
      const int t = __builtin_ctzll(m);
      if (paths_[t].depth == d)
        return t;
    }
    return -1;
  }

  // The alive paths that go below depth `d` (a target may lie inside this value).
  Mask deeper(int d, Mask alive) const {
    Mask out = 0;
    for (Mask m = alive; m != 0; m &= m - 1) {
      const int t = __builtin_ctzll(m);
      if (paths_[t].depth > d)
        out |= Mask{1} << t;
    }
    return out;
  }

  // Of `alive` (paths going below depth `d`), those whose step `d` is this key / index.
  Mask through_key(int d, Mask alive, std::string_view key) const {
    Mask out = 0;
    for (Mask m = alive; m != 0; m &= m - 1) {
      const int t = __builtin_ctzll(m);
      const JsonStep& want = paths_[t].steps[d];
      if (!want.key.empty() && want.key == key)
        out |= Mask{1} << t;
    }
    return out;
  }
  Mask through_index(int d, Mask alive, int index) const {
    Mask out = 0;
    for (Mask m = alive; m != 0; m &= m - 1) {
      const int t = __builtin_ctzll(m);
      const JsonStep& want = paths_[t].steps[d];
      if (want.key.empty() && want.index == index)
        out |= Mask{1} << t;
    }
    return out;
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

  bool value(int d, Mask alive) {
    if (p_ >= end_ || d > kMaxNesting)
      return false;
    const int slot = target(d, alive);
    JsonField* field = slot >= 0 ? &out_[slot] : nullptr;
    const char c = *p_;
    switch (c) {
      case '{': {
        if (field != nullptr)
          field->type = JsonType::kObject;
        const Mask below = d < JsonPath::kMaxDepth ? deeper(d, alive) : 0;
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
          const Mask child = below != 0 ? through_key(d, below, key) : 0;
          if (!value(d + 1, child))
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
        const Mask below = d < JsonPath::kMaxDepth ? deeper(d, alive) : 0;
        ++p_;
        ws();
        if (p_ < end_ && *p_ == ']') {
          ++p_;
          return true;
        }
        for (int index = 0;; ++index) {
          const Mask child = below != 0 ? through_index(d, below, index) : 0;
          if (!value(d + 1, child))
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

  const char* p_;
  const char* end_;
  const JsonPath* paths_;
  int count_;
  JsonField* out_;
  std::string_view number_;
};

}  // namespace

bool scan_json(std::string_view doc, const JsonPath* paths, int count, JsonField* out) {
  for (int i = 0; i < count; ++i)
    out[i] = JsonField{};
  if (count > 64)
    return false;  // the scanner tracks paths in a 64-bit mask (callers ask for a handful)
  Scanner s(doc, paths, count, out);
  return s.run();
}

}  // namespace servescope
