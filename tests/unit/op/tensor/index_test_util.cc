#include "unit/op/tensor/index_test_util.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "braid/base/convert.h"
#include "braid/base/error.h"
#include "braid/op/registry.h"

namespace braid::test::tix {

NDArray array(const std::vector<double>& v, const Shape& shape, DType dtype) {
  EXPECT_EQ(static_cast<int64_t>(v.size()), shape.size()) << "values do not fill shape " << shape;
  NDArray a(shape, cpu(), dtype);
  a.wait_to_write();
  convert_elements(v.data(), DType::Float64, a.raw_data(), dtype, shape.size());
  return a;
}

std::vector<double> values(const NDArray& a) { return a.to_vector<double>(); }

void expect_error_mentioning(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected braid::Error mentioning '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

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

void run_backward(const std::string& name, const op::AttrMap& attrs, std::vector<std::vector<double>> inputs,
                  const std::vector<Shape>& shapes, std::vector<std::vector<double>> out_grads,
                  const std::vector<op::OpReq>& req, std::vector<std::vector<double>>& grads) {
  const auto& def = op::Registry::get().find(name);
  std::any p = def.parse(attrs);
  std::vector<Shape> in = shapes, out(static_cast<size_t>(def.num_outputs(p))), aux;
  ASSERT_TRUE(def.infer_shape(p, in, out, aux)) << name;
  std::vector<std::vector<double>> outs(out.size());
  op::ForwardArgs fa;
  for (size_t i = 0; i < inputs.size(); ++i) fa.inputs.push_back({inputs[i].data(), shapes[i], DType::Float64});
  for (size_t k = 0; k < out.size(); ++k) {
    outs[k].resize(static_cast<size_t>(out[k].size()));
    fa.outputs.push_back({outs[k].data(), out[k], DType::Float64});
  }
  fa.req.assign(out.size(), op::OpReq::Write);
  op::OpContext ctx;
  def.cpu.forward(ctx, p, fa);
  ASSERT_EQ(out_grads.size(), out.size()) << name;
  op::BackwardArgs ba;
  ba.inputs = fa.inputs;
  ba.outputs = fa.outputs;
  for (size_t k = 0; k < out.size(); ++k) ba.out_grads.push_back({out_grads[k].data(), out[k], DType::Float64});
  for (size_t i = 0; i < grads.size(); ++i) ba.in_grads.push_back({grads[i].data(), shapes[i], DType::Float64});
  ba.req = req;
  def.cpu.backward(ctx, p, ba);
}

Shape mxnet_shape(const NumpyResult& r) { return r.shape.empty() ? Shape({1}) : Shape(r.shape); }

}  // namespace braid::test::tix
