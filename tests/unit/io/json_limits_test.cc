// JSON from outside is parsed within limits: nesting deeper than kMaxJsonDepth is refused at
// once (a million levels used to crash a process printing them into an error message).
#include <gtest/gtest.h>

#include "braid/base/error.h"
#include "braid/io/json_limits.h"
#include "common/error_message.h"

namespace braid::test {
namespace {

std::string nested_arrays(int depth) {
  return std::string(static_cast<size_t>(depth), '[') + std::string(static_cast<size_t>(depth), ']');
}

std::string json_error_of(std::string_view text) {
  return error_message([&] { io::parse_json(text, "test.json"); });
}

const std::string kTooDeep = "test.json: JSON nested deeper than the limit of 100 levels of objects and arrays";

TEST(JsonLimits, NestingUpToTheLimitIsAccepted) {
  EXPECT_EQ(io::kMaxJsonDepth, 100);
  EXPECT_EQ(io::parse_json(nested_arrays(100), "test.json").dump(), nested_arrays(100));
}

TEST(JsonLimits, DeeperNestingIsRefused) {
  EXPECT_EQ(json_error_of(nested_arrays(101)), kTooDeep);
  EXPECT_EQ(json_error_of("{\"a\": " + nested_arrays(100) + "}"), kTooDeep);
}

// Brackets inside strings are text, escaped quotes included.
TEST(JsonLimits, BracketsInStringsDoNotNest) {
  const std::string brackets(200, '[');
  EXPECT_EQ(io::parse_json("{\"k\": \"" + brackets + "\"}", "test.json")["k"], brackets);
  EXPECT_EQ(io::parse_json("[\"\\\"" + brackets + "\"]", "test.json")[0], "\"" + brackets);
}

TEST(JsonLimits, AMillionLevelsAreRefusedWithoutRecursion) {
  EXPECT_EQ(json_error_of(std::string(1000000, '[')), kTooDeep);
  EXPECT_EQ(json_error_of(std::string(1000000, '[') + "{\"a\": 1"), kTooDeep);
}

TEST(JsonLimits, MalformedJsonNamesItsSource) {
  EXPECT_EQ(json_error_of("{\"a\": ").rfind("test.json: malformed JSON: ", 0), 0u) << json_error_of("{\"a\": ");
}

}  // namespace
}  // namespace braid::test
