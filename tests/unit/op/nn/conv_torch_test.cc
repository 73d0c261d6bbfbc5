// The nn_conv operators against PyTorch (Debian's /usr/bin/python3 with torch): the test writes
// inputs and output gradients to a temporary folder, a generated script computes the same ops and
// their gradients in float64 with torch.nn.functional, and both Braid dtypes are compared.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "unit/op/op_runner.h"

namespace braid::test {
namespace {

namespace fs = std::filesystem;

struct TorchCase {
  std::string name, op;
  op::AttrMap attrs;
  std::vector<Shape> shapes;
  std::string torch;  // a Python expression over the inputs a[0], a[1], ...
};

std::vector<TorchCase> conv_torch_cases() {
  return {
      {"conv2d",
       "Convolution",
       {{"kernel", "(3, 3)"},
        {"num_filter", "6"},
        {"num_group", "2"},
        {"stride", "(2, 1)"},
        {"pad", "(1, 2)"},
        {"dilate", "(1, 2)"}},
       {Shape({2, 4, 9, 8}), Shape({6, 2, 3, 3}), Shape({6})},
       "F.conv2d(a[0], a[1], a[2], stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)"},
      {"conv2d_lenet",
       "Convolution",
       {{"kernel", "(5, 5)"}, {"num_filter", "20"}},
       {Shape({4, 1, 28, 28}), Shape({20, 1, 5, 5}), Shape({20})},
       "F.conv2d(a[0], a[1], a[2])"},
      {"conv1d",
       "Convolution",
       {{"kernel", "(4,)"}, {"num_filter", "5"}, {"stride", "(2,)"}, {"pad", "(1,)"}},
       {Shape({2, 3, 15}), Shape({5, 3, 4}), Shape({5})},
       "F.conv1d(a[0], a[1], a[2], stride=2, padding=1)"},
      {"conv_transpose2d",
       "Deconvolution",
       {{"kernel", "(3, 3)"},
        {"num_filter", "6"},
        {"num_group", "2"},
        {"stride", "(2, 2)"},
        {"pad", "(1, 1)"},
        {"adj", "(1, 1)"},
        {"no_bias", "False"}},
       {Shape({2, 4, 5, 5}), Shape({4, 3, 3, 3}), Shape({6})},
       "F.conv_transpose2d(a[0], a[1], a[2], stride=2, padding=1, output_padding=1, groups=2)"},
      {"conv3d",
       "Convolution",
       {{"kernel", "(2, 3, 3)"},
        {"num_filter", "4"},
        {"num_group", "2"},
        {"stride", "(1, 2, 1)"},
        {"pad", "(1, 1, 0)"},
        {"dilate", "(2, 1, 1)"}},
       {Shape({2, 4, 5, 7, 6}), Shape({4, 2, 2, 3, 3}), Shape({4})},
       "F.conv3d(a[0], a[1], a[2], stride=(1, 2, 1), padding=(1, 1, 0), dilation=(2, 1, 1), groups=2)"},
      {"conv_transpose3d",
       "Deconvolution",
       {{"kernel", "(3, 2, 3)"},
        {"num_filter", "3"},
        {"stride", "(2, 2, 1)"},
        {"pad", "(1, 0, 1)"},
        {"adj", "(1, 1, 0)"}},
       {Shape({1, 2, 3, 4, 4}), Shape({2, 3, 3, 2, 3})},
       "F.conv_transpose3d(a[0], a[1], stride=(2, 2, 1), padding=(1, 0, 1), output_padding=(1, 1, 0))"},
      {"max_pool3d",
       "Pooling",
       {{"kernel", "(2, 3, 3)"}, {"stride", "(2, 2, 2)"}, {"pad", "(1, 1, 1)"}},
       {Shape({2, 3, 5, 7, 6})},
       "F.max_pool3d(a[0], (2, 3, 3), 2, 1)"},
      {"avg_pool3d_exclude",
       "Pooling",
       {{"kernel", "(3, 3, 2)"},
        {"stride", "(2, 1, 2)"},
        {"pad", "(1, 1, 1)"},
        {"pool_type", "avg"},
        {"count_include_pad", "False"}},
       {Shape({1, 2, 6, 5, 7})},
       "F.avg_pool3d(a[0], (3, 3, 2), (2, 1, 2), 1, count_include_pad=False)"},
      {"max_pool2d",
       "Pooling",
       {{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}},
       {Shape({2, 3, 9, 8})},
       "F.max_pool2d(a[0], 3, 2, 1)"},
      {"max_pool2d_lenet",
       "Pooling",
       {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}},
       {Shape({4, 20, 24, 24})},
       "F.max_pool2d(a[0], 2, 2)"},
      {"avg_pool2d",
       "Pooling",
       {{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"pool_type", "avg"}},
       {Shape({2, 3, 9, 8})},
       "F.avg_pool2d(a[0], 3, 2, 1, count_include_pad=True)"},
      {"avg_pool2d_exclude",
       "Pooling",
       {{"kernel", "(3, 3)"},
        {"stride", "(2, 2)"},
        {"pad", "(1, 1)"},
        {"pool_type", "avg"},
        {"count_include_pad", "False"}},
       {Shape({2, 3, 9, 8})},
       "F.avg_pool2d(a[0], 3, 2, 1, count_include_pad=False)"},
      {"linear",
       "FullyConnected",
       {{"num_hidden", "4"}},
       {Shape({5, 7}), Shape({4, 7}), Shape({4})},
       "F.linear(a[0], a[1], a[2])"},
      {"linear_flatten",
       "FullyConnected",
       {{"num_hidden", "10"}},
       {Shape({3, 2, 2, 3}), Shape({10, 12}), Shape({10})},
       "F.linear(a[0].flatten(1), a[1], a[2])"},
  };
}

const char* kScriptHead = R"(import sys
import numpy as np
import torch
import torch.nn.functional as F
d = sys.argv[1]
def run(name, shapes, f):
    a = [torch.from_numpy(np.fromfile(f"{d}/{name}_in{i}.bin", dtype=np.float32).reshape(s)).double().requires_grad_()
         for i, s in enumerate(shapes)]
    y = f(a)
    dy = torch.from_numpy(np.fromfile(f"{d}/{name}_dy.bin", dtype=np.float32)).double().reshape(y.shape)
    y.backward(dy)
    y.detach().numpy().tofile(f"{d}/{name}_out.bin")
    for i, t in enumerate(a):
        t.grad.numpy().tofile(f"{d}/{name}_grad{i}.bin")
)";

void write_f32(const fs::path& p, const Values& v) {
  std::vector<float> f(v.begin(), v.end());
  std::ofstream(p, std::ios::binary)
      .write(reinterpret_cast<const char*>(f.data()), static_cast<std::streamsize>(f.size() * sizeof(float)));
}

Values read_f64(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  Values v(fs::exists(p) ? fs::file_size(p) / sizeof(double) : 0);
  in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(double)));
  return v;
}

// Values exactly representable in float32, so that both sides start from the same numbers.
Values float_values(int64_t n, unsigned seed) {
  Values v = random_values(n, seed);
  for (auto& x : v) x = static_cast<float>(x);
  return v;
}

std::string py_shape(const Shape& s) {
  std::string out = "(";
  for (int i = 0; i < s.ndim(); ++i) out += std::to_string(s[i]) + ",";
  return out + ")";
}

class AgainstTorch : public ::testing::Test {
 protected:
  void SetUp() override {
    // The reference is a dependency (scripts/install-deps.sh): its absence fails, never skips.
    ASSERT_EQ(std::system("/usr/bin/python3 -c 'import torch, numpy' >/dev/null 2>&1"), 0)
        << "/usr/bin/python3 cannot import torch and numpy; run scripts/install-deps.sh";
    char tmpl[] = "/tmp/braid_torch_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  fs::path dir_;
};

TEST_F(AgainstTorch, ForwardAndGradientsMatch) {
  std::string script = kScriptHead;
  std::vector<std::vector<Values>> inputs;
  std::vector<Values> dys;
  for (const auto& c : conv_torch_cases()) {
    std::vector<Values> in;
    std::string shapes;
    for (size_t i = 0; i < c.shapes.size(); ++i) {
      in.push_back(float_values(c.shapes[i].size(), 31 * static_cast<unsigned>(i) + 3));
      write_f32(dir_ / (c.name + "_in" + std::to_string(i) + ".bin"), in.back());
      shapes += py_shape(c.shapes[i]) + ",";
    }
    dys.push_back(float_values(infer(c.op, c.attrs, c.shapes).out_shapes[0].size(), 77));
    write_f32(dir_ / (c.name + "_dy.bin"), dys.back());
    inputs.push_back(in);
    script += "run('" + c.name + "', [" + shapes + "], lambda a: " + c.torch + ")\n";
  }
  std::ofstream(dir_ / "ops.py") << script;
  const std::string cmd = "/usr/bin/python3 " + (dir_ / "ops.py").string() + " " + dir_.string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "the torch script failed:\n" << script;

  size_t k = 0;
  for (const auto& c : conv_torch_cases()) {
    SCOPED_TRACE(c.name);
    const auto& in = inputs[k];
    const auto& dy = dys[k++];
    const Values want = read_f64(dir_ / (c.name + "_out.bin"));
    for (bool single : {true, false}) {
      auto got =
          single ? run_op<float>(c.op, c.attrs, c.shapes, in, dy) : run_op<double>(c.op, c.attrs, c.shapes, in, dy);
      const double tol = single ? 2e-4 : 1e-10;
      expect_near(got.outputs[0], want, tol, tol, single ? "float32 output" : "float64 output");
      for (size_t i = 0; i < in.size(); ++i)
        expect_near(got.in_grads[i], read_f64(dir_ / (c.name + "_grad" + std::to_string(i) + ".bin")), tol, tol,
                    (single ? "float32 gradient of input " : "float64 gradient of input ") + std::to_string(i));
    }
  }
}

}  // namespace
}  // namespace braid::test
