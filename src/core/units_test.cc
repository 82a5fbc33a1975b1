// python_round against values CPython rounds (each checked with python3: round(x, n)).
#include "core/units.h"

#include <gtest/gtest.h>

namespace servescope {
namespace {

TEST(PythonRound, RoundsTheExactBinaryValue) {
  EXPECT_DOUBLE_EQ(python_round(0.6125, 3), 0.613);  // 0.61250000000000004... (SGLang mfs)
  EXPECT_DOUBLE_EQ(python_round(2.675, 2), 2.67);    // 2.67499999999999982...
  EXPECT_DOUBLE_EQ(python_round(0.8295, 3), 0.83);   // the H100 Qwen3-14B fraction
  EXPECT_DOUBLE_EQ(python_round(0.5, 0), 0.0);       // an exact tie goes to even
  EXPECT_DOUBLE_EQ(python_round(1.5, 0), 2.0);
  EXPECT_DOUBLE_EQ(python_round(0.125, 2), 0.12);  // exact tie in binary: even
}

}  // namespace
}  // namespace servescope
