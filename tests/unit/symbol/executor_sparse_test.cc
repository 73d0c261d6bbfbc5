// Executors bound with compressed arrays (row_sparse, csr): the graph computes on dense copies
// taken at each forward, and gradients reach compressed gradient arrays in their storage type;
// simple_bind makes arguments in the storage types asked for.
#include <gtest/gtest.h>

#include "braid/ndarray/creation.h"
#include "braid/ndarray/sparse.h"
#include "braid/symbol/compose.h"
#include "braid/symbol/executor.h"

namespace braid {
namespace {

// x (3 x 4, two stored rows) . w (4 x 2)
Symbol product() {
  sym::Prefix fresh("");
  return sym::make("dot", {Symbol::Variable("x"), Symbol::Variable("w")}, {}, "dot");
}

NDArray sparse_x() {
  // rows: [0 1 0 0], [0 0 0 0], [2 0 0 3]
  return sparse::csr_matrix(nd::array<float>({1, 2, 3}, Shape{3}),
                            nd::array(std::vector<int64_t>{0, 1, 1, 3}, Shape{4}, cpu(), DType::Int64),
                            nd::array(std::vector<int64_t>{1, 0, 3}, Shape{3}, cpu(), DType::Int64), Shape{3, 4});
}

TEST(ExecutorSparse, CompressedArgumentsAndGradientsGoThroughDenseCopies) {
  const NDArray x = sparse_x();
  const NDArray w = nd::array<float>({1, 2, 3, 4, 5, 6, 7, 8}, Shape{4, 2});
  const NDArray w_grad = sparse::zeros(StorageType::RowSparse, Shape{4, 2});
  Executor ex = Executor::bind(product(), cpu(), {x, w}, {NDArray(), w_grad}, {GradReq::Null, GradReq::Write});
  EXPECT_TRUE(ex.arg_dict().at("x").same_as(x));  // the executor shows the arrays it was given
  ex.forward(true);
  EXPECT_EQ(ex.outputs()[0].to_vector<float>(), (std::vector<float>{3, 4, 0, 0, 23, 28}));
  ex.backward({nd::ones(Shape{3, 2})});
  // x^T . ones: rows 0, 1 and 3 of x's columns are used, row 2 is not
  EXPECT_EQ(w_grad.stype(), StorageType::RowSparse);
  EXPECT_EQ(sparse::indices(w_grad).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 3}));
  EXPECT_EQ(w_grad.to_vector<float>(), (std::vector<float>{2, 2, 1, 1, 0, 0, 3, 3}));
  // a new value of a compressed argument is read at the next forward
  sparse::zeros(StorageType::CSR, Shape{3, 4}).copyto(x);
  ex.forward(false);
  EXPECT_EQ(ex.outputs()[0].to_vector<float>(), std::vector<float>(6, 0.f));
}

TEST(ExecutorSparse, SimpleBindMakesArgumentsInTheStorageTypesAsked) {
  Executor ex = Executor::simple_bind(product(), cpu(), {{"x", Shape{3, 4}}, {"w", Shape{4, 2}}}, GradReq::Write, {},
                                      {"x"}, {}, {}, {{"x", StorageType::CSR}, {"w", StorageType::RowSparse}});
  EXPECT_EQ(ex.arg_dict().at("x").stype(), StorageType::CSR);
  EXPECT_EQ(ex.arg_dict().at("w").stype(), StorageType::RowSparse);
  EXPECT_EQ(ex.grad_dict().at("w").stype(), StorageType::RowSparse);
  sparse_x().copyto(ex.arg_dict().at("x"));
  nd::ones(Shape{4, 2}).copyto(ex.arg_dict().at("w"));
  ex.forward(true, {});
  EXPECT_EQ(ex.outputs()[0].to_vector<float>(), (std::vector<float>{1, 1, 0, 0, 5, 5}));
}

TEST(ExecutorSparse, OutputsTakeTheStorageTypesOfTheSameNDArrayCalls) {
  sym::Prefix fresh("");
  const Symbol x = Symbol::Variable("x"), w = Symbol::Variable("w");
  // x * 2 keeps x's zeros: csr, as nd; x + w with a dense w is dense
  const Symbol both = Symbol::Group(
      {sym::make("_mul_scalar", {x}, {{"scalar", "2"}}, "twice"), sym::make("elemwise_add", {x, w}, {}, "plus")});
  Executor ex = Executor::bind(both, cpu(), {sparse_x(), nd::ones(Shape{3, 4})});
  ex.forward(false);
  ASSERT_EQ(ex.outputs().size(), 2u);
  EXPECT_EQ(ex.outputs()[0].stype(), StorageType::CSR);
  EXPECT_EQ(ex.outputs()[0].to_vector<float>(), (std::vector<float>{0, 2, 0, 0, 0, 0, 0, 0, 4, 0, 0, 6}));
  EXPECT_EQ(ex.outputs()[1].stype(), StorageType::Default);
  EXPECT_EQ(ex.output_dict().at("twice_output").stype(), StorageType::CSR);
}

}  // namespace
}  // namespace braid
