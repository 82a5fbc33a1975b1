// What check's tests share: a log's text checked with the given options (the test fails where
// check refuses it), and one figure's comparison by name.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "diagnose/check.h"
#include "evidence/log_reader.h"

namespace servescope::testing {

inline CheckResult check_text(const std::string& text, const CheckOptions& options) {
  auto facts = read_log_text(text, "test.log");
  EXPECT_TRUE(facts) << facts.message();
  if (!facts)
    return {};
  auto r = check_log(*facts, options);
  EXPECT_TRUE(r) << r.message();
  return r ? std::move(*r) : CheckResult{};
}

/// The comparison of `field`, or nullptr when check made none.
inline const Comparison* comparison_of(const CheckResult& r, std::string_view field) {
  for (const Comparison& c : r.comparisons) {
    if (c.field == field)
      return &c;
  }
  return nullptr;
}

}  // namespace servescope::testing
