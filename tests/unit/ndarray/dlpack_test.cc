// DLPack: arrays lent to and borrowed from other frameworks share memory, and whoever lent the
// memory gets it back exactly once, after the last use.
#include "braid/ndarray/dlpack.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "braid/base/error.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/invoke.h"

namespace braid {
namespace {

using dlpack::DLManagedTensor;

// A tensor another framework lends: a vector of floats, and a count of its deleter's calls.
struct Lent {
  std::vector<float> values;
  std::vector<int64_t> shape, strides;
  DLManagedTensor tensor{};
  std::atomic<int> deleted{0};

  Lent(std::vector<float> v, std::vector<int64_t> dims) : values(std::move(v)), shape(std::move(dims)) {
    tensor.dl_tensor.data = values.data();
    tensor.dl_tensor.device = {dlpack::kDLCPU, 0};
    tensor.dl_tensor.ndim = static_cast<int32_t>(shape.size());
    tensor.dl_tensor.dtype = {dlpack::kDLFloat, 32, 1};
    tensor.dl_tensor.shape = shape.data();
    tensor.manager_ctx = this;
    tensor.deleter = [](DLManagedTensor* t) { ++static_cast<Lent*>(t->manager_ctx)->deleted; };
  }
};

TEST(DLPack, AnExportSharesTheArraysMemoryAndKeepsItAlive) {
  NDArray a = nd::ones(Shape({2, 3}));
  a = a * 2.0;
  DLManagedTensor* t = dlpack::to_dlpack(a, false);
  a = NDArray();  // the export keeps the memory
  ASSERT_EQ(t->dl_tensor.ndim, 2);
  EXPECT_EQ(t->dl_tensor.shape[0], 2);
  EXPECT_EQ(t->dl_tensor.shape[1], 3);
  EXPECT_EQ(t->dl_tensor.dtype.code, dlpack::kDLFloat);
  EXPECT_EQ(t->dl_tensor.dtype.bits, 32);
  EXPECT_EQ(t->dl_tensor.device.device_type, dlpack::kDLCPU);
  EXPECT_EQ(static_cast<float*>(t->dl_tensor.data)[5], 2.0f);  // the write was waited for
  // Taken back, it is the same memory.
  NDArray b = dlpack::from_dlpack(t);
  static_cast<float*>(t->dl_tensor.data)[0] = 7.0f;
  EXPECT_EQ(b.to_vector<float>(), (std::vector<float>{7, 2, 2, 2, 2, 2}));
}

TEST(DLPack, ABorrowedTensorIsGivenBackOnceAfterItsLastUse) {
  Lent lent({1, 2, 3, 4, 5, 6}, {3, 2});
  {
    NDArray a = dlpack::from_dlpack(&lent.tensor);
    EXPECT_EQ(a.shape(), (Shape{3, 2}));
    NDArray view = a.reshape({6}).slice(2, 4);
    a = NDArray();
    EXPECT_EQ(lent.deleted.load(), 0);  // the view still uses it
    NDArray doubled = view * 2.0;
    EXPECT_EQ(doubled.to_vector<float>(), (std::vector<float>{6, 8}));
    view.fill(0.0);  // writes go into the lender's memory
    view.wait_to_read();
    EXPECT_EQ(lent.values, (std::vector<float>{1, 2, 0, 0, 5, 6}));
  }
  nd::waitall();  // the release runs once the operations on the memory are done
  EXPECT_EQ(lent.deleted.load(), 1);
}

TEST(DLPack, TensorsBraidCannotHoldAreRefusedAndStayTheCallers) {
  Lent strided({1, 2, 3, 4, 5, 6}, {2, 3});
  strided.strides = {1, 2};  // column-major
  strided.tensor.dl_tensor.strides = strided.strides.data();
  EXPECT_THROW(
      {
        try {
          dlpack::from_dlpack(&strided.tensor);
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("not compact row-major"), std::string::npos) << e.what();
          throw;
        }
      },
      Error);
  Lent complex({1, 2}, {1});
  complex.tensor.dl_tensor.dtype = {5, 64, 1};  // complex64
  EXPECT_THROW(dlpack::from_dlpack(&complex.tensor), Error);
  Lent vector4({1, 2, 3, 4}, {1});
  vector4.tensor.dl_tensor.dtype.lanes = 4;
  EXPECT_THROW(dlpack::from_dlpack(&vector4.tensor), Error);
  nd::waitall();
  EXPECT_EQ(strided.deleted.load() + complex.deleted.load() + vector4.deleted.load(), 0);
  // Row-major strides, and any stride for a dimension of size 1, are fine.
  Lent rows({1, 2, 3, 4, 5, 6}, {1, 2, 3});
  rows.strides = {99, 3, 1};
  rows.tensor.dl_tensor.strides = rows.strides.data();
  EXPECT_EQ(dlpack::from_dlpack(&rows.tensor).to_vector<float>(), rows.values);
  nd::waitall();  // the array is gone: its release has run before `rows` goes
  EXPECT_EQ(rows.deleted.load(), 1);
}

}  // namespace
}  // namespace braid
