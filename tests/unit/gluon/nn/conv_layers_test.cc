// Conv1D/2D/3D, Conv1DTranspose/2DTranspose/3DTranspose: output equals the operator called directly
// with the layer's parameters; deferred in_channels; parameter names, shapes; repr; errors.
#include "braid/gluon/nn/conv.h"

#include <gtest/gtest.h>

#include "../gluon_test_util.h"
#include "braid/base/error.h"
#include "braid/ndarray/invoke.h"

namespace braid::gluon {
namespace {

using namespace test_util;
using nn::ConvOptions;

NDArray conv_op(const std::string& op, const NDArray& x, const nn::ConvBase& layer, op::AttrMap attrs,
                const std::string& act = "") {
  std::vector<NDArray> in{x, layer.weight()->data()};
  if (layer.bias()) in.push_back(layer.bias()->data());
  attrs["no_bias"] = layer.bias() ? "False" : "True";
  NDArray y = nd::invoke1(op, in, attrs);
  return act.empty() ? y : nd::invoke1("Activation", {y}, {{"act_type", act}});
}

TEST(ConvLayers, Conv2DMatchesConvolutionOperator) {
  nn::Conv2D conv(6, 3, {.strides = {2, 1}, .padding = 1, .dilation = {1, 2}, .groups = 2, .activation = "relu"});
  conv.initialize();
  EXPECT_TRUE(conv.weight()->deferred());
  const NDArray x = random_array(Shape({2, 4, 9, 8}), 1);
  const NDArray y = conv(x);
  // in_channels comes from the data at the first forward: weight (channels, in / groups, kh, kw).
  EXPECT_EQ(conv.weight()->shape(), Shape({6, 2, 3, 3}));
  EXPECT_EQ(conv.bias()->shape(), Shape({6}));
  expect_close(y, conv_op("Convolution", x, conv,
                          {{"kernel", "(3, 3)"},
                           {"stride", "(2, 1)"},
                           {"pad", "(1, 1)"},
                           {"dilate", "(1, 2)"},
                           {"num_filter", "6"},
                           {"num_group", "2"}},
                          "relu"));
  EXPECT_EQ(conv.repr(),
            "Conv2D(2 -> 6, kernel_size=(3, 3), stride=(2, 1), padding=(1, 1), dilation=(1, 2), "
            "groups=2, Activation(relu))");
}

TEST(ConvLayers, Conv1DMatchesConvolutionOperator) {
  nn::Conv1D conv(5, 4, {.strides = 2, .padding = 1, .use_bias = false, .in_channels = 3});
  EXPECT_EQ(conv.weight()->shape(), Shape({5, 3, 4}));
  EXPECT_EQ(conv.bias(), nullptr);
  conv.initialize();
  const NDArray x = random_array(Shape({2, 3, 15}), 2);
  expect_close(conv(x), conv_op("Convolution", x, conv,
                                {{"kernel", "(4,)"}, {"stride", "(2,)"}, {"pad", "(1,)"}, {"num_filter", "5"}}));
  EXPECT_EQ(conv.repr(), "Conv1D(3 -> 5, kernel_size=(4,), stride=(2,), padding=(1,), bias=False)");
}

TEST(ConvLayers, Conv2DTransposeMatchesDeconvolutionOperator) {
  nn::Conv2DTranspose deconv(6, 3, {.strides = 2, .padding = 1, .output_padding = 1, .groups = 2});
  deconv.initialize();
  const NDArray x = random_array(Shape({2, 4, 5, 5}), 3);
  const NDArray y = deconv(x);
  // Transposed weight: (in_channels, channels / groups, kh, kw).
  EXPECT_EQ(deconv.weight()->shape(), Shape({4, 3, 3, 3}));
  EXPECT_EQ(y.shape(), Shape({2, 6, 10, 10}));  // (5 - 1) * 2 - 2 + 3 + 1
  expect_close(y, conv_op("Deconvolution", x, deconv,
                          {{"kernel", "(3, 3)"},
                           {"stride", "(2, 2)"},
                           {"pad", "(1, 1)"},
                           {"adj", "(1, 1)"},
                           {"num_filter", "6"},
                           {"num_group", "2"}}));
  // MXNet prints weight.shape[1] -> weight.shape[0] and never output_padding.
  EXPECT_EQ(deconv.repr(), "Conv2DTranspose(3 -> 4, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), groups=2)");
}

TEST(ConvLayers, Conv1DTransposeMatchesDeconvolutionOperator) {
  nn::Conv1DTranspose deconv(3, 2, {.strides = 2, .in_channels = 4});
  deconv.initialize();
  const NDArray x = random_array(Shape({2, 4, 6}), 4);
  expect_close(deconv(x),
               conv_op("Deconvolution", x, deconv, {{"kernel", "(2,)"}, {"stride", "(2,)"}, {"num_filter", "3"}}));
  EXPECT_EQ(deconv.weight()->shape(), Shape({4, 3, 2}));
}

TEST(ConvLayers, Conv3DAndConv3DTransposeMatchTheirOperators) {
  nn::Conv3D conv(4, {2, 3, 3}, {.strides = {1, 2, 1}, .padding = 1, .groups = 2, .activation = "relu"});
  conv.initialize();
  const NDArray x = random_array(Shape({2, 2, 4, 7, 5}), 6);
  const NDArray y = conv(x);
  EXPECT_EQ(conv.weight()->shape(), Shape({4, 1, 2, 3, 3}));
  expect_close(y, conv_op("Convolution", x, conv,
                          {{"kernel", "(2, 3, 3)"},
                           {"stride", "(1, 2, 1)"},
                           {"pad", "(1, 1, 1)"},
                           {"num_filter", "4"},
                           {"num_group", "2"}},
                          "relu"));
  EXPECT_EQ(conv.repr(),
            "Conv3D(1 -> 4, kernel_size=(2, 3, 3), stride=(1, 2, 1), padding=(1, 1, 1), groups=2, "
            "Activation(relu))");
  nn::Conv3DTranspose deconv(3, 2, {.strides = 2, .in_channels = 4});
  EXPECT_EQ(deconv.weight()->shape(), Shape({4, 3, 2, 2, 2}));
  deconv.initialize();
  const NDArray z = random_array(Shape({1, 4, 2, 3, 2}), 7);
  expect_close(deconv(z), conv_op("Deconvolution", z, deconv,
                                  {{"kernel", "(2, 2, 2)"}, {"stride", "(2, 2, 2)"}, {"num_filter", "3"}}));
}

// With the channels last the weight is (channels, kernel..., in_channels / groups), as the
// operator's layout NHWC / NDHWC wants it.
TEST(ConvLayers, ChannelsLastLayoutsGiveTheOperatorsWeightShape) {
  nn::Conv2D conv2(6, {3, 2}, {.groups = 2, .layout = "NHWC", .in_channels = 4});
  EXPECT_EQ(conv2.weight()->shape(), Shape({6, 3, 2, 2}));
  nn::Conv3D conv3(5, 3, {.layout = "NDHWC"});
  conv3.initialize();
  const NDArray x = random_array(Shape({1, 4, 5, 6, 3}), 8);
  EXPECT_EQ(conv3(x).shape(), Shape({1, 2, 3, 4, 5}));
  EXPECT_EQ(conv3.weight()->shape(), Shape({5, 3, 3, 3, 3}));
  expect_close(conv3(x),
               conv_op("Convolution", x, conv3, {{"kernel", "(3, 3, 3)"}, {"num_filter", "5"}, {"layout", "NDHWC"}}));
}

TEST(ConvLayers, ParameterNamesAndRepr) {
  nn::Conv2D conv(20, 5, {.in_channels = 1});
  EXPECT_EQ(conv.prefix().rfind("conv", 0), 0u) << conv.prefix();  // MXNet's alias for every conv layer
  EXPECT_EQ(conv.weight()->name(), conv.prefix() + "weight");
  EXPECT_EQ(conv.bias()->name(), conv.prefix() + "bias");
  EXPECT_EQ(conv.repr(), "Conv2D(1 -> 20, kernel_size=(5, 5), stride=(1, 1))");
  EXPECT_EQ(nn::Conv2D(20, {5, 3}).repr(), "Conv2D(None -> 20, kernel_size=(5, 3), stride=(1, 1))");
  nn::Conv2D named(4, 1, {.prefix = "first_"});
  EXPECT_EQ(named.weight()->name(), "first_weight");
  // Bias initialized to zeros by default, as MXNet.
  conv.initialize();
  for (double v : values(conv.bias()->data())) EXPECT_EQ(v, 0.0);
}

TEST(ConvLayers, ErrorsNameTheProblem) {
  auto message = [](auto&& make) {
    try {
      make();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([] { nn::Conv2DTranspose(4, 3, {.layout = "NHWC"}); }).find("NCHW"), std::string::npos);
  EXPECT_NE(message([] { nn::Conv3D(4, 3, {.layout = "NHWC"}); }).find("NDHWC"), std::string::npos);
  EXPECT_NE(message([] { nn::Conv1D(4, 3, {.layout = "NCHW"}); }).find("NCW"), std::string::npos);
  EXPECT_NE(message([] { nn::Conv2D(4, {3, 3, 3}); }).find("kernel_size"), std::string::npos);
  EXPECT_NE(message([] { nn::Conv2D(4, 3, {.output_padding = 1}); }).find("Conv2DTranspose"), std::string::npos);
  EXPECT_NE(message([] { nn::Conv2D(6, 3, {.groups = 4}); }).find("groups"), std::string::npos);
  EXPECT_NE(message([] { nn::Conv2D(4, 3, {.activation = "swish"}); }).find("act_type"), std::string::npos);
  EXPECT_NE(message([] { nn::Conv2DTranspose(4, 3, {.output_padding = 2}); }).find("adj"), std::string::npos);
  // A wrong input rank fails at the forward, naming the operator and the shapes.
  nn::Conv2D conv(4, 3);
  conv.initialize();
  EXPECT_THROW(conv(random_array(Shape({2, 3, 8}), 5)), Error);
}

}  // namespace
}  // namespace braid::gluon
