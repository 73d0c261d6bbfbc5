// nn_conv operators on small cases worked out by hand, in float32 (oneDNN) and float64
// (reference), plus shape inference.
#include <gtest/gtest.h>

#include "braid/ndarray/invoke.h"
#include "unit/op/op_runner.h"

namespace braid::test {
namespace {

using op::AttrMap;

Values iota(int64_t n, double start = 1) {
  Values v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + static_cast<double>(i);
  return v;
}

template <class T>
class NnConvExact : public ::testing::Test {};
using RealTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(NnConvExact, RealTypes);

TYPED_TEST(NnConvExact, FullyConnected) {
  auto r = run_op<TypeParam>("FullyConnected", {{"num_hidden", "3"}}, {Shape({2, 2}), Shape({3, 2}), Shape({3})},
                             {{1, 2, 3, 4}, {1, 0, 0, 1, 1, 1}, {0.5, -1, 2}}, Values(6, 1.0));
  EXPECT_EQ(r.outputs[0], (Values{1.5, 1, 5, 3.5, 3, 9}));
  EXPECT_EQ(r.in_grads[0], (Values{2, 2, 2, 2}));
  EXPECT_EQ(r.in_grads[1], (Values{4, 6, 4, 6, 4, 6}));
  EXPECT_EQ(r.in_grads[2], (Values{2, 2, 2}));
  // flatten=False keeps the leading axes: (2, 1, 2) -> (2, 1, 3).
  auto nf = run_op<TypeParam>("FullyConnected", {{"num_hidden", "3"}, {"flatten", "False"}, {"no_bias", "True"}},
                              {Shape({2, 1, 2}), Shape({3, 2})}, {{1, 2, 3, 4}, {1, 0, 0, 1, 1, 1}});
  EXPECT_EQ(nf.out_shapes[0], Shape({2, 1, 3}));
  EXPECT_EQ(nf.outputs[0], (Values{1, 2, 3, 3, 4, 7}));
}

TYPED_TEST(NnConvExact, Convolution2D) {
  // y[i][j] = x[i][j] - x[i+1][j+1] + 1 on x = 1..9 (3x3).
  auto r = run_op<TypeParam>("Convolution", {{"kernel", "(2, 2)"}, {"num_filter", "1"}},
                             {Shape({1, 1, 3, 3}), Shape({1, 1, 2, 2}), Shape({1})}, {iota(9), {1, 0, 0, -1}, {1}},
                             Values(4, 1.0));
  EXPECT_EQ(r.outputs[0], (Values{-3, -3, -3, -3}));
  EXPECT_EQ(r.in_grads[0], (Values{1, 1, 0, 1, 0, -1, 0, -1, -1}));
  EXPECT_EQ(r.in_grads[1], (Values{12, 16, 24, 28}));
  EXPECT_EQ(r.in_grads[2], (Values{4}));
  // All-ones 2x2 kernel, stride 2, pad 1: windows see {1}, {2,3}, {4,7}, {5,6,8,9}.
  auto s = run_op<TypeParam>(
      "Convolution",
      {{"kernel", "(2, 2)"}, {"num_filter", "1"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"no_bias", "True"}},
      {Shape({1, 1, 3, 3}), Shape({1, 1, 2, 2})}, {iota(9), Values(4, 1.0)});
  EXPECT_EQ(s.outputs[0], (Values{1, 5, 11, 28}));
}

TYPED_TEST(NnConvExact, Convolution1DDilatedAndGrouped) {
  auto d = run_op<TypeParam>("Convolution",
                             {{"kernel", "(2,)"}, {"num_filter", "1"}, {"dilate", "(2,)"}, {"no_bias", "True"}},
                             {Shape({1, 1, 5}), Shape({1, 1, 2})}, {{1, 2, 4, 8, 16}, {1, -1}});
  EXPECT_EQ(d.outputs[0], (Values{-3, -6, -12}));
  // Two groups of one channel: each filter sees only its own channel.
  auto g = run_op<TypeParam>("Convolution",
                             {{"kernel", "(1, 1)"}, {"num_filter", "2"}, {"num_group", "2"}, {"no_bias", "True"}},
                             {Shape({1, 2, 1, 2}), Shape({2, 1, 1, 1})}, {{1, 2, 3, 4}, {2, 3}});
  EXPECT_EQ(g.outputs[0], (Values{2, 4, 9, 12}));
}

TYPED_TEST(NnConvExact, Deconvolution) {
  const Values x{1, 2, 3, 4};
  const AttrMap k2{{"kernel", "(2, 2)"}, {"num_filter", "1"}};
  // Stride 2 spreads each pixel over a 2x2 block.
  auto s2 = run_op<TypeParam>("Deconvolution", {{"kernel", "(2, 2)"}, {"num_filter", "1"}, {"stride", "(2, 2)"}},
                              {Shape({1, 1, 2, 2}), Shape({1, 1, 2, 2})}, {x, Values(4, 1.0)}, Values(16, 1.0));
  EXPECT_EQ(s2.out_shapes[0], Shape({1, 1, 4, 4}));
  EXPECT_EQ(s2.outputs[0], (Values{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  EXPECT_EQ(s2.in_grads[0], (Values{4, 4, 4, 4}));
  EXPECT_EQ(s2.in_grads[1], (Values{10, 10, 10, 10}));
  // Stride 1: overlapping blocks add up.
  auto s1 = run_op<TypeParam>("Deconvolution", k2, {Shape({1, 1, 2, 2}), Shape({1, 1, 2, 2})}, {x, Values(4, 1.0)});
  EXPECT_EQ(s1.outputs[0], (Values{1, 3, 2, 4, 10, 6, 3, 7, 4}));
  // adj adds a bottom/right row and column that nothing reaches; bias shows there.
  auto adj = run_op<TypeParam>(
      "Deconvolution",
      {{"kernel", "(2, 2)"}, {"num_filter", "1"}, {"stride", "(2, 2)"}, {"adj", "(1, 1)"}, {"no_bias", "False"}},
      {Shape({1, 1, 2, 2}), Shape({1, 1, 2, 2}), Shape({1})}, {x, Values(4, 1.0), {0.5}});
  EXPECT_EQ(adj.out_shapes[0], Shape({1, 1, 5, 5}));
  EXPECT_EQ(adj.outputs[0][4], 0.5);
  EXPECT_EQ(adj.outputs[0][24], 0.5);
  EXPECT_EQ(adj.outputs[0][18], 4.5);
  // target_shape (3, 3): the 4x4 result loses its first row and column (pad 1, adj 1).
  auto t = run_op<TypeParam>(
      "Deconvolution", {{"kernel", "(2, 2)"}, {"num_filter", "1"}, {"stride", "(2, 2)"}, {"target_shape", "(3, 3)"}},
      {Shape({1, 1, 2, 2}), Shape({1, 1, 2, 2})}, {x, Values(4, 1.0)});
  EXPECT_EQ(t.outputs[0], (Values{1, 2, 2, 3, 4, 4, 3, 4, 4}));
}

TYPED_TEST(NnConvExact, Pooling2D) {
  const std::vector<Shape> in{Shape({1, 1, 4, 4})};
  const AttrMap k2{{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}};
  auto mx = run_op<TypeParam>("Pooling", k2, in, {iota(16)}, {1, 2, 3, 4});
  EXPECT_EQ(mx.outputs[0], (Values{6, 8, 14, 16}));
  EXPECT_EQ(mx.in_grads[0], (Values{0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4}));
  AttrMap avg = k2, sum = k2;
  avg["pool_type"] = "avg";
  sum["pool_type"] = "sum";
  auto a = run_op<TypeParam>("Pooling", avg, in, {iota(16)}, {4, 8, 12, 16});
  EXPECT_EQ(a.outputs[0], (Values{3.5, 5.5, 11.5, 13.5}));
  EXPECT_EQ(a.in_grads[0], (Values{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  auto s = run_op<TypeParam>("Pooling", sum, in, {iota(16)}, {1, 1, 1, 1});
  EXPECT_EQ(s.outputs[0], (Values{14, 22, 46, 54}));
  EXPECT_EQ(s.in_grads[0], Values(16, 1.0));
}

TYPED_TEST(NnConvExact, MaxPoolingTiesGoToTheFirstMaximum) {
  // 2 x 14 input, 2x2 windows at stride 2: seven outputs in a row (four at a time, then three).
  // Window j holds {j, a, b, c} where one later element ties or beats the first.
  Values x(28, 0.0);
  for (int j = 0; j < 7; ++j) {
    x[2 * j] = j;
    x[2 * j + 1] = j % 2 ? j : j - 1;  // ties with the first element in odd windows
    x[14 + 2 * j] = j == 3 ? 10 : j;   // ties in every window but 3, which beats the rest
    x[14 + 2 * j + 1] = j == 3 ? 10 : j;
  }
  auto r = run_op<TypeParam>("Pooling", {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}}, {Shape({1, 1, 2, 14})}, {x},
                             {1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(r.outputs[0], (Values{0, 1, 2, 10, 4, 5, 6}));
  Values grad(28, 0.0);
  for (int j = 0; j < 7; ++j) grad[j == 3 ? 14 + 2 * j : 2 * j] = j + 1;
  EXPECT_EQ(r.in_grads[0], grad);
}

TYPED_TEST(NnConvExact, PoolingPaddingAndConventions) {
  // 2x2 windows, stride 1, pad 1 over [[1, 2], [3, 4]]: corners see one value.
  const AttrMap pad{{"kernel", "(2, 2)"}, {"pad", "(1, 1)"}, {"pool_type", "avg"}};
  auto inc = run_op<TypeParam>("Pooling", pad, {Shape({1, 1, 2, 2})}, {{1, 2, 3, 4}});
  EXPECT_EQ(inc.outputs[0], (Values{0.25, 0.75, 0.5, 1, 2.5, 1.5, 0.75, 1.75, 1}));
  AttrMap exc = pad;
  exc["count_include_pad"] = "False";
  auto ex = run_op<TypeParam>("Pooling", exc, {Shape({1, 1, 2, 2})}, {{1, 2, 3, 4}});
  EXPECT_EQ(ex.outputs[0], (Values{1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}));
  // 'full' on 3x3 with 2x2 windows, stride 2: the last windows hang over the edge, and MXNet's
  // average divides by the part inside the (padded) input.
  const AttrMap full{{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}, {"pooling_convention", "full"}};
  auto fm = run_op<TypeParam>("Pooling", full, {Shape({1, 1, 3, 3})}, {iota(9)});
  EXPECT_EQ(fm.out_shapes[0], Shape({1, 1, 2, 2}));
  EXPECT_EQ(fm.outputs[0], (Values{5, 6, 8, 9}));
  AttrMap full_avg = full;
  full_avg["pool_type"] = "avg";
  auto fa = run_op<TypeParam>("Pooling", full_avg, {Shape({1, 1, 3, 3})}, {iota(9)}, {4, 2, 2, 1});
  EXPECT_EQ(fa.outputs[0], (Values{3, 4.5, 7.5, 9}));
  EXPECT_EQ(fa.in_grads[0], (Values{1, 1, 1, 1, 1, 1, 1, 1, 1}));
  auto valid =
      run_op<TypeParam>("Pooling", {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}}, {Shape({1, 1, 3, 3})}, {iota(9)});
  EXPECT_EQ(valid.outputs[0], (Values{5}));
}

TYPED_TEST(NnConvExact, PoolingGlobalAnd1D) {
  auto g = run_op<TypeParam>("Pooling", {{"global_pool", "True"}, {"pool_type", "avg"}}, {Shape({1, 2, 2, 2})},
                             {iota(8)}, {4, 8});
  EXPECT_EQ(g.out_shapes[0], Shape({1, 2, 1, 1}));
  EXPECT_EQ(g.outputs[0], (Values{2.5, 6.5}));
  EXPECT_EQ(g.in_grads[0], (Values{1, 1, 1, 1, 2, 2, 2, 2}));
  auto gm = run_op<TypeParam>("Pooling", {{"global_pool", "True"}, {"kernel", "(1, 1)"}}, {Shape({1, 1, 5})},
                              {{1, 5, 2, 4, 3}}, {1});
  EXPECT_EQ(gm.outputs[0], (Values{5}));
  EXPECT_EQ(gm.in_grads[0], (Values{0, 1, 0, 0, 0}));
  const Values x{1, 3, 2, 5, 4};
  auto v = run_op<TypeParam>("Pooling", {{"kernel", "(2,)"}, {"stride", "(2,)"}}, {Shape({1, 1, 5})}, {x});
  EXPECT_EQ(v.outputs[0], (Values{3, 5}));
  auto f = run_op<TypeParam>("Pooling", {{"kernel", "(2,)"}, {"stride", "(2,)"}, {"pooling_convention", "full"}},
                             {Shape({1, 1, 5})}, {x}, {1, 2, 3});
  EXPECT_EQ(f.outputs[0], (Values{3, 5, 4}));
  EXPECT_EQ(f.in_grads[0], (Values{0, 1, 0, 2, 3}));
}

TEST(NnConvShapes, DeferredWeightsAndOutputSizes) {
  // Gluon's deferred initialization: the weight arrives as (num_hidden, 0) or unknown.
  auto fc = infer("FullyConnected", {{"num_hidden", "4"}}, {Shape({2, 3, 5}), Shape({4, 0}), Shape()});
  EXPECT_EQ(fc.in_shapes[1], Shape({4, 15}));
  EXPECT_EQ(fc.in_shapes[2], Shape({4}));
  EXPECT_EQ(fc.out_shapes[0], Shape({2, 4}));
  auto fc_nf =
      infer("FullyConnected", {{"num_hidden", "4"}, {"flatten", "False"}}, {Shape({2, 3, 5}), Shape(), Shape()});
  EXPECT_EQ(fc_nf.in_shapes[1], Shape({4, 5}));
  EXPECT_EQ(fc_nf.out_shapes[0], Shape({2, 3, 4}));
  auto conv =
      infer("Convolution", {{"kernel", "(3, 3)"}, {"num_filter", "8"}, {"num_group", "2"}, {"stride", "(2, 2)"}},
            {Shape({1, 4, 9, 10}), Shape({8, 0, 3, 3}), Shape()});
  EXPECT_EQ(conv.in_shapes[1], Shape({8, 2, 3, 3}));
  EXPECT_EQ(conv.out_shapes[0], Shape({1, 8, 4, 4}));
  auto deconv = infer("Deconvolution",
                      {{"kernel", "(4, 4)"},
                       {"num_filter", "6"},
                       {"num_group", "3"},
                       {"stride", "(2, 2)"},
                       {"pad", "(1, 1)"},
                       {"adj", "(1, 0)"}},
                      {Shape({1, 3, 5, 5}), Shape()});
  EXPECT_EQ(deconv.in_shapes[1], Shape({3, 2, 4, 4}));
  EXPECT_EQ(deconv.out_shapes[0], Shape({1, 6, 11, 10}));
  auto valid = infer("Pooling", {{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}}, {Shape({1, 1, 8, 7})});
  EXPECT_EQ(valid.out_shapes[0], Shape({1, 1, 3, 3}));
  EXPECT_EQ(valid.out_shapes.size(), 2u);  // max pooling's hidden mask
  auto full = infer("Pooling",
                    {{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pooling_convention", "full"}, {"pool_type", "avg"}},
                    {Shape({1, 1, 8, 7})});
  EXPECT_EQ(full.out_shapes[0], Shape({1, 1, 4, 3}));
  EXPECT_EQ(full.out_shapes.size(), 1u);
}

TEST(NnConvInvoke, ThroughTheEngineMaxPoolingShowsOneOutput) {
  NDArray x(Shape({1, 1, 3, 4}));
  x.wait_to_write();
  for (int i = 0; i < 12; ++i) x.data<float>()[i] = static_cast<float>((i * 5) % 12);
  auto outs = nd::invoke("Pooling", {x}, {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}});
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].to_vector<float>(), (std::vector<float>{8, 11}));
  NDArray w(Shape({2, 12}));
  w.wait_to_write();
  for (int i = 0; i < 24; ++i) w.data<float>()[i] = i < 12 ? 1.f : 0.f;
  NDArray y = nd::invoke1("FullyConnected", {x, w}, {{"num_hidden", "2"}, {"no_bias", "True"}});
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{66, 0}));
}

TEST(NnConvShapes, AttributesExportedByMxnetParse) {
  // Verbatim from ../shared/fixtures/mxnet/mnist-symbol.json (MXNet 1.6 Gluon export).
  auto conv = infer("Convolution",
                    {{"dilate", "(1, 1)"},
                     {"kernel", "(5, 5)"},
                     {"layout", "NCHW"},
                     {"no_bias", "False"},
                     {"num_filter", "10"},
                     {"num_group", "1"},
                     {"pad", "(0, 0)"},
                     {"stride", "(1, 1)"}},
                    {Shape({8, 1, 28, 28}), Shape(), Shape()});
  EXPECT_EQ(conv.out_shapes[0], Shape({8, 10, 24, 24}));
  auto pool = infer("Pooling",
                    {{"global_pool", "False"},
                     {"kernel", "(2, 2)"},
                     {"layout", "NCHW"},
                     {"pad", "(0, 0)"},
                     {"pool_type", "max"},
                     {"pooling_convention", "valid"},
                     {"stride", "(2, 2)"}},
                    {Shape({8, 10, 24, 24})});
  EXPECT_EQ(pool.out_shapes[0], Shape({8, 10, 12, 12}));
  auto fc = infer("FullyConnected", {{"flatten", "True"}, {"no_bias", "False"}, {"num_hidden", "20"}},
                  {Shape({8, 25, 4, 4}), Shape(), Shape()});
  EXPECT_EQ(fc.in_shapes[1], Shape({20, 400}));
}

}  // namespace
}  // namespace braid::test
