// MaxPool / AvgPool / global pools: output equals the Pooling operator called directly, MXNet's
// defaults (strides = pool_size), ceil_mode, count_include_pad, repr and errors.
#include "braid/gluon/nn/pooling.h"

#include <gtest/gtest.h>

#include "../gluon_test_util.h"
#include "braid/base/error.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/reduce.h"

namespace braid::gluon {
namespace {

using namespace test_util;

NDArray pool_op(const NDArray& x, const op::AttrMap& attrs) { return nd::invoke1("Pooling", {x}, attrs); }

TEST(PoolingLayers, MaxPool2DDefaultsToStridesOfPoolSize) {
  nn::MaxPool2D pool;
  const NDArray x = random_array(Shape({2, 3, 8, 6}), 11);
  const NDArray y = pool(x);
  EXPECT_EQ(y.shape(), Shape({2, 3, 4, 3}));
  expect_close(y, pool_op(x, {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}, {"pool_type", "max"}}));
  EXPECT_EQ(pool.repr(),
            "MaxPool2D(size=(2, 2), stride=(2, 2), padding=(0, 0), ceil_mode=False, "
            "global_pool=False, pool_type=max, layout=NCHW)");
  EXPECT_EQ(pool.prefix().rfind("pool", 0), 0u) << pool.prefix();
  EXPECT_TRUE(pool.collect_params().empty());
}

TEST(PoolingLayers, CeilModeIsTheFullConvention) {
  nn::MaxPool2D floor_pool(3, {.strides = 2});
  nn::MaxPool2D ceil_pool(3, {.strides = 2, .ceil_mode = true});
  const NDArray x = random_array(Shape({1, 2, 8, 8}), 12);
  EXPECT_EQ(floor_pool(x).shape(), Shape({1, 2, 3, 3}));
  const NDArray y = ceil_pool(x);
  EXPECT_EQ(y.shape(), Shape({1, 2, 4, 4}));
  expect_close(y, pool_op(x, {{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pooling_convention", "full"}}));
  EXPECT_EQ(ceil_pool.repr(),
            "MaxPool2D(size=(3, 3), stride=(2, 2), padding=(0, 0), ceil_mode=True, "
            "global_pool=False, pool_type=max, layout=NCHW)");
}

TEST(PoolingLayers, AvgPoolCountIncludePad) {
  const NDArray x = random_array(Shape({2, 3, 7, 6}), 13);
  for (bool include : {true, false}) {
    nn::AvgPool2D pool(3, {.strides = 2, .padding = 1, .count_include_pad = include});
    expect_close(pool(x),
                 pool_op(x, {{"kernel", "(3, 3)"},
                             {"stride", "(2, 2)"},
                             {"pad", "(1, 1)"},
                             {"pool_type", "avg"},
                             {"count_include_pad", include ? "True" : "False"}}),
                 0, 0, include ? "include" : "exclude");
  }
  // The corner window holds 4 real pixels of 9: the two conventions differ there.
  nn::AvgPool2D in(3, {.strides = 2, .padding = 1}), ex(3, {.strides = 2, .padding = 1, .count_include_pad = false});
  EXPECT_NEAR(values(in(x))[0] * 9 / 4, values(ex(x))[0], 1e-6);
}

TEST(PoolingLayers, OneDimensionalPools) {
  const NDArray x = random_array(Shape({2, 3, 9}), 14);
  nn::MaxPool1D max1(3, {.strides = 2});
  expect_close(max1(x), pool_op(x, {{"kernel", "(3,)"}, {"stride", "(2,)"}}));
  nn::AvgPool1D avg1;
  EXPECT_EQ(avg1(x).shape(), Shape({2, 3, 4}));
  expect_close(avg1(x), pool_op(x, {{"kernel", "(2,)"}, {"stride", "(2,)"}, {"pool_type", "avg"}}));
  EXPECT_EQ(avg1.repr(),
            "AvgPool1D(size=(2,), stride=(2,), padding=(0,), ceil_mode=False, global_pool=False, "
            "pool_type=avg, layout=NCW)");
  nn::GlobalMaxPool1D gmax1;
  expect_close(gmax1(x), nd::max(x, {2}, true));
}

TEST(PoolingLayers, GlobalPoolsReduceEverySpatialAxis) {
  const NDArray x = random_array(Shape({2, 3, 5, 4}), 15);
  nn::GlobalAvgPool2D gavg;
  nn::GlobalMaxPool2D gmax;
  expect_close(gavg(x), nd::mean(x, {2, 3}, true), 1e-6, 1e-7);
  expect_close(gmax(x), nd::max(x, {2, 3}, true));
  EXPECT_EQ(gmax.repr(),
            "GlobalMaxPool2D(size=(1, 1), stride=(1, 1), padding=(0, 0), ceil_mode=True, "
            "global_pool=True, pool_type=max, layout=NCHW)");
  EXPECT_EQ(nn::GlobalAvgPool1D().repr(),
            "GlobalAvgPool1D(size=(1,), stride=(1,), padding=(0,), ceil_mode=True, "
            "global_pool=True, pool_type=avg, layout=NCW)");
}

TEST(PoolingLayers, ThreeDimensionalPools) {
  const NDArray x = random_array(Shape({2, 3, 6, 5, 4}), 16);
  nn::MaxPool3D max3;
  EXPECT_EQ(max3(x).shape(), Shape({2, 3, 3, 2, 2}));
  expect_close(max3(x), pool_op(x, {{"kernel", "(2, 2, 2)"}, {"stride", "(2, 2, 2)"}}));
  EXPECT_EQ(max3.repr(),
            "MaxPool3D(size=(2, 2, 2), stride=(2, 2, 2), padding=(0, 0, 0), ceil_mode=False, "
            "global_pool=False, pool_type=max, layout=NCDHW)");
  nn::AvgPool3D avg3(3, {.strides = 2, .padding = 1, .count_include_pad = false});
  expect_close(avg3(x), pool_op(x, {{"kernel", "(3, 3, 3)"},
                                    {"stride", "(2, 2, 2)"},
                                    {"pad", "(1, 1, 1)"},
                                    {"pool_type", "avg"},
                                    {"count_include_pad", "False"}}));
  expect_close(nn::GlobalAvgPool3D()(x), nd::mean(x, {2, 3, 4}, true), 1e-6, 1e-7);
  expect_close(nn::GlobalMaxPool3D()(x), nd::max(x, {2, 3, 4}, true));
  // NDHWC pools the transposed data the same way.
  nn::MaxPool3D last(2, {.layout = "NDHWC"});
  const NDArray y = last(nd::invoke1("transpose", {x}, {{"axes", "(0, 2, 3, 4, 1)"}}));
  expect_close(nd::invoke1("transpose", {y}, {{"axes", "(0, 4, 1, 2, 3)"}}), max3(x));
}

// MXNet's channels-last layouts: the same pooling on the transposed data.
TEST(PoolingLayers, ChannelsLastPoolsTheTransposedData) {
  const NDArray x = random_array(Shape({2, 3, 6, 4}), 21);
  nn::AvgPool2D first(2), last(2, {.layout = "NHWC"});
  const NDArray y = last(nd::invoke1("transpose", {x}, {{"axes", "(0, 2, 3, 1)"}}));
  EXPECT_EQ(y.shape(), Shape({2, 3, 2, 3}));
  expect_close(nd::invoke1("transpose", {y}, {{"axes", "(0, 3, 1, 2)"}}), first(x));
  nn::MaxPool1D first1(2), last1(2, {.layout = "NWC"});
  const NDArray w = random_array(Shape({2, 3, 6}), 22);
  expect_close(nd::invoke1("transpose", {last1(nd::invoke1("transpose", {w}, {{"axes", "(0, 2, 1)"}}))},
                           {{"axes", "(0, 2, 1)"}}),
               first1(w));
}

TEST(PoolingLayers, ErrorsNameTheProblem) {
  EXPECT_THROW(nn::MaxPool2D(2, {.layout = "NCW"}), Error);
  EXPECT_THROW(nn::MaxPool1D(2, {.layout = "NCHW"}), Error);
  EXPECT_THROW(nn::MaxPool2D({2, 2, 2}), Error);
  EXPECT_THROW(nn::MaxPool2D(2, {.count_include_pad = false}), Error);
  EXPECT_THROW(nn::MaxPool2D(2, {.padding = 2}), Error);  // the operator's own check: pad < kernel
  EXPECT_THROW(nn::GlobalAvgPool2D({.padding = 1}), Error);
  try {
    nn::AvgPool2D(2, {.layout = "NCDHW"});
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("AvgPool2D"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace braid::gluon
