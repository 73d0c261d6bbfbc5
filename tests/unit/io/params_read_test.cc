// Reading hand-made files: V3 (numpy shapes), pre-V1 and V1 records, gpu contexts, and the exact
// error (file name, byte offset, what was expected) for each kind of bad field.
#include <gtest/gtest.h>

#include "braid/io/params.h"
#include "params_test_util.h"

namespace braid::test {
namespace {

TEST(ParamsRead, V3ScalarNoneAndUnknownDim) {
  Bytes b;
  b.header(4);
  b.u32(kV3).i32(0).i32(0).i32(1).i32(0).i32(1).values<double>({2.5});  // a float64 scalar
  b.u32(kV3).i32(0).i32(-1);                                            // None: ndim -1
  b.u32(kV3).i32(0).i32(2).i64(3).i64(-1);                              // None: a dim unknown
  b.u32(kV3).i32(0).i32(1).i64(2).i32(1).i32(0).i32(4).values<int32_t>({-7, 9});
  b.u64(0);
  auto got = io::load_from_bytes(b.str());
  ASSERT_EQ(got.arrays.size(), 4u);
  EXPECT_EQ(got.arrays[0].shape(), Shape(std::vector<int64_t>{}));
  EXPECT_EQ(got.arrays[0].dtype(), DType::Float64);
  EXPECT_EQ(got.arrays[0].to_vector<double>(), std::vector<double>{2.5});
  EXPECT_TRUE(got.arrays[1].is_none());
  EXPECT_TRUE(got.arrays[2].is_none());
  EXPECT_EQ(got.arrays[3].to_vector<int32_t>(), (std::vector<int32_t>{-7, 9}));
}

TEST(ParamsRead, NoneRecordsOfEveryVersion) {
  Bytes b;
  b.header(3).u32(0).u32(kV1).i32(0).u32(kV2).i32(0).i32(0).u64(3).name("a").name("b").name("c");
  auto got = io::load_from_bytes(b.str());
  ASSERT_EQ(got.arrays.size(), 3u);
  for (const auto& a : got.arrays) EXPECT_TRUE(a.is_none());
}

TEST(ParamsRead, PreV1AndV1WithOtherDTypes) {
  Bytes b;
  b.header(2);
  b.u32(2).u32(2).u32(1).i32(1).i32(0).i32(6).values<int64_t>({-1, 1LL << 40});  // pre-V1 int64 (2, 1)
  b.u32(kV1).i32(1).i64(3).i32(1).i32(0).i32(3).raw("\x01\x02\xff");             // V1 uint8 (3,)
  b.u64(0);
  auto got = io::load_from_bytes(b.str());
  EXPECT_EQ(got.arrays[0].shape(), Shape({2, 1}));
  EXPECT_EQ(got.arrays[0].to_vector<int64_t>(), (std::vector<int64_t>{-1, 1LL << 40}));
  EXPECT_EQ(got.arrays[1].to_vector<uint8_t>(), (std::vector<uint8_t>{1, 2, 255}));
}

TEST(ParamsRead, GpuArraysLoadToCpu) {
  Bytes b;
  b.header(1).u32(kV2).i32(0).i32(1).i64(2).i32(2).i32(3).i32(0).values<float>({1, 2}).u64(1).name("w");
  auto got = io::load_from_bytes(b.str());
  EXPECT_EQ(got.arrays[0].ctx(), cpu());
  EXPECT_EQ(got.arrays[0].to_vector<float>(), (std::vector<float>{1, 2}));
}

TEST(ParamsRead, UnknownStorageTypeIsRefused) {
  expect_error(Bytes().header(1).u32(kV2).i32(-1).str(), {"at byte 28", "invalid storage type -1"});
  expect_error(Bytes().header(1).u32(kV2).i32(3).str(), {"at byte 28", "invalid storage type 3"});
}

TEST(ParamsRead, HeaderErrors) {
  expect_error("", {"truncated at byte 0", "file magic", "expected 8 bytes, 0 left"});
  expect_error(Bytes().u64(0x113).u64(0).u64(0).u64(0).str(), {"at byte 0", "not an MXNet .params file"});
  expect_error(Bytes().header(1ULL << 60).str(), {"at byte 16", "array count 1152921504606846976"});
  expect_error(Bytes().header(0).u64(1).str(), {"at byte 24", "name count 1", "expected 0 or 0"});
  expect_error(Bytes().header(0).u64(0).raw("x").str(), {"at byte 32", "end of the file", "1 more bytes"});
}

TEST(ParamsRead, RecordFieldErrors) {
  auto v2 = [] { return Bytes().header(1).u32(kV2).i32(0); };
  expect_error(v2().i32(-2).str(), {"at byte 32, array 0", "invalid ndim -2"});
  expect_error(v2().i32(1).i64(-5).str(), {"at byte 36", "invalid dimension -5"});
  expect_error(v2().i32(1000000).str(), {"truncated at byte 36 reading array 0 dims", "expected 8000000 bytes"});
  expect_error(v2().i32(1).i64(2).i32(9).i32(0).str(), {"at byte 44", "invalid device type 9"});
  expect_error(v2().i32(1).i64(2).i32(1).i32(-1).str(), {"at byte 48", "invalid device id -1"});
  expect_error(v2().i32(1).i64(2).i32(1).i32(0).i32(13).str(), {"at byte 52", "invalid dtype code 13"});
  expect_error(v2().i32(1).i64(10).i32(1).i32(0).i32(1).raw(std::string(16, '\0')).str(),
               {"truncated at byte 56 reading array 0 data", "10 x 8 bytes, 16 left"});
  // 2^32 * 2^32 elements overflow int64 before any memory is asked for.
  expect_error(v2().i32(2).i64(1LL << 32).i64(1LL << 32).i32(1).i32(0).i32(0).str(),
               {"at byte 32", "more elements than fit in int64"});
  // A huge dim next to a 0 dim is an empty array, but must not overflow either.
  expect_error(v2().i32(3).i64(1LL << 40).i64(1LL << 40).i64(0).i32(1).i32(0).i32(0).str(),
               {"at byte 32", "more elements than fit in int64"});
}

TEST(ParamsRead, UnknownMagicIsNotMistakenForAHugePreV1Ndim) {
  expect_error(Bytes().header(1).u32(0xF993FA09).u64(0).str(), {"at byte 24", "unknown record magic 0xf993fa09"});
}

TEST(ParamsRead, NameErrors) {
  auto one = [] { return Bytes().header(1).u32(0).u64(1); };
  expect_error(one().u64(100).raw("abc").str(), {"at byte 36", "name 0 length 100", "3 bytes left"});
  expect_error(one().str(), {"truncated at byte 36 reading a name length"});
}

}  // namespace
}  // namespace braid::test
