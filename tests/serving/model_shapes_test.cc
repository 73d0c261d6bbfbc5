// serving::Model::known_shapes: what a model file tells of its input and output shapes when no
// config states them, as `braid serve` advertises them.
#include <gtest/gtest.h>

#include <filesystem>

#include "braid/io/params.h"
#include "braid/serving/model.h"
#include "braid/symbol/compose.h"
#include "common/face_like_net.h"

namespace braid::serving {
namespace {

namespace fs = std::filesystem;
using Dims = std::vector<int64_t>;

// Saves `net` with fixed parameter values as MXNet's files and loads it as a served model.
Model saved(const Symbol& net, const std::map<std::string, Shape>& data_shapes) {
  const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const fs::path dir = fs::path(::testing::TempDir()) / ("braid_model_shapes_" + name);
  fs::create_directories(dir);
  auto shapes = net.infer_shape(data_shapes);
  std::vector<std::pair<std::string, NDArray>> named;
  const auto args = net.list_arguments(), aux = net.list_auxiliary_states();
  for (size_t i = 0; i < args.size(); ++i)
    if (!data_shapes.count(args[i]) && args[i] != "softmax_label")
      named.emplace_back("arg:" + args[i], test::face_random(shapes.arg[i], 1, 0, 1));
  for (size_t i = 0; i < aux.size(); ++i)
    named.emplace_back("aux:" + aux[i], test::face_random(shapes.aux[i], 2, 1, 2));
  net.save((dir / "m-symbol.json").string());
  io::save((dir / "m-0001.params").string(), named);
  return Model((dir / "m-symbol.json").string(), (dir / "m-0001.params").string());
}

TEST(ModelShapes, AConvolutionalNetTellsItsRankAndChannelsAndItsClasses) {
  // The data go through a fused chain of scalar ops before the first convolution.
  Model m = saved(test::face_like_net(true), {{"data", test::face_input_shape(2)}});
  const Model::Shapes s = m.known_shapes();
  EXPECT_EQ(s.inputs.at("data"), (Dims{-1, 3, -1, -1}));
  ASSERT_EQ(s.outputs.size(), 1u);
  EXPECT_EQ(s.outputs[0], (Dims{-1, test::kFaceClasses}));
}

TEST(ModelShapes, AnMlpTellsItsFeaturesAndGivenShapesComplete) {
  sym::Prefix fresh("");
  Symbol x = Symbol::Variable("data");
  Symbol h = sym::make("FullyConnected", {x}, {{"num_hidden", "6"}}, "fc1");
  Symbol net =
      sym::make("FullyConnected", {sym::make("Activation", {h}, {{"act_type", "relu"}})}, {{"num_hidden", "3"}}, "fc2");
  Model m = saved(net, {{"data", Shape{2, 7}}});
  EXPECT_EQ(m.known_shapes().inputs.at("data"), (Dims{-1, 7}));
  EXPECT_EQ(m.known_shapes().outputs[0], (Dims{-1, 3}));
  // A conv net with its image size given: everything is known but the batch.
  Model c = saved(test::face_like_net(false), {{"data", test::face_input_shape(2)}});
  const Model::Shapes s = c.known_shapes({{"data", {-1, 3, 16, 16}}});
  EXPECT_EQ(s.inputs.at("data"), (Dims{-1, 3, 16, 16}));
  EXPECT_EQ(s.outputs[0], (Dims{-1, test::kFaceClasses}));
}

}  // namespace
}  // namespace braid::serving
