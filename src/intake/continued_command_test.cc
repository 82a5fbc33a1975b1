#include "intake/continued_command.h"

#include <gtest/gtest.h>

#include <string>

namespace servescope {
namespace {

TEST(ContinuedCommand, HoldsLinesUntilOneDoesNotContinue) {
  ContinuedCommand c;
  EXPECT_FALSE(c.pending());
  EXPECT_TRUE(c.start("vllm serve M \\   ", 7));  // blanks after the backslash: a paste artefact
  EXPECT_TRUE(c.pending());
  EXPECT_TRUE(c.add("  --tensor-parallel-size 2 \\"));
  EXPECT_FALSE(c.add("  --max-model-len 4096"));
  EXPECT_EQ(c.first_line(), 7u);
  EXPECT_EQ(c.take(), "vllm serve M \\\n  --tensor-parallel-size 2 \\\n  --max-model-len 4096");
  EXPECT_FALSE(c.pending());
  // A line that does not continue is a whole command by itself.
  EXPECT_FALSE(c.start("vllm serve M", 1));
  EXPECT_EQ(c.take(), "vllm serve M");
}

TEST(ContinuedCommand, AnEndlessRunOfBackslashesStops) {
  ContinuedCommand c;
  c.start("x \\", 1);
  const std::string line(1000, 'a');
  int lines = 0;
  while (c.add(line + " \\") && lines < 1000)
    ++lines;
  EXPECT_FALSE(c.pending());
  EXPECT_LT(lines, 100);  // 64 KiB at most
}

}  // namespace
}  // namespace servescope
