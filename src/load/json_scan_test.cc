#include "load/json_scan.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>

namespace servescope {
namespace {

TEST(JsonScan, PicksFieldsAtPathsAndSkipsTheRest) {
  const JsonPath paths[] = {{"choices", 0, "delta", "content"},
                            {"usage", "completion_tokens"},
                            {"error"},
                            {"choices", 1, "text"}};
  JsonField f[4];
  const std::string doc =
      R"({"id":"x","choices":[{"index":0,"delta":{"role":"assistant","content":"hi \"you\""}},)"
      R"({"text":"second"}],"usage":{"prompt_tokens":3,"completion_tokens":12},"n":[1,2.5e3,-0.1,true,null]})";
  ASSERT_TRUE(scan_json(doc, paths, 4, f));
  EXPECT_EQ(f[0].type, JsonType::kString);
  EXPECT_EQ(f[0].raw, R"(hi \"you\")");
  EXPECT_EQ(f[1].integer(), 12);
  EXPECT_EQ(f[2].type, JsonType::kAbsent);
  EXPECT_EQ(f[3].raw, "second");
}

TEST(JsonScan, NullAndObjectFieldsHaveTheirTypes) {
  const JsonPath paths[] = {{"usage"}, {"error"}};
  JsonField f[2];
  ASSERT_TRUE(scan_json(R"({"usage":null,"error":{"message":"boom"}})", paths, 2, f));
  EXPECT_EQ(f[0].type, JsonType::kNull);
  EXPECT_EQ(f[0].integer(), -1);
  EXPECT_EQ(f[1].type, JsonType::kObject);
}

TEST(JsonScan, RejectsWhatIsNotOneJsonValue) {
  const JsonPath paths[] = {{"a"}};
  JsonField f[1];
  for (const char* bad : {"", "{", R"({"a":1,})", R"({"a":01})", R"({"a":"x)", "[1 2]", "nul",
                          R"({"a":1} x)", R"({"a":"\q"})", "{\"a\":\"\x01\"}"})
    EXPECT_FALSE(scan_json(bad, paths, 1, f)) << bad;
  EXPECT_TRUE(scan_json(R"( {"a" : [ ] } )", paths, 1, f));
  EXPECT_EQ(f[0].type, JsonType::kArray);
}

// Strings are scanned sixteen bytes at a time: a quote, an escape or a control character at
// every position of a long string, and strings ending at every distance from the document's end.
TEST(JsonScan, StringsOfEveryLengthAndEverySpecialPosition) {
  const JsonPath paths[] = {{"s"}};
  JsonField f[1];
  for (std::size_t len = 0; len < 40; ++len) {
    const std::string plain(len, 'a');
    std::string doc = R"({"s":")" + plain + R"("})";  // the fields are views of it
    ASSERT_TRUE(scan_json(doc, paths, 1, f)) << len;
    EXPECT_EQ(f[0].raw, plain);
    for (std::size_t at = 0; at < len; ++at) {
      std::string text = plain;
      text[at] = '\x01';
      EXPECT_FALSE(scan_json(R"({"s":")" + text + R"("})", paths, 1, f)) << len << " " << at;
      text = plain.substr(0, at) + R"(\"\n\u00e9)" + plain.substr(at);
      doc = R"({"s":")" + text + R"("})";
      ASSERT_TRUE(scan_json(doc, paths, 1, f)) << len << " " << at;
      EXPECT_EQ(f[0].raw, text);
      EXPECT_FALSE(scan_json(R"({"s":")" + plain.substr(0, at), paths, 1, f)) << "unterminated";
    }
  }
}

// Whether a full parser finds `doc` to be JSON; nullopt when it cannot say. A number beyond a
// double's range is JSON by the grammar (RFC 8259 §6 leaves the range to implementations), but
// nlohmann stops there (out_of_range 406) without reading the rest, and the scanner, which does
// not read numbers as doubles, goes on.
std::optional<bool> json_by_full_parser(const std::string& doc) {
  try {
    return !nlohmann::json::parse(doc).is_discarded();
  } catch (const nlohmann::json::parse_error&) {
    return false;
  } catch (const nlohmann::json::out_of_range& e) {
    if (e.id == 406)
      return std::nullopt;
    throw;
  }
}

// The scanner accepts exactly what a full JSON parser accepts: a stream event and thousands of
// byte-level mutations of it (ASCII only: the scanner, like the servers' clients, does not
// validate UTF-8), judged by nlohmann's parser.
TEST(JsonScan, AcceptsWhatAFullParserAcceptsOnMutatedEvents) {
  const std::string event =
      R"({"id":"9e3779b843248f66c4d5a60da9f80496","object":"text_completion","created":1795998576,)"
      R"("model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"text":" the \"x\"",)"
      R"("logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":{"prompt_tokens":64,)"
      R"("total_tokens":65,"completion_tokens":1,"prompt_tokens_details":[1.5e3,-0,true,false]}})";
  const JsonPaths paths = {{"choices", 0, "text"}, {"usage", "completion_tokens"}, {"error"}};
  JsonField f[3];
  ASSERT_TRUE(scan_json(event, paths, f));
  EXPECT_EQ(f[0].raw, R"( the \"x\")");
  EXPECT_EQ(f[1].integer(), 1);
  const std::string alphabet = R"({}[]:,"\ 0123456789.eE+-tfnulrsa)"
                               "\t\n\x01\x7f";
  std::mt19937 rng(7);
  int accepted = 0;
  int undecided = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string doc = event;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng() % doc.size();
      const char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
        case 0:
          doc[at] = c;
          break;
        case 1:
          doc.insert(doc.begin() + static_cast<std::ptrdiff_t>(at), c);
          break;
        default:
          doc.erase(at, 1);
          break;
      }
    }
    const std::optional<bool> want = json_by_full_parser(doc);
    if (!want) {
      ++undecided;
      continue;
    }
    accepted += *want ? 1 : 0;
    EXPECT_EQ(scan_json(doc, paths, f), *want) << doc;
  }
  EXPECT_LT(undecided, 200);
  // Both outcomes were exercised.
  EXPECT_GT(accepted, 1000);
  EXPECT_LT(accepted, 19000);
}

}  // namespace
}  // namespace servescope
