// A validating single-pass JSON scanner that picks a few fields out of a document without
// building it: the load client reads every stream event with it, so its cost per event is a
// scan of the bytes, no allocation. Paths are keys and array indexes from the root
// ("choices", 0, "text"). Keys are compared as written (the fields it looks for need no
// escapes).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace servescope {

struct JsonStep {
  std::string_view key;  // empty: an array index
  int index = 0;
  JsonStep(const char* k) : key(k) {}  // NOLINT(google-explicit-constructor)
  JsonStep(int i) : index(i) {}        // NOLINT(google-explicit-constructor)
};

struct JsonPath {
  static constexpr int kMaxDepth = 4;
  JsonStep steps[kMaxDepth] = {0, 0, 0, 0};
  int depth = 0;
  JsonPath() = default;
  JsonPath(std::initializer_list<JsonStep> s);
};

enum class JsonType : std::uint8_t { kAbsent, kNull, kBool, kNumber, kString, kObject, kArray };

struct JsonField {
  JsonType type = JsonType::kAbsent;
  std::string_view raw;  // a string's content (escapes as written), a number's text, "true"
  bool empty_string() const { return type == JsonType::kString && raw.empty(); }
  bool nonempty_string() const { return type == JsonType::kString && !raw.empty(); }
  /// A number field as an integer (-1 when absent or not a non-negative integer).
  std::int64_t integer() const;
};

/// Scans `doc`; fills `out[i]` for `paths[i]` (at most 64 paths; more: false). Returns false
/// when `doc` is not one valid JSON value (the fields found before the fault may be set).
bool scan_json(std::string_view doc, const JsonPath* paths, int count, JsonField* out);

}  // namespace servescope
