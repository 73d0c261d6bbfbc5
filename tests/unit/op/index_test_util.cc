#include "index_test_util.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "braid/base/convert.h"

namespace braid::test::tix {

NDArray array(const std::vector<double>& v, const Shape& shape, DType dtype) {
  EXPECT_EQ(static_cast<int64_t>(v.size()), shape.size()) << "values do not fill shape " << shape;
  NDArray a(shape, cpu(), dtype);
  a.wait_to_write();
  convert_elements(v.data(), DType::Float64, a.raw_data(), dtype, shape.size());
  return a;
}

std::vector<double> values(const NDArray& a) { return a.to_vector<double>(); }

std::vector<double> random_values(int64_t n, double lo, double hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) x = u(gen);
  return v;
}

std::vector<NumpyResult> numpy(const std::vector<std::pair<std::string, NDArray>>& arrays,
                               const std::vector<std::string>& exprs) {
  namespace fs = std::filesystem;
  std::string tmpl = (fs::temp_directory_path() / "braid_numpy_XXXXXX").string();
  const fs::path dir = mkdtemp(tmpl.data());
  std::ofstream py(dir / "ref.py");
  py << "import numpy as np, sys\nd = sys.argv[1]\n";
  for (const auto& [name, a] : arrays) {
    const auto v = values(a);
    std::ofstream(dir / (name + ".bin"), std::ios::binary)
        .write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(double)));
    py << name << " = np.fromfile(d + '/" << name << ".bin', dtype='<f8').reshape(" << a.shape().str() << ")\n";
  }
  for (size_t i = 0; i < exprs.size(); ++i) {
    py << "r = np.asarray(" << exprs[i] << ", dtype=np.float64)\n"
       << "open(d + '/out" << i << ".shape', 'w').write(' '.join(str(s) for s in r.shape))\n"
       << "np.ascontiguousarray(r).tofile(d + '/out" << i << ".bin')\n";
  }
  py.close();
  const std::string cmd = "/usr/bin/python3 " + (dir / "ref.py").string() + " " + dir.string();
  const int rc = std::system(cmd.c_str());
  std::vector<NumpyResult> results(exprs.size());
  EXPECT_EQ(rc, 0) << "NumPy reference failed: " << cmd;
  for (size_t i = 0; rc == 0 && i < exprs.size(); ++i) {
    std::ifstream shape(dir / ("out" + std::to_string(i) + ".shape"));
    for (int64_t d; shape >> d;) results[i].shape.push_back(d);
    const auto bin = dir / ("out" + std::to_string(i) + ".bin");
    results[i].values.resize(fs::file_size(bin) / sizeof(double));
    std::ifstream(bin, std::ios::binary)
        .read(reinterpret_cast<char*>(results[i].values.data()),
              static_cast<std::streamsize>(results[i].values.size() * sizeof(double)));
  }
  fs::remove_all(dir);
  return results;
}

Shape mxnet_shape(const NumpyResult& r) { return r.shape.empty() ? Shape({1}) : Shape(r.shape); }

}  // namespace braid::test::tix
