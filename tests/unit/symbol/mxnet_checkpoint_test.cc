// An MXNet 1.1 Module checkpoint (V1 .params records, "attr" JSON, LinearRegressionOutput) loads
// and runs: the output is w . x + b computed by hand from the loaded parameters.
#include <gtest/gtest.h>

#include "braid/io/params.h"
#include "braid/ndarray/creation.h"
#include "braid/symbol/executor.h"

namespace braid {
namespace {

const std::string kPrefix = std::string(BRAID_FIXTURES_DIR) + "/sagemaker-linreg-model";

TEST(MxnetCheckpoint, SagemakerLinearRegressionRuns) {
  Symbol net = Symbol::load(kPrefix + "-symbol.json");
  io::NamedArrays params = io::load(kPrefix + "-0000.params");
  std::map<std::string, NDArray> by_name;
  for (size_t i = 0; i < params.names.size(); ++i) by_name[params.names[i].substr(4)] = params.arrays[i];
  ASSERT_TRUE(by_name.count("fc1_weight") && by_name.count("fc1_bias"));
  NDArray x = nd::array<float>({0.5f, -2.0f}, Shape{1, 2});  // the shape in -shapes.json
  Executor ex = Executor::bind(net, cpu(), {x, by_name["fc1_weight"], by_name["fc1_bias"], nd::zeros(Shape{1, 1})});
  ex.forward(false);
  auto w = by_name["fc1_weight"].to_vector<float>();
  float b = by_name["fc1_bias"].to_vector<float>()[0];
  EXPECT_EQ(by_name["fc1_weight"].shape(), (Shape{1, 2}));
  EXPECT_FLOAT_EQ(ex.outputs()[0].to_vector<float>()[0], 0.5f * w[0] - 2.0f * w[1] + b);
  EXPECT_NE(w[0], 0.0f);  // trained values, not zeros
}

}  // namespace
}  // namespace braid
