// Bad attributes and shapes of the nn_conv operators raise braid::Error with a useful message.
#include <gtest/gtest.h>

#include "braid/base/error.h"
#include "unit/op/op_runner.h"

namespace braid::test {
namespace {

// Parses `attrs` and infers shapes from `in`; returns the error message or "" when it passes.
std::string error_of(const std::string& op, const op::AttrMap& attrs, std::vector<Shape> in) {
  try {
    infer(op, attrs, std::move(in));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void expect_op_error(const std::string& op, const op::AttrMap& attrs, const std::vector<Shape>& in,
                     const std::string& fragment) {
  std::string msg = error_of(op, attrs, in);
  EXPECT_NE(msg.find(fragment), std::string::npos)
      << op << ": expected an error mentioning \"" << fragment << "\", got \"" << msg << "\"";
}

const std::vector<Shape> kImage{Shape({1, 4, 8, 8}), Shape(), Shape()};

TEST(NnConvErrors, Convolution) {
  expect_op_error("Convolution", {{"kernel", "(3, 3)"}}, kImage, "num_filter");
  expect_op_error("Convolution", {{"num_filter", "2"}}, kImage, "kernel");
  expect_op_error("Convolution", {{"kernel", "(3,)"}, {"num_filter", "2"}}, kImage, "(batch, channel, width)");
  expect_op_error("Convolution", {{"kernel", "(3, 3, 3, 3)"}, {"num_filter", "2"}}, kImage,
                  "1-D (w,), 2-D (h, w) or 3-D");
  expect_op_error("Convolution", {{"kernel", "(3, 3, 3)"}, {"num_filter", "2"}}, kImage,
                  "(batch, channel, depth, height, width)");
  expect_op_error("Convolution", {{"kernel", "(3, 3)"}, {"stride", "(2,)"}, {"num_filter", "2"}}, kImage,
                  "stride=(2,) must have as many dimensions");
  expect_op_error("Convolution", {{"kernel", "(3, 3)"}, {"stride", "(0, 1)"}, {"num_filter", "2"}}, kImage,
                  "at least 1");
  expect_op_error("Convolution", {{"kernel", "(3, 3)"}, {"num_filter", "6"}, {"num_group", "3"}}, kImage,
                  "not divisible by num_group=3");
  expect_op_error("Convolution", {{"kernel", "(3, 3)"}, {"num_filter", "3"}, {"num_group", "2"}}, kImage,
                  "num_filter=3 is not divisible");
  expect_op_error("Convolution", {{"kernel", "(9, 9)"}, {"num_filter", "2"}}, kImage, "exceeds the padded input");
  expect_op_error("Convolution", {{"kernel", "(3,)"}, {"num_filter", "2"}, {"layout", "NHWC"}}, {Shape({1, 2, 8})},
                  "layout 'NHWC' is not supported with a 1-D kernel");
  expect_op_error("Convolution", {{"kernel", "(3, 3)"}, {"num_filter", "2"}, {"bogus", "1"}}, kImage,
                  "unknown attribute 'bogus'");
  expect_op_error("Convolution", {{"kernel", "(3, 3)"}, {"num_filter", "2"}},
                  {Shape({1, 4, 8, 8}), Shape({2, 4, 5, 5}), Shape()}, "weight");
  // MXNet's cuDNN attributes are accepted and ignored.
  EXPECT_EQ(error_of("Convolution",
                     {{"kernel", "(3, 3)"},
                      {"num_filter", "2"},
                      {"workspace", "2048"},
                      {"cudnn_tune", "fastest"},
                      {"cudnn_off", "True"},
                      {"layout", "NCHW"}},
                     kImage),
            "");
}

TEST(NnConvErrors, Deconvolution) {
  expect_op_error("Deconvolution", {{"kernel", "(2, 2)"}, {"num_filter", "2"}, {"stride", "(2, 2)"}, {"adj", "(2, 0)"}},
                  kImage, "adj=(2, 0) must be smaller than stride");
  expect_op_error("Deconvolution", {{"kernel", "(2, 2)"}, {"num_filter", "2"}, {"target_shape", "(30, 30)"}}, kImage,
                  "exceeds the largest output");
  expect_op_error("Deconvolution", {{"kernel", "(2, 2)"}, {"num_filter", "2"}, {"num_group", "3"}}, kImage,
                  "num_filter=2 is not divisible");
  expect_op_error("Deconvolution", {{"kernel", "(2, 2)"}, {"num_filter", "3"}, {"num_group", "3"}}, kImage,
                  "4 channels, which is not divisible by num_group=3");
  expect_op_error("Deconvolution", {{"kernel", "(2, 2)"}, {"num_filter", "2"}, {"pad", "(9, 9)"}}, kImage, "would be");
}

TEST(NnConvErrors, Pooling) {
  const std::vector<Shape> x{Shape({1, 2, 6, 6})};
  expect_op_error("Pooling", {{"kernel", "(2, 2)"}, {"pad", "(2, 0)"}}, x, "must be smaller than kernel");
  expect_op_error("Pooling", {{"kernel", "(2,)"}}, x, "does not match data");
  expect_op_error("Pooling", {{"pool_type", "max"}}, x, "global_pool");
  expect_op_error("Pooling", {{"kernel", "(2, 2)"}, {"pool_type", "lp"}}, x, "needs p_value=1, 2 or 3");
  expect_op_error("Pooling", {{"kernel", "(2, 2)"}, {"pool_type", "lp"}, {"p_value", "4"}}, x, "got 4");
  expect_op_error("Pooling", {{"kernel", "(2, 2)"}, {"pool_type", "median"}}, x, "one of");
  expect_op_error("Pooling", {{"kernel", "(2, 2)"}, {"pad", "(1, 1)"}, {"pooling_convention", "same"}}, x,
                  "'same' pads by itself");
  expect_op_error("Pooling", {{"kernel", "(7, 7)"}}, x, "exceeds the input");
  expect_op_error("Pooling", {{"kernel", "(1, 1)"}, {"stride", "(4, 4)"}, {"pooling_convention", "full"}},
                  {Shape({1, 1, 6, 6})}, "entirely in the padding");
  expect_op_error("Pooling", {{"kernel", "(2, 2)"}, {"layout", "NDHWC"}}, x, "layout 'NDHWC'");
  expect_op_error("Pooling", {{"kernel", "(2, 2)"}}, {Shape({2, 6, 6, 6, 6, 6})},
                  "(batch, channel, depth, height, width)");
  expect_op_error("Pooling", {{"kernel", "(2, 2)"}}, {Shape({2, 6, 6, 6, 6})}, "does not match data");
}

TEST(NnConvErrors, FullyConnected) {
  const std::vector<Shape> x{Shape({2, 5}), Shape(), Shape()};
  expect_op_error("FullyConnected", {}, x, "num_hidden");
  expect_op_error("FullyConnected", {{"num_hidden", "0"}}, x, "must be positive");
  expect_op_error("FullyConnected", {{"num_hidden", "3"}}, {Shape({2, 5}), Shape({3, 4}), Shape()}, "weight");
  expect_op_error("FullyConnected", {{"num_hidden", "3"}}, {Shape({2, 5}), Shape({3, 5}), Shape({4})}, "bias");
}

TEST(NnConvErrors, IntegersAreRejected) {
  std::vector<int32_t> x(4), w(4);
  op::TBlob xb{x.data(), Shape({1, 1, 2, 2}), DType::Int32}, wb{w.data(), Shape({1, 1, 2, 2}), DType::Int32};
  std::vector<int32_t> y(1);
  op::TBlob yb{y.data(), Shape({1, 1, 1, 1}), DType::Int32};
  const auto& def = op::Registry::get().find("Convolution");
  auto p = def.parse({{"kernel", "(2, 2)"}, {"num_filter", "1"}, {"no_bias", "True"}});
  op::OpContext ctx{};
  EXPECT_THROW(def.cpu.forward(ctx, p, {{xb, wb}, {yb}, {op::OpReq::Write}, {}}), Error);
}

}  // namespace
}  // namespace braid::test
