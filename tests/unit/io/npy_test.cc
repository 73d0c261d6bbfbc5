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
  auto r = test::run_command("/usr/bin/python3 -c \"import numpy; numpy.save('" + path.string() + "', " +
                             numpy_expr + ")\"");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(npy_bytes(a), test::slurp(path)) << numpy_expr;
}

TEST(Npy, MatchesNumpySave) {
  expect_numpy_identical(nd::arange(0, 6).reshape({2, 3}), "numpy.arange(6, dtype=numpy.float32).reshape(2, 3)");
  expect_numpy_identical(nd::arange(0, 5, 1, 1, cpu(), DType::Float64), "numpy.arange(5, dtype=numpy.float64)");
  expect_numpy_identical(nd::arange(0, 24, 1, 1, cpu(), DType::Int32).reshape({2, 3, 4}),
                         "numpy.arange(24, dtype=numpy.int32).reshape(2, 3, 4)");
}

TEST(Npy, RejectsWhatNumpyCannotHold) {
  EXPECT_THROW(npy_bytes(NDArray()), Error);
  EXPECT_THROW(npy_bytes(nd::zeros(Shape{2}, cpu(), DType::BFloat16)), Error);
}

}  // namespace
}  // namespace braid::io
