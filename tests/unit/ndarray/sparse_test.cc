// Compressed arrays (braid/ndarray/sparse.h): made from parts or converted from dense arrays, read
// back, copied, sliced, retained; operators without a compressed implementation compute on dense
// copies; what a compressed array cannot do is refused with a message saying what to do.
#include <gtest/gtest.h>

#include "braid/base/error.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/sparse.h"

namespace braid {
namespace {

using V = std::vector<float>;
using I = std::vector<int64_t>;

NDArray ints(const I& v) { return nd::array(v, Shape{static_cast<int64_t>(v.size())}, cpu(), DType::Int64); }

// [[0, 7, 0, 0], [0, 0, 0, 0], [8, 0, 0, 9]]
NDArray example_csr() { return sparse::csr_matrix(nd::array({7, 8, 9}), ints({0, 1, 1, 3}), ints({1, 0, 3}), {3, 4}); }
const V kExampleDense{0, 7, 0, 0, 0, 0, 0, 0, 8, 0, 0, 9};

void expect_near(const NDArray& got, const V& want) {
  const V values = got.to_vector<float>();
  ASSERT_EQ(values.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(values[i], want[i], 1e-6) << "element " << i;
}

void expect_error(const std::function<void()>& f, const std::string& piece) {
  try {
    f();
    ADD_FAILURE() << "expected braid::Error containing '" << piece << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(piece), std::string::npos) << e.what();
  }
}

TEST(Sparse, CsrFromPartsReadsBack) {
  NDArray a = example_csr();
  EXPECT_EQ(a.stype(), StorageType::CSR);
  EXPECT_TRUE(a.is_sparse());
  EXPECT_EQ(a.shape(), (Shape{3, 4}));
  EXPECT_EQ(a.to_vector<float>(), kExampleDense);
  EXPECT_EQ(sparse::indptr(a).to_vector<int64_t>(), (I{0, 1, 1, 3}));
  EXPECT_EQ(sparse::indices(a).to_vector<int64_t>(), (I{1, 0, 3}));
  EXPECT_EQ(sparse::data(a).to_vector<float>(), (V{7, 8, 9}));
  sparse::check_format(a);
}

TEST(Sparse, DenseToCompressedAndBack) {
  NDArray dense = nd::array(kExampleDense, Shape{3, 4});
  NDArray csr = sparse::cast_storage(dense, StorageType::CSR);
  EXPECT_EQ(sparse::indptr(csr).to_vector<int64_t>(), (I{0, 1, 1, 3}));
  EXPECT_EQ(sparse::indices(csr).to_vector<int64_t>(), (I{1, 0, 3}));
  EXPECT_EQ(sparse::data(csr).to_vector<float>(), (V{7, 8, 9}));
  NDArray rsp = sparse::cast_storage(dense, StorageType::RowSparse);
  EXPECT_EQ(sparse::indices(rsp).to_vector<int64_t>(), (I{0, 2}));
  EXPECT_EQ(sparse::data(rsp).to_vector<float>(), (V{0, 7, 0, 0, 8, 0, 0, 9}));
  EXPECT_EQ(sparse::cast_storage(rsp, StorageType::Default).to_vector<float>(), kExampleDense);
  EXPECT_EQ(sparse::cast_storage(csr, StorageType::Default).stype(), StorageType::Default);
  // 3-d row_sparse, float64 and int32 values keep their dtype.
  NDArray cube = nd::array({0, 0, 0, 0, 1, 0, 0, 2}, Shape{4, 1, 2}, cpu(), DType::Float64);
  NDArray cube_rsp = sparse::cast_storage(cube, StorageType::RowSparse);
  EXPECT_EQ(cube_rsp.dtype(), DType::Float64);
  EXPECT_EQ(sparse::indices(cube_rsp).to_vector<int64_t>(), (I{2, 3}));
  EXPECT_EQ(cube_rsp.to_vector<double>(), cube.to_vector<double>());
  NDArray int_csr = sparse::cast_storage(nd::array({0, 3, 0, -4}, Shape{2, 2}, cpu(), DType::Int32), StorageType::CSR);
  EXPECT_EQ(sparse::data(int_csr).to_vector<int32_t>(), (std::vector<int32_t>{3, -4}));
}

TEST(Sparse, ZerosStoreNothing) {
  NDArray z = sparse::zeros(StorageType::RowSparse, Shape{3, 2});
  EXPECT_EQ(sparse::data(z).shape(), (Shape{0, 2}));
  EXPECT_EQ(z.to_vector<float>(), V(6, 0));
  NDArray c = sparse::zeros(StorageType::CSR, Shape{2, 5}, cpu(), DType::Float64);
  EXPECT_EQ(sparse::indptr(c).to_vector<int64_t>(), (I{0, 0, 0}));
  EXPECT_EQ(c.to_vector<double>(), std::vector<double>(10, 0));
  EXPECT_EQ(sparse::cast_storage(nd::zeros(Shape{2, 2}), StorageType::CSR).to_vector<float>(), V(4, 0));
}

TEST(Sparse, RetainKeepsTheListedRows) {
  NDArray rsp = sparse::row_sparse_array(nd::array({1, 2, 3, 4, 5, 6}, Shape{3, 2}), ints({0, 2, 5}), Shape{6, 2});
  NDArray kept = sparse::retain(rsp, nd::array({5, 1, 2}));  // float ids, unsorted, one not stored
  EXPECT_EQ(sparse::indices(kept).to_vector<int64_t>(), (I{1, 2, 5}));
  EXPECT_EQ(sparse::data(kept).to_vector<float>(), (V{0, 0, 3, 4, 5, 6}));
  NDArray via_op = nd::invoke("_sparse_retain", {rsp, ints({0})})[0];
  EXPECT_EQ(via_op.stype(), StorageType::RowSparse);
  EXPECT_EQ(via_op.to_vector<float>(), (V{1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  // sparse::retain of a dense array gathers the rows; the operator on one zeroes the other rows.
  NDArray from_dense = sparse::retain(nd::array({1, 2, 3, 4, 5, 6}, Shape{3, 2}), ints({2, 0}));
  EXPECT_EQ(sparse::indices(from_dense).to_vector<int64_t>(), (I{0, 2}));
  EXPECT_EQ(sparse::data(from_dense).to_vector<float>(), (V{1, 2, 5, 6}));
  NDArray dense = nd::invoke("_sparse_retain", {nd::ones(Shape{3, 2}), ints({1})})[0];
  EXPECT_EQ(dense.to_vector<float>(), (V{0, 0, 1, 1, 0, 0}));
}

TEST(Sparse, CsrRowSlicesShareTheValues) {
  NDArray rows = example_csr().slice(1, 3);
  EXPECT_EQ(rows.stype(), StorageType::CSR);
  EXPECT_EQ(rows.shape(), (Shape{2, 4}));
  EXPECT_EQ(sparse::indptr(rows).to_vector<int64_t>(), (I{0, 0, 2}));
  EXPECT_EQ(rows.to_vector<float>(), (V{0, 0, 0, 0, 8, 0, 0, 9}));
}

TEST(Sparse, CopiesConvertToTheDestination) {
  NDArray csr = example_csr();
  NDArray dense = nd::zeros(Shape{3, 4});
  csr.copyto(dense);
  EXPECT_EQ(dense.to_vector<float>(), kExampleDense);
  NDArray rsp = sparse::zeros(StorageType::RowSparse, Shape{3, 4}, cpu(), DType::Float64);
  NDArray alias = rsp;  // copies of a handle see what is written into it
  csr.copyto(rsp);
  EXPECT_EQ(alias.to_vector<double>(), std::vector<double>(kExampleDense.begin(), kExampleDense.end()));
  EXPECT_EQ(alias.dtype(), DType::Float64);
  EXPECT_EQ(sparse::indices(alias).to_vector<int64_t>(), (I{0, 2}));
  NDArray copy = csr.copyto(cpu(1));
  EXPECT_EQ(copy.ctx(), cpu(1));
  EXPECT_EQ(copy.stype(), StorageType::CSR);
  EXPECT_EQ(copy.to_vector<float>(), kExampleDense);
  EXPECT_EQ(csr.astype(DType::Float64).stype(), StorageType::CSR);
  rsp.fill(2);
  EXPECT_EQ(rsp.to_vector<double>(), std::vector<double>(12, 2));
  rsp.fill(0);
  EXPECT_EQ(sparse::data(rsp).shape()[0], 0);
}

TEST(Sparse, OperatorsFallBackToDenseCopies) {
  NDArray csr = example_csr();
  EXPECT_EQ(nd::invoke1("sum", {csr}).to_vector<float>(), V{24});
  NDArray sum = nd::invoke1("elemwise_add", {csr, nd::ones(Shape{3, 4})});
  EXPECT_EQ(sum.stype(), StorageType::Default);
  EXPECT_EQ(sum.to_vector<float>()[1], 8);
  // Into a compressed out=, the result is converted.
  NDArray out = sparse::zeros(StorageType::RowSparse, Shape{3, 4});
  nd::invoke("_mul_scalar", {csr}, {{"scalar", "2"}}, {out});
  EXPECT_EQ(out.stype(), StorageType::RowSparse);
  EXPECT_EQ(sparse::indices(out).to_vector<int64_t>(), (I{0, 2}));
  EXPECT_EQ(out.to_vector<float>()[8], 16);
  EXPECT_EQ(nd::invoke1("cast_storage", {nd::array(kExampleDense, Shape{3, 4})}, {{"stype", "csr"}}).stype(),
            StorageType::CSR);
}

TEST(Sparse, OperatorsThatKeepZerosKeepTheStorage) {
  NDArray csr = example_csr();
  NDArray twice = nd::invoke1("_mul_scalar", {csr}, {{"scalar", "2"}});
  EXPECT_EQ(twice.stype(), StorageType::CSR);
  EXPECT_EQ(sparse::data(twice).to_vector<float>(), (V{14, 16, 18}));
  EXPECT_EQ(nd::invoke1("_equal_scalar", {csr}, {{"scalar", "7"}}).stype(), StorageType::CSR);  // 0 == 7 is 0
  NDArray is_zero = nd::invoke1("_equal_scalar", {csr}, {{"scalar", "0"}});                     // 0 == 0 is 1
  EXPECT_EQ(is_zero.stype(), StorageType::Default);
  EXPECT_EQ(is_zero.to_vector<float>()[0], 1);
  EXPECT_EQ(nd::invoke1("exp", {csr}).stype(), StorageType::Default);
  NDArray rsp = sparse::cast_storage(csr, StorageType::Default);
  rsp = sparse::cast_storage(rsp, StorageType::RowSparse);
  EXPECT_EQ(nd::invoke1("elemwise_add", {rsp, rsp}).stype(), StorageType::RowSparse);
  EXPECT_EQ(nd::invoke1("elemwise_add", {rsp, nd::ones(Shape{3, 4})}).stype(), StorageType::Default);
  NDArray product = nd::invoke1("elemwise_mul", {nd::full(Shape{3, 4}, 3), csr});
  EXPECT_EQ(product.stype(), StorageType::CSR);
  EXPECT_EQ(sparse::data(product).to_vector<float>(), (V{21, 24, 27}));
}

// maximum of two csr matrices keeps csr (max(0, 0) is 0); a division does not (0 / 0 is NaN); a
// product in the storage type its caller asks (dot's forward_stype); the scatter operators compute
// on the stored values only.
TEST(Sparse, BinaryRulesForwardStypesAndScatterOperators) {
  NDArray csr = example_csr();
  EXPECT_EQ(nd::invoke1("_maximum", {csr, csr}).stype(), StorageType::CSR);
  EXPECT_EQ(nd::invoke1("elemwise_div", {csr, csr}).stype(), StorageType::Default);
  NDArray product = nd::invoke1("dot", {nd::ones(Shape{2, 3}), csr}, {{"forward_stype", "row_sparse"}});
  EXPECT_EQ(product.stype(), StorageType::RowSparse);
  EXPECT_EQ(product.to_vector<float>(), (nd::invoke1("dot", {nd::ones(Shape{2, 3}), csr}).to_vector<float>()));
  NDArray plus = nd::invoke1("_scatter_plus_scalar", {csr}, {{"scalar", "1"}});
  EXPECT_EQ(plus.stype(), StorageType::CSR);
  EXPECT_EQ(sparse::data(plus).to_vector<float>(), (V{8, 9, 10}));  // the zeros stay zeros
  EXPECT_EQ(nd::invoke1("_scatter_plus_scalar", {nd::zeros(Shape{2})}, {{"scalar", "1"}}).to_vector<float>(),
            (V{1, 1}));
}

TEST(Sparse, RowSparseSumsCoverTheUnionOfRows) {
  NDArray a = sparse::row_sparse_array(nd::array({1, 2}), ints({0, 2}), Shape{4});
  NDArray b = sparse::row_sparse_array(nd::array({10, 20}), ints({2, 3}), Shape{4});
  NDArray sum = nd::invoke1("elemwise_add", {a, b});
  EXPECT_EQ(sum.stype(), StorageType::RowSparse);
  EXPECT_EQ(sparse::indices(sum).to_vector<int64_t>(), (I{0, 2, 3}));
  EXPECT_EQ(sum.to_vector<float>(), (V{1, 0, 12, 20}));
  EXPECT_EQ(nd::invoke1("elemwise_sub", {a, b}).to_vector<float>(), (V{1, 0, -8, -20}));
}

// sgd_update with weight decay: lazily only the gradient's rows change, otherwise every row decays.
TEST(Sparse, LazyUpdatesTouchOnlyTheGradientsRows) {
  NDArray grad = sparse::row_sparse_array(nd::array({1, 1, 2, 2}, Shape{2, 2}), ints({1, 3}), Shape{4, 2});
  const op::AttrMap attrs{{"lr", "0.1"}, {"wd", "0.5"}};
  NDArray w = nd::ones(Shape{4, 2});
  nd::invoke("sgd_update", {w, grad}, attrs, {w});
  expect_near(w, {1, 1, 0.85f, 0.85f, 1, 1, 0.75f, 0.75f});
  NDArray dense = nd::ones(Shape{4, 2});
  op::AttrMap std_attrs = attrs;
  std_attrs["lazy_update"] = "False";
  nd::invoke("sgd_update", {dense, grad}, std_attrs, {dense});
  expect_near(dense, {0.95f, 0.95f, 0.85f, 0.85f, 0.95f, 0.95f, 0.75f, 0.75f});
  // The momentum of rows without gradient stays as it was.
  NDArray w2 = nd::ones(Shape{4, 2}), mom = nd::full(Shape{4, 2}, 1);
  nd::invoke("sgd_mom_update", {w2, grad, mom}, {{"lr", "0.1"}, {"momentum", "0.5"}}, {w2});
  expect_near(mom, {1, 1, 0.4f, 0.4f, 1, 1, 0.3f, 0.3f});
  expect_near(w2, {1, 1, 1.4f, 1.4f, 1, 1, 1.3f, 1.3f});
}

TEST(Sparse, CsrTakeAndCountsOfStoredValues) {
  NDArray csr = example_csr();
  NDArray taken = nd::invoke1("take", {csr, nd::array({2, -1, 7})}, {{"mode", "clip"}});
  EXPECT_EQ(taken.stype(), StorageType::CSR);
  EXPECT_EQ(taken.to_vector<float>(), (V{8, 0, 0, 9, 0, 7, 0, 0, 8, 0, 0, 9}));
  NDArray wrapped = nd::invoke1("take", {csr, nd::array({-1})}, {{"mode", "wrap"}});
  EXPECT_EQ(wrapped.to_vector<float>(), (V{8, 0, 0, 9}));
  EXPECT_EQ(nd::invoke1("_contrib_getnnz", {csr}).to_vector<int64_t>(), I{3});
  EXPECT_EQ(nd::invoke1("_contrib_getnnz", {csr}, {{"axis", "1"}}).to_vector<int64_t>(), (I{1, 0, 2}));
  EXPECT_EQ(nd::invoke1("_contrib_getnnz", {csr}, {{"axis", "0"}}).to_vector<int64_t>(), (I{1, 1, 0, 1}));
}

TEST(Sparse, WhatCompressedArraysCannotDoIsRefused) {
  NDArray csr = example_csr();
  expect_error([&] { csr.raw_data(); }, "csr, whose elements are not stored densely");
  expect_error([&] { csr.reshape({12}); }, "tostype('default')");
  expect_error([&] { csr.fill(1); }, "csr array can only be set to 0");
  expect_error(
      [&] {
        sparse::csr_matrix(nd::array({1, 2}), ints({0, 2}), ints({0}), {1, 3});
      },
      "1 indices for 2 values");
  expect_error(
      [&] {
        sparse::csr_matrix(nd::array({1}), ints({0, 1}), nd::array({0}), {1, 3});
      },
      "indices must be int64");
  expect_error([&] { sparse::row_sparse_array(nd::array({1, 2}), ints({0}), {4, 3}); }, "need (1, 3)");
  expect_error([&] { sparse::indptr(sparse::zeros(StorageType::RowSparse, {2, 2})); }, "only csr arrays");
  expect_error(
      [&] {
        sparse::check_format(sparse::csr_matrix(nd::array({1}), ints({0, 1}), ints({5}), {1, 3}));
      },
      "column index 5 of row 0 is out of range [0, 3)");
}

}  // namespace
}  // namespace braid
