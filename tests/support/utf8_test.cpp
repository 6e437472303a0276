#include "support/utf8.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace {

using namespace croq::support;

const std::string kE = "\xC3\xA9";              // é, 2 bytes
const std::string kHan = "\xE6\xBC\xA2";        // 漢, 3 bytes
const std::string kEmoji = "\xF0\x9F\x98\x80";  // 😀, 4 bytes
const std::string kReplacement = "\xEF\xBF\xBD";  // U+FFFD

TEST(Utf8, CutsNeverSplitACharacter) {
  const std::string text = "a" + kE + kHan + kEmoji + "z";  // bytes: 1, 2, 3, 4, 1
  // Every cut inside a character moves back to its start.
  const std::size_t expected[] = {0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 10, 11};
  for (std::size_t max = 0; max <= text.size(); ++max) {
    EXPECT_EQ(utf8_boundary_before(text, max), expected[max]) << max;
    EXPECT_EQ(utf8_prefix(text, max), text.substr(0, expected[max])) << max;
    EXPECT_TRUE(is_valid_utf8(utf8_prefix(text, max))) << max;
  }
  EXPECT_EQ(utf8_prefix(text, 1000), text);
  // Stray continuation bytes: at most 3 steps back, the rest is repaired later.
  EXPECT_EQ(utf8_boundary_before(std::string(10, '\x80'), 8), 5u);
}

TEST(Utf8, InvalidSequencesBecomeTheReplacementCharacter) {
  EXPECT_EQ(valid_utf8("plain ascii"), "plain ascii");
  EXPECT_EQ(valid_utf8(kE + kHan + kEmoji), kE + kHan + kEmoji);
  EXPECT_EQ(valid_utf8("a\xFF" "b"), "a" + kReplacement + "b");        // never a lead byte
  EXPECT_EQ(valid_utf8("a\x80" "b"), "a" + kReplacement + "b");        // stray continuation
  EXPECT_EQ(valid_utf8("a\xE6\xBC"), "a" + kReplacement);              // cut at the end
  EXPECT_EQ(valid_utf8("\xE6\xBC" "b"), kReplacement + "b");           // cut in the middle
  EXPECT_EQ(valid_utf8("\xC0\xAF"), kReplacement);                     // overlong '/'
  EXPECT_EQ(valid_utf8("\xED\xA0\x80"), kReplacement);                 // a UTF-16 surrogate
  EXPECT_EQ(valid_utf8("\xF4\x90\x80\x80"), kReplacement);             // past U+10FFFF
  EXPECT_EQ(valid_utf8(std::string("a\0b", 3)), std::string("a\0b", 3));  // NUL is valid UTF-8
  EXPECT_TRUE(is_valid_utf8(valid_utf8("\xFE\xFF\xC3(\xE2\x28\xA1")));
  EXPECT_FALSE(is_valid_utf8("\xC3"));
}

TEST(Utf8, JsonTextReplacesInsteadOfThrowing) {
  nlohmann::json j{{"name", "bad\xC3"}, {"ok", kHan}};
  EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);  // what json_text avoids
  EXPECT_EQ(json_text(j), "{\"name\":\"bad" + kReplacement + "\",\"ok\":\"" + kHan + "\"}");
  EXPECT_EQ(json_text(nlohmann::json::array({1}), 2), "[\n  1\n]");
}

}  // namespace
