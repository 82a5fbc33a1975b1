// Logs as people quote them: the engine's line inside Markdown, and an engine's own lines
// untouched.
#include "evidence/quoted_line.h"

#include <gtest/gtest.h>

#include "evidence/log_reader.h"

namespace servescope {
namespace {

constexpr char kLine[] =
    "(APIServer pid=5196) INFO 12-02 05:33:38 [model.py:2152] Using max model len 2048";

TEST(QuotedLine, MarkdownQuotingIsRemoved) {
  const std::string line = kLine;
  for (const std::string& quoted : {"> " + line, ">> " + line, "> > " + line, "- " + line,
                                    "* " + line, "3. " + line, "| " + line + " |", "`" + line + "`",
                                    "- `" + line + "`", "> - " + line + "  ", "    " + line}) {
    EXPECT_EQ(unquote_log_line(quoted), line) << quoted;
  }
}

TEST(QuotedLine, EngineLinesAndCollectorPrefixesStayAsTheyAre) {
  for (std::string_view line :
       {std::string_view(kLine), std::string_view("[2025-01-23 19:35:15 TP0] Load weight begin."),
        std::string_view("2026-12-06T12:00:00.123Z INFO 12-02 05:33:38 [gpu_worker.py:1] x"),
        std::string_view("vllm-1  | INFO 12-02 05:33:38 [core.py:1] y"),
        std::string_view("-1 is not a valid value"), std::string_view(" - leaked function \"x\""),
        std::string_view("    File \"/x/y.py\", line 3, in f"), std::string_view("")}) {
    EXPECT_EQ(unquote_log_line(line), line) << line;
  }
}

TEST(QuotedLine, AQuotedLogReadsAsTheLogItself) {
  const std::string text = std::string(kLine) + "\n";
  auto plain = read_log_text(text, "plain");
  auto table = read_log_text("| " + std::string(kLine) + " |\n", "table");
  ASSERT_TRUE(plain && table);
  ASSERT_NE(plain->first("max_model_len"), nullptr);
  ASSERT_NE(table->first("max_model_len"), nullptr);
  EXPECT_EQ(table->first("max_model_len")->integer("max_model_len"), 2048);
}

}  // namespace
}  // namespace servescope
