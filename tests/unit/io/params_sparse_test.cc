// Compressed arrays in .params files, in MXNet's record layout (NDArray::Save of MXNet 1.x): the
// storage type, the stored values' shape, the shape, the context, the dtype, each aux array's
// dtype and shape, then the values and the aux arrays' elements. Files built here by hand load
// to the arrays they describe and are written back byte for byte; malformed parts are refused.
#include <gtest/gtest.h>

#include "braid/io/params.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/sparse.h"
#include "params_test_util.h"

namespace braid::test {
namespace {

constexpr int32_t kInt64 = 6, kFloat32 = 0;

// The 4x3 row_sparse array with rows 1 and 3 stored: [[1, 2, 3], [4, 5, 6]] there.
Bytes row_sparse_record(std::vector<int64_t> rows = {1, 3}) {
  Bytes b;
  b.u32(kV2).i32(1);                    // V2, row_sparse
  b.i32(2).i64(2).i64(3);               // stored values: (2, 3)
  b.i32(2).i64(4).i64(3);               // shape (4, 3)
  b.i32(1).i32(0).i32(kFloat32);        // cpu(0), float32
  b.i32(kInt64).i32(1).i64(2);          // indices: int64 (2,)
  b.values<float>({1, 2, 3, 4, 5, 6});  // values
  b.values<int64_t>(rows);              // indices
  return b;
}

// The 3x4 csr matrix [[0, 7, 0, 0], [0, 0, 0, 0], [8, 0, 0, 9]].
Bytes csr_record(std::vector<int64_t> indptr = {0, 1, 1, 3}, std::vector<int64_t> cols = {1, 0, 3}) {
  Bytes b;
  b.u32(kV2).i32(2);              // V2, csr
  b.i32(1).i64(3);                // stored values: (3,)
  b.i32(2).i64(3).i64(4);         // shape (3, 4)
  b.i32(1).i32(0).i32(kFloat32);  // cpu(0), float32
  b.i32(kInt64).i32(1).i64(4);    // indptr: int64 (4,)
  b.i32(kInt64).i32(1).i64(3);    // indices: int64 (3,)
  b.values<float>({7, 8, 9});     // values
  b.values<int64_t>(indptr).values<int64_t>(cols);
  return b;
}

std::string file_of(const Bytes& record, const std::string& name) {
  return Bytes().u64(0x112).u64(0).u64(1).raw(record.str()).u64(1).u64(name.size()).raw(name).str();
}

TEST(ParamsSparse, RowSparseLoadsAndIsWrittenBackByteForByte) {
  const std::string bytes = file_of(row_sparse_record(), "emb");
  io::NamedArrays got = io::load_from_bytes(bytes);
  ASSERT_EQ(got.arrays.size(), 1u);
  const NDArray& a = got.arrays[0];
  EXPECT_EQ(a.stype(), StorageType::RowSparse);
  EXPECT_EQ(a.shape(), (Shape{4, 3}));
  EXPECT_EQ(sparse::indices(a).to_vector<int64_t>(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{0, 0, 0, 1, 2, 3, 0, 0, 0, 4, 5, 6}));
  EXPECT_EQ(io::save_to_bytes(got), bytes);
}

TEST(ParamsSparse, CsrLoadsAndIsWrittenBackByteForByte) {
  const std::string bytes = file_of(csr_record(), "x");
  io::NamedArrays got = io::load_from_bytes(bytes);
  const NDArray& a = got.arrays.at(0);
  EXPECT_EQ(a.stype(), StorageType::CSR);
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{0, 7, 0, 0, 0, 0, 0, 0, 8, 0, 0, 9}));
  EXPECT_EQ(io::save_to_bytes(got), bytes);
}

TEST(ParamsSparse, ArraysMadeHereRoundTrip) {
  NDArray dense = nd::array({0, 0, 1.5f, 0, -2, 0}, Shape{3, 2});
  NDArray csr = sparse::cast_storage(dense, StorageType::CSR);
  NDArray rsp = sparse::cast_storage(dense, StorageType::RowSparse);
  NDArray none = sparse::zeros(StorageType::RowSparse, Shape{5, 2});
  io::NamedArrays back = io::load_from_bytes(io::save_to_bytes({{"c", csr}, {"r", rsp}, {"z", none}}));
  EXPECT_EQ(back.arrays[0].stype(), StorageType::CSR);
  EXPECT_EQ(back.arrays[1].stype(), StorageType::RowSparse);
  EXPECT_EQ(back.arrays[0].to_vector<float>(), dense.to_vector<float>());
  EXPECT_EQ(back.arrays[1].to_vector<float>(), dense.to_vector<float>());
  EXPECT_EQ(sparse::data(back.arrays[2]).shape(), (Shape{0, 2}));
  EXPECT_EQ(back.arrays[2].to_vector<float>(), std::vector<float>(10, 0));
}

TEST(ParamsSparse, MalformedPartsAreRefused) {
  expect_error(file_of(row_sparse_record({1, 4}), "e"), {"array 0", "row index 4 is out of range [0, 4)"});
  expect_error(file_of(row_sparse_record({3, 1}), "e"), {"array 0", "not strictly ascending"});
  expect_error(file_of(csr_record({0, 2, 1, 3}), "x"), {"indptr decreases at row 1"});
  expect_error(file_of(csr_record({0, 1, 1, 3}, {1, 0, 4}), "x"), {"column index 4 of row 2 is out of range"});
  expect_error(file_of(csr_record({0, 1, 1, 3}, {1, 3, 0}), "x"), {"row 2 are not strictly ascending"});
  expect_error(file_of(csr_record({1, 1, 1, 3}), "x"), {"indptr must start at 0"});
  // The aux dtype must be an integer type; a V3 record cannot hold a compressed array.
  Bytes float_aux;
  float_aux.u32(kV2).i32(1).i32(2).i64(2).i64(3).i32(2).i64(4).i64(3).i32(1).i32(0).i32(kFloat32).i32(kFloat32);
  expect_error(file_of(float_aux, "e"), {"aux array 0 has dtype float32"});
  expect_error(file_of(Bytes().u32(kV3).i32(1), "e"), {"compressed array", "V3"});
  // Values truncated: the sizes are checked before anything is read.
  std::string cut = row_sparse_record().str();
  cut.resize(cut.size() - 20);
  expect_error(Bytes().u64(0x112).u64(0).u64(1).raw(cut).str(), {"truncated"});
}

}  // namespace
}  // namespace braid::test
