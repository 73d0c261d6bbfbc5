#pragma once
// Helpers of the matrix-family tests: arrays from values, and NumPy (Debian's /usr/bin/python3)
// as the independent reference, reached through temporary files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "braid/base/convert.h"
#include "braid/ndarray/ndarray.h"

namespace braid::test {

/// An array of `shape` holding `values` (converted to `dtype`).
inline NDArray make_array(const Shape& shape, const std::vector<double>& values, DType dtype = DType::Float32) {
  if (static_cast<int64_t>(values.size()) != shape.size())
    throw std::invalid_argument(cat("make_array: ", values.size(), " values for shape ", shape));
  NDArray a(shape, cpu(), dtype);
  a.wait_to_write();
  convert_elements(values.data(), DType::Float64, a.raw_data(), dtype, shape.size());
  return a;
}

/// 0, 1, 2, ... (exact in every dtype for small sizes).
inline std::vector<double> iota(int64_t n, double start = 0) {
  std::vector<double> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + static_cast<double>(i);
  return v;
}

/// Uniform values in [-1, 1] rounded to float32, so float32 and float64 see the same inputs.
inline std::vector<double> random_values(int64_t n, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) x = static_cast<float>(u(gen));
  return v;
}

struct NumpyResult {
  Shape shape;
  std::vector<double> values;
};

struct NumpyInput {
  Shape shape;
  std::vector<double> values;
};

/// Evaluates the Python expression `expr` with NumPy (as np) on float64 inputs bound to a, b,
/// c, ... and returns the result as float64.
inline NumpyResult numpy_eval(const std::string& expr, const std::vector<NumpyInput>& inputs) {
  static std::atomic<int> counter{0};
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("braid_numpy_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  fs::create_directories(dir);
  std::string script = "import numpy as np, sys\nd = sys.argv[1]\n";
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string file = (dir / ("in" + std::to_string(i) + ".bin")).string();
    std::ofstream(file, std::ios::binary)
        .write(reinterpret_cast<const char*>(inputs[i].values.data()),
               static_cast<std::streamsize>(inputs[i].values.size() * sizeof(double)));
    script += cat(static_cast<char>('a' + i), " = np.fromfile(d + '/in", i, ".bin', dtype=np.float64).reshape(",
                  inputs[i].shape.str(), ")\n");
  }
  script += "r = np.ascontiguousarray(np.asarray(" + expr +
            ", dtype=np.float64))\n"
            "r.tofile(d + '/out.bin')\n"
            "open(d + '/out.shape', 'w').write(' '.join(str(x) for x in r.shape))\n";
  std::ofstream(dir / "eval.py") << script;
  const std::string cmd = "/usr/bin/python3 " + (dir / "eval.py").string() + " " + dir.string();
  const int rc = std::system(cmd.c_str());
  NumpyResult res;
  if (rc != 0) {
    ADD_FAILURE() << "NumPy failed (" << rc << ") on: " << expr;
    fs::remove_all(dir);
    return res;
  }
  std::vector<int64_t> dims;
  std::ifstream shape_file(dir / "out.shape");
  for (int64_t d; shape_file >> d;) dims.push_back(d);
  res.shape = Shape(dims);
  res.values.resize(static_cast<size_t>(res.shape.size()));
  std::ifstream(dir / "out.bin", std::ios::binary)
      .read(reinterpret_cast<char*>(res.values.data()),
            static_cast<std::streamsize>(res.values.size() * sizeof(double)));
  fs::remove_all(dir);
  return res;
}

/// Checks `x` against a NumPy result: same shape, values within rtol (0: exactly equal).
inline void expect_matches(const NDArray& x, const NumpyResult& ref, double rtol = 0) {
  ASSERT_EQ(x.shape(), ref.shape);
  auto got = x.to_vector<double>();
  for (size_t i = 0; i < got.size(); ++i) {
    if (rtol == 0)
      ASSERT_EQ(got[i], ref.values[i]) << "element " << i;
    else
      ASSERT_NEAR(got[i], ref.values[i], rtol * (1 + std::abs(ref.values[i]))) << "element " << i;
  }
}

/// Runs `f` and checks it throws braid::Error whose message contains every one of `parts`.
template <class F>
void expect_error(F f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "expected braid::Error mentioning " << parts[0];
  } catch (const Error& e) {
    const std::string msg = e.what();
    for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
  }
}

}  // namespace braid::test
