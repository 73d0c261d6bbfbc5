// dump_dmlc_json reproduces, byte for byte, symbol files written by MXNet 0.8, 1.1 and 1.6.
#include "braid/io/dmlc_json.h"

#include <gtest/gtest.h>

#include "braid/io/file.h"

namespace braid::io {
namespace {

const std::string kDir = BRAID_FIXTURES_DIR;

class DmlcJson : public ::testing::TestWithParam<const char*> {};

TEST_P(DmlcJson, RewritesMxnetFilesIdentically) {
  const std::string text = read_file(kDir + "/" + GetParam(), kMaxTextFileBytes);
  EXPECT_EQ(dump_dmlc_json(nlohmann::ordered_json::parse(text)), text);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, DmlcJson,
                         ::testing::Values("mnist-symbol.json", "sagemaker-linreg-model-symbol.json",
                                           "save_000800.json"));

TEST(DmlcJsonLayout, SmallContainersStayOnOneLine) {
  nlohmann::ordered_json v = {{"a", {1, 2, 3}}, {"b", {{"k", "v\"q"}}}, {"c", nlohmann::ordered_json::array()}};
  EXPECT_EQ(dump_dmlc_json(v), "{\n  \"a\": [1, 2, 3], \n  \"b\": {\"k\": \"v\\\"q\"}, \n  \"c\": []\n}");
  EXPECT_EQ(dump_dmlc_json(nlohmann::ordered_json::array({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})),
            "[\n  0, \n  1, \n  2, \n  3, \n  4, \n  5, \n  6, \n  7, \n  8, \n  9, \n  10\n]");
}

}  // namespace
}  // namespace braid::io
