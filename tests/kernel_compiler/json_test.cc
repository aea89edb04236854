#include "kernel_compiler/json.h"

#include <gtest/gtest.h>

#include <random>

namespace jft::kernel_compiler {
namespace {

TEST(Json, ParsesNestedDocument) {
  auto json =
      Json::parse(R"( {"a": [1, -2.5, true, null], "b": {"c": "x\ny"}, "e": 1e3} )");
  ASSERT_TRUE(json.isOk()) << json.status().toString();
  const Json* a = json->find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->asArray().size(), 4u);
  EXPECT_EQ(a->asArray()[0].asNumber(), 1);
  EXPECT_EQ(a->asArray()[1].asNumber(), -2.5);
  EXPECT_TRUE(a->asArray()[2].asBool());
  EXPECT_TRUE(a->asArray()[3].isNull());
  EXPECT_EQ(json->find("b")->find("c")->asString(), "x\ny");
  EXPECT_EQ(json->find("e")->asNumber(), 1000);
}

TEST(Json, DecodesUnicodeEscapesToUtf8) {
  auto json = Json::parse(R"("\u00e9\u4e2d\ud83d\ude00")");
  ASSERT_TRUE(json.isOk());
  EXPECT_EQ(json->asString(), "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80");
}

TEST(Json, DumpIsSortedAndRoundTrips) {
  Json json;
  json.set("zeta", 1);
  json.set("alpha", Json::Array{Json("q\"uote"), Json(2.5), Json(false)});
  json.set("tab", "a\tb");
  EXPECT_EQ(json.dump(), R"({"alpha":["q\"uote",2.5,false],"tab":"a\tb","zeta":1})");
  auto back = Json::parse(json.dump());
  ASSERT_TRUE(back.isOk());
  EXPECT_EQ(back->dump(), json.dump());
}

TEST(Json, RejectsMalformedInput) {
  for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "tru", "\"open", "1 2",
                          "{\"a\":01x}", "\"\\q\"", "[\"\x01\"]"}) {
    EXPECT_FALSE(Json::parse(bad).isOk()) << bad;
  }
}

TEST(Json, RejectsExcessiveNesting) {
  EXPECT_FALSE(Json::parse(std::string(1000, '[') + std::string(1000, ']')).isOk());
}

TEST(Json, RequireHelpersNameTheField) {
  auto json = Json::parse(R"({"n": 3, "f": 1.5, "s": "x"})");
  ASSERT_TRUE(json.isOk());
  EXPECT_EQ(*requireInt(*json, "n"), 3);
  EXPECT_FALSE(requireInt(*json, "f").isOk());
  auto missing = requireString(*json, "absent");
  ASSERT_FALSE(missing.isOk());
  EXPECT_NE(missing.status().message().find("absent"), std::string::npos);
  EXPECT_FALSE(requireBool(*json, "s").isOk());
}

TEST(Json, MutatedDocumentsNeverCrashTheParser) {
  const std::string valid =
      R"({"type":"result","id":5,"ok":true,"params":[{"size":8,"pointer":true}],)"
      R"("name":"k\u00e9","x":-1.5e3})";
  ASSERT_TRUE(Json::parse(valid).isOk());
  std::mt19937 random(1234);
  const std::string alphabet = "{}[],:\"\\u0123456789eE.-+truefalsn \x01\xff";
  for (int round = 0; round < 5000; ++round) {
    std::string text = valid;
    int edits = 1 + static_cast<int>(random() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t at = random() % text.size();
      switch (random() % 3) {
        case 0:
          text[at] = alphabet[random() % alphabet.size()];
          break;
        case 1:
          text.erase(at, 1 + random() % 5);
          break;
        default:
          text.insert(at, 1, alphabet[random() % alphabet.size()]);
          break;
      }
      if (text.empty()) text = "{";
    }
    auto parsed = Json::parse(text);
    if (parsed.isOk()) {
      EXPECT_TRUE(Json::parse(parsed->dump()).isOk()) << text;
    }
  }
}

}  // namespace
}  // namespace jft::kernel_compiler
