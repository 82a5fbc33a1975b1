// Value: what a derivation node holds — a number, a flag state, a name or a list of sizes.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace servescope {

using IntList = std::vector<std::int64_t>;

/// The last element of a list a published log shortened ("[1, 2, 4, ...]"): the list goes on
/// beyond the elements before it, so it is compared as a prefix.
inline constexpr std::int64_t kListGoesOn = INT64_MIN;
inline bool list_goes_on(const IntList& l) {
  return !l.empty() && l.back() == kListGoesOn;
}

class Value {
 public:
  Value() = default;
  Value(bool b) : v_(b) {}                      // NOLINT(google-explicit-constructor)
  Value(int i) : v_(std::int64_t{i}) {}         // NOLINT(google-explicit-constructor)
  Value(std::int64_t i) : v_(i) {}              // NOLINT(google-explicit-constructor)
  Value(double d) : v_(d) {}                    // NOLINT(google-explicit-constructor)
  Value(std::string s) : v_(std::move(s)) {}    // NOLINT(google-explicit-constructor)
  Value(const char* s) : v_(std::string(s)) {}  // NOLINT(google-explicit-constructor)
  Value(IntList l) : v_(std::move(l)) {}        // NOLINT(google-explicit-constructor)

  bool is_none() const { return v_.index() == 0; }
  bool is_bool() const { return v_.index() == 1; }
  bool is_int() const { return v_.index() == 2; }
  bool is_double() const { return v_.index() == 3; }
  bool is_number() const { return is_int() || is_double(); }
  bool is_string() const { return v_.index() == 4; }
  bool is_list() const { return v_.index() == 5; }

  bool as_bool() const { return std::get<1>(v_); }
  std::int64_t as_int() const { return std::get<2>(v_); }
  /// The numeric value of an int or double (0 for anything else).
  double as_number() const;
  const std::string& as_string() const { return std::get<4>(v_); }
  const IntList& as_list() const { return std::get<5>(v_); }

  /// Short human form: 0.7851, 2036790, true, 'flashinfer', [1, 2, 4 … 117] (lists elided).
  std::string to_display() const;
  /// Full form, used for equality checks across plans.
  std::string to_string() const;

  bool operator==(const Value& other) const { return v_ == other.v_; }

 private:
  std::variant<std::monostate, bool, std::int64_t, double, std::string, IntList> v_;
};

}  // namespace servescope
