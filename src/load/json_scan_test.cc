#include "load/json_scan.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace servescope
