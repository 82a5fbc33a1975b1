#include "load/json_scan.h"

#include <algorithm>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace servescope {

JsonPath::JsonPath(std::initializer_list<JsonStep> s) {
  for (const JsonStep& step : s) {
    if (depth < kMaxDepth)
      steps[depth++] = step;
  }
}

JsonPaths::JsonPaths(const JsonPath* paths, int count) : count_(count) {
  if (!valid())
    return;
  for (int t = 0; t < count; ++t) {
    const JsonPath& path = paths[t];
    const Mask bit = Mask{1} << t;
    ends_at_[path.depth] |= bit;
    for (int d = 0; d < path.depth; ++d) {
      deeper_than_[d] |= bit;
      const JsonStep& want = path.steps[d];
      std::vector<Step>& steps = steps_[d];
      auto same = [&](const Step& s) {
        return s.step.key == want.key && (!want.key.empty() || s.step.index == want.index);
      };
      auto it = std::find_if(steps.begin(), steps.end(), same);
      if (it == steps.end())
        it = steps.insert(it, Step{want, 0});
      it->paths |= bit;
    }
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

// The first byte from `p` that can end or escape a string or is not allowed in one ('"',
// '\\', a control character), or `end`. Event payloads are mostly string bytes, so they are
// tested sixteen at a time where the CPU has SSE2 (every x86-64 does).
const char* skip_plain(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i control_max = _mm_set1_epi8(0x1F);
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i special =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                     _mm_cmpeq_epi8(_mm_max_epu8(v, control_max), control_max));  // v <= 0x1F
    const int mask = _mm_movemask_epi8(special);
    if (mask != 0)
      return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p < end && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20)
    ++p;
  return p;
}

// A wanted key (non-empty) against a key in the document: most keys differ in length or in
// their first or last letter, which is tested before the bytes are compared.
bool same_key(std::string_view want, std::string_view key) {
  const std::size_t n = want.size();
  return n != 0 && n == key.size() && want[0] == key[0] && want[n - 1] == key[n - 1] &&
         std::memcmp(want.data(), key.data(), n) == 0;
}

class Scanner {
 public:
  Scanner(std::string_view doc, const JsonPaths& paths, JsonField* out)
      : p_(doc.data()), end_(doc.data() + doc.size()), paths_(paths), out_(out) {}

  bool run() {
    ws();
    if (!value(0, paths_.all()))
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
  // index above it. Each level tests only its own distinct steps, so a value costs a few mask
  // operations, not a comparison of every path's whole prefix; under an empty mask a value is
  // only validated.
  using Mask = JsonPaths::Mask;

  // The alive path that ends at depth `d` (the value is a target), or -1.
  int target(int d, Mask alive) const {
    const Mask m = alive & paths_.ends_at(d);
    return m == 0 ? -1 : __builtin_ctzll(m);
  }

  // Of `alive` (paths going below depth `d`), those whose step `d` is this key / index.
  Mask through_key(int d, Mask alive, std::string_view key) const {
    for (const JsonPaths::Step* s = paths_.steps_begin(d); s != paths_.steps_end(d); ++s) {
      if ((s->paths & alive) != 0 && same_key(s->step.key, key))
        return s->paths & alive;  // steps are distinct: one key matches at most one
    }
    return 0;
  }
  Mask through_index(int d, Mask alive, int index) const {
    for (const JsonPaths::Step* s = paths_.steps_begin(d); s != paths_.steps_end(d); ++s) {
      if ((s->paths & alive) != 0 && s->step.key.empty() && s->step.index == index)
        return s->paths & alive;
    }
    return 0;
  }

  __attribute__((always_inline)) bool string(std::string_view* content) {
    ++p_;  // opening quote
    const char* start = p_;
    while (true) {
      p_ = skip_plain(p_, end_);
      if (p_ >= end_)
        return false;
      const char c = *p_;
      if (c == '"') {
        if (content != nullptr)
          *content = std::string_view(start, static_cast<std::size_t>(p_ - start));
        ++p_;
        return true;
      }
      if (c != '\\')
        return false;  // a control character
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
    }
  }

  // The word `w` (true, false, null) at the cursor, without a library call per literal.
  template <std::size_t N>
  bool literal(const char (&w)[N]) {
    constexpr std::size_t len = N - 1;
    if (static_cast<std::size_t>(end_ - p_) < len)
      return false;
    for (std::size_t k = 1; k < len; ++k) {  // the first letter chose the word
      if (p_[k] != w[k])
        return false;
    }
    p_ += len;
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

  // After a member or an element: a comma and more, or the bracket that closes them.
  enum class Next { kMore, kClosed, kBad };
  Next after_item(char close) {
    ws();
    if (p_ < end_ && *p_ == ',') {
      ++p_;
      ws();
      return Next::kMore;
    }
    if (p_ < end_ && *p_ == close) {
      ++p_;
      return Next::kClosed;
    }
    return Next::kBad;
  }

  // A value: scalars here (inlined where values are read), objects and arrays in container().
  __attribute__((always_inline)) bool value(int d, Mask alive) {
    if (p_ >= end_)
      return false;
    const char c = *p_;
    if (c == '{' || c == '[')
      return container(d, alive);
    const int slot = target(d, alive);
    JsonField* field = slot >= 0 ? &out_[slot] : nullptr;
    switch (c) {
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
        const bool ok = c == 't' ? literal("true") : c == 'f' ? literal("false") : literal("null");
        if (!ok)
          return false;
        if (field != nullptr) {
          field->type = c == 'n' ? JsonType::kNull : JsonType::kBool;
          field->raw = c == 't' ? "true" : c == 'f' ? "false" : "null";
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

  bool container(int d, Mask alive) {
    if (d > kMaxNesting)
      return false;
    const int slot = target(d, alive);
    JsonField* field = slot >= 0 ? &out_[slot] : nullptr;
    const Mask below = alive & paths_.deeper_than(d);
    if (*p_ == '{') {
      if (field != nullptr)
        field->type = JsonType::kObject;
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
        const Next next = after_item('}');
        if (next == Next::kMore)
          continue;
        return next == Next::kClosed;
      }
    }
    if (field != nullptr)
      field->type = JsonType::kArray;
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
      const Next next = after_item(']');
      if (next == Next::kMore)
        continue;
      return next == Next::kClosed;
    }
  }

  const char* p_;
  const char* end_;
  const JsonPaths& paths_;
  JsonField* out_;
  std::string_view number_;
};

}  // namespace

bool scan_json(std::string_view doc, const JsonPaths& paths, JsonField* out) {
  if (!paths.valid())
    return false;  // the scanner tracks paths in a 64-bit mask (callers ask for a handful)
  for (int i = 0; i < paths.size(); ++i)
    out[i] = JsonField{};
  Scanner s(doc, paths, out);
  return s.run();
}

bool scan_json(std::string_view doc, const JsonPath* paths, int count, JsonField* out) {
  for (int i = 0; i < count; ++i)
    out[i] = JsonField{};
  return scan_json(doc, JsonPaths(paths, count), out);
}

}  // namespace servescope
