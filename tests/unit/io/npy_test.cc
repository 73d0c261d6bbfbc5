// .npy files byte for byte as numpy.save writes them (Debian's python3-numpy as the reference).
#include "braid/io/npy.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "braid/ndarray/creation.h"
#include "common/cli_runner.h"

namespace braid::io {
namespace {

void expect_numpy_identical(const NDArray& a, const std::string& numpy_expr) {
  auto path = std::filesystem::path(::testing::TempDir()) / "braid_npy_ref.npy";
  auto r = test::run_command("/usr/bin/python3 -c \"import numpy; numpy.save('" + path.string() + "', " + numpy_expr +
                             ")\"");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(npy_bytes(a), test::slurp(path)) << numpy_expr;
}

TEST(Npy, MatchesNumpySave) {
  expect_numpy_identical(nd::arange(0, 6).reshape({2, 3}), "numpy.arange(6, dtype=numpy.float32).reshape(2, 3)");
  expect_numpy_identical(nd::arange(0, 5, 1, 1, cpu(), DType::Float64), "numpy.arange(5, dtype=numpy.float64)");
  expect_numpy_identical(nd::arange(0, 24, 1, 1, cpu(), DType::Int32).reshape({2, 3, 4}),
                         "numpy.arange(24, dtype=numpy.int32).reshape(2, 3, 4)");
}

// numpy.save writes the file, load_npy reads it: the values, shapes and dtypes NumPy gave.
TEST(Npy, ReadsWhatNumpySaves) {
  const auto dir = std::filesystem::path(::testing::TempDir());
  auto numpy_file = [&](const std::string& name, const std::string& expr) {
    const std::string path = (dir / name).string();
    auto r = test::run_command("/usr/bin/python3 -c \"import numpy; numpy.save('" + path + "', " + expr + ")\"");
    EXPECT_EQ(r.code, 0) << r.err;
    return load_npy(path);
  };
  NDArray a = numpy_file("f4.npy", "numpy.arange(24, dtype=numpy.float32).reshape(2, 3, 4) / 8");
  EXPECT_EQ(a.shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(a.dtype(), DType::Float32);
  std::vector<float> eighths;
  for (int i = 0; i < 24; ++i) eighths.push_back(static_cast<float>(i) / 8);
  EXPECT_EQ(a.to_vector<float>(), eighths);
  NDArray b = numpy_file("u1.npy", "numpy.array([[0, 7, 255]], dtype=numpy.uint8)");
  EXPECT_EQ(b.dtype(), DType::UInt8);
  EXPECT_EQ(b.to_vector<int>(), (std::vector<int>{0, 7, 255}));
  NDArray c = numpy_file("f8.npy", "numpy.float64(2.5)");
  EXPECT_EQ(c.ndim(), 0);
  EXPECT_EQ(c.to_vector<double>(), (std::vector<double>{2.5}));
  NDArray d = numpy_file("i8.npy", "numpy.array([-3, 1 << 40], dtype=numpy.int64)");
  EXPECT_EQ(d.to_vector<int64_t>(), (std::vector<int64_t>{-3, int64_t{1} << 40}));
  // And what Braid writes reads back.
  EXPECT_EQ(npy_array(npy_bytes(a)).to_vector<float>(), a.to_vector<float>());
}

TEST(Npy, MalformedFilesAreRefusedNamingTheProblem) {
  const std::string good = npy_bytes(nd::arange(0, 6).reshape({2, 3}));
  auto refused = [](const std::string& bytes, const std::string& part) {
    try {
      npy_array(bytes, "x.npy");
      ADD_FAILURE() << "accepted; expected an error containing: " << part;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  refused("PK\x03\x04 not numpy", "not a NumPy .npy file");
  refused(good.substr(0, good.size() - 4), "needs 6 elements, the file holds 20 data bytes");
  refused(good + "xxxx", "the file holds 28 data bytes");
  refused(good.substr(0, 30), "does not fit the file");
  std::string big_endian = good;
  big_endian.replace(big_endian.find("<f4"), 3, ">f4");
  refused(big_endian, "not supported; save little-endian");
  std::string fortran = good;
  fortran.replace(fortran.find("False"), 5, "True ");
  refused(fortran, "Fortran-ordered");
  // A shape whose element count overflows, in the header's padding so that its length holds.
  std::string huge = good;
  const size_t at = huge.find("(2, 3), }"), end = huge.find('\n');
  std::string overflow = "(4611686018427387904, 4), }";
  overflow.resize(end - at, ' ');
  huge.replace(at, end - at, overflow);
  refused(huge, "element count overflows");
  std::string object = good;
  object.replace(object.find("<f4"), 3, "|O8");
  refused(object, "dtype '|O8' is not supported");
}

TEST(Npy, RejectsWhatNumpyCannotHold) {
  EXPECT_THROW(npy_bytes(NDArray()), Error);
  EXPECT_THROW(npy_bytes(nd::zeros(Shape{2}, cpu(), DType::BFloat16)), Error);
}

}  // namespace
}  // namespace braid::io
