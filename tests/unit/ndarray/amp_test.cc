// Automatic mixed precision in nd::invoke (braid/ndarray/amp.h): casts by category for bfloat16,
// overridden lists, ops the registry lacks, and the errors.
#include "braid/ndarray/amp.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "braid/base/error.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"

namespace braid::test {
namespace {

// Turns AMP off at the end of a test whatever happens.
struct AmpOn {
  AmpOn(DType target, const amp::OpLists& lists) { amp::init(target, lists); }
  ~AmpOn() { amp::reset(); }
};

TEST(Amp, Bfloat16RunsTheProductsInBfloat16AndTheRestAsItCame) {
  AmpOn on(DType::BFloat16, amp::default_lists(DType::BFloat16));
  EXPECT_EQ(amp::target_dtype(), DType::BFloat16);
  const NDArray x = nd::ones(Shape({2, 3})), w = nd::ones(Shape({4, 3}));
  const NDArray y = nd::invoke1("FullyConnected", {x, w}, {{"num_hidden", "4"}, {"no_bias", "True"}});
  EXPECT_EQ(y.dtype(), DType::BFloat16);
  EXPECT_EQ(y.to_vector<float>(), std::vector<float>(8, 3.0f));
  EXPECT_EQ(nd::invoke1("log_softmax", {y}).dtype(), DType::Float32);
  EXPECT_EQ(nd::invoke1("relu", {y}).dtype(), DType::BFloat16);
  EXPECT_EQ(nd::invoke1("elemwise_add", {y, nd::ones(Shape({2, 4}))}).dtype(), DType::Float32);
  // Deconvolution runs in float32 under bfloat16 (it runs in float16 under float16).
  const auto lists = amp::default_lists(DType::BFloat16);
  EXPECT_NE(std::find(lists.fp32_ops.begin(), lists.fp32_ops.end(), "Deconvolution"), lists.fp32_ops.end());
}

TEST(Amp, ListsCanBeOverriddenAndUnknownOpsAreIgnored) {
  amp::OpLists lists;
  lists.fp32_ops = {"relu", "no_such_operator"};
  lists.target_dtype_ops = {"_plus_scalar"};
  AmpOn on(DType::Float16, lists);
  const NDArray x = nd::ones(Shape({3}));
  EXPECT_EQ(nd::invoke1("_plus_scalar", {x}, {{"scalar", "1"}}).dtype(), DType::Float16);
  EXPECT_EQ(nd::invoke1("relu", {x.astype(DType::Float16)}).dtype(), DType::Float32);
  EXPECT_EQ(nd::invoke1("FullyConnected", {nd::ones(Shape({1, 3})), nd::ones(Shape({2, 3}))},
                        {{"num_hidden", "2"}, {"no_bias", "True"}})
                .dtype(),
            DType::Float32);  // not in these lists
}

TEST(Amp, OffAfterResetAndOnlyFor16BitTargets) {
  { AmpOn on(DType::Float16, amp::default_lists(DType::Float16)); }
  EXPECT_FALSE(amp::active());
  EXPECT_EQ(nd::invoke1("FullyConnected", {nd::ones(Shape({1, 3})), nd::ones(Shape({2, 3}))},
                        {{"num_hidden", "2"}, {"no_bias", "True"}})
                .dtype(),
            DType::Float32);
  EXPECT_THROW(amp::init(DType::Float64, amp::OpLists{}), Error);
  EXPECT_THROW(amp::default_lists(DType::Int32), Error);
  EXPECT_THROW(amp::target_dtype(), Error);
}

}  // namespace
}  // namespace braid::test
