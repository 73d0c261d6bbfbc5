// Saving and loading: the exact bytes written, every dtype, empty/unnamed/named lists, zero-size
// and None arrays, views, and the atomic-write behaviour of io::save.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "braid/io/params.h"
#include "params_test_util.h"

namespace braid::test {
namespace {

const std::string kV2Magic("\xC9\xFA\x93\xF9", 4);

// An array of `shape` and `dtype` filled with random bytes (valid for every dtype's storage).
NDArray random_array(const Shape& shape, DType dtype, uint32_t seed) {
  NDArray a(shape, cpu(), dtype);
  a.wait_to_write();
  std::mt19937 rng(seed);
  auto* p = static_cast<unsigned char*>(a.raw_data());
  for (size_t i = 0; i < static_cast<size_t>(a.size()) * dtype_size(dtype); ++i) {
    p[i] = static_cast<unsigned char>(rng());
    if (dtype == DType::Bool) p[i] &= 1;
  }
  return a;
}

std::string raw_bytes(const NDArray& a) {
  a.wait_to_read();
  return {static_cast<const char*>(a.raw_data()), static_cast<size_t>(a.size()) * dtype_size(a.dtype())};
}

NDArray from_floats(const Shape& shape, const std::vector<float>& v) {
  NDArray a(shape, cpu(), DType::Float32);
  a.wait_to_write();
  std::memcpy(a.raw_data(), v.data(), v.size() * sizeof(float));
  return a;
}

TEST(ParamsRoundTrip, WritesTheExactV2Layout) {
  auto bytes =
      io::save_to_bytes({{"w", from_floats(Shape({2}), {1.5f, -2.0f})}, {"bias", from_floats(Shape({1, 1}), {3.0f})}});
  Bytes want;
  want.header(2);
  want.u32(0xF993FAC9).i32(0).i32(1).i64(2).i32(1).i32(0).i32(0).values<float>({1.5f, -2.0f});
  want.u32(0xF993FAC9).i32(0).i32(2).i64(1).i64(1).i32(1).i32(0).i32(0).values<float>({3.0f});
  want.u64(2).name("w").name("bias");
  EXPECT_EQ(bytes, want.str());
}

TEST(ParamsRoundTrip, EveryDTypeKeepsItsTypeAndBytes) {
  for (int code = 0; code <= static_cast<int>(DType::BFloat16); ++code) {
    DType dtype = static_cast<DType>(code);
    SCOPED_TRACE(dtype_name(dtype));
    NDArray a = random_array(Shape({3, 5}), dtype, static_cast<uint32_t>(code));
    auto bytes = io::save_to_bytes({{"x", a}});
    int32_t written_code;
    std::memcpy(&written_code, bytes.data() + 24 + 12 + 16 + 8, 4);  // after magic..shape, ctx
    EXPECT_EQ(written_code, code);
    auto back = io::load_from_bytes(bytes);
    ASSERT_EQ(back.arrays.size(), 1u);
    EXPECT_EQ(back.arrays[0].dtype(), dtype);
    EXPECT_EQ(back.arrays[0].shape(), Shape({3, 5}));
    EXPECT_EQ(raw_bytes(back.arrays[0]), raw_bytes(a));
  }
}

TEST(ParamsRoundTrip, EmptyList) {
  auto bytes = io::save_to_bytes(std::vector<NDArray>{});
  EXPECT_EQ(bytes, Bytes().header(0).u64(0).str());
  auto back = io::load_from_bytes(bytes);
  EXPECT_TRUE(back.arrays.empty());
  EXPECT_TRUE(back.names.empty());
}

TEST(ParamsRoundTrip, UnnamedListKeepsOrderAndHasNoNames) {
  std::vector<NDArray> arrays = {random_array(Shape({4}), DType::Float32, 1),
                                 random_array(Shape({2, 2}), DType::Int64, 2),
                                 random_array(Shape({1, 2, 3}), DType::Float16, 3)};
  auto bytes = io::save_to_bytes(arrays);
  EXPECT_EQ(bytes.substr(bytes.size() - 8), std::string(8, '\0'));  // name count 0
  auto back = io::load_from_bytes(bytes);
  EXPECT_TRUE(back.names.empty());
  ASSERT_EQ(back.arrays.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back.arrays[i].shape(), arrays[i].shape());
    EXPECT_EQ(raw_bytes(back.arrays[i]), raw_bytes(arrays[i]));
  }
}

TEST(ParamsRoundTrip, NamedListKeepsInsertionOrder) {
  std::vector<std::pair<std::string, NDArray>> named = {{"zeta", random_array(Shape({2}), DType::Float64, 1)},
                                                        {"alpha", random_array(Shape({3}), DType::BFloat16, 2)},
                                                        {"aux:moving_mean", random_array(Shape({1}), DType::Int32, 3)}};
  auto back = io::load_from_bytes(io::save_to_bytes(named));
  EXPECT_EQ(back.names, (std::vector<std::string>{"zeta", "alpha", "aux:moving_mean"}));
  for (size_t i = 0; i < named.size(); ++i) EXPECT_EQ(raw_bytes(back.arrays[i]), raw_bytes(named[i].second));
}

TEST(ParamsRoundTrip, ZeroSizeArrays) {
  for (const Shape& s : {Shape({0}), Shape({3, 0}), Shape({0, 5, 2})}) {
    SCOPED_TRACE(s.str());
    auto back = io::load_from_bytes(io::save_to_bytes({NDArray(s, cpu(), DType::Float32)}));
    ASSERT_EQ(back.arrays.size(), 1u);
    EXPECT_EQ(back.arrays[0].shape(), s);
    EXPECT_EQ(back.arrays[0].size(), 0);
  }
}

TEST(ParamsRoundTrip, NoneArrayIsWrittenAsNdimZero) {
  auto bytes = io::save_to_bytes({{"none", NDArray()}});
  EXPECT_EQ(bytes, Bytes().header(1).u32(0xF993FAC9).i32(0).i32(0).u64(1).name("none").str());
  auto back = io::load_from_bytes(bytes);
  ASSERT_EQ(back.arrays.size(), 1u);
  EXPECT_TRUE(back.arrays[0].is_none());
}

TEST(ParamsRoundTrip, ViewsSaveOnlyTheirElements) {
  NDArray a = from_floats(Shape({3, 2}), {0, 1, 2, 3, 4, 5});
  auto back = io::load_from_bytes(io::save_to_bytes({a.slice(1, 3), a.at(2)}));
  EXPECT_EQ(back.arrays[0].to_vector<float>(), (std::vector<float>{2, 3, 4, 5}));
  EXPECT_EQ(back.arrays[1].shape(), Shape({2}));
  EXPECT_EQ(back.arrays[1].to_vector<float>(), (std::vector<float>{4, 5}));
}

TEST(ParamsRoundTrip, ZeroDimArrayIsRejectedWithTheFix) {
  NDArray scalar(Shape(std::vector<int64_t>{}), cpu(), DType::Float32);
  try {
    io::save_to_bytes({{"s", scalar}});
    FAIL() << "expected braid::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'s' is 0-d"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("reshape it to (1,)"), std::string::npos) << e.what();
  }
}

TEST(ParamsRoundTrip, NameCountMustMatch) {
  io::NamedArrays c{{"a", "b"}, {NDArray(Shape({1}))}};
  EXPECT_THROW(io::save_to_bytes(c), Error);
}

TEST(ParamsSave, WritesAtomicallyAndLeavesNoTemporary) {
  auto dir = scratch_dir();
  auto path = (dir / "model.params").string();
  io::save(path, {{"a", from_floats(Shape({1}), {1.0f})}});
  io::save(path, {{"b", from_floats(Shape({2}), {2.0f, 3.0f})}});  // replaces the old file
  auto back = io::load(path);
  EXPECT_EQ(back.names, std::vector<std::string>{"b"});
  EXPECT_EQ(back.arrays[0].to_vector<float>(), (std::vector<float>{2.0f, 3.0f}));
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1);  // no model.params.tmp.<pid> left behind
}

TEST(ParamsSave, FailedSaveKeepsTheOldFile) {
  auto dir = scratch_dir();
  auto path = (dir / "model.params").string();
  io::save(path, {from_floats(Shape({1}), {7.0f})});
  const std::string before = read_file_bytes(path);
  EXPECT_THROW(io::save(path, {NDArray(Shape(std::vector<int64_t>{}))}), Error);
  EXPECT_EQ(read_file_bytes(path), before);
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1);
}

TEST(ParamsSave, UnwritableDirectoryNamesThePath) {
  auto path = (scratch_dir() / "missing_dir" / "model.params").string();
  try {
    io::save(path, std::vector<NDArray>{});
    FAIL() << "expected braid::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(ParamsLoad, MissingFileNamesThePath) {
  auto path = (scratch_dir() / "nope.params").string();
  try {
    io::load(path);
    FAIL() << "expected braid::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace braid::test
