#include "intake/shell_words.h"

#include <gtest/gtest.h>

namespace servescope {
namespace {

std::vector<std::string> words_of(std::string_view text) {
  auto w = split_shell_words(text);
  EXPECT_TRUE(w) << w.message();
  return w ? *w : std::vector<std::string>{};
}

TEST(ShellWords, QuotingAsAPosixShellDoesIt) {
  EXPECT_EQ(words_of(R"(a 'b c' "d \"e\" \$f \x" g\ h '' "")"),
            (std::vector<std::string>{"a", "b c", R"(d "e" $f \x)", "g h", "", ""}));
  // Quotes inside a word join it: --json-model-override-args='{"a": 1}'
  EXPECT_EQ(words_of(R"(--override='{"a": 1}' x"y"z)"),
            (std::vector<std::string>{R"(--override={"a": 1})", "xyz"}));
}

TEST(ShellWords, ContinuationsJoinLinesAndCountThem) {
  auto commands = split_shell_commands("python -m x \\\n  --tp 4 \\\r\n  --port 1\nnext\n");
  ASSERT_TRUE(commands);
  ASSERT_EQ(commands->size(), 2u);
  EXPECT_EQ((*commands)[0].words,
            (std::vector<std::string>{"python", "-m", "x", "--tp", "4", "--port", "1"}));
  EXPECT_EQ((*commands)[0].line, 1);
  EXPECT_EQ((*commands)[1].words, (std::vector<std::string>{"next"}));
  EXPECT_EQ((*commands)[1].line, 4);
}

TEST(ShellWords, OperatorsEndCommandsAndRedirectionsAreDropped) {
  auto commands = split_shell_commands("cmd --a 1 2>&1 | tee out.log &\nb>x;c &>> all.log && d");
  ASSERT_TRUE(commands);
  ASSERT_EQ(commands->size(), 5u);
  EXPECT_EQ((*commands)[0].words, (std::vector<std::string>{"cmd", "--a", "1"}));
  EXPECT_EQ((*commands)[0].terminator, "|");
  EXPECT_EQ((*commands)[1].words, (std::vector<std::string>{"tee", "out.log"}));
  EXPECT_EQ((*commands)[1].terminator, "&");
  EXPECT_EQ((*commands)[2].words, (std::vector<std::string>{"b"}));
  EXPECT_EQ((*commands)[3].words, (std::vector<std::string>{"c"}));
  EXPECT_EQ((*commands)[3].terminator, "&&");
  EXPECT_EQ((*commands)[4].words, (std::vector<std::string>{"d"}));
}

TEST(ShellWords, CommentsAndSubstitutionsStayAsTyped) {
  EXPECT_EQ(words_of("a#b $(cat x y) ${M:-z} `q r` # gone"),
            (std::vector<std::string>{"a#b", "$(cat x y)", "${M:-z}", "`q r`"}));
}

TEST(ShellWords, AnUnclosedQuoteNamesItsLine) {
  auto r = split_shell_commands("ok\npython -m x --name 'abc\n");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.message(), "line 2: a single quote is never closed");
  EXPECT_FALSE(split_shell_commands("\"abc"));
  EXPECT_FALSE(split_shell_commands("$(abc"));
}

TEST(ShellWords, QuoteRoundTrips) {
  for (std::string w : {"plain", "a b", "it's", "", "{\"a\": 1}", "$HOME"}) {
    EXPECT_EQ(words_of(shell_quote(w)), std::vector<std::string>{w}) << w;
  }
  EXPECT_EQ(shell_quote("--tp=4"), "--tp=4");
}

}  // namespace
}  // namespace servescope
