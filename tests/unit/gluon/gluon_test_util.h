#pragma once
// Helpers of the Gluon layer and loss tests: deterministic random arrays, values out of arrays,
// elementwise comparison, and the PyTorch reference runner (Debian's /usr/bin/python3 + torch).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "braid/ndarray/creation.h"
#include "braid/ndarray/ndarray.h"

namespace braid::gluon::test_util {

using Values = std::vector<double>;

/// Uniform values in [lo, hi), exactly representable in float32, from `seed`.
inline Values random_values(int64_t n, unsigned seed, double lo = -1, double hi = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Values v(static_cast<size_t>(n));
  for (auto& x : v) x = static_cast<float>(dist(rng));
  return v;
}

inline NDArray make(const Shape& shape, const Values& v, DType dtype = DType::Float32) {
  return nd::array(v, shape, cpu(), dtype);
}

inline NDArray random_array(const Shape& shape, unsigned seed, DType dtype = DType::Float32, double lo = -1,
                            double hi = 1) {
  return make(shape, random_values(shape.size(), seed, lo, hi), dtype);
}

inline Values values(const NDArray& a) { return a.to_vector<double>(); }

/// a and b have the same shape and agree within atol + rtol * |b| elementwise.
inline void expect_close(const NDArray& a, const NDArray& b, double rtol = 0, double atol = 0,
                         const std::string& what = "") {
  ASSERT_EQ(a.shape(), b.shape()) << what;
  const Values x = values(a), y = values(b);
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_NEAR(x[i], y[i], atol + rtol * std::abs(y[i])) << what << " element " << i;
}

inline void expect_values(const NDArray& a, const Values& want, double tol, const std::string& what = "") {
  const Values x = values(a);
  ASSERT_EQ(x.size(), want.size()) << what;
  for (size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(x[i], want[i], tol) << what << " element " << i;
}

/// A temporary folder for exchanging float32/float64 files with a PyTorch script; the reference
/// is a dependency (scripts/install-deps.sh), so its absence fails the test, never skips it.
class TorchDir {
 public:
  TorchDir() {
    char tmpl[] = "/tmp/braid_gluon_torch_XXXXXX";
    if (mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
  }
  ~TorchDir() { std::filesystem::remove_all(dir_); }
  TorchDir(const TorchDir&) = delete;
  TorchDir& operator=(const TorchDir&) = delete;

  static bool torch_available() {
    return std::system("/usr/bin/python3 -c 'import torch, numpy' >/dev/null 2>&1") == 0;
  }
  std::filesystem::path path(const std::string& name) const { return dir_ / name; }
  /// Writes `a` as raw float32.
  void write(const std::string& name, const NDArray& a) const {
    std::vector<float> f = a.to_vector<float>();
    std::ofstream(path(name), std::ios::binary)
        .write(reinterpret_cast<const char*>(f.data()), static_cast<std::streamsize>(f.size() * sizeof(float)));
  }
  /// Reads raw float64 values written by the script.
  Values read(const std::string& name) const {
    std::ifstream in(path(name), std::ios::binary);
    Values v(std::filesystem::exists(path(name)) ? std::filesystem::file_size(path(name)) / sizeof(double) : 0);
    in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(double)));
    return v;
  }
  /// Runs `script` with the folder as its argument; true on success.
  bool run(const std::string& script) const {
    std::ofstream(path("script.py")) << script;
    const std::string cmd = "/usr/bin/python3 " + path("script.py").string() + " " + dir_.string();
    return std::system(cmd.c_str()) == 0;
  }

 private:
  std::filesystem::path dir_;
};

}  // namespace braid::gluon::test_util
