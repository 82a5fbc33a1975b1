// A validating single-pass JSON scanner that picks a few fields out of a document without
// building it: the load client reads every stream event with it, so its cost per event is a
// scan of the bytes, no allocation. Paths are keys and array indexes from the root
// ("choices", 0, "text"). Keys are compared as written (the fields it looks for need no
// escapes).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <vector>

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

/// Paths compiled for scanning: per depth, which paths end there, which go deeper, and each
/// distinct key or index with the paths that take it, so a value in the document costs a few
/// mask operations whatever the number of paths. Keys are views: what they point to must
/// outlive the set.
class JsonPaths {
 public:
  using Mask = std::uint64_t;
  static constexpr int kMaxPaths = 64;

  JsonPaths() = default;
  /// At most kMaxPaths paths (more: `valid()` is false and every scan fails).
  JsonPaths(const JsonPath* paths, int count);
  JsonPaths(std::initializer_list<JsonPath> paths)
      : JsonPaths(paths.begin(), static_cast<int>(paths.size())) {}

  int size() const { return count_; }
  bool valid() const { return count_ <= kMaxPaths; }

  struct Step {
    JsonStep step;
    Mask paths = 0;  // the paths whose step at this depth is `step`
  };
  Mask all() const { return count_ >= kMaxPaths ? ~Mask{0} : (Mask{1} << count_) - 1; }
  Mask ends_at(int d) const { return d <= JsonPath::kMaxDepth ? ends_at_[d] : 0; }
  Mask deeper_than(int d) const { return d < JsonPath::kMaxDepth ? deeper_than_[d] : 0; }
  const Step* steps_begin(int d) const { return steps_[d].data(); }
  const Step* steps_end(int d) const { return steps_[d].data() + steps_[d].size(); }

 private:
  int count_ = 0;
  Mask ends_at_[JsonPath::kMaxDepth + 1] = {};
  Mask deeper_than_[JsonPath::kMaxDepth] = {};
  std::vector<Step> steps_[JsonPath::kMaxDepth];
};

/// Scans `doc`; fills `out[i]` for path i of `paths`. Returns false when `doc` is not one
/// valid JSON value (the fields found before the fault may be set).
bool scan_json(std::string_view doc, const JsonPaths& paths, JsonField* out);
/// The same for paths given one by one (at most 64; more: false), compiled for this scan.
bool scan_json(std::string_view doc, const JsonPath* paths, int count, JsonField* out);

}  // namespace servescope
