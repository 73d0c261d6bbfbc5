// The vision model zoo: MXNet's 34 names, parameter counts equal to the published models' (the
// same as torchvision's for the architectures they share), MXNet's parameter names (full and
// structural, as MXNet's model store files hold them), hybridized output equal to imperative, and
// clear errors.
#include <gtest/gtest.h>

#include <algorithm>

#include "../gluon_test_util.h"
#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/gluon/model_zoo/vision.h"
#include "braid/init/init.h"

namespace braid::gluon::model_zoo::vision {
namespace {

// Learnable parameters of `net` for square images of `side`, from the graph's shape inference.
int64_t learnable_parameters(Classifier& net, int64_t side) {
  const Symbol out = net.call_symbolic({Symbol::Variable("data")});
  const auto shapes = out.infer_shape({{"data", Shape({1, 3, side, side})}});
  int64_t n = 0;
  for (const Shape& s : shapes.arg) n += s.size();
  return n - 3 * side * side;  // less the data
}

TEST(VisionZoo, KnowsMXNetsModelNames) {
  const auto names = model_names();
  EXPECT_EQ(names.size(), 34u);
  for (const char* n : {"resnet18_v1", "resnet152_v2", "vgg19_bn", "alexnet", "inceptionv3", "densenet201",
                        "squeezenet1.0", "mobilenet0.25", "mobilenetv2_0.75"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  for (const auto& n : names) EXPECT_NE(get_model(n, 7), nullptr) << n;
  EXPECT_EQ(image_size("InceptionV3"), 299);
  EXPECT_EQ(image_size("resnet50_v2"), 224);
}

TEST(VisionZoo, ParameterCountsAreThePublishedModels) {
  // torchvision's counts for the same architectures (resnet18, alexnet, squeezenet1_1,
  // densenet121, vgg16, inception_v3 without the auxiliary classifier).
  const std::vector<std::tuple<std::string, int64_t, int64_t>> cases{
      {"resnet18_v1", 224, 11689512}, {"alexnet", 224, 61100840}, {"squeezenet1.1", 224, 1235496},
      {"densenet121", 224, 7978856},  {"vgg16", 224, 138357544},  {"inceptionv3", 299, 23834568},
      {"vgg11_bn", 224, 132868840}};
  for (const auto& [name, side, count] : cases) {
    auto net = get_model(name);
    EXPECT_EQ(learnable_parameters(*net, side), count) << name;
  }
}

TEST(VisionZoo, ParameterNamesAreMXNets) {
  auto net = get_model("resnet18_v1", 1000, "r_");
  const Symbol out = net->call_symbolic({Symbol::Variable("data")});
  const auto args = out.list_arguments();
  const auto shapes = out.infer_shape({{"data", Shape({1, 3, 224, 224})}});
  auto shape_of = [&](const std::string& name) {
    auto it = std::find(args.begin(), args.end(), name);
    return it == args.end() ? Shape() : shapes.arg[size_t(it - args.begin())];
  };
  EXPECT_EQ(args[1], "r_conv0_weight");
  EXPECT_EQ(shape_of("r_stage1_conv0_weight"), Shape({64, 64, 3, 3}));
  EXPECT_EQ(shape_of("r_stage2_conv2_weight"), Shape({128, 64, 1, 1}));  // stage 2's downsampling
  EXPECT_EQ(shape_of("r_dense0_weight"), Shape({1000, 512}));
  EXPECT_EQ(args.back(), "r_dense0_bias");
  // The structural names of save_parameters, as in MXNet's model store files.
  std::vector<std::string> structural;
  for (const auto& [name, p] : net->collect_params_with_prefix()) structural.push_back(name);
  EXPECT_EQ(structural.front(), "features.0.weight");
  for (const char* n : {"features.1.running_var", "features.4.0.body.0.weight", "features.5.0.downsample.0.weight",
                        "features.7.1.body.4.beta", "output.weight", "output.bias"})
    EXPECT_NE(std::find(structural.begin(), structural.end(), n), structural.end()) << n;
  auto v2 = get_model("mobilenetv2_1.0", 1000, "m_");
  const auto v2_args = v2->call_symbolic({Symbol::Variable("data")}).list_arguments();
  EXPECT_EQ(v2_args[1], "m_features_conv0_weight");
  EXPECT_EQ(v2_args.back(), "m_output_pred_weight");
  auto inception = get_model("inceptionv3", 1000, "i_");
  const auto aux = inception->call_symbolic({Symbol::Variable("data")}).list_auxiliary_states();
  EXPECT_NE(std::find(aux.begin(), aux.end(), "i_E2_batchnorm8_running_var"), aux.end());
}

TEST(VisionZoo, HybridizedOutputEqualsImperative) {
  // A small DenseNet (its final 7x7 pooling takes 56x56 images), two small zoo models at 32x32.
  const std::vector<std::pair<std::shared_ptr<Classifier>, int64_t>> cases{
      {get_model("resnet18_v2", 5), 32},
      {get_model("mobilenetv2_0.25", 5), 32},
      {std::make_shared<DenseNet>(8, 4, std::vector<int64_t>{2, 2}, 2, 0.0, 5), 56}};
  for (const auto& [net, side] : cases) {
    net->initialize(std::make_shared<init::Xavier>());
    const NDArray x = test_util::random_array(Shape({2, 3, side, side}), 3);
    const NDArray imperative = (*net)(x);
    EXPECT_EQ(imperative.shape(), Shape({2, 5}));
    net->hybridize();
    test_util::expect_close((*net)(x), imperative, 1e-5, 1e-6, net->prefix());
  }
}

TEST(VisionZoo, BadNamesAndArgumentsAreClearErrors) {
  try {
    get_model("resnet19_v1");
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("Model resnet19_v1 is not supported; did you mean resnet18_v1"), std::string::npos) << m;
    EXPECT_NE(m.find("mobilenetv2_0.25"), std::string::npos) << m;
  }
  EXPECT_THROW(make_resnet(3, 18), Error);
  EXPECT_THROW(make_vgg(12), Error);
  EXPECT_THROW(SqueezeNet("2.0"), Error);
  EXPECT_THROW(ResNet(1, ResidualKind::Basic, {2, 2}, {64, 64}), Error);
  EXPECT_THROW(get_model("alexnet", 0), Error);
}

}  // namespace
}  // namespace braid::gluon::model_zoo::vision
